"""Errors of the parse and build functions (no construct import: generated code raises them).

They mirror construct's error classes of the same names; the construct wrappers in
:mod:`.primitives` raise the construct class of the same name (with the field path) when a
declaration runs interpreted, and :func:`binlog_schema.format.event_codec.convert_error` turns
either family into the package's typed :class:`~binlog_schema.format.errors.BinlogError`.
"""

from __future__ import annotations


class LayoutError(Exception):
    """Bytes that do not fit their layout, or a value that cannot be built into it."""

    def __init__(self, message: str = "", path: str | None = None):
        super().__init__(message)
        self.path = path


class StreamError(LayoutError):
    """The input ends before a field (a length or count that runs past the end)."""


class ValidationError(LayoutError):
    """A value the layout does not allow (a bad constant, a length that does not add up)."""


class LimitExceeded(ValidationError):
    """A size or count beyond a configured limit (raised before anything is allocated)."""


class ChecksumMismatch(LayoutError):
    """A stored checksum that does not match the bytes."""


class IntegerError(LayoutError):
    """An integer that does not fit its field."""


class StringError(LayoutError):
    """Text or bytes that do not fit their field."""


class MappingError(LayoutError):
    """A name or code with no mapping."""


class RangeError(LayoutError):
    """A list whose length does not fit its count."""


class CheckError(LayoutError):
    """A build-time consistency check that fails (a value that would not parse back)."""


class ConstError(ValidationError):
    """A constant field whose bytes differ (raised by construct's generated ``Const`` code)."""


class StopFieldError(LayoutError):
    """construct's StopIf signal (named by construct's generated code)."""

"""The package's one exception family.

Every failure to parse or build raises a subclass of :class:`BinlogError`. Each carries the
absolute offset (within the file, or within the event when no file offset is known), the field
path inside the declaration (``body.optional_metadata[2].value``) and what was expected.
"""

from __future__ import annotations


class BinlogError(Exception):
    """Base of every error this package raises on bad input or an impossible value."""

    kind = "error"

    def __init__(self, message: str, *, offset: int | None = None, path: str | None = None,
                 expected: str | None = None):
        self.message = message
        self.offset = offset
        self.path = path
        self.expected = expected
        super().__init__(self._render())

    def _render(self) -> str:
        parts = []
        if self.offset is not None:
            parts.append(f"at offset {self.offset}")
        if self.path:
            parts.append(f"in {self.path}")
        where = (" " + " ".join(parts)) if parts else ""
        text = f"{self.kind}{where}: {self.message}"
        if self.expected:
            text += f" (expected {self.expected})"
        return text

    def to_dict(self) -> dict:
        return {"kind": self.kind, "offset": self.offset, "path": self.path,
                "message": self.message, "expected": self.expected}


class TruncatedError(BinlogError):
    """The input ends before a field it announced (a length or count that runs past the end)."""

    kind = "truncated"


class ChecksumError(BinlogError):
    """The stored CRC32 does not match the event's bytes."""

    kind = "checksum"


class FormatError(BinlogError):
    """Bytes that cannot be what the format says (bad magic, bad constant, impossible value)."""

    kind = "format"


class LimitError(BinlogError):
    """A declared size or count exceeds a configured limit; refused before allocating."""

    kind = "limit"


class BuildError(BinlogError):
    """A value that cannot be encoded (out of range, wrong type, inconsistent with its context)."""

    kind = "build"


ERROR_KINDS = {cls.kind: cls for cls in
               (BinlogError, TruncatedError, ChecksumError, FormatError, LimitError, BuildError)}

"""What the fuzz targets share (:mod:`fuzz.harness` and :mod:`fuzz.gen` import it; it imports
neither): :class:`Finding` and the checks that turn a misbehaviour into one, and the server
versions the targets' contexts vary over."""

from __future__ import annotations

import pathlib

from binlog_schema.format.errors import BinlogError


class Finding(Exception):
    """A crash, a hang or a broken property: what the campaign looks for. ``key`` names its
    kind and place (``untyped codecs.py:250 build``), for the list of known findings."""

    def __init__(self, message: str, key: str | None = None):
        super().__init__(message)
        self.key = key


class Hang(BaseException):
    """Raised by the CPU timer inside the package's code; a BaseException so that no
    ``except Exception`` in the package can swallow or convert it."""


def origin(e: BaseException):
    """The crash a typed error was converted from by one of the package's catch-alls
    (``event_codec.convert_error`` and RowDecoder keep it as ``.original``); None for errors
    raised as such or converted deliberately (``except zlib.error: raise ...``)."""
    return getattr(e, "original", None)


def check_typed(e: BinlogError, data: bytes, what: str, base: int = 0):
    """A typed error must not hide a crash, and must name an offset inside the input."""
    cause = origin(e)
    if cause is not None and not isinstance(cause, Hang):
        name = type(cause).__name__
        raise Finding(f"{what}: {name} converted to {e.kind}: {cause!r:.300} (raised at "
                      f"{where(cause)})", key=f"converted {name} {where(cause, False)}")
    if e.offset is not None and not base <= e.offset <= base + len(data):
        raise Finding(f"{what}: error offset {e.offset} outside the input "
                      f"[{base}, {base + len(data)}]: {e}")


def untyped(what: str, e: BaseException):
    return Finding(f"{what}: untyped {type(e).__name__}: {e!r:.300} (raised at {where(e)})",
                   key=f"untyped {type(e).__name__} {where(e, False)}")


def where(e: BaseException, line: bool = True) -> str:
    """file:line and function of the innermost frame of the package that raised ``e``
    (``line=False``: file and function, a key that survives edits elsewhere in the file)."""
    tb, last = e.__traceback__, None
    while tb is not None:
        code = tb.tb_frame.f_code
        if "binlog_schema" in code.co_filename:
            name = pathlib.Path(code.co_filename).name
            last = f"{name}:{tb.tb_lineno} {code.co_name}" if line else f"{name} {code.co_name}"
        tb = tb.tb_next
    return last or "?"


VERSIONS = ("8.0.40", "5.7.44-log", "10.11.6-MariaDB-log", "9.1.0", "8.0.22", "5.1.73-log",
            "11.8.2-MariaDB", "8.4.3")


def byte_difference(want: bytes, got: bytes) -> str:
    for i, (x, y) in enumerate(zip(want, got)):
        if x != y:
            return f"offset {i}: {x:02x} became {y:02x} (of {len(want)} bytes)"
    return f"{len(want)} bytes became {len(got)}"

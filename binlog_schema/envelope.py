"""The event envelope: 19-byte common header, body ``Switch`` on the type code, CRC32 trailer.

``event_size`` is computed on build; ``log_pos`` too when the value leaves it out (None), from
the context's offset. The CRC32 is verified on parse (a mismatch names the CRC's offset) and
computed on build. FORMAT_DESCRIPTION rule: the server computes the FDE's CRC with the
``BINLOG_IN_USE`` flag (0x1) cleared, because it sets that flag after writing the event.
"""

from __future__ import annotations

import io as _io
import zlib
from io import BytesIO as _BytesIO

import construct as c
from construct import Container, this

from .context import Context
from .errors import (BinlogError, BuildError, ChecksumError, FormatError, LimitError,
                     TruncatedError)
from .events import BODIES, EVENT_TYPES, checksum_length
from .primitives import (FlagList, LimitExceeded, NameTable, Raw, Struct, Switch, TrackingIO,
                         _parser_of, _Wrapper, substream)

HEADER_SIZE = 19
FORMAT_DESCRIPTION_EVENT = 15

EVENT_FLAGS = NameTable(__name__, "EVENT_FLAGS", {
    0x1: "BINLOG_IN_USE", 0x2: "FORCED_ROTATE", 0x4: "THREAD_SPECIFIC", 0x8: "SUPPRESS_USE",
    0x10: "UPDATE_TABLE_MAP_VERSION", 0x20: "ARTIFICIAL", 0x40: "RELAY_LOG", 0x80: "IGNORABLE",
    0x100: "NO_FILTER", 0x200: "MTS_ISOLATE"})

CommonHeader = Struct(
    "timestamp" / c.Int32ul,
    "type_code" / c.Int8ul,
    "server_id" / c.Int32ul,
    "event_size" / c.Int32ul,
    "log_pos" / c.Int32ul,
    "flags" / FlagList(2, EVENT_FLAGS),
)


class ChecksumMismatch(c.ChecksumError):
    pass


def _crc(head: bytes, body: bytes) -> int:
    if head[4] == FORMAT_DESCRIPTION_EVENT and head[17] & 1:
        head = head[:17] + bytes((head[17] & 0xFE,)) + head[18:]
    return zlib.crc32(body, zlib.crc32(head))


def envelope_parse(io, this, parse_header, bodies, default):
    """``bodies.get(kind, default)`` parses the body of an event of that (standard) kind."""
    head = io.read(HEADER_SIZE)
    if len(head) != HEADER_SIZE:
        raise c.StreamError(f"needs {HEADER_SIZE} bytes, only {len(head)} left")
    tracking = type(io) is TrackingIO
    header = parse_header(substream(io, head) if tracking else _BytesIO(head), this)
    size = header["event_size"]
    if size < HEADER_SIZE:
        if tracking:
            io.recorder[0] = io.base + io.tell() - HEADER_SIZE + 9
        raise c.ValidationError(f"event_size {size} is smaller than the {HEADER_SIZE}-byte header")
    rest = io.read(size - HEADER_SIZE)
    if len(rest) != size - HEADER_SIZE:
        raise c.StreamError(f"needs {size - HEADER_SIZE} bytes, only {len(rest)} left")
    ctx = this["_params"].get("ctx")
    kind = header["type_code"]
    if ctx is None:
        crc_len = checksum_length(kind, rest, None)
    else:
        if ctx.type_remap:
            kind = ctx.type_remap.get(kind, kind)
        crc_len = checksum_length(kind, rest, ctx) if kind == FORMAT_DESCRIPTION_EVENT else \
            (4 if ctx.checksum else 0)
    if crc_len:
        if len(rest) < crc_len:  # a CRC32 overlapping the header: would rebuild longer
            if tracking:
                io.recorder[0] = io.base + io.tell() - size + 9
            raise c.ValidationError(f"event_size {size} leaves no room for the {HEADER_SIZE}-"
                                    f"byte header and the {crc_len}-byte CRC32")
        body = rest[:-4]
        stored = int.from_bytes(rest[-4:], "little")
        if (ctx is None or ctx.verify_checksum) and (
                zlib.crc32(body, zlib.crc32(head)) if head[4] != FORMAT_DESCRIPTION_EVENT
                else _crc(head, body)) != stored:
            if tracking:
                io.recorder[0] = io.base + io.tell() - 4
            raise ChecksumMismatch(f"stored CRC32 {stored:#010x}, computed "
                                   f"{_crc(head, body):#010x}")
    else:
        body = rest
    this["header"] = header
    this["_kind"] = kind
    stream = substream(io, body, gap=crc_len) if tracking else _BytesIO(body)
    out = Container(header=header, body=bodies.get(kind, default)(stream, this))
    if stream.tell() != len(body):
        out["trailing"] = body[stream.tell():]
    if crc_len:
        out["checksum"] = stored
    return out


def envelope_build(obj, io, this, build_header, build_body):
    header = Container(obj["header"])
    this["header"] = header
    ctx = this["_params"].get("ctx")
    this["_kind"] = ctx.kind(header["type_code"]) if ctx is not None else header["type_code"]
    buf = _io.BytesIO()
    build_body(obj["body"], buf, this)
    body = buf.getvalue() + (obj.get("trailing") or b"")
    crc_len = checksum_length(this["_kind"], body, ctx, building=True)
    size = HEADER_SIZE + len(body) + crc_len
    header["event_size"] = size
    if header.get("log_pos") is None:
        header["log_pos"] = ((ctx["offset"] if ctx is not None else 0) + size) & 0xFFFFFFFF
    buf = _io.BytesIO()
    build_header(header, buf, this)
    head = buf.getvalue()
    io.write(head)
    io.write(body)
    if crc_len:
        io.write(_crc(head, body).to_bytes(4, "little"))
    return obj


class Envelope(_Wrapper):
    """One whole event: header, body (by type code), optional trailing bytes, CRC32."""

    def __init__(self, header, body):
        super().__init__(envelope_parse, envelope_build, body, buildnone=False)
        self.header = header

    def _parse(self, stream, context, path):
        ph = lambda io, this: self.header._parsereport(io, this, path + " -> header")  # noqa
        pb = lambda io, this: self.subcon._parsereport(io, this, path + " -> body")  # noqa
        return envelope_parse(stream, context, ph, {}, pb)  # (the body's Switch dispatches)

    def _build(self, obj, stream, context, path):
        bh = lambda obj, io, this: self.header._build(obj, io, this, path + " -> header")  # noqa
        bb = lambda obj, io, this: self.subcon._build(obj, io, this, path + " -> body")  # noqa
        return envelope_build(obj, stream, context, bh, bb)

    def _emitparse(self, code):
        code.append("from binlog_schema.envelope import envelope_parse")
        header = _parser_of(self.header._compileparse(code))
        if isinstance(self.subcon, Switch):  # the envelope picks the body's parser itself
            cases, default = self.subcon.emit_tables(code)
        else:
            cases, default = "{}", _parser_of(self.subcon._compileparse(code))
        return f"envelope_parse(io, this, {header}, {cases}, {default})"

    def _emitbuild(self, code):
        code.append("from binlog_schema.envelope import envelope_build")
        return (f"envelope_build(obj, io, this, "
                f"lambda obj, io, this: ({self.header._compilebuild(code)}), "
                f"lambda obj, io, this: ({self.subcon._compilebuild(code)}))")


class _Kind:
    """The body switch's key: the standard type code of the event being parsed or built (see
    Context.type_remap), which the envelope puts in the context as ``_kind``."""

    def __call__(self, context):
        return context["_kind"]

    def __repr__(self):  # construct's Switch emits repr(keyfunc)
        return "this['_kind']"


EventBody = Switch(_Kind(), BODIES, default=Raw)
Event = Envelope(CommonHeader, EventBody)
_compiled = None


def compiled():
    global _compiled
    if _compiled is None:
        _compiled = Event.compile()
    return _compiled


_parsefunc = None


def _compiled_parse():
    global _parsefunc
    _parsefunc = compiled().parsefunc
    return _parsefunc


def type_name(code: int) -> str:
    return EVENT_TYPES.get(code, f"UNKNOWN_EVENT_{code}")


# ---------------------------------------------------------------------------------------
# the public entry points: compiled fast path, interpreted re-run for a precise error


def _path_of(e: c.ConstructError) -> str | None:
    path = getattr(e, "path", None)
    if not path:
        return None
    parts = [p.strip() for p in path.split("->")]
    parts = [p for p in parts if p and not p.startswith("(")]
    return ".".join(parts) or None


def _message_of(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[-1] if text else type(e).__name__


def convert_error(e: Exception, offset: int | None, building: bool = False) -> BinlogError:
    """The typed error for any exception. One that is not construct's (a crash the
    declarations did not foresee) stays reachable as ``.original``, for bug reports and the
    fuzz harness."""
    if isinstance(e, BinlogError):
        return e
    err = _converted(e, offset, building)
    err.original = None if isinstance(e, c.ConstructError) else e
    return err


def _converted(e, offset, building) -> BinlogError:
    path = _path_of(e) if isinstance(e, c.ConstructError) else None
    msg = _message_of(e)
    if building:
        return BuildError(msg, offset=None, path=path)
    if isinstance(e, c.StreamError):
        return TruncatedError(msg, offset=offset, path=path)
    if isinstance(e, LimitExceeded):
        return LimitError(msg, offset=offset, path=path)
    if isinstance(e, c.ChecksumError):
        return ChecksumError(msg, offset=offset, path=path or "checksum")
    return FormatError(msg, offset=offset, path=path)


# How often the compiled code failed and the interpreted declaration ran instead: on valid
# input this must stay 0 (a test checks it over the corpus), or something does not compile.
FALLBACKS = {"parse": 0, "build": 0}


def parse_event(data: bytes, ctx: Context | None = None, offset: int | None = None):
    """Parse one whole event (header, body, CRC) from ``data``; ``offset`` (default the
    context's) is where the event starts in its file, for error reports."""
    if ctx is None:
        ctx = Context()
    try:
        root = {"ctx": ctx}
        root["_params"] = root
        return (_parsefunc or _compiled_parse())(_BytesIO(data), root)
    except Exception:  # noqa: BLE001 - re-run interpreted for a precise, typed error
        FALLBACKS["parse"] += 1
    stream = TrackingIO(data, base=ctx.offset if offset is None else offset)
    try:
        return Event.parse_stream(stream, ctx=ctx)
    except BinlogError:
        raise
    except Exception as e:  # noqa: BLE001 - everything leaves as a typed error
        raise convert_error(e, stream.recorder[0]) from None


def build_event(value, ctx: Context | None = None) -> bytes:
    """Build one whole event; event_size, log_pos (when None) and the CRC32 are computed."""
    ctx = ctx or Context()
    try:
        root = {"ctx": ctx}
        root["_params"] = root
        out = _io.BytesIO()
        compiled().buildfunc(value, out, root)
        return out.getvalue()
    except Exception:  # noqa: BLE001
        FALLBACKS["build"] += 1
    try:
        return Event.build(value, ctx=ctx)
    except BinlogError:
        raise
    except Exception as e:  # noqa: BLE001
        raise convert_error(e, None, building=True) from None

"""The event envelope: the 19-byte common header, the body (by type code), the CRC32 trailer.

``event_size`` is computed on build; ``log_pos`` too when the value leaves it out (None), from
the context's offset. The CRC32 is verified on parse (a mismatch names the CRC's offset) and
computed on build. FORMAT_DESCRIPTION rule: the server computes the FDE's CRC with the
``BINLOG_IN_USE`` flag (0x1) cleared, because it sets that flag after writing the event.
"""

from __future__ import annotations

import io as _io
import zlib
from io import BytesIO as _BytesIO

from ..construct_ext.containers import Container
from ..construct_ext.errors import ChecksumMismatch, StreamError, ValidationError
from ..construct_ext.streams import TrackingIO, substream
from .codes import FORMAT_DESCRIPTION_EVENT
from .flavor import checksum_length

HEADER_SIZE = 19


def event_crc(head: bytes, body: bytes) -> int:
    """The CRC32 of an event's header and body (an FDE's with its in-use flag cleared)."""
    if head[4] == FORMAT_DESCRIPTION_EVENT and head[17] & 1:
        head = head[:17] + bytes((head[17] & 0xFE,)) + head[18:]
    return zlib.crc32(body, zlib.crc32(head))


def crc_ok(raw: bytes, kind: int, ctx) -> bool:
    """Whether a whole event's stored CRC32 (when it has one) matches its bytes."""
    n = checksum_length(kind, raw[HEADER_SIZE:], ctx)
    if not n or len(raw) < HEADER_SIZE + 4:
        return True
    return event_crc(raw[:HEADER_SIZE], raw[HEADER_SIZE:-4]) == int.from_bytes(raw[-4:], "little")


def envelope_parse(io, this, parse_header, bodies, default):
    """One event: ``bodies.get(kind, default)`` parses the body of an event of that (standard)
    kind."""
    head = io.read(HEADER_SIZE)
    if len(head) != HEADER_SIZE:
        raise StreamError(f"needs {HEADER_SIZE} bytes, only {len(head)} left")
    tracking = type(io) is TrackingIO
    header = parse_header(substream(io, head) if tracking else _BytesIO(head), this)
    size = header["event_size"]
    if size < HEADER_SIZE:
        if tracking:
            io.recorder[0] = io.base + io.tell() - HEADER_SIZE + 9
        raise ValidationError(f"event_size {size} is smaller than the {HEADER_SIZE}-byte header")
    rest = io.read(size - HEADER_SIZE)
    if len(rest) != size - HEADER_SIZE:
        raise StreamError(f"needs {size - HEADER_SIZE} bytes, only {len(rest)} left")
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
            raise ValidationError(f"event_size {size} leaves no room for the {HEADER_SIZE}-"
                                  f"byte header and the {crc_len}-byte CRC32")
        body = rest[:-4]
        stored = int.from_bytes(rest[-4:], "little")
        if (ctx is None or ctx.verify_checksum) and (
                zlib.crc32(body, zlib.crc32(head)) if head[4] != FORMAT_DESCRIPTION_EVENT
                else event_crc(head, body)) != stored:
            if tracking:
                io.recorder[0] = io.base + io.tell() - 4
            raise ChecksumMismatch(f"stored CRC32 {stored:#010x}, computed "
                                   f"{event_crc(head, body):#010x}")
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
        io.write(event_crc(head, body).to_bytes(4, "little"))
    return obj

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

from ...construct_ext.errors import ChecksumMismatch, StreamError, ValidationError
from ...construct_ext.streams import TrackingIO
from .codes import FORMAT_DESCRIPTION_EVENT
from .flavor import checksum_length

HEADER_SIZE = 19
# where the common header (format/events/envelope.py declares it: timestamp 4, type_code 1,
# server_id 4, event_size 4, log_pos 4, flags 2) holds what readers of undecoded headers
# look at: the type code's byte, event_size's and log_pos's four bytes, the flags' low byte
TYPE_AT = 4
SIZE_AT, SIZE_END = 9, 13
LOG_POS_AT, LOG_POS_END = 13, 17
FLAGS_AT = 17


def event_crc(head: bytes, body: bytes) -> int:
    """The CRC32 of an event's header and body (an FDE's with its in-use flag cleared)."""
    if head[TYPE_AT] == FORMAT_DESCRIPTION_EVENT and head[FLAGS_AT] & 1:
        head = head[:FLAGS_AT] + bytes((head[FLAGS_AT] & 0xFE,)) + head[FLAGS_AT + 1:]
    return zlib.crc32(body, zlib.crc32(head))


def crc_ok(raw: bytes, kind: int, ctx) -> bool:
    """Whether a whole event's stored CRC32 (when it has one) matches its bytes."""
    if kind == FORMAT_DESCRIPTION_EVENT:
        if not checksum_length(kind, raw[HEADER_SIZE:], ctx) or len(raw) < HEADER_SIZE + 4:
            return True
        return event_crc(raw[:HEADER_SIZE], raw[HEADER_SIZE:-4]) == \
            int.from_bytes(raw[-4:], "little")
    if (ctx is not None and not ctx.checksum) or len(raw) < HEADER_SIZE + 4:
        return True
    return zlib.crc32(memoryview(raw)[:-4]) == int.from_bytes(raw[-4:], "little")


def envelope_parse(io, this, parse_header, bodies, default):
    """One event from a stream: its bytes are read (header, then ``event_size``), and parsed
    by :func:`event_parse` (offsets in errors are the stream's when it tracks them)."""
    tracking = type(io) is TrackingIO
    start = io.tell()
    head = io.read(HEADER_SIZE)
    if len(head) != HEADER_SIZE:
        raise StreamError(f"needs {HEADER_SIZE} bytes, only {len(head)} left")
    size = int.from_bytes(head[SIZE_AT:SIZE_END], "little")
    rest = io.read(max(size - HEADER_SIZE, 0))
    if len(rest) != max(size - HEADER_SIZE, 0):
        raise StreamError(f"needs {size - HEADER_SIZE} bytes, only {len(rest)} left")
    where = (io.base + start, io.recorder) if tracking else None
    return event_parse(head + rest, this, parse_header, bodies, default, where)


def event_parse(raw, this, parse_header, bodies, default, where=None):
    """One event from its bytes (``raw``: the event, or more; the header's ``event_size``
    says how much is the event): ``parse_header`` parses the header, ``bodies.get(kind,
    default)`` the body of an event of that (standard) kind (parsers of the JSON direction
    give the event's parts as JSON text). ``where``: (file offset of ``raw``, recorder) when
    errors must name
    file offsets (the recorder is a :class:`TrackingIO`'s)."""
    if where is None:
        header = parse_header(_BytesIO(raw), this)
    else:
        base, recorder = where
        header = parse_header(TrackingIO(raw[:HEADER_SIZE], base, recorder), this)
    # (the header's event_size and type code, read from the bytes: ``parse_header`` may give
    # the header's JSON text)
    size = int.from_bytes(raw[SIZE_AT:SIZE_END], "little")
    if size < HEADER_SIZE:
        if where is not None:
            recorder[0] = base + 9
        raise ValidationError(f"event_size {size} is smaller than the {HEADER_SIZE}-byte header")
    if len(raw) < size:
        raise StreamError(f"needs {size - HEADER_SIZE} bytes, only {len(raw) - HEADER_SIZE} "
                          "left")
    ctx = this["_params"].get("ctx")
    kind = raw[TYPE_AT]
    if ctx is None:
        crc_len = checksum_length(kind, raw[HEADER_SIZE:size], None)
    else:
        if ctx.type_remap:
            kind = ctx.type_remap.get(kind, kind)
        crc_len = checksum_length(kind, raw[HEADER_SIZE:size], ctx) \
            if kind == FORMAT_DESCRIPTION_EVENT else (4 if ctx.checksum else 0)
    end = size - crc_len
    if crc_len:
        if end < HEADER_SIZE:  # a CRC32 overlapping the header: would rebuild longer
            if where is not None:
                recorder[0] = base + 9
            raise ValidationError(f"event_size {size} leaves no room for the {HEADER_SIZE}-"
                                  f"byte header and the {crc_len}-byte CRC32")
        stored = int.from_bytes(raw[end:size], "little")
        if (ctx is None or ctx.verify_checksum) and (
                zlib.crc32(memoryview(raw)[:end]) if raw[TYPE_AT] != FORMAT_DESCRIPTION_EVENT
                else event_crc(raw[:HEADER_SIZE], raw[HEADER_SIZE:end])) != stored:
            if where is not None:
                recorder[0] = base + end
            raise ChecksumMismatch(f"stored CRC32 {stored:#010x}, computed "
                                   f"{event_crc(raw[:HEADER_SIZE], raw[HEADER_SIZE:end]):#010x}")
    body = raw[HEADER_SIZE:end]
    this["header"] = header
    this["_kind"] = kind
    stream = _BytesIO(body) if where is None else TrackingIO(body, base + HEADER_SIZE, recorder)
    out = {"header": header, "body": bodies.get(kind, default)(stream, this)}
    used = stream.tell()
    if used != len(body):
        out["trailing"] = body[used:]
    if crc_len:
        out["checksum"] = stored
    return out


def envelope_build(obj, io, this, build_header, build_body):
    header = dict(obj["header"])
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

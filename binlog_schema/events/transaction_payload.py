"""TRANSACTION_PAYLOAD_EVENT (40, MySQL 8.0.20+): a compressed transaction.

Body: header fields, each a packed type and (except the end mark, type 0) a packed length and
a packed value: 1 PAYLOAD_SIZE, 2 COMPRESSION_TYPE (0 = zstd, 255 = none), 3
UNCOMPRESSED_SIZE; then the payload: the transaction's events, compressed, without CRC32s.
The compressed bytes are kept so the event rebuilds exactly; :func:`payload_events_bytes`
gives the inner events' bytes.
"""

from __future__ import annotations

import construct as c
from construct import this

from ..primitives import (Bounded, FieldIs, NameTable, PackedInt, Raw, RepeatUntilValue, Struct,
                          _Leaf)

PAYLOAD_FIELDS = NameTable(__name__, "PAYLOAD_FIELDS", {
    0: "END", 1: "PAYLOAD_SIZE", 2: "COMPRESSION_TYPE", 3: "UNCOMPRESSED_SIZE"})
COMPRESSION_TYPES = {0: "ZSTD", 255: "NONE"}


def ptype_parse(io):
    from ..primitives import packed_parse
    v = packed_parse(io)
    return PAYLOAD_FIELDS.get(v, v)


def ptype_build(obj, io):
    from ..primitives import packed_build
    packed_build(PAYLOAD_FIELDS.get(obj, obj) if isinstance(obj, str) else obj, io)
    return obj


PayloadFieldType = _Leaf(ptype_parse, ptype_build)

PayloadField = Struct(
    "type" / PayloadFieldType,
    "value" / c.If(FieldIs(("type",), "END", negate=True), Bounded(PackedInt)),
)

TransactionPayloadBody = Struct(
    "fields" / RepeatUntilValue(PayloadField, "type", "END"),
    "payload" / Raw,
)

MAX_UNCOMPRESSED = 1 << 30


def payload_events_bytes(body, limit: int = MAX_UNCOMPRESSED) -> bytes:
    """The inner events' bytes (decompressed when the compression type is zstd)."""
    fields = {f["type"]: f["value"] for f in body["fields"]}
    kind = fields.get("COMPRESSION_TYPE", 0)
    if kind == 255:
        return bytes(body["payload"])
    if kind != 0:
        raise c.ValidationError(f"unknown compression type {kind}")
    import zstandard
    size = fields.get("UNCOMPRESSED_SIZE")
    from ..primitives import LimitExceeded
    if size is not None and size > limit:
        raise LimitExceeded(f"uncompressed size {size} exceeds the limit {limit}")
    dctx = zstandard.ZstdDecompressor()
    try:
        with dctx.stream_reader(bytes(body["payload"])) as reader:
            data = reader.read(limit + 1)
    except zstandard.ZstdError as e:
        raise c.ValidationError(f"zstd: {e}") from None
    if len(data) > limit:
        raise LimitExceeded(f"decompressed payload exceeds the limit {limit}")
    return data


def payload_body(events: bytes, compression: str = "ZSTD", level: int = 3) -> dict:
    """A TRANSACTION_PAYLOAD body for inner events' bytes (built without CRC32s), with its
    header fields computed the way MySQL writes them (type 2, 3, 1, end)."""
    if compression == "ZSTD":
        import zstandard
        payload = zstandard.ZstdCompressor(level=level).compress(events)
    elif compression == "NONE":
        payload = events
    else:
        raise ValueError(f"unknown compression {compression!r}")
    kind = 0 if compression == "ZSTD" else 255
    return {"fields": [{"type": "COMPRESSION_TYPE", "value": kind},
                       {"type": "UNCOMPRESSED_SIZE", "value": len(events)},
                       {"type": "PAYLOAD_SIZE", "value": len(payload)},
                       {"type": "END", "value": None}],
            "payload": payload}

"""Compressed blocks: MariaDB's (QUERY_COMPRESSED, the compressed rows events of
``log_bin_compress``, compressed columns) and MySQL's TRANSACTION_PAYLOAD (zstd).

MariaDB's block: ``0x80 | n`` (n = 1..4), the uncompressed length in n big-endian bytes, then
a zlib stream; compressed columns (``COMPRESSED``) use the same header, with 0x08 set when the
data is a raw deflate stream (no zlib wrapper). Decompression is bounded: a lying length or a
zlib bomb stops at the limit.
"""

from __future__ import annotations

import zlib

from ...construct_ext.errors import (LayoutError, LimitExceeded, StreamError, StringError,
                                    ValidationError)
from ...construct_ext.ints import packed_build, packed_parse
from ...construct_ext.text import encoded, text_of
from .names import PAYLOAD_FIELDS

MAX_UNCOMPRESSED = 1 << 30


def mariadb_uncompress(data: bytes, limit: int = MAX_UNCOMPRESSED) -> bytes:
    if not data:
        raise StreamError("compressed block: no bytes")
    head = data[0]
    n = head & 0x07
    if head & 0x80 == 0 or not 1 <= n <= 4:
        raise ValidationError(f"compressed block: bad header byte {head:#04x}")
    if len(data) < 1 + n:
        raise StreamError("compressed block: length runs past the end")
    size = int.from_bytes(data[1:1 + n], "big")
    if size > limit:
        raise LimitExceeded(f"compressed block: {size} bytes exceed the limit {limit}")
    # 0x08: a raw deflate stream (column compression with column_compression_zlib_wrap=OFF,
    # the default); otherwise a zlib stream with header and checksum
    d = zlib.decompressobj(-15 if head & 0x08 else 15)
    try:
        out = d.decompress(data[1 + n:], size + 1)
    except zlib.error as e:
        raise ValidationError(f"compressed block: zlib: {e}") from None
    if len(out) != size:
        raise ValidationError(f"compressed block: its header says {size} bytes uncompressed, "
                              f"zlib gives {len(out)}{'' if len(out) < size else ' or more'}")
    if not d.eof:   # (the stream's last bytes missing: its end, its checksum)
        raise ValidationError(f"compressed block: the zlib stream is cut short ({size} bytes "
                              "uncompressed, as its header says, but not its end)")
    return out


def mariadb_compress(data: bytes, level: int = 6, raw_deflate: bool = False) -> bytes:
    """A MariaDB compressed block (what :func:`mariadb_uncompress` reads): a header byte
    0x80 | n (| 0x08 for a raw deflate stream), the uncompressed length in n big-endian bytes,
    then the zlib stream (a raw deflate one with ``raw_deflate``)."""
    size = len(data)
    n = 4 if size >> 24 else 3 if size >> 16 else 2 if size >> 8 else 1
    if raw_deflate:
        z = zlib.compressobj(level, zlib.DEFLATED, -15)
        packed = z.compress(data) + z.flush()
    else:
        packed = zlib.compress(data, level)
    return bytes((0x80 | (0x08 if raw_deflate else 0) | n,)) + size.to_bytes(n, "big") + packed


COLUMN_COMPRESSION_THRESHOLD = 100  # MariaDB column_compression_threshold (default)


def column_compress(raw: bytes, level: int = 6) -> bytes:
    """A MariaDB compressed column's stored value (Field_*_compressed, with the defaults
    column_compression_threshold=100, column_compression_zlib_wrap=OFF, level 6): a value
    under the threshold, or one that does not shrink, is stored after a 0x00 byte; else a
    compressed block of raw deflate (:func:`mariadb_uncompress` reads both)."""
    if len(raw) < COLUMN_COMPRESSION_THRESHOLD:
        return b"\0" + raw
    stored = mariadb_compress(raw, level, raw_deflate=True)
    return stored if len(stored) < len(raw) + 1 else b"\0" + raw


def compressed_parse(io, limit=MAX_UNCOMPRESSED):
    """The rest of the stream as a MariaDB compressed block: ``{compressed, data}``."""
    data = io.read()
    return dict(compressed=data, data=mariadb_uncompress(data, limit))


def compressed_build(obj, io, limit=MAX_UNCOMPRESSED):
    """The stored compressed bytes when they still decompress to ``data`` (so a parsed event
    rebuilds exactly); else ``data`` compressed anew (an edited value)."""
    data = obj.get("data")
    stored = obj.get("compressed")
    if stored is not None and (data is None or _same(stored, data, limit)):
        io.write(stored)
    elif data is not None:
        io.write(mariadb_compress(bytes(data)))
    else:
        raise StringError("compressed block: neither data nor compressed bytes given")
    return obj


def _same(stored, data, limit=MAX_UNCOMPRESSED) -> bool:
    try:
        return mariadb_uncompress(stored, limit) == bytes(data)
    except LayoutError:
        return False


def query_compressed_parse(io, query):
    """QUERY_COMPRESSED's block, kept as stored."""
    return io.read()


def query_compressed_build(obj, io, query):
    if obj is None:
        if query is None:
            raise ValidationError("QUERY_COMPRESSED needs compressed or query")
        obj = mariadb_compress(encoded(query))
    elif not isinstance(obj, (bytes, bytearray)):
        raise StringError(f"compressed must be bytes, got {obj!r:.40}")
    elif query is not None and mariadb_uncompress(bytes(obj)) != encoded(query):
        raise ValidationError("compressed and query disagree: drop compressed (None) to "
                              "compress the edited query")
    io.write(obj)
    return obj


def query_uncompressed_parse(io, compressed):
    """The query text QUERY_COMPRESSED's block holds (no bytes of its own)."""
    return text_of(mariadb_uncompress(bytes(compressed)))


def query_uncompressed_build(obj, io, compressed):
    return obj  # derived: the bytes are the compressed field's


# ---------------------------------------------------------------------------- MySQL payloads


def ptype_parse(io):
    """A TRANSACTION_PAYLOAD header field's type: a packed integer, named."""
    v = packed_parse(io)
    return PAYLOAD_FIELDS.get(v, v)


def ptype_build(obj, io):
    packed_build(PAYLOAD_FIELDS.get(obj, obj) if isinstance(obj, str) else obj, io)
    return obj


def payload_events_bytes(body, limit: int = MAX_UNCOMPRESSED) -> bytes:
    """The inner events' bytes of a TRANSACTION_PAYLOAD body (decompressed when the
    compression type is zstd). The sizes its header states are checked: PAYLOAD_SIZE, the
    payload's bytes; UNCOMPRESSED_SIZE, what they decompress to (a payload cut short gives
    less, or nothing: a transaction that must not vanish quietly)."""
    fields = {f["type"]: f["value"] for f in body["fields"]}
    payload = bytes(body["payload"])
    stated = fields.get("PAYLOAD_SIZE")
    if stated is not None and stated != len(payload):
        raise ValidationError(f"PAYLOAD_SIZE says {stated} bytes of payload, the event holds "
                              f"{len(payload)}", path="body.fields.PAYLOAD_SIZE")
    kind = fields.get("COMPRESSION_TYPE", 0)
    size = fields.get("UNCOMPRESSED_SIZE")
    if kind == 255:
        data = payload
    elif kind != 0:
        raise ValidationError(f"unknown compression type {kind}",
                              path="body.fields.COMPRESSION_TYPE")
    else:
        if size is not None and size > limit:
            raise LimitExceeded(f"uncompressed size {size} exceeds the limit {limit}",
                                path="body.fields.UNCOMPRESSED_SIZE")
        import zstandard
        dctx = zstandard.ZstdDecompressor()
        try:
            with dctx.stream_reader(payload) as reader:
                data = reader.read(limit + 1)
        except zstandard.ZstdError as e:
            raise ValidationError(f"zstd: {e}", path="body.payload") from None
        if len(data) > limit:
            raise LimitExceeded(f"decompressed payload exceeds the limit {limit}",
                                path="body.payload")
    if size is not None and size != len(data):
        raise ValidationError(f"UNCOMPRESSED_SIZE says {size} bytes of events, the payload "
                              f"gives {len(data)}", path="body.fields.UNCOMPRESSED_SIZE")
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

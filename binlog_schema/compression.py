"""MariaDB's compressed blocks: QUERY_COMPRESSED and the compressed rows events
(``log_bin_compress``) carry ``0x80 | n`` (n = 1..4), the uncompressed length in n big-endian
bytes, then a zlib stream; compressed columns (``COMPRESSED``) use the same header, with 0x08
set when the data is a raw deflate stream (no zlib wrapper). Decompression is bounded: a lying length or a zlib bomb stops at the limit."""

from __future__ import annotations

import zlib

import construct as c

from .primitives import _Leaf

MAX_UNCOMPRESSED = 1 << 30


def mariadb_uncompress(data: bytes, limit: int = MAX_UNCOMPRESSED) -> bytes:
    if not data:
        raise c.StreamError("compressed block: no bytes")
    head = data[0]
    n = head & 0x07
    if head & 0x80 == 0 or not 1 <= n <= 4:
        raise c.ValidationError(f"compressed block: bad header byte {head:#04x}")
    if len(data) < 1 + n:
        raise c.StreamError("compressed block: length runs past the end")
    size = int.from_bytes(data[1:1 + n], "big")
    if size > limit:
        from .primitives import LimitExceeded
        raise LimitExceeded(f"compressed block: {size} bytes exceed the limit {limit}")
    # 0x08: a raw deflate stream (column compression with column_compression_zlib_wrap=OFF,
    # the default); otherwise a zlib stream with header and checksum
    d = zlib.decompressobj(-15 if head & 0x08 else 15)
    try:
        out = d.decompress(data[1 + n:], size + 1)
    except zlib.error as e:
        raise c.ValidationError(f"compressed block: zlib: {e}") from None
    if len(out) != size:
        raise c.ValidationError(f"compressed block: {len(out)} bytes, header says {size}")
    return out


def mariadb_compress(data: bytes, level: int = 6) -> bytes:
    size = len(data)
    n = 4 if size >> 24 else 3 if size >> 16 else 2 if size >> 8 else 1
    return bytes((0x80 | n,)) + size.to_bytes(n, "big") + zlib.compress(data, level)


# ------------------------------------------------------------------------------ primitive


def compressed_parse(io, limit=MAX_UNCOMPRESSED):
    data = io.read()
    return c.Container(compressed=data, data=mariadb_uncompress(data, limit))


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
        raise c.StringError("compressed block: neither data nor compressed bytes given")
    return obj


def _same(stored, data, limit=MAX_UNCOMPRESSED) -> bool:
    try:
        return mariadb_uncompress(stored, limit) == bytes(data)
    except c.ConstructError:
        return False


def MariaCompressed(limit=MAX_UNCOMPRESSED):
    """The rest of the (bounded) stream as a MariaDB compressed block, parsed to
    ``{"compressed": bytes, "data": bytes}``; built from the stored bytes when they still
    match. ``limit`` (a value or context expression) bounds the decompressed size."""
    return _Leaf(compressed_parse, compressed_build, limit)

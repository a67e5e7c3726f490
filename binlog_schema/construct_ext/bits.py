"""Bitmaps: LSB-first (null bits, columns present) and MSB-first (signedness, visibility)."""

from __future__ import annotations

from .errors import RangeError
from .streams import read_exact

_BITS_CACHE: tuple = ({}, {})  # LSB, MSB: bytes -> their bits (bitmaps repeat a lot)


def bits_of(data: bytes, msb: bool) -> list:
    """The bits of ``data`` as a list of bools, in the given order within each byte."""
    cache = _BITS_CACHE[msb]
    bits = cache.get(data)
    if bits is None:
        n = 8 * len(data)
        if msb:  # byte by byte, bit 7 first: the big-endian number from its top bit down
            v = int.from_bytes(data, "big")
            bits = tuple(bool(v >> i & 1) for i in range(n - 1, -1, -1))
        else:  # byte by byte, bit 0 first: the little-endian number from its bottom bit up
            v = int.from_bytes(data, "little")
            bits = tuple(bool(v >> i & 1) for i in range(n))
        if len(data) <= 64:  # small bitmaps only, and a bounded number of them
            if len(cache) >= 1024:
                cache.clear()
            cache[bytes(data)] = bits
    return list(bits)


def bytes_of(bits, nbytes: int, msb: bool) -> bytes:
    out = bytearray(nbytes)
    for i, bit in enumerate(bits):
        if bit:
            out[i >> 3] |= (0x80 >> (i & 7)) if msb else (1 << (i & 7))
    return bytes(out)


def bitmap_parse(io, count, msb, greedy, pad=False):
    """``count`` bits; the spare bits of the last byte are kept (all bits returned) only when
    they are not the writer's usual filler (``pad``: zeros, or ones for the rows events'
    column bitmaps), or when a greedy bitmap has more bytes than ``count`` needs."""
    nbytes = (count + 7) >> 3
    data = io.read() if greedy else read_exact(io, nbytes)
    bits = bits_of(data, msb)
    if len(data) == nbytes:
        used = count & 7
        if not used:
            del bits[count:]
        else:  # the spare bits of the last byte: high ones (LSB first) or low ones (MSB)
            mask = (0xFF >> used) if msb else (0xFF << used) & 0xFF
            if data[-1] & mask == (mask if pad else 0):
                del bits[count:]
    return list(bits)


def bitmap_build(obj, io, count, msb, greedy, pad=False):
    n = len(obj)
    # greedy: as many bytes as the bits need (a TLV shorter than its column count, even
    # empty, rebuilds as it was); else the count's
    nbytes = (n + 7) >> 3 if greedy else (count + 7) >> 3
    if n > nbytes * 8 or (not greedy and n not in (count, nbytes * 8)):
        raise RangeError(f"bitmap of {n} bits for {count} columns")
    if pad and n < nbytes * 8:
        obj = list(obj) + [True] * (nbytes * 8 - n)
    io.write(bytes_of(obj, nbytes, msb))
    return obj


def bitmap_ksy(k, count, msb, greedy, pad=False):
    """Kaitai: ``count`` bits, MSB or LSB first in each byte (a bitmap that runs to the end
    of its block: the bytes). The spare bits of the last byte are skipped."""
    order = "MSB" if msb else "LSB"
    if greedy:
        return k.raw(f"a bitmap to the end of its block ({order} first in each byte)")
    return {"type": "b1be" if msb else "b1le", "repeat": "expr", "repeat-expr": k.value(count),
            "doc": f"one bit per item, {order} first in each byte"}



"""Integers: MySQL's packed (length-encoded) integer, context-width unsigned ints, one-byte
codes and flag words with names, UUIDs, flagged pairs, words split in high and low bits.

Each primitive is a pair of plain functions, ``x_parse(io, *args)`` and ``x_build(obj, io,
*args)``; the construct classes in :mod:`.primitives` call them, and so does generated code.
Beside a pair, ``x_ksy(k, *args)`` gives its Kaitai Struct form (:mod:`.kaitai`; the same in
:mod:`.text`, :mod:`.bits` and :mod:`.blocks`).
"""

from __future__ import annotations

from .errors import (IntegerError, LimitExceeded, MappingError, StreamError, StringError,
                     ValidationError)
from .names import flag_names, flag_value
from .streams import blame, read_exact

# --------------------------------------------------------------------------------------
# packed ("length-encoded") integer


def packed_parse(io):
    b = io.read(1)
    if not b:
        raise StreamError("packed integer: no bytes left")
    v = b[0]
    if v < 251:
        return v
    if v == 252:
        n = int.from_bytes(read_exact(io, 2), "little")
        if n < 251:
            raise _not_shortest(io, n, v, 3)
        return n
    if v == 253:
        n = int.from_bytes(read_exact(io, 3), "little")
        if n < 0x10000:
            raise _not_shortest(io, n, v, 4)
        return n
    if v == 254:
        n = int.from_bytes(read_exact(io, 8), "little")
        if n < 0x1000000:
            raise _not_shortest(io, n, v, 9)
        return n
    if v == 251:
        return None
    raise ValidationError("packed integer: first byte 0xff is not a valid prefix")


def _not_shortest(io, n, prefix, width):
    # servers write the shortest form (net_store_length); a longer one would not rebuild
    # byte for byte, so it is refused rather than silently normalised
    blame(io, io.tell() - width)  # the error names the prefix byte
    return ValidationError(f"packed integer {n} with prefix {prefix:#04x} is not in its "
                           "shortest form")


def packed_build(obj, io):
    if obj is None:
        io.write(b"\xfb")
    elif not isinstance(obj, int) or obj < 0:
        raise IntegerError(f"packed integer: {obj!r} is not a non-negative int")
    elif obj < 251:
        io.write(bytes((obj,)))
    elif obj < 0x10000:
        io.write(b"\xfc" + obj.to_bytes(2, "little"))
    elif obj < 0x1000000:
        io.write(b"\xfd" + obj.to_bytes(3, "little"))
    elif obj < 1 << 64:
        io.write(b"\xfe" + obj.to_bytes(8, "little"))
    else:
        raise IntegerError(f"packed integer: {obj} does not fit in 64 bits")
    return obj


PACKED_INT_KSY = {
    "doc": "MySQL's length-encoded integer: a byte below 251 is the value; 0xfc, 0xfd, 0xfe "
           "are followed by 2, 3, 8 bytes (little-endian); 0xfb is NULL (is_null, value 0).",
    "seq": [{"id": "prefix", "type": "u1"},
            {"id": "wide", "type": {"switch-on": "prefix",
                                    "cases": {252: "u2le", 253: "b24le", 254: "u8le"}}}],
    "instances": {"is_null": {"value": "prefix == 251"},
                  "value": {"value": "prefix < 251 ? prefix : (prefix == 251 ? 0 : wide)"}},
}


def packed_ksy(k):
    """Kaitai: the ``packed_int`` type (its number in ``.value``)."""
    return {"type": k.type("packed_int", PACKED_INT_KSY)}


def packed_size(value) -> int:
    if value is None or value < 251:
        return 1
    return 3 if value < 0x10000 else 4 if value < 0x1000000 else 9


def number_parse(io):
    """A packed integer that cannot be NULL (0xfb)."""
    n = packed_parse(io)
    if n is None:
        raise ValidationError("packed integer is NULL (0xfb) where a number is required")
    return n


def number_build(obj, io):
    if obj is None:
        raise IntegerError("packed integer: None where a number is required")
    return packed_build(obj, io)


def count_parse(io, limit):
    """A packed count refused above ``limit`` before anything sized by it is read."""
    start = io.tell()
    n = packed_parse(io)
    if n is None or n > limit:
        blame(io, start)  # the error names the count's first byte
        if n is None:
            raise ValidationError("count is NULL (0xfb)")
        raise LimitExceeded(f"count {n} exceeds the limit {limit}")
    return n


def count_build(obj, io, limit):
    if not isinstance(obj, int) or obj < 0:
        raise IntegerError(f"count {obj!r} is not a non-negative int")
    if obj > limit:
        raise LimitExceeded(f"count {obj} exceeds the limit {limit}")
    return packed_build(obj, io)


def count_ksy(k, limit):
    """Kaitai: a packed integer (the limit is this library's guard, not the format's)."""
    return packed_ksy(k)


def packedcode_parse(io, names):
    v = packed_parse(io)
    return names.get(v, v)


def packedcode_build(obj, io, names):
    packed_build(names.get(obj, obj) if isinstance(obj, str) else obj, io)
    return obj


# --------------------------------------------------------------------------------------
# fixed-width little-endian unsigned ints (the width may come from the context)


def uint_parse(io, width):
    data = io.read(width)
    if len(data) != width:
        raise StreamError(f"needs {width} bytes, only {len(data)} left")
    return int.from_bytes(data, "little")


def uint_build(obj, io, width):
    if not isinstance(obj, int) or obj < 0 or obj >= 1 << (8 * width):
        raise IntegerError(f"{obj!r} does not fit in {width} unsigned bytes")
    io.write(obj.to_bytes(width, "little"))
    return obj


UINT_KSY = {1: "u1", 2: "u2le", 4: "u4le", 8: "u8le"}
UINT_LE_KSY = {
    "doc": "a little-endian unsigned int of width bytes (3, 5, 6, 7 or a width the context "
           "gives; by arithmetic, as every Kaitai target can)",
    "params": [{"id": "width", "type": "u1"}],
    "seq": [{"id": "bytes", "size": "width"}],
    "instances": {"value": {"value": " + ".join(
        f"(width > {i} ? bytes[{i}] * {256 ** i} : 0)" for i in range(8))}},
}


def uint_ksy(k, width):
    """Kaitai: u1/u2le/u4le/u8le, else the ``uint_le(width)`` type (its number in
    ``.value``)."""
    if width in UINT_KSY:
        return {"type": UINT_KSY[width]}
    return {"type": f"{k.type('uint_le', UINT_LE_KSY)}({k.value(width)})"}


def u8_parse(io):
    b = io.read(1)
    if not b:
        raise StreamError("length byte: no bytes left")
    return b[0]


def u8_build(obj, io):
    if not 0 <= obj < 256:
        raise IntegerError(f"{obj} does not fit in one byte")
    io.write(bytes((obj,)))
    return obj


def u8_ksy(k):
    return {"type": "u1"}


# --------------------------------------------------------------------------------------
# codes and flags with names


def code_parse(io, names):
    b = io.read(1)
    if not b:
        raise StreamError("code: no bytes left")
    return names.get(b[0], b[0])


def code_build(obj, io, names):
    code = names.get(obj, obj) if isinstance(obj, str) else obj
    if not isinstance(code, int) or not 0 <= code < 256:
        raise MappingError(f"unknown code {obj!r}")
    io.write(bytes((code,)))
    return obj


def code_ksy(k, names):
    """Kaitai: a byte with the enum of ``names`` (unknown values stay numbers)."""
    return {"type": "u1", "enum": k.named(names)}


def codes_parse(io, count, names):
    data = read_exact(io, count)
    cache = names.flag_cache  # (keyed by bytes here, by ints for flags)
    codes = cache.get(data)
    if codes is None:  # a table's column types come back with each of its events
        codes = tuple(map(names.get, data, data))
        if count <= 512:
            if len(cache) >= 4096:
                cache.clear()
            cache[data] = codes
    return list(codes)


def codes_build(obj, io, count, names):
    if len(obj) != count:
        raise ValidationError(f"expected {count} codes, got {len(obj)}")
    codes = bytearray()
    for item in obj:
        code = names.get(item, item) if isinstance(item, str) else item
        if not isinstance(code, int) or not 0 <= code < 256:
            raise MappingError(f"unknown code {item!r}")
        codes.append(code)
    io.write(bytes(codes))
    return obj


def codes_ksy(k, count, names):
    return {"type": "u1", "enum": k.named(names), "repeat": "expr",
            "repeat-expr": k.value(count)}


def flags_parse(io, width, names):
    data = io.read(width)
    if len(data) != width:
        raise StreamError(f"needs {width} bytes, only {len(data)} left")
    return flags_of(int.from_bytes(data, "little"), width, names)


def flags_of(value, width, names):
    """The list of names of ``value``'s set bits (from a cache per name table)."""
    cache = names.flag_cache
    cached = cache.get(value)
    if cached is None:
        if len(cache) > 4096:
            cache.clear()
        cached = cache[value] = tuple(flag_names(value, names))
    return list(cached)


def flags_build(obj, io, width, names):
    value = flag_value(obj, names)
    if value < 0 or value >= 1 << (8 * width):
        raise IntegerError(f"flags {obj!r} do not fit in {width} bytes")
    io.write(value.to_bytes(width, "little"))
    return obj


def flags_ksy(k, width, names):
    """Kaitai: the flags word as a number (its bits named in ``doc``)."""
    bits = ", ".join(f"{bit:#x} {name}" for bit, name in sorted(
        (b, n) for b, n in names.items() if isinstance(b, int)))
    return {"type": UINT_KSY[width], "doc": f"flags: {bits}"}


def nzflags_parse(io, names):
    """A one-byte flags field written only when non-zero (a zero byte here is padding)."""
    pos = io.tell()
    b = io.read(1)
    if not b or not b[0]:
        io.seek(pos)
        return []
    return list(flag_names(b[0], names))


def nzflags_build(obj, io, names):
    value = flag_value(obj, names)
    if not 0 <= value < 256:
        raise IntegerError(f"flags {obj!r} do not fit in one byte")
    if value:
        io.write(bytes((value,)))
    return obj


def nzflags_ksy(k, names):
    """Kaitai: the byte is the field only when it is there and not zero (a peek first)."""
    peek = k.peek(1)
    out = flags_ksy(k, 1, names)
    out["if"] = f"{peek}.size == 1 and {peek}[0] != 0"
    return out


# --------------------------------------------------------------------------------------
# UUIDs


def uuid_parse(io):
    return uuid_of(read_exact(io, 16))


_UUIDS: dict = {}  # a file names few servers: their UUIDs' text is kept


def uuid_of(data: bytes) -> str:
    text = _UUIDS.get(data)
    if text is None:
        h = data.hex()
        text = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        if len(_UUIDS) >= 1024:
            _UUIDS.clear()
        _UUIDS[bytes(data)] = text
    return text


def uuid_bytes(obj) -> bytes:
    if isinstance(obj, (bytes, bytearray)) and len(obj) == 16:
        return bytes(obj)
    if isinstance(obj, str):
        h = obj.replace("-", "")
        if len(h) == 32:
            try:
                return bytes.fromhex(h)
            except ValueError:
                pass
    raise StringError(f"{obj!r:.60} is not a UUID (32 hex digits, hyphens optional)")


def uuid_build(obj, io):
    io.write(uuid_bytes(obj))
    return obj


def uuid_ksy(k):
    return {"size": 16, "doc": "a UUID (16 bytes)"}


# --------------------------------------------------------------------------------------
# an int, and a second one that a bit of the first announces


PAIR_KEYS = ("immediate", "original")  # (the keys of a pair's dict, in its order)


def pair_parse(io, width, bit):
    first = int.from_bytes(read_exact(io, width), "little")
    second = None
    if first >> bit & 1:
        first &= ~(1 << bit)
        second = int.from_bytes(read_exact(io, width), "little")
    return {"immediate": first, "original": second}


def pair_build(obj, io, width, bit):
    first, second = obj["immediate"], obj.get("original")
    if not isinstance(first, int) or not 0 <= first < 1 << bit:
        raise IntegerError(f"immediate value {first!r} does not fit in {bit} bits")
    if second is not None and (not isinstance(second, int) or not 0 <= second < 1 << 8 * width):
        raise IntegerError(f"original value {second!r} does not fit in {width} bytes")
    flag = 0 if second is None else 1 << bit
    io.write((first | flag).to_bytes(width, "little"))
    if second is not None:
        io.write(second.to_bytes(width, "little"))
    return obj


def pair_ksy(k, width, bit):
    """Kaitai: ``immediate``, and ``original`` when bit ``bit`` of the first int is set."""
    t = f"{k.type('uint_le', UINT_LE_KSY)}({width})"
    flag = f"(first.bytes[{bit // 8}] & {1 << bit % 8}) != 0"
    return {"type": k.type(f"flagged_pair_{width}_{bit}", {
        "doc": f"an int of {width} bytes whose bit {bit} says a second one follows",
        "seq": [{"id": "first", "type": t},
                {"id": "original", "type": t, "if": flag}],
        "instances": {"immediate": {"value": f"first.value - ({flag} ? {1 << bit} : 0)"}}})}


# --------------------------------------------------------------------------------------
# a word split in high bits (read ahead, a name or flags) and low bits


def _name_of(value, names, flags):
    if flags:
        return list(flag_names(value, names))
    return names.get(value, value)


def _code_of(obj, names, flags):
    if flags:
        return flag_value(obj, names)
    return names.get(obj, obj) if isinstance(obj, str) else obj


def peekhigh_parse(io, width, shift, names, flags):
    word = int.from_bytes(read_exact(io, width), "little")
    io.seek(-width, 1)
    return _name_of(word >> shift, names, flags)


def peekhigh_build(obj, io, width, shift, names, flags):
    value = _code_of(obj, names, flags)
    if not isinstance(value, int) or not 0 <= value < 1 << (8 * width - shift):
        raise IntegerError(f"{obj!r} does not fit in the top {8 * width - shift} bits")
    return obj


def lowbits_parse(io, width, shift, high, names, flags):
    word = int.from_bytes(read_exact(io, width), "little")
    return word & ((1 << shift) - 1)


def lowbits_build(obj, io, width, shift, high, names, flags):
    if not isinstance(obj, int) or not 0 <= obj < 1 << shift:
        raise IntegerError(f"{obj!r} does not fit in {shift} bits")
    top = _code_of(high, names, flags)
    io.write(((top << shift) | obj).to_bytes(width, "little"))
    return obj




# --------------------------------------------------------------------------------------
# lengths and counts with a twist


def len16_self_parse(io):
    """A 2-byte length that counts its own two bytes (rows v2's extra data)."""
    n = int.from_bytes(read_exact(io, 2), "little")
    if n < 2:
        raise ValidationError(f"extra-data length {n} is below its own 2 bytes")
    return n - 2


def len16_self_build(n, io):
    if n + 2 > 0xFFFF:
        raise IntegerError(f"extra data of {n} bytes does not fit")
    io.write((n + 2).to_bytes(2, "little"))
    return n


def sidcount_parse(io, fmt, formats):
    """The number of SIDs of an encoded GTID set (Gtid_set::encode): the low 7 bytes of the
    word, or for the tagged format (1) bytes 1-6, with the format also in byte 0."""
    word = int.from_bytes(read_exact(io, 8), "little")
    if word >> 56 == 1:
        if word & 0xFF != 1:
            raise ValidationError(f"tagged GTID set: low byte {word & 0xFF}, expected 1")
        return (word >> 8) & ((1 << 48) - 1)
    return word & ((1 << 56) - 1)


def sidcount_build(obj, io, fmt, formats):
    code = formats.get(fmt, fmt) if isinstance(fmt, str) else fmt
    if code == 1:
        if not isinstance(obj, int) or not 0 <= obj < 1 << 48:
            raise IntegerError(f"{obj!r} SIDs do not fit in 48 bits")
        word = 1 << 56 | obj << 8 | 1
    else:
        if not isinstance(obj, int) or not 0 <= obj < 1 << 56:
            raise IntegerError(f"{obj!r} SIDs do not fit in 56 bits")
        word = (code or 0) << 56 | obj
    io.write(word.to_bytes(8, "little"))
    return obj

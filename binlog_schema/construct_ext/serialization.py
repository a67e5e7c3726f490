"""MySQL's serialization format (``libs/mysql/serialization``, GTID_TAGGED_LOG_EVENT):
variable-length integers, strings and UUIDs, messages of optional fields."""

from __future__ import annotations

import io as _io

from .errors import IntegerError, StreamError, StringError, ValidationError
from .ints import uuid_bytes
from .names import flag_names, flag_value
from .streams import blame, read_exact, remaining, substream

U64 = 1 << 64


def var_size(value: int) -> int:
    """Bytes of a value in the serialization format: 1 + ceil((bits - 1) / 7), 9 at most."""
    return ((value.bit_length() * 575) >> 12) + 1


def var_encode(value: int) -> bytes:
    n = var_size(value)
    first = (((1 << (n - 1)) - 1) | (value << n)) & 0xFF
    if n == 1:
        return bytes((first,))
    rest = value >> (8 - n + (1 if n == 9 else 0))
    return bytes((first,)) + (rest & ((1 << (8 * (n - 1))) - 1)).to_bytes(n - 1, "little")


def var_read(io) -> int:
    """A variable-length unsigned integer: the count of trailing one bits of the first byte,
    plus one, is its length. Only the shortest encoding is accepted (the one servers write),
    so what parses rebuilds byte for byte."""
    start = io.tell()
    b = io.read(1)
    if not b:
        raise StreamError("variable-length integer: no bytes left")
    first = b[0]
    n = 1
    while n < 9 and first & (1 << (n - 1)):
        n += 1
    value = first >> n if n < 8 else 0
    if n > 1:
        rest = int.from_bytes(read_exact(io, n - 1), "little")
        value |= rest << (8 - n + (1 if n == 9 else 0))
    if value >= U64:
        blame(io, start)
        raise ValidationError(f"variable-length integer {value} does not fit in 64 bits")
    if var_size(value) != n:
        blame(io, start)
        raise ValidationError(f"variable-length integer {value} in {n} bytes is not the "
                              f"shortest encoding ({var_size(value)} bytes)")
    return value


def varuint_parse(io):
    return var_read(io)


def varuint_build(obj, io):
    if not isinstance(obj, int) or not 0 <= obj < U64:
        raise IntegerError(f"{obj!r} is not an unsigned 64-bit int")
    io.write(var_encode(obj))
    return obj


def varsint_parse(io):
    u = var_read(io)
    return -(u >> 1) - 1 if u & 1 else u >> 1


def varsint_build(obj, io):
    if not isinstance(obj, int) or not -(1 << 63) <= obj < (1 << 63):
        raise IntegerError(f"{obj!r} is not a signed 64-bit int")
    io.write(var_encode(obj << 1 if obj >= 0 else ((-(obj + 1)) << 1) | 1))
    return obj


def vartext_parse(io, maxlen):
    n = var_read(io)
    if maxlen and n > maxlen:
        raise ValidationError(f"string of {n} bytes, at most {maxlen} allowed")
    data = read_exact(io, n)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def vartext_build(obj, io, maxlen):
    data = obj.encode("utf-8") if isinstance(obj, str) else obj
    if not isinstance(data, (bytes, bytearray)):
        raise StringError(f"expected str or bytes, got {obj!r:.40}")
    if maxlen and len(data) > maxlen:
        raise StringError(f"string of {len(data)} bytes, at most {maxlen} allowed")
    io.write(var_encode(len(data)) + data)
    return obj


def varuuid_parse(io):
    out = bytearray()
    for _ in range(16):
        v = var_read(io)
        if v > 255:
            raise ValidationError(f"UUID byte {v} does not fit in a byte")
        out.append(v)
    h = out.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def varuuid_build(obj, io):
    io.write(b"".join(var_encode(b) for b in uuid_bytes(obj)))
    return obj


def varflags_parse(io, names):
    return list(flag_names(var_read(io), names))


def varflags_build(obj, io, names):
    varuint_build(flag_value(obj, names), io)
    return obj


def _peek_var(io):
    pos = io.tell()
    try:
        return var_read(io)
    except (StreamError, ValidationError):
        return None
    finally:
        io.seek(pos)


def serfield_parse(io, this, sub, field_id):
    """An optional field: its id then its value, or absent (None) when another id is next."""
    if not remaining(io) or _peek_var(io) != field_id:
        return None
    var_read(io)
    return sub(io, this)


def serfield_build(obj, io, this, sub, field_id):
    if obj is not None:
        io.write(var_encode(field_id))
        sub(obj, io, this)
    return obj


def message_parse(io, this, sub, version):
    """``version`` (the top-level field id), the message size, then the message: its first
    varlen integer (last non-ignorable field id) and its fields. MySQL's size counts the
    version, the size varint *as long as the payload size would be*, that first integer and
    the payload (Serializer_default::get_size_serializable); the payload size is solved from
    that rule."""
    v = var_read(io)
    if v != version:
        raise ValidationError(f"serialization format version {v}, expected {version}")
    size = var_read(io)
    first = _peek_var(io)
    if first is None:
        raise StreamError("message: no last-non-ignorable-field id")
    lead = var_size(first)
    fixed = var_size(version) + lead
    for k in range(1, 10):
        payload = size - fixed - k
        if payload >= 0 and var_size(payload) == k:
            break
    else:
        raise ValidationError(f"message size {size} is too small for its header")
    data = read_exact(io, lead + payload)
    return sub(substream(io, data), this)


def message_build(obj, io, this, sub, version):
    buf = _io.BytesIO()
    sub(obj, buf, this)
    content = buf.getvalue()
    lead = var_size(var_read(_io.BytesIO(content)))
    payload = len(content) - lead
    size = var_size(version) + var_size(payload) + lead + payload
    io.write(var_encode(version) + var_encode(size) + content)
    return obj

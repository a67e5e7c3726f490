"""Bytes and text: fixed and length-prefixed byte strings, text that is ``str`` when it is
valid UTF-8 and ``bytes`` otherwise (lossless), NUL-terminated and NUL-padded text."""

from __future__ import annotations

from .errors import IntegerError, RangeError, StreamError, StringError, ValidationError
from .streams import read_exact


def text_of(data: bytes):
    """``str`` when ``data`` is valid UTF-8, else the bytes (lossless)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def encoded(value) -> bytes:
    """The bytes of a text value (UTF-8) or of a bytes value."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise StringError(f"expected str or bytes, got {value!r:.40}")


def byte_len(value) -> int:
    """Length in bytes of a str (UTF-8) or bytes value (for lengths rebuilt from a field)."""
    return len(encoded(value))


# --------------------------------------------------------------------------------------
# raw bytes


def bytes_parse(io, length):
    return read_exact(io, length)


def bytes_build(obj, io, length):
    if not isinstance(obj, (bytes, bytearray)) or len(obj) != length:
        raise StringError(f"expected {length} bytes, got {obj!r:.40}")
    io.write(obj)
    return obj


def bytes_ksy(k, length):
    return {"size": k.value(length)}


def greedybytes_parse(io):
    return io.read()


def greedybytes_build(obj, io):
    if not isinstance(obj, (bytes, bytearray)):
        raise StringError(f"expected bytes, got {obj!r:.40}")
    io.write(obj)
    return obj


def greedybytes_ksy(k):
    return {"size-eos": True}


def bytelist_parse(io, n):
    """``n`` bytes as a list of ints."""
    return list(read_exact(io, n))


def bytelist_build(obj, io, n):
    if not isinstance(obj, (list, tuple, bytes, bytearray)) or len(obj) != n:
        raise RangeError(f"expected {n} byte values, got {obj!r:.40}")
    try:
        io.write(bytes(obj))
    except (TypeError, ValueError):
        raise IntegerError(f"not a list of byte values: {obj!r:.40}") from None
    return obj


def bytelist_ksy(k, n):
    return {"size": k.value(n)}


def leaving_parse(io, leave):
    """The rest of the stream as a list of byte values, except its last ``leave`` bytes."""
    data = io.read()
    if len(data) < leave:
        raise StreamError(f"needs at least {leave} bytes, {len(data)} left")
    if leave:
        io.seek(-leave, 1)
        data = data[:-leave]
    return list(data)


def leaving_build(obj, io, leave):
    io.write(bytes(obj))
    return obj


def leaving_ksy(k, leave):
    """Kaitai: the bytes up to ``leave`` before the end of the stream."""
    return {"size": f"_io.size - _io.pos - {k.expr(leave)}"}


# --------------------------------------------------------------------------------------
# text


def text_parse(io):
    return text_of(io.read())


def text_build(obj, io):
    if isinstance(obj, str):
        obj = obj.encode("utf-8")
    elif not isinstance(obj, (bytes, bytearray)):
        raise StringError(f"expected str or bytes, got {obj!r:.40}")
    io.write(obj)
    return obj


TEXT_DOC = "text: UTF-8 when valid (the library gives str), else bytes; kept as bytes here"


def text_ksy(k):
    return {"size-eos": True, "doc": TEXT_DOC}


def textn_parse(io, length):
    """``length`` bytes as text (``str`` when UTF-8, else bytes)."""
    return text_of(read_exact(io, length))


def textn_build(obj, io, length):
    data = encoded(obj)
    if len(data) != length:
        raise StringError(f"{len(data)} bytes of text where the length says {length}")
    io.write(data)
    return obj


def textn_ksy(k, length):
    return {"size": k.value(length), "doc": TEXT_DOC}


def sizedtext_parse(io, width):
    """A ``width``-byte little-endian length, then that many bytes of text."""
    n = int.from_bytes(read_exact(io, width), "little")
    return textn_parse(io, n)


def sizedtext_build(obj, io, width):
    data = encoded(obj)
    if len(data) >= 1 << (8 * width):
        raise StringError(f"{len(data)} bytes do not fit a {width}-byte length")
    io.write(len(data).to_bytes(width, "little") + data)
    return obj


def sizedtext_ksy(k, width):
    """Kaitai: a ``sized_text_N`` type (``length``, then ``value``)."""
    t = {1: "u1", 2: "u2le", 4: "u4le"}[width]
    return {"type": k.type(f"sized_text_{width}", {
        "doc": f"a {width}-byte length, then that many bytes ({TEXT_DOC})",
        "seq": [{"id": "length", "type": t}, {"id": "value", "size": "length"}]})}


def cstr_parse(io):
    """NUL-terminated text."""
    pos = io.tell()
    data = io.read()
    end = data.find(b"\0")
    if end < 0:
        raise StreamError("no NUL terminator before the end")
    io.seek(pos + end + 1)
    return text_of(data[:end])


def cstr_build(obj, io):
    data = encoded(obj)
    if b"\0" in data:
        raise StringError(f"{obj!r:.40} contains a NUL byte")
    io.write(data + b"\0")
    return obj


def cstr_ksy(k):
    return {"terminator": 0, "doc": "NUL-terminated " + TEXT_DOC}


def lennames_parse(io, lens):
    """Names of the given byte lengths, each followed by NUL."""
    out = []
    for n in lens:
        data = read_exact(io, n)
        if read_exact(io, 1) != b"\0":
            raise ValidationError("name not followed by NUL")
        out.append(text_of(data))
    return out


def lennames_build(obj, io, lens):
    lens = list(lens)
    if not isinstance(obj, (list, tuple)) or len(obj) != len(lens):
        raise RangeError(f"{obj!r:.40} for {len(lens)} lengths")
    for name, n in zip(obj, lens):
        data = encoded(name)
        if len(data) != n:
            raise RangeError(f"name {name!r:.40} is {len(data)} bytes, its length says {n}")
        io.write(data + b"\0")
    return obj


def fixed_text_parse(io, size):
    """``size`` bytes of NUL-padded ASCII: ``str`` when the padding is all NUL, else the raw
    bytes (lossless)."""
    data = read_exact(io, size)
    text, _, pad = data.partition(b"\0")
    if not pad.strip(b"\0"):
        try:
            return text.decode("ascii")
        except UnicodeDecodeError:
            pass
    return data


def fixed_text_build(obj, io, size):
    data = obj.encode("ascii") if isinstance(obj, str) else bytes(obj)
    if len(data) > size:
        raise StringError(f"{obj!r} is longer than {size} bytes")
    io.write(data.ljust(size, b"\0"))
    return obj


def fixed_text_ksy(k, size):
    return {"size": k.value(size), "terminator": 0,
            "doc": f"{size} bytes of NUL-padded ASCII (the library keeps the bytes when the "
                   "padding is not all NUL)"}

"""Compositions: length-prefixed and sized blocks, greedy and counted lists, optional tails,
lists of tagged items (TLVs, status variables), padding, build-time checks.

The functions of a wrapping primitive get the wrapped declaration's parse/build as callables
``sub(io, this)`` / ``sub(obj, io, this)``.
"""

from __future__ import annotations

import io as _io

from .errors import (MappingError, RangeError, StreamError, StringError,
                     ValidationError)
from .context_functions import field
from .ints import packed_build, packed_parse
from .streams import MAX_READ, TrackingIO, blame, read_exact, remaining, substream
from .text import text_of

# --------------------------------------------------------------------------------------
# blocks


def block_bytes(io, lenparse) -> bytes:
    """The bytes of a length-prefixed block (the length read with ``lenparse``)."""
    n = lenparse(io)
    if n is None:
        raise ValidationError("length prefix is NULL (0xfb)")
    if n > MAX_READ:
        raise StreamError(f"length {n} runs past the end")
    data = io.read(n)
    if len(data) != n:
        raise StreamError(f"needs {n} bytes, only {len(data)} left")
    return data


def _whole(block, data, what: str):
    used = block.tell()
    if used != len(data):
        # bytes the content leaves unread would be lost on build (the length is computed)
        blame(block, used)
        raise ValidationError(f"{what} of {len(data)} bytes: its content ends after {used}")


def bounded_parse(io, this, sub, lenparse, lenbuild):
    data = block_bytes(io, lenparse)
    block = substream(io, data)
    value = sub(block, this)
    _whole(block, data, "block")
    return value


def bounded_build(obj, io, this, sub, lenparse, lenbuild):
    buf = _io.BytesIO()
    sub(obj, buf, this)
    data = buf.getvalue()
    lenbuild(len(data), io)
    io.write(data)
    return obj


def bounded_ksy(k, sub, lenparse, lenbuild):
    """Kaitai: a type of the length (``length``) and the block it sizes (``value``)."""
    return k.prefixed(sub, k.length_prefix(lenparse.fn))


def bounded_text_parse(io, this, sub, lenparse, lenbuild):
    """A length-prefixed text without a sub-stream: the same result as bounded_parse."""
    return text_of(block_bytes(io, lenparse))


def bounded_text_build(obj, io, this, sub, lenparse, lenbuild):
    data = obj.encode("utf-8") if isinstance(obj, str) else obj
    if not isinstance(data, (bytes, bytearray)):
        raise StringError(f"expected str or bytes, got {obj!r:.40}")
    lenbuild(len(data), io)
    io.write(data)
    return obj


def sized_parse(io, this, sub, n):
    """A block of ``n`` bytes (its length stored elsewhere) that ``sub`` parses whole."""
    data = read_exact(io, n)
    inner = substream(io, data)
    value = sub(inner, this)
    if inner.tell() != len(data):
        raise ValidationError(f"{len(data) - inner.tell()} bytes left in a {n}-byte block")
    return value


def sized_build(obj, io, this, sub, n):
    buf = _io.BytesIO()
    sub(obj, buf, this)
    data = buf.getvalue()
    if len(data) != n:
        raise RangeError(f"block of {len(data)} bytes where its length field says {n}")
    io.write(data)
    return obj


def sized_ksy(k, sub, n):
    """Kaitai: a block of ``n`` bytes that ``sub`` reads (raw, said so, when it cannot)."""
    return k.block(sub, k.expr(n))


# --------------------------------------------------------------------------------------
# lists


def greedylist_parse(io, this, sub):
    """Items to the end of the (bounded) stream; a partial last item is an error."""
    out = []
    pos = io.tell()
    end = io.seek(0, 2)
    io.seek(pos)
    while pos < end:
        out.append(sub(io, this))
        pos = io.tell()
    return out


def greedylist_build(obj, io, this, sub):
    for item in obj:
        sub(item, io, this)
    return obj


def counted_parse(io, this, sub):
    """A packed-integer count followed by that many items."""
    n = packed_parse(io)
    if n is None:
        raise ValidationError("count is NULL (0xfb)")
    out = []
    for _ in range(n):  # no pre-allocation: a lying count fails at the first missing item
        out.append(sub(io, this))
    return out


def counted_build(obj, io, this, sub):
    packed_build(len(obj), io)
    for item in obj:
        sub(item, io, this)
    return obj


def until_parse(io, this, sub, key, value):
    """Items up to and including the first whose ``key`` equals ``value``."""
    out = []
    while True:
        item = sub(io, this)
        out.append(item)
        if item[key] == value:
            return out


def until_build(obj, io, this, sub, key, value):
    if not obj or obj[-1][key] != value:
        raise RangeError(f"list must end with an item whose {key} is {value!r}")
    for item in obj:
        sub(item, io, this)
    return obj


def ifmore_parse(io, this, sub):
    """Present only when the stream has bytes left (None otherwise)."""
    if io.read(1):  # one byte and a step back: cheaper than measuring what remains
        io.seek(-1, 1)
        return sub(io, this)
    return None


def ifmore_build(obj, io, this, sub):
    if obj is not None:
        sub(obj, io, this)
    return obj


def ifmore_ksy(k, sub):
    """Kaitai: the field when bytes are left (at a static offset: ``_io.size > N``, which
    later conditions can read again; elsewhere ``not _io.eof``, which they cannot)."""
    attr = k.attr(sub, k.current)
    if attr is None:
        return None
    at = k.here.offset if k.here.bounded else None
    if at is not None:
        return k.conditional(attr, f"_io.size > {at}")
    out = k.conditional(attr, "not _io.eof")
    out["_unstable"] = True
    return out


# --------------------------------------------------------------------------------------
# tagged items: a one-byte code, then the value its case declares


def tagged_parse(io, this, cases, default, names, known, key, lenparse, lenbuild):
    out = []
    read = io.read
    sub = {"_": this, "_params": this["_params"]}
    while True:
        b = read(1)
        if not b:
            return out
        code = b[0]
        if known is not None and code not in known:
            out.append(dict(raw=b + read()))
            return out
        name = names.get(code, code)
        sub[key] = name  # (one context for the items: each is parsed before the next)
        if lenparse is None:
            value = cases.get(name, default)(io, sub)
        else:  # a block its case must read whole (the length is computed on build)
            data = block_bytes(io, lenparse)
            block = substream(io, data)
            value = cases.get(name, default)(block, sub)
            _whole(block, data, f"{name} block")
        item = {}
        item[key] = name
        item["value"] = value
        out.append(item)


def tagged_build(obj, io, this, cases, default, names, known, key, lenparse, lenbuild,
                 numbers_raw):
    if not isinstance(obj, (list, tuple)):
        raise ValidationError(f"expected a list, got {obj!r:.40}")
    params = this["_params"]
    for i, item in enumerate(obj):
        if not isinstance(item, dict):
            raise ValidationError(f"item {i}: expected a dict, got {item!r:.40}")
        if known is not None and len(item) == 1 and "raw" in item:
            raw = item["raw"]
            if not isinstance(raw, (bytes, bytearray)):
                raise StringError(f"raw must be bytes, got {raw!r:.40}")
            if i != len(obj) - 1 or not raw or raw[0] in known:
                raise ValidationError("a raw rest must come last and start with an unknown "
                                      "code")
            io.write(raw)
            continue
        code = item[key]
        number = names.get(code, code) if isinstance(code, str) else code
        if not isinstance(number, int) or not 0 <= number < 256:
            raise MappingError(f"unknown code {code!r}")
        if known is not None and number not in known:
            raise ValidationError(f"code {code!r} has no known layout: give the rest raw")
        io.write(bytes((number,)))
        name = number if numbers_raw and code is number else names.get(number, number)
        sub = {"_": this, "_params": params}
        sub.update(item)
        sub[key] = name
        if lenbuild is None:
            cases.get(name, default)(item["value"], io, sub)
        else:
            buf = _io.BytesIO()
            cases.get(name, default)(item["value"], buf, sub)
            data = buf.getvalue()
            lenbuild(len(data), io)
            io.write(data)
    return obj


class NoLayoutError(MappingError):
    """A tagged item's code has no known layout."""


def nolayout_parse(io):
    raise NoLayoutError("no layout for this code")


def nolayout_build(obj, io):
    raise NoLayoutError(f"no layout for this code (value {obj!r:.40})")


# --------------------------------------------------------------------------------------
# padding, salvage, build-time checks


def padto_parse(io, total):
    """Zero bytes up to ``total`` bytes from the start of the (body) stream."""
    n = total - io.tell()
    if n > 0:
        data = read_exact(io, n)
        if any(data):
            raise ValidationError(f"padding to {total} bytes is not zero: {data.hex()}")
    return None


def padto_build(obj, io, total):
    n = total - io.tell()
    if n > 0:
        io.write(bytes(n))
    return None


def padto_ksy(k, total):
    """Kaitai: the padding's bytes (that they are zero is not checked)."""
    if not k.here.bounded:
        k.fail("padding relative to a stream that is not the block's")
    return {"size": f"_io.pos < {total} ? {total} - _io.pos : 0",
            "doc": f"zero padding up to {total} bytes from the start"}


def salvage_parse(io, this, sub, corrupt, *args):
    """``sub``, unless it fails and ``corrupt(head, size, this, *args)`` says the servers
    reject the layout: then the rest stays raw bytes (lossless)."""
    pos = io.tell()
    try:
        return sub(io, this)
    except Exception:  # a corrupt layout never parses: only then is it asked
        where = io.recorder[0] if type(io) is TrackingIO else None  # the failure's offset
        io.seek(pos)
        head = io.read(16)
        io.seek(pos)
        if corrupt(head, remaining(io), this, *args):
            return io.read()
        if where is not None:
            io.recorder[0] = where
        raise


def salvage_build(obj, io, this, sub, corrupt, *args):
    if isinstance(obj, (bytes, bytearray)):
        if not corrupt(bytes(obj[:16]), len(obj), this, *args):
            raise ValidationError("a raw body is only kept for a corrupt layout; this one "
                                  "parses, give its fields")
        io.write(obj)
        return obj
    return sub(obj, io, this)


def salvage_ksy(k, sub, corrupt, *args):
    """Kaitai: the struct's fields when the corruption rule does not hold, else ``raw``."""
    return k.salvaged(sub, getattr(corrupt, "fn", corrupt), args)


def buildcheck_parse(io, this, check, args):
    return None


def buildcheck_build(obj, io, this, check, args):
    check(this, *args)
    return None


def buildcheck_ksy(k, this, check, args):
    return None  # (parses nothing)


def built_size(this, key, build) -> int:
    """The byte length of the field ``key`` built with ``build(obj, io, this)``."""
    buf = _io.BytesIO()
    build(field(this, key), buf, {"_": this, "_params": this["_params"]})
    return len(buf.getvalue())

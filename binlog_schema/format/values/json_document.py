"""A MySQL binary JSON document (the layout and the lossless rule are in :mod:`.json_binary`),
both directions: :func:`decode` (a reader that walks the containers by their offsets, bounded
in the bytes it visits) and :func:`encode` (the serializer's choices: small or large format,
key order, inlining, integer widths), decode checking each value against encode to return a
:class:`~.json_binary.JsonDocument` when the bytes are not the serializer's.
"""

from __future__ import annotations

import struct

from ...construct_ext.errors import LayoutError, ValidationError

from .json_binary import (CONTAINER_CODES, CONTAINERS, DOUBLE, INLINED_ALWAYS, INLINED_LARGE,
                          INTS, LITERAL, LITERAL_BYTES, LITERALS, MAX_DEPTH, MAX_KEY_LENGTH,
                          MAX_OFFSET_LARGE, MAX_OFFSET_SMALL, OPAQUE, STRING, TYPE_NAMES,
                          JsonDocument, JsonUInt)
from .json_scalars import (need, opaque_of, opaque_value, text_of, utf8_of, varlen_bytes,
                           varlen_read)

# ------------------------------------------------------------------------------ decoding


class _Reader:
    """Reads one document. ``budget`` bounds the bytes visited: values sharing bytes (offsets
    pointing at the same place) cannot make the result larger than a few times the input."""

    __slots__ = ("data", "budget")

    def __init__(self, data: bytes):
        self.data = data
        self.budget = 2 * len(data) + 64

    def _charge(self, n: int):
        self.budget -= n
        if self.budget < 0:
            raise ValidationError("JSON document visits more bytes than it holds "
                                    "(values share their bytes)")

    def value(self, code: int, start: int, end: int, depth: int):
        shape = CONTAINERS.get(code)
        if shape is not None:
            return self.container(shape[0], shape[1], start, end, depth + 1)
        return self.scalar(code, start, end)

    def scalar(self, code: int, start: int, end: int):
        data = self.data
        have = end - start
        if code == LITERAL:
            need(have, 1, "literal")
            self._charge(1)
            return self._literal(data[start])
        spec = INTS.get(code)
        if spec is not None:
            width, signed = spec
            need(have, width, TYPE_NAMES[code])
            self._charge(width)
            v = int.from_bytes(data[start:start + width], "little", signed=signed)
            return v if signed else JsonUInt(v)
        if code == DOUBLE:
            need(have, 8, "double")
            self._charge(8)
            return struct.unpack_from("<d", data, start)[0]
        if code == STRING:
            n, pos = varlen_read(data, start, end, "string")
            need(end - pos, n, "string")
            self._charge(pos - start + n)
            return text_of(data[pos:pos + n])
        if code == OPAQUE:
            need(have, 1, "opaque field type")
            n, pos = varlen_read(data, start + 1, end, "opaque")
            need(end - pos, n, "opaque value")
            self._charge(pos - start + n)
            return opaque_value(data[start], data[pos:pos + n])
        raise ValidationError(f"unknown JSON value type 0x{code:02x}")

    @staticmethod
    def _literal(b: int):
        if b not in LITERALS:
            raise ValidationError(f"unknown JSON literal 0x{b:02x}")
        return LITERALS[b]

    def _inlined(self, code: int, pos: int):
        data = self.data
        if code == LITERAL:
            return self._literal(data[pos])
        width, signed = INTS[code]
        v = int.from_bytes(data[pos:pos + width], "little", signed=signed)
        return v if signed else JsonUInt(v)

    def container(self, is_object: bool, large: bool, start: int, end: int, depth: int):
        if depth > MAX_DEPTH:
            raise ValidationError(f"JSON document nests deeper than {MAX_DEPTH}")
        data = self.data
        what = "object" if is_object else "array"
        osz = 4 if large else 2
        need(end - start, 2 * osz, f"{what} header")
        count = int.from_bytes(data[start:start + osz], "little")
        size = int.from_bytes(data[start + osz:start + 2 * osz], "little")
        need(end - start, size, f"{what} of {size} bytes")
        ksz = osz + 2 if is_object else 0
        vsz = 1 + osz
        header = 2 * osz + count * (ksz + vsz)
        if header > size:
            raise ValidationError(f"JSON {what} of {count} members does not fit its "
                                    f"{size} bytes")
        self._charge(header)
        inlined = INLINED_ALWAYS | INLINED_LARGE if large else INLINED_ALWAYS
        keys = []
        pos = start + 2 * osz
        for _ in range(count * bool(is_object)):
            koff = int.from_bytes(data[pos:pos + osz], "little")
            klen = int.from_bytes(data[pos + osz:pos + osz + 2], "little")
            if koff < header or koff + klen > size:
                raise ValidationError(f"JSON object key at {koff} (+{klen}) lies outside "
                                        f"{header}..{size}")
            self._charge(klen)
            keys.append(text_of(data[start + koff:start + koff + klen]))
            pos += ksz
        values = []
        cend = start + size
        for _ in range(count):
            code = data[pos]
            if code in inlined:
                values.append(self._inlined(code, pos + 1))
            else:
                off = int.from_bytes(data[pos + 1:pos + 1 + osz], "little")
                if off < header or off >= size:
                    raise ValidationError(f"JSON {what} value at {off} lies outside "
                                            f"{header}..{size}")
                values.append(self.value(code, start + off, cend, depth))
            pos += vsz
        return dict(zip(keys, values)) if is_object else values


def decode(data) -> object:
    """The value of one binary JSON document (a JSON column's bytes after their length).

    Returns ``JsonDocument(value, raw)`` when :func:`encode` of the value would not give back
    ``data`` (see the lossless rule in :mod:`.json_binary`)."""
    data = bytes(data)
    if not data:   # MySQL reads an empty value (IGNORE / non-strict inserts) as null
        return JsonDocument(None, data)
    value = _Reader(data).value(data[0], 1, len(data), 0)
    try:
        canonical = encode(value)
    except LayoutError:
        canonical = None
    return value if canonical == data else JsonDocument(value, data)


# ------------------------------------------------------------------------------ encoding


class _TooBig(Exception):
    """A small-format container overflowed its 16-bit sizes: the caller retries large."""


def _int_spec(v: int):
    signed = not isinstance(v, JsonUInt)
    if signed and not -(1 << 63) <= v < 1 << 63:
        signed = False      # beyond int64: uint64, as MySQL's JSON parser makes it
    if not signed and not 0 <= v < 1 << 64:
        raise ValidationError(f"JSON integer {v} fits neither int64 nor uint64")
    for code, (width, s) in INTS.items():
        if s == signed:
            bits = 8 * width
            lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if s else (0, 1 << bits)
            if lo <= v < hi:
                return code, width, signed
    raise AssertionError("unreachable")  # pragma: no cover


def _plain(v):
    while isinstance(v, JsonDocument):   # nested: its value (raw bytes only at the top)
        v = v.value
    return v


def _inline_entry(v, large: bool):
    """(code, entry integer) when the serializer inlines ``v`` in its value entry."""
    if v is None or isinstance(v, bool):
        return LITERAL, LITERAL_BYTES[v]
    if isinstance(v, int):
        code, _, _ = _int_spec(v)
        if code in INLINED_ALWAYS or (large and code in INLINED_LARGE):
            return code, v
    return None


def _scalar(v):
    if v is None or isinstance(v, bool):
        return LITERAL, bytes((LITERAL_BYTES[v],))
    if isinstance(v, int):
        code, width, signed = _int_spec(v)
        return code, int(v).to_bytes(width, "little", signed=signed)
    if isinstance(v, float):
        return DOUBLE, struct.pack("<d", v)
    if isinstance(v, str):
        b = utf8_of(v, "string")
        return STRING, varlen_bytes(len(b)) + b
    opaque = opaque_of(v)
    if opaque is not None:
        ft, b = opaque
        return OPAQUE, bytes((ft,)) + varlen_bytes(len(b)) + b
    raise ValidationError(f"cannot encode a {type(v).__name__} as binary JSON")


def _object_items(d: dict):
    items = []
    for k, v in d.items():
        if not isinstance(k, str):
            raise ValidationError(f"JSON object key {k!r} is not a str")
        kb = utf8_of(k, "key")
        if len(kb) > MAX_KEY_LENGTH:
            raise ValidationError(f"JSON object key of {len(kb)} bytes exceeds 65535")
        items.append((kb, v))
    items.sort(key=lambda kv: (len(kv[0]), kv[0]))
    for a, b in zip(items, items[1:]):
        if a[0] == b[0]:
            raise ValidationError(f"JSON object has the key {a[0]!r} twice")
    return items


def _container(items, is_object: bool, large: bool, depth: int) -> bytes:
    osz = 4 if large else 2
    limit = MAX_OFFSET_LARGE if large else MAX_OFFSET_SMALL

    def check(n):
        if n > limit:
            if not large:
                raise _TooBig
            raise ValidationError(f"JSON value of {n} bytes exceeds 4 GiB")

    n = len(items)
    check(n)
    ksz = osz + 2 if is_object else 0
    vsz = 1 + osz
    header = 2 * osz + n * (ksz + vsz)
    out = bytearray(header)
    if is_object:
        off = header
        pos = 2 * osz
        for kb, _ in items:
            check(off)
            out[pos:pos + osz] = off.to_bytes(osz, "little")
            out[pos + osz:pos + ksz] = len(kb).to_bytes(2, "little")
            off += len(kb)
            pos += ksz
        for kb, _ in items:
            out += kb
        values = [v for _, v in items]
    else:
        values = items
    mask = (1 << (8 * osz)) - 1
    pos = 2 * osz + n * ksz
    for v in values:
        v = _plain(v)
        inl = _inline_entry(v, large)
        if inl is not None:
            out[pos] = inl[0]
            out[pos + 1:pos + vsz] = (inl[1] & mask).to_bytes(osz, "little")
        else:
            off = len(out)
            check(off)
            code, payload = _value(v, depth, small_parent=not large)
            out[pos] = code
            out[pos + 1:pos + vsz] = off.to_bytes(osz, "little")
            out += payload
        pos += vsz
    check(len(out))
    out[0:osz] = n.to_bytes(osz, "little")
    out[osz:2 * osz] = len(out).to_bytes(osz, "little")
    return bytes(out)


def _value(v, depth: int, small_parent: bool):
    """(type code, bytes) of ``v`` as the serializer writes it at nesting ``depth``."""
    v = _plain(v)
    if isinstance(v, (dict, list, tuple)):
        is_object = isinstance(v, dict)
        if depth + 1 > MAX_DEPTH:
            raise ValidationError(f"JSON value nests deeper than {MAX_DEPTH}")
        items = _object_items(v) if is_object else list(v)
        try:
            return (CONTAINER_CODES[is_object, False],
                    _container(items, is_object, False, depth + 1))
        except _TooBig:
            if small_parent:
                raise
        return CONTAINER_CODES[is_object, True], _container(items, is_object, True, depth + 1)
    return _scalar(v)


def encode(value) -> bytes:
    """The binary JSON MySQL's serializer writes for ``value`` (a :class:`JsonDocument`: its
    raw bytes)."""
    if isinstance(value, JsonDocument):
        return bytes(value.raw)
    code, payload = _value(value, 0, small_parent=False)
    return bytes((code,)) + payload


__all__ = ["decode", "encode"]

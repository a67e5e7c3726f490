"""The per-column metadata of TABLE_MAP events: the layout of each type's entry, and the walk
over the columns (the parse and build functions; the declaration is in
:mod:`binlog_schema.format.events.table_map`).

MariaDB's compressed columns, read off the bytes a 10.11 server writes (its docs and some
notes say the reverse): 140 is BLOB_COMPRESSED (1-byte pack length), 141 is
VARCHAR_COMPRESSED (2-byte max length + 1). A type with no known layout stops the walk: the
rest of the block is kept raw (``{"raw": ...}``), so an unknown type never desynchronises the
columns after it nor loses a byte.
"""

from __future__ import annotations

from ...construct_ext.errors import (IntegerError, MappingError, RangeError, StreamError,
                                    ValidationError)
from ...construct_ext.streams import read_exact, remaining
from .coltypes import TYPES


def field_parse(io, name, width):
    """``{name: n}``: one little-endian unsigned field of ``width`` bytes."""
    data = io.read(width)
    if len(data) != width:
        raise StreamError(f"needs {width} bytes, only {len(data)} left")
    return dict({name: int.from_bytes(data, "little")})


def field_build(obj, io, name, width):
    value = obj[name]
    if not isinstance(value, int) or not 0 <= value < 1 << (8 * width):
        raise IntegerError(f"{name}={value!r} does not fit in {width} bytes")
    io.write(value.to_bytes(width, "little"))
    return obj


def string_meta_parse(io):
    """STRING/VAR_STRING/ENUM/SET: byte 0 is the real type, byte 1 the length (low 8 bits) or,
    for ENUM/SET, the pack length. Bug37426: lengths over 255 store bits 8-9 inverted in bits
    4-5 of the real type; the real type's own bits 4-5 are always set."""
    data = io.read(2)
    if len(data) != 2:
        raise StreamError(f"needs 2 bytes, only {len(data)} left")
    b0, b1 = data
    if b0 & 0x30 != 0x30:
        real, length = b0 | 0x30, b1 | (((b0 & 0x30) ^ 0x30) << 4)
    else:
        real, length = b0, b1
    real_name = TYPES.get(real, real)
    if real_name in ("ENUM", "SET"):
        return dict(real_type=real_name, pack_length=length)
    return dict(real_type=real_name, max_length=length)


def string_meta_build(obj, io):
    real = obj["real_type"]
    real = TYPES.get(real, real) if isinstance(real, str) else real
    length = obj["pack_length"] if "pack_length" in obj and obj["pack_length"] is not None \
        else obj["max_length"]
    if not isinstance(real, int) or real & 0x30 != 0x30 or real > 255:
        raise MappingError(f"real type {obj['real_type']!r} cannot be stored")
    if not 0 <= length < 1024:
        raise IntegerError(f"string length {length} does not fit in 10 bits")
    io.write(bytes((real ^ ((length & 0x300) >> 4), length & 0xFF)))
    return obj


def bit_meta_parse(io):
    """BIT(n): byte 0 = n % 8, byte 1 = n // 8."""
    b0, b1 = read_exact(io, 2)
    if b0 > 7:
        raise ValidationError(f"BIT metadata: {b0} bits in the last byte (0-7 expected)")
    return dict(bits=b1 * 8 + b0)


def bit_meta_build(obj, io):
    bits = obj["bits"]
    if not isinstance(bits, int) or not 0 <= bits < 256 * 8:
        raise IntegerError(f"BIT width {bits!r} out of range")
    io.write(bytes((bits & 7, bits >> 3)))
    return obj


class UnknownColumnType(Exception):
    """Raised by the Switch's default case: the walk stops and keeps the rest raw."""


def unknown_parse(io):
    raise UnknownColumnType()


def unknown_build(obj, io):
    raise MappingError("no metadata layout for this column type")


# ---------------------------------------------------------------------------- the walk


def colmeta_parse(io, this, sub, types):
    """One entry per column type (``sub`` parses one, the type in ``this._column_type``)."""
    out = []
    for t in types:
        this["_column_type"] = t
        start = io.tell()
        try:
            out.append(sub(io, this))
        except UnknownColumnType:
            io.seek(start)  # an unknown TYPED_ARRAY element type: its type byte was read
            out.append(dict(raw=io.read()))
            return out
    if remaining(io):
        out.append(dict(raw=io.read()))
    return out


def colmeta_build(obj, io, this, sub, types):
    types = list(types)
    for i, entry in enumerate(obj):
        if isinstance(entry, dict) and set(entry) == {"raw"}:
            io.write(entry["raw"])
            continue
        if i >= len(types):
            raise RangeError(f"metadata entry {i} but only {len(types)} columns")
        this["_column_type"] = types[i]
        sub(entry, io, this)
    return obj


_MISSING = object()


def colmeta_fast_parse(io, this, cases, types):
    """colmeta_parse for generated code: ``cases`` maps a type to its compiled metadata parser
    (None for types without metadata; a (name, width) pair for a one-field entry), so a
    column costs one lookup and at most one call."""
    out = []
    read = io.read
    for t in types:
        f = cases.get(t, _MISSING)
        if f is None:
            out.append(None)
        elif type(f) is tuple:  # a Field: {name: n}
            name, width = f
            data = read(width)
            if len(data) != width:
                raise StreamError(f"needs {width} bytes, only {len(data)} left")
            entry = {}
            entry[name] = int.from_bytes(data, "little")
            out.append(entry)
        elif f is _MISSING:
            out.append(dict(raw=io.read()))
            return out
        else:
            start = io.tell()
            try:
                out.append(f(io, this))
            except UnknownColumnType:
                io.seek(start)
                out.append(dict(raw=io.read()))
                return out
    if remaining(io):
        out.append(dict(raw=io.read()))
    return out


def colmeta_fast_build(obj, io, this, cases, types):
    """colmeta_build for generated code (see colmeta_fast_parse)."""
    types = list(types)
    for i, entry in enumerate(obj):
        if isinstance(entry, dict) and len(entry) == 1 and "raw" in entry:
            io.write(entry["raw"])
            continue
        if i >= len(types):
            raise RangeError(f"metadata entry {i} but only {len(types)} columns")
        f = cases.get(types[i], _MISSING)
        if f is _MISSING:
            raise MappingError(f"no metadata layout for column type {types[i]!r}")
        if f is not None:
            f(entry, io, this)
    return obj

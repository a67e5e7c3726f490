"""Column types (``enum_field_types``) and, per type, the layout of its TABLE_MAP metadata.

MariaDB's compressed columns, read off the bytes a 10.11 server writes (its docs and some
notes say the reverse): 140 is BLOB_COMPRESSED (1-byte pack length), 141 is
VARCHAR_COMPRESSED (2-byte max length + 1).

The per-column metadata block is a construct ``Switch`` on the column type. A type the schema
does not know stops the walk: the rest of the block is kept raw (``{"raw": ...}``), so an
unknown type never desynchronises the columns after it nor loses a byte.
"""

from __future__ import annotations

import construct as c
from construct import Container, ListContainer, this

from . import primitives as _p
from .primitives import NameTable, Struct, _Leaf, _Wrapper

TYPE_CODES = {
    0: "DECIMAL", 1: "TINY", 2: "SHORT", 3: "LONG", 4: "FLOAT", 5: "DOUBLE", 6: "NULL",
    7: "TIMESTAMP", 8: "LONGLONG", 9: "INT24", 10: "DATE", 11: "TIME", 12: "DATETIME",
    13: "YEAR", 14: "NEWDATE", 15: "VARCHAR", 16: "BIT", 17: "TIMESTAMP2", 18: "DATETIME2",
    19: "TIME2", 20: "TYPED_ARRAY", 140: "BLOB_COMPRESSED", 141: "VARCHAR_COMPRESSED",
    242: "VECTOR", 243: "INVALID", 244: "BOOL", 245: "JSON", 246: "NEWDECIMAL", 247: "ENUM",
    248: "SET", 249: "TINY_BLOB", 250: "MEDIUM_BLOB", 251: "LONG_BLOB", 252: "BLOB",
    253: "VAR_STRING", 254: "STRING", 255: "GEOMETRY",
}
TYPES = NameTable(__name__, "TYPES", TYPE_CODES)

INTEGER_TYPES = frozenset({"TINY", "SHORT", "INT24", "LONG", "LONGLONG"})
BLOB_TYPES = frozenset({"TINY_BLOB", "MEDIUM_BLOB", "LONG_BLOB", "BLOB"})
STRING_TYPES = frozenset({"STRING", "VAR_STRING", "ENUM", "SET"})


def type_name(code) -> str | int:
    return TYPES.get(code, code) if isinstance(code, int) else code


# ---------------------------------------------------------------------------------------
# small metadata layouts (each parses to a dict, builds from one)


def field_parse(io, name, width):
    data = io.read(width)
    if len(data) != width:
        raise c.StreamError(f"needs {width} bytes, only {len(data)} left")
    return Container({name: int.from_bytes(data, "little")})


def field_build(obj, io, name, width):
    value = obj[name]
    if not isinstance(value, int) or not 0 <= value < 1 << (8 * width):
        raise c.IntegerError(f"{name}={value!r} does not fit in {width} bytes")
    io.write(value.to_bytes(width, "little"))
    return obj


def Field(name, width):
    """``{name: n}``: one little-endian unsigned field of ``width`` bytes."""
    return _Leaf(field_parse, field_build, name, width, size=width)


def string_meta_parse(io):
    """STRING/VAR_STRING/ENUM/SET: byte 0 is the real type, byte 1 the length (low 8 bits) or,
    for ENUM/SET, the pack length. Bug37426: lengths over 255 store bits 8-9 inverted in bits
    4-5 of the real type; the real type's own bits 4-5 are always set."""
    data = io.read(2)
    if len(data) != 2:
        raise c.StreamError(f"needs 2 bytes, only {len(data)} left")
    b0, b1 = data
    if b0 & 0x30 != 0x30:
        real, length = b0 | 0x30, b1 | (((b0 & 0x30) ^ 0x30) << 4)
    else:
        real, length = b0, b1
    real_name = TYPES.get(real, real)
    if real_name in ("ENUM", "SET"):
        return Container(real_type=real_name, pack_length=length)
    return Container(real_type=real_name, max_length=length)


def string_meta_build(obj, io):
    real = obj["real_type"]
    real = TYPES.get(real, real) if isinstance(real, str) else real
    length = obj["pack_length"] if "pack_length" in obj and obj["pack_length"] is not None \
        else obj["max_length"]
    if not isinstance(real, int) or real & 0x30 != 0x30 or real > 255:
        raise c.MappingError(f"real type {obj['real_type']!r} cannot be stored")
    if not 0 <= length < 1024:
        raise c.IntegerError(f"string length {length} does not fit in 10 bits")
    io.write(bytes((real ^ ((length & 0x300) >> 4), length & 0xFF)))
    return obj


StringMeta = _Leaf(string_meta_parse, string_meta_build, size=2)


def bit_meta_parse(io):
    b0, b1 = _p.read_exact(io, 2)
    if b0 > 7:
        raise c.ValidationError(f"BIT metadata: {b0} bits in the last byte (0-7 expected)")
    return Container(bits=b1 * 8 + b0)


def bit_meta_build(obj, io):
    bits = obj["bits"]
    if not isinstance(bits, int) or not 0 <= bits < 256 * 8:
        raise c.IntegerError(f"BIT width {bits!r} out of range")
    io.write(bytes((bits & 7, bits >> 3)))
    return obj


BitMeta = _Leaf(bit_meta_parse, bit_meta_build, size=2)
"""BIT(n): byte 0 = n % 8, byte 1 = n // 8."""


class UnknownColumnType(Exception):
    """Raised by the Switch's default case: the walk stops and keeps the rest raw."""


def unknown_parse(io):
    raise UnknownColumnType()


def unknown_build(obj, io):
    raise c.MappingError("no metadata layout for this column type")


Unknown = _Leaf(unknown_parse, unknown_build)


NoMeta = c.Pass  # types whose metadata is zero bytes parse to None


def _cases(varchar_width: int) -> dict:
    one = {t: Field("pack_length", 1) for t in
           ("FLOAT", "DOUBLE", "TINY_BLOB", "MEDIUM_BLOB", "LONG_BLOB", "BLOB", "JSON",
            "GEOMETRY", "VECTOR", "BLOB_COMPRESSED")}
    none = {t: NoMeta for t in
            ("DECIMAL", "TINY", "SHORT", "LONG", "LONGLONG", "INT24", "NULL", "TIMESTAMP",
             "DATE", "TIME", "DATETIME", "YEAR", "NEWDATE")}
    fsp = {t: Field("fsp", 1) for t in ("TIMESTAMP2", "DATETIME2", "TIME2")}
    strings = {t: StringMeta for t in ("STRING", "VAR_STRING", "ENUM", "SET")}
    return {**one, **none, **fsp, **strings,
            "VARCHAR": Field("max_length", varchar_width),
            "VARCHAR_COMPRESSED": Field("max_length", 2),
            "BIT": BitMeta,
            "NEWDECIMAL": Struct("precision" / c.Int8ub, "scale" / c.Int8ub)}


# TYPED_ARRAY (multi-valued index columns): the element type, then the element's metadata,
# where VARCHAR takes 3 bytes.
ElementMeta = c.Switch(this.element_type, _cases(3), default=Unknown)
TypedArrayMeta = Struct("element_type" / _p.Code(TYPES), "element" / ElementMeta)

COLUMN_META_CASES = {**_cases(2), "TYPED_ARRAY": TypedArrayMeta}
ColumnMeta = c.Switch(this._column_type, COLUMN_META_CASES, default=Unknown)


# ---------------------------------------------------------------------------------------
# the metadata block: one entry per column, walked with the Switch above


def colmeta_parse(io, this, sub, types):
    out = ListContainer()
    for t in types:
        this["_column_type"] = t
        start = io.tell()
        try:
            out.append(sub(io, this))
        except UnknownColumnType:
            io.seek(start)  # an unknown TYPED_ARRAY element type: its type byte was read
            out.append(Container(raw=io.read()))
            return out
    if _p.remaining(io):
        out.append(Container(raw=io.read()))
    return out


def colmeta_build(obj, io, this, sub, types):
    types = list(types)
    for i, entry in enumerate(obj):
        if isinstance(entry, dict) and set(entry) == {"raw"}:
            io.write(entry["raw"])
            continue
        if i >= len(types):
            raise c.RangeError(f"metadata entry {i} but only {len(types)} columns")
        this["_column_type"] = types[i]
        sub(entry, io, this)
    return obj


def colmeta_fast_parse(io, this, cases, types):
    """colmeta_parse for generated code: ``cases`` maps a type to its compiled metadata parser
    (None for types without metadata), so a column costs one lookup and at most one call."""
    out = ListContainer()
    read = io.read
    for t in types:
        f = cases.get(t, _MISSING)
        if f is None:
            out.append(None)
        elif type(f) is tuple:  # a Field: {name: n}
            name, width = f
            data = read(width)
            if len(data) != width:
                raise c.StreamError(f"needs {width} bytes, only {len(data)} left")
            entry = Container()
            entry[name] = int.from_bytes(data, "little")
            out.append(entry)
        elif f is _MISSING:
            out.append(Container(raw=io.read()))
            return out
        else:
            start = io.tell()
            try:
                out.append(f(io, this))
            except UnknownColumnType:
                io.seek(start)
                out.append(Container(raw=io.read()))
                return out
    if _p.remaining(io):
        out.append(Container(raw=io.read()))
    return out


_MISSING = object()


def colmeta_fast_build(obj, io, this, cases, types):
    """colmeta_build for generated code (see colmeta_fast_parse)."""
    types = list(types)
    for i, entry in enumerate(obj):
        if isinstance(entry, dict) and len(entry) == 1 and "raw" in entry:
            io.write(entry["raw"])
            continue
        if i >= len(types):
            raise c.RangeError(f"metadata entry {i} but only {len(types)} columns")
        f = cases.get(types[i], _MISSING)
        if f is _MISSING:
            raise c.MappingError(f"no metadata layout for column type {types[i]!r}")
        if f is not None:
            f(entry, io, this)
    return obj


class _ColumnMetadata(_Wrapper):
    def _emitbuild(self, code):
        name = f"colmeta_bcases_{code.allocateId()}"
        code.append(f"{name} = {{}}")
        for key, sc in self.subcon.cases.items():
            if sc is NoMeta:
                code.append(f"{name}[{key!r}] = None")
            else:
                code.append(f"{name}[{key!r}] = lambda obj, io, this: "
                            f"{sc._compilebuild(code)}")
        code.append("from binlog_schema.coltypes import colmeta_fast_build")
        return f"colmeta_fast_build(obj, io, this, {name}, {_p._emitarg(code, self._args[0])})"

    def _emitparse(self, code):
        name = f"colmeta_cases_{code.allocateId()}"
        code.append(f"{name} = {{}}")
        for key, sc in self.subcon.cases.items():
            if sc is NoMeta:
                code.append(f"{name}[{key!r}] = None")
            elif getattr(sc, "_pf", None) is field_parse:  # {name: n}: read in the loop
                code.append(f"{name}[{key!r}] = {tuple(sc._args)!r}")
            else:
                code.append(f"{name}[{key!r}] = lambda io, this: {sc._compileparse(code)}")
        code.append("from binlog_schema.coltypes import colmeta_fast_parse")
        return f"colmeta_fast_parse(io, this, {name}, {_p._emitarg(code, self._args[0])})"


def ColumnMetadata(types):
    """The TABLE_MAP's per-column metadata: one entry per column type in ``types``."""
    return _ColumnMetadata(colmeta_parse, colmeta_build, ColumnMeta, types, buildnone=False)


def metadata_keys(type_name) -> tuple | None:
    """The keys of a type's metadata entry, read off its declaration (None: no metadata;
    a type without a declared layout raises KeyError)."""
    case = COLUMN_META_CASES[type_name]
    if case is NoMeta:
        return None
    if case is StringMeta:
        return ("real_type", "max_length", "pack_length")
    if case is BitMeta:
        return ("bits",)
    if case is TypedArrayMeta:
        return ("element_type", "element")
    if isinstance(case, c.Struct):
        return tuple(sc.name for sc in case.subcons)
    return (case._args[0],)

"""TABLE_MAP_EVENT (type 19): post-header, body, per-column metadata and the
optional-metadata TLVs.

Layout (MySQL ``Table_map_event``, MariaDB ``Table_map_log_event``)::

    table_id            6 bytes LE (4 when the FDE's TABLE_MAP post-header length is 6)
    flags               2 bytes LE (TM_BIT_LEN_EXACT_F, TM_REFERRED_FK_DB_F, ...)
    database            packed length, bytes, NUL
    table               packed length, bytes, NUL
    column_count        packed integer
    column_types        column_count bytes
    column_metadata     packed length, then per-column metadata (Switch on type)   [absent
    null_bitmap         (column_count + 7) / 8 bytes, LSB first                     in pre-GA
    optional_metadata   TLVs to the end of the body: type byte, packed length, value  5.1]
"""

from __future__ import annotations

import construct as c
from construct import this

from ...construct_ext.primitives import (Apply, Bitmap, Bounded, CaseTable, Code, CodeList,
                                        Counted, CtxKey, FlagList, GreedyList, IfMore, Leaf,
                                        LimitedCount, PackedNumber, Raw, Rebuild, Struct,
                                        Switch, TaggedList, Text, UIntLE)
from ...construct_ext.ints import packed_build, packed_parse
from ..facts import column_metadata as cm
from ..facts.codes import TABLE_MAP_EVENT
from ..facts.coltypes import TYPES, numeric_count
from ..facts.names import OPTIONAL_METADATA, TABLE_MAP_FLAGS

# ---------------------------------------------------------------------------- column metadata


def MetaField(name, width):
    """``{name: n}``: one little-endian unsigned field of ``width`` bytes."""
    return Leaf(cm.field_parse, cm.field_build, name, width, size=width)


StringMeta = Leaf(cm.string_meta_parse, cm.string_meta_build, size=2)
BitMeta = Leaf(cm.bit_meta_parse, cm.bit_meta_build, size=2)
"""BIT(n): byte 0 = n % 8, byte 1 = n // 8."""
Unknown = Leaf(cm.unknown_parse, cm.unknown_build)
NoMeta = c.Pass  # types whose metadata is zero bytes parse to None


def _cases(varchar_width: int) -> dict:
    one = {t: MetaField("pack_length", 1) for t in
           ("FLOAT", "DOUBLE", "TINY_BLOB", "MEDIUM_BLOB", "LONG_BLOB", "BLOB", "JSON",
            "GEOMETRY", "VECTOR", "BLOB_COMPRESSED")}
    none = {t: NoMeta for t in
            ("DECIMAL", "TINY", "SHORT", "LONG", "LONGLONG", "INT24", "NULL", "TIMESTAMP",
             "DATE", "TIME", "DATETIME", "YEAR", "NEWDATE")}
    fsp = {t: MetaField("fsp", 1) for t in ("TIMESTAMP2", "DATETIME2", "TIME2")}
    strings = {t: StringMeta for t in ("STRING", "VAR_STRING", "ENUM", "SET")}
    return {**one, **none, **fsp, **strings,
            "VARCHAR": MetaField("max_length", varchar_width),
            "VARCHAR_COMPRESSED": MetaField("max_length", 2),
            "BIT": BitMeta,
            "NEWDECIMAL": Struct("precision" / c.Int8ub,   # 1  digits
                                 "scale" / c.Int8ub)}      # 1  digits after the point


# TYPED_ARRAY (multi-valued index columns): the element type, then the element's metadata,
# where VARCHAR takes 3 bytes.
ElementMeta = Switch(this.element_type, _cases(3), default=Unknown)
TypedArrayMeta = Struct("element_type" / Code(TYPES),   # 1  the element's column type
                        "element" / ElementMeta)         # its metadata

COLUMN_META_CASES = {**_cases(2), "TYPED_ARRAY": TypedArrayMeta}
ColumnMeta = Switch(this._column_type, COLUMN_META_CASES, default=Unknown)


def ColumnMetadata(types):
    """The TABLE_MAP's per-column metadata: one entry per column type in ``types``."""
    return CaseTable(cm.colmeta_parse, cm.colmeta_build, ColumnMeta, types,
                     fast=(cm.colmeta_fast_parse, cm.colmeta_fast_build), none=NoMeta,
                     inline=(cm.field_parse,))


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
    return (case.args[0],)


# ---------------------------------------------------------------------------- optional metadata

# numbers in TLVs are never NULL: PackedNumber refuses the 0xfb prefix
Collations = GreedyList(PackedNumber)
DefaultCharset = Struct(
    "default" / PackedNumber,                               # collation id of most columns
    "pairs" / GreedyList(Struct("index" / PackedNumber,     # a column (character ones
                                "collation" / PackedNumber)),  # counted) and its collation
)
Strings = GreedyList(Bounded(Text))

OPTIONAL_CASES = {
    "SIGNEDNESS": Bitmap(Apply(numeric_count, "_", "column_types"), msb=True, greedy=True),
    "DEFAULT_CHARSET": DefaultCharset,
    "COLUMN_CHARSET": Collations,
    "COLUMN_NAME": Strings,
    "SET_STR_VALUE": GreedyList(Counted(Bounded(Text))),
    "ENUM_STR_VALUE": GreedyList(Counted(Bounded(Text))),
    "GEOMETRY_TYPE": GreedyList(PackedNumber),
    "SIMPLE_PRIMARY_KEY": GreedyList(PackedNumber),
    "PRIMARY_KEY_WITH_PREFIX": GreedyList(Struct("column" / PackedNumber,   # column index
                                                 "prefix" / PackedNumber)),  # 0: whole
    "ENUM_AND_SET_DEFAULT_CHARSET": DefaultCharset,
    "ENUM_AND_SET_COLUMN_CHARSET": Collations,
    "COLUMN_VISIBILITY": Bitmap(this._.column_count, msb=True, greedy=True),
    "VECTOR_DIMENSIONALITY": GreedyList(PackedNumber),
}
OPTIONAL_VALUE = Switch(this.type, OPTIONAL_CASES, default=Raw)    # unknown (vendor) TLV
# types keep their bytes

# TLVs: a type byte, a packed length, a value its type declares, read whole (a type given
# as a number: its value is the block's bytes)
OptionalMetadata = TaggedList(OPTIONAL_METADATA, OPTIONAL_CASES, Raw, key="type",
                              length=(packed_parse, packed_build), numbers_raw=True)

TableMapBody = Struct(
    "table_id" / UIntLE(CtxKey("table_id_size", 6)),          # 6 (4 in old files)
    "flags" / FlagList(2, TABLE_MAP_FLAGS),                    # 2  BIT_LEN_EXACT...
    "database" / Bounded(Text), c.Const(b"\x00"),              # packed length, name, NUL
    "table" / Bounded(Text), c.Const(b"\x00"),                 # packed length, name, NUL
    "column_count" / Rebuild(LimitedCount(CtxKey("max_columns", 4096)),
                             c.len_(this.column_types)),       # packed
    "column_types" / CodeList(this.column_count, TYPES),       # one byte per column
    "column_metadata" / IfMore(Bounded(ColumnMetadata(this.column_types))),  # packed length
    "null_bitmap" / IfMore(Bitmap(this.column_count)),         # (n + 7) / 8, LSB first
    "optional_metadata" / OptionalMetadata,                    # TLVs to the end
)

BODIES = {TABLE_MAP_EVENT: TableMapBody}

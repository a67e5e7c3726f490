"""TABLE_MAP_EVENT (type 19): post-header, body and the optional-metadata TLVs.

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

from ..coltypes import TYPES, ColumnMetadata
from ..primitives import (Bitmap, Bounded, CodeList, Counted, CtxKey, FlagList, GreedyList,
                          IfMore, LimitedCount, NameTable, PackedNumber, Raw, Struct, TaggedList,
                          Text, UIntLE, packed_build, packed_parse)

TABLE_MAP_FLAGS = NameTable(__name__, "TABLE_MAP_FLAGS", {
    0x1: "BIT_LEN_EXACT", 0x2: "REFERRED_FK_DB", 0x4: "GENERATED_INVISIBLE_PK",
    0x4000: "HAS_TRIGGERS"})  # 0x4000: MariaDB's TM_BIT_HAS_TRIGGERS_F

OPTIONAL_METADATA_CODES = {
    1: "SIGNEDNESS", 2: "DEFAULT_CHARSET", 3: "COLUMN_CHARSET", 4: "COLUMN_NAME",
    5: "SET_STR_VALUE", 6: "ENUM_STR_VALUE", 7: "GEOMETRY_TYPE", 8: "SIMPLE_PRIMARY_KEY",
    9: "PRIMARY_KEY_WITH_PREFIX", 10: "ENUM_AND_SET_DEFAULT_CHARSET",
    11: "ENUM_AND_SET_COLUMN_CHARSET", 12: "COLUMN_VISIBILITY", 13: "VECTOR_DIMENSIONALITY",
}
OPTIONAL_METADATA = NameTable(__name__, "OPTIONAL_METADATA", OPTIONAL_METADATA_CODES)

# Columns that carry a SIGNEDNESS bit (YEAR and the old DECIMAL included; see PEERS pitfall 1).
NUMERIC_TYPES = frozenset({"TINY", "SHORT", "INT24", "LONG", "LONGLONG", "FLOAT", "DOUBLE",
                           "DECIMAL", "NEWDECIMAL", "YEAR"})


def numeric_count(types) -> int:
    return sum(map(NUMERIC_TYPES.__contains__, types))


class _NumericCount:
    """Expression: the number of numeric columns of the enclosing TABLE_MAP."""

    def __call__(self, context):
        return numeric_count(context._.column_types)

    def emit(self, code):
        code.append("from binlog_schema.events.table_map import numeric_count")
        return "numeric_count(this['_']['column_types'])"


# numbers in TLVs are never NULL: PackedNumber refuses the 0xfb prefix
Collations = GreedyList(PackedNumber)
DefaultCharset = Struct(
    "default" / PackedNumber,
    "pairs" / GreedyList(Struct("index" / PackedNumber, "collation" / PackedNumber)),
)
Strings = GreedyList(Bounded(Text))

OPTIONAL_CASES = {
    "SIGNEDNESS": Bitmap(_NumericCount(), msb=True, greedy=True),
    "DEFAULT_CHARSET": DefaultCharset,
    "COLUMN_CHARSET": Collations,
    "COLUMN_NAME": Strings,
    "SET_STR_VALUE": GreedyList(Counted(Bounded(Text))),
    "ENUM_STR_VALUE": GreedyList(Counted(Bounded(Text))),
    "GEOMETRY_TYPE": GreedyList(PackedNumber),
    "SIMPLE_PRIMARY_KEY": GreedyList(PackedNumber),
    "PRIMARY_KEY_WITH_PREFIX": GreedyList(Struct("column" / PackedNumber,
                                                 "prefix" / PackedNumber)),
    "ENUM_AND_SET_DEFAULT_CHARSET": DefaultCharset,
    "ENUM_AND_SET_COLUMN_CHARSET": Collations,
    "COLUMN_VISIBILITY": Bitmap(this._.column_count, msb=True, greedy=True),
    "VECTOR_DIMENSIONALITY": GreedyList(PackedNumber),
}
OPTIONAL_VALUE = c.Switch(this.type, OPTIONAL_CASES, default=Raw)  # unknown (vendor) TLV
# types keep their bytes

# TLVs: a type byte, a packed length, a value its type declares, read whole (a type given
# as a number: its value is the block's bytes)
OptionalMetadata = TaggedList(OPTIONAL_METADATA, OPTIONAL_CASES, Raw, key="type",
                              length=(packed_parse, packed_build), numbers_raw=True)

TableMapBody = Struct(
    "table_id" / UIntLE(CtxKey("table_id_size", 6)),
    "flags" / FlagList(2, TABLE_MAP_FLAGS),
    "database" / Bounded(Text), c.Const(b"\x00"),
    "table" / Bounded(Text), c.Const(b"\x00"),
    "column_count" / c.Rebuild(LimitedCount(CtxKey("max_columns", 4096)),
                               c.len_(this.column_types)),
    "column_types" / CodeList(this.column_count, TYPES),
    "column_metadata" / IfMore(Bounded(ColumnMetadata(this.column_types))),
    "null_bitmap" / IfMore(Bitmap(this.column_count)),
    "optional_metadata" / OptionalMetadata,
)

"""Rows events in every version: pre-GA 5.1 (20-22), v1 (23-25), v2 (30-32), MySQL
PARTIAL_UPDATE_ROWS (39), MariaDB compressed v1 (166-168) and v2 (169-171).

Layout::

    table_id            6 bytes (4 when the FDE's post-header length says so, as in TABLE_MAP)
    flags               2 bytes: STMT_END, NO_FOREIGN_KEY_CHECKS, RELAXED_UNIQUE_CHECKS,
                        COMPLETE_ROWS
    extra_data          v2 only: 2-byte length that counts itself, then typed extra row info
                        (0 NDB: length, format, data; 1 PART: partition id(s))
    column_count        packed integer
    columns_present     (column_count + 7) / 8 bytes, LSB first (the before image's columns;
                        servers fill the spare bits with ones)
    columns_after       update kinds since GA (v1/v2/partial): the after image's columns
    rows                the row images, raw here (decoded through the table map elsewhere:
                        binlog_schema.format.values.rows); MariaDB's compressed kinds keep the
                        compressed bytes and give the data
"""

from __future__ import annotations

import construct as c
from construct import this

from ...construct_ext.ints import len16_self_build, len16_self_parse
from ...construct_ext.primitives import (Bitmap, Bounded, ByteString, Code, CtxKey, FlagList,
                                        GreedyList, Leaf, LimitedCount, Raw, Rebuild, Struct,
                                        Switch, UIntLE)
from ..facts.compression import compressed_build, compressed_parse
from ..facts import codes
from ..facts.names import EXTRA_ROW_INFO, ROWS_FLAGS


def MariaCompressed(limit):
    """The rest of the (bounded) stream as a MariaDB compressed block, parsed to
    ``{"compressed": bytes, "data": bytes}``; built from the stored bytes when they still
    match. ``limit`` (a value or context expression) bounds the decompressed size."""
    return Leaf(compressed_parse, compressed_build, limit)


def _extra_item(update: bool):
    part = (Struct("partition_id" / c.Int16ul,                    # 2
                   "source_partition_id" / c.Int16ul) if update    # 2  (updates only)
            else Struct("partition_id" / c.Int16ul))
    ndb = Struct(
        "length" / Rebuild(c.Int8ul, c.len_(this.data) + 2),     # 1  counts itself and format
        "format" / c.Int8ul,                                      # 1
        "data" / ByteString(this.length - 2),                     # length - 2
    )
    return Struct(
        "type" / Code(EXTRA_ROW_INFO),                            # 1  NDB, PART
        "value" / Switch(this.type, {"NDB": ndb, "PART": part}, default=Raw),
    )


def rows_body(*, v2: bool, after_image: bool, compressed: bool = False):
    fields = [
        "table_id" / UIntLE(CtxKey("table_id_size", 6)),          # 6 (4 in old files)
        "flags" / FlagList(2, ROWS_FLAGS),                        # 2  STMT_END...
    ]
    if v2:  # 2-byte length that counts itself, then typed extra row info items
        fields.append("extra_data" / Bounded(GreedyList(_extra_item(after_image)),
                                             length=(len16_self_parse, len16_self_build)))
    fields += [
        "column_count" / LimitedCount(CtxKey("max_columns", 4096)),   # packed
        "columns_present" / Bitmap(this.column_count, pad=True),      # (n + 7) / 8, LSB first
    ]
    if after_image:  # the after image's columns
        fields.append("columns_after" / Bitmap(this.column_count, pad=True))
    fields.append("rows" / (MariaCompressed(CtxKey("max_uncompressed", 1 << 30)) if compressed
                            else Raw))                           # row images, to the end
    return Struct(*fields)


PRE_GA = rows_body(v2=False, after_image=False)          # 5.1.15-5.1.17: one bitmap always
V1 = rows_body(v2=False, after_image=False)
V1_UPDATE = rows_body(v2=False, after_image=True)
V2 = rows_body(v2=True, after_image=False)
V2_UPDATE = rows_body(v2=True, after_image=True)
MARIA_V1 = rows_body(v2=False, after_image=False, compressed=True)
MARIA_V1_UPDATE = rows_body(v2=False, after_image=True, compressed=True)
MARIA_V2 = rows_body(v2=True, after_image=False, compressed=True)
MARIA_V2_UPDATE = rows_body(v2=True, after_image=True, compressed=True)

BODIES = {
    codes.PRE_GA_WRITE_ROWS_EVENT: PRE_GA, codes.PRE_GA_UPDATE_ROWS_EVENT: PRE_GA,
    codes.PRE_GA_DELETE_ROWS_EVENT: PRE_GA,
    codes.WRITE_ROWS_EVENT_V1: V1, codes.UPDATE_ROWS_EVENT_V1: V1_UPDATE,
    codes.DELETE_ROWS_EVENT_V1: V1,
    codes.WRITE_ROWS_EVENT: V2, codes.UPDATE_ROWS_EVENT: V2_UPDATE, codes.DELETE_ROWS_EVENT: V2,
    codes.PARTIAL_UPDATE_ROWS_EVENT: V2_UPDATE,
    codes.WRITE_ROWS_COMPRESSED_EVENT_V1: MARIA_V1,
    codes.UPDATE_ROWS_COMPRESSED_EVENT_V1: MARIA_V1_UPDATE,
    codes.DELETE_ROWS_COMPRESSED_EVENT_V1: MARIA_V1,
    codes.WRITE_ROWS_COMPRESSED_EVENT: MARIA_V2,
    codes.UPDATE_ROWS_COMPRESSED_EVENT: MARIA_V2_UPDATE,
    codes.DELETE_ROWS_COMPRESSED_EVENT: MARIA_V2,
}

"""Column types (``enum_field_types``): codes, names, and the sets of types that behave alike."""

from __future__ import annotations

from ...construct_ext.names import NameTable

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
# numeric for SIGNEDNESS on every server (YEAR and the old DECIMAL included: PEERS pitfall 1)
NUMERIC_TYPES = INTEGER_TYPES | {"FLOAT", "DOUBLE", "DECIMAL", "NEWDECIMAL", "YEAR"}
BLOB_TYPES = frozenset({"TINY_BLOB", "MEDIUM_BLOB", "LONG_BLOB", "BLOB"})
STRING_TYPES = frozenset({"STRING", "VAR_STRING", "ENUM", "SET"})
TEMPORAL_TYPES = frozenset({"DATE", "NEWDATE", "TIME", "TIME2", "DATETIME", "DATETIME2",
                            "TIMESTAMP", "TIMESTAMP2"})
# the temporal types of the format before MySQL 5.6.4 (no metadata; their DDL types are those
# of TIME2...), also MariaDB's hi-res formats when the schema gives a fractional part
OLD_TEMPORAL = frozenset({"TIME", "DATETIME", "TIMESTAMP"})
COMPRESSED_TYPES = frozenset({"VARCHAR_COMPRESSED", "BLOB_COMPRESSED"})  # MariaDB's


def type_name(code) -> str | int:
    return TYPES.get(code, code) if isinstance(code, int) else code


def numeric_count(types) -> int:
    """How many of the column types carry a SIGNEDNESS bit."""
    return sum(map(NUMERIC_TYPES.__contains__, types))

"""Where MySQL and MariaDB (and their versions) differ: one table of data, not ``if`` chains.

A :class:`Flavor` says which columns count as *numeric* (they carry a SIGNEDNESS bit), which as
*character* columns (they get a collation in DEFAULT_/COLUMN_CHARSET), and which optional-
metadata TLVs the server writes at ``binlog_row_metadata`` MINIMAL and FULL, in which order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Numeric for SIGNEDNESS on every server (YEAR and the old DECIMAL included: PEERS pitfall 1).
NUMERIC = frozenset({"TINY", "SHORT", "INT24", "LONG", "LONGLONG", "FLOAT", "DOUBLE",
                     "DECIMAL", "NEWDECIMAL", "YEAR"})
_BLOBS = frozenset({"TINY_BLOB", "MEDIUM_BLOB", "LONG_BLOB", "BLOB"})
_MYSQL_CHAR = frozenset({"STRING", "VAR_STRING", "VARCHAR"}) | _BLOBS

# TLV slots in writing order. "CHARSET" is DEFAULT_CHARSET or COLUMN_CHARSET (the server picks
# the shorter); "ENUM_AND_SET_CHARSET" likewise; "PRIMARY_KEY" is SIMPLE_PRIMARY_KEY or
# PRIMARY_KEY_WITH_PREFIX.


@dataclass(frozen=True)
class Flavor:
    name: str
    since: tuple                 # first server version this row applies to
    character: frozenset         # binlog types with a collation (ENUM/SET excluded)
    minimal: tuple               # TLV slots at binlog_row_metadata=MINIMAL, in order
    full: tuple                  # TLV slots at FULL, in order (MINIMAL's included)

    def is_numeric(self, type_name) -> bool:
        return type_name in NUMERIC

    def is_character(self, type_name, real_type=None) -> bool:
        if real_type in ("ENUM", "SET"):
            return False
        return type_name in self.character


# MySQL (sql/log_event.cc init_metadata_fields): GEOMETRY_TYPE is written at MINIMAL too
# (the header's doc says FULL only; the code and the bytes disagree with it).
_MYSQL_MIN = ("SIGNEDNESS", "CHARSET", "GEOMETRY_TYPE")
_MYSQL_FULL = ("COLUMN_NAME", "ENUM_AND_SET_CHARSET", "SET_STR_VALUE", "ENUM_STR_VALUE",
               "PRIMARY_KEY")

FLAVORS = [
    Flavor("mysql", (8, 0, 1), _MYSQL_CHAR, _MYSQL_MIN, _MYSQL_MIN + _MYSQL_FULL),
    Flavor("mysql", (8, 0, 23), _MYSQL_CHAR, _MYSQL_MIN,
           _MYSQL_MIN + _MYSQL_FULL + ("COLUMN_VISIBILITY",)),
    Flavor("mysql", (9, 0, 0), _MYSQL_CHAR | {"VECTOR"},
           _MYSQL_MIN + ("VECTOR_DIMENSIONALITY",),
           _MYSQL_MIN + ("VECTOR_DIMENSIONALITY",) + _MYSQL_FULL + ("COLUMN_VISIBILITY",)),
    Flavor("mariadb", (10, 5, 0),
           _MYSQL_CHAR | {"GEOMETRY", "VARCHAR_COMPRESSED", "BLOB_COMPRESSED"},
           ("SIGNEDNESS", "CHARSET", "GEOMETRY_TYPE"),
           ("SIGNEDNESS", "CHARSET", "GEOMETRY_TYPE", "COLUMN_NAME", "ENUM_AND_SET_CHARSET",
            "SET_STR_VALUE", "ENUM_STR_VALUE", "PRIMARY_KEY")),
]


def version_tuple(version) -> tuple:
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", version or "")
    return tuple(int(x) for x in m.groups()) if m else (0, 0, 0)


def flavor_name_of(server_version: str | None) -> str:
    return "mariadb" if "mariadb" in (server_version or "").lower() else "mysql"


def flavor_for(name: str | None = None, version: str | None = None) -> Flavor:
    """The row of :data:`FLAVORS` for a server (name defaults from the version string; an
    unknown or missing version takes the newest row of its flavor)."""
    name = name or flavor_name_of(version)
    rows = [f for f in FLAVORS if f.name == name] or [f for f in FLAVORS if f.name == "mysql"]
    v = version_tuple(version) if version else None
    if v is None or v == (0, 0, 0):
        return rows[-1]
    fitting = [f for f in rows if f.since <= v]
    return fitting[-1] if fitting else rows[0]

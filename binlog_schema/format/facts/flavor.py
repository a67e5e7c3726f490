"""Where MySQL and MariaDB (and their versions) differ, as data: server versions (the one
place they are parsed: :func:`version_tuple`, :func:`version_numbers`, :func:`version_suffix`)
and flavors (:func:`flavor_name_of`), "JSON is binary only on MySQL" (:func:`json_is_binary`),
the FORMAT_DESCRIPTION and checksum rules (how many CRC bytes end an event:
:func:`checksum_length`; whether one may be verified: :func:`checksummed`), the context an
FDE sets (WL#2325's numbering included), and per flavor which columns are *numeric* (a
SIGNEDNESS bit) or *character* (a collation) and which optional-metadata TLVs the server
writes at ``binlog_row_metadata`` MINIMAL and FULL, in which order.
"""

from __future__ import annotations

from .codes import (BEGIN_LOAD_QUERY_EVENT, EXECUTE_LOAD_QUERY_EVENT, FORMAT_DESCRIPTION_EVENT,
                    PRE_GA_DELETE_ROWS_EVENT, PRE_GA_UPDATE_ROWS_EVENT, PRE_GA_WRITE_ROWS_EVENT,
                    TABLE_MAP_EVENT, XID_EVENT)
from .coltypes import BLOB_TYPES, NUMERIC_TYPES

# ---------------------------------------------------------------------------- versions


def version_tuple(version) -> tuple:
    """``(major, minor, patch)`` of a server version string ((0, 0, 0) when it has none)."""
    parts = version_numbers(version_text(version) if version else "")
    return parts if len(parts) == 3 else (0, 0, 0)


def version_numbers(text: str) -> tuple:
    """The dotted numbers a version text starts with, at most three: ``"8.0"`` -> (8, 0),
    ``"10.11.6-MariaDB-log"`` -> (10, 11, 6), ``"x"`` -> () (no regex import)."""
    parts, i, n = [], 0, len(text)
    while len(parts) < 3:
        j = i
        while j < n and text[j].isdecimal():
            j += 1
        if j == i:
            break
        parts.append(int(text[i:j]))
        if j >= n or text[j] != ".":
            break
        i = j + 1
    return tuple(parts)


def version_suffix(version: str) -> str:
    """What follows the numbers of a version text after its first ``-``: ``"log"``,
    ``"MariaDB-log"`` ("" when none)."""
    return version.split("-", 1)[1] if "-" in version else ""


def version_text(version) -> str:
    """A server version field as text (a NUL-padded bytes field is cut at its NUL)."""
    if isinstance(version, str):
        return version
    return bytes(version).split(b"\0", 1)[0].decode("ascii", "replace")


def flavor_name_of(server_version) -> str:
    """``mariadb`` when the server version says so, else ``mysql``."""
    return "mariadb" if "mariadb" in version_text(server_version or "").lower() else "mysql"


def json_is_binary(flavor: str | None) -> bool:
    """MySQL stores JSON columns in its binary JSON format; MariaDB's JSON is a LONGTEXT
    (logged as a BLOB holding the text)."""
    return flavor != "mariadb"


# ---------------------------------------------------------------------------- FDE and checksums


def fde_has_checksum(server_version) -> bool:
    """Servers from MySQL 5.6.1 and MariaDB 5.3 end their FDE with the checksum-algorithm byte
    and a CRC32 (present even when the algorithm is OFF)."""
    v = version_tuple(server_version)
    if flavor_name_of(server_version) == "mariadb":
        return v >= (5, 3, 0)
    return v >= (5, 6, 1)


def fde_alg_len(server_version) -> int:
    """The FDE's checksum-algorithm byte: 1 byte from the versions that write it, else 0."""
    return 1 if fde_has_checksum(server_version) else 0


def checksum_length(kind: int, body: bytes, ctx, building: bool = False) -> int:
    """How many CRC bytes end this event: the FDE says so for itself (from its server
    version), every other event follows the context (the FDE's checksum algorithm)."""
    if kind == FORMAT_DESCRIPTION_EVENT:
        return 4 if fde_has_checksum(body[2:52]) else 0
    if ctx is None:
        return 4
    return 4 if ctx["checksum"] else 0


def checksummed(kind: int, ctx) -> bool:
    """Whether an event of ``kind`` read in ``ctx`` may end in a CRC32 to verify (how
    recovery and the Spark tasks confirm an event by its checksum): every event of a file
    whose FDE sets CRC32, unless the file is encrypted (its bytes are ciphertext), and a
    FORMAT_DESCRIPTION, which says for itself (:func:`checksum_length`)."""
    return kind == FORMAT_DESCRIPTION_EVENT or (ctx.checksum and not ctx.encrypted)


# The 5.2.2 "WL#2325" development tree numbered the row events before XID: its FDE gives type
# 16 a 6-byte post-header (GA's XID has none). Its codes 16-22 map to GA's 19-22, 16-18.
WL2325_REMAP = {16: TABLE_MAP_EVENT, 17: PRE_GA_WRITE_ROWS_EVENT, 18: PRE_GA_UPDATE_ROWS_EVENT,
                19: PRE_GA_DELETE_ROWS_EVENT, 20: XID_EVENT, 21: BEGIN_LOAD_QUERY_EVENT,
                22: EXECUTE_LOAD_QUERY_EVENT}
_WL2325_CODE = {v: k for k, v in WL2325_REMAP.items()}   # GA code -> the tree's


def numbering_of(phl) -> dict | None:
    """The type-code numbering of a file from its FDE's post-header lengths (None: GA's): the
    tree's 22 types, its TABLE_MAP's 6-byte post-header where GA's XID has none, and its
    XID's none."""
    if len(phl) == max(WL2325_REMAP) and \
            phl[_WL2325_CODE[TABLE_MAP_EVENT] - 1] == 6 and phl[_WL2325_CODE[XID_EVENT] - 1] == 0:
        return WL2325_REMAP
    return None


def context_from_fde(body, ctx):
    """The context an FDE sets for the events after it."""
    phl = list(body["post_header_lengths"])
    remap = numbering_of(phl)
    tm_code = _WL2325_CODE[TABLE_MAP_EVENT] if remap else TABLE_MAP_EVENT
    version = version_text(body["server_version"])
    return ctx.replace(
        checksum=body.get("checksum_alg") == 1,
        post_header_lengths=phl,
        table_id_size=4 if len(phl) >= tm_code and phl[tm_code - 1] == 6 else 6,
        type_remap=remap,
        server_version=version,
        flavor=flavor_name_of(version),
        binlog_version=body["binlog_version"],
    )


def context_from_start_v3(body, ctx):
    """The context a START_EVENT_V3 (binlog v1 and v3) sets: no checksums, no table."""
    return ctx.replace(checksum=False, post_header_lengths=None, table_id_size=6,
                       type_remap=None, server_version=version_text(body["server_version"]),
                       flavor="mysql", binlog_version=body["binlog_version"])


# ---------------------------------------------------------------------------- flavors

_MYSQL_CHAR = frozenset({"STRING", "VAR_STRING", "VARCHAR"}) | BLOB_TYPES

# TLV slots in writing order. "CHARSET" is DEFAULT_CHARSET or COLUMN_CHARSET (the server picks
# the shorter); "ENUM_AND_SET_CHARSET" likewise; "PRIMARY_KEY" is SIMPLE_PRIMARY_KEY or
# PRIMARY_KEY_WITH_PREFIX.


class Flavor:
    """One row of :data:`FLAVORS`: a flavor from a server version on."""

    __slots__ = ("name", "since", "character", "minimal", "full")

    def __init__(self, name, since, character, minimal, full):
        self.name = name              # mysql | mariadb
        self.since = since            # first server version this row applies to
        self.character = character    # binlog types with a collation (ENUM/SET excluded)
        self.minimal = minimal        # TLV slots at binlog_row_metadata=MINIMAL, in order
        self.full = full              # TLV slots at FULL, in order (MINIMAL's included)

    def __repr__(self):
        return f"Flavor({self.name!r}, {self.since!r})"

    def is_numeric(self, type_name) -> bool:
        return type_name in NUMERIC_TYPES

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

"""Name tables of the codes and flag bits inside events (the header's flags, TABLE_MAP,
rows, QUERY, LOAD, GTID and payload fields). Declarations and generated code import them
from here."""

from __future__ import annotations

from ...construct_ext.names import NameTable

_M = __name__

# ---------------------------------------------------------------------------- header
EVENT_FLAGS = NameTable(_M, "EVENT_FLAGS", {
    0x1: "BINLOG_IN_USE", 0x2: "FORCED_ROTATE", 0x4: "THREAD_SPECIFIC", 0x8: "SUPPRESS_USE",
    0x10: "UPDATE_TABLE_MAP_VERSION", 0x20: "ARTIFICIAL", 0x40: "RELAY_LOG", 0x80: "IGNORABLE",
    0x100: "NO_FILTER", 0x200: "MTS_ISOLATE"})

# ---------------------------------------------------------------------------- TABLE_MAP
TABLE_MAP_FLAGS = NameTable(_M, "TABLE_MAP_FLAGS", {
    0x1: "BIT_LEN_EXACT", 0x2: "REFERRED_FK_DB", 0x4: "GENERATED_INVISIBLE_PK",
    0x4000: "HAS_TRIGGERS"})  # 0x4000: MariaDB's TM_BIT_HAS_TRIGGERS_F

OPTIONAL_METADATA_CODES = {
    1: "SIGNEDNESS", 2: "DEFAULT_CHARSET", 3: "COLUMN_CHARSET", 4: "COLUMN_NAME",
    5: "SET_STR_VALUE", 6: "ENUM_STR_VALUE", 7: "GEOMETRY_TYPE", 8: "SIMPLE_PRIMARY_KEY",
    9: "PRIMARY_KEY_WITH_PREFIX", 10: "ENUM_AND_SET_DEFAULT_CHARSET",
    11: "ENUM_AND_SET_COLUMN_CHARSET", 12: "COLUMN_VISIBILITY", 13: "VECTOR_DIMENSIONALITY",
}
OPTIONAL_METADATA = NameTable(_M, "OPTIONAL_METADATA", OPTIONAL_METADATA_CODES)

# ---------------------------------------------------------------------------- rows events
ROWS_FLAGS = NameTable(_M, "ROWS_FLAGS", {
    0x1: "STMT_END", 0x2: "NO_FOREIGN_KEY_CHECKS", 0x4: "RELAXED_UNIQUE_CHECKS",
    0x8: "COMPLETE_ROWS"})
EXTRA_ROW_INFO = NameTable(_M, "EXTRA_ROW_INFO", {0: "NDB", 1: "PART"})

# ---------------------------------------------------------------------------- QUERY
STATUS_VAR_CODES = {
    0: "FLAGS2", 1: "SQL_MODE", 2: "CATALOG", 3: "AUTO_INCREMENT", 4: "CHARSET",
    5: "TIME_ZONE", 6: "CATALOG_NZ", 7: "LC_TIME_NAMES", 8: "CHARSET_DATABASE",
    9: "TABLE_MAP_FOR_UPDATE", 10: "MASTER_DATA_WRITTEN", 11: "INVOKER",
    12: "UPDATED_DB_NAMES", 13: "MICROSECONDS", 14: "COMMIT_TS",
    16: "EXPLICIT_DEFAULTS_FOR_TIMESTAMP", 17: "DDL_LOGGED_WITH_XID",
    18: "DEFAULT_COLLATION_FOR_UTF8MB4", 19: "SQL_REQUIRE_PRIMARY_KEY",
    20: "DEFAULT_TABLE_ENCRYPTION", 21: "ENABLE_CASCADE_TRIGGERS",
    # MariaDB
    128: "HRNOW", 129: "XID", 130: "GTID_FLAGS3", 131: "CHARACTER_SET_COLLATIONS",
}
# 15 (Q_COMMIT_TS2, a 5.7 development-tree code never written by a GA server) has no known
# layout: like any unknown code, it ends the walk and the rest of the block stays raw.
QUERY_STATUS_VARS = NameTable(_M, "QUERY_STATUS_VARS", STATUS_VAR_CODES)
KNOWN_STATUS_CODES = frozenset(STATUS_VAR_CODES)

# thd->options bits written to the binlog (OPTIONS_WRITTEN_TO_BIN_LOG, the same in both
# flavors); other bits stay ints.
QUERY_FLAGS2 = NameTable(_M, "QUERY_FLAGS2", {
    0x4000: "AUTO_IS_NULL", 0x80000: "NOT_AUTOCOMMIT", 0x4000000: "NO_FOREIGN_KEY_CHECKS",
    0x8000000: "RELAXED_UNIQUE_CHECKS"})

OVER_MAX_DBS = 254  # Q_UPDATED_DB_NAMES count meaning "too many databases": no names follow
GTID_FLAGS3_WITH_SEQ_NO = 0x4 | 0x8  # FL_COMMIT_ALTER_E1 | FL_ROLLBACK_ALTER_E1

# ---------------------------------------------------------------------------- LOAD DATA
LOAD_DUP_HANDLING = NameTable(_M, "LOAD_DUP_HANDLING", {
    0: "ERROR", 1: "IGNORE", 2: "REPLACE"})
LOAD_OPT_FLAGS = NameTable(_M, "LOAD_OPT_FLAGS", {
    0x1: "DUMPFILE", 0x2: "OPT_ENCLOSED", 0x4: "REPLACE", 0x8: "IGNORE"})
LOAD_EMPTY_FLAGS = NameTable(_M, "LOAD_EMPTY_FLAGS", {
    0x1: "FIELD_TERM_EMPTY", 0x2: "ENCLOSED_EMPTY", 0x4: "LINE_TERM_EMPTY",
    0x8: "LINE_START_EMPTY", 0x10: "ESCAPED_EMPTY"})

# ---------------------------------------------------------------------------- statement context
INTVAR_TYPES = NameTable(_M, "INTVAR_TYPES", {
    0: "INVALID_INT", 1: "LAST_INSERT_ID", 2: "INSERT_ID"})
USER_VAR_TYPES = NameTable(_M, "USER_VAR_TYPES", {  # Item_result
    0: "STRING", 1: "REAL", 2: "INT", 3: "ROW", 4: "DECIMAL"})
USER_VAR_FLAGS = NameTable(_M, "USER_VAR_FLAGS", {0x1: "UNSIGNED"})

# ---------------------------------------------------------------------------- GTID (MySQL)
GTID_FLAGS = NameTable(_M, "GTID_FLAGS", {0x1: "MAY_HAVE_SBR"})
GTID_SET_FORMATS = NameTable(_M, "GTID_SET_FORMATS", {0: "UNTAGGED", 1: "TAGGED"})
HEARTBEAT_FIELDS = NameTable(_M, "HEARTBEAT_FIELDS", {
    0: "END", 1: "LOG_FILENAME", 2: "LOG_POSITION"})

# ---------------------------------------------------------------------------- GTID (MariaDB)
MARIA_GTID_FLAGS2 = NameTable(_M, "MARIA_GTID_FLAGS2", {
    0x01: "STANDALONE", 0x02: "GROUP_COMMIT_ID", 0x04: "TRANSACTIONAL",
    0x08: "ALLOW_PARALLEL", 0x10: "WAITED", 0x20: "DDL", 0x40: "PREPARED_XA",
    0x80: "COMPLETED_XA"})
MARIA_GTID_FLAGS_EXTRA = NameTable(_M, "MARIA_GTID_FLAGS_EXTRA", {
    0x01: "MULTI_ENGINE", 0x02: "START_ALTER", 0x04: "COMMIT_ALTER", 0x08: "ROLLBACK_ALTER",
    0x10: "THREAD_ID"})
MARIA_GTID_LIST_FLAGS = NameTable(_M, "MARIA_GTID_LIST_FLAGS", {
    0x1: "UNTIL_REACHED", 0x2: "IGN_GTIDS"})

# ---------------------------------------------------------------------------- payloads
PAYLOAD_FIELDS = NameTable(_M, "PAYLOAD_FIELDS", {
    0: "END", 1: "PAYLOAD_SIZE", 2: "COMPRESSION_TYPE", 3: "UNCOMPRESSED_SIZE"})
COMPRESSION_TYPES = {0: "ZSTD", 255: "NONE"}

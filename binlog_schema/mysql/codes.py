"""Event type codes: every code, its name, and the sets of codes that behave alike. Code
elsewhere names codes from here, never as literals."""

from __future__ import annotations

EVENT_TYPES = {
    0: "UNKNOWN_EVENT", 1: "START_EVENT_V3", 2: "QUERY_EVENT", 3: "STOP_EVENT",
    4: "ROTATE_EVENT", 5: "INTVAR_EVENT", 6: "LOAD_EVENT", 7: "SLAVE_EVENT",
    8: "CREATE_FILE_EVENT", 9: "APPEND_BLOCK_EVENT", 10: "EXEC_LOAD_EVENT",
    11: "DELETE_FILE_EVENT", 12: "NEW_LOAD_EVENT", 13: "RAND_EVENT", 14: "USER_VAR_EVENT",
    15: "FORMAT_DESCRIPTION_EVENT", 16: "XID_EVENT", 17: "BEGIN_LOAD_QUERY_EVENT",
    18: "EXECUTE_LOAD_QUERY_EVENT", 19: "TABLE_MAP_EVENT", 20: "PRE_GA_WRITE_ROWS_EVENT",
    21: "PRE_GA_UPDATE_ROWS_EVENT", 22: "PRE_GA_DELETE_ROWS_EVENT", 23: "WRITE_ROWS_EVENT_V1",
    24: "UPDATE_ROWS_EVENT_V1", 25: "DELETE_ROWS_EVENT_V1", 26: "INCIDENT_EVENT",
    27: "HEARTBEAT_LOG_EVENT", 28: "IGNORABLE_LOG_EVENT", 29: "ROWS_QUERY_LOG_EVENT",
    30: "WRITE_ROWS_EVENT", 31: "UPDATE_ROWS_EVENT", 32: "DELETE_ROWS_EVENT",
    33: "GTID_LOG_EVENT", 34: "ANONYMOUS_GTID_LOG_EVENT", 35: "PREVIOUS_GTIDS_LOG_EVENT",
    36: "TRANSACTION_CONTEXT_EVENT", 37: "VIEW_CHANGE_EVENT", 38: "XA_PREPARE_LOG_EVENT",
    39: "PARTIAL_UPDATE_ROWS_EVENT", 40: "TRANSACTION_PAYLOAD_EVENT",
    41: "HEARTBEAT_LOG_EVENT_V2", 42: "GTID_TAGGED_LOG_EVENT",
    160: "ANNOTATE_ROWS_EVENT", 161: "BINLOG_CHECKPOINT_EVENT", 162: "GTID_EVENT",
    163: "GTID_LIST_EVENT", 164: "START_ENCRYPTION_EVENT", 165: "QUERY_COMPRESSED_EVENT",
    166: "WRITE_ROWS_COMPRESSED_EVENT_V1", 167: "UPDATE_ROWS_COMPRESSED_EVENT_V1",
    168: "DELETE_ROWS_COMPRESSED_EVENT_V1", 169: "WRITE_ROWS_COMPRESSED_EVENT",
    170: "UPDATE_ROWS_COMPRESSED_EVENT", 171: "DELETE_ROWS_COMPRESSED_EVENT",
}
EVENT_CODES = {v: k for k, v in EVENT_TYPES.items()}

START_EVENT_V3 = 1
QUERY_EVENT = 2
STOP_EVENT = 3
ROTATE_EVENT = 4
INTVAR_EVENT = 5
FORMAT_DESCRIPTION_EVENT = 15
XID_EVENT = 16
EXECUTE_LOAD_QUERY_EVENT = 18
TABLE_MAP_EVENT = 19
PRE_GA_UPDATE_ROWS_EVENT = 21
ROWS_QUERY_LOG_EVENT = 29
GTID_LOG_EVENT = 33
ANONYMOUS_GTID_LOG_EVENT = 34
XA_PREPARE_LOG_EVENT = 38
PARTIAL_UPDATE_ROWS_EVENT = 39
TRANSACTION_PAYLOAD_EVENT = 40
GTID_TAGGED_LOG_EVENT = 42
ANNOTATE_ROWS_EVENT = 160
MARIA_GTID_EVENT = 162
START_ENCRYPTION_EVENT = 164
QUERY_COMPRESSED_EVENT = 165

WRITE_KINDS = frozenset({20, 23, 30, 166, 169})
UPDATE_KINDS = frozenset({21, 24, 31, 39, 167, 170})
DELETE_KINDS = frozenset({22, 25, 32, 168, 171})
ROWS_KINDS = WRITE_KINDS | UPDATE_KINDS | DELETE_KINDS
PRE_GA_ROWS_KINDS = frozenset({20, 21, 22})
COMPRESSED_ROWS_KINDS = frozenset({166, 167, 168, 169, 170, 171})  # MariaDB log_bin_compress
# rows events whose body ends in the row images as raw bytes, read to the end of the body (a
# test checks the declarations say so): a body is its leading fields, then the rows
RAW_ROWS_KINDS = ROWS_KINDS - COMPRESSED_ROWS_KINDS

# events that start a transaction's GTID: MySQL's GTID (and tagged), ANONYMOUS_GTID, MariaDB's
GTID_KINDS = frozenset({GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT, GTID_TAGGED_LOG_EVENT,
                        MARIA_GTID_EVENT})
NAMED_GTID_KINDS = GTID_KINDS - {ANONYMOUS_GTID_LOG_EVENT}   # those that name a transaction
# events whose body starts with the QUERY layout or carries a statement's text
QUERY_KINDS = frozenset({QUERY_EVENT, EXECUTE_LOAD_QUERY_EVENT, ROWS_QUERY_LOG_EVENT,
                         ANNOTATE_ROWS_EVENT, QUERY_COMPRESSED_EVENT})
STATEMENT_KINDS = frozenset({QUERY_EVENT, QUERY_COMPRESSED_EVENT})
# events that set the context of the events after them
CONTEXT_KINDS = frozenset({FORMAT_DESCRIPTION_EVENT, START_EVENT_V3})
# the codes servers write (0 and SLAVE_EVENT, 7, never are), per flavor: a header of another
# code is not an event's (what recovery judges headers by)
_WRITTEN = frozenset(EVENT_TYPES) - {0, 7}
MARIADB_ONLY_KINDS = frozenset(range(160, 172))
MYSQL_ONLY_KINDS = frozenset(range(33, 43)) | {ROWS_QUERY_LOG_EVENT}
WRITTEN_KINDS = {None: _WRITTEN, "mysql": _WRITTEN - MARIADB_ONLY_KINDS,
                 "mariadb": _WRITTEN - MYSQL_ONLY_KINDS}


def type_name(code: int) -> str:
    return EVENT_TYPES.get(code, f"UNKNOWN_EVENT_{code}")


def code_of(name) -> int:
    """The code of a type given by name (``TABLE_MAP`` or ``TABLE_MAP_EVENT``) or number."""
    if isinstance(name, int):
        return name
    key = str(name).strip().upper()
    if key.isdigit():
        return int(key)
    for candidate in (key, key + "_EVENT", key + "_LOG_EVENT"):
        if candidate in EVENT_CODES:
            return EVENT_CODES[candidate]
    raise KeyError(name)

"""One module per event family: the post-header and body declaration of each event type.

``BODIES`` maps a type code to its body declaration; a code not in it keeps its body raw.
"""

from __future__ import annotations

import re

from . import gtid, query, rows
from .format_description import FormatDescriptionBody, StartEventV3Body
from .table_map import TableMapBody
from .transaction_payload import TransactionPayloadBody

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

BODIES = {
    1: StartEventV3Body,
    15: FormatDescriptionBody,
    19: TableMapBody,
    40: TransactionPayloadBody,
    **query.BODIES,
    **gtid.BODIES,
    **rows.BODIES,
}

FORMAT_DESCRIPTION_EVENT = 15


def version_tuple(version: str) -> tuple:
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", version or "")
    return tuple(int(x) for x in m.groups()) if m else (0, 0, 0)


def fde_has_checksum(server_version: str) -> bool:
    """Servers from MySQL 5.6.1 and MariaDB 5.3 end their FDE with the checksum-algorithm byte
    and a CRC32 (present even when the algorithm is OFF)."""
    v = version_tuple(server_version)
    if "mariadb" in (server_version or "").lower():
        return v >= (5, 3, 0)
    return v >= (5, 6, 1)


def checksum_length(type_code: int, body: bytes, ctx, building: bool = False) -> int:
    """How many CRC bytes end this event: the FDE says so for itself (from its server
    version), every other event follows the context (the FDE's checksum algorithm)."""
    if type_code == FORMAT_DESCRIPTION_EVENT:
        version = body[2:52].split(b"\0", 1)[0].decode("ascii", "replace")
        return 4 if fde_has_checksum(version) else 0
    if ctx is None:
        return 4
    return 4 if ctx["checksum"] else 0

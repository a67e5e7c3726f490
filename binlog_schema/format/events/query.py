"""Statement events: QUERY and its variants, the LOAD DATA family, the events that carry a
statement's context (user variables, RAND seeds, INSERT_ID), and the small control events.

Every length and count in these layouts is derived on build (``Rebuild``); post-header
lengths come from the FORMAT_DESCRIPTION event in the context (``post_header_lengths``,
indexed by the code the file stores), or, in files without one (START_EVENT_V3: binlog v1 and
v3), from the binlog version. Layouts were read off the servers' readers and writers
(MySQL ``libs/mysql/binlog/event/{statement,load_data,control}_events.*``, MariaDB
``sql/log_event.{h,cc}``) and checked against real bytes (shared corpus, a MariaDB 10.11
server).

QUERY (2), EXECUTE_LOAD_QUERY (18), QUERY_COMPRESSED (165, MariaDB)::

    thread_id 4 | exec_time 4 | db_len 1 | error_code 2 | status_vars_len 2 (binlog v4 only)
    [EXECUTE_LOAD_QUERY: file_id 4 | fn_pos_start 4 | fn_pos_end 4 | dup_handling 1]
    [post-header bytes beyond these, when the FDE announces a longer post-header]
    status_vars (status_vars_len bytes) | database (db_len bytes) | NUL | query (to the end)

Status variables are ``{code, value}`` items decoded per code; an unknown code ends the walk
and the rest of the block is kept as ``{"raw": ...}`` (its length cannot be known). A status
block longer than the body (which the servers reject as corrupt, e.g. the corpus's
corrupt-relay-bin.000624) keeps the whole body raw, like an undeclared event type.
QUERY_COMPRESSED keeps the compressed query bytes (``compressed``) and gives the text
(``query``) too; on build the compressed bytes are written when present (they must agree with
``query``), else ``query`` is compressed.

LOAD (6) and NEW_LOAD (12) (MySQL 3.23/4.0), CREATE_FILE (8)::

    thread_id 4 | exec_time 4 | skip_lines 4 | table_len 1 | db_len 1 | num_fields 4
    [CREATE_FILE: file_id 4]
    sql_ex: LOAD: 7 one-byte fields; NEW_LOAD and CREATE_FILE (every version, checked on the
            4.1 file binlog_old_version_4_1.000001): 5 one-byte-length strings + opt_flags
    field_lens (num_fields bytes) | field names (each + NUL) | table + NUL | database + NUL
    file name: LOAD/NEW_LOAD to the end; CREATE_FILE + NUL, then the first data block
"""

from __future__ import annotations

import construct as c
from construct import this

from ...construct_ext import context_functions as exprs
from ...construct_ext.primitives import (Bounded, BuiltSize, ByteList, ByteString, Call, Code,
                                        CStr, Default, FlagList, If, IfMore, Leaf,
                                        NamesByLength, NoLayout, Raw, RawIfCorrupt, Rebuild,
                                        Sized, Struct, TaggedList, Text, TextN, UIntLE)
from ..facts import compression
from ..facts import codes
from ..facts.names import (INTVAR_TYPES, KNOWN_STATUS_CODES, LOAD_DUP_HANDLING,
                           LOAD_EMPTY_FLAGS, LOAD_OPT_FLAGS, OVER_MAX_DBS, QUERY_FLAGS2,
                           QUERY_STATUS_VARS, USER_VAR_FLAGS, USER_VAR_TYPES)
from ..facts.post_header import (db_names_count, gtid_flags3_has_seq_no, has_post_header_extra,
                                 has_query_extra, has_status_vars, post_header_at_least,
                                 post_header_extra, query_extra, query_status_overrun,
                                 user_var_not_null)


def _extra(code, base):
    """The post-header bytes a longer FDE entry announces beyond the ``base`` bytes declared:
    None when there are none."""
    return "post_header_extra" / If(Call(has_post_header_extra, code, base),
                                    ByteString(Call(post_header_extra, code, base)),
                                    optional=True)


CompressedQuery = Leaf(compression.query_compressed_parse, compression.query_compressed_build,
                       Call(exprs.get_or_none, "query"), buildnone=True)
"""The rest of the body: MariaDB's compressed block (0x80|n, n-byte length, zlib), kept."""
UncompressedQuery = Leaf(compression.query_uncompressed_parse,
                         compression.query_uncompressed_build, this.compressed, size=0,
                         buildnone=True)
"""The query text the compressed block holds (no bytes of its own)."""

# ======================================================================================
# QUERY status variables

ShortText = Bounded(Text, packed=False)  # 1-byte length, then the bytes

STATUS_VALUES = {
    "FLAGS2": FlagList(4, QUERY_FLAGS2),                  # 4  AUTO_IS_NULL, NOT_AUTOCOMMIT...
    "SQL_MODE": c.Int64ul,  # 8  bit names differ between MySQL and MariaDB: kept as the number
    "CATALOG": c.FocusedSeq("name", "name" / ShortText, c.Const(b"\0")),  # 5.0.0-5.0.3
    "AUTO_INCREMENT": Struct("increment" / c.Int16ul,      # 2  auto_increment_increment
                             "offset" / c.Int16ul),        # 2  auto_increment_offset
    "CHARSET": Struct("client" / c.Int16ul,                # 2  collation ids
                      "connection" / c.Int16ul,            # 2
                      "server" / c.Int16ul),               # 2
    "TIME_ZONE": ShortText,                                # 1-byte length, name
    "CATALOG_NZ": ShortText,                               # 1-byte length, name
    "LC_TIME_NAMES": c.Int16ul,                            # 2  locale number
    "CHARSET_DATABASE": c.Int16ul,                         # 2  collation id
    "TABLE_MAP_FOR_UPDATE": c.Int64ul,                     # 8  bitmap of tables
    "MASTER_DATA_WRITTEN": c.Int32ul,                      # 4
    "INVOKER": Struct("user" / ShortText, "host" / ShortText),  # 1-byte length each
    "UPDATED_DB_NAMES": Struct(
        "count" / Rebuild(c.Int8ul, Call(db_names_count)),               # 1  254: too many
        "names" / If(this.count != OVER_MAX_DBS, c.Array(this.count, CStr),  # each + NUL
                     optional=True),
    ),
    "MICROSECONDS": UIntLE(3),                             # 3  of the event's timestamp
    "COMMIT_TS": c.Int64ul,  # 8  5.7 development trees (libbinlogapi: COMMIT_SEQ_LEN 8)
    "EXPLICIT_DEFAULTS_FOR_TIMESTAMP": c.Int8ul,           # 1
    "DDL_LOGGED_WITH_XID": c.Int64ul,                      # 8  the XID of an atomic DDL
    "DEFAULT_COLLATION_FOR_UTF8MB4": c.Int16ul,            # 2  collation id
    "SQL_REQUIRE_PRIMARY_KEY": c.Int8ul,                   # 1
    "DEFAULT_TABLE_ENCRYPTION": c.Int8ul,                  # 1
    "ENABLE_CASCADE_TRIGGERS": c.Int8ul,                   # 1
    "HRNOW": UIntLE(3),                                    # 3  MariaDB: microseconds
    "XID": c.Int64ul,                                      # 8  MariaDB: DDL's XID
    "GTID_FLAGS3": Struct(
        "flags" / c.Int8ul,                                               # 1
        "sa_seq_no" / If(Call(gtid_flags3_has_seq_no), c.Int64ul,       # 8  ALTER's seq_no
                         optional=True),
    ),
    "CHARACTER_SET_COLLATIONS": Struct(
        "count" / Rebuild(c.Int8ul, Call(exprs.list_len, "map")),        # 1
        "map" / c.Array(this.count, Struct("charset" / c.Int16ul,         # 2  charset id
                                           "collation" / c.Int16ul)),     # 2  collation id
    ),
}

# {code, value} items to the end of the block; an unknown code keeps the rest raw
StatusVars = TaggedList(QUERY_STATUS_VARS, STATUS_VALUES, NoLayout, KNOWN_STATUS_CODES)


# ======================================================================================
# QUERY, EXECUTE_LOAD_QUERY, QUERY_COMPRESSED


def _query_body(code: int, elq: bool = False, compressed: bool = False):
    fields = [
        "thread_id" / c.Int32ul,                                         # 4
        "exec_time" / c.Int32ul,                                         # 4  seconds
        "db_len" / Rebuild(c.Int8ul, Call(exprs.field_byte_len, "database")),    # 1
        "error_code" / c.Int16ul,                                        # 2
        "status_vars_len" / If(Call(has_status_vars, code),             # 2  binlog v4
                               Rebuild(c.Int16ul, BuiltSize("status_vars", StatusVars)),
                               optional=True),
    ]
    if elq:
        fields += [
            "file_id" / c.Int32ul,                                       # 4  the LOAD's file
            "fn_pos_start" / c.Int32ul,                                  # 4  where the file
            "fn_pos_end" / c.Int32ul,                                    # 4  name is in query
            "dup_handling" / Code(LOAD_DUP_HANDLING),                    # 1
        ]
    fields += [
        "post_header_extra" / If(Call(has_query_extra, code),           # what a longer FDE
                                 ByteString(Call(query_extra, code)),   # entry adds
                                 optional=True),
        "status_vars" / If(Call(has_status_vars, code),                 # status_vars_len
                           Sized(this.status_vars_len, StatusVars), optional=True),
        "database" / TextN(this.db_len),                                 # db_len
        c.Const(b"\0"),                                                  # 1
    ]
    if compressed:
        fields += ["compressed" / CompressedQuery,                       # to the end
                   "query" / UncompressedQuery]                          # 0  (the text of it)
    else:
        fields += ["query" / Text]                                       # to the end
    return RawIfCorrupt(Struct(*fields), query_status_overrun, code)


QueryBody = _query_body(codes.QUERY_EVENT)
ExecuteLoadQueryBody = _query_body(codes.EXECUTE_LOAD_QUERY_EVENT, elq=True)
QueryCompressedBody = _query_body(codes.QUERY_COMPRESSED_EVENT, compressed=True)


# ======================================================================================
# LOAD DATA: LOAD, NEW_LOAD, CREATE_FILE, APPEND_BLOCK, EXEC_LOAD, DELETE_FILE,
# BEGIN_LOAD_QUERY

OldSqlEx = Struct(  # LOAD_EVENT: one byte each; empty_flags says which are really empty
    "field_term" / TextN(1),                            # 1
    "enclosed" / TextN(1),                              # 1
    "line_term" / TextN(1),                             # 1
    "line_start" / TextN(1),                            # 1
    "escaped" / TextN(1),                               # 1
    "opt_flags" / FlagList(1, LOAD_OPT_FLAGS),          # 1
    "empty_flags" / FlagList(1, LOAD_EMPTY_FLAGS),      # 1
)

NewSqlEx = Struct(
    "field_term" / ShortText,                           # 1-byte length, bytes
    "enclosed" / ShortText,                             # (each)
    "line_term" / ShortText,
    "line_start" / ShortText,
    "escaped" / ShortText,
    "opt_flags" / FlagList(1, LOAD_OPT_FLAGS),          # 1
)


def _load_body(new_format: bool, create_file: bool = False):
    fields = [
        "thread_id" / c.Int32ul,                                            # 4
        "exec_time" / c.Int32ul,                                            # 4  seconds
        "skip_lines" / c.Int32ul,                                           # 4  IGNORE n LINES
        "table_len" / Rebuild(c.Int8ul, Call(exprs.field_byte_len, "table")),       # 1
        "db_len" / Rebuild(c.Int8ul, Call(exprs.field_byte_len, "database")),       # 1
        "num_fields" / Rebuild(c.Int32ul, Call(exprs.list_len, "fields")),         # 4
    ]
    if create_file:
        fields += ["file_id" / c.Int32ul,                                   # 4
                   _extra(codes.CREATE_FILE_EVENT, 4)]
    fields += [
        "sql_ex" / (NewSqlEx if new_format else OldSqlEx),                  # FIELDS/LINES
        "field_lens" / Rebuild(ByteList(this.num_fields),                   # 1 per field
                               Call(exprs.name_lens, "fields")),
        "fields" / NamesByLength(this.field_lens),                          # each + NUL
        "table" / TextN(this.table_len), c.Const(b"\0"),                   # table_len + 1
        "database" / TextN(this.db_len), c.Const(b"\0"),                   # db_len + 1
    ]
    if create_file:
        fields += ["file_name" / CStr,                                      # + NUL
                   "block" / Raw]                                           # the first data
    else:
        fields += ["file_name" / Text]                                      # to the end
    return Struct(*fields)


LoadBody = _load_body(new_format=False)
NewLoadBody = _load_body(new_format=True)
CreateFileBody = _load_body(new_format=True, create_file=True)


def _block_body(code):
    return Struct("file_id" / c.Int32ul,                # 4
                  _extra(code, 4),
                  "block" / Raw)                        # the file's data, to the end


AppendBlockBody = _block_body(codes.APPEND_BLOCK_EVENT)
BeginLoadQueryBody = _block_body(codes.BEGIN_LOAD_QUERY_EVENT)
ExecLoadBody = Struct("file_id" / c.Int32ul)            # 4
DeleteFileBody = Struct("file_id" / c.Int32ul)          # 4


# ======================================================================================
# statement context: USER_VAR, INTVAR, RAND

UserVarValue = Struct(
    "type" / Code(USER_VAR_TYPES),                      # 1  STRING, REAL, INT, DECIMAL
    "charset" / c.Int32ul,                              # 4  collation id
    "length" / Rebuild(c.Int32ul, Call(exprs.field_byte_len, "data")),     # 4
    "data" / ByteString(this.length),  # the server's binary form (8-byte int/double, ...)
    "flags" / IfMore(FlagList(1, USER_VAR_FLAGS)),  # 1  absent before 5.1 and for non-ints
)

UserVarBody = Struct(
    "name_len" / Rebuild(c.Int32ul, Call(exprs.field_byte_len, "name")),    # 4
    "name" / TextN(this.name_len),
    "is_null" / c.Int8ul,                               # 1
    "value" / If(Call(user_var_not_null), UserVarValue, optional=True),
)

IntvarBody = Struct("type" / Code(INTVAR_TYPES),       # 1  LAST_INSERT_ID, INSERT_ID
                    "value" / c.Int64ul)                # 8
RandBody = Struct("seed1" / c.Int64ul,                  # 8
                  "seed2" / c.Int64ul)                  # 8


# ======================================================================================
# control events

XidBody = Struct("xid" / c.Int64ul)                     # 8  the storage engine's XID

RotateBody = Struct(
    "position" / If(Call(post_header_at_least, codes.ROTATE_EVENT, 8),
                    c.Int64ul, optional=True),          # 8  (binlog v1, 3.23: none)
    _extra(codes.ROTATE_EVENT, 8),
    "next_file" / Text,                                 # to the end
)

StopBody = Struct()

IncidentBody = Struct(
    "incident" / c.Int16ul,                             # 2  1 = LOST_EVENTS
    _extra(codes.INCIDENT_EVENT, 2),
    "message" / ShortText,                              # 1-byte length, text
)

IgnorableBody = Struct("data" / Raw)                    # to the end

RowsQueryBody = Struct(
    # 1  the low byte of the length (readers ignore it): kept as stored, computed when None
    "length" / Default(c.Int8ul, Call(exprs.field_byte_len_low, "query")),
    "query" / Text,                                     # to the end
)

AnnotateRowsBody = Struct("query" / Text)               # to the end


BODIES = {
    codes.QUERY_EVENT: QueryBody,
    codes.STOP_EVENT: StopBody,
    codes.ROTATE_EVENT: RotateBody,
    codes.INTVAR_EVENT: IntvarBody,
    codes.LOAD_EVENT: LoadBody,
    codes.CREATE_FILE_EVENT: CreateFileBody,
    codes.APPEND_BLOCK_EVENT: AppendBlockBody,
    codes.EXEC_LOAD_EVENT: ExecLoadBody,
    codes.DELETE_FILE_EVENT: DeleteFileBody,
    codes.NEW_LOAD_EVENT: NewLoadBody,
    codes.RAND_EVENT: RandBody,
    codes.USER_VAR_EVENT: UserVarBody,
    codes.XID_EVENT: XidBody,
    codes.BEGIN_LOAD_QUERY_EVENT: BeginLoadQueryBody,
    codes.EXECUTE_LOAD_QUERY_EVENT: ExecuteLoadQueryBody,
    codes.INCIDENT_EVENT: IncidentBody,
    codes.IGNORABLE_LOG_EVENT: IgnorableBody,
    codes.ROWS_QUERY_LOG_EVENT: RowsQueryBody,
    codes.ANNOTATE_ROWS_EVENT: AnnotateRowsBody,
    codes.QUERY_COMPRESSED_EVENT: QueryCompressedBody,
}

"""The connection phase and the text protocol of the MySQL client/server protocol, declared
once: each declaration parses a packet's payload (the bytes after the 4-byte framing header of
:mod:`.framing`) and builds it back.

::

    HandshakeV10          server greeting: version text, connection id, scramble (8 + 12),
                          capability words, collation, status, auth plugin name
    SslRequest            the first 32 bytes of a HandshakeResponse41 (TLS starts after it)
    HandshakeResponse41   client reply: capabilities 4, max packet 4, collation 1, 19 reserved
                          bytes, MariaDB's extended capabilities 4, user, auth response,
                          [database], [plugin name], [connection attributes]
    AuthSwitchRequest     0xfe, plugin name, plugin data
    AuthMoreData          0x01, plugin data
    AuthResponse          a client's plugin data after its HandshakeResponse41 (the payload)
    ClearPassword         a password in clear, NUL-terminated
    OkPacket              0x00 (0xfe: the end of a result set with DEPRECATE_EOF), affected
                          rows, last insert id, status, warnings, info
    ErrPacket             0xff, error code, ['#' sql state 5], message
    EofPacket             0xfe, warnings, status
    ComQuery, ComPing, ComQuit
    ColumnCount           packed integer
    ColumnDefinition41    six length-prefixed names, [MariaDB's extended type info], 0x0c,
                          collation, length, type, flags, decimals, 2 zero bytes
    TextRow               one packed-length text per column (0xfb: NULL); the number of
                          columns is the ``columns`` context keyword

The binary protocol (server-side prepared statements)::

    ComStmtPrepare        0x16, the statement (``?`` for each parameter)
    StmtPrepareOk         0x00, statement id 4, columns 2, parameters 2, filler, warnings 2;
                          then a ColumnDefinition41 per parameter and per column (each list
                          ended by an EOF without DEPRECATE_EOF)
    ComStmtExecute        0x17, statement id 4, cursor flags 1, iteration count 4; with
                          parameters (the ``params`` context keyword): their null bitmap,
                          new-types flag, [type and flags per parameter], each value not NULL
                          in the binary form of its type (the types of an earlier execute:
                          the ``types`` context keyword)
    ComStmtClose, ComStmtReset   0x19 / 0x1a, statement id 4
    StatementHead         the command byte and statement id that every one of these starts with
    BinaryRow             0x00, null bitmap (2 bits reserved), each value not NULL in the
                          binary form of its column's type (the ``types`` context keyword)

Name tables: :data:`CAPABILITIES` (the 32 capability bits), :data:`STATUS_FLAGS`,
:data:`COMMANDS` (command bytes of every command of this package, the replication ones
included)."""

from __future__ import annotations

import construct as c
from construct import this

from ...construct_ext.names import NameTable
from ...format.facts.coltypes import TYPES
from ...construct_ext.primitives import (Bitmap, Bounded, ByteString, CStr, FlagList,
                                        GreedyList, If, PackedNumber, Raw, Rebuild, Switch, Text,
                                        TextN)

_M = __name__

CAPABILITY_BITS = {
    0x1: "LONG_PASSWORD",          # MariaDB: CLIENT_MYSQL (unset: MariaDB's extended caps)
    0x2: "FOUND_ROWS", 0x4: "LONG_FLAG", 0x8: "CONNECT_WITH_DB", 0x10: "NO_SCHEMA",
    0x20: "COMPRESS", 0x40: "ODBC", 0x80: "LOCAL_FILES", 0x100: "IGNORE_SPACE",
    0x200: "PROTOCOL_41", 0x400: "INTERACTIVE", 0x800: "SSL", 0x1000: "IGNORE_SIGPIPE",
    0x2000: "TRANSACTIONS", 0x4000: "RESERVED", 0x8000: "SECURE_CONNECTION",
    0x10000: "MULTI_STATEMENTS", 0x20000: "MULTI_RESULTS", 0x40000: "PS_MULTI_RESULTS",
    0x80000: "PLUGIN_AUTH", 0x100000: "CONNECT_ATTRS", 0x200000: "PLUGIN_AUTH_LENENC_CLIENT_DATA",
    0x400000: "CAN_HANDLE_EXPIRED_PASSWORDS", 0x800000: "SESSION_TRACK",
    0x1000000: "DEPRECATE_EOF", 0x2000000: "OPTIONAL_RESULTSET_METADATA",
    0x4000000: "ZSTD_COMPRESSION_ALGORITHM", 0x8000000: "QUERY_ATTRIBUTES",
    0x10000000: "MULTI_FACTOR_AUTHENTICATION", 0x20000000: "CAPABILITY_EXTENSION",
    0x40000000: "SSL_VERIFY_SERVER_CERT", 0x80000000: "REMEMBER_OPTIONS"}
CAPABILITIES = NameTable(_M, "CAPABILITIES", CAPABILITY_BITS)
"""The client/server capability bits (``CLIENT_*`` without the prefix)."""
CAPABILITIES_LOW = NameTable(_M, "CAPABILITIES_LOW",
                             {b: n for b, n in CAPABILITY_BITS.items() if b < 0x10000})
CAPABILITIES_HIGH = NameTable(_M, "CAPABILITIES_HIGH",
                              {b >> 16: n for b, n in CAPABILITY_BITS.items() if b >= 0x10000})
"""The handshake's two 2-byte capability words: their bits' names (the high word's shifted)."""

STATUS_FLAGS = NameTable(_M, "STATUS_FLAGS", {
    0x1: "IN_TRANS", 0x2: "AUTOCOMMIT", 0x8: "MORE_RESULTS_EXISTS", 0x10: "NO_GOOD_INDEX_USED",
    0x20: "NO_INDEX_USED", 0x40: "CURSOR_EXISTS", 0x80: "LAST_ROW_SENT", 0x100: "DB_DROPPED",
    0x200: "NO_BACKSLASH_ESCAPES", 0x400: "METADATA_CHANGED", 0x800: "QUERY_WAS_SLOW",
    0x1000: "PS_OUT_PARAMS", 0x2000: "IN_TRANS_READONLY", 0x4000: "SESSION_STATE_CHANGED"})
"""The server status bits (``SERVER_STATUS_*``, ``SERVER_*``) of OK and EOF packets."""

COMMANDS = NameTable(_M, "COMMANDS", {
    0x01: "COM_QUIT", 0x02: "COM_INIT_DB", 0x03: "COM_QUERY", 0x0e: "COM_PING",
    0x12: "COM_BINLOG_DUMP", 0x15: "COM_REGISTER_SLAVE", 0x16: "COM_STMT_PREPARE",
    0x17: "COM_STMT_EXECUTE", 0x18: "COM_STMT_SEND_LONG_DATA", 0x19: "COM_STMT_CLOSE",
    0x1a: "COM_STMT_RESET", 0x1e: "COM_BINLOG_DUMP_GTID"})
"""The first byte of a command packet."""
COM_QUIT = COMMANDS["COM_QUIT"]
COM_QUERY = COMMANDS["COM_QUERY"]
COM_PING = COMMANDS["COM_PING"]
COM_BINLOG_DUMP = COMMANDS["COM_BINLOG_DUMP"]
COM_REGISTER_SLAVE = COMMANDS["COM_REGISTER_SLAVE"]
COM_BINLOG_DUMP_GTID = COMMANDS["COM_BINLOG_DUMP_GTID"]
COM_STMT_PREPARE = COMMANDS["COM_STMT_PREPARE"]
COM_STMT_EXECUTE = COMMANDS["COM_STMT_EXECUTE"]
COM_STMT_CLOSE = COMMANDS["COM_STMT_CLOSE"]
COM_STMT_RESET = COMMANDS["COM_STMT_RESET"]

OK_HEADER, EOF_HEADER, ERR_HEADER, MORE_DATA_HEADER = 0x00, 0xfe, 0xff, 0x01
"""The first byte of OK, EOF (and auth switch), ERR and auth-more-data packets."""
SCRAMBLE_LENGTH = 20  # the nonce of mysql_native_password and caching_sha2_password


def _has(name: str, key: str = "capabilities"):
    """A context condition: capability ``name`` is among the field ``key``'s flags."""
    return lambda ctx: name in ctx[key]


_PLUGIN_AUTH = _has("PLUGIN_AUTH", "capabilities_high")

HandshakeV10 = c.Struct(
    "protocol_version" / c.Const(10, c.Int8ul),            # 1  10
    "server_version" / CStr,                               #    NUL-terminated
    "connection_id" / c.Int32ul,                           # 4
    "auth_data_1" / ByteString(8),                         # 8  scramble, first part
    c.Const(b"\x00"),                                      # 1  filler
    "capabilities_low" / FlagList(2, CAPABILITIES_LOW),    # 2  capability bits 0-15
    "collation" / c.Int8ul,                                # 1  server's default collation id
    "status" / FlagList(2, STATUS_FLAGS),                  # 2
    "capabilities_high" / FlagList(2, CAPABILITIES_HIGH),  # 2  capability bits 16-31
    "auth_data_length" / Rebuild(c.Int8ul, lambda ctx: (     # 1  8 + part 2 (0: no plugin)
        8 + len(ctx.auth_data_2 or b"")) if _PLUGIN_AUTH(ctx) else 0),
    "reserved" / ByteString(6),                            # 6  zeros
    "extended_capabilities" / c.Int32ul,                   # 4  MariaDB's (MySQL: zeros)
    "auth_data_2" / If(_has("SECURE_CONNECTION", "capabilities_low"),
                       c.Bytes(lambda ctx: max(13, ctx.auth_data_length - 8))),
    "auth_plugin" / If(_PLUGIN_AUTH, CStr),                #    NUL-terminated
)
"""The server's greeting (Protocol::HandshakeV10). The scramble is ``auth_data_1`` and the
first 12 bytes of ``auth_data_2`` (which ends with a NUL)."""

_RESPONSE_HEAD = (
    "capabilities" / FlagList(4, CAPABILITIES),            # 4
    "max_packet_size" / c.Int32ul,                         # 4
    "collation" / c.Int8ul,                                # 1
    "reserved" / ByteString(19),                           # 19 zeros
    "extended_capabilities" / c.Int32ul,                   # 4  MariaDB's (MySQL: zeros)
)

SslRequest = c.Struct(*_RESPONSE_HEAD)
"""The client's request for TLS: a HandshakeResponse41 cut after its fixed part (SSL set)."""

HandshakeResponse41 = c.Struct(
    *_RESPONSE_HEAD,
    "user" / CStr,                                         #    NUL-terminated
    "auth_response" / If(                                  #    the password's scramble
        _has("PLUGIN_AUTH_LENENC_CLIENT_DATA"), Bounded(Raw),
        If(_has("SECURE_CONNECTION"), Bounded(Raw, packed=False), CStr)),
    "database" / If(_has("CONNECT_WITH_DB"), CStr),
    "auth_plugin" / If(_has("PLUGIN_AUTH"), CStr),
    "attributes" / If(_has("CONNECT_ATTRS"), Bounded(GreedyList(c.Struct(
        "key" / Bounded(Text), "value" / Bounded(Text))))),
)
"""The client's reply to the greeting (Protocol::HandshakeResponse41)."""

AuthSwitchRequest = c.Struct(
    c.Const(EOF_HEADER, c.Int8ul),                         # 1  0xfe
    "auth_plugin" / CStr,
    "auth_data" / Raw,                                     #    (a scramble: 20 bytes + NUL)
)
"""The server asks the client to authenticate again with another plugin."""

AuthMoreData = c.Struct(c.Const(MORE_DATA_HEADER, c.Int8ul), "auth_data" / Raw)
"""More data of the auth plugin (caching_sha2_password: 3 fast auth ok, 4 full auth, or the
server's RSA public key, PEM)."""

AuthResponse = c.Struct("auth_data" / Raw)
"""A client's packet of auth plugin data after its HandshakeResponse41 (the reply to an
AuthSwitchRequest or to AuthMoreData): the whole payload. caching_sha2_password: 0x02 (asks
for the server's RSA public key), the RSA-encrypted password, or a ClearPassword over TLS."""

ClearPassword = c.Struct("password" / c.NullTerminated(c.GreedyBytes))
"""A password in clear, NUL-terminated, as bytes (caching_sha2_password's full authentication
over TLS; also the plaintext of its RSA message once XORed with the nonce)."""

OkPacket = c.Struct(
    "header" / c.OneOf(c.Int8ul, (OK_HEADER, EOF_HEADER)),  # 1  0x00 (0xfe ends a result set)
    "affected_rows" / PackedNumber,
    "last_insert_id" / PackedNumber,
    "status" / FlagList(2, STATUS_FLAGS),                  # 2
    "warnings" / c.Int16ul,                                # 2
    "info" / Text,                                         #    to the end
)
"""OK_Packet (and, header 0xfe, the end of a result set when DEPRECATE_EOF is agreed)."""

ErrPacket = c.Struct(
    c.Const(ERR_HEADER, c.Int8ul),                         # 1  0xff
    "error_code" / c.Int16ul,                              # 2
    "sql_state" / c.Optional(c.FocusedSeq(                 # 6  '#' and 5 characters
        "state", c.Const(b"#"), "state" / TextN(5))),
    "message" / Text,                                      #    to the end
)
"""ERR_Packet."""

EofPacket = c.Struct(
    c.Const(EOF_HEADER, c.Int8ul),                         # 1  0xfe
    "warnings" / c.Int16ul,                                # 2
    "status" / FlagList(2, STATUS_FLAGS),                  # 2
)
"""EOF_Packet (between column definitions and rows, and after the rows, for clients without
DEPRECATE_EOF)."""

ComQuery = c.Struct(c.Const(COM_QUERY, c.Int8ul), "query" / Text)
ComPing = c.Struct(c.Const(COM_PING, c.Int8ul))
ComQuit = c.Struct(c.Const(COM_QUIT, c.Int8ul))

ColumnCount = c.Struct("count" / PackedNumber)
"""The first packet of a text result set: its number of columns."""

ColumnDefinition41 = c.Struct(
    "catalog" / Bounded(Text),                             #    "def"
    "schema" / Bounded(Text),
    "table" / Bounded(Text),
    "org_table" / Bounded(Text),
    "name" / Bounded(Text),
    "org_name" / Bounded(Text),
    "extended" / If(lambda ctx: ctx._params.get("extended_metadata"),    # MariaDB's type
                    Bounded(Raw), optional=True),          #    info (format, ...): packed
    c.Const(b"\x0c"),                                      # 1  length of the fixed fields
    "collation" / c.Int16ul,                               # 2
    "column_length" / c.Int32ul,                           # 4
    "type" / c.Int8ul,                                     # 1  enum_field_types
    "flags" / c.Int16ul,                                   # 2
    "decimals" / c.Int8ul,                                 # 1
    c.Const(b"\x00\x00"),                                  # 2  filler
)
"""Protocol::ColumnDefinition41. With MariaDB's MARIADB_CLIENT_EXTENDED_METADATA agreed (the
``extended_metadata`` context keyword), a packed-length block of extended type info follows
the names (serve never agrees to it: ``extended`` is None)."""

_NULL_VALUE = c.ExprAdapter(c.Const(b"\xfb"), lambda obj, ctx: None,
                            lambda obj, ctx: b"\xfb" if obj is None else b"")
"""0xfb, a NULL value of a text row (refuses to build anything but None)."""

TextRow = c.Struct(
    "values" / c.Array(this._params.columns, c.Select(_NULL_VALUE, Bounded(Text))),
)
"""ProtocolText::ResultsetRow: one length-prefixed text per column (None: 0xfb); the number
of columns is the ``columns`` context keyword."""

# ------------------------------------------------------------------ the binary protocol

ComStmtPrepare = c.Struct(c.Const(COM_STMT_PREPARE, c.Int8ul), "query" / Text)

StmtPrepareOk = c.Struct(
    c.Const(OK_HEADER, c.Int8ul),                          # 1  0x00
    "statement_id" / c.Int32ul,                            # 4
    "columns" / c.Int16ul,                                 # 2  columns of its result set
    "params" / c.Int16ul,                                  # 2  its ? parameters
    c.Const(b"\x00"),                                      # 1  filler
    "warnings" / c.Int16ul,                                # 2
)
"""COM_STMT_PREPARE_OK; the definitions of the parameters, then of the columns, follow."""

# the binary form of a value, by its enum_field_types code (the types not listed: a
# length-prefixed string of bytes, as DECIMAL, the strings, BLOBs, JSON, BIT, GEOMETRY)
INTEGER_BITS = {TYPES["TINY"]: 8, TYPES["SHORT"]: 16, TYPES["YEAR"]: 16, TYPES["LONG"]: 32,
                TYPES["INT24"]: 32, TYPES["LONGLONG"]: 64}
"""The bits of each integer type's binary value."""
_FIXED = {**{t: c.BytesInteger(bits // 8, swapped=True) for t, bits in INTEGER_BITS.items()},
          TYPES["FLOAT"]: c.Float32l, TYPES["DOUBLE"]: c.Float64l, TYPES["NULL"]: c.Pass}
TEMPORAL = frozenset(TYPES[n] for n in ("TIMESTAMP", "DATE", "TIME", "DATETIME"))
"""The types whose binary value is a length byte (0, 4, 7, 8, 11, 12) and the fields."""
_TEMPORAL = dict.fromkeys(TEMPORAL, Bounded(Raw, packed=False))
TYPE_NULL = TYPES["NULL"]


def _binary_value(kind):
    """A value in the binary form of the type ``kind(ctx)`` (integers as their unsigned bits:
    the parameter's flags say the sign)."""
    return Switch(kind, {**_FIXED, **_TEMPORAL}, default=Bounded(Raw))


def _param_type(ctx):   # (an Array's items see the Struct's context, _index set)
    types = ctx.types if ctx.types_bound else ctx._params.types
    return types[ctx._index]["type"]


ComStmtExecute = c.Struct(
    c.Const(COM_STMT_EXECUTE, c.Int8ul),                   # 1  0x17
    "statement_id" / c.Int32ul,                            # 4
    "flags" / c.Int8ul,                                    # 1  cursor type (0: none)
    "iteration_count" / c.Int32ul,                         # 4  1
    "null_bitmap" / If(this._params.params > 0,            #    a bit per parameter
                       Bitmap(this._params.params)),
    "types_bound" / If(this._params.params > 0, c.Int8ul),     # 1: types follow
    "types" / If(this.types_bound == 1, c.Array(this._params.params, c.Struct(
        "type" / c.Int8ul,                                 # 1  enum_field_types
        "flags" / c.Int8ul))),                             # 1  0x80: unsigned
    "values" / If(this._params.params > 0, c.Array(this._params.params, If(
        lambda ctx: not ctx.null_bitmap[ctx._index], _binary_value(_param_type)))),
)
"""COM_STMT_EXECUTE. ``values``: one per parameter (None for a NULL one: its bit is set).
Context keywords: ``params`` (the statement's number of parameters), ``types`` (the types an
earlier execute of it bound, for one that binds none)."""

StatementHead = c.Struct("command" / c.Int8ul, "statement_id" / c.Int32ul)
"""The first 5 bytes of every command on a prepared statement (COM_STMT_EXECUTE, _CLOSE,
_RESET, _SEND_LONG_DATA): a server reads them to know which statement (and so how many
parameters) the rest is about. A statement id of 0xffffffff is MariaDB's "the last one
prepared"."""
LAST_PREPARED = 0xFFFFFFFF

ComStmtClose = c.Struct(c.Const(COM_STMT_CLOSE, c.Int8ul), "statement_id" / c.Int32ul)
ComStmtReset = c.Struct(c.Const(COM_STMT_RESET, c.Int8ul), "statement_id" / c.Int32ul)

BinaryRow = c.Struct(
    c.Const(OK_HEADER, c.Int8ul),                          # 1  0x00
    "null_bitmap" / Rebuild(Bitmap(this._params.columns + 2), lambda ctx: [
        False, False] + [v is None for v in ctx["values"]]),   # (2 reserved bits first)
    "values" / c.Array(this._params.columns, If(
        lambda ctx: not ctx.null_bitmap[ctx._index + 2],
        _binary_value(lambda ctx: ctx._params.types[ctx._index]))),
)
"""ProtocolBinary::ResultsetRow: ``values`` one per column (None: NULL). Context keywords:
``columns``, ``types`` (each column's enum_field_types code)."""

__all__ = ["AuthMoreData", "AuthResponse", "AuthSwitchRequest", "CAPABILITIES",
           "ClearPassword", "ColumnCount", "ColumnDefinition41", "ComPing", "ComQuery",
           "ComQuit", "COMMANDS", "EofPacket", "ErrPacket", "HandshakeResponse41",
           "HandshakeV10", "OkPacket", "SslRequest", "STATUS_FLAGS", "TextRow",
           "ComStmtPrepare", "StmtPrepareOk", "ComStmtExecute", "ComStmtClose",
           "ComStmtReset", "BinaryRow", "StatementHead"]

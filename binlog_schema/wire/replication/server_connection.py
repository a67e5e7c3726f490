"""One client's conversation with ``binlog-schema serve`` (:class:`.server.BinlogServer`):
:class:`Connection` reads and writes its packets (the sequence, OK, ERR, text and binary result
sets), runs its connection phase (:mod:`.server_auth`), then its commands: COM_PING,
COM_QUERY (the answers of :mod:`.server_sql`), COM_REGISTER_SLAVE, the prepared statements
(COM_STMT_PREPARE, COM_STMT_EXECUTE, COM_STMT_CLOSE, COM_STMT_RESET), and a dump
(COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID: :mod:`.server_dump`), which ends the conversation; a
``KILL`` from another connection reaches it here.

Every packet goes through a declaration (:mod:`binlog_schema.wire.protocol.connection`,
:mod:`binlog_schema.wire.protocol.replication`, framing by
:mod:`binlog_schema.wire.protocol.framing`)."""

from __future__ import annotations

import socket

from ...format.errors import BinlogError
from ..protocol import connection as conn
from . import server_auth, server_dump, server_sql
from .server_auth import COLLATION_UTF8MB4, VERSIONS, PeerGone, parse_packet

ER_UNKNOWN_COM = 1047
ER_UNKNOWN_STMT_HANDLER = 1243
COLLATION_BINARY = 63
FLAGS_NUMBER = 0x1 | 0x20 | 0x80   # NOT_NULL, UNSIGNED, BINARY (a ColumnDefinition's flags)


class Connection:
    """One client: its socket, the packet sequence, the agreed capabilities, its session;
    ``killed``: None, or how another connection's KILL ended it (``"query"``: its dump ends
    with ERR 1317, ``"connection"``: its socket is shut). ``server``: the
    :class:`.server.BinlogServer` it came to."""

    def __init__(self, sock: socket.socket, server, conn_id: int):
        from ..protocol import framing
        self.framing = framing
        self.sock = sock
        self.reader = sock.makefile("rb")
        self.writer = sock.makefile("wb")
        self.server = server
        self.config = server.config
        self.conn_id = conn_id
        self.seq = 0
        self.capabilities: set = set()
        self.attributes: dict = {}   # the client's connection attributes (_pid, ...)
        self.killed: str | None = None
        self.streamer = None         # its dump, once one is under way
        self.statements: dict = {}   # its prepared statements: id -> server_sql.Prepared
        self.last_statement = 0
        self.session = server_sql.Session(server.folder, self.config.server_id,
                                          VERSIONS[self.config.flavor].removeprefix("5.5.5-"),
                                          semi_sync=self.config.semi_sync,
                                          flavor=self.config.flavor, conn_id=conn_id,
                                          host=self)

    # ------------------------------------------------------------------ other connections

    def kill(self, conn_id: int, query_only: bool) -> bool:
        """``KILL [QUERY] conn_id`` (server_sql's host side): False for no such connection."""
        return self.server.kill(conn_id, query_only)

    def columns(self, session, database: str, table: str, names: list):
        """The INFORMATION_SCHEMA.COLUMNS answer (server_sql's host side)."""
        return self.server.schema.columns(self, database, table, names)

    def shut(self) -> None:
        """Shut the socket both ways (from another thread: a KILL): the reads and writes
        under way end."""
        try:
            socket.socket.shutdown(self.sock, socket.SHUT_RDWR)   # (a TLS socket's too,
            # without its TLS close-notify, which would race with its own thread)
        except OSError:
            pass

    # ------------------------------------------------------------------ packets

    def read(self, reader=None) -> bytes:
        try:
            seq, payload = self.framing.read_packet(reader or self.reader)
        except (BinlogError, OSError, EOFError) as e:
            raise PeerGone(str(e)) from None
        if payload is None:
            raise PeerGone("closed")
        self.seq = (seq + 1) & 0xFF
        return payload

    def send(self, decl, value, flush: bool = True, **context):
        self.send_raw(decl.build(value, **context), flush)

    def send_raw(self, payload: bytes, flush: bool = True):
        try:
            self.seq = self.framing.write_packet(self.writer, payload, self.seq)
            if flush:
                self.writer.flush()
        except OSError as e:
            raise PeerGone(str(e)) from None

    def ok(self, info: str = ""):
        self.send(conn.OkPacket, {"header": conn.OK_HEADER, "affected_rows": 0,
                                  "last_insert_id": 0, "status": ["AUTOCOMMIT"],
                                  "warnings": 0, "info": info})

    def err(self, code: int, message: str, state: str = "HY000"):
        self.send(conn.ErrPacket, {"error_code": code, "sql_state": state,
                                   "message": message})

    def result(self, result: server_sql.Result):
        eof = "DEPRECATE_EOF" not in self.capabilities
        n = len(result.columns)
        self.send(conn.ColumnCount, {"count": n}, flush=False)
        self.column_definitions(result)
        if eof:
            self.send(conn.EofPacket, {"warnings": 0, "status": ["AUTOCOMMIT"]}, flush=False)
        for row in result.rows:
            self.send(conn.TextRow, {"values": list(row)}, flush=False, columns=n)
        self.end_of_rows(eof)

    def end_of_rows(self, eof: bool) -> None:
        """A result set's last packet: EOF, or the OK packet that replaces it when the client
        asked for CLIENT_DEPRECATE_EOF (``eof`` False)."""
        if eof:
            self.send(conn.EofPacket, {"warnings": 0, "status": ["AUTOCOMMIT"]})
        else:
            self.send(conn.OkPacket, {"header": conn.EOF_HEADER, "affected_rows": 0,
                                      "last_insert_id": 0, "status": ["AUTOCOMMIT"],
                                      "warnings": 0, "info": ""})

    def column_definitions(self, result: server_sql.Result) -> None:
        """The ColumnDefinition41 packets of ``result``'s columns (a text of up to 1024
        characters, or a BIGINT)."""
        for name, kind in zip(result.columns, result.column_types()):
            number = kind == server_sql.TYPE_LONGLONG
            self.send(conn.ColumnDefinition41, {
                "catalog": "def", "schema": result.schema, "table": result.table,
                "org_table": result.table, "name": name, "org_name": name if result.table
                else "", "collation": COLLATION_BINARY if number else COLLATION_UTF8MB4,
                "column_length": 21 if number else 1024, "type": kind,
                "flags": FLAGS_NUMBER if number else 0, "decimals": 0 if number else 0x27},
                flush=False)

    # ------------------------------------------------------------------ phases

    def run(self):
        if not self.handshake():
            return
        while True:
            self.seq = 0
            payload = self.read()
            if not payload:
                raise PeerGone("empty command packet")
            command = payload[0]
            if command == conn.COM_QUIT:
                return
            if command == conn.COM_PING:
                self.ok()
            elif command == conn.COM_QUERY:
                self.query(parse_packet(conn.ComQuery, payload).query)
            elif command == conn.COM_REGISTER_SLAVE:
                from ..protocol import replication
                parse_packet(replication.ComRegisterSlave, payload)
                self.ok()
            elif command in (conn.COM_BINLOG_DUMP, conn.COM_BINLOG_DUMP_GTID):
                self.dump(payload)
                return
            elif command == conn.COM_STMT_PREPARE:
                self.prepare(parse_packet(conn.ComStmtPrepare, payload).query)
            elif command in (conn.COM_STMT_EXECUTE, conn.COM_STMT_CLOSE, conn.COM_STMT_RESET):
                self.statement(command, payload)
            else:
                self.err(ER_UNKNOWN_COM, f"Unknown command {conn.COMMANDS.get(command, command)}",
                         "08S01")

    def handshake(self) -> bool:
        return server_auth.handshake(self)

    # ------------------------------------------------------------------ prepared statements

    def prepare(self, sql: str):
        """COM_STMT_PREPARE: COM_STMT_PREPARE_OK, the parameters' and the columns'
        definitions (an ERR for a statement not answered)."""
        got = server_sql.prepare(self.session, sql)
        if isinstance(got, server_sql.Err):
            self.err(got.code, got.message, got.state)
            return
        self.last_statement += 1
        self.statements[self.last_statement] = got
        self.send(conn.StmtPrepareOk, {"statement_id": self.last_statement,
                                       "columns": len(got.columns), "params": got.params,
                                       "warnings": 0}, flush=False)
        eof = "DEPRECATE_EOF" not in self.capabilities
        for _ in range(got.params):   # (as MariaDB: a parameter's type is not known yet)
            self.send(conn.ColumnDefinition41, {
                "catalog": "def", "schema": "", "table": "", "org_table": "", "name": "?",
                "org_name": "", "collation": COLLATION_BINARY, "column_length": 0,
                "type": conn.TYPE_NULL, "flags": 0x80, "decimals": 0}, flush=False)
        if got.params and eof:
            self.send(conn.EofPacket, {"warnings": 0, "status": ["AUTOCOMMIT"]}, flush=False)
        if got.columns:
            self.column_definitions(server_sql.Result(got.columns, [], got.types))
            if eof:
                self.send(conn.EofPacket, {"warnings": 0, "status": ["AUTOCOMMIT"]},
                          flush=False)
        self.writer.flush()

    def statement(self, command: int, payload: bytes):
        """COM_STMT_EXECUTE (a binary result set, an OK or an ERR), COM_STMT_CLOSE (no
        answer), COM_STMT_RESET (OK) of a prepared statement."""
        sid = parse_packet(conn.StatementHead, payload).statement_id
        if sid == conn.LAST_PREPARED:
            sid = self.last_statement
        stmt = self.statements.get(sid)
        if command == conn.COM_STMT_CLOSE:
            self.statements.pop(sid, None)
            return
        if stmt is None:
            self.err(ER_UNKNOWN_STMT_HANDLER, f"Unknown prepared statement handler ({sid}) "
                     "given to mysqld_stmt_execute")
            return
        if command == conn.COM_STMT_RESET:
            self.ok()
            return
        req = parse_packet(conn.ComStmtExecute, payload, params=stmt.params, types=stmt.bound)
        if stmt.params and req.types_bound:
            stmt.bound = [dict(t) for t in req.types]
        try:
            values = [_param_value(v, t) for v, t in zip(req["values"] or [], stmt.bound or [])]
        except ValueError as e:
            self.err(server_sql.ER_UNKNOWN_QUERY, f"binlog-schema serve: {e}", "42000")
            return
        self.reply(server_sql.answer(self.session, server_sql.bind(stmt.sql, values)),
                   self.binary_result)

    def binary_result(self, result: server_sql.Result):
        """A result set of the binary protocol (rows as BinaryRow)."""
        eof = "DEPRECATE_EOF" not in self.capabilities
        n = len(result.columns)
        types = result.column_types()
        self.send(conn.ColumnCount, {"count": n}, flush=False)
        self.column_definitions(result)
        if eof:
            self.send(conn.EofPacket, {"warnings": 0, "status": ["AUTOCOMMIT"]}, flush=False)
        for row in result.rows:
            self.send(conn.BinaryRow, {"values": [
                None if v is None else int(v) if kind == server_sql.TYPE_LONGLONG else
                str(v).encode("utf-8") for v, kind in zip(row, types)]}, flush=False,
                columns=n, types=types)
        self.end_of_rows(eof)

    def query(self, sql: str):
        self.reply(server_sql.answer(self.session, sql), self.result)

    def reply(self, answer, result):
        """Send ``answer`` (server_sql's Result, Ok or error): a Result through ``result``
        (text or binary rows)."""
        if isinstance(answer, server_sql.Result):
            result(answer)
        elif isinstance(answer, server_sql.Ok):
            self.ok(answer.info)
        else:
            self.err(answer.code, answer.message, answer.state)

    # ------------------------------------------------------------------ the dump

    def dump(self, payload: bytes):
        """COM_BINLOG_DUMP or COM_BINLOG_DUMP_GTID: the dump (:func:`.server_dump.dump`),
        the last thing this connection does."""
        server_dump.dump(self, payload)


def _param_value(value, bound: dict):
    """A parameter's Python value from its binary form and bound type: text (strings as
    UTF-8), a number (integers signed unless the type's flags say unsigned), None.
    ValueError for the types not taken (temporal values)."""
    kind = bound["type"]
    if value is None or kind == conn.TYPE_NULL:
        return None
    if kind in conn.INTEGER_BITS:
        bits = conn.INTEGER_BITS[kind]
        if not bound["flags"] & 0x80 and value >= 1 << (bits - 1):
            value -= 1 << bits
        return value
    if isinstance(value, float):
        return value
    if kind in conn.TEMPORAL:
        raise ValueError(f"a parameter of type {kind} (a date or time) is not taken")
    return bytes(value).decode("utf-8", "surrogateescape")

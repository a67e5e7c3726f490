"""A replication master made of binlog files: :class:`BinlogServer` listens on a TCP port,
greets each client (HandshakeV10; TLS on request; mysql_native_password, or
caching_sha2_password with a cache, its fast path and full authentication: :mod:`.server_auth`),
answers the SQL replicas send at connect (:mod:`.server_sql`), registers replicas and streams
the binlog files of a folder (:mod:`.server_files`) as a real master does:

* a dump from ``file``/``position``: a fake ROTATE (ARTIFICIAL flag, log_pos 0) naming the file
  and position, the file's FORMAT_DESCRIPTION (its BINLOG_IN_USE flag cleared; with log_pos 0
  and no creation time when the dump starts past it), then the events from the position;
* a MariaDB GTID dump (``SET @slave_connect_state=...`` and an empty file name): from the
  GTID event of the first transaction the state does not hold (empty state: the first file),
  with a fake GTID_LIST holding the state after the FORMAT_DESCRIPTION (an ERR when the
  first file's GTID_LIST is past the state's seq_no in a domain: purged);
* a dump from a position past the file's end: an ERR, as a real master;
* to a semi-sync replica (``SET @rpl_semi_sync_slave=1``), each packet with the semi-sync
  header; with ``semi_sync`` (serve --semi-sync) the last event of each transaction asks for
  an ack, and the replica's acks are read and counted (:attr:`BinlogServer.semi_sync_counts`);
* a MySQL GTID dump (COM_BINLOG_DUMP_GTID with the replica's executed GTID set): from the
  last file whose PREVIOUS_GTIDS the set covers, the transactions in the set left out (an ERR
  when even the first file's PREVIOUS_GTIDS holds GTIDs the set lacks: purged);
* the next file after a file's end (a fake ROTATE to it when the file has no ROTATE of its
  own), again with a fake ROTATE and its FORMAT_DESCRIPTION: the folder's next file, which a
  ROTATE must agree with (:meth:`.server_files.BinlogFolder.after`: never a file twice, never
  one skipped; an ERR instead of a ROTATE that disagrees); a ROTATE to a file not there yet
  after the last waits for it; at the end of the last file, the
  server follows it as it grows and waits for new files, sending HEARTBEAT_LOG_EVENTs at the
  period the replica set (``@master_heartbeat_period``, nanoseconds); with
  BINLOG_DUMP_NON_BLOCK an EOF packet ends the dump there.

Every packet goes through a declaration (:mod:`binlog_schema.wire.protocol.connection`,
:mod:`binlog_schema.wire.protocol.replication`, framing by
:mod:`binlog_schema.wire.protocol.framing`);
artificial events are built by the envelope's declaration with the files' checksum setting.
Files are read event by event through the one header scanner (:class:`~binlog_schema.
scanning.Blocks`), in constant memory. One thread per client: a client that misbehaves or
goes away ends its own thread only."""

from __future__ import annotations

import dataclasses
import io
import logging
import os
import select
import socket
import socketserver
import ssl
import threading
import time

from ...format.context import Context
from ...format.event_codec import build_event, parse_event
from ...format.errors import BinlogError
from ...format.facts import codes
from ...format.facts.flavor import context_from_fde
from ..protocol import auth, connection as conn
from ..protocol.replication import BINLOG_DUMP_NON_BLOCK, BINLOG_SEND_ANNOTATE_ROWS
from ...format.scanning import Blocks
from ...format.stream import MAX_EVENT_SIZE
from . import server_auth, server_sql
from .server_auth import COLLATION_UTF8MB4, VERSIONS, PeerGone, parse_packet
from .server_files import BinlogFolder, parse_gtid_state
from .server_schema import ServedSchema

log = logging.getLogger(__name__)

ER_MASTER_FATAL_READING_BINLOG = 1236
ER_QUERY_INTERRUPTED = 1317
ER_UNKNOWN_COM = 1047
ER_UNKNOWN_STMT_HANDLER = 1243
ER_MALFORMED_PACKET = 1835
POLL = 0.1   # seconds between looks at a file that does not grow
# the events of a file, not of a transaction: sent even when a MySQL GTID dump skips the
# transaction around them
FILE_KINDS = frozenset({codes.ROTATE_EVENT, codes.FORMAT_DESCRIPTION_EVENT,
                        codes.PREVIOUS_GTIDS_LOG_EVENT, codes.STOP_EVENT})
COLLATION_BINARY = 63
FLAGS_NUMBER = 0x1 | 0x20 | 0x80   # NOT_NULL, UNSIGNED, BINARY (a ColumnDefinition's flags)


@dataclasses.dataclass
class ServerConfig:
    folder: str
    user: str | None = None
    password: bytes = b""
    server_id: int = 1
    flavor: str = "mariadb"
    heartbeat: float | None = None   # seconds; None: the replica's own period
    auth: str = auth.NATIVE          # or auth.CACHING_SHA2
    semi_sync: bool = False          # rpl_semi_sync_master_enabled: acks asked for
    ssl_cert: str | None = None      # PEM files: TLS offered (the SSL capability) when given
    ssl_key: str | None = None
    require_ssl: bool = False        # refuse clients that do not start TLS
    rsa_key: str | None = None       # PEM RSA private key (caching_sha2_password full auth
    #                                  over plain TCP; default: one generated per process)
    schema_files: tuple = ()         # the schema before the files (mysqldump --no-data, SHOW
    #                                  CREATE TABLE output): INFORMATION_SCHEMA answers


class Interrupted(Exception):
    """A dump ended by ``KILL QUERY`` from another connection."""


class Connection:
    """One client: its socket, the packet sequence, the agreed capabilities, its session;
    ``killed``: None, or how another connection's KILL ended it (``"query"``: its dump ends
    with ERR 1317, ``"connection"``: its socket is shut)."""

    def __init__(self, sock: socket.socket, server: BinlogServer, conn_id: int):
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
        if eof:
            self.send(conn.EofPacket, {"warnings": 0, "status": ["AUTOCOMMIT"]})
        else:
            self.send(conn.OkPacket, {"header": conn.EOF_HEADER, "affected_rows": 0,
                                      "last_insert_id": 0, "status": ["AUTOCOMMIT"],
                                      "warnings": 0, "info": ""})

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
        from ..protocol import replication
        gtid_mode, executed = False, None
        if payload[0] == conn.COM_BINLOG_DUMP:
            req = parse_packet(replication.ComBinlogDump, payload)
        else:
            req = parse_packet(replication.ComBinlogDumpGtid, payload)
            if req.gtid_set is not None:
                from ...changes.selection import GtidSet
                executed = GtidSet.from_encoded(req.gtid_set)
        name, position, flags = req.file, req.position, req.flags
        name = name.decode("utf-8", "replace") if isinstance(name, bytes) else name
        name = (name or "").split("\0", 1)[0]   # (a C string to the server: NULs end it)
        state = self.session.user_vars.get("slave_connect_state")
        folder = self.server.folder
        if executed is not None:   # MySQL: from the file whose PREVIOUS_GTIDS the set covers
            if not folder.names():
                self.err(ER_MASTER_FATAL_READING_BINLOG, "no binlog files to serve")
                return
            name, position = folder.mysql_start(executed), 4
            if name is None:
                self.err(ER_MASTER_FATAL_READING_BINLOG, "Cannot replicate because the master "
                         "purged required binary logs. The GTID set sent by the slave "
                         f"({executed.text or 'empty'}) lacks transactions of "
                         f"{folder.names()[0]}'s earlier files (its PREVIOUS_GTIDS: "
                         f"{folder.previous_gtids(folder.names()[0]).text}), which are not "
                         "served")
                return
        elif not name and state is not None:
            gtid_mode = True
            purged = folder.purged(parse_gtid_state(state))
            if purged:
                self.err(ER_MASTER_FATAL_READING_BINLOG, "Could not find GTID state requested "
                         "by slave in any binlog files. Probably the slave state is too old "
                         "and required binlog files have been purged. (" + ", ".join(
                             f"domain {d}: the slave has seq_no {have}, the first file served, "
                             f"{folder.names()[0]}, starts after {first}"
                             for d, (have, first) in purged.items()) + ")")
                return
            start = folder.start_after(parse_gtid_state(state))
            if start is None:
                self.err(ER_MASTER_FATAL_READING_BINLOG, "no binlog files to serve")
                return
            name, position = start
        elif not name:
            names = folder.names()
            if not names:
                self.err(ER_MASTER_FATAL_READING_BINLOG, "no binlog files to serve")
                return
            name = names[0]
        if not folder.exists(name):
            self.err(ER_MASTER_FATAL_READING_BINLOG,
                     f"Could not find first log file name in binary log index file "
                     f"(no file {name!r} in the served folder)")
            return
        if position > folder.size(name):   # (as a real master: never an empty dump)
            self.err(ER_MASTER_FATAL_READING_BINLOG, "Client requested master to start "
                     f"replication from position > file size ({name} is "
                     f"{folder.size(name)} bytes, the position {position})")
            return
        if folder.description(name)["checksum"] and \
                self.session.user_vars.get("master_binlog_checksum") is None:
            self.err(ER_MASTER_FATAL_READING_BINLOG, "Slave can not handle replication events "
                     "with the checksum that master is configured to log")
            return
        streamer = Streamer(self, name, max(position, 4), flags, gtid_mode,
                            parse_gtid_state(state) if gtid_mode else None, executed)
        streamer.replica = req.server_id
        self.streamer = streamer
        self.server.dumping(streamer, True)   # (serve's metrics: the dumps under way)
        try:
            streamer.run()
        except Interrupted:   # (KILL QUERY: as a MariaDB master, the dump ends, then the
            # connection)
            self.err(ER_QUERY_INTERRUPTED, "Query execution was interrupted", "70100")
        finally:
            self.server.dumping(streamer, False)
            self.server.schema.ended(streamer.sent)


class Streamer:
    """One dump: the files from a position, as the network stream (0x00 + event)."""

    def __init__(self, client: Connection, name: str, position: int, flags: int,
                 gtid_mode: bool, state: dict | None, executed=None):
        from ...format import compiled
        self.build_packet = compiled.unit("stream_packet.build")["build"]   # (the
        # declaration's, compiled: once per event)
        self.client = client
        self.folder = client.server.folder
        self.server_id = client.config.server_id
        self.name, self.position, self.flags = name, position, flags
        self.gtid_mode, self.state = gtid_mode, state
        self.executed = executed   # MySQL GTID dump: the replica's set (its transactions
        self.skipping = False      # are not sent); skipping: inside one of them
        # a semi-sync replica (it set @rpl_semi_sync_slave): each packet carries the 0xef
        # header; with serve --semi-sync, a transaction's last event asks for an ack
        self.semi = (client.session.user_vars.get("rpl_semi_sync_slave") or "0") not in (
            "0", "")
        self.asking = self.semi and client.config.semi_sync
        self.this = {"_params": {"semi_sync": self.semi}}
        self.served: list = []   # the files of this dump, in order (none is served twice)
        self.boundary = None       # (changes/transactions.py's rule, for the acks asked for)
        self.inbox = bytearray()   # (a semi-sync replica's acks, as they arrive)
        period = client.config.heartbeat
        if period is None:
            ns = client.session.user_vars.get("master_heartbeat_period")
            period = int(float(ns)) / 1e9 if ns not in (None, "") else 0
        self.period = period
        self.last_sent = time.monotonic()
        self.ctx = Context(checksum=False)
        self.sent = client.server.schema.sent(client)   # (the TABLE_MAPs a question about a
        # table's columns may refer to: server_schema)
        self.replica = None              # the replica's server id (its dump command's)
        self.events = self.bytes = 0     # the files' events sent

    def send_event(self, raw: bytes, flush: bool = True, kind: int | None = None):
        """One event to the replica (``kind``: a file's event, which may end a transaction
        and so, to a semi-sync replica, ask for an ack)."""
        buf = io.BytesIO()
        if self.semi:
            ack = self.asking and kind is not None and self.ends_transaction(kind, raw)
            self.build_packet({"semi_sync": {"ack_wanted": int(ack)}, "event": raw}, buf,
                              self.this)
            self.client.send_raw(buf.getvalue(), flush)
            if ack:
                self.client.server.semi_sync_counts["asked"] += 1
                self.take_acks(0)
        else:
            self.build_packet({"semi_sync": None, "event": raw}, buf, self.this)
            self.client.send_raw(buf.getvalue(), flush)
        self.last_sent = time.monotonic()
        if kind is not None:
            self.events += 1
            self.bytes += len(raw)

    def ends_transaction(self, kind: int, raw: bytes) -> bool:
        """Whether a file's event ends a transaction (the one a semi-sync master asks an ack
        for), by the one boundary rule (changes/transactions.py's :class:`Boundary`): an XID or
        XA_PREPARE, a COMMIT or ROLLBACK, a DDL statement (after a GTID without BEGIN, or
        outside any transaction)."""
        from ...changes.transactions import ALONE, BOUNDARY_KINDS, CLOSES, Boundary
        from ...format.stream import EventRecord
        if kind not in BOUNDARY_KINDS:
            return False
        if self.boundary is None:
            self.boundary = Boundary()
        return self.boundary.feed(EventRecord(0, raw, self.ctx, lazy=True)) in (CLOSES, ALONE)

    def received(self, wait: float) -> bytes | None:
        """What the client sent, once it has sent something (waiting up to ``wait`` seconds;
        None: nothing). A closed connection ends the dump (PeerGone)."""
        sock = self.client.sock   # (TLS: bytes already decrypted are pending, not selectable)
        if not (isinstance(sock, ssl.SSLSocket) and sock.pending() or
                select.select([sock], [], [], wait)[0]):
            return None
        try:
            data = sock.recv(65536)
        except OSError:
            data = b""
        if not data:
            raise PeerGone("closed during the dump")
        return data

    def take_acks(self, wait: float) -> None:
        """Read what a semi-sync replica sent (waiting up to ``wait`` seconds for it): its
        SemiSyncAck packets, counted; a closed connection ends the dump."""
        from ..protocol.replication import SemiSyncAck
        while (data := self.received(wait)) is not None:
            self.inbox += data
            wait = 0
        counts = self.client.server.semi_sync_counts
        while len(self.inbox) >= 4:
            length = int.from_bytes(self.inbox[:3], "little")
            if len(self.inbox) < 4 + length:
                break
            _, payload = self.client.framing.read_packet(io.BytesIO(self.inbox[:4 + length]))
            del self.inbox[:4 + length]
            ack = parse_packet(SemiSyncAck, payload)
            counts["acked"] += 1
            counts["last"] = (ack.file, ack.position)

    def artificial(self, kind: int, body, log_pos: int = 0) -> bytes:
        return build_event({"header": {"timestamp": 0, "type_code": kind,
                                       "server_id": self.server_id, "log_pos": log_pos,
                                       "flags": ["ARTIFICIAL"]}, "body": body}, self.ctx)

    def run(self):
        first = True
        while True:
            self.served.append(self.name)
            next_name = self.send_file(first)
            first = False
            if next_name is None:
                return
            self.name, self.position = next_name, 4

    def refuse(self, reason: str) -> None:
        """The dump ends with an ERR (1236) saying ``reason``, and a line on serve's stderr."""
        log.warning("%s (the dump of client %s ends: ERR %s)", reason, self.client.conn_id,
                    ER_MASTER_FATAL_READING_BINLOG)
        self.client.err(ER_MASTER_FATAL_READING_BINLOG, reason)

    def after(self, named: str | None, offset: int | None):
        """The folder's ``(next file, refusal)`` after the open one, whose ROTATE at
        ``offset`` names ``named`` (:meth:`BinlogFolder.after
        <.server_files.BinlogFolder.after>`); a refusal says the files of this dump when
        the ROTATE names one of them."""
        following, reason = self.folder.after(self.name, named, offset)
        if reason is not None and named in self.served and named != self.name:
            reason += f" (this dump: {' -> '.join(self.served)} -> {named})"
        return following, reason

    def next_file(self, named: str | None, offset: int | None) -> str | None:
        """The file to serve after the open one (see :meth:`after`), waited for (heartbeats
        going) while it is not there yet; None: the dump ended (an EOF with NON_BLOCK, or a
        refusal)."""
        while True:
            following, reason = self.after(named, offset)
            if reason is not None:
                self.refuse(reason)
                return None
            if following is not None:
                return following
            if self.flags & BINLOG_DUMP_NON_BLOCK:
                self.client.send(conn.EofPacket, {"warnings": 0, "status": []})
                return None
            self.idle()

    def killed(self) -> None:
        """Raises when another connection's KILL ended this dump (:class:`Interrupted`, or
        PeerGone for its connection)."""
        how = self.client.killed
        if how == "connection":
            raise PeerGone("killed")
        if how == "query":
            raise Interrupted()

    def idle(self):
        """One pause at the end of the stream: a heartbeat when one is due; notices a client
        that went away, and a KILL."""
        self.killed()
        if self.semi:   # (its acks)
            self.take_acks(POLL)
        else:   # (a replica sends nothing during a dump; python-mysql-replication's MariaDB
            # dump packet leaves one byte after it: dropped)
            self.received(POLL)
        if self.period and time.monotonic() - self.last_sent >= self.period:
            self.send_event(self.artificial(codes.HEARTBEAT_LOG_EVENT,
                                            {"log_ident": self.name}, self.position))

    def send_file(self, first: bool) -> str | None:
        """Stream one file from ``self.position``; the name of the next file (None: done)."""
        with open(self.folder.file(self.name), "rb") as f:
            blocks = Blocks(f)
            fde = self.read_fde(blocks)
            if fde is None:
                self.refuse(f"{self.name}: no FORMAT_DESCRIPTION at offset 4")
                return None
            fde_raw, fde_value = fde
            self.ctx = context_from_fde(fde_value["body"], Context(checksum=False))
            self.send_event(self.artificial(codes.ROTATE_EVENT, {   # (each file, as MariaDB)
                "position": self.position, "next_file": self.name}), flush=False)
            past = self.position > 4
            header = dict(fde_value["header"], flags=[
                f for f in fde_value["header"]["flags"] if f != "BINLOG_IN_USE"])
            body = dict(fde_value["body"])
            if past:   # (as a real master: the replica must not take its position or time)
                header["log_pos"] = 0
                body["create_timestamp"] = 0
            self.send_event(build_event({**fde_value, "header": header, "body": body},
                                        self.ctx.replace(offset=4)), flush=False)
            if not past:
                self.position = 4 + len(fde_raw)
            if self.gtid_mode and first:
                self.send_event(self.artificial(codes.GTID_LIST_EVENT, {
                    "flags": [], "gtids": [{"domain_id": d, "server_id": s, "seq_no": n}
                                           for d, (s, n) in sorted(self.state.items())]},
                    self.position), flush=False)
            self.client.writer.flush()
            return self.follow(blocks)

    def in_executed(self, kind: int, raw: bytes) -> bool:
        """Whether the transaction a GTID event starts is in the replica's executed set."""
        from ...changes.row_change import gtid_text
        value = parse_event(raw, self.ctx)
        return gtid_text(kind, value["header"]["server_id"], value["body"]) in self.executed

    def read_fde(self, blocks: Blocks):
        """``(bytes, value)`` of the file's FORMAT_DESCRIPTION (waited for while the file is
        still being written); None when the file's first event is something else."""
        while True:
            for offset, kind, size, buf, i in blocks.walk(4, MAX_EVENT_SIZE):
                if kind != codes.FORMAT_DESCRIPTION_EVENT:
                    return None
                raw = bytes(buf[i:i + size])
                return raw, parse_event(raw, Context(checksum=False), offset)
            if blocks.bad is not None:
                return None
            self.idle()

    def follow(self, blocks: Blocks) -> str | None:
        """The events of the open file from ``self.position`` on, following it as it grows;
        the next file's name once it ends (a ROTATE's, or the next in name order)."""
        annotate = bool(self.flags & BINLOG_SEND_ANNOTATE_ROWS)
        while True:
            self.killed()
            sent = 0
            for offset, kind, size, buf, i in blocks.walk(self.position, MAX_EVENT_SIZE):
                if kind == codes.ROTATE_EVENT:   # (checked before it is sent: a replica
                    # refused keeps the position before it)
                    named = parse_event(bytes(buf[i:i + size]), self.ctx)["body"]["next_file"]
                    reason = self.after(named, offset)[1]
                    if reason is not None:
                        self.refuse(reason)
                        return None
                self.position = offset + size
                sent += 1
                if kind == codes.ANNOTATE_ROWS_EVENT and not annotate:
                    continue   # (as a MariaDB master: only to replicas that ask for them)
                if self.executed is not None:
                    if kind in codes.GTID_KINDS:
                        self.skipping = self.in_executed(kind, bytes(buf[i:i + size]))
                    if self.skipping and kind not in FILE_KINDS:
                        continue
                if kind == codes.TABLE_MAP_EVENT:
                    self.sent.table_map(self.name, offset)
                self.send_event(bytes(buf[i:i + size]), flush=False, kind=kind)
                if kind == codes.ROTATE_EVENT:
                    self.client.writer.flush()
                    return self.next_file(named, offset)
            self.sent.at = (self.name, self.position)
            if sent:
                self.client.writer.flush()
            if blocks.bad is not None:
                self.refuse(f"{self.name}: bad event size {blocks.bad[1]} at offset "
                            f"{blocks.bad[0]}")
                return None
            if sent:
                continue
            if blocks.tail is None:   # the file ends with a whole event
                later = self.folder.after(self.name)[0]
                if later is not None and self.position == self.folder.size(self.name):
                    self.send_event(self.artificial(codes.ROTATE_EVENT, {
                        "position": 4, "next_file": later}))
                    return later
            if self.flags & BINLOG_DUMP_NON_BLOCK:
                if blocks.tail is not None:   # (not an end: what is left is not sent)
                    at, have, need = blocks.tail
                    self.refuse(f"{self.name}: the file ends inside an event at offset {at} "
                                f"({have} bytes{f' of {need}' if need else ''}): cut short, "
                                "or still being written")
                    return None
                self.client.send(conn.EofPacket, {"warnings": 0, "status": []})
                return None
            self.idle()


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


class _Handler(socketserver.BaseRequestHandler):
    def handle(self):
        server: BinlogServer = self.server.owner
        client = None
        try:
            client = Connection(self.request, server, server.next_id())
            server.connected(client, True)
            client.run()
        except PeerGone:
            pass
        except BinlogError as e:   # a packet that does not parse: said, then closed
            if client is not None:
                try:
                    client.err(ER_MALFORMED_PACKET, f"Malformed packet: {e}", "08S01")
                except Exception:  # noqa: BLE001
                    pass
        except Exception as e:  # noqa: BLE001 - one client's failure ends its thread only
            log.warning("client %s: %s: %s", self.client_address, type(e).__name__, e)
            if client is not None:
                try:
                    client.seq = client.seq or 1
                    client.err(ER_MASTER_FATAL_READING_BINLOG, f"{type(e).__name__}: {e}")
                except Exception:  # noqa: BLE001
                    pass
        finally:
            if client is not None:
                server.connected(client, False)
                closing = [client.reader, client.writer]
                if client.sock is not self.request:   # (the TLS socket over it)
                    closing.append(client.sock)
                for f in closing:
                    try:
                        f.close()
                    except Exception:  # noqa: BLE001
                        pass


class _TCPServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


class BinlogServer:
    """Serve the binlog files of ``config.folder`` on ``(host, port)`` (port 0: a free one,
    see :attr:`port`). :meth:`serve_forever` blocks; :meth:`start` runs it in a thread;
    :meth:`close` stops listening."""

    def __init__(self, config: ServerConfig, host: str = "127.0.0.1", port: int = 0):
        if not os.path.isdir(config.folder):
            raise BinlogError(f"{config.folder}: not a folder")
        self.config = config
        self.folder = BinlogFolder(config.folder)
        self.auth = server_auth.ServerAuth(config)   # (ConfigError: a bad cert, key, RSA key)
        self.auth_counts = self.auth.counts   # (see ServerAuth)
        # semi-sync: the acks asked for and received, the last ack's (file, position)
        self.semi_sync_counts = {"asked": 0, "acked": 0, "last": None}
        self.tcp = _TCPServer((host, port), _Handler)
        self.tcp.owner = self
        self.host, self.port = self.tcp.server_address[:2]
        self._ids = 0
        self._lock = threading.Lock()
        self._dumps: set = set()    # the Streamers under way
        self._done = [0, 0]         # events and bytes sent by the dumps that ended
        self._clients: dict = {}    # connection id -> Connection
        self.schema = ServedSchema(self.folder, config.schema_files)

    def connected(self, client: Connection, here: bool) -> None:
        """A connection begins (``here``) or ends."""
        with self._lock:
            if here:
                self._clients[client.conn_id] = client
            else:
                self._clients.pop(client.conn_id, None)

    def clients(self) -> list:
        with self._lock:
            return list(self._clients.values())

    def kill(self, conn_id: int, query_only: bool) -> bool:
        """``KILL [QUERY] conn_id``: the connection's dump ends (QUERY: with ERR 1317, as a
        master's), or the connection itself. False: no such connection."""
        with self._lock:
            client = self._clients.get(conn_id)
        if client is None:
            return False
        if query_only:
            if client.streamer is not None:   # (a connection doing nothing: nothing to end)
                client.killed = "query"
        else:
            client.killed = "connection"
            client.shut()
        return True

    def next_id(self) -> int:
        with self._lock:
            self._ids += 1
            return self._ids

    def dumping(self, streamer, under_way: bool) -> None:
        """A dump begins (``under_way``) or ends (its counts kept)."""
        with self._lock:
            if under_way:
                self._dumps.add(streamer)
            else:
                self._dumps.discard(streamer)
                self._done[0] += streamer.events
                self._done[1] += streamer.bytes

    def dump_counts(self):
        """(the dumps under way, events sent, bytes sent: all dumps')."""
        with self._lock:
            dumps = sorted(self._dumps, key=lambda d: d.client.conn_id)
            return (dumps, self._done[0] + sum(d.events for d in dumps),
                    self._done[1] + sum(d.bytes for d in dumps))

    def serve_forever(self):
        self.tcp.serve_forever(poll_interval=0.2)

    def start(self) -> BinlogServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def close(self):
        self.tcp.shutdown()
        self.tcp.server_close()

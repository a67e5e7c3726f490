"""The client side of replication: a live server's binlog streamed as a fake replica.

:class:`ReplicationStream` connects, registers as a replica (COM_REGISTER_SLAVE) and asks for
the binlog (COM_BINLOG_DUMP from a file and position, MariaDB's GTID state through
``@slave_connect_state``, or MySQL's COM_BINLOG_DUMP_GTID with a GTID set). The events arrive
as network packets (:mod:`binlog_schema.wire.protocol.replication`) and are read as a file's
events are read: :meth:`BinlogReader.read_event
<binlog_schema.format.stream.BinlogReader.read_event>`
decodes them in the context in force (FORMAT_DESCRIPTION, checksums) and follows the table
maps. The records are the :class:`~binlog_schema.format.stream.EventRecord` objects the file reader
gives, each at its offset in the server's file.

The connection phase (handshake, ``mysql_native_password`` and ``caching_sha2_password``,
TLS) is PyMySQL's, a maintained client; the replication commands are built from this
package's declarations and the stream is read from the socket with its framing, not packet by
packet through PyMySQL.

Transactions are delivered whole: the events of a transaction are held (in bounded memory:
:class:`~binlog_schema.changes.transactions.Held`) until its XID or COMMIT arrives, so a
disconnect never delivers half a transaction. :attr:`ReplicationStream.checkpoint` is the
position after the last complete transaction; a new stream started from it (``resume=``)
delivers nothing twice and loses nothing. Artificial events (the ROTATE a server sends first,
a FORMAT_DESCRIPTION sent again with log position 0, heartbeats, MariaDB's fake GTID_LIST)
change the stream's state but are not delivered: they are not events of the file.

Semi-synchronous replication (``semi_sync=True``, ``stream --semi-sync``): at each connection
the stream asks the server whether semi-sync is on (MariaDB, built in since 10.3, and MySQL's
older plugin: ``rpl_semi_sync_master_enabled``; MySQL 8.0.26+'s plugin:
``rpl_semi_sync_source_enabled``). When it is, the stream announces itself as a semi-sync
replica before the dump (MariaDB ``SET @rpl_semi_sync_slave= 1``; MySQL both
``@rpl_semi_sync_replica`` and ``@rpl_semi_sync_slave``, one for each plugin), and every packet
of the stream then carries the two-byte semi-sync header (0xef, ack wanted). For an event the
server wants acknowledged (the last event of a transaction, mostly), the stream sends a
:data:`~binlog_schema.wire.protocol.replication.SemiSyncAck` (a packet of its own, sequence 0) with
the file name and the event's end position (its log_pos) once that event has been delivered:
after the batch holding it was handed out and the consumer asked for the next one, never
when it is merely read (a ``stream`` command has written and flushed it). The server's
committing session waits for that ack (up to ``rpl_semi_sync_master_timeout``): a slow
consumer slows the server's commits, which is the point. When semi-sync is off on the server,
or the server does not have it, the stream says so (``on_warning``, once) and streams as
usual; the check is made again at each reconnection. :attr:`ReplicationStream.acks` counts the
acks sent. Semi-sync is for a stream that follows the server (``blocking``): one that ends at
the end of the last file is no replica for the server to wait for (and MariaDB 10.11's dump
thread of a semi-sync replica, at the end of a non-blocking dump, was seen to wait forever in
its ack receiver's removal of the replica, never sending the stream's last packets and EOF),
so ``semi_sync`` without ``blocking`` is refused.
"""

from __future__ import annotations

import io
import random
import select
import time

from ...format.context import Context
from ...format.errors import ReplicationError
from ...format.facts.codes import (FORMAT_DESCRIPTION_EVENT, GTID_KINDS, HEARTBEAT_LOG_EVENT,
                           HEARTBEAT_LOG_EVENT_V2, ROTATE_EVENT)
from ...format.facts.flavor import flavor_name_of
from ...format.facts.framing import FLAGS_AT, LOG_POS_AT, LOG_POS_END, SIZE_AT, SIZE_END, TYPE_AT
from ..protocol import connection as conn
from ..protocol import framing, replication as rp
from ...format.stream import BinlogReader

ARTIFICIAL_FLAG = 0x20   # LOG_EVENT_ARTIFICIAL_F: an event the server made for the stream
HEARTBEATS = (HEARTBEAT_LOG_EVENT, HEARTBEAT_LOG_EVENT_V2)
DEFAULT_HEARTBEAT = 30.0
ER_SLAVE_SAME_ID = 1236   # the server's error number for a replica whose id is taken
# The variables that say semi-sync is on, and the announcement each asks for: MySQL 8.0.26+'s
# semisync_source plugin reads @rpl_semi_sync_replica, the older plugin (and MariaDB, where
# semi-sync is built in since 10.3) @rpl_semi_sync_slave; MySQL's own replica sets both.
SEMI_SYNC_SWITCHES = ("rpl_semi_sync_source_enabled", "rpl_semi_sync_master_enabled")
SEMI_SYNC_ANNOUNCE = {"mariadb": "SET @rpl_semi_sync_slave= 1",
                      "mysql": "SET @rpl_semi_sync_replica= 1, @rpl_semi_sync_slave= 1"}


class RepeatError(ReplicationError):
    """The server went back over what this stream has delivered (a rotation to a file and
    position before the end of what was delivered from that file, or an event that does not
    end after the one before it): the stream stops here, never reconnects to get it again."""


def checkpoint_dict(file: str, position: int, gtid: str | None) -> dict:
    return {"file": file, "position": position, "gtid": gtid}


class ReplicationStream:
    """The binlog of a live server, as event records (see the module docstring).

    ``file``/``position``: where to start (default: the first file the server lists, at 4).
    ``gtid``: a GTID set to start after instead (MariaDB ``D-S-N,...``: the transactions after
    these; MySQL ``uuid:1-5,...``: the transactions not in the set). ``resume``: a
    :attr:`checkpoint` dict, which wins over both. ``blocking``: wait for new events at the
    end of the last file (else the stream ends there). ``reconnect``: with ``blocking``, when
    the connection is lost, connect again (backoff from ``backoff`` to ``max_backoff``
    seconds) and go on from the checkpoint. ``ssl``: an :class:`ssl.SSLContext` or PyMySQL's
    ssl dict. ``heartbeat``: seconds between the server's heartbeats when idle.
    ``semi_sync``: be a semi-synchronous replica when the server has semi-sync on (see the
    module docstring; with ``blocking`` only: else :class:`ValueError`);
    ``on_warning(message)`` is told, once, when it is not (default:
    :func:`warnings.warn`). :attr:`semi_sync_on` says whether the current (or last)
    connection is semi-sync, :attr:`acks` counts the acks sent. ``decode``: as
    :class:`~binlog_schema.format.stream.BinlogReader`'s (``"lazy"``: each record parsed when its
    value is first asked for, and the table maps left to the consumer, as ``decode`` and
    ``stream`` write them; default: parsed as it arrives, table maps followed by the reader).

    Iterating yields records; :meth:`transactions` yields ``(file, records)`` batches, one
    complete transaction (or one event outside transactions) each. ``file`` is the file of
    the last batch delivered, ``checkpoint`` the position after it. A non-blocking stream
    whose server's binlog ends inside a transaction does not deliver that transaction's
    events: it tells ``on_warning`` and sets :attr:`unfinished` (file, offset, events).
    A server that goes back over what was delivered stops the stream: :class:`RepeatError`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 3306, user: str = "root",
                 password: str = "", server_id: int = 1001, *, file: str | None = None,
                 position: int | None = None, gtid: str | None = None,
                 resume: dict | None = None, blocking: bool = False,
                 reconnect: bool = False, ssl=None, heartbeat: float = DEFAULT_HEARTBEAT,
                 connect_timeout: float = 10.0, backoff: float = 0.5,
                 max_backoff: float = 30.0, hold: int = 256, semi_sync: bool = False,
                 on_warning=None, decode=True):
        self.host, self.port, self.user, self.password = host, port, user, password
        self.server_id = server_id
        self.blocking, self.reconnect = blocking, reconnect and blocking
        self.ssl, self.heartbeat, self.connect_timeout = ssl, heartbeat, connect_timeout
        self.backoff, self.max_backoff, self.hold = backoff, max_backoff, hold
        self.decode = decode
        self.file = file
        self.position = 4 if position is None else position
        self.gtid = gtid
        if resume:
            self.file, self.position = resume["file"], resume["position"]
            self.gtid = None   # (the position says where; the GTID is kept for the record)
        self.checkpoint = (checkpoint_dict(self.file, self.position, resume.get("gtid"))
                           if resume else None)
        # {file: the end of the last event delivered from it}: a server never goes back
        # before it (see _batches: RepeatError)
        self.delivered = {self.file: self.position} if resume else {}
        self.flavor = None
        self.reconnects = 0
        self.heartbeats = 0   # (received, when idle at the end of the last file)
        # (file, offset, events) of a transaction the end of a non-blocking dump left open:
        # not delivered (told to on_warning)
        self.unfinished = None
        # (the report port this stream registers with: tells its own registration from
        # another replica's of the same server id)
        self.report_port = random.randint(1024, 65535)
        if semi_sync and not blocking:
            raise ValueError("semi-sync is for a stream that follows the server (blocking): "
                             "one that ends at the end of the last file is no replica to "
                             "wait for")
        self.semi_sync, self.on_warning = semi_sync, on_warning
        self.semi_sync_on = False   # (negotiated at each connection)
        self.acks = 0
        self._warned = False
        self._conn = None

    # ------------------------------------------------------------------ connection

    def _connect(self):
        try:
            import pymysql
        except ImportError:
            raise ReplicationError("streaming needs PyMySQL: pip install "
                                   "'binlog-schema[replication]'") from None
        try:
            c = pymysql.connect(host=self.host, port=self.port, user=self.user,
                                password=self.password, ssl=self.ssl,
                                connect_timeout=self.connect_timeout, autocommit=True)
        except pymysql.err.OperationalError as e:
            code = e.args[0] if e.args else None
            raise ReplicationError(f"cannot connect to {self.host}:{self.port}: "
                                   f"{e.args[1] if len(e.args) > 1 else e}",
                                   code=code) from None
        self._conn = c
        return c

    def _query(self, sql: str) -> list:
        with self._conn.cursor() as cur:
            cur.execute(sql)
            return list(cur.fetchall())

    def _start(self):
        """Connect, agree on checksums and heartbeats, register, send the dump command."""
        c = self._connect()
        version = self._query("SELECT VERSION()")[0][0]
        self.flavor = flavor_name_of(version)
        self._query("SET @master_binlog_checksum= @@global.binlog_checksum")
        checksum = self._query("SELECT @master_binlog_checksum")[0][0]
        self._query(f"SET @master_heartbeat_period= {int(self.heartbeat * 1e9)}")
        if self.reconnects:
            self._refuse_a_clashing_id()
        if self.flavor == "mariadb":
            self._query("SET @mariadb_slave_capability= 4")
        self.semi_sync_on = self.semi_sync and self._announce_semi_sync()
        if self.file is None and self.gtid is None:
            logs = self._query("SHOW BINARY LOGS")
            if not logs:
                raise ReplicationError("the server lists no binary logs (is log_bin on?)")
            self.file, self.position = logs[0][0], 4
        flags = 0 if self.blocking else rp.BINLOG_DUMP_NON_BLOCK
        if self.flavor == "mariadb":   # (the ANNOTATE_ROWS events the files hold, as they are)
            flags |= rp.BINLOG_SEND_ANNOTATE_ROWS
        # (the stream's context until the FORMAT_DESCRIPTION: the checksum agreed on, which
        # the first ROTATE already carries)
        self.reader = BinlogReader(None, decode=self.decode, ctx=Context(
            checksum=str(checksum or "").upper() not in ("", "NONE", "0")))
        sock = c._sock
        sock.settimeout(None if self.blocking else max(60.0, 4 * self.heartbeat))
        self._rfile = c._rfile
        self._write(rp.ComRegisterSlave.build({
            "server_id": self.server_id, "host": "", "user": "", "password": "",
            "port": self.report_port,
            "rank": 0, "master_id": 0}))
        self._answer()
        if self.gtid is not None and self.flavor == "mariadb":
            self._query(f"SET @slave_connect_state= '{_quoted(self.gtid)}'")
            self._query("SET @slave_gtid_strict_mode= 0")
            self._query("SET @slave_gtid_ignore_duplicates= 0")
            self._write(rp.ComBinlogDump.build({"position": 4, "flags": flags,
                                                "server_id": self.server_id, "file": ""}))
        elif self.gtid is not None:
            self._write(rp.ComBinlogDumpGtid.build({
                "flags": flags | rp.BINLOG_THROUGH_GTID, "server_id": self.server_id,
                "file": "", "position": 4, "gtid_set": mysql_gtid_set(self.gtid)}))
        else:
            self._write(rp.ComBinlogDump.build({"position": self.position, "flags": flags,
                                                "server_id": self.server_id,
                                                "file": self.file}))

    def _refuse_a_clashing_id(self) -> None:
        """A server takes a second replica with the same server id by dropping the first
        one's connection; were both to reconnect they would drop each other in turn. So on a
        reconnection, a replica of this id that the server lists (SHOW SLAVE HOSTS) under
        another report port than this stream's (a random one, registered by each stream) is
        another process: refused, with a clear error, not retried. (Not checked at the first
        connection: the server may still list a crashed earlier run of this stream.)"""
        import pymysql
        try:
            hosts = self._query("SHOW SLAVE HOSTS")
        except pymysql.MySQLError:   # (not allowed, or a server that does not answer it)
            return
        for row in hosts:
            if row and str(row[0]) == str(self.server_id) and \
                    str(row[2]) != str(self.report_port):
                raise ReplicationError(
                    f"another replica with server id {self.server_id} connected to "
                    f"{self.host}:{self.port} and the server dropped this one (SHOW SLAVE "
                    f"HOSTS: {row[1] or '?'}, report port {row[2]}); give each replica its "
                    "own --server-id", code=ER_SLAVE_SAME_ID)

    def _announce_semi_sync(self) -> bool:
        """Whether the server has semi-sync on; if so, this connection announced as a
        semi-sync replica (before the dump command). Else a warning, once."""
        import pymysql
        try:
            rows = self._query("SHOW VARIABLES LIKE 'rpl_semi_sync_%'")
        except pymysql.MySQLError as e:
            return self._semi_sync_off(f"the server did not say whether semi-sync is on "
                                       f"({e.args[-1] if e.args else e})")
        found = {str(name).lower(): str(value) for name, value, *_ in rows}
        switch = next((name for name in SEMI_SYNC_SWITCHES if name in found), None)
        if switch is None:
            return self._semi_sync_off("the server has no semi-synchronous replication "
                                       f"({' or '.join(SEMI_SYNC_SWITCHES)})")
        if found[switch].upper() not in ("ON", "1"):
            return self._semi_sync_off(f"semi-synchronous replication is off on the server "
                                       f"({switch}={found[switch]})")
        self._query(SEMI_SYNC_ANNOUNCE["mariadb" if self.flavor == "mariadb" else "mysql"])
        return True

    def _semi_sync_off(self, why: str) -> bool:
        if not self._warned:
            self._warned = True
            self._tell(f"{why}: streaming without semi-sync (no acks)")
        return False

    def _tell(self, message: str) -> None:
        """``on_warning(message)``, else a RuntimeWarning."""
        if self.on_warning is not None:
            self.on_warning(message)
        else:
            import warnings
            warnings.warn(message, RuntimeWarning, stacklevel=4)

    def _write(self, payload: bytes) -> None:
        """``payload`` as one packet of sequence 0 (a command, or a semi-sync ack), sent at
        once (one send: no header left waiting in the socket)."""
        buf = io.BytesIO()
        framing.write_packet(buf, payload, 0)
        self._conn._sock.sendall(buf.getvalue())

    def _ack(self, file: str, position: int) -> None:
        """The semi-sync ack of the event that ends at ``position`` in ``file``."""
        try:
            self._write(semi_sync_ack(file, position))
        except (OSError, AttributeError) as e:   # (AttributeError: closed by close())
            raise ReplicationError(f"connection lost while acknowledging: {e}") from None
        self.acks += 1

    def _answer(self) -> None:
        """The server's answer to a command: OK, else the ERR raised."""
        _seq, payload = framing.read_packet(self._rfile)
        if payload is None:
            raise ReplicationError("the server closed the connection")
        if payload[:1] == bytes((conn.ERR_HEADER,)):
            raise _server_error(payload)

    def caught_up(self) -> bool:
        """Whether the next event must wait for the server: nothing of it has come yet (the
        socket holds no byte, nor TLS a decrypted one). A consumer holding work for when the
        stream waits (a group of records to confirm) does it then. (Bytes the reader read
        ahead are not seen: it may then come a little early, not late.)"""
        c = self._conn
        sock = getattr(c, "_sock", None)
        if sock is None:
            return True
        try:
            pending = getattr(sock, "pending", None)   # (an ssl.SSLSocket's)
            return not ((pending is not None and pending())
                        or select.select([sock], [], [], 0)[0])
        except (OSError, ValueError):   # (a socket closed: the next read says so)
            return True

    def close(self) -> None:
        c, self._conn = self._conn, None
        if c is not None:
            try:
                c._sock.close()
            except OSError:
                pass

    # ------------------------------------------------------------------ events

    def _packets(self):
        """The payload of each event packet of the stream (0x00 first), until the server's EOF
        (non-blocking) or the connection's end (raised); ERR packets raised."""
        read = framing.read_packet
        rfile = self._rfile
        started = False   # (an ERR after events: no longer about the start position)
        while True:
            try:
                _seq, payload = read(rfile)
            except (TimeoutError, OSError) as e:
                raise ReplicationError(f"connection lost: {e}") from None
            except ValueError:   # (the socket closed by close(), from another thread)
                raise ReplicationError("connection closed") from None
            if payload is None:
                raise ReplicationError("the server closed the connection")
            head = payload[0]
            if head == rp.OK_STATUS:
                started = True
                yield payload
            elif head == conn.EOF_HEADER and len(payload) < 9:
                return
            elif head == conn.ERR_HEADER:
                raise _server_error(payload, at_start=not started)
            else:
                raise ReplicationError(f"unexpected packet starting with {head:#04x} in the "
                                       "binlog stream", path="packet")

    def _events(self):
        """The raw bytes of each event of the stream, artificial ones included."""
        parse, this = _stream_packet_parser(), {"_params": {}}
        for payload in self._packets():
            yield parse(io.BytesIO(payload), this)["event"]

    def _semi_sync_events(self):
        """As :meth:`_events`, on a semi-sync connection: each packet has the semi-sync
        header. The event of a packet that wants an ack is acked before the next packet is
        read, once the checkpoint (moved by :meth:`_batches` before it hands a batch out,
        and the batch was taken when this generator runs again) has reached the event's
        end: an event of an open transaction waits for the transaction's end."""
        parse, this = _stream_packet_parser(), {"_params": {"semi_sync": True}}
        wanted = None   # (file, end) of the last event whose ack the server wants, not sent
        for payload in self._packets():
            try:
                packet = parse(io.BytesIO(payload), this)
            except Exception:  # noqa: BLE001 - (construct's errors, from compiled code)
                raise ReplicationError(
                    f"a packet of the semi-sync stream without the semi-sync header "
                    f"(0xef): {payload[:3].hex()}", path="packet.semi_sync") from None
            raw = packet["event"]
            if packet["semi_sync"]["ack_wanted"]:
                end = int.from_bytes(raw[LOG_POS_AT:LOG_POS_END], "little")
                # (an event without a position, were one flagged: the position delivered
                # so far)
                wanted = (self.file, end) if end else (self.file, self.position)
            yield raw
            if wanted is not None:   # (the consumer is back: before the next read)
                ck = self.checkpoint
                if ck is not None and (ck["file"], ck["position"]) >= wanted:
                    self._ack(*wanted)
                    wanted = None

    def transactions(self):
        """``(file, records)``: each complete transaction, or one event outside
        transactions, as it completes (see the class docstring)."""
        delay = self.backoff
        while True:
            try:
                self._start()
                delay = self.backoff
                yield from self._batches()
                return
            except ReplicationError as e:
                self.close()
                # (the server's refusals stand; a lost or refused connection is retried:
                # PyMySQL's client errors are numbered from 2000)
                if not self.reconnect or isinstance(e, RepeatError) or (
                        e.code is not None and e.code < 2000):
                    raise
                self.reconnects += 1
                time.sleep(delay)
                delay = min(self.max_backoff, delay * 2)
                if self.checkpoint is not None:
                    self.file, self.position = (self.checkpoint["file"],
                                                self.checkpoint["position"])
                    self.gtid = None
            finally:
                self.close()

    def __iter__(self):
        for _file, batch in self.transactions():
            yield from batch

    def _batches(self):
        from ...changes.transactions import CLOSES, OPENS, Boundary, Held
        reader = self.reader
        held = None           # the open transaction's records
        boundary = Boundary()   # (the one rule: changes/transactions.py)
        gtid = self.checkpoint["gtid"] if self.checkpoint else None
        tx_gtid = None
        start = None           # where the open transaction begins
        last = self.position   # the end of the last event read from self.file
        for raw in self._semi_sync_events() if self.semi_sync_on else self._events():
            code = raw[TYPE_AT]
            log_pos = int.from_bytes(raw[LOG_POS_AT:LOG_POS_END], "little")
            size = int.from_bytes(raw[SIZE_AT:SIZE_END], "little")
            artificial = log_pos == 0 or raw[FLAGS_AT] & ARTIFICIAL_FLAG
            if code in HEARTBEATS:
                self.heartbeats += 1
                continue
            if artificial:
                if code == ROTATE_EVENT:   # where the stream is: a file name and position
                    rec = reader.read_event(0, raw)
                    if rec is not None and rec.value is not None:
                        body = rec.value["body"]
                        self._rotate(_text(body["next_file"]), body["position"],
                                     "the server's rotation")
                        last = self.position
                elif code == FORMAT_DESCRIPTION_EVENT:
                    reader.read_event(4, raw)   # (the context of what follows)
                continue
            first = code == FORMAT_DESCRIPTION_EVENT and log_pos - size <= 4
            if first and last > 4:   # (the file's FORMAT_DESCRIPTION again, the stream past
                reader.read_event(4, raw)   # it: its context, not an event to deliver)
                continue
            offset = 4 if first else log_pos - size
            if log_pos <= last:
                raise RepeatError(
                    f"{self.file}: the server sent the event at offset {offset} (ending at "
                    f"{log_pos}) after the one ending at {last}: events already read, sent "
                    "again (a server looping over its files?); the stream stops")
            last = log_pos
            rec = reader.read_event(offset, raw)
            if rec is None:
                continue
            kind = rec.kind
            end = log_pos
            step = boundary.feed(rec)
            if step == OPENS:
                if held is not None and len(held):   # (an open one never ended: delivered)
                    yield self.file, list(held.drain())
                held, start = Held(self.hold), offset
                tx_gtid = _gtid_text(rec) if kind in GTID_KINDS else None
                held.add(rec)
                continue
            if held is None:   # (outside transactions, or a statement of its own: DDL)
                rotation = None
                if kind == ROTATE_EVENT and rec.value is not None:
                    body = rec.value["body"]
                    rotation = _text(body["next_file"]), body["position"]
                    self._going_back(*rotation, f"{self.file}: the ROTATE at offset {offset}")
                self._advance(end, None)
                yield self.file, [rec]
                if rotation is not None:
                    self._rotate(*rotation, None)
                    last = self.position
                continue
            held.add(rec)
            if step == CLOSES:
                batch = list(held.drain())
                held = None
                if tx_gtid is not None:
                    gtid = tx_gtid
                self._advance(end, gtid)
                yield self.file, batch
        if held is not None and len(held):   # (the end of a non-blocking dump)
            self.unfinished = (self.file, start, len(held))
            self._tell(f"the server's binlog ends inside a transaction: its {len(held)} events "
                       f"from {self.file} offset {start} are not delivered (the checkpoint "
                       "stays before them)")

    def _advance(self, end: int, gtid) -> None:
        self.position = end
        self.delivered[self.file] = end
        prior = self.checkpoint["gtid"] if self.checkpoint else None
        self.checkpoint = checkpoint_dict(self.file, end, gtid or prior)

    def _rotate(self, file: str, position: int, what: str | None) -> None:
        """The stream goes on in ``file`` at ``position`` (``what``: the rotation, checked
        first: see :meth:`_going_back`)."""
        if what is not None:
            self._going_back(file, position, what)
        self.file, self.position = file, position

    def _going_back(self, file: str, position: int, what: str) -> None:
        """RepeatError when ``what`` (a rotation to ``file`` at ``position``) goes back over
        events of ``file`` this stream delivered. (A rotation to where the stream is, as at
        the start of each connection from the checkpoint, is none.)"""
        done = self.delivered.get(file)
        if done is not None and position < done:
            raise RepeatError(
                f"{what} names {file} at position {position}, but this stream delivered "
                f"{file} up to {done}: the server would send those events again (a server "
                "looping over its files?); the stream stops")


def _stream_packet_parser():
    """BinlogStreamPacket's compiled parser, ``parse(io, {"_params": {...}})`` (the
    declaration's, compiled once: :mod:`binlog_schema.format.compiled`)."""
    from ...format import compiled
    return compiled.unit("stream_packet.parse")["parse"]


def semi_sync_ack(file: str, position: int) -> bytes:
    """The payload of a semi-sync replica's ack of the event ending at ``position`` (its
    log_pos) in the server's binlog ``file``."""
    return rp.SemiSyncAck.build({"position": position, "file": file})


def _server_error(payload: bytes, at_start: bool = True) -> ReplicationError:
    """The ERR packet's error (``at_start``: the answer to a command or the dump's first
    packet, where 1236 is about the start position)."""
    try:
        err = conn.ErrPacket.parse(payload)
    except Exception:  # noqa: BLE001 (a malformed ERR: its bytes said)
        return ReplicationError(f"the server sent a malformed error packet {payload[:64]!r}")
    message = _text(err.message)
    hint = ""
    if err.error_code == 1236 and at_start:
        hint = (" (the start file or position is not on the server: purged, or never "
                "written; or another replica uses this --server-id)")
    return ReplicationError(f"server error {err.error_code}: {message}{hint}",
                            code=err.error_code)


def _text(v) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, (bytes, bytearray)) else str(v)


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def _gtid_text(rec) -> str | None:
    """The GTID a transaction's GTID event names (MariaDB ``D-S-N``, MySQL ``uuid:N``)."""
    from ...changes.transactions import gtid_of
    body = rec.value["body"] if rec.value is not None else None
    return gtid_of(rec, body) if isinstance(body, dict) else None


def mysql_gtid_set(text: str) -> dict:
    """MySQL's GTID set text (``uuid:1-5:7,uuid2[:tag]:3``) as the value of the encoded set
    that COM_BINLOG_DUMP_GTID carries (PREVIOUS_GTIDS's body declaration)."""
    from ...changes.selection import GtidSet
    parsed = GtidSet(text)
    if parsed.mariadb:
        raise ReplicationError("a MariaDB GTID set given to a MySQL server", path="--gtid")
    return parsed.encoded()


__all__ = ["ReplicationStream", "checkpoint_dict", "mysql_gtid_set", "semi_sync_ack"]

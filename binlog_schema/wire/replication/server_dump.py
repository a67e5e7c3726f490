"""The dump of ``binlog-schema serve`` (:class:`.server.BinlogServer`): a replica's
COM_BINLOG_DUMP or COM_BINLOG_DUMP_GTID answered (:func:`dump`: where it starts, or the ERR
that refuses it) and the binlog files of the served folder (:mod:`.server_files`) streamed
(:class:`Streamer`) as a real master does:

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
  an ack, and the replica's acks are read and counted
  (:attr:`.server.BinlogServer.semi_sync_counts`);
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

Every event goes through the stream packet's declaration
(:mod:`binlog_schema.wire.protocol.replication`); artificial events are built by the
envelope's declaration with the files' checksum setting. Files are read event by event
through the one header scanner (:class:`~binlog_schema.format.scanning.Blocks`), in constant
memory."""

from __future__ import annotations

import io
import logging
import select
import ssl
import time

from ...format.context import Context
from ...format.event_codec import build_event, parse_event
from ...format.facts import codes
from ...format.facts.flavor import context_from_fde
from ..protocol import connection as conn
from ..protocol.replication import BINLOG_DUMP_NON_BLOCK, BINLOG_SEND_ANNOTATE_ROWS
from ...format.scanning import Blocks
from ...format.stream import MAX_EVENT_SIZE
from .server_auth import PeerGone, parse_packet
from .server_files import parse_gtid_state

log = logging.getLogger(__name__)

ER_MASTER_FATAL_READING_BINLOG = 1236
ER_QUERY_INTERRUPTED = 1317
POLL = 0.1   # seconds between looks at a file that does not grow
# the events of a file, not of a transaction: sent even when a MySQL GTID dump skips the
# transaction around them
FILE_KINDS = frozenset({codes.ROTATE_EVENT, codes.FORMAT_DESCRIPTION_EVENT,
                        codes.PREVIOUS_GTIDS_LOG_EVENT, codes.STOP_EVENT})


class Interrupted(Exception):
    """A dump ended by ``KILL QUERY`` from another connection."""


def dump(client, payload: bytes):
    """The dump ``client`` (a :class:`.server_connection.Connection`) asks for with
    ``payload`` (its COM_BINLOG_DUMP or COM_BINLOG_DUMP_GTID): where it starts (an ERR when
    it cannot), then its :class:`Streamer` until it ends (ERR 1317 for a ``KILL QUERY``)."""
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
    state = client.session.user_vars.get("slave_connect_state")
    folder = client.server.folder
    if executed is not None:   # MySQL: from the file whose PREVIOUS_GTIDS the set covers
        if not folder.names():
            client.err(ER_MASTER_FATAL_READING_BINLOG, "no binlog files to serve")
            return
        name, position = folder.mysql_start(executed), 4
        if name is None:
            client.err(ER_MASTER_FATAL_READING_BINLOG, "Cannot replicate because the master "
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
            client.err(ER_MASTER_FATAL_READING_BINLOG, "Could not find GTID state requested "
                     "by slave in any binlog files. Probably the slave state is too old "
                     "and required binlog files have been purged. (" + ", ".join(
                         f"domain {d}: the slave has seq_no {have}, the first file served, "
                         f"{folder.names()[0]}, starts after {first}"
                         for d, (have, first) in purged.items()) + ")")
            return
        start = folder.start_after(parse_gtid_state(state))
        if start is None:
            client.err(ER_MASTER_FATAL_READING_BINLOG, "no binlog files to serve")
            return
        name, position = start
    elif not name:
        names = folder.names()
        if not names:
            client.err(ER_MASTER_FATAL_READING_BINLOG, "no binlog files to serve")
            return
        name = names[0]
    if not folder.exists(name):
        client.err(ER_MASTER_FATAL_READING_BINLOG,
                 f"Could not find first log file name in binary log index file "
                 f"(no file {name!r} in the served folder)")
        return
    if position > folder.size(name):   # (as a real master: never an empty dump)
        client.err(ER_MASTER_FATAL_READING_BINLOG, "Client requested master to start "
                 f"replication from position > file size ({name} is "
                 f"{folder.size(name)} bytes, the position {position})")
        return
    if folder.description(name)["checksum"] and \
            client.session.user_vars.get("master_binlog_checksum") is None:
        client.err(ER_MASTER_FATAL_READING_BINLOG, "Slave can not handle replication events "
                 "with the checksum that master is configured to log")
        return
    streamer = Streamer(client, name, max(position, 4), flags, gtid_mode,
                        parse_gtid_state(state) if gtid_mode else None, executed)
    streamer.replica = req.server_id
    client.streamer = streamer
    client.server.dumping(streamer, True)   # (serve's metrics: the dumps under way)
    try:
        streamer.run()
    except Interrupted:   # (KILL QUERY: as a MariaDB master, the dump ends, then the
        # connection)
        client.err(ER_QUERY_INTERRUPTED, "Query execution was interrupted", "70100")
    finally:
        client.server.dumping(streamer, False)
        client.server.schema.ended(streamer.sent)


class Streamer:
    """One dump: the files from a position, as the network stream (0x00 + event), to
    ``client`` (a :class:`.server_connection.Connection`)."""

    def __init__(self, client, name: str, position: int, flags: int,
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

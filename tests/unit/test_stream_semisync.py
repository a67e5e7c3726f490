"""Semi-synchronous replication in the stream client (binlog_schema.wire.replication.client),
without a server: the ack built for an event (SemiSyncAck: 0xef, the event's end position,
the file name); a semi-sync stream fed the events of a synthetic binlog, each packet with the
semi-sync header, acks exactly the events the "server" flagged, each once its transaction was
handed out and before the next packet is read (never while the consumer holds it); a packet
without the header is an error; the announcement at connect time by flavor, and the warning
(once) when the server's semi-sync is off or absent; semi-sync without a blocking stream
(``--stop-never``) refused."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from binlog_schema.format.context import Context
from binlog_schema.format.errors import ReplicationError
from binlog_schema.format.facts.codes import GTID_KINDS, XID_EVENT
from binlog_schema.format.facts.framing import LOG_POS_AT, LOG_POS_END
from binlog_schema.wire.protocol import framing, replication as rp
from binlog_schema.wire.replication.client import ReplicationStream, semi_sync_ack
from binlog_schema.format.stream import BinlogReader, read_events

FILE = "mariadb-bin.000007"


@pytest.fixture(scope="module")
def events():
    """``(offset, raw)`` of each event of a synthetic MariaDB binlog (six transactions)."""
    from binlog_schema.synthetic.randomspec import random_spec
    from binlog_schema.synthetic.writer import generate
    data = generate(random_spec(seed=5, tables=2, transactions=6, flavor="mariadb-10.11"))
    return [(r.offset, r.raw) for r in read_events(io.BytesIO(data))]


def _log_pos(raw) -> int:
    return int.from_bytes(raw[LOG_POS_AT:LOG_POS_END], "little")


def test_the_ack_built_for_an_event(events):
    xids = [raw for _off, raw in events if raw[4] == XID_EVENT]
    assert xids
    for raw in xids:
        end = _log_pos(raw)
        ack = semi_sync_ack(FILE, end)
        # 0xef, the 8-byte end position, the file name to the end (no NUL)
        assert ack == b"\xef" + end.to_bytes(8, "little") + FILE.encode()
        back = rp.SemiSyncAck.parse(ack)
        assert (back.position, back.file) == (end, FILE)
    # a position over 4 GiB (a MySQL binlog file may grow past it): all 8 bytes
    assert rp.SemiSyncAck.parse(semi_sync_ack(FILE, 5 << 32)).position == 5 << 32


class _Socket:
    def __init__(self):
        self.sent = []

    def sendall(self, data):
        self.sent.append(bytes(data))


class _Conn:
    def __init__(self):
        self._sock = _Socket()


class _Reads(io.BytesIO):
    """The server's packets; how many acks had been sent when each packet was read."""

    def __init__(self, data, sock):
        super().__init__(data)
        self.sock, self.acks_at_packet = sock, []

    def read(self, n=-1):
        if n == framing.HEADER_SIZE:   # (a packet's header: a new packet)
            self.acks_at_packet.append(len(self.sock.sent))
        return super().read(n)


def _semi_sync_stream(events, flagged, *, marker=rp.SEMI_SYNC_MARKER):
    """A ReplicationStream past its connection, semi-sync on, reading ``events`` as packets
    with the semi-sync header (ack wanted for the indices in ``flagged``), then an EOF."""
    buf = io.BytesIO()
    for i, (_off, raw) in enumerate(events):
        framing.write_packet(buf, bytes((rp.OK_STATUS, marker, int(i in flagged))) + raw, 1)
    framing.write_packet(buf, b"\xfe\x00\x00\x02\x00", 1)
    stream = ReplicationStream(semi_sync=True, blocking=True)
    stream.semi_sync_on = True
    stream.file, stream.position = FILE, 4
    stream.reader = BinlogReader(None, ctx=Context(checksum=True))
    stream._conn = _Conn()
    stream._rfile = _Reads(buf.getvalue(), stream._conn._sock)
    return stream


def _acks(stream):
    out = []
    for packet in stream._conn._sock.sent:
        buf = io.BytesIO(packet)
        seq, payload = framing.read_packet(buf)
        assert seq == 0 and buf.read() == b""   # (one packet, sequence 0, sent at once)
        ack = rp.SemiSyncAck.parse(payload)
        out.append((ack.file, ack.position))
    return out


def test_a_semi_sync_stream_acks_each_flagged_event_after_its_transaction(events):
    xids = [i for i, (_off, raw) in enumerate(events) if raw[4] == XID_EVENT]
    assert len(xids) == 6

    def gtid_after(i):
        return next(j for j in range(i, len(events)) if events[j][1][4] in GTID_KINDS)

    # a transaction's end (the usual case); a GTID inside a transaction (a server switching
    # semi-sync on may flag any event); a GTID and its transaction's XID (one ack: the later
    # position covers the earlier); the last transaction's end
    flagged = {xids[0], gtid_after(xids[0]), gtid_after(xids[2]), xids[3], xids[5]}
    stream = _semi_sync_stream(events, flagged)
    handed = []     # (first event index of each batch, acks sent when it was handed out)
    seen = 0
    for _file, batch in stream._batches():
        handed.append((seen, len(stream._conn._sock.sent)))
        seen += len(batch)
    assert seen == len(events)
    # one ack a transaction with a flagged event: the end of its last flagged event
    groups = {}
    for i in sorted(flagged):
        groups[_transaction_end(events, i)] = i
    want = [(FILE, _log_pos(events[i][1])) for _end, i in sorted(groups.items())]
    assert _acks(stream) == want and stream.acks == len(want) == 4
    # when a batch is handed out, the acks sent are those of the batches before it
    for first, sent in handed:
        assert sent == sum(1 for end in groups if end < first), (first, sent)
    # each ack left after its transaction's end was read, before the next packet was
    reads = stream._rfile.acks_at_packet
    for k, end in enumerate(sorted(groups)):
        assert reads[end] == k and reads[end + 1] == k + 1, end


def _transaction_end(events, i):
    """The index of the XID that ends the transaction holding event ``i``."""
    return next(j for j in range(i, len(events)) if events[j][1][4] == XID_EVENT)


def test_no_ack_for_a_batch_the_consumer_still_holds(events):
    xids = [i for i, (_off, raw) in enumerate(events) if raw[4] == XID_EVENT]
    stream = _semi_sync_stream(events, set(xids))
    batches = stream._batches()
    for _file, batch in batches:
        if batch[-1].type_code == XID_EVENT:
            break
    assert stream.acks == 0 and stream._conn._sock.sent == []
    next(batches)   # (the consumer took the batch and asks for the next one)
    assert _acks(stream) == [(FILE, _log_pos(events[xids[0]][1]))]
    batches.close()   # (a consumer that stops: what it never took is never acked)
    assert stream.acks == 1


def test_a_packet_without_the_semi_sync_header_is_an_error(events):
    stream = _semi_sync_stream(events, set(), marker=0x00)
    with pytest.raises(ReplicationError, match="semi-sync header"):
        list(stream._batches())


class _Announcing(ReplicationStream):
    def __init__(self, flavor, variables, **kw):
        super().__init__(semi_sync=True, blocking=True, **kw)
        self.flavor, self.variables, self.queries = flavor, variables, []

    def _query(self, sql):
        self.queries.append(sql)
        if sql.startswith("SHOW VARIABLES"):
            return [(name, value) for name, value in self.variables.items()]
        return []


@pytest.mark.parametrize("flavor, variables, announce", [
    ("mariadb", {"rpl_semi_sync_master_enabled": "ON", "rpl_semi_sync_slave_enabled": "OFF"},
     "SET @rpl_semi_sync_slave= 1"),
    ("mysql", {"rpl_semi_sync_source_enabled": "ON"},
     "SET @rpl_semi_sync_replica= 1, @rpl_semi_sync_slave= 1"),
    ("mysql", {"rpl_semi_sync_master_enabled": "ON"},
     "SET @rpl_semi_sync_replica= 1, @rpl_semi_sync_slave= 1"),
])
def test_semi_sync_on_is_announced(flavor, variables, announce):
    warned = []
    s = _Announcing(flavor, variables, on_warning=warned.append)
    assert s._announce_semi_sync() is True
    assert s.queries[-1] == announce and not warned


@pytest.mark.parametrize("variables, said", [
    ({"rpl_semi_sync_master_enabled": "OFF"}, "off on the server"),
    ({"rpl_semi_sync_slave_enabled": "ON"}, "has no semi-synchronous"),
    ({}, "has no semi-synchronous"),
])
def test_semi_sync_off_is_said_once_and_not_announced(variables, said):
    warned = []
    s = _Announcing("mariadb", variables, on_warning=warned.append)
    assert s._announce_semi_sync() is False
    assert s._announce_semi_sync() is False   # (a reconnection: said once)
    assert len(warned) == 1 and said in warned[0]
    assert not any(q.startswith("SET") for q in s.queries)


def test_semi_sync_needs_a_stream_that_follows_the_server():
    with pytest.raises(ValueError, match="blocking"):
        ReplicationStream(semi_sync=True)
    out = subprocess.run([sys.executable, "-m", "binlog_schema", "stream", "--semi-sync",
                          "--port", "1"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--stop-never" in out.stderr and out.stdout == ""

"""serve and stream never loop (issue 26), without a database server: ``binlog-schema serve``
over folders of synthetic binlogs, read by ``binlog-schema stream`` (each bounded by a
timeout: the code before this looped forever, printing the same events again and again).

* The next file is the folder's next one, and each ROTATE must agree with it
  (``BinlogFolder.after``, case by case): a ROTATE that names the file itself (renamed
  copies), an earlier file (a cycle ``a -> b -> a``), a file past the next one, or a file
  missing between two of the folder's, ends the dump with ERR 1236 naming the files, and a
  line on serve's stderr; ``stream`` says it (status 1) having printed every event before the
  ROTATE once. Renamed copies whose ROTATEs name files not in the folder are served in the
  folder's order. A folder with no binlog is refused at start; index, state and info files
  beside binlogs are left alone.
* The stream client itself stops (RepeatError, status 1, never retried) when a server goes
  back over what it delivered: a rotation to a file and position before the end of what it
  delivered from that file, or an event that does not end after the one before it; the
  legitimate cases go on (the fake ROTATE of each connection, a resumed stream, a
  FORMAT_DESCRIPTION sent again).
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest

from binlog_schema.format.context import Context
from binlog_schema.format.facts.codes import ROTATE_EVENT
from binlog_schema.wire.protocol import framing, replication as rp
from binlog_schema.wire.replication.client import RepeatError, ReplicationStream
from binlog_schema.wire.replication.server_files import BinlogFolder
from binlog_schema.format.stream import BinlogReader, read_events
from binlog_schema.synthetic.randomspec import random_spec
from binlog_schema.synthetic.writer import generate

from ..conftest import ROOT

CLI = [sys.executable, "-m", "binlog_schema"]
pytest.importorskip("pymysql")


def _binlog(path, next_file, seed=1, transactions=3, **settings):
    """A synthetic MariaDB binlog at ``path`` whose ROTATE names ``next_file``."""
    spec = random_spec(seed=seed, tables=2, transactions=transactions, flavor="mariadb-10.11",
                       rows=2)
    spec["settings"].update(next_file=next_file, **settings)
    generate(spec, path)
    return path


# ------------------------------------------------------------------ the folder's rule


def _folder(tmp_path, *names):
    for name in names:
        (tmp_path / name).write_bytes(b"\xfebin")   # (the magic: a binlog to names())
    (tmp_path / "x.index").write_text("./x.000001\n")   # (not one)
    return BinlogFolder(tmp_path)


@pytest.mark.parametrize("names, name, named, want", [
    # the ROTATE names the next file: it is served
    (["b.1", "b.2"], "b.1", "b.2", ("b.2", None)),
    # the file has no ROTATE: the next file, none after the last
    (["b.1", "b.2"], "b.1", None, ("b.2", None)),
    (["b.1", "b.2"], "b.2", None, (None, None)),
    # a name after the last file, not there yet: waited for
    (["b.1", "b.2"], "b.2", "b.3", (None, None)),
    # renamed copies: the ROTATE names a file not in the folder, sorting elsewhere
    (["a.1", "a.2"], "a.1", "mysql-bin.2", ("a.2", None)),
    (["z.1", "z.2"], "z.1", "mysql-bin.2", ("z.2", None)),
    # refused: the file itself, an earlier one, one past the next, a missing one
    (["b.2"], "b.2", "b.2", (None, "b.2: the ROTATE at offset 99 names b.2, the file itself")),
    (["b.1", "b.2"], "b.2", "b.1", (None, "b.2: the ROTATE at offset 99 names b.1, which "
                                          "comes before it")),
    (["b.1", "b.2", "b.3"], "b.1", "b.3", (None, "b.1: the ROTATE at offset 99 names b.3, "
                                                 "but b.2 comes between")),
    (["b.1", "b.3"], "b.1", "b.2", (None, "b.1: the ROTATE at offset 99 names b.2, which is "
                                          "not in the folder, while a later file is (b.3)")),
])
def test_the_next_file_agrees_with_the_rotate(tmp_path, names, name, named, want):
    following, reason = _folder(tmp_path, *names).after(name, named, 99)
    assert following == want[0]
    if want[1] is None:
        assert reason is None
    else:
        assert reason is not None and reason.startswith(want[1]), reason


# ------------------------------------------------------------------ serve and stream


class _Serve:
    """``binlog-schema serve FOLDER --port 0`` in a subprocess; its port from stderr."""

    def __init__(self, folder):
        self.proc = subprocess.Popen([*CLI, "serve", str(folder), "--port", "0"], cwd=ROOT,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        m = re.search(r" on 127\.0\.0\.1:(\d+)", line)
        if m is None:
            self.proc.kill()
            raise AssertionError(f"serve did not start: {line}{self.proc.stderr.read()}")
        self.port = int(m.group(1))

    def stop(self) -> str:
        """Stopped; what it wrote on stderr after its first line."""
        self.proc.terminate()
        try:
            return self.proc.communicate(timeout=30)[1]
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


def _stream(folder, *options):
    """``stream`` of ``serve FOLDER`` (to the end: without --stop-never): (its result, serve's
    stderr). Bounded: a stream that loops is stopped by the timeout, a failure."""
    serve = _Serve(folder)
    try:
        out = subprocess.run([*CLI, "stream", "--port", str(serve.port), *options],
                             capture_output=True, text=True, timeout=60, cwd=ROOT)
    finally:
        log = serve.stop()
    return out, log


def _decoded(*paths, stop=None):
    """decode's JSON records of ``paths`` (the file's base name), up to offset ``stop`` of
    the last."""
    out = []
    for path in paths:
        run = subprocess.run([*CLI, "decode", str(path)], capture_output=True, text=True,
                             timeout=60, cwd=ROOT)
        assert run.returncode == 0, run.stderr
        for line in run.stdout.splitlines():
            rec = json.loads(line)
            rec["file"] = path.name
            if path == paths[-1] and stop is not None and rec["offset"] >= stop:
                break
            out.append(rec)
    return out


def _streamed(text):
    records = [json.loads(line) for line in text.splitlines()]
    places = [(r["file"], r["offset"]) for r in records]
    assert len(places) == len(set(places)), "an event printed twice"
    return records


def _rotate_offset(path):
    return next(r.offset for r in read_events(path) if r.type_code == ROTATE_EVENT)


def test_a_rotate_naming_its_own_file_is_refused(tmp_path):
    """Renamed copies: the server's binlog.000001 copied as binlog.000002, the last file,
    whose ROTATE names binlog.000002."""
    served = tmp_path / "served"
    served.mkdir()
    path = _binlog(served / "binlog.000002", "binlog.000002")
    at = _rotate_offset(path)
    out, log = _stream(served)
    assert out.returncode == 1, out.stderr
    want = (f"binlog.000002: the ROTATE at offset {at} names binlog.000002, the file itself")
    assert "server error 1236: " + want in out.stderr and out.stderr.count("\n") == 1, \
        out.stderr
    assert "Traceback" not in out.stderr
    assert _streamed(out.stdout) == _decoded(path, stop=at)   # each event once, up to it
    assert f"serve: {want}" in log


def test_a_cycle_of_two_files_is_refused(tmp_path):
    """a -> b -> a: binlog.000002's ROTATE names binlog.000001."""
    served = tmp_path / "served"
    served.mkdir()
    a = _binlog(served / "binlog.000001", "binlog.000002", seed=1)
    b = _binlog(served / "binlog.000002", "binlog.000001", seed=2)
    at = _rotate_offset(b)
    out, log = _stream(served)
    assert out.returncode == 1, out.stderr
    want = (f"binlog.000002: the ROTATE at offset {at} names binlog.000001, which comes "
            "before it in the folder")
    assert want in out.stderr and out.stderr.count("\n") == 1, out.stderr
    assert "this dump: binlog.000001 -> binlog.000002 -> binlog.000001" in out.stderr
    assert _streamed(out.stdout) == _decoded(a, b, stop=at)
    assert f"serve: {want}" in log


def test_a_file_missing_between_two_is_refused(tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    a = _binlog(served / "binlog.000001", "binlog.000002", seed=1)
    _binlog(served / "binlog.000003", "binlog.000004", seed=3)
    at = _rotate_offset(a)
    out, log = _stream(served)
    assert out.returncode == 1, out.stderr
    want = (f"binlog.000001: the ROTATE at offset {at} names binlog.000002, which is not in "
            "the folder, while a later file is (binlog.000003): a file is missing")
    assert want in out.stderr and want in log, (out.stderr, log)
    assert _streamed(out.stdout) == _decoded(a, stop=at)


def test_renamed_copies_are_served_in_the_folders_order(tmp_path):
    """a.000001, a.000002: copies of a server's binlog.000001 and binlog.000002 (their
    ROTATEs name binlog.000002 and binlog.000003), beside the server's index, GTID state and
    a replica's info file: both served, each event once, to the end."""
    served = tmp_path / "served"
    served.mkdir()
    a = _binlog(served / "a.000001", "binlog.000002", seed=1)
    b = _binlog(served / "a.000002", "binlog.000003", seed=2)
    (served / "binlog.index").write_text("./binlog.000001\n./binlog.000002\n")
    (served / "binlog.state").write_text("0-1-3\n")
    (served / "relay-log.info").write_text("7\n./relay-bin.000002\n4\nbinlog.000002\n4\n")
    out, log = _stream(served)
    assert out.returncode == 0, out.stderr
    assert _streamed(out.stdout) == _decoded(a, b)
    assert "serve: " not in log


def test_a_folder_without_binlogs_is_refused_at_start(tmp_path):
    (tmp_path / "binlog.index").write_text("./binlog.000001\n")
    (tmp_path / "binlog.state").write_text("")
    out = subprocess.run([*CLI, "serve", str(tmp_path), "--port", "0"], capture_output=True,
                         text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 1
    assert out.stderr == f"serve: {tmp_path}: no binlog file (none of its files starts " \
                         "with the binlog magic number)\n"


def test_a_start_past_the_end_of_the_file_is_refused(tmp_path):
    """As a real master: a dump from beyond the file's end is an error, not an empty
    stream that ends well."""
    path = _binlog(tmp_path / "binlog.000001", "binlog.000002")
    size = path.stat().st_size
    out, _log = _stream(tmp_path, "--file", path.name, "--position", str(size + 1))
    assert out.returncode == 1 and out.stdout == "", out.stderr
    assert f"position > file size (binlog.000001 is {size} bytes, the position {size + 1})" \
        in out.stderr, out.stderr
    out, _log = _stream(tmp_path, "--file", path.name, "--position", str(size))
    assert out.returncode == 0 and out.stdout == "", out.stderr   # (the end: nothing more)


def test_a_gtid_start_whose_transactions_are_purged_is_refused(tmp_path):
    """MariaDB GTID mode: the first file served starts after 0-1-9 (its GTID_LIST); a
    replica at 0-1-3 lacks 4..9, gone with files no longer served: ERR 1236, as a real
    master says it (before: the stream started at 0-1-10, 4..9 left out without a word).
    At 0-1-9 and after, the stream goes on."""
    _binlog(tmp_path / "binlog.000010", "binlog.000011", gtid_start=10,
            previous_gtids=["0-1-9"])
    out, _log = _stream(tmp_path, "--gtid", "0-1-3")
    assert out.returncode == 1 and out.stdout == "", out.stderr
    assert "the slave state is too old and required binlog files have been purged" in \
        out.stderr and "domain 0: the slave has seq_no 3, the first file served, " \
        "binlog.000010, starts after 9" in out.stderr, out.stderr
    for start, first in (("0-1-9", 10), ("0-1-10", 11), ("1-1-3", 10)):
        out, _log = _stream(tmp_path, "--gtid", start)
        assert out.returncode == 0, out.stderr
        gtids = [r["body"]["seq_no"] for r in _streamed(out.stdout) if r["type"] == "GTID_EVENT"]
        assert gtids == list(range(first, 13)), (start, gtids)


def test_a_file_cut_inside_a_transaction_or_an_event_is_said(tmp_path):
    """The end of a non-blocking dump inside a transaction (a crashed server's last file):
    stream prints every complete transaction and says the open one's events are not
    printed (status 3; before: status 0, not a word). Inside an event (a file cut short):
    serve ends the dump with ERR 1236 naming the offset instead of an EOF (status 1)."""
    whole = _binlog(tmp_path / "binlog.000001", "binlog.000002")
    records = read_events(whole)
    xid = [r.offset for r in records if r.type_name == "XID_EVENT"][-1]
    begin = [r.offset for r in records if r.type_name == "GTID_EVENT"][-1]
    for cut, status, said in (
            (xid, 3, f"warning: the server's binlog ends inside a transaction: its "
                     f"{sum(1 for r in records if begin <= r.offset < xid)} events from "
                     f"binlog.000001 offset {begin} are not delivered"),
            (xid + 7, 1, f"server error 1236: binlog.000001: the file ends inside an event "
                         f"at offset {xid} (7 bytes): cut short, or still being written")):
        served = tmp_path / f"cut-{cut}"
        served.mkdir()
        (served / "binlog.000001").write_bytes(whole.read_bytes()[:cut])
        out, log = _stream(served)
        assert out.returncode == status and said in out.stderr, out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
        assert _streamed(out.stdout) == _decoded(whole, stop=begin)
        if status == 1:
            assert f"serve: binlog.000001: the file ends inside an event at offset {xid}" in log


# ------------------------------------------------------------------ the client's own check

FILE = "binlog.000001"


@pytest.fixture(scope="module")
def events():
    """``raw`` of each event of a synthetic binlog (three transactions, a ROTATE last)."""
    data = generate(random_spec(seed=5, tables=2, transactions=3, flavor="mariadb-10.11"))
    return [r.raw for r in read_events(io.BytesIO(data))]


def _artificial_rotate(file, position):
    from binlog_schema.format.event_codec import build_event
    return build_event({"header": {"timestamp": 0, "type_code": ROTATE_EVENT, "server_id": 1,
                                   "log_pos": 0, "flags": ["ARTIFICIAL"]},
                        "body": {"position": position, "next_file": file}},
                       Context(checksum=True))


def _with_log_pos_0(raw):
    """A FORMAT_DESCRIPTION as a server sends it to a dump that starts past it."""
    from binlog_schema.format.event_codec import build_event, parse_event
    value = parse_event(raw, Context(checksum=False))
    value["header"]["log_pos"] = 0
    return build_event(value, Context(checksum=False).replace(offset=4))


class _Packets(ReplicationStream):
    """A ReplicationStream whose connections each read the next list of events as the
    server's packets (then an EOF; the connection lost instead for the indices in
    ``lost``)."""

    def __init__(self, connections, lost=(), **kw):
        super().__init__(file=FILE, backoff=0, **kw)
        self.connections, self.lost, self.started = list(connections), set(lost), 0

    def _start(self):
        events = self.connections[self.started]
        buf = io.BytesIO()
        for raw in events:
            framing.write_packet(buf, bytes((rp.OK_STATUS,)) + raw, 1)
        if self.started not in self.lost:
            framing.write_packet(buf, b"\xfe\x00\x00\x02\x00", 1)
        self.started += 1
        self.reader = BinlogReader(None, decode="lazy", ctx=Context(checksum=True))
        self._rfile = io.BytesIO(buf.getvalue())
        self._conn = None

    def _refuse_a_clashing_id(self):
        pass


def _delivered(stream):
    out = []
    try:
        for _file, batch in stream.transactions():
            out += [(stream.file, rec.offset) for rec in batch]
    except RepeatError as e:
        return out, str(e)
    return out, None


def _offsets(events):
    """``(FILE, offset)`` of each event but the last (the ROTATE)."""
    return [(FILE, r.offset) for r in read_events(io.BytesIO(b"\xfebin" + b"".join(
        events)))][:-1]


def test_a_server_that_sends_its_file_again_is_stopped(events):
    from binlog_schema.format.event_codec import build_event, parse_event
    whole = [_artificial_rotate(FILE, 4), *events[:-1]]
    offsets = _offsets(events)
    # the file's ROTATE names the file itself
    value = parse_event(events[-1], Context(checksum=True))
    value["body"]["next_file"] = FILE
    value["header"]["log_pos"] = None   # (computed: where it ends)
    at = offsets[-1][1] + len(events[-2])
    named = build_event(value, Context(checksum=True, offset=at))
    got, error = _delivered(_Packets([whole + [named] + whole[1:]]))
    assert got == offsets   # (each event once; the ROTATE not delivered)
    assert error == (f"replication: {FILE}: the ROTATE at offset {at} names {FILE} at "
                     f"position 4, but this stream delivered {FILE} up to {at}: the server "
                     "would send those events again (a server looping over its files?); the "
                     "stream stops"), error
    # a server going back to the start without a ROTATE of the file: its rotation
    got, error = _delivered(_Packets([whole + whole]))
    assert got == offsets and "the server's rotation names binlog.000001 at position 4" in error
    # or sending its events again without a word: the first event that does not end after
    # the one before
    got, error = _delivered(_Packets([whole + whole[2:]]))
    assert got == offsets and f"{FILE}: the server sent the event at offset" in error
    # with --stop-never (reconnect): stopped all the same, not retried
    stream = _Packets([whole + whole, whole], blocking=True, reconnect=True)
    got, error = _delivered(stream)
    assert error is not None and stream.started == 1 and stream.reconnects == 0


def test_what_a_server_legitimately_sends_again_goes_on(events):
    whole = [_artificial_rotate(FILE, 4), *events[:-1]]
    offsets = _offsets(events)
    # a --stop-never stream whose connection is lost inside the second transaction: it
    # reconnects from the checkpoint (after the first), the server sends a fake ROTATE to
    # it, the FORMAT_DESCRIPTION again (log_pos 0), then the second transaction again
    # (never delivered) and the rest: each event delivered once
    cut = 11   # (the fake ROTATE, 7 events to the first XID, the second's GTID and ANNOTATE)
    ck = {"file": FILE, "position": 2143}   # (after the first transaction's XID)
    rest = [raw for raw, (_f, off) in zip(events, offsets) if off >= ck["position"]]
    again = [_artificial_rotate(FILE, ck["position"]), _with_log_pos_0(events[0]), *rest]
    stream = _Packets([whole[:cut], again], blocking=True, reconnect=True, lost={0})
    got, error = _delivered(stream)
    assert error is None and got == offsets and stream.reconnects == 1
    # a stream resumed from a checkpoint, the server sending the FORMAT_DESCRIPTION with its
    # own log_pos: context, not delivered again
    for fde in (_with_log_pos_0(events[0]), events[0]):
        resumed = _Packets([[_artificial_rotate(FILE, ck["position"]), fde, *rest]],
                           resume=ck)
        got, error = _delivered(resumed)
        assert error is None and got == [o for o in offsets if o[1] >= ck["position"]]

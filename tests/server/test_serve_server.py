"""``binlog-schema serve`` with real peers: a private MariaDB writes the binlog files (a small
workload over three files), ``serve`` (the command, in a subprocess) serves copies of them, and

* a second private MariaDB replicates from it (CHANGE MASTER TO ... MASTER_LOG_FILE, POS 4;
  START SLAVE): its tables end equal to the writer's, SHOW SLAVE STATUS shows no error; then
  again from scratch in GTID mode (MASTER_USE_GTID=slave_pos); then the writer goes on, the
  served folder's last file grows and a new file appears, and the replica follows;
* python-mysql-replication's BinLogStreamReader reads the rows from ``serve`` and decodes the
  same row values as ``binlog-schema decode --rows`` of the files;
* bad peers (a client gone mid-stream, garbage instead of a handshake reply, a dump of a
  missing file, a wrong password) get an ERR or a closed connection while ``serve`` goes on
  answering another client;
* serve never loops: over renamed copies whose ROTATE names the file itself, and over a
  cycle of two files (the second's ROTATE naming the first), the MariaDB replica,
  python-mysql-replication and ``stream`` each get every event before the ROTATE once, then
  ERR 1236 naming the files (serve says it on stderr); a folder holding the server's index
  and state files and a replica's info file beside the binlogs serves the binlogs.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from . import flashback_workload as fw
from ..conftest import unavailable

pytestmark = pytest.mark.server

USER, PASSWORD = "repl", "s3cret pw"
TABLES = ("sv.t", "sv.u")


def _start(name, *options):
    try:
        return fw.Server(f"{name}-{os.getpid()}", *options)
    except RuntimeError as e:
        unavailable(f"the private MariaDB did not start: serve tier not run: {e}")


def _workload(server, first: int, last: int):
    """Rows ``first..last`` of sv.t (inserts, updates, deletes over several statements) and of
    sv.u, a FLUSH BINARY LOGS in the middle."""
    mid = (first + last) // 2
    for lo, hi in ((first, mid), (mid + 1, last)):
        server.q("INSERT INTO sv.t VALUES " + ",".join(
            f"({i}, {i * 1000003}, 'name {i} ✓', {i}.25, '2024-01-{1 + i % 28:02d}', "
            f"{'NULL' if i % 3 == 0 else i})" for i in range(lo, hi + 1)))
        server.q("UPDATE sv.t SET s = CONCAT(s, ' updated'), x = x + 1 WHERE MOD(id, 4) = 1 "
                 "AND id BETWEEN %s AND %s", lo, hi)
        server.q("DELETE FROM sv.t WHERE MOD(id, 5) = 0 AND id BETWEEN %s AND %s", lo, hi)
        server.q("INSERT INTO sv.u VALUES (%s, REPEAT('x', 300))", lo)
        if lo == first:
            server.q("FLUSH BINARY LOGS")


def _state(server):
    return {t: server.q(f"SELECT * FROM {t} ORDER BY 1") for t in TABLES}


def _copy_binlogs(server, folder):
    """The writer's binlog files (not its index) copied into ``folder``; their names."""
    names = sorted(p.name for p in server.binlog_dir.iterdir()
                   if p.is_file() and not p.name.endswith(".index"))
    for n in names:
        shutil.copyfile(server.binlog_dir / n, folder / n)
    return names


@pytest.fixture(scope="module")
def writer():
    if not fw.tool("mariadbd"):
        unavailable("mariadbd not installed: serve tier not run")
    srv = _start("serve-writer", "--server-id=1", "--binlog-checksum=CRC32",
                 "--binlog-row-image=FULL", "--binlog-row-metadata=FULL")
    try:
        srv.q("CREATE DATABASE sv")
        srv.q("CREATE TABLE sv.t (id INT PRIMARY KEY, n BIGINT UNSIGNED, s VARCHAR(40) "
              "CHARACTER SET utf8mb4, d DECIMAL(10,2), dt DATE, x INT NULL)")
        srv.q("CREATE TABLE sv.u (id INT PRIMARY KEY, b TEXT)")
        _workload(srv, 1, 60)
        srv.q("FLUSH BINARY LOGS")
        _workload(srv, 61, 100)
        yield srv
    finally:
        srv.destroy()


@pytest.fixture(scope="module")
def folder(writer, tmp_path_factory):
    path = tmp_path_factory.mktemp("served")
    _copy_binlogs(writer, path)
    return path


class Serve:
    """``binlog-schema serve FOLDER --port 0`` in a subprocess; its port read from stderr."""

    def __init__(self, folder, *options):
        pw = folder.parent / "serve-password"
        pw.write_text(PASSWORD + "\n")
        pw.chmod(0o600)   # (serve warns of a password file others may read)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "binlog_schema", "serve", str(folder), "--port", "0",
             "--user", USER, "--password-file", str(pw), "--server-id", "7", *options],
            cwd=fw.ROOT, stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        if " on 127.0.0.1:" not in line:
            self.proc.kill()
            raise AssertionError(f"serve did not start: {line}{self.proc.stderr.read()}")
        self.port = int(line.split(" on 127.0.0.1:")[1].split()[0])

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def serve(folder):
    s = Serve(folder, "--heartbeat", "0.5")
    yield s
    s.stop()



def _wait_caught_up(replica, writer, timeout=60):
    want = _state(writer)
    deadline = time.monotonic() + timeout
    while True:
        st = replica.slave_status()
        for key in ("Last_IO_Error", "Last_SQL_Error"):
            assert not st.get(key), f"{key}: {st.get(key)}"
        try:
            got = _state(replica)
        except Exception:  # noqa: BLE001 - the tables may not exist yet
            got = None
        if got == want:
            return st
        if time.monotonic() > deadline:
            raise AssertionError(f"replica not caught up in {timeout}s: {st}")
        time.sleep(0.3)


def _replicate(replica, port, how, databases=("sv",), prepare=None):
    """Start ``replica`` afresh against the master at ``port`` (CHANGE MASTER TO ... ``how``):
    its replica settings, ``databases`` and binlog reset; ``prepare(replica)`` first."""
    replica.q("STOP SLAVE")
    replica.q("RESET SLAVE ALL")
    for db in databases:
        replica.q(f"DROP DATABASE IF EXISTS {db}")
    replica.q("RESET MASTER")
    replica.q("SET GLOBAL gtid_slave_pos = ''")
    if prepare is not None:
        prepare(replica)
    replica.q(f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={port}, "
              f"MASTER_USER='{USER}', MASTER_PASSWORD='{PASSWORD}', "
              f"MASTER_HEARTBEAT_PERIOD=1, {how}")
    replica.q("START SLAVE")


@contextlib.contextmanager
def replica_server(name):
    """A private MariaDB to replicate with (server id 2), its replication stopped and the
    server destroyed at the end."""
    srv = _start(name, "--server-id=2")
    try:
        yield srv
    finally:
        try:
            srv.q("STOP SLAVE")
        finally:
            srv.destroy()


@pytest.fixture(scope="module")
def replica():
    with replica_server("serve-replica") as srv:
        yield srv


def test_replica_by_file_and_position(writer, folder, serve, replica):
    first = sorted(p.name for p in folder.iterdir())[0]
    _replicate(replica, serve.port,
               f"MASTER_LOG_FILE='{first}', MASTER_LOG_POS=4, MASTER_USE_GTID=no")
    st = _wait_caught_up(replica, writer)
    assert st["Slave_IO_Running"] == "Yes" and st["Slave_SQL_Running"] == "Yes"
    assert st["Master_Server_Id"] == 7
    last = sorted(p.name for p in folder.iterdir())[-1]
    assert st["Master_Log_File"] == last
    assert st["Read_Master_Log_Pos"] == (folder / last).stat().st_size


def test_replica_in_gtid_mode_follows_growing_files(writer, folder, serve, replica):
    _replicate(replica, serve.port, "MASTER_USE_GTID=slave_pos")
    st = _wait_caught_up(replica, writer)
    assert st["Using_Gtid"] == "Slave_Pos"
    assert replica.q("SELECT @@gtid_slave_pos")[0][0] == \
        writer.q("SELECT @@gtid_binlog_pos")[0][0]
    # the writer goes on: its last file grows, then a new one starts; serve follows both
    _workload(writer, 101, 130)
    _copy_binlogs(writer, folder)
    _wait_caught_up(replica, writer)
    assert replica.q("SELECT @@gtid_slave_pos")[0][0] == \
        writer.q("SELECT @@gtid_binlog_pos")[0][0]


def decoded_rows(folder, *options, files=None):
    """(table, kind, values, after) of every row change, as ``binlog-schema decode --rows``
    gives (the values as its JSON has them), of ``folder``'s files (or of ``files``)."""
    files = sorted(str(p) for p in (folder.iterdir() if files is None else files))
    out = fw.binlog_schema("decode", "--rows", *options, *files)
    assert out.returncode == 0, out.stderr.decode()
    rows, tables = [], {}
    for line in out.stdout.decode().splitlines():
        ev = json.loads(line)
        if ev["type"] == "TABLE_MAP_EVENT":
            tables[ev["body"]["table_id"]] = f"{ev['body']['database']}.{ev['body']['table']}"
        elif "rows" in ev and isinstance(ev["rows"], list):
            name = tables[ev["body"]["table_id"]]
            for r in ev["rows"]:
                if "before" in r:
                    rows.append((name, "update", r["before"], r["after"]))
                else:
                    rows.append((name, ev["type"].split("_")[0].lower(), r, None))
    return rows


def _time_us(text: str) -> int:
    """``[-]H:MM:SS[.f]`` (decode's TIME) in microseconds."""
    sign = -1 if text.startswith("-") else 1
    hms, _, frac = text.lstrip("-").partition(".")
    h, m, sec = (int(x) for x in hms.split(":"))
    return sign * (((h * 60 + m) * 60 + sec) * 1_000_000 + int((frac + "000000")[:6]))


def _unbytes(v):
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, dict):
        return {_unbytes(k): _unbytes(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_unbytes(x) for x in v]
    return v


def same_value(theirs, ours) -> bool:
    """python-mysql-replication's value (its Python types) against decode's (JSON): bytes
    against ``{"hex"}`` or a geometry's ``{"srid", "wkb"}`` (pmr: 4-byte SRID + WKB), a BIT's
    string of 0s and 1s against its number, a SET's Python set against decode's list, a TIME's
    timedelta and a DATETIME's or TIMESTAMP's datetime against its text, a MySQL JSON's
    structure (pmr's keys and strings bytes) against decode's, a MySQL text column (pmr's
    bytes) against decode's text; the rest by text."""
    import datetime
    # pmr's known quirks, each matched exactly: a zero date and an empty SET read as None, an
    # empty binary string as "", YEAR 0000 as 1900, and a negative TIME's fraction added
    # instead of taken away
    if theirs is None and (ours == [] or isinstance(ours, str) and ours.startswith("0000-00-00")):
        return True
    if (theirs, ours) in (("", {"hex": ""}), (1900, 0)):
        return True
    if theirs is None or ours is None:
        return theirs is None and ours is None
    if isinstance(theirs, bytes) and isinstance(ours, dict):
        if "wkb" in ours:
            return theirs == ours["srid"].to_bytes(4, "little") + bytes.fromhex(ours["wkb"])
        return theirs == bytes.fromhex(ours["hex"])
    if isinstance(theirs, bytes) and isinstance(ours, str):   # (MySQL text: pmr's bytes)
        for charset in ("utf-8", "latin-1"):
            try:
                if theirs.decode(charset) == ours:
                    return True
            except UnicodeDecodeError:
                pass
        return False
    if isinstance(theirs, datetime.timedelta) and isinstance(ours, str):
        us, want = theirs // datetime.timedelta(microseconds=1), _time_us(ours)
        whole, frac = divmod(-want, 1_000_000)
        return us == want or (want < 0 and frac and us == -(whole + 1) * 1_000_000 + frac)
    if isinstance(theirs, datetime.datetime) and isinstance(ours, str):   # (TIMESTAMP: UTC,
        # "Z" in decode's text, a naive UTC datetime from pmr whatever the local zone)
        return theirs.replace(tzinfo=None) == datetime.datetime.fromisoformat(ours.rstrip("Z"))
    if isinstance(theirs, set):
        return sorted(theirs) == sorted(ours)
    if isinstance(theirs, (dict, list)):   # MySQL JSON: pmr leaves keys and strings bytes
        return _unbytes(theirs) == ours
    if isinstance(theirs, str) and isinstance(ours, int) and set(theirs) <= {"0", "1"}:
        return int(theirs, 2) == ours
    return str(theirs) == str(ours)


def row_differences(theirs: list, ours: list) -> list:
    """The first few differences between two lists of ``(table, kind, values, after)``:
    the row's number, table and kind, and each differing column's two values."""
    out = [f"{len(theirs)} rows, want {len(ours)}"] if len(theirs) != len(ours) else []
    for i, (t, o) in enumerate(zip(theirs, ours)):
        if t[:2] != o[:2]:
            out.append(f"row {i}: {t[:2]} want {o[:2]}")
        for a, b in zip(t[2:], o[2:]):
            if (a is None) != (b is None) or (a is not None and set(a) != set(b)):
                out.append(f"row {i} {o[:2]}: columns {sorted(a or ())} want {sorted(b or ())}")
            elif a is not None:
                out += [f"row {i} {o[:2]} {k}: {a[k]!r:.120} want {b[k]!r:.120}"
                        for k in b if not same_value(a[k], b[k])]
        if len(out) >= 8:
            break
    return out


def pmr_rows(port, got=None, most=None, **options):
    """(table, kind, values, after) of every row change python-mysql-replication's
    BinLogStreamReader decodes from ``port`` (non-blocking: to the end of the last file);
    ``options``: BinLogStreamReader's (default: a MariaDB server). ``got``: the list the rows
    are added to (the rows read before an error); more than ``most`` rows: a failure."""
    from pymysqlreplication import BinLogStreamReader
    from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": port, "user": USER,
                             "password": PASSWORD},
        server_id=99, blocking=False, only_events=[WriteRowsEvent, UpdateRowsEvent,
                                                   DeleteRowsEvent],
        **({"is_mariadb": True} | options))
    got = [] if got is None else got
    try:
        for ev in stream:
            assert most is None or len(got) <= most, f"more than {most} rows: read again?"
            name = f"{ev.schema}.{ev.table}"
            for r in ev.rows:
                if isinstance(ev, UpdateRowsEvent):
                    got.append((name, "update", r["before_values"], r["after_values"]))
                else:
                    got.append((name, "write" if isinstance(ev, WriteRowsEvent) else "delete",
                                r["values"], None))
    finally:
        stream.close()
    return got


def test_python_mysql_replication_reads_what_decode_gives(folder, serve):
    want = decoded_rows(folder)
    assert len(want) > 100
    assert not row_differences(pmr_rows(serve.port), want)


# ------------------------------------------------------------------ bad peers


def _connect(port, password=PASSWORD):
    import pymysql
    return pymysql.connect(host="127.0.0.1", port=port, user=USER, password=password)


def _answers(port):
    conn = _connect(port)
    try:
        cur = conn.cursor()
        cur.execute("SHOW BINARY LOGS")
        return cur.fetchall()
    finally:
        conn.close()


def test_bad_peers_get_an_error_and_others_are_served(folder, serve):
    import pymysql
    from pymysql.constants.COMMAND import COM_BINLOG_DUMP
    sizes = tuple((p.name, str(p.stat().st_size)) for p in sorted(folder.iterdir()))
    # a wrong password
    with pytest.raises(pymysql.err.OperationalError) as e:
        _connect(serve.port, "wrong")
    assert e.value.args[0] == 1045
    # garbage instead of the handshake reply: an ERR or a closed connection
    with socket.create_connection(("127.0.0.1", serve.port), timeout=10) as s:
        s.recv(4096)
        s.sendall(b"\x05\x00\x00\x01garbage!!")
        reply = s.recv(4096)
        assert reply == b"" or reply[4] == 0xff
    # a dump of a missing file: ERR 1236
    conn = _connect(serve.port)
    conn.query("SET @master_binlog_checksum = @@global.binlog_checksum")
    conn._execute_command(COM_BINLOG_DUMP, (4).to_bytes(4, "little") + b"\0\0" +
                          (77).to_bytes(4, "little") + b"no-such-file.000001")
    with pytest.raises(pymysql.err.OperationalError) as e:
        conn._read_packet()
    assert e.value.args[0] == 1236 and "no-such-file" in e.value.args[1]
    conn.close()
    # a client gone mid-stream (a blocking dump, its socket closed after the first events)
    conn = _connect(serve.port)
    conn.query("SET @master_binlog_checksum = @@global.binlog_checksum")
    first = sorted(p.name for p in folder.iterdir())[0]
    conn._execute_command(COM_BINLOG_DUMP, (4).to_bytes(4, "little") + b"\0\0" +
                          (78).to_bytes(4, "little") + first.encode())
    assert conn._read_packet().read(1) == b"\x00"
    conn._sock.shutdown(socket.SHUT_RDWR)
    conn._sock.close()
    # meanwhile and afterwards another client is served
    assert _answers(serve.port) == sizes
    assert serve.proc.poll() is None


def test_caching_sha2_password(folder):
    """``--auth caching_sha2_password``: PyMySQL (its own caching_sha2_password client) gets
    in with the password (the first login by full authentication, the next by the fast path:
    see test_serve_auth_server for each path), and not without it."""
    import pymysql
    s = Serve(folder, "--auth", "caching_sha2_password")
    try:
        conn = _connect(s.port)
        assert conn.get_server_info().endswith("MariaDB-binlog-schema")
        assert conn._auth_plugin_name == "caching_sha2_password"
        conn.close()
        assert _answers(s.port)[0][0] == sorted(p.name for p in folder.iterdir())[0]
        with pytest.raises(pymysql.err.OperationalError) as e:
            _connect(s.port, "wrong")
        assert e.value.args[0] == 1045
    finally:
        s.stop()


# ------------------------------------------------------------------ never a loop


def _rename_rotate(source, target, next_file):
    """``source`` copied to ``target``, its ROTATE naming ``next_file`` (the CRC32 rebuilt);
    the ROTATE's offset."""
    from binlog_schema.format.stream import BinlogReader
    from binlog_schema.format.writer import BinlogWriter
    at = None
    with open(target, "wb") as out:
        w = BinlogWriter(out)
        for rec in BinlogReader(str(source)):
            value = rec.value
            if rec.type_name == "ROTATE_EVENT":
                at = rec.offset
                value["body"]["next_file"] = next_file
            w.write_record(rec, value)
    assert at is not None and target.stat().st_size == source.stat().st_size
    return at


def _stream_to_the_end(port):
    """``binlog-schema stream`` of ``port`` (to the end of the last file; bounded: a stream
    that loops ends in the timeout, a failure): (status, stdout's records, stderr)."""
    out = subprocess.run([sys.executable, "-m", "binlog_schema", "stream", "--port", str(port),
                          "--user", USER], capture_output=True, text=True, timeout=60, cwd=fw.ROOT,
                         env={**os.environ, "MYSQL_PWD": PASSWORD})
    return out.returncode, [json.loads(x) for x in out.stdout.splitlines()], out.stderr


def _decoded_before(paths, stop):
    """decode's records of ``paths`` (file base names), up to offset ``stop`` of the last."""
    out = []
    for path in paths:
        run = fw.binlog_schema("decode", path)
        assert run.returncode == 0, run.stderr.decode()
        for line in run.stdout.decode().splitlines():
            rec = json.loads(line)
            rec["file"] = path.name
            if path == paths[-1] and rec["offset"] >= stop:
                break
            out.append(rec)
    return out


def _stops_once(port, paths, stop, refusal):
    """``stream`` of ``port``: status 1, the refusal on stderr (one line), each event of
    ``paths`` before offset ``stop`` of the last printed once (the FORMAT_DESCRIPTION as a
    server sends it: its in-use flag cleared)."""
    status, records, err = _stream_to_the_end(port)
    assert status == 1 and refusal in err and err.count("\n") == 1, err
    places = [(r["file"], r["offset"]) for r in records]
    assert len(places) == len(set(places)), "an event printed twice"
    for r in records:
        if r["type"] == "FORMAT_DESCRIPTION_EVENT":
            r["header"]["flags"] = [f for f in r["header"]["flags"] if f != "BINLOG_IN_USE"]
    want = _decoded_before(paths, stop)
    for r in want:
        if r["type"] == "FORMAT_DESCRIPTION_EVENT":
            r["header"]["flags"] = [f for f in r["header"]["flags"] if f != "BINLOG_IN_USE"]
    assert records == want


def test_a_rotate_naming_its_own_file_stops_the_replica_and_stream(writer, replica, tmp_path):
    """Renamed copies: the writer's first file served as mariadb-bin.000002, its ROTATE
    naming mariadb-bin.000002. The MariaDB replica stops with ERR 1236 at the ROTATE (its
    position the one before it, nothing applied twice); so does ``stream``."""
    source = writer.binlog_dir / "mariadb-bin.000001"
    folder = tmp_path / "renamed"
    folder.mkdir()
    copy = folder / "mariadb-bin.000002"
    at = _rename_rotate(source, copy, "mariadb-bin.000002")   # (as it was: the file's own)
    refusal = f"mariadb-bin.000002: the ROTATE at offset {at} names mariadb-bin.000002, " \
              "the file itself"
    s = Serve(folder, "--heartbeat", "0.5")
    try:
        _replicate(replica, s.port, "MASTER_LOG_FILE='mariadb-bin.000002', MASTER_LOG_POS=4, "
                                    "MASTER_USE_GTID=no")
        deadline = time.monotonic() + 60
        while True:
            st = replica.slave_status()
            if st["Slave_IO_Running"] == "No" and st["Exec_Master_Log_Pos"] == at:
                break
            assert time.monotonic() < deadline, f"the replica did not stop at {at}: {st}"
            time.sleep(0.3)
        assert st["Last_IO_Errno"] == 1236 and refusal in st["Last_IO_Error"], st
        assert (st["Master_Log_File"], st["Read_Master_Log_Pos"]) == (copy.name, at)
        assert not st["Last_SQL_Error"] and st["Slave_SQL_Running"] == "Yes", st
        _stops_once(s.port, [copy], at, "server error 1236: " + refusal)
    finally:
        replica.q("STOP SLAVE")
        s.stop()
    assert f"serve: {refusal}" in s.proc.stderr.read()


def test_a_cycle_of_two_files_stops_python_mysql_replication_and_stream(writer, tmp_path):
    """a -> b -> a: the writer's first two files, the second's ROTATE naming the first.
    python-mysql-replication reads every row of both once, then gets ERR 1236."""
    import pymysql
    folder = tmp_path / "cycle"
    folder.mkdir()
    a, b = folder / "mariadb-bin.000001", folder / "mariadb-bin.000002"
    shutil.copyfile(writer.binlog_dir / a.name, a)
    at = _rename_rotate(writer.binlog_dir / b.name, b, a.name)
    refusal = f"{b.name}: the ROTATE at offset {at} names {a.name}, which comes before it " \
              f"in the folder"
    want = decoded_rows(folder)
    assert len(want) > 50
    s = Serve(folder)
    try:
        got = []
        with pytest.raises(pymysql.err.OperationalError) as e:
            pmr_rows(s.port, got=got, most=len(want))
        assert e.value.args[0] == 1236 and refusal in e.value.args[1], e.value.args
        assert not row_differences(got, want)
        _stops_once(s.port, [a, b], at, refusal)
    finally:
        s.stop()
    assert f"serve: {refusal}" in s.proc.stderr.read()


def test_a_server_folder_with_its_index_and_state_files(writer, tmp_path):
    """The writer's binlog folder as the server keeps it (its index), with a GTID state file
    and a replica's info file beside: the binlogs are served, as decode reads them."""
    folder = tmp_path / "server-folder"
    shutil.copytree(writer.binlog_dir, folder)
    assert (folder / "mariadb-bin.index").is_file()
    (folder / "mariadb-bin.state").write_text(writer.q("SELECT @@gtid_binlog_state")[0][0])
    (folder / "relay-log.info").write_text("7\n./relay-bin.000002\n4\nmariadb-bin.000002\n4\n")
    binlogs = sorted(p for p in folder.iterdir() if p.name[-1].isdigit())
    s = Serve(folder)
    try:
        assert [n for n, _size in _answers(s.port)] == [p.name for p in binlogs]
        assert not row_differences(pmr_rows(s.port), decoded_rows(folder, files=binlogs))
    finally:
        s.stop()

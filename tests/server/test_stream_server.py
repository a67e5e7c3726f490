"""``binlog-schema stream`` against a real MariaDB (a private server of scripts/mariadb.sh):
what it streams equals ``decode --rows`` of the server's files; a checkpoint (``--resume``)
delivers nothing twice and loses nothing, across a server restart with ``--stop-never``; an
event larger than one 16 MiB packet arrives joined; checksums CRC32 and NONE; ``serve`` over
copies of the files streams the same; refusals (wrong password, a missing start file) are one
stderr line and status 1."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from . import flashback_workload as fw
from ..conftest import ROOT, unavailable

pytestmark = pytest.mark.server

USER, PASSWORD = "streamer", "pw stream"
CLI = [sys.executable, "-m", "binlog_schema"]


class _Server(fw.Server):
    def __init__(self, name, *options):
        super().__init__(name, *options)
        env = (ROOT / ".work" / "mariadb" / name / "env").read_text().split()
        self.port = int(dict(line.split("=", 1) for line in env if "=" in line)["port"])
        self.options = options
        self.q(f"CREATE USER IF NOT EXISTS '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'")
        self.q(f"GRANT ALL ON *.* TO '{USER}'@'%'")

    def restart(self):
        """Stopped and started again on its datadir and port (a new binlog file)."""
        self.conn.close()
        sh = str(fw.MARIADB_SH)
        subprocess.run(["bash", sh, "stop", self.name], check=True, capture_output=True,
                       timeout=120)
        out = subprocess.run(["bash", sh, "start", self.name, *self.options],
                             env={**os.environ, "MARIADB_PORT": str(self.port)},
                             capture_output=True, text=True, timeout=180)
        assert out.returncode == 0, out.stderr[-2000:]
        self.conn = self.connect()

    def files(self):
        return [self.binlog_dir / r[0] for r in self.q("SHOW BINARY LOGS")]


def _server(name, *options):
    try:
        return _Server(f"{name}-{os.getpid()}", *options)
    except RuntimeError as e:
        unavailable(f"the private MariaDB did not start: stream tier not run: {e}")


def _table(server):
    """The workload's table, st.t."""
    server.q("CREATE DATABASE st")
    server.q("CREATE TABLE st.t (id INT PRIMARY KEY, n BIGINT, s VARCHAR(40), "
             "d DECIMAL(10,2), b LONGBLOB) DEFAULT CHARSET=utf8mb4")


@pytest.fixture(scope="module")
def crc_server():
    s = _server("stream-crc")
    _table(s)
    yield s
    s.destroy()


@pytest.fixture(scope="module")
def password_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("stream") / "pw"
    p.write_text(PASSWORD + "\n")
    return p


def _workload(server, first, last):
    server.q("INSERT INTO st.t (id, n, s, d) VALUES " + ",".join(
        f"({i}, {i * 7919}, 'row {i} ✓', {i}.5)" for i in range(first, last + 1)))
    server.q("UPDATE st.t SET s = CONCAT(s, ' u'), n = n + 1 WHERE MOD(id, 3) = 0 "
             "AND id BETWEEN %s AND %s", first, last)
    server.q("DELETE FROM st.t WHERE MOD(id, 4) = 0 AND id BETWEEN %s AND %s", first, last)


def _stream(server, password_file, *extra, timeout=120):
    out = subprocess.run([*CLI, "stream", "--port", str(server.port), "--user", USER,
                          "--password-file", str(password_file), "--server-id", "4242",
                          *extra], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    return out


def _decoded(files, *extra):
    lines = []
    for f in files:
        out = subprocess.run([*CLI, "decode", "--rows", *extra, str(f)], capture_output=True,
                             text=True, timeout=300, cwd=ROOT)
        assert out.returncode == 0, out.stderr[-2000:]
        lines += [json.loads(x) for x in out.stdout.splitlines()]
    return [_normal(d) for d in lines]


def _normal(d):
    """A record as both sides write it: the file's base name; the FORMAT_DESCRIPTION's
    in-use flag, which a server clears in the copy it sends."""
    d["file"] = pathlib.Path(d["file"]).name
    if d.get("type") == "FORMAT_DESCRIPTION_EVENT":
        d["header"]["flags"] = [f for f in d["header"]["flags"] if f != "BINLOG_IN_USE"]
    return d


def _lines(text):
    return [_normal(json.loads(x)) for x in text.splitlines()]


def _rows(records):
    return [(d["file"], d["offset"], d["rows"]) for d in records if "rows" in d]


def test_stream_equals_decode_of_the_files(crc_server, password_file):
    _workload(crc_server, 1, 200)
    crc_server.q("FLUSH BINARY LOGS")
    _workload(crc_server, 201, 300)
    out = _stream(crc_server, password_file, "--rows")
    assert out.returncode == 0, out.stderr
    streamed = _lines(out.stdout)
    files = crc_server.files()
    assert len({d["file"] for d in streamed}) == len(files) >= 2
    decoded = _decoded(files)
    # the last file is still being written: the stream ended at its end when it was read
    assert streamed == decoded[:len(streamed)]
    assert len(_rows(streamed)) >= 6 and _rows(streamed) == _rows(decoded)


def test_an_event_larger_than_a_packet_arrives_whole():
    """A 17 MiB rows event crosses the wire in two packet pieces and arrives joined: the
    record's bytes are the file's, and it decodes. (In-process, on the records: the JSON line
    of such an event, its rows in hex, would cost the test process hundreds of MiB.)"""
    from binlog_schema.wire.replication.client import ReplicationStream
    # (a server of its own: the other tests decode their servers' files to JSON, which for
    # this event would cost the test process about 1 GiB)
    big_server = _server("stream-big", "--max-allowed-packet=64M")
    try:
        _big_event(big_server, ReplicationStream)
    finally:
        big_server.destroy()


def _big_event(server, ReplicationStream):
    server.q("CREATE DATABASE st")
    server.q("CREATE TABLE st.t (id INT PRIMARY KEY, b LONGBLOB)")
    server.q("INSERT INTO st.t (id, b) VALUES (100000, REPEAT('z', 17 << 20))")
    last = server.files()[-1]
    stream = ReplicationStream("127.0.0.1", server.port, USER, PASSWORD, server_id=4245,
                               file=last.name)
    big = [(stream.file, rec.offset, rec.raw, rec.error, rec.value is not None)
           for rec in stream if len(rec.raw) > 0xFFFFFF]
    assert len(big) == 1
    name, offset, raw, error, decoded = big[0]
    assert name == last.name and error is None and decoded
    with open(last, "rb") as f:
        f.seek(offset)
        assert f.read(len(raw)) == raw
    del big, raw


def test_resume_delivers_nothing_twice_and_loses_nothing(crc_server, password_file,
                                                         tmp_path):
    ck = tmp_path / "ck.json"
    file0 = crc_server.files()[-1].name
    first = _stream(crc_server, password_file, "--rows", "--file", file0, "--resume", str(ck))
    assert first.returncode == 0, first.stderr
    saved = json.loads(ck.read_text())
    assert saved["file"] == file0 and saved["position"] == crc_server.master_status()[1]
    _workload(crc_server, 1001, 1100)
    # --resume wins over --file/--position
    second = _stream(crc_server, password_file, "--rows", "--file", "nonesuch.000001",
                     "--resume", str(ck))
    assert second.returncode == 0, second.stderr
    streamed = _lines(first.stdout) + _lines(second.stdout)
    decoded = _decoded([crc_server.binlog_dir / file0])
    assert streamed == decoded
    assert len(_lines(second.stdout)) > 0
    assert json.loads(ck.read_text())["position"] == crc_server.master_status()[1]


def test_stop_never_reconnects_after_a_restart(crc_server, password_file, tmp_path):
    ck = tmp_path / "ck.json"
    file0 = crc_server.files()[-1].name
    out_path = tmp_path / "out.jsonl"
    with open(out_path, "w") as out, open(tmp_path / "err", "w") as err:
        proc = subprocess.Popen([*CLI, "stream", "--port", str(crc_server.port), "--user", USER,
                                 "--password-file", str(password_file), "--server-id", "4243",
                                 "--rows", "--file", file0, "--resume", str(ck),
                                 "--stop-never", "--heartbeat", "1"],
                                stdout=out, stderr=err, cwd=ROOT, start_new_session=True)
    try:
        _workload(crc_server, 2001, 2050)
        crc_server.restart()
        _workload(crc_server, 2051, 2100)
        want = crc_server.master_status()
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if ck.exists():
                now = json.loads(ck.read_text())
                if (now["file"], now["position"]) == want:
                    break
            time.sleep(0.5)
        else:
            pytest.fail(f"the stream did not reach {want}: {(tmp_path / 'err').read_text()}")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    files = [f for f in crc_server.files() if f.name >= file0]
    assert len(files) >= 2
    streamed = _lines(out_path.read_text())
    decoded = _decoded(files)
    assert _rows(streamed) == _rows(decoded)
    assert streamed == decoded[:len(streamed)]


def test_refusals_are_one_line_and_status_1(crc_server, password_file, tmp_path):
    bad = tmp_path / "bad"
    bad.write_text("wrong\n")
    out = subprocess.run([*CLI, "stream", "--port", str(crc_server.port), "--user", USER,
                          "--password-file", str(bad)], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert out.returncode == 1 and "Access denied" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    out = _stream(crc_server, password_file, "--file", "mariadb-bin.999999")
    assert out.returncode == 1 and "1236" in out.stderr and "Traceback" not in out.stderr
    out = subprocess.run([*CLI, "stream", "--port", str(_free_port())], capture_output=True,
                         text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 1 and "cannot connect" in out.stderr, out.stderr


def test_checksum_none(password_file):
    s = _server("stream-none", "--binlog-checksum=NONE")
    try:
        _table(s)
        _workload(s, 1, 50)
        out = _stream(s, password_file, "--rows")
        assert out.returncode == 0, out.stderr
        streamed = _lines(out.stdout)
        assert all("checksum" not in d for d in streamed
                   if d["type"] != "FORMAT_DESCRIPTION_EVENT") and len(streamed) > 10
        assert streamed == _decoded(s.files())[:len(streamed)] and _rows(streamed)
    finally:
        s.destroy()


def test_stream_from_serve_equals_stream_from_the_server(crc_server, password_file,
                                                         tmp_path):
    with _serving(crc_server, tmp_path, password_file) as (folder, port):
        out = subprocess.run([*CLI, "stream", "--port", str(port), "--user", USER,
                              "--password-file", str(password_file), "--rows"],
                             capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert out.returncode == 0, out.stderr
        assert _lines(out.stdout) == _decoded(sorted(folder.iterdir()))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _serving(server, tmp_path, password_file, *options):
    """``binlog-schema serve`` (a subprocess, on a free port, once it accepts connections)
    over copies of ``server``'s binlog files: ``(folder, port)``; stopped after."""
    folder = tmp_path / "served"
    folder.mkdir()
    for f in server.files():
        shutil.copyfile(f, folder / f.name)
    port = _free_port()
    proc = subprocess.Popen([*CLI, "serve", str(folder), "--port", str(port), "--user", USER,
                             "--password-file", str(password_file), *options],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                            start_new_session=True)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail(f"serve did not start: {proc.stderr.read().decode()[-2000:]}")
        yield folder, port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def _self_signed(tmp_path, name):
    key, cert = tmp_path / f"{name}-key.pem", tmp_path / f"{name}-cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return key, cert


def test_tls(password_file, tmp_path):
    """The user must connect over TLS (REQUIRE SSL): the stream does, with --ssl and with
    --ssl-ca (the certificate verified: another CA is refused), and the server counts the TLS
    handshakes."""
    key, cert = _self_signed(tmp_path, "server")
    _other_key, other = _self_signed(tmp_path, "other")
    s = _server("stream-tls", f"--ssl-cert={cert}", f"--ssl-key={key}")
    try:
        s.q(f"ALTER USER '{USER}'@'%' REQUIRE SSL")
        assert s.q("SHOW VARIABLES LIKE 'have_ssl'")[0][1] == "YES"
        _table(s)
        _workload(s, 1, 30)
        want = _decoded(s.files())

        def accepts():
            return int(s.q("SHOW GLOBAL STATUS LIKE 'Ssl_accepts'")[0][1])

        for option in (["--ssl"], ["--ssl-ca", str(cert)]):
            before = accepts()
            out = _stream(s, password_file, "--rows", *option)
            assert out.returncode == 0, out.stderr
            got = _lines(out.stdout)
            assert got == want[:len(got)] and _rows(got) == _rows(want) and _rows(want)
            assert accepts() > before
        out = _stream(s, password_file, "--ssl-ca", str(other))
        assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
        assert "certificate" in out.stderr.lower() or "ssl" in out.stderr.lower(), out.stderr
    finally:
        s.destroy()


def test_gtid_start_and_caching_sha2_password_through_serve(crc_server, password_file,
                                                            tmp_path):
    """--gtid D-S-N starts after that transaction (MariaDB's @slave_connect_state), against
    the real server and against ``serve --auth caching_sha2_password`` (PyMySQL's client side
    of caching_sha2_password, fast path, as MySQL 8's default; no MySQL server can be
    installed here)."""
    _workload(crc_server, 3001, 3030)
    streamed = _lines(_stream(crc_server, password_file, "--rows").stdout)
    gtids = [d for d in streamed if d["type"] == "GTID_EVENT"]
    assert len(gtids) > 4
    pick = gtids[len(gtids) // 2]
    body = pick["body"]
    gtid = f"{body['domain_id']}-{pick['header']['server_id']}-{body['seq_no']}"
    after = [d for d in streamed if (d["file"], d["offset"]) > (pick["file"], pick["offset"])]
    # (the first transaction after it, then the rest, as in the files)
    first = next(i for i, d in enumerate(after) if d["type"] == "GTID_EVENT")
    want = _rows(after[first:])
    out = _stream(crc_server, password_file, "--rows", "--gtid", gtid)
    assert out.returncode == 0, out.stderr
    assert _rows(_lines(out.stdout)) == want and want
    with _serving(crc_server, tmp_path, password_file, "--auth",
                  "caching_sha2_password") as (_folder, port):
        out = subprocess.run([*CLI, "stream", "--port", str(port), "--user", USER,
                              "--password-file", str(password_file), "--rows", "--gtid", gtid],
                             capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert out.returncode == 0, out.stderr
        assert _rows(_lines(out.stdout)) == want


def test_a_clashing_server_id_is_a_clear_error(crc_server, password_file, tmp_path):
    """Two streams with one --server-id: the server drops the first when the second
    registers; the first, reconnecting, finds the other in SHOW SLAVE HOSTS and stops with a
    clear error (status 1) instead of dropping it in turn; the second goes on."""
    def start(name):
        err = open(tmp_path / f"{name}.err", "w")
        return subprocess.Popen([*CLI, "stream", "--port", str(crc_server.port), "--user", USER,
                                 "--password-file", str(password_file), "--server-id", "777",
                                 "--stop-never", "--heartbeat", "1"],
                                stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT,
                                start_new_session=True)
    first = start("first")
    second = None
    try:
        time.sleep(3)
        second = start("second")
        assert first.wait(timeout=60) == 1
        text = (tmp_path / "first.err").read_text()
        assert "server id 777" in text and "--server-id" in text and "Traceback" not in text
        time.sleep(2)
        assert second.poll() is None, (tmp_path / "second.err").read_text()
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)


def _heartbeats_while_idle(port, seconds=3.0):
    """The heartbeats a blocking ReplicationStream (period 0.5 s) counts while the server
    has nothing to send."""
    import threading
    from binlog_schema.format.errors import ReplicationError
    from binlog_schema.wire.replication.client import ReplicationStream
    stream = ReplicationStream("127.0.0.1", port, USER, PASSWORD, server_id=4244,
                               blocking=True, heartbeat=0.5)
    seen = []

    def follow():
        try:
            for rec in stream:
                seen.append(rec)
        except ReplicationError:
            pass   # (the connection closed below)

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    time.sleep(seconds)
    stream.close()
    thread.join(timeout=30)
    return seen, stream.heartbeats


def test_heartbeats_from_the_server_and_from_serve(crc_server, tmp_path, password_file):
    seen, beats = _heartbeats_while_idle(crc_server.port)
    assert seen and beats >= 3
    with _serving(crc_server, tmp_path, password_file) as (_folder, port):
        seen, beats = _heartbeats_while_idle(port)
        assert seen and beats >= 3

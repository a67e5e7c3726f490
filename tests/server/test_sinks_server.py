"""``binlog-schema stream --to`` against real brokers (Debian's redis-server, nats-server with
JetStream, rabbitmq-server: private instances of scripts/brokers.sh) and a real MariaDB
(scripts/mariadb.sh), and ``--metrics``:

* at least once, exactly counted: a live workload streamed with ``--stop-never --resume``,
  the stream SIGKILLed at random moments and restarted, ends with every record of the
  workload in the broker as ``decode`` writes the server's files in the chosen format, once
  the duplicates are dropped by order key; the duplicates are one run per kill at most, of
  at most a group (``--group``) and a transaction (those not yet saved when it was killed);
  a group acknowledged whose checkpoint could not be saved is sent again whole, and only it;
* a broker that cannot be reached: a stderr line per retry, status 1 after --retry-for, the
  checkpoint left before the transaction not delivered;
* a scrape of --metrics during a live workload parses with prometheus_client's parser, its
  counters equal what the stream delivered; lag rises while the broker is paused (SIGSTOP)
  and /health fails past --stuck-after; both come back after.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from . import flashback_workload as fw
from ..conftest import ROOT, unavailable

pytestmark = pytest.mark.server

USER, PASSWORD = "streamer", "pw sink"
CLI = [sys.executable, "-m", "binlog_schema"]
BROKERS_SH = ROOT / "scripts" / "brokers.sh"
KILLS = 4
GROUP = 20   # --group of the kill test: several of its transactions (9 records) a group


class _Server(fw.Server):
    def __init__(self, name, *options):
        super().__init__(name, *options)
        env = (ROOT / ".work" / "mariadb" / name / "env").read_text().split()
        self.port = int(dict(line.split("=", 1) for line in env if "=" in line)["port"])
        self.q(f"CREATE USER IF NOT EXISTS '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'")
        self.q(f"GRANT ALL ON *.* TO '{USER}'@'%'")

    def files(self, first=""):
        return [self.binlog_dir / r[0] for r in self.q("SHOW BINARY LOGS") if r[0] >= first]


@pytest.fixture(scope="module")
def server():
    for lib in ("redis", "hiredis", "nats", "pika", "prometheus_client"):
        try:
            __import__(lib)
        except ImportError:
            unavailable(f"{lib} is not installed (pip install -e '.[dev]'): sink tier not run")
    try:
        s = _Server(f"sinks-{os.getpid()}")
    except RuntimeError as e:
        unavailable(f"the private MariaDB did not start: sink tier not run: {e}")
    s.q("CREATE DATABASE st")
    s.q("CREATE TABLE st.t (id INT PRIMARY KEY, n BIGINT, s VARCHAR(40), d DECIMAL(10,2)) "
        "DEFAULT CHARSET=utf8mb4")
    yield s
    s.destroy()


@pytest.fixture(scope="module")
def password_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("sinks") / "pw"
    p.write_text(PASSWORD + "\n")
    return p


class Broker:
    """A private broker of scripts/brokers.sh (``kind``: redis, nats, rabbitmq)."""

    def __init__(self, kind):
        self.kind, self.name = kind, f"t{os.getpid()}"
        began = time.monotonic()
        out = subprocess.run(["bash", str(BROKERS_SH), "start", kind, self.name],
                             capture_output=True, text=True, timeout=300)
        if out.returncode != 0:
            unavailable(f"scripts/brokers.sh could not start {kind} (scripts/"
                        f"install_brokers.sh installs it): {out.stderr[-2000:]}")
        self.seconds = time.monotonic() - began
        env = dict(line.split("=", 1) for line in out.stdout.split() if "=" in line)
        self.url, self.port, self.pid = env["url"], int(env["port"]), int(env["pid"])

    def stop(self):
        subprocess.run(["bash", str(BROKERS_SH), "destroy", self.kind, self.name],
                       capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def brokers():
    """Started on first use, each once; destroyed at the end."""
    started = {}

    def get(kind):
        if kind not in started:
            started[kind] = Broker(kind)
        return started[kind]
    yield get
    for b in started.values():
        b.stop()


# ---------------------------------------------------------------------------- the brokers' contents


def _redis_entries(broker, stream):
    import redis
    r = redis.Redis(port=broker.port)
    out = [{k.decode(): v for k, v in fields.items()} for _id, fields in r.xrange(stream)]
    r.close()
    return [(e["order_key"].decode(), e["value"], e.get("key"), e.get("gtid")) for e in out]


def _nats_entries(broker, subject):
    import nats

    async def read():
        nc = await nats.connect(broker.url)
        js = nc.jetstream()
        name = await js.find_stream_name_by_subject(subject)
        info = await js.stream_info(name)
        out = []
        for seq in range(info.state.first_seq, info.state.last_seq + 1):
            m = await js.get_msg(name, seq)
            h = m.headers or {}
            out.append((h["order_key"], m.data, h.get("key"), h.get("gtid")))
        await nc.close()
        return out
    return asyncio.run(read())


def _rabbitmq_queue(broker, exchange):
    """A durable fanout exchange and a queue bound to it (what a consumer sets up)."""
    import pika
    c = pika.BlockingConnection(pika.ConnectionParameters(port=broker.port))
    ch = c.channel()
    ch.exchange_declare(exchange, "fanout", durable=True)
    ch.queue_declare(exchange + ".q", durable=True)
    ch.queue_bind(exchange + ".q", exchange)
    c.close()


def _rabbitmq_entries(broker, exchange):
    import pika
    c = pika.BlockingConnection(pika.ConnectionParameters(port=broker.port))
    ch = c.channel()
    out = []
    while True:
        method, props, body = ch.basic_get(exchange + ".q", auto_ack=True)
        if method is None:
            break
        h = props.headers or {}
        assert props.message_id == h["order_key"] and method.routing_key == h.get("key", "")
        out.append((h["order_key"], body, h.get("key"), h.get("gtid")))
    c.close()
    return out


SINKS = {   # kind -> (URL scheme, setup, reader)
    "redis": (lambda b, t: None, _redis_entries),
    "nats": (lambda b, t: None, _nats_entries),
    "rabbitmq": (_rabbitmq_queue, _rabbitmq_entries),
}


def _drop_duplicates(entries):
    """What a consumer does: a record whose order key is not past the last one seen is a
    duplicate (a transaction sent again after a restart): (kept, duplicates)."""
    kept, dups, last = [], [], ""
    for e in entries:
        if e[0] <= last:
            dups.append(e)
        else:
            kept.append(e)
            last = e[0]
    return kept, dups


def _runs(entries):
    """The lengths of the runs of duplicates (records sent again after a restart)."""
    runs, last, run = [], "", 0
    for e in entries:
        if e[0] <= last:
            run += 1
            continue
        if run:
            runs.append(run)
        run, last = 0, e[0]
    return runs + [run] if run else runs


def _records_a_transaction(lines):
    """jsonl: the most events a transaction of the workload has (its GTID to its XID)."""
    most = count = 0
    for line in lines:
        kind = json.loads(line)["type"]
        count = 1 if kind == "GTID_EVENT" else count + 1
        most = max(most, count)
    return most


# ---------------------------------------------------------------------------- the workload


def _workload(server, first, count, pause=0.0):
    """``count`` transactions of several row changes each (ids from ``first``)."""
    conn = server.connect()
    try:
        for i in range(first, first + count):
            base = i * 10
            server.q("BEGIN", conn=conn)
            server.q("INSERT INTO st.t (id, n, s, d) VALUES " + ",".join(
                f"({base + j}, {base * 7919 + j}, 'row {base + j} ✓', {j}.25)"
                for j in range(5)), conn=conn)
            server.q("UPDATE st.t SET n = n + 1, s = CONCAT(s, ' u') WHERE id BETWEEN %s AND "
                     "%s", base, base + 2, conn=conn)
            server.q("DELETE FROM st.t WHERE id = %s", base + 4, conn=conn)
            server.q("COMMIT", conn=conn)
            if pause:
                time.sleep(pause)
    finally:
        conn.close()


def _stream(server, password_file, *extra, stdout=subprocess.DEVNULL, stderr=None):
    return subprocess.Popen([*CLI, "stream", "--port", str(server.port), "--user", USER,
                             "--password-file", str(password_file), "--server-id",
                             str(random.randint(5000, 9000)), *extra],
                            stdout=stdout, stderr=stderr, cwd=ROOT, start_new_session=True)


def _wait_checkpoint(ck, want, proc, timeout=180):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ck.exists():
            now = json.loads(ck.read_text())
            if (now["file"], now["position"]) == want:
                return
        if proc.poll() is not None:
            pytest.fail(f"the stream ended ({proc.returncode}) before {want}")
        time.sleep(0.3)
    pytest.fail(f"the stream did not reach {want}")


def _decoded(files, fmt):
    lines = []
    for f in files:
        out = subprocess.run([*CLI, "decode", "--rows", "--format", fmt, str(f)],
                             capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert out.returncode == 0, out.stderr[-2000:]
        lines += out.stdout.splitlines()
    return lines


def _normal_jsonl(text):
    d = json.loads(text)
    d["file"] = os.path.basename(d["file"])
    if d.get("type") == "FORMAT_DESCRIPTION_EVENT":
        d["header"]["flags"] = [f for f in d["header"]["flags"] if f != "BINLOG_IN_USE"]
    return d


# ---------------------------------------------------------------------------- at least once


@pytest.mark.parametrize("kind,fmt,group", [("redis", "maxwell", None),
                                            ("nats", "debezium", GROUP),
                                            ("rabbitmq", "jsonl", None)])
def test_killed_and_resumed_every_record_once_after_dropping_duplicates(
        server, password_file, brokers, tmp_path, kind, fmt, group):
    """``group`` None: the default, each transaction confirmed and saved alone (a kill sends
    again only the last unacknowledged transaction); else ``--group``."""
    broker = brokers(kind)
    target = f"cdc-{fmt}"
    setup, read = SINKS[kind]
    setup(broker, target)
    server.q("FLUSH BINARY LOGS")
    first = server.master_status()[0]
    ck = tmp_path / "ck.json"
    err = open(tmp_path / "err", "w")
    args = ["--stop-never", "--heartbeat", "1", "--file", first, "--resume", str(ck),
            "--format", fmt, "--rows", "--to", f"{broker.url}/{target}",
            *(() if group is None else ("--group", str(group)))]
    start = 100000 * (1 + list(SINKS).index(kind))
    load = threading.Thread(target=_workload, args=(server, start, 120, 0.02))
    load.start()
    rng = random.Random()
    kills = 0
    try:
        while kills < KILLS:
            proc = _stream(server, password_file, *args, stderr=err)
            time.sleep(rng.uniform(0.8, 2.5))
            assert proc.poll() is None, (tmp_path / "err").read_text()[-3000:]
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
            kills += 1
        load.join()
        proc = _stream(server, password_file, *args, stderr=err)
        _wait_checkpoint(ck, server.master_status(), proc)
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        load.join()
        err.close()
    entries = read(broker, target)
    kept, dups = _drop_duplicates(entries)
    want = _decoded(server.files(first), fmt)
    if fmt == "jsonl":
        assert [_normal_jsonl(e[1]) for e in kept] == [_normal_jsonl(x) for x in want]
    else:
        assert [e[1].decode() for e in kept] == want
        keys = [json.loads(e[2]) for e in kept]   # (table and primary key)
        assert all(k[:2] == ["st", "t"] and len(k[2]) == 1 for k in keys)
    assert sum('"table":"t"' in x or '"table_id"' in x for x in want) >= 120 * 3
    # the duplicates: records sent again after a kill, one run per kill at most, each a
    # record the broker already held: of one transaction by default; with --group, of at
    # most a group and a transaction (a group closes at its first transaction end past
    # ``group`` records: at most group - 1 and a transaction's)
    held = {e[0]: e[1] for e in kept}
    assert all(held[e[0]] == e[1] for e in dups)
    runs = _runs(entries)
    tx_records = 9 if fmt != "jsonl" else max(_records_a_transaction(want), 9)
    bound = tx_records if group is None else group - 1 + tx_records
    assert len(runs) <= KILLS and all(n <= bound for n in runs), runs
    print(f"{kind}: {len(entries)} messages, {len(dups)} duplicates over {KILLS} kills, "
          f"the broker started in {broker.seconds:.1f} s")


def test_a_group_acknowledged_but_not_saved_is_sent_again_whole_and_only_it(
        server, password_file, brokers, tmp_path):
    """Killed between a group's acknowledgement and its checkpoint's save (here: the save
    fails, the checkpoint's temporary file being a directory), the stream stops with status
    1; restarted, it sends that group again, and the broker's duplicates are that group's
    records exactly: 5 transactions of 9 records (the first transaction end at 40 or more)."""
    broker = brokers("redis")
    server.q("FLUSH BINARY LOGS")
    first = server.master_status()[0]
    _workload(server, 600000, 12)
    ck = tmp_path / "ck.json"
    blocker = tmp_path / "ck.json.tmp"
    blocker.mkdir()
    args = ["--file", first, "--resume", str(ck), "--format", "maxwell", "--group", "40",
            "--to", f"{broker.url}/grouped"]
    stopped = subprocess.run([*CLI, "stream", "--port", str(server.port), "--user", USER,
                              "--password-file", str(password_file), *args],
                             capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert stopped.returncode == 1 and "ck.json.tmp" in stopped.stderr, stopped.stderr
    assert not ck.exists()
    group = _redis_entries(broker, "grouped")
    assert len(group) == 45   # (acknowledged: the first group, whole)
    blocker.rmdir()
    again = subprocess.run([*CLI, "stream", "--port", str(server.port), "--user", USER,
                            "--password-file", str(password_file), *args],
                           capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert again.returncode == 0, again.stderr
    entries = _redis_entries(broker, "grouped")
    kept, dups = _drop_duplicates(entries)
    want = _decoded(server.files(first), "maxwell")
    assert len(want) == 12 * 9 and [e[1].decode() for e in kept] == want
    assert dups == group and _runs(entries) == [45]
    assert json.loads(ck.read_text())["position"] == server.master_status()[1]


def test_an_unreachable_broker_is_retried_then_status_1_checkpoint_kept(
        server, password_file, brokers, tmp_path):
    broker = brokers("redis")
    server.q("FLUSH BINARY LOGS")
    first = server.master_status()[0]
    ck = tmp_path / "ck.json"
    err_path = tmp_path / "err"
    err = open(err_path, "w")
    proc = _stream(server, password_file, "--stop-never", "--heartbeat", "1", "--file", first,
                   "--resume", str(ck), "--format", "maxwell", "--retry-for", "4", "--to",
                   f"{broker.url}/gone", stderr=err)
    try:
        _workload(server, 900000, 3)
        delivered = server.master_status()
        _wait_checkpoint(ck, delivered, proc)
        broker.stop()   # (the broker gone: a new one is started by the next test's fixture)
        _workload(server, 900100, 1)
        assert proc.wait(timeout=120) == 1
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        err.close()
    text = err_path.read_text()
    retries = [line for line in text.splitlines() if "; retry " in line]
    assert len(retries) >= 2 and all("redis://" in line for line in retries), text
    assert "giving up (--retry-for 4)" in text and "Traceback" not in text, text
    saved = json.loads(ck.read_text())
    assert (saved["file"], saved["position"]) == delivered   # (not past the lost one)


# ---------------------------------------------------------------------------- metrics


def _scrape(port, path="/metrics"):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def _metrics(port, wait=60):
    from prometheus_client.parser import text_string_to_metric_families
    deadline = time.monotonic() + wait
    while True:   # (the stream's first scrape: once it listens)
        try:
            status, text = _scrape(port)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    assert status == 200
    return {s.name: s.value for f in text_string_to_metric_families(text)
            for s in f.samples}


def _free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_metrics_count_what_was_delivered_and_lag_follows_a_paused_broker(
        server, password_file, brokers, tmp_path):
    broker = Broker("redis")   # (a broker of its own: paused below)
    try:
        _metrics_and_lag(server, password_file, broker, tmp_path)
    finally:
        os.kill(broker.pid, signal.SIGCONT)
        broker.stop()


def _metrics_and_lag(server, password_file, broker, tmp_path):
    import redis
    server.q("FLUSH BINARY LOGS")
    first = server.master_status()[0]
    port = _free_port()
    ck = tmp_path / "ck.json"
    err = open(tmp_path / "err", "w")
    proc = _stream(server, password_file, "--stop-never", "--heartbeat", "1", "--file", first,
                   "--resume", str(ck), "--format", "maxwell", "--to", f"{broker.url}/m",
                   "--metrics", f"127.0.0.1:{port}", "--stuck-after", "3", stderr=err)
    try:
        load = threading.Thread(target=_workload, args=(server, 700000, 40, 0.05))
        load.start()
        time.sleep(1.5)
        during = _metrics(port)   # (a scrape while the workload runs: it parses)
        assert during["binlog_schema_events_total"] > 0
        load.join()
        _wait_checkpoint(ck, server.master_status(), proc)
        m = _metrics(port)
        r = redis.Redis(port=broker.port)
        records = r.xlen("m")
        jsonl = [json.loads(x) for x in _decoded(server.files(first), "jsonl")]
        assert m["binlog_schema_rows_total"] == records == 40 * 9
        assert m["binlog_schema_events_total"] == len(jsonl)
        assert m["binlog_schema_bytes_total"] == sum(d["header"]["event_size"] for d in jsonl)
        assert m["binlog_schema_transactions_total"] == sum(
            d["type"] == "GTID_EVENT" for d in jsonl) == 40
        assert m["binlog_schema_lag_bytes"] == 0 and m["binlog_schema_lag_seconds"] == 0
        assert _scrape(port, "/health")[0] == 200
        # the broker paused: the stream waits for its acknowledgements while the server
        # goes on; lag in bytes and seconds rises, and /health fails past --stuck-after
        os.kill(broker.pid, signal.SIGSTOP)
        load = threading.Thread(target=_workload, args=(server, 710000, 12, 0.4))
        load.start()
        time.sleep(1.5)
        paused = [_metrics(port)]
        # (past --stuck-after 3 s with nothing delivered: polled, not slept for a fixed time,
        # so that a loaded machine's slower stream does not make it pass or fail by chance)
        deadline = time.monotonic() + 30
        time.sleep(2.5)
        health = _scrape(port, "/health")
        while health[0] != 503 and time.monotonic() < deadline:
            time.sleep(0.5)
            health = _scrape(port, "/health")
        paused.append(_metrics(port))
        assert paused[1]["binlog_schema_lag_seconds"] > paused[0]["binlog_schema_lag_seconds"] \
            > 0
        assert paused[1]["binlog_schema_lag_bytes"] > paused[0]["binlog_schema_lag_bytes"] > 0
        assert health[0] == 503 and "stuck" in health[1], health
        os.kill(broker.pid, signal.SIGCONT)
        load.join()
        _wait_checkpoint(ck, server.master_status(), proc)
        after = _metrics(port)
        assert after["binlog_schema_lag_bytes"] == 0 and after["binlog_schema_lag_seconds"] == 0
        assert after["binlog_schema_rows_total"] == r.xlen("m") == 52 * 9
        assert _scrape(port, "/health")[0] == 200
        r.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        err.close()


def _samples(port):
    from prometheus_client.parser import text_string_to_metric_families
    status, text = _scrape(port)
    assert status == 200
    return [s for f in text_string_to_metric_families(text) for s in f.samples]


def test_serve_metrics_show_each_replica_and_its_position(server, password_file, tmp_path):
    _workload(server, 800000, 5)
    server.q("FLUSH BINARY LOGS")
    folder = tmp_path / "served"
    folder.mkdir()
    files = server.files()[:-1]   # (the closed files: their sizes stay)
    for f in files:
        shutil.copyfile(f, folder / f.name)
    port, mport = _free_port(), _free_port()
    serve = subprocess.Popen([*CLI, "serve", str(folder), "--port", str(port), "--user", USER,
                              "--password-file", str(password_file), "--metrics",
                              f"127.0.0.1:{mport}"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd=ROOT, start_new_session=True)
    out_path = tmp_path / "out"
    stream = None
    try:
        assert _metrics(mport)["binlog_schema_serve_replicas"] == 0
        want = _decoded([folder / f.name for f in files], "jsonl")
        with open(out_path, "w") as out:
            stream = subprocess.Popen([*CLI, "stream", "--port", str(port), "--user", USER,
                                       "--password-file", str(password_file), "--stop-never",
                                       "--heartbeat", "1"], stdout=out,
                                      stderr=subprocess.DEVNULL, cwd=ROOT,
                                      start_new_session=True)
        deadline = time.monotonic() + 120
        while len(out_path.read_text().splitlines()) < len(want):
            assert time.monotonic() < deadline and stream.poll() is None
            time.sleep(0.3)
        samples = _samples(mport)
        by_name = {s.name: s for s in samples}
        assert by_name["binlog_schema_serve_replicas"].value == 1
        position = by_name["binlog_schema_serve_replica_position"]
        assert position.labels["file"] == files[-1].name
        assert position.value == files[-1].stat().st_size
        events = [json.loads(x) for x in want]
        fdes = sum(d["type"] == "FORMAT_DESCRIPTION_EVENT" for d in events)
        assert by_name["binlog_schema_serve_events_total"].value == len(events) - fdes
        assert by_name["binlog_schema_serve_bytes_total"].value == sum(
            d["header"]["event_size"] for d in events
            if d["type"] != "FORMAT_DESCRIPTION_EVENT")
        os.killpg(stream.pid, signal.SIGKILL)
        stream.wait(timeout=30)
        deadline = time.monotonic() + 30   # (the dump ends at its next heartbeat)
        while _metrics(mport)["binlog_schema_serve_replicas"] != 0:
            assert time.monotonic() < deadline
            time.sleep(0.5)
        assert _scrape(mport, "/health")[0] == 200
    finally:
        for proc in (stream, serve):
            if proc is not None and proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)

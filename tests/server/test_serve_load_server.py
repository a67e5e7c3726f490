"""``serve`` holds 32 concurrent streaming clients over a folder of more than 100 MiB: 27
``binlog-schema stream --rows`` and 4 python-mysql-replication clients read it whole while a
32nd ``stream`` is killed (SIGKILL) mid-stream. Every client that reads to the end gets
exactly ``decode --rows`` of the files (``stream``: the SHA-256 of its output equals decode's;
python-mysql-replication: its rows equal decode's value for value, checked as it reads), and
serve's memory stays flat: its RSS, sampled from /proc during the run, stays under 256 MiB,
and grows by no more than 64 MiB from the run's first half to its second.

A heavy test (marked ``load``; no MariaDB needed): the folder is two synthetic MariaDB files
(120 MiB, rows of 2 KiB texts, made in the test's tmp in about 10 s); the run takes about two
minutes on two free cores (32 clients decoding 120 MiB each, and serve sending 3.8 GB).
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from ..conftest import ROOT

pytestmark = [pytest.mark.load, pytest.mark.server]

CLI = [sys.executable, "-m", "binlog_schema"]
STREAMS, PMRS = 27, 4          # read to the end; one more stream is killed
RSS_LIMIT = 256 << 20
pytest.importorskip("pymysqlreplication")


def _spec(first_id: int, n: int, file_name: str, seq: int, timestamp: int) -> dict:
    """A MariaDB file of ``n`` transactions of 10 rows of 2 KiB texts, an update and a
    delete every fourth."""
    transactions = []
    for t in range(n):
        base = first_id + t * 10
        transactions.append({"changes": [{"insert": "t", "rows": [
            {"id": base + i, "n": t, "s": (f"row {base + i} ✓ " * 200)[:2000]}
            for i in range(10)]}]})
        if t % 4 == 3:
            transactions.append({"changes": [
                {"update": "t", "rows": [{"where": {"id": base}, "set": {"n": -t}}]},
                {"delete": "t", "rows": [{"where": {"id": base + 1}}]}]})
    return {"server": "mariadb-10.11", "database": "load",
            "settings": {"binlog_row_metadata": "FULL", "file_name": file_name,
                         "gtid_start": seq, "timestamp": timestamp},
            "tables": [{"name": "t", "primary_key": ["id"], "columns": [
                {"name": "id", "type": "INT", "nullable": False},
                {"name": "n", "type": "BIGINT"},
                {"name": "s", "type": "TEXT CHARACTER SET utf8mb4"}]}],
            "transactions": transactions}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    from binlog_schema.synthetic.writer import generate
    path = tmp_path_factory.mktemp("load")
    generate(_spec(1, 1300, "load.000001", 1, 1700000000), path / "load.000001")
    generate(_spec(20001, 1300, "load.000002", 2000, 1700100000), path / "load.000002")
    size = sum(p.stat().st_size for p in path.iterdir())
    assert size >= 100 << 20, size
    return path


def _digest(cmd, cwd=None):
    """(SHA-256 of a command's stdout, its bytes, the process), read as it comes."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    h, n = hashlib.sha256(), 0
    for chunk in iter(lambda: proc.stdout.read(1 << 16), b""):
        h.update(chunk)
        n += len(chunk)
    proc.wait()
    return h.hexdigest(), n, proc


def _rss(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def test_32_clients_get_decode_rows_and_serve_stays_flat(folder):
    want, want_bytes, proc = _digest([*CLI, "decode", "--rows", "load.000001", "load.000002"],
                                     cwd=folder)
    assert proc.returncode == 0 and want_bytes > 100 << 20
    serve = subprocess.Popen([*CLI, "serve", str(folder), "--port", "0"], cwd=ROOT,
                             stderr=subprocess.PIPE, text=True)
    try:
        line = serve.stderr.readline()
        assert " on 127.0.0.1:" in line, line
        port = int(line.split(" on 127.0.0.1:")[1].split()[0])
        samples, done = [], threading.Event()

        def sample():
            while not done.is_set():
                rss = _rss(serve.pid)
                if rss is not None:
                    samples.append(rss)
                done.wait(0.2)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        stream = [*CLI, "stream", "--port", str(port), "--user", "load", "--rows"]
        results: dict = {}

        def run(key, cmd, cwd=None):
            results[key] = _digest(cmd, cwd)
        threads = [threading.Thread(target=run, args=(i, stream, folder))
                   for i in range(STREAMS)]
        threads += [threading.Thread(target=run, args=(f"pmr{i}", [
            sys.executable, "-m", "tests.server.pmr_against_decode", str(port), str(folder)],
            ROOT)) for i in range(PMRS)]
        victim = subprocess.Popen(stream, cwd=folder, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        for t in threads:
            t.start()
        got = victim.stdout.read(8 << 20)   # (mid-stream: 8 MiB of its output read)
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        victim.stdout.close()
        for t in threads:
            t.join(timeout=1200)
        done.set()
        sampler.join()
        assert len(got) == 8 << 20 and victim.returncode == -signal.SIGKILL
        assert not any(t.is_alive() for t in threads)
        for i in range(STREAMS):
            digest, n, proc = results[i]
            assert proc.returncode == 0, (i, proc.stderr.read()[-2000:])
            assert (digest, n) == (want, want_bytes), f"stream client {i}: {n} bytes"
        for i in range(PMRS):
            _, _, proc = results[f"pmr{i}"]
            assert proc.returncode == 0, (i, proc.stderr.read()[-2000:])
        half = len(samples) // 2
        early, late = max(samples[:half]), max(samples[half:])
        print(f"serve RSS: {samples[0] >> 20} MiB at the start, at most {early >> 20} MiB in "
              f"the run's first half, {late >> 20} MiB in its second ({len(samples)} samples)")
        assert max(samples) < RSS_LIMIT, f"serve's RSS up to {max(samples) >> 20} MiB"
        assert late <= early + (64 << 20), "serve's RSS grows as the clients stream"
        assert serve.poll() is None   # (still serving)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _dumps(serve.pid) > 1:
            time.sleep(0.2)
        assert _dumps(serve.pid) <= 1, "serve's client threads did not end"
    finally:
        serve.terminate()
        err = serve.communicate(timeout=30)[1]
    assert "Traceback" not in err, err[-3000:]


def _dumps(pid: int) -> int:
    """serve's threads (its main thread, one per client)."""
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0

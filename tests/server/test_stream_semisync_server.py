"""``binlog-schema stream --semi-sync`` against a real MariaDB with semi-synchronous
replication on (a private server of scripts/mariadb.sh, ``rpl_semi_sync_master_timeout`` one
minute, so that a missing ack would show as a commit a minute long and a ``no_tx``): while the
stream is connected the server counts it as its semi-sync replica; every transaction of a DML
workload (across a binlog rotation) is committed with its ack (``Rpl_semi_sync_master_yes_tx``
grows by the number of transactions, ``Rpl_semi_sync_master_no_tx`` not at all); what was
streamed equals ``decode --rows`` of the server's files; a commit returns only after the
stream's consumer let go of the transaction (the ack follows delivery, not reception); with
semi-sync off on the server, ``--semi-sync --stop-never`` streams as without it (the server
counts no semi-sync replica) and says so once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time

import pytest

from ..conftest import ROOT
from .test_stream_server import (CLI, PASSWORD, USER, _decoded, _lines, _rows, _server, _table,
                                 _workload)
from .test_stream_server import password_file  # noqa: F401 (the stream tier's fixture)

pytestmark = pytest.mark.server

TIMEOUT_MS = 60000
"""The server's wait for an ack: far longer than any commit of the tests may take."""


@pytest.fixture(scope="module")
def semi_server():
    # (wait-no-slave OFF: the setup's commits, before any semi-sync replica is connected, do
    # not wait; once one is, every commit waits for its ack)
    s = _server("stream-semi", "--rpl-semi-sync-master-enabled=ON",
                f"--rpl-semi-sync-master-timeout={TIMEOUT_MS}",
                "--rpl-semi-sync-master-wait-no-slave=OFF")
    _table(s)
    yield s
    s.destroy()




def _status(server) -> dict:
    return {name: value for name, value in
            server.q("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_%'")}


def _count(server, name) -> int:
    return int(_status(server)[name])


def _wait_for(what, test, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if test():
            return
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}")


def _position(checkpoint):
    return checkpoint["file"], checkpoint["position"]


def _semi_workload(server):
    """DML in autocommit statements and in one multi-statement transaction, a binlog
    rotation in the middle: the number of transactions committed, and the longest step in
    seconds (a step: one, or three, commits)."""
    count, longest = 0, 0.0

    def commit(transactions, call, *args):
        nonlocal count, longest
        t0 = time.monotonic()
        call(*args)
        longest = max(longest, time.monotonic() - t0)
        count += transactions

    # (_workload: an INSERT, an UPDATE and a DELETE in autocommit, each changing rows: three
    # transactions)
    commit(3, _workload, server, 1, 100)
    commit(3, _workload, server, 101, 200)
    server.q("FLUSH BINARY LOGS")
    commit(3, _workload, server, 201, 300)
    cur = server.conn.cursor()
    cur.execute("BEGIN")
    cur.execute("INSERT INTO st.t (id, n, s) VALUES (1001, 1, 'in a transaction')")
    cur.execute("UPDATE st.t SET n = n + 1 WHERE id BETWEEN 1 AND 10")
    commit(1, cur.execute, "COMMIT")
    return count, longest


def test_semi_sync_stream_acks_every_transaction(semi_server, password_file, tmp_path):
    s = semi_server
    assert _status(s)["Rpl_semi_sync_master_status"] == "ON"
    s.q("FLUSH BINARY LOGS")
    file0 = s.files()[-1].name
    ck = tmp_path / "ck.json"
    out_path, err_path = tmp_path / "out.jsonl", tmp_path / "err"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        proc = subprocess.Popen([*CLI, "stream", "--port", str(s.port), "--user", USER,
                                 "--password-file", str(password_file), "--server-id", "4250",
                                 "--semi-sync", "--stop-never", "--heartbeat", "1", "--rows",
                                 "--file", file0, "--resume", str(ck)],
                                stdout=out, stderr=err, cwd=ROOT, start_new_session=True)
    try:
        _wait_for("the stream to connect as a semi-sync replica",
                  lambda: _count(s, "Rpl_semi_sync_master_clients") == 1 or
                  proc.poll() is not None)
        assert proc.poll() is None, err_path.read_text()
        before = _status(s)
        committed, longest = _semi_workload(s)
        after = _status(s)
        assert after["Rpl_semi_sync_master_clients"] == "1"
        assert after["Rpl_semi_sync_master_status"] == "ON"
        yes, no = (int(after[k]) - int(before[k]) for k in ("Rpl_semi_sync_master_yes_tx",
                                                             "Rpl_semi_sync_master_no_tx"))
        assert (yes, no) == (committed, 0), (after, before)
        assert longest < TIMEOUT_MS / 1000 / 2
        want = s.master_status()
        _wait_for(f"the stream to reach {want}",
                  lambda: ck.exists() and _position(json.loads(ck.read_text())) == want)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    _wait_for("the server to let the replica go",
              lambda: _count(s, "Rpl_semi_sync_master_clients") == 0)
    err = err_path.read_text()
    assert "warning" not in err and "Traceback" not in err, err
    files = [f for f in s.files() if f.name >= file0]
    assert len(files) >= 2
    streamed = _lines(out_path.read_text())
    decoded = _decoded(files)
    assert streamed == decoded[:len(streamed)]
    # every transaction of the workload, in the files as streamed (the decoded XIDs: the
    # transactions the server wrote, counted by the binlog, not by the test)
    assert sum(d["type"] == "XID_EVENT" for d in decoded) == committed
    assert _rows(streamed) == _rows(decoded) and len(_rows(streamed)) >= committed


def test_a_commit_waits_until_the_consumer_let_go_of_its_transaction(semi_server):
    """In-process: the consumer holds each transaction that arrives after the commit
    started for HOLD seconds; the committing session returns only after it let go (an ack
    sent when the transaction was read, before it was handed out, would let it return
    within milliseconds)."""
    from binlog_schema.format.errors import ReplicationError
    from binlog_schema.wire.replication.client import ReplicationStream
    hold = 1.5
    s = semi_server
    s.q("FLUSH BINARY LOGS")
    stream = ReplicationStream("127.0.0.1", s.port, USER, PASSWORD, server_id=4251,
                               file=s.files()[-1].name, blocking=True, heartbeat=1,
                               semi_sync=True)
    armed = threading.Event()
    times = {}

    def follow():
        try:
            for _file, batch in stream.transactions():
                if armed.is_set() and any(r.type_name == "XID_EVENT" for r in batch):
                    times["received"] = time.monotonic()
                    time.sleep(hold)
                    times["released"] = time.monotonic()
        except ReplicationError:
            pass   # (closed below)

    thread = threading.Thread(target=follow, daemon=True)
    thread.start()
    try:
        _wait_for("the stream to connect", lambda: stream.semi_sync_on and
                  _count(s, "Rpl_semi_sync_master_clients") == 1)
        yes = _count(s, "Rpl_semi_sync_master_yes_tx")
        armed.set()
        start = time.monotonic()
        s.q("INSERT INTO st.t (id, n) VALUES (5001, 1)")
        done = time.monotonic()
        assert "released" in times, times
        assert start < times["received"] < times["released"] <= done
        assert done - start >= hold
        assert _count(s, "Rpl_semi_sync_master_yes_tx") == yes + 1
        assert stream.acks >= 1
    finally:
        stream.close()
        thread.join(timeout=30)


def test_semi_sync_off_on_the_server_streams_as_usual_and_says_so(semi_server,
                                                                  password_file, tmp_path):
    s = semi_server
    s.q("SET GLOBAL rpl_semi_sync_master_enabled = OFF")
    try:
        s.q("FLUSH BINARY LOGS")
        file0 = s.files()[-1].name
        _workload(s, 7001, 7100)
        ck, out_path, err_path = tmp_path / "ck.json", tmp_path / "out.jsonl", tmp_path / "err"
        with open(out_path, "w") as out, open(err_path, "w") as err:
            proc = subprocess.Popen([*CLI, "stream", "--port", str(s.port), "--user", USER,
                                     "--password-file", str(password_file), "--server-id",
                                     "4252", "--semi-sync", "--stop-never", "--heartbeat", "1",
                                     "--rows", "--file", file0, "--resume", str(ck)],
                                    stdout=out, stderr=err, cwd=ROOT, start_new_session=True)
        try:
            want = s.master_status()
            _wait_for(f"the stream to reach {want}", lambda: ck.exists() and
                      _position(json.loads(ck.read_text())) == want or proc.poll() is not None)
            # (connected, following the server, and not as a semi-sync replica)
            assert proc.poll() is None, err_path.read_text()
            assert _count(s, "Rpl_semi_sync_master_clients") == 0
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
    finally:
        s.q("SET GLOBAL rpl_semi_sync_master_enabled = ON")
    err = err_path.read_text()
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "semi-synchronous replication is off" in warnings[0] \
        and "rpl_semi_sync_master_enabled=OFF" in warnings[0], err
    assert "Traceback" not in err
    streamed = _lines(out_path.read_text())
    decoded = _decoded([f for f in s.files() if f.name >= file0])
    assert streamed == decoded[:len(streamed)] and _rows(streamed) == _rows(decoded)
    assert _rows(streamed)

"""``serve --semi-sync`` with a real semi-synchronous MariaDB replica: the replica (started
with ``rpl_semi_sync_slave_enabled``) asks whether the master speaks semi-sync, sets
``@rpl_semi_sync_slave``, and then reads every event with the 0xef header; serve asks for an
ack at the end of each transaction and reads the replica's SemiSyncAck packets. The server
runs in this process (its counts at hand) over the serve tier's files.
"""

from __future__ import annotations

import time

import pytest

from binlog_schema.format.facts import codes
from binlog_schema.format.stream import BinlogReader

from .test_serve_server import (PASSWORD, USER, _replicate, _wait_caught_up, replica_server)
from .test_serve_server import folder, writer  # noqa: F401 (the serve tier's fixtures)

pytestmark = pytest.mark.server


def _transactions(folder) -> int:
    """The transactions of the files: their XID events and their statements outside BEGIN
    (what a semi-sync master asks an ack for)."""
    n = 0
    for path in sorted(folder.iterdir()):
        for rec in BinlogReader(str(path), types=[codes.XID_EVENT, codes.QUERY_EVENT]):
            query = rec.value["body"].get("query", "") if rec.kind == codes.QUERY_EVENT else ""
            if rec.kind == codes.XID_EVENT or not query.upper().startswith(("BEGIN",)):
                n += 1
    return n


def _serve(folder, semi_sync):
    from binlog_schema.wire.replication.server import BinlogServer, ServerConfig
    return BinlogServer(ServerConfig(folder=str(folder), user=USER, password=PASSWORD.encode(),
                                     server_id=7, semi_sync=semi_sync)).start()


@pytest.mark.parametrize("semi_sync", [True, False], ids=["acks", "no-acks"])
def test_semi_sync_replica(writer, folder, semi_sync):
    server = _serve(folder, semi_sync)
    try:
        with replica_server(f"serve-semi-{int(semi_sync)}") as replica:
            replica.q("SET GLOBAL rpl_semi_sync_slave_enabled = ON")
            first = sorted(p.name for p in folder.iterdir())[0]
            _replicate(replica, server.port,
                       f"MASTER_LOG_FILE='{first}', MASTER_LOG_POS=4, MASTER_USE_GTID=no")
            _wait_caught_up(replica, writer)
            status = dict(replica.q("SHOW STATUS LIKE 'Rpl_semi_sync_slave_status'"))
            assert status["Rpl_semi_sync_slave_status"] == "ON"
            counts = server.semi_sync_counts
            if semi_sync:
                want = _transactions(folder)
                assert counts["asked"] == want > 10
                _wait(lambda: counts["acked"] == want, counts)
                last = sorted(p for p in folder.iterdir())[-1]
                assert counts["last"][0] == last.name
            else:
                assert counts["asked"] == counts["acked"] == 0
    finally:
        server.close()


def _wait(ok, what, timeout=20):
    deadline = time.monotonic() + timeout
    while not ok():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_stream_semi_sync_against_serve(writer, folder, tmp_path):
    """``stream --semi-sync --stop-never`` against ``serve --semi-sync`` (both sides ours):
    serve asks an ack for each transaction and gets one, the last one at the end of the last
    file; the rows streamed are the rows ``decode --rows`` gives."""
    import json
    import subprocess
    import sys

    from ..conftest import ROOT
    server = _serve(folder, True)
    pw = tmp_path / "pw"
    pw.write_text(PASSWORD + "\n")
    pw.chmod(0o600)   # (serve warns of a password file others may read)
    out = tmp_path / "stream.jsonl"
    want = _transactions(folder)
    try:
        with open(out, "wb") as f:
            proc = subprocess.Popen(
                [sys.executable, "-m", "binlog_schema", "stream", "--port", str(server.port),
                 "--user", USER, "--password-file", str(pw), "--server-id", "4244", "--rows",
                 "--semi-sync", "--stop-never", "--heartbeat", "0.5"],
                cwd=ROOT, stdout=f, stderr=subprocess.PIPE)
            try:
                counts = server.semi_sync_counts
                # (the last transaction's ack goes when the stream reads on: a heartbeat)
                _wait(lambda: counts["acked"] == counts["asked"] == want, counts, timeout=60)
            finally:
                proc.terminate()
                err = proc.communicate(timeout=20)[1].decode()
        last = sorted(folder.iterdir())[-1]
        assert counts["last"] == (last.name, last.stat().st_size), (counts, err)
        streamed = [json.loads(x) for x in out.read_text().splitlines()]
        decoded = _decoded_rows_records(folder)
        got = [(d["offset"], d["rows"]) for d in streamed if "rows" in d]
        assert len(got) >= 10 and got == decoded
    finally:
        server.close()


def _decoded_rows_records(folder):
    import json

    from . import flashback_workload as fw
    out = fw.binlog_schema("decode", "--rows", *sorted(folder.iterdir()))
    assert out.returncode == 0, out.stderr
    return [(d["offset"], d["rows"]) for d in map(json.loads, out.stdout.decode().splitlines())
            if "rows" in d]

"""Server tier for the file format: a private real MariaDB writes every event type it can
(statement and row formats, log_bin_compress, LOAD DATA, XA, GTID domains, two-phase ALTER,
an encrypted binlog, checksum CRC32 and NONE); every event of those binlogs must round-trip
byte for byte and decode to a typed body."""

import collections
import os
import shutil
import subprocess

import pytest

from binlog_schema.output.roundtrip import roundtrip_file
from binlog_schema.format.stream import BinlogReader

from ..conftest import ROOT, unavailable

pytestmark = pytest.mark.server


def _need_server():
    if not (shutil.which("mariadbd") or os.path.exists("/usr/sbin/mariadbd")):
        msg = "mariadbd not installed (apt-get install mariadb-server): server tier not run"
        unavailable(msg)


def _run(script, **env):
    out = subprocess.run(["bash", str(ROOT / "scripts" / script)], cwd=ROOT,
                         env={**os.environ, **env}, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]


@pytest.fixture(scope="module")
def event_binlogs():
    _need_server()
    _run("make_event_binlogs_query.sh", EVQ_NAME="evq-t1", EVQ_OUT=".work/test-events-crc")
    _run("make_event_binlogs_query.sh", EVQ_NAME="evq-t2", EVQ_OUT=".work/test-events-none",
         BINLOG_CHECKSUM="NONE")
    _run("make_event_binlogs_gtid.sh")
    files = {}
    for sub in ("test-events-crc", "test-events-none", "binlogs-events-gtid"):
        files[sub] = sorted((ROOT / ".work" / sub).glob("mariadb-*"))
        assert files[sub], sub
    return files


def test_every_event_round_trips(event_binlogs):
    for files in event_binlogs.values():
        for path in files:
            r = roundtrip_file(str(path))
            assert r["events"] > 0
            assert not r["differ"] and not r["failed"], (path.name, r["differ"][:1],
                                                         r["failed"][:1])


def _types(files):
    seen = collections.Counter()
    raw = []
    for path in files:
        for rec in BinlogReader(path):
            for r in [rec] + list(rec.inner or ()):
                seen[r.type_name] += 1
                if r.value is not None and isinstance(r.value["body"], (bytes, bytearray)):
                    raw.append((path.name, r.offset, r.type_name))
    return seen, raw


def test_the_workload_produced_every_event_kind(event_binlogs):
    seen, raw = _types(event_binlogs["test-events-crc"] + event_binlogs["binlogs-events-gtid"])
    for kind in ("FORMAT_DESCRIPTION_EVENT", "QUERY_EVENT", "QUERY_COMPRESSED_EVENT",
                 "USER_VAR_EVENT", "RAND_EVENT", "INTVAR_EVENT", "XID_EVENT",
                 "BEGIN_LOAD_QUERY_EVENT", "APPEND_BLOCK_EVENT", "EXECUTE_LOAD_QUERY_EVENT",
                 "DELETE_FILE_EVENT", "INCIDENT_EVENT", "ROTATE_EVENT", "STOP_EVENT",
                 "ANNOTATE_ROWS_EVENT", "BINLOG_CHECKPOINT_EVENT", "GTID_EVENT",
                 "GTID_LIST_EVENT", "TABLE_MAP_EVENT", "WRITE_ROWS_COMPRESSED_EVENT_V1",
                 "XA_PREPARE_LOG_EVENT", "START_ENCRYPTION_EVENT"):
        assert seen[kind], f"no {kind} in the server's binlogs"
    assert not raw, f"event bodies left raw: {raw[:3]}"


def test_checksum_none_files(event_binlogs):
    for path in event_binlogs["test-events-none"]:
        recs = list(BinlogReader(path))
        assert recs[0].value["body"]["checksum_alg"] == 0
        assert all(not r.ctx.checksum for r in recs[1:])
        assert all("checksum" not in r.value for r in recs[1:] if r.value is not None)

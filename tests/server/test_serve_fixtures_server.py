"""Fixtures over the wire: synthetic MariaDB binlogs (``binlog-schema fixtures``), served by
``binlog-schema serve`` to a real MariaDB replica.

Two random fixture files of every column type, the second continuing the first's GTID
sequence, in one folder. A reference MariaDB replays them the vendor's way (``binlog-schema
fixtures SPEC --sql | mariadb``, then ``mariadb-binlog FILES | mariadb``). A second MariaDB
takes the same DDL, then replicates from ``serve`` over the folder (CHANGE MASTER TO ...
MASTER_LOG_FILE, POS 4; then again from scratch with MASTER_USE_GTID=slave_pos). Its tables
must end equal to the reference's, value for value (exact texts and CHECKSUM TABLE), with no
replication error, having read both files to their ends. python-mysql-replication's
BinLogStreamReader reads the same folder from ``serve`` and decodes the values ``decode
--rows`` gives (its known quirks matched exactly: see ``test_serve_server.same_value``).
"""

from __future__ import annotations

import time

import pytest
import yaml

from binlog_schema.synthetic import random_spec

from . import flashback_workload as fw
from ..conftest import unavailable
from .test_serve_server import (PASSWORD, USER, Serve, _start, decoded_rows, pmr_rows,
                                replica_server, row_differences)
from .test_serve_server import _replicate as replicate

pytestmark = pytest.mark.server

DATABASES = ("fixtures", "fixtures2")
NEXT_FILE = "mariadb-bin.000003"
SERVER_ID = 5   # the fixtures' server id (the replica's is 2: its own events it would skip)


def _run(*args):
    out = fw.binlog_schema(*args)
    assert out.returncode == 0, out.stderr.decode(errors="replace")
    return out.stdout


@pytest.fixture(scope="module")
def fixtures(tmp_path_factory):
    """(folder, [spec paths], [file names], the last GTID): two fixture files in a folder."""
    made = tmp_path_factory.mktemp("fixtures")
    served = tmp_path_factory.mktemp("served")
    _run("fixtures", "--random", "--seed", "21", "--tables", "4", "--transactions", "30",
         "--flavor", "mariadb-10.11", "-o", made / "a")
    first = yaml.safe_load((made / "a" / "spec.yaml").read_text(encoding="utf-8"))
    first["settings"]["server_id"] = SERVER_ID
    spec_a = made / "a.yaml"
    spec_a.write_text(yaml.safe_dump(first, allow_unicode=True), encoding="utf-8")
    n = len(first["transactions"])
    second = random_spec(22, tables=3, transactions=25, flavor="mariadb-10.11", rows=4)
    second["database"] = DATABASES[1]
    second["settings"].update(server_id=SERVER_ID, file_name="mariadb-bin.000002",
                              gtid_start=n + 1, previous_gtids=[f"0-{SERVER_ID}-{n}"])
    spec_b = made / "b.yaml"
    spec_b.write_text(yaml.safe_dump(second, allow_unicode=True), encoding="utf-8")
    names = ["mariadb-bin.000001", "mariadb-bin.000002"]   # (each ends with a ROTATE to
    # the next name: the second's, mariadb-bin.000003, is not there; serve waits for it)
    for spec, name in zip((spec_a, spec_b), names):
        _run("fixtures", spec, "-o", served / name)
    return served, [spec_a, spec_b], names, f"0-{SERVER_ID}-{n + len(second['transactions'])}"


def _transactions(specs):
    return sum(len(yaml.safe_load(p.read_text(encoding="utf-8"))["transactions"])
               for p in specs)


def _schema(server, specs):
    for spec in specs:
        rc, err = server.apply_sql(_run("fixtures", spec, "--sql"))
        assert rc == 0, err


@pytest.fixture(scope="module")
def reference(fixtures):
    """The tables ``mariadb-binlog FILES | mariadb`` leaves on a fresh MariaDB."""
    for t in ("mariadbd", "mariadb", "mariadb-binlog"):
        if not fw.tool(t):
            unavailable(f"{t} not installed: serve fixtures tier not run")
    folder, specs, names, _ = fixtures
    srv = _start("serve-fx-ref", "--server-id=3")
    try:
        _schema(srv, specs)
        rc, err = srv.apply_binlog([folder / n for n in names])
        assert rc == 0, err
        state = fw.exact_state(srv, DATABASES)
    finally:
        srv.destroy()
    assert sum(len(t["rows"]) for t in state.values()) > 50, state.keys()
    return state


@pytest.fixture(scope="module")
def replica():
    with replica_server("serve-fx-replica") as srv:
        yield srv


@pytest.fixture(scope="module")
def serve(fixtures):
    s = Serve(fixtures[0], "--heartbeat", "0.5")
    yield s
    s.stop()


def _replicate(replica, specs, port, how):
    replicate(replica, port, how, DATABASES, prepare=lambda r: _schema(r, specs))


def _wait_read_to_the_end(replica, next_file, timeout=120):
    """SHOW SLAVE STATUS once the replica has read and applied the served files to their ends:
    each fixture file ends with a ROTATE to the next name, so the replica is then at 4 of the
    file after the last (which serve waits for)."""
    deadline = time.monotonic() + timeout
    while True:
        st = replica.slave_status()
        for key in ("Last_IO_Error", "Last_SQL_Error"):
            assert not st.get(key), f"{key}: {st.get(key)}"
        if st.get("Relay_Master_Log_File") == next_file and st.get("Exec_Master_Log_Pos") == 4:
            return st
        if time.monotonic() > deadline:
            raise AssertionError(f"replica not through to {next_file} in {timeout}s: {st}")
        time.sleep(0.3)


def _check_tables(replica, reference):
    got = fw.exact_state(replica, DATABASES)
    assert set(got) == set(reference)
    assert not fw.state_differences(got, reference)


def test_replica_of_served_fixtures_by_position_equals_mariadb_binlog_replay(
        fixtures, reference, serve, replica):
    _, specs, names, _ = fixtures
    _replicate(replica, specs, serve.port,
               f"MASTER_LOG_FILE='{names[0]}', MASTER_LOG_POS=4, MASTER_USE_GTID=no")
    st = _wait_read_to_the_end(replica, NEXT_FILE)
    assert st["Slave_IO_Running"] == "Yes" and st["Slave_SQL_Running"] == "Yes"
    assert st["Master_Server_Id"] == 7
    assert st["Slave_Transactional_Groups"] == _transactions(specs)
    _check_tables(replica, reference)


def test_replica_of_served_fixtures_in_gtid_mode(fixtures, reference, serve, replica):
    _, specs, _, last_gtid = fixtures
    _replicate(replica, specs, serve.port, "MASTER_USE_GTID=slave_pos")
    st = _wait_read_to_the_end(replica, NEXT_FILE)
    assert st["Using_Gtid"] == "Slave_Pos"
    _check_tables(replica, reference)
    assert replica.q("SELECT @@gtid_slave_pos")[0][0] == last_gtid


def test_python_mysql_replication_reads_served_fixtures_as_decode_does(fixtures, serve):
    want = decoded_rows(fixtures[0])
    assert len(want) > 150
    assert not row_differences(pmr_rows(serve.port), want)


# ------------------------------------------------------------------ MySQL GTID dumps

UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


@pytest.fixture(scope="module")
def mysql_fixtures(tmp_path_factory):
    """(folder, [file names], [transactions per file]): two MySQL 8.0 fixture files with
    GTIDs, the second's PREVIOUS_GTIDS holding the first's."""
    folder = tmp_path_factory.mktemp("mysql-served")
    names, counts, done = ["binlog.000001", "binlog.000002"], [], 0
    for seed, name in zip((31, 32), names):
        spec = random_spec(seed, tables=3, transactions=20, flavor="mysql-8.0", rows=3)
        spec["database"] = f"my{seed}"
        spec["settings"].update(gtid_mode="ON", server_uuid=UUID, file_name=name,
                                previous_gtids=[f"{UUID}:1-{done}"] if done else [])
        path = tmp_path_factory.mktemp("spec") / "spec.yaml"
        path.write_text(yaml.safe_dump(spec, allow_unicode=True), encoding="utf-8")
        _run("fixtures", path, "-o", folder / name)
        counts.append(len(spec["transactions"]))
        done += counts[-1]
    return folder, names, counts


@pytest.fixture(scope="module")
def mysql_serve(mysql_fixtures):
    s = Serve(mysql_fixtures[0], "--flavor", "mysql")
    yield s
    s.stop()


def _stream(port, *extra):
    return fw.binlog_schema("stream", "--port", port, "--user", USER, "--password-file",
                            _password_file(), "--server-id", "4243", *extra, timeout=120)


def _password_file():
    import tempfile
    f = tempfile.NamedTemporaryFile("w", suffix=".pw", delete=False)
    f.write(PASSWORD + "\n")
    f.close()
    return f.name


def _row_records(stdout: bytes) -> list:
    import json
    import pathlib
    out = []
    for line in stdout.decode().splitlines():
        d = json.loads(line)
        if "rows" in d:
            out.append((pathlib.Path(d["file"]).name, d["offset"], d["rows"]))
    return out


@pytest.mark.parametrize("executed", [5, 23], ids=["in-file-1", "in-file-2"])
def test_mysql_gtid_dump_leaves_out_the_executed_set(mysql_fixtures, mysql_serve, executed):
    """``stream --gtid UUID:1-K`` (COM_BINLOG_DUMP_GTID) against ``serve --flavor mysql``:
    the rows of the transactions after K, as ``decode --rows --gtid UUID:K+1-N`` gives them;
    from the second file when its PREVIOUS_GTIDS is covered."""
    folder, names, counts = mysql_fixtures
    total = sum(counts)
    out = _stream(mysql_serve.port, "--rows", "--gtid", f"{UUID}:1-{executed}")
    assert out.returncode == 0, out.stderr.decode()
    got = _row_records(out.stdout)
    want = _row_records(_run("decode", "--rows", "--gtid", f"{UUID}:{executed + 1}-{total}",
                             *(folder / n for n in names)))
    assert len(want) >= 10
    assert got == want
    files = {f for f, _, _ in got}
    assert files == ({names[1]} if executed >= counts[0] else set(names))


def test_mysql_gtid_dump_of_purged_transactions_is_refused(mysql_fixtures, tmp_path):
    """A set that lacks transactions of files no longer served (the folder holds only the
    second file) gets ERR 1236 naming what is missing; the stream stops with status 1."""
    folder, names, _ = mysql_fixtures
    only = tmp_path / "purged"
    only.mkdir()
    (only / names[1]).write_bytes((folder / names[1]).read_bytes())
    s = Serve(only, "--flavor", "mysql")
    try:
        out = _stream(s.port, "--gtid", f"{UUID}:1-3")
    finally:
        s.stop()
    assert out.returncode == 1
    err = out.stderr.decode()
    assert "purged" in err and "1236" in err and f"{UUID}:1-" in err.lower(), err


def test_python_mysql_replication_auto_position_against_serve(mysql_fixtures, mysql_serve):
    """python-mysql-replication with ``auto_position`` (its COM_BINLOG_DUMP_GTID) against
    ``serve --flavor mysql`` decodes the rows of the transactions outside the set, as
    ``decode --rows --gtid`` of the rest gives them."""
    folder, _, counts = mysql_fixtures
    want = decoded_rows(folder, "--gtid", f"{UUID}:6-{sum(counts)}")
    assert len(want) >= 50
    got = pmr_rows(mysql_serve.port, is_mariadb=False, auto_position=f"{UUID}:1-5")
    assert not row_differences(got, want)


@pytest.mark.parametrize("filters", [["--database", DATABASES[1], "--operation", "update"],
                                     ["--table", f"{DATABASES[0]}.t2", "--table", "*.t3"]],
                         ids=["database-operation", "tables"])
def test_stream_filters_as_decode_does(fixtures, serve, filters):
    """``stream --rows`` with decode's filters gives the rows ``decode --rows`` gives with the
    same filters (and fewer than without them)."""
    folder, _, names, _ = fixtures
    files = [folder / n for n in names]
    want = _row_records(_run("decode", "--rows", *filters, *files))
    everything = _row_records(_run("decode", "--rows", *files))
    assert 0 < len(want) < len(everything)
    out = _stream(serve.port, "--rows", *filters)
    assert out.returncode == 0, out.stderr.decode()
    assert _row_records(out.stdout) == want


def test_stream_refuses_a_wrong_filter(serve):
    out = _stream(serve.port, "--operation", "upsert")
    assert out.returncode == 2 and b"--operation" in out.stderr

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
                                row_differences)

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
    srv = _start("serve-fx-replica", "--server-id=2")
    yield srv
    try:
        srv.q("STOP SLAVE")
    finally:
        srv.destroy()


@pytest.fixture(scope="module")
def serve(fixtures):
    s = Serve(fixtures[0], "--heartbeat", "0.5")
    yield s
    s.stop()


def _replicate(replica, specs, port, how):
    replica.q("STOP SLAVE")
    replica.q("RESET SLAVE ALL")
    for db in DATABASES:
        replica.q(f"DROP DATABASE IF EXISTS {db}")
    replica.q("RESET MASTER")
    replica.q("SET GLOBAL gtid_slave_pos = ''")
    _schema(replica, specs)
    replica.q(f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={port}, "
              f"MASTER_USER='{USER}', MASTER_PASSWORD='{PASSWORD}', "
              f"MASTER_HEARTBEAT_PERIOD=1, {how}")
    replica.q("START SLAVE")


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

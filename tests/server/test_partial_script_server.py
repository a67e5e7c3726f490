"""Server tier, issue 26: a script is whole or absent. A real MariaDB writes a binlog whose
first transaction cannot be undone (a DELETE logged with binlog_row_image=MINIMAL: its before
image holds the key alone, the INSERT that would undo it cannot be written) and whose later
ones can (two UPDATEs, FULL images). ``sql --flashback`` undoes last first, so the refusal
comes after the undo of both UPDATEs: piped into ``mariadb``, the output must change nothing
(before issue 26 the two UPDATEs were undone, a partial undo applied). The control: the same
command over the UPDATEs alone (``--start-position``) does change the table."""

from __future__ import annotations

import os

import pytest

from . import flashback_workload as fw
from ..conftest import unavailable

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def server():
    missing = [t for t in ("mariadbd", "mariadb") if not fw.tool(t)]
    if missing:
        unavailable(f"{', '.join(missing)} not installed: partial-script server tier not run")
    try:
        import pymysql  # noqa: F401
    except ImportError:
        unavailable("pymysql missing: partial-script server tier not run")
    try:
        srv = fw.Server(f"partial-{os.getpid()}", "--binlog-row-image=FULL")
    except RuntimeError as e:
        unavailable(f"the private MariaDB did not start: partial-script tier not run: {e}")
    try:
        yield srv
    finally:
        srv.destroy()


def _rows(server):
    return server.q("SELECT id, v FROM pu.t ORDER BY id")


def test_a_late_refusal_applies_nothing(server):
    server.q("CREATE DATABASE pu")
    server.q("CREATE TABLE pu.t (id INT PRIMARY KEY, v VARCHAR(10) NOT NULL)")
    server.q("INSERT INTO pu.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    server.q("FLUSH BINARY LOGS")
    name, _ = server.master_status()
    server.q("SET SESSION binlog_row_image = 'MINIMAL'")
    server.q("DELETE FROM pu.t WHERE id = 1")
    server.q("SET SESSION binlog_row_image = 'FULL'")
    _, updates_at = server.master_status()
    server.q("UPDATE pu.t SET v = 'x' WHERE id = 2")
    server.q("UPDATE pu.t SET v = 'y' WHERE id = 3")
    server.q("FLUSH BINARY LOGS")
    path = server.binlog_dir / name
    after = _rows(server)
    assert after == ((2, "x"), (3, "y"))

    run = fw.binlog_schema("sql", "--flashback", path)
    assert run.returncode == 1, run.stderr
    assert run.stdout == b"", "a partial undo was written"
    err = run.stderr.decode()
    assert f"{path}: DELETE_ROWS_EVENT" in err and "lacks" in err, err
    rc, client_err = server.apply_sql(run.stdout)
    assert rc == 0, client_err
    assert _rows(server) == after, "a partial undo was applied"

    # the control: the UPDATEs alone are undone, and applying that changes the table
    run = fw.binlog_schema("sql", "--flashback", "--start-position", updates_at, path)
    assert run.returncode == 0, run.stderr
    rc, client_err = server.apply_sql(run.stdout)
    assert rc == 0, client_err
    assert _rows(server) == ((2, "b"), (3, "c"))

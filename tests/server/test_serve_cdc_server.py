"""``serve`` answers what CDC clients ask, checked with real third-party clients against the
MariaDB server that wrote the binlogs (binlog_row_metadata=MINIMAL: no column names in the
table maps, so the clients ask INFORMATION_SCHEMA.COLUMNS):

* python-mysql-replication (``use_column_name_cache=True``: its query on its second, "ctl",
  connection) reading the served files gets the same named rows as from the writer, for
  tables created in the files (no ``--schema``) and for one created before them (with
  ``--schema``: its SHOW CREATE TABLE); without ``--schema`` that table is refused (ERR, a
  stderr line) and its columns stay unnamed, as the client does when it gets no names;
* INFORMATION_SCHEMA.COLUMNS of every MariaDB column type (specs/fixtures/examples/
  mariadb-all-types.sql) is what the real server shows, column for column;
* the npm ``mysql2`` package's ``execute()`` (a server-side prepared statement:
  COM_STMT_PREPARE / COM_STMT_EXECUTE / COM_STMT_CLOSE) gets the same rows as its ``query()``
  and as the writer gives.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from . import flashback_workload as fw
from ..conftest import unavailable

pytestmark = pytest.mark.server

USER, PASSWORD = "repl", "cdc pw"
TABLES = ("cdc.pre", "cdc.t", "cdc.u")


def _start(name, *options):
    try:
        return fw.Server(f"{name}-{os.getpid()}", *options)
    except RuntimeError as e:
        unavailable(f"the private MariaDB did not start: serve CDC tier not run: {e}")


def _port(server) -> int:
    env = (fw.ROOT / ".work" / "mariadb" / server.name / "env").read_text()
    return int(dict(line.split("=", 1) for line in env.split() if "=" in line)["port"])


def _rows(server, first: int, last: int):
    server.q("INSERT INTO cdc.t VALUES " + ",".join(
        f"({i}, {i * 7}, 'name {i} ✓', {i}.5, '2024-02-{1 + i % 28:02d}', "
        f"{'NULL' if i % 4 == 0 else i}, '{'ab'[i % 2]}')" for i in range(first, last + 1)))
    server.q("UPDATE cdc.t SET s = CONCAT(s, ' +'), x = x + 1 WHERE MOD(id, 3) = 0 AND id "
             "BETWEEN %s AND %s", first, last)
    server.q("DELETE FROM cdc.t WHERE MOD(id, 5) = 0 AND id BETWEEN %s AND %s", first, last)
    server.q("INSERT INTO cdc.pre VALUES " + ",".join(
        f"({i}, 'pre {i}', {i * 1.25})" for i in range(first, last + 1)))
    server.q("UPDATE cdc.pre SET note = CONCAT(note, '!') WHERE MOD(k, 2) = 1 AND k BETWEEN "
             "%s AND %s", first, last)
    server.q("INSERT INTO cdc.u (v) VALUES (%s), (%s)", f"u{first}", f"u{last}")


@pytest.fixture(scope="module")
def writer(tmp_path_factory):
    """A MariaDB writing MINIMAL table maps: cdc.pre made in a first file (not served),
    cdc.t and cdc.u in the second, rows over the second and third."""
    if not fw.tool("mariadbd"):
        unavailable("mariadbd not installed: serve CDC tier not run")
    srv = _start("serve-cdc", "--server-id=1", "--binlog-checksum=CRC32",
                 "--binlog-row-image=FULL", "--binlog-row-metadata=MINIMAL")
    try:
        srv.q(f"CREATE USER '{USER}'@'%%' IDENTIFIED BY '{PASSWORD}'")
        srv.q(f"GRANT ALL ON *.* TO '{USER}'@'%%'")
        srv.q("CREATE DATABASE cdc")
        srv.q("CREATE TABLE cdc.pre (k INT PRIMARY KEY, note VARCHAR(30), w DOUBLE)")
        srv.q("FLUSH BINARY LOGS")
        srv.q("CREATE TABLE cdc.t (id INT PRIMARY KEY, n BIGINT UNSIGNED, s VARCHAR(40) "
              "CHARACTER SET utf8mb4, d DECIMAL(10,2), dt DATE, x INT NULL, e ENUM('a','b'))")
        srv.q("CREATE TABLE cdc.u (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))")
        _rows(srv, 1, 40)
        srv.q("FLUSH BINARY LOGS")
        _rows(srv, 41, 80)
        srv.q("FLUSH BINARY LOGS")
        srv.port = _port(srv)
        folder = tmp_path_factory.mktemp("cdc-served")
        names = sorted(p.name for p in srv.binlog_dir.iterdir()
                       if p.is_file() and not p.name.endswith(".index"))
        for n in names[1:]:   # (the first file, with cdc.pre's CREATE, is not served)
            shutil.copyfile(srv.binlog_dir / n, folder / n)
        srv.served, srv.first = folder, names[1]
        schema = folder.parent / "pre.sql"
        schema.write_text("USE cdc;\n" + srv.q("SHOW CREATE TABLE cdc.pre")[0][1] + ";\n")
        srv.schema = schema
        yield srv
    finally:
        srv.destroy()


@contextlib.contextmanager
def serving(folder, *options):
    pw = folder.parent / "serve-password"
    pw.write_text(PASSWORD + "\n")
    os.chmod(pw, 0o600)
    proc = subprocess.Popen(
        [sys.executable, "-m", "binlog_schema", "serve", str(folder), "--port", "0", "--user",
         USER, "--password-file", str(pw), *options],
        cwd=fw.ROOT, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        assert " on 127.0.0.1:" in line, line + proc.stderr.read()
        proc.port = int(line.split(" on 127.0.0.1:")[1].split()[0])
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def pmr_named_rows(port, log_file=None, **options):
    """``(table, kind, values...)`` of every row change python-mysql-replication reads from
    ``port`` (non-blocking), its column names asked of the server."""
    from pymysqlreplication import BinLogStreamReader, row_event
    from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent
    row_event._COLUMN_NAME_CACHE.clear()   # (a module-wide cache: each run asks anew)
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": port, "user": USER,
                             "password": PASSWORD},
        server_id=98, blocking=False, is_mariadb=True, resume_stream=log_file is not None,
        log_file=log_file, log_pos=4 if log_file else None,
        only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent], **options)
    got = []
    try:
        for ev in stream:
            name = f"{ev.schema}.{ev.table}"
            for r in ev.rows:
                if isinstance(ev, UpdateRowsEvent):
                    got.append((name, "update", r["before_values"], r["after_values"]))
                else:
                    got.append((name, type(ev).__name__, r["values"]))
    finally:
        stream.close()
    return got


def test_python_mysql_replication_gets_the_writers_named_rows(writer):
    want = pmr_named_rows(writer.port, writer.first, use_column_name_cache=True)
    assert {r[0] for r in want} == set(TABLES) and len(want) > 150
    assert all(not k.startswith("UNKNOWN_COL") for r in want for k in r[2]), want[:3]
    # (the table maps are MINIMAL: without asking, the names are unknown)
    blind = pmr_named_rows(writer.port, writer.first)
    assert all(k.startswith("UNKNOWN_COL") for r in blind for k in r[2])
    with serving(writer.served, "--schema", str(writer.schema)) as serve:
        got = pmr_named_rows(serve.port, use_column_name_cache=True)
    assert got == want


def test_without_schema_a_table_made_before_the_files_is_refused(writer):
    want = pmr_named_rows(writer.port, writer.first, use_column_name_cache=True)
    with serving(writer.served) as serve:
        got = pmr_named_rows(serve.port, use_column_name_cache=True)
        serve.terminate()
        err = serve.stderr.read()
    assert [r for r in got if r[0] != "cdc.pre"] == [r for r in want if r[0] != "cdc.pre"]
    pre = [r for r in got if r[0] == "cdc.pre"]
    assert pre and all(k.startswith("UNKNOWN_COL") for r in pre for k in r[2])
    assert "cdc.pre is not known" in err and "--schema" in err, err


# ------------------------------------------------------------------ every column type


ALL_TYPES = fw.ROOT / "specs" / "fixtures" / "examples" / "mariadb-all-types.sql"


def test_information_schema_columns_of_every_type_are_the_servers(writer, tmp_path):
    from binlog_schema.changes.schema.information_schema import COLUMNS
    writer.apply_sql(ALL_TYPES.read_bytes())
    tables = [r[0] for r in writer.q("SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES "
                                     "WHERE TABLE_SCHEMA = 'fx_types' ORDER BY 1")]
    assert len(tables) >= 8
    query = (f"SELECT {', '.join(COLUMNS)} FROM INFORMATION_SCHEMA.COLUMNS WHERE "
             "TABLE_SCHEMA = %s AND TABLE_NAME = %s ORDER BY ORDINAL_POSITION")
    import pymysql
    with serving(writer.served, "--schema", str(ALL_TYPES)) as serve:
        ours = pymysql.connect(host="127.0.0.1", port=serve.port, user=USER,
                               password=PASSWORD)
        for table in tables:
            want = [tuple(None if v is None else str(v) for v in row)
                    for row in writer.q(query, "fx_types", table)]
            got = [tuple(None if v is None else str(v) for v in row)
                   for row in fw_query(ours, query, ("fx_types", table))]
            assert got == want, table
        ours.close()


def fw_query(conn, sql, args):
    cur = conn.cursor()
    cur.execute(sql, args)
    return cur.fetchall()


# ------------------------------------------------------------------ prepared statements


MYSQL2 = fw.ROOT / ".work" / "node" / "node_modules" / "mysql2"


def mysql2_answers(port, table):
    """The JSON lines tests/server/mysql2_execute.js prints of ``cdc.<table>``."""
    import json
    if not shutil.which("node") or not MYSQL2.is_dir():
        unavailable("node or the npm mysql2 package (scripts/setup.sh installs it under "
                    ".work/node) is missing: serve's prepared statements not tested")
    out = subprocess.run(["node", str(pathlib.Path(__file__).with_name("mysql2_execute.js")),
                          str(port), USER, PASSWORD, "cdc", table], capture_output=True,
                         text=True, timeout=60, env={**os.environ,
                                                     "NODE_PATH": str(MYSQL2.parent)})
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


@pytest.mark.parametrize("table", ["t", "pre"])
def test_mysql2_prepared_statements_get_the_writers_answer(writer, table):
    want = mysql2_answers(writer.port, table)
    assert len(want) == 4 and len(want[0]["rows"]) >= 3
    with serving(writer.served, "--schema", str(writer.schema)) as serve:
        got = mysql2_answers(serve.port, table)
    assert got == want

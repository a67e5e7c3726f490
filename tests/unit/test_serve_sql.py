"""What ``serve`` answers CDC clients beyond the replication commands, against an in-process
:class:`~binlog_schema.wire.replication.server.BinlogServer` of the shop fixture (MINIMAL table
maps, ``orders`` made before the file, an ALTER ADD COLUMN in it) and real clients (PyMySQL,
python-mysql-replication):

* INFORMATION_SCHEMA.COLUMNS from the schema history: with a dump of the same client under
  way, as of each TABLE_MAP it asks about (the names fit that map: 3 columns before the
  ALTER, 4 after); without one, as of the end of the files, said on stderr since the table
  changed within them; a table not known is an ERR 1146 naming why;
* KILL (CONNECTION, QUERY) of a dumping connection ends its dump; an unknown id is ERR 1094;
* the statements CDC clients send at connect (session settings, SHOW VARIABLES WHERE, SHOW
  BINARY LOG STATUS, CONNECTION_ID()).
"""

from __future__ import annotations

import logging
import threading
import time

import pytest

from binlog_schema.wire.replication import server_sql
from binlog_schema.wire.replication.server import BinlogServer, ServerConfig
from binlog_schema.synthetic.writer import generate

from ..conftest import ROOT

pymysql = pytest.importorskip("pymysql")
EXAMPLES = ROOT / "specs" / "fixtures" / "examples"
QUERY = ("SELECT COLUMN_NAME, COLLATION_NAME, CHARACTER_SET_NAME, COLUMN_COMMENT, COLUMN_TYPE "
         "FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA=%s AND TABLE_NAME=%s "
         "ORDER BY ORDINAL_POSITION")


@pytest.fixture()
def shop(tmp_path):
    folder = tmp_path / "served"
    folder.mkdir()
    generate(EXAMPLES / "shop-minimal.fixture", folder / "shop.000001")
    return folder


@pytest.fixture()
def serve(shop):
    server = BinlogServer(ServerConfig(folder=str(shop), schema_files=(
        str(EXAMPLES / "shop-schema.sql"),))).start()
    yield server
    server.close()


def _connect(server, **options):
    return pymysql.connect(host="127.0.0.1", port=server.port, user="u", password="",
                           **options)


def _ask(conn, sql, *args):
    cur = conn.cursor()
    cur.execute(sql, args or None)
    return cur.fetchall()


def test_without_a_dump_the_end_of_the_files_answers_and_the_change_is_said(serve, caplog):
    with caplog.at_level(logging.WARNING):
        rows = _ask(_connect(serve), QUERY, "shop", "orders")
    assert rows == (("id", None, None, "", "bigint(20) unsigned"),
                    ("state", "latin1_swedish_ci", "latin1", "", "enum('new','paid','shipped')"),
                    ("note", "latin1_swedish_ci", "latin1", "", "varchar(20)"),
                    ("qty", None, None, "", "int(10) unsigned"))
    said = [r.getMessage() for r in caplog.records if "shop.orders" in r.getMessage()]
    assert len(said) == 1 and "changed within them" in said[0] and "shop.000001:" in said[0]


def test_a_table_not_known_is_an_error_naming_why(serve):
    with pytest.raises(pymysql.err.ProgrammingError) as e:
        _ask(_connect(serve), QUERY, "shop", "nope")
    assert e.value.args[0] == 1146 and "shop.nope is not known" in e.value.args[1] \
        and "--schema" in e.value.args[1]
    with pytest.raises(pymysql.err.ProgrammingError) as e:
        _ask(_connect(serve), "SELECT COLUMN_KEY FROM INFORMATION_SCHEMA.COLUMNS WHERE "
             "TABLE_SCHEMA='shop' AND TABLE_NAME='orders'")
    assert "not COLUMN_KEY" in e.value.args[1]


def test_each_table_map_asked_about_gets_the_names_that_fit_it(serve):
    """A client that asks on each TABLE_MAP (its dump and its questions from one process):
    the answers follow the ALTER as the table maps do."""
    from pymysqlreplication import BinLogStreamReader
    from pymysqlreplication.row_event import TableMapEvent, UpdateRowsEvent, WriteRowsEvent
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": serve.port, "user": "u",
                             "passwd": ""},
        server_id=97, blocking=False, is_mariadb=True,
        only_events=[TableMapEvent, WriteRowsEvent, UpdateRowsEvent])
    ctl = _connect(serve)
    seen = []
    try:
        for ev in stream:
            if isinstance(ev, TableMapEvent):
                names = [r[0] for r in _ask(ctl, QUERY, ev.schema, ev.table)]
                seen.append((ev.column_count, names))
    finally:
        stream.close()
    assert seen == [(3, ["id", "state", "note"]), (4, ["id", "state", "note", "qty"])]


def _dump_under_way(server, timeout=30):
    """The connection id of the server's one dump, once it is under way."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        dumps = server.dump_counts()[0]
        if dumps:
            return dumps[0].client.conn_id
        time.sleep(0.05)
    raise AssertionError("no dump under way")


@pytest.mark.parametrize("how", ["", "CONNECTION ", "QUERY "])
def test_kill_ends_another_connections_dump(serve, how):
    from binlog_schema.wire.replication.client import ReplicationStream
    stream = ReplicationStream("127.0.0.1", serve.port, "u", "", server_id=55, blocking=True)
    ended = []

    def read():
        try:
            for _ in stream:
                pass
            ended.append("end")
        except Exception as e:  # noqa: BLE001 - what ended it is the result
            ended.append(e)
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    dump_id = _dump_under_way(serve)
    killer = _connect(serve)
    with pytest.raises(pymysql.err.OperationalError) as e:
        _ask(killer, "KILL 9999")
    assert e.value.args[0] == server_sql.ER_NO_SUCH_THREAD
    _ask(killer, f"KILL {how}{dump_id}")
    reader.join(timeout=30)
    assert not reader.is_alive() and ended
    deadline = time.monotonic() + 30   # (the server's side ends just after the client's)
    while serve.dump_counts()[0] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not serve.dump_counts()[0]
    if how == "QUERY ":
        assert "1317" in str(ended[0]) or "interrupted" in str(ended[0]), ended
    stream.close()


def test_connect_time_statements(serve):
    conn = _connect(serve)
    assert not _ask(conn, "SET net_write_timeout=600")
    assert not _ask(conn, "SET @@SESSION.net_read_timeout = 300, SESSION wait_timeout=100")
    assert _ask(conn, "SELECT @@net_write_timeout, @@net_read_timeout, @@wait_timeout") == \
        (("600", "300", "100"),)
    assert _ask(conn, "SHOW VARIABLES WHERE Variable_name IN ('rpl_semi_sync_master_enabled', "
                      "'rpl_semi_sync_source_enabled')") == (
        ("rpl_semi_sync_master_enabled", "OFF"),)
    assert _ask(conn, "SELECT CONNECTION_ID()")[0][0] == str(conn.thread_id())
    assert _ask(conn, "SHOW BINARY LOG STATUS")[0][0] == "shop.000001"
    for refused in ("SET GLOBAL read_only=1", "SET no_such_setting=1", "KILL x"):
        with pytest.raises(pymysql.err.ProgrammingError):
            _ask(conn, refused)

"""The schema history where rows are decoded (issue 14), on synthetic binlogs: the same spec
written with binlog_row_metadata FULL and MINIMAL (an ALTER between the changes, ENUM and SET
columns, a primary key) decodes to the same row changes when the MINIMAL one goes through a
history seeded with the tables' CREATE TABLEs; a wrong schema gives a SchemaMismatch and @N
names; a table the history lacks a note; statement-based changes are counted; the command
line's --schema does the same."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from binlog_schema.format.errors import SchemaMismatch
from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.changes.statements import statement_verb
from binlog_schema.changes.table_map import Column, TableMap
from binlog_schema.changes.schema import SchemaHistory, history_for
from binlog_schema.format.stream import BinlogReader
from binlog_schema.synthetic import generate

from ..conftest import ROOT

SCHEMA = """
CREATE DATABASE shop;
USE shop;
CREATE TABLE orders (
  id BIGINT UNSIGNED NOT NULL,
  state ENUM('new','paid','gone') NOT NULL,
  flags SET('gift','rush') DEFAULT NULL,
  note VARCHAR(20) CHARACTER SET utf8mb4,
  PRIMARY KEY (id)
) DEFAULT CHARSET=latin1;
CREATE TABLE other (a INT, b VARCHAR(5));
"""


def spec(server, metadata, schema=True):
    return {
        "server": server,
        "settings": {"binlog_row_metadata": metadata},
        "database": "shop",
        "tables": [
            {"name": "orders", "charset": "latin1", "columns": [
                {"name": "id", "type": "BIGINT UNSIGNED", "nullable": False},
                {"name": "state", "type": "ENUM('new','paid','gone')", "nullable": False},
                {"name": "flags", "type": "SET('gift','rush')"},
                {"name": "note", "type": "VARCHAR(20)", "charset": "utf8mb4"}],
             "primary_key": ["id"]},
            {"name": "other", "columns": [{"name": "a", "type": "INT"},
                                          {"name": "b", "type": "VARCHAR(5)"}]}],
        "transactions": [
            {"changes": [{"insert": "orders", "rows": [
                {"id": 1, "state": "new", "flags": ["gift"], "note": "ünï"},
                {"id": 2, "state": "gone"}]}]},
            {"ddl": "ALTER TABLE orders ADD COLUMN qty INT UNSIGNED"},
            {"changes": [{"update": "orders", "rows": [
                {"where": {"id": 1}, "set": {"state": "paid", "qty": 3}}]},
                {"delete": "orders", "rows": [{"id": 2}]},
                {"insert": "other", "rows": [{"a": -1, "b": "x"}]}]},
            {"ddl": "INSERT INTO other VALUES (2, 'y')"},
        ],
    }


def write(tmp_path, server, metadata) -> str:
    path = tmp_path / f"{server}-{metadata}.000001"
    path.write_bytes(generate(spec(server, metadata)))
    return str(path)


def decode(path, history=None):
    decoder = RowDecoder(path, schema=history)
    out = []
    for rec in BinlogReader(path, decode="lazy"):
        for ch in decoder.feed(rec):
            d = ch.to_dict()
            out.append((d["table"], d["operation"], tuple(ch.columns), d["before"], d["after"],
                        tuple(ch.primary_key or ())))
    return out, decoder


SERVERS = ["mariadb-10.11", "mysql-8.0"]


@pytest.mark.parametrize("server", SERVERS)
def test_minimal_through_the_history_equals_full(tmp_path, server):
    full, _ = decode(write(tmp_path, server, "FULL"))
    minimal = write(tmp_path, server, "MINIMAL")
    plain, _ = decode(minimal)
    assert all(c.startswith("@") for ch in plain for c in ch[2])
    got, decoder = decode(minimal, history_for([minimal], text=SCHEMA))
    assert got == full
    assert not decoder.problems and not decoder.notices
    assert decoder.named == 3       # orders before and after its ALTER, other
    assert got[0][3] is None and got[0][4]["state"] == "new" and got[0][4]["flags"] == ["gift"]
    assert got[0][5] == ("id",)
    assert got[2][2] == ("id", "state", "flags", "note", "qty")
    assert decoder.statements == {"insert": 1}


@pytest.mark.parametrize("server", SERVERS)
def test_full_maps_keep_their_names_the_history_is_checked(tmp_path, server):
    full = write(tmp_path, server, "FULL")
    plain, _ = decode(full)
    wrong = SCHEMA.replace("note VARCHAR(20)", "note VARCHAR(30)")
    got, decoder = decode(full, history_for([full], text=wrong))
    assert got == plain
    assert decoder.problems and all(p.names == "table map" for p in decoder.problems)
    assert all(p.table == "shop.orders" for p in decoder.problems)


def test_a_wrong_schema_gives_index_names_and_a_typed_error(tmp_path):
    minimal = write(tmp_path, "mariadb-10.11", "MINIMAL")
    wrong = SCHEMA.replace("state ENUM('new','paid','gone') NOT NULL,",
                           "state VARCHAR(9) NOT NULL,")
    seen = []
    history = history_for([minimal], text=wrong)
    decoder = RowDecoder(minimal, schema=history, on_problem=seen.append)
    changes = [ch for rec in BinlogReader(minimal) for ch in decoder.feed(rec)]
    orders = [ch for ch in changes if ch.table == "orders"]
    assert orders and all(c.startswith("@") for ch in orders for c in ch.columns)
    assert [ch.columns for ch in changes if ch.table == "other"] == [["a", "b"]]
    assert seen == decoder.problems and len(seen) == 2      # (before and after the ALTER)
    p = seen[0]
    assert isinstance(p, SchemaMismatch) and p.kind == "schema" and p.names == "@N"
    assert p.table == "shop.orders" and p.file == minimal and p.offset > 4
    assert any("column 2 'state'" in d and "type" in d for d in p.differences)
    d = p.to_dict()
    assert d["offset"] == p.offset and d["differences"] == p.differences
    assert f"at offset {p.offset}" in str(p)


def test_a_table_the_history_lacks_is_a_note(tmp_path):
    minimal = write(tmp_path, "mariadb-10.11", "MINIMAL")
    only = SCHEMA[:SCHEMA.index("CREATE TABLE other")]
    got, decoder = decode(minimal, history_for([minimal], text=only))
    assert [ch[2] for ch in got if ch[0] == "other"] == [("@1", "@2")]
    assert len(decoder.notices) == 1 and "shop.other" in decoder.notices[0]
    assert not decoder.problems


def test_statement_verbs():
    assert statement_verb("  /* x */ INSERT INTO t VALUES (1)") == "insert"
    assert statement_verb(b"-- c\nupdate t set a=1") == "update"
    assert statement_verb("BEGIN") == "begin"
    assert statement_verb("# c\nALTER TABLE t ADD c INT") == "alter"
    assert statement_verb("") == ""


def test_old_temporal_types_agree_with_their_ddl():
    history = SchemaHistory("mariadb", "10.11.6-MariaDB")
    history.seed("CREATE TABLE d.t (a TIME, b DATETIME, c TIMESTAMP NULL, e TIME(3));")
    table = history.table("d", "t")
    tm = TableMap(table_id=1, database="d", table="t", flavor="mariadb", columns=[
        Column(index=0, type="TIME"), Column(index=1, type="DATETIME"),
        Column(index=2, type="TIMESTAMP"), Column(index=3, type="TIME")])
    # MariaDB: TIME(3) logged as TIME is its hi-res format, of the schema's precision
    assert table.check(tm) == [] and table.hires_precisions(tm) == {3: 3}
    tm.flavor = "mysql"   # MySQL has no such format: an old TIME has no fractional part
    problems = table.check(tm)
    assert len(problems) == 1 and "'e'" in problems[0] and "fsp 3" in problems[0]
    assert table.hires_precisions(tm) == {}
    tm.columns[3].type = "TIME2"
    tm.columns[3].fsp = 3
    assert table.check(tm) == []


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "binlog_schema", *map(str, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_decode_rows_schema_on_the_command_line(tmp_path):
    full = write(tmp_path, "mariadb-10.11", "FULL")
    minimal = write(tmp_path, "mariadb-10.11", "MINIMAL")
    schema = tmp_path / "schema.sql"
    schema.write_text(SCHEMA, encoding="utf-8")

    def rows(out):
        return [d["rows"] for d in map(json.loads, out.splitlines()) if "rows" in d]

    want = _cli("decode", "--rows", full)
    got = _cli("decode", "--rows", "--schema", schema, minimal)
    assert got.returncode == 0, got.stderr
    assert rows(got.stdout) == rows(want.stdout)
    assert "1 statement-based changes (INSERT 1)" in got.stderr
    assert "3 table map shapes named from it, 0 disagreeing" in got.stderr
    wrong = tmp_path / "wrong.sql"
    wrong.write_text(SCHEMA.replace("VARCHAR(20)", "VARCHAR(21)"), encoding="utf-8")
    bad = _cli("decode", "--rows", "--schema", wrong, minimal)
    assert bad.returncode == 3
    assert bad.stderr.count("schema at offset") == 2 and "shop.orders" in bad.stderr
    assert sum('"schema_error"' in line for line in bad.stdout.splitlines()) == 2
    text = _cli("decode", "--rows", "--format", "text", "--schema", wrong, minimal)
    assert text.returncode == 3 and text.stdout.count("# schema error: ") == 2
    usage = _cli("decode", "--schema", schema, minimal)
    assert usage.returncode == 2 and "--rows" in usage.stderr
    missing = _cli("decode", "--rows", "--schema", tmp_path / "nope.sql", minimal)
    assert missing.returncode == 1 and "nope.sql: no such file" in missing.stderr

"""``spark decode --schema``: the schema history where the Spark tasks decode rows. The same
synthetic shop is written with binlog_row_metadata FULL and MINIMAL (an ALTER half-way, ENUM
and SET columns, a statement-based INSERT): cut into many splits, the MINIMAL file decoded
with the schema gives the FULL file's row changes (names, ENUM/SET members), splits after the
ALTER included; a wrong schema gives ``errors`` rows of stage ``schema`` and @N names; the
statement-based changes are counted in the ``files`` table."""

import os

import pytest

from binlog_schema.pipeline.tasks.decode import decode_split
from binlog_schema.pipeline.tasks.prescan import prescan
from binlog_schema.pipeline.tasks.split import ERROR, ROW, STAT
from binlog_schema.pipeline.tasks.history import SchemaPlan, statements_of
from binlog_schema.synthetic import generate

from .pipeline_support import spark_missing

SCHEMA = """
CREATE DATABASE shop;
USE shop;
CREATE TABLE orders (
  id BIGINT UNSIGNED NOT NULL,
  state ENUM('new','paid','gone') NOT NULL,
  flags SET('gift','rush') DEFAULT NULL,
  note VARCHAR(20),
  PRIMARY KEY (id)
) DEFAULT CHARSET=latin1;
"""
STATES = ("new", "paid", "gone")


def spec(metadata, n=240):
    txs = []
    for i in range(1, n + 1):
        txs.append({"changes": [{"insert": "orders", "rows": [
            {"id": i, "state": STATES[i % 3], "flags": ["gift"] if i % 2 else [],
             "note": f"order {i}"}]}]})
        if i == n // 2:
            txs.append({"ddl": "ALTER TABLE orders ADD COLUMN qty INT UNSIGNED"})
            txs.append({"ddl": "INSERT INTO orders (id, state) VALUES (100000, 'new')"})
    txs.append({"changes": [{"update": "orders", "rows": [
        {"where": {"id": 1}, "set": {"state": "gone", "qty": 7}}]}]})
    return {"server": "mariadb-10.11", "settings": {"binlog_row_metadata": metadata},
            "database": "shop",
            "tables": [{"name": "orders", "charset": "latin1", "columns": [
                {"name": "id", "type": "BIGINT UNSIGNED", "nullable": False},
                {"name": "state", "type": "ENUM('new','paid','gone')", "nullable": False},
                {"name": "flags", "type": "SET('gift','rush')"},
                {"name": "note", "type": "VARCHAR(20)"}], "primary_key": ["id"]}],
            "transactions": txs}


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    d = tmp_path_factory.mktemp("shop")
    for meta in ("FULL", "MINIMAL"):
        (d / meta).mkdir()
        (d / meta / "shop-bin.000001").write_bytes(generate(spec(meta)))
    (d / "schema.sql").write_text(SCHEMA, encoding="utf-8")
    (d / "wrong.sql").write_text(SCHEMA.replace("VARCHAR(20)", "VARCHAR(21)"),
                                 encoding="utf-8")
    return d


def split_rows(path, plan=None, split_bytes=3_000):
    """(row tuples (offset, row_index, table, before, after), error rows, stat rows) of every
    split of a file, decoded as the spark engine's tasks decode them."""
    splits = prescan(str(path), os.path.getsize(path), split_bytes)
    rows, errors, stats = [], [], []
    for s in splits:
        for t in decode_split(s, schema=plan):
            if t[0] == ROW:
                r = t[4]
                rows.append((r[1], r[8], r[6], r[9], r[10]))
            elif t[0] == ERROR:
                errors.append(t[5])
            elif t[0] == STAT:
                stats.append(t[6])
    return splits, sorted(rows, key=lambda r: (r[0], r[1])), errors, stats


def test_tasks_name_minimal_rows_from_the_schema(shop):
    full = shop / "FULL" / "shop-bin.000001"
    minimal = shop / "MINIMAL" / "shop-bin.000001"
    splits, want, _, _ = split_rows(full)
    assert len(splits) > 10
    plan = SchemaPlan.make([SCHEMA], [statements_of(str(minimal))])
    assert [b["query"] for _, _, b in plan.statements] == [
        "ALTER TABLE orders ADD COLUMN qty INT UNSIGNED"]
    _, got, errors, stats = split_rows(minimal, plan)
    assert not errors
    assert [r[2:] for r in got] == [r[2:] for r in want] and len(got) == 241
    keys = set(got[-1][4])
    assert {"id", "state", "flags", "note", "qty"} <= keys
    assert sum(s[18] for s in stats) == 1     # the statement-based INSERT
    _, plain, _, _ = split_rows(minimal)
    assert all(k.startswith("@") for r in plain for k in (r[4] or {}))


def test_tasks_report_a_wrong_schema(shop):
    minimal = shop / "MINIMAL" / "shop-bin.000001"
    wrong = SCHEMA.replace("VARCHAR(20)", "VARCHAR(21)")
    plan = SchemaPlan.make([wrong], [statements_of(str(minimal))])
    _, got, errors, _ = split_rows(minimal, plan)
    assert errors and all(e[3] == "schema" and e[4] == "schema" for e in errors)
    assert all("shop.orders" in e[6] and "max_length" in e[6] for e in errors)
    assert all(k.startswith("@") for r in got for k in (r[4] or {}))


@pytest.mark.skipif(spark_missing() is not None, reason=str(spark_missing()))
def test_spark_decode_with_schema(shop, tmp_path):
    import subprocess
    import sys
    import pyarrow.parquet as pq

    def run(schema, out):
        return subprocess.run(
            [sys.executable, "-m", "binlog_schema", "spark", "decode",
             str(shop / "MINIMAL"), "--out", str(out), "--split-size", "4k", "--schema",
             str(schema), "--quiet"], capture_output=True, text=True, timeout=600)

    r = run(shop / "schema.sql", tmp_path / "ok")
    assert r.returncode == 0, r.stderr[-3000:]
    rows = pq.read_table(tmp_path / "ok" / "row_changes").to_pylist()
    assert len(rows) == 241
    assert all({"id", "state"} <= set(k for k, _ in (r["after"] or r["before"]))
               for r in rows)
    files = pq.read_table(tmp_path / "ok" / "files").to_pylist()
    assert [f["statements"] for f in files] == [1]
    bad = run(shop / "wrong.sql", tmp_path / "bad")
    assert bad.returncode == 3, bad.stderr[-3000:]
    errors = pq.read_table(tmp_path / "bad" / "errors").to_pylist()
    assert errors and {e["stage"] for e in errors} == {"schema"}
    missing = run(shop / "nope.sql", tmp_path / "none")
    assert missing.returncode == 1 and "nope.sql" in missing.stderr


def test_plan_replays_each_file_as_its_server_wrote_it(tmp_path):
    """A 5.7 file after a 5.1 one (the corpus' canal folders, read as one sequence): the 5.7
    file's CREATE TABLEs give DATETIME2 columns (the 5.1 server's DATETIME is the old
    format), so the splits after them name their rows as ``decode --rows`` does."""
    from tests.conftest import corpus_file
    old = corpus_file("canal/binlog/mysql-bin.000001")
    new = corpus_file("canal/binlog/tsdb/mysql-bin.000003")
    plan = SchemaPlan.make([], [statements_of(str(old)), statements_of(str(new))])
    assert plan.version.startswith("5.1") and plan.servers[1].server_version.startswith("5.7")
    index, history = plan.history_at(str(new), 11_953)
    history.catch_up()
    table = history.table("tsdb", "canal_table_meta_snapshot")
    assert index == 1 and [c.type for c in table.columns[1:3]] == ["DATETIME2"] * 2
    _, got, errors, _ = split_rows(new, plan, split_bytes=8_192)
    assert not errors
    named = [r for r in got if r[2] == "canal_table_meta_snapshot"]
    assert named and all(not k.startswith("@") for r in named for k in (r[4] or r[3]))

"""``spark changes`` on synthetic binlogs (a MariaDB server's, FULL and MINIMAL row images):
each change type with the rows the spec wrote, one ``_commit_version`` per transaction (the
documented formula: the file's sequence number x 10^12 + the offset of the transaction's
GTID event, read back from the file), greater for each later transaction,
``_commit_timestamp`` the transaction's time, ``_order_key`` a total order; a column added by
an ALTER null (and not present) before, the images' columns as ``_columns_present`` says
(MINIMAL: the key in a preimage, the columns set in a postimage); a dropped table left out,
a TRUNCATE said in changes.json; the table replayed gives the rows the spec leaves; the
command's stderr on a clean file is its progress lines only (no JVM or log4j chatter),
nothing with --quiet, and Spark's logging again with --verbose."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ..conftest import unavailable
from .pipeline_support import replay_changes, spark_missing

pytestmark = pytest.mark.spark

MISSING = spark_missing()
if MISSING:
    unavailable(f"Spark tier not run: {MISSING}", module=True)

from binlog_schema.pipeline.current.changes import (CHANGE_COLUMNS, CHANGES_FILE,  # noqa: E402
                                                    changes, commit_version)
from binlog_schema.pipeline.driver.session import start_session  # noqa: E402

T0 = 1_700_000_000


def spec(image: str) -> dict:
    return {
        "server": "mariadb-10.11",
        "settings": {"binlog_row_image": image, "timestamp": T0},
        "database": "shop",
        "tables": [
            {"name": "items", "columns": [
                {"name": "id", "type": "INT", "nullable": False},
                {"name": "name", "type": "VARCHAR(20)"},
                {"name": "qty", "type": "INT"}], "primary_key": ["id"]},
            {"name": "log", "columns": [
                {"name": "k", "type": "INT"}, {"name": "v", "type": "VARCHAR(10)"}]},
            {"name": "gone", "columns": [{"name": "id", "type": "INT", "nullable": False}],
             "primary_key": ["id"]},
        ],
        "transactions": [
            {"timestamp": T0 + 10, "changes": [   # 1: one transaction, three tables
                {"insert": "items", "rows": [{"id": 1, "name": "one", "qty": 1},
                                             {"id": 2, "name": "two", "qty": 2}]},
                {"insert": "log", "rows": [{"k": 1, "v": "a"}, {"k": 1, "v": "a"}]},
                {"insert": "gone", "rows": [{"id": 7}]}]},
            {"timestamp": T0 + 20, "changes": [   # 2
                {"update": "items", "rows": [{"where": {"id": 1}, "set": {"qty": 5}}]},
                {"delete": "items", "rows": [{"where": {"id": 2}}]},
                {"delete": "log", "rows": [{"where": {"k": 1, "v": "a"}}]}]},
            {"timestamp": T0 + 30,                # 3
             "ddl": "ALTER TABLE items ADD COLUMN note VARCHAR(10) DEFAULT 'n'"},
            {"timestamp": T0 + 40, "changes": [   # 4
                {"insert": "items", "rows": [{"id": 3, "name": "three", "qty": 3,
                                              "note": "x"}]},
                {"update": "items", "rows": [{"where": {"id": 1}, "set": {"note": "y"}}]}]},
            {"timestamp": T0 + 50, "ddl": "TRUNCATE TABLE log"},        # 5
            {"timestamp": T0 + 60, "changes": [   # 6
                {"insert": "log", "rows": [{"k": 2, "v": "b"}]}]},
            {"timestamp": T0 + 70, "ddl": "DROP TABLE gone"},            # 7
            {"timestamp": T0 + 80, "changes": [   # 8: the key changes
                {"update": "items", "rows": [{"where": {"id": 3}, "set": {"id": 30}}]}]},
        ],
    }


@pytest.fixture(scope="module")
def spark():
    s = start_session("local[2]", {"spark.sql.shuffle.partitions": "2"})
    yield s
    s.stop()


def write(tmp, image):
    """The spec's binlog (and the schema file of its tables before it); (binlog, schema,
    [offset of each transaction's GTID event])."""
    from binlog_schema.format.facts.codes import MARIA_GTID_EVENT
    from binlog_schema.format.stream import BinlogReader
    from binlog_schema.synthetic import generate, load_spec
    from binlog_schema.synthetic.sql import schema_sql
    folder = tmp / image
    folder.mkdir()
    path = folder / "mariadb-bin.000007"
    generate(spec(image), str(path))
    schema = tmp / f"{image}.sql"
    # (the tables as they were before the binlog: the ALTER and DROP are in it)
    schema.write_text(schema_sql(load_spec(spec(image))).split("INSERT")[0])
    gtids = [r.offset for r in BinlogReader(str(path)) if r.kind == MARIA_GTID_EVENT]
    return path, schema, gtids


def table(out, name):
    import pyarrow.dataset as ds
    t = ds.dataset(str(out / name.replace(".", "/")), format="parquet").to_table()
    return t.schema, t.to_pylist()


@pytest.fixture(scope="module", params=["FULL", "MINIMAL"])
def run(request, spark, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"changes-{request.param}")
    path, schema, gtids = write(tmp, request.param)
    out = tmp / "out"
    result = changes([str(path)], spark, out=str(out), schema=[str(schema)])
    return request.param, out, result, gtids


def test_changes_are_the_specs_with_their_commit_versions_and_times(run):
    image, out, result, gtids = run
    assert result.status == 0, result.problem_lines()
    assert len(gtids) == 8
    v = [commit_version(7, g) for g in gtids]   # (mariadb-bin.000007)
    schema, rows = table(out, "shop.items")
    assert schema.names == ["id", "name", "qty", "note", *CHANGE_COLUMNS]
    assert str(schema.field("_commit_version").type) == "int64"
    assert str(schema.field("_commit_timestamp").type).startswith("timestamp")
    full = image == "FULL"

    def row(kind, tx, values, present=None):
        present = present or [k for k, x in values.items() if x is not None or full]
        return (kind, v[tx - 1], T0 + tx * 10, tuple(values.get(c) for c in
                                                      ("id", "name", "qty", "note")),
                tuple(present))
    got = sorted((r["_change_type"], r["_commit_version"],
                  int(r["_commit_timestamp"].timestamp()),
                  (r["id"], r["name"], r["qty"], r["note"]), tuple(r["_columns_present"]))
                 for r in rows)
    cols3 = ["id", "name", "qty"]
    cols4 = cols3 + ["note"]
    one = {"id": 1, "name": "one", "qty": 1}
    want = [
        row("insert", 1, one, cols3),
        row("insert", 1, {"id": 2, "name": "two", "qty": 2}, cols3),
        row("update_preimage", 2, one if full else {"id": 1}, cols3 if full else ["id"]),
        row("update_postimage", 2, {**one, "qty": 5} if full else {"qty": 5},
            cols3 if full else ["qty"]),
        row("delete", 2, {"id": 2, "name": "two", "qty": 2} if full else {"id": 2},
            cols3 if full else ["id"]),
        row("insert", 4, {"id": 3, "name": "three", "qty": 3, "note": "x"}, cols4),
        # (the row of id 1 holds the DEFAULT since the ALTER: FULL images log it)
        row("update_preimage", 4, {**one, "qty": 5, "note": "n"} if full else {"id": 1},
            cols4 if full else ["id"]),
        row("update_postimage", 4, {**one, "qty": 5, "note": "y"} if full else
            {"note": "y"}, cols4 if full else ["note"]),
        row("update_preimage", 8, {"id": 3, "name": "three", "qty": 3, "note": "x"}
            if full else {"id": 3}, cols4 if full else ["id"]),
        row("update_postimage", 8, {"id": 30, "name": "three", "qty": 3, "note": "x"}
            if full else {"id": 30}, cols4 if full else ["id"]),
    ]
    assert got == sorted(want)
    # one version per transaction, greater for each later one; a total order of changes
    assert v == sorted(set(v))
    keys = [r["_order_key"] for r in rows]
    assert len(set(keys)) == len(keys) - 3   # (an update's two rows share theirs)
    by_key = sorted(rows, key=lambda r: r["_order_key"])
    assert [r["_commit_version"] for r in by_key] == sorted(r["_commit_version"] for r in rows)


def test_a_keyless_table_a_truncate_and_a_dropped_table(run):
    image, out, result, gtids = run
    v = [commit_version(7, g) for g in gtids]
    _, rows = table(out, "shop.log")
    got = sorted((r["_change_type"], r["_commit_version"], r["k"], r["v"]) for r in rows)
    # (the DELETE matches both copies: two deletes)
    assert got == sorted([("insert", v[0], 1, "a")] * 2 + [("delete", v[1], 1, "a")] * 2
                         + [("insert", v[5], 2, "b")])
    doc = json.loads((out / "_binlog_schema" / CHANGES_FILE).read_text())
    (truncate,) = doc["tables"]["shop.log"]["truncates"]
    assert v[3] < truncate < v[5]          # (the TRUNCATE's own place, between)
    assert doc["left_out"] == ["shop.gone"] and not (out / "shop" / "gone").exists()
    assert sorted(doc["tables"]) == ["shop.items", "shop.log"]
    assert doc["tables"]["shop.items"]["columns_added"] == [
        {"column": "note", "commit_version": doc["tables"]["shop.items"]["columns_added"][0][
            "commit_version"]}]
    assert v[1] < doc["tables"]["shop.items"]["columns_added"][0]["commit_version"] < v[3]
    assert replay_changes(rows, [truncate]) == [{"k": 2, "v": "b"}]


def test_the_items_table_replayed_is_the_specs_final_state(run):
    from binlog_schema.synthetic import load_spec
    image, out, _, _ = run
    _, rows = table(out, "shop.items")
    got = sorted(tuple(r.values()) for r in replay_changes(rows))
    final = load_spec(spec(image)).state[("shop", "items")]
    want = sorted(tuple(r[i] for i in range(4)) for r in final)
    assert got == want == [(1, "one", 5, "y"), (30, "three", 3, "x")]


def test_delta_tables_hold_the_same_changes(spark, tmp_path):
    from deltalake import DeltaTable
    path, schema, _ = write(tmp_path, "FULL")
    out = tmp_path / "delta"
    result = changes([str(path)], spark, out=str(out), schema=[str(schema)], fmt="delta")
    assert result.status == 0, result.problem_lines()
    t = DeltaTable(str(out / "shop" / "items")).to_pyarrow_table()
    assert t.schema.names[-len(CHANGE_COLUMNS):] == list(CHANGE_COLUMNS)
    assert sorted(t.column("_change_type").to_pylist()) == sorted(
        ["insert"] * 3 + ["update_preimage", "update_postimage"] * 3 + ["delete"])


def _command(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.getcwd(), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return subprocess.run([sys.executable, "-m", "binlog_schema", "spark", *map(str, args),
                           "--master", "local[2]"], capture_output=True, text=True,
                          timeout=600, env=env)


def test_a_command_says_only_its_progress_unless_verbose(tmp_path):
    """Quiet by default: ``spark changes`` on a clean file prints on stderr exactly its
    progress lines ("[  1.2s] ..."), with --quiet nothing, with --verbose Spark's logging
    and the JVM's start-up lines too; a real problem stays visible."""
    import re
    path, schema, _ = write(tmp_path, "FULL")
    base = ["changes", path, "--schema", schema, "--overwrite"]
    plain = _command(*base, "--out", tmp_path / "a")
    assert plain.returncode == 0, plain.stderr
    lines = plain.stderr.splitlines()
    assert lines and all(re.match(r"\[ *\d+\.\d+s\] ", x) for x in lines), plain.stderr
    quiet = _command(*base, "--out", tmp_path / "b", "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    loud = _command(*base, "--out", tmp_path / "c", "--verbose")
    assert loud.returncode == 0, loud.stderr
    assert "log4j" in loud.stderr or "WARN" in loud.stderr, loud.stderr
    # a problem: the table's schema not given, its changes not placed: said, exit 3
    bad = _command("changes", path, "--out", tmp_path / "d", "--quiet")
    assert bad.returncode == 3
    said = bad.stderr.splitlines()
    assert said and all(x.startswith("binlog-schema spark changes: ") for x in said), \
        bad.stderr
    assert any("shop.items: no table of that name is known there" in x for x in said)

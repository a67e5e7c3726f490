"""The one transaction-boundary rule in Spark: its Spark SQL form (``spark current``'s
statement roles) classifies every statement of the unit tier's table as the Python form does;
and binlogs whose transactions begin with START TRANSACTION (and other forms of BEGIN),
written with the declarations from real and synthetic files, give what the BEGIN originals
give: ``decode --format maxwell`` (XIDs, commit flags), ``spark decode``'s transaction columns
at several split sizes (and as many cuts), ``spark current``'s tables and applied position
(the last transaction cut short: left for the next run)."""

from __future__ import annotations

import json
import os

import pytest

from binlog_schema import cli
from binlog_schema.format.facts.codes import QUERY_EVENT, XID_EVENT
from binlog_schema.format.stream import BinlogReader
from binlog_schema.format.writer import BinlogWriter

from ..conftest import corpus_file, unavailable
from ..unit.test_transaction_boundaries import STATEMENTS
from .pipeline_support import shop_spec, spark_missing, write_shop

pytestmark = pytest.mark.spark

MISSING = spark_missing()
if MISSING:
    unavailable(f"Spark tier not run: {MISSING}", module=True)

from binlog_schema.pipeline.tasks.prescan import prescan  # noqa: E402
from binlog_schema.pipeline.current.complete import statement_role_column  # noqa: E402
from binlog_schema.pipeline.current.job import current  # noqa: E402
from binlog_schema.pipeline.jobs.decode import decode  # noqa: E402
from binlog_schema.pipeline.driver.session import start_session  # noqa: E402

FORMS = ["START TRANSACTION", "start transaction", "/* app */ BEGIN", "BEGIN WORK"]


@pytest.fixture(scope="module")
def spark():
    s = start_session("local[2]", {"spark.sql.shuffle.partitions": "2"})
    yield s
    s.stop()


def test_spark_sql_form_classifies_as_python(spark):
    from pyspark.sql import functions as F
    df = spark.createDataFrame([(q,) for q, _ in STATEMENTS] + [(None,)], "query string")
    got = {r["query"]: r["role"] for r in
           df.select("query", statement_role_column(F.col("query")).alias("role")).collect()}
    assert got == {**{q: role for q, role in STATEMENTS}, None: None}


def rewrite(src, dst, cut_last: bool = False) -> dict:
    """``src`` written anew at ``dst`` by the declarations, each BEGIN replaced by the next of
    FORMS (with ``cut_last``: the file ends before its last XID, a transaction cut short);
    ``{offset in dst: offset in src}``."""
    records = list(BinlogReader(str(src)))
    if cut_last:
        last = max(i for i, r in enumerate(records) if r.kind == XID_EVENT)
        records = records[:last]
    moved, n = {}, 0
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with BinlogWriter(str(dst)) as w:
        for r in records:
            value = r.value
            if r.kind == QUERY_EVENT and value["body"].get("query") == "BEGIN":
                value = {**value, "body": {**value["body"], "query": FORMS[n % len(FORMS)]}}
                n += 1
            moved[r.offset if r.offset == 4 else w.pos] = r.offset
            if r.offset == 4:
                w.write(value)
            else:
                w.write_record(r, value)
    assert n > 10
    return moved


def cut(src, dst):
    """``src`` up to its last XID (the same cut as ``rewrite``'s)."""
    last = max(r.offset for r in BinlogReader(str(src)) if r.kind == XID_EVENT)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(src, "rb") as f:
        data = f.read(last)
    with open(dst, "wb") as f:
        f.write(data)


def events_of(spark, path, out, split_size, moved=None):
    """(offset, type, gtid, transaction, xid) of the events table (offsets in the original
    file), and the (order key, xid, commit time) of row_changes, and the splits."""
    tables = decode([str(path)], spark, out=str(out), engine="arrow", split_size=split_size,
                    mode="overwrite")
    m = moved or {}
    ev = sorted((m.get(r["offset"], r["offset"]), r["type"], r["gtid"],
                 m.get(r["transaction_offset"], r["transaction_offset"]), r["xid"])
                for r in tables.events.collect() if r["in_payload_at"] is None)
    rows = sorted((int(r["order_key"].split(".")[1]), r["xid"], r["commit_timestamp"])
                  for r in tables.row_changes.collect())
    rows = [(m.get(k, k), x, t) for k, x, t in rows]
    return ev, rows, len(prescan(str(path), os.path.getsize(path), split_size))


@pytest.mark.parametrize("source", ["canal", "shop"])
def test_start_transaction_end_to_end(spark, tmp_path, capsys, source):
    if source == "canal":   # MySQL 5.1: BEGIN ... XID, no GTIDs
        original = corpus_file("canal/binlog/mysql-bin.000001")
    else:                   # MySQL 8 with GTIDs, FULL metadata
        original = write_shop(tmp_path / "src" / "binlog.000001", seed=7, transactions=80)
    changed = tmp_path / "changed" / "binlog.000001"
    moved = rewrite(original, changed)

    # decode --format maxwell: the same records, XIDs and commit flags
    def maxwell(path):
        assert cli.main(["decode", "--format", "maxwell", str(path)]) == 0
        return [{k: v for k, v in json.loads(x).items() if k not in ("position", "order_key")}
                for x in capsys.readouterr().out.splitlines()]
    assert maxwell(changed) == maxwell(original)

    # spark decode: the transaction columns, whole and split
    want, want_rows, _ = events_of(spark, original, tmp_path / "o", 10 << 20)
    assert any(t is not None for _, _, _, t, _ in want)
    for size in (10 << 20, 6000, 2500):
        got, got_rows, splits = events_of(spark, changed, tmp_path / f"c{size}", size, moved)
        assert got == want and got_rows == want_rows, size
        if size < 10 << 20:
            assert splits > 2, size

    if source != "shop":
        return
    # spark current: the last transaction cut short is left for the next run, alike
    schema = tmp_path / "schema.sql"
    from binlog_schema.synthetic import load_spec
    from binlog_schema.synthetic.sql import schema_sql
    schema.write_text(schema_sql(load_spec(shop_spec(seed=7, transactions=80))))
    cut(original, tmp_path / "a" / "binlog.000001")
    moved = rewrite(original, tmp_path / "b" / "binlog.000001", cut_last=True)
    results = {}
    for name in ("a", "b"):
        r = current([str(tmp_path / name)], spark, out=str(tmp_path / f"out-{name}"),
                    schema=[str(schema)], assume_empty=True)
        assert r.status == 0, r.problems
        import pyarrow.parquet as pq
        results[name] = (
            r.applied, r.pending,
            {t: sorted(({k: v for k, v in x.items() if k != "_order_key"}   # (offsets)
                        for x in pq.read_table(str(tmp_path / f"out-{name}" /
                                                   t.replace(".", "/"))).to_pylist()),
                       key=lambda x: x["id"]) for t in ("shop.orders", "shop.notes")})
    applied_a, pending_a, tables_a = results["a"]
    applied_b, pending_b, tables_b = results["b"]
    assert pending_a > 0 and pending_b == pending_a
    assert tables_b == tables_a
    assert moved[applied_b["position"]] == applied_a["position"]

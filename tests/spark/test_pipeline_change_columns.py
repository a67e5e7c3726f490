"""The ``row_changes`` columns of a change's place (issue 14): ``order_key``, ``xid``,
``commit_timestamp``, ``schema_version``. The tasks track the transactions of each split
(splits start at transaction starts) with the tracker of ``decode --format maxwell``; cut into
many splits, a file's columns equal what the Python API (``change_records``) gives for the
whole file, with both engines' sinks; a transaction whose end is not in the file has no XID."""

import os

import pytest

from binlog_schema.changes.transactions import change_records
from binlog_schema.pipeline.tasks.decode import decode_group, decode_split
from binlog_schema.pipeline.tasks.prescan import prescan
from binlog_schema.pipeline.tasks.split import ROW
from binlog_schema.pipeline.tasks.history import SchemaPlan, statements_of
from binlog_schema.format.stream import BinlogReader
from binlog_schema.synthetic import generate

from .test_pipeline_schema import SCHEMA, spec as shop_spec
from .test_pipeline_tasks import decode_file

SPEC = {
    "server": "mysql-8.0",
    "settings": {"binlog_row_metadata": "FULL", "gtid_mode": "ON", "rows_event_max_size": 300,
                 "xid_start": 9_000},
    "database": "d",
    "tables": [{"name": "t", "columns": [{"name": "id", "type": "INT", "nullable": False},
                                         {"name": "s", "type": "VARCHAR(40)"}],
                "primary_key": ["id"]}],
    "transactions": [
        {"timestamp": 1_700_000_000 + i, "changes": [
            {"insert": "t", "rows": [{"id": i * 100 + j, "s": "x" * 30}
                                     for j in range(1 + i % 7)]},
            {"update": "t", "rows": [{"where": {"id": i * 100}, "set": {"s": "y"}}]}]}
        for i in range(60)],
}


def api_values(path) -> list:
    """(order_key, xid, commit_timestamp (s), schema_version) per change, whole file."""
    reader = BinlogReader(str(path), decode="lazy", skip_errors=True)
    return [(c.order_key, c.xid, c.commit_timestamp, c.schema_version)
            for c in change_records(reader, on_error=lambda r: None)]


def task_values(path, split_bytes, engine) -> tuple:
    splits, out = decode_file(path, split_bytes, engine)
    if engine == "spark":
        got = [(r[13], r[14], None if r[15] is None else r[15] // 1_000_000, r[16])
               for r in out["row"]]
    else:
        got = [(r["order_key"], r["xid"], None if r["commit_timestamp"] is None else
                int(r["commit_timestamp"].timestamp()), r["schema_version"])
               for r in out["row"]]
    return splits, sorted(got)


@pytest.mark.parametrize("compression", [False, True])
@pytest.mark.parametrize("engine", ["arrow", "spark"])
def test_columns_equal_the_python_api_across_many_splits(tmp_path, compression, engine):
    path = tmp_path / "binlog.000017"
    path.write_bytes(generate(dict(SPEC, settings=dict(SPEC["settings"],
                                                       compression=compression))))
    want = api_values(path)
    assert len(want) > 250 and all(w[1] is not None for w in want)
    splits, got = task_values(path, 1_500, engine)
    assert len(splits) > 10
    assert got == sorted(want)
    assert [w[0] for w in want] == sorted(w[0] for w in want)   # the file's order
    assert {w[0].split(".")[0] for w in want} == {"0000000017"}


@pytest.mark.parametrize("engine", ["arrow", "spark"])
def test_a_transaction_cut_by_the_end_of_the_file(tmp_path, engine):
    whole = tmp_path / "binlog.000001"
    whole.write_bytes(generate(SPEC))
    xids = [r.offset for r in BinlogReader(str(whole), decode="lazy") if
            r.type_name == "XID_EVENT"]
    path = tmp_path / "binlog.000002"
    path.write_bytes(whole.read_bytes()[:xids[-1]])
    want = api_values(path)
    assert want[-1][1] is None and want[-1][2] is None and want[0][1] == 9_000
    _, got = task_values(path, 2_000, engine)
    assert got == sorted(want)


def test_held_batches_spill_and_get_their_commit(tmp_path):
    """A transaction larger than a batch: its batches wait for the XID (spilled to an Arrow
    file past the bound) and all of its rows get it."""
    from binlog_schema.pipeline.tables.arrow import task_schemas
    from binlog_schema.pipeline.tasks.arrow_sink import ArrowSink
    big = dict(SPEC, transactions=[{"changes": [{"insert": "t", "rows": [
        {"id": 100_000 + i, "s": "z"} for i in range(3_000)]}]}] + SPEC["transactions"][:3])
    path = tmp_path / "binlog.000003"
    path.write_bytes(generate(big))
    want = api_values(path)
    (split,) = prescan(str(path), os.path.getsize(path), 8 << 20)
    sink = ArrowSink(task_schemas(), batch_rows=500)
    sink.held.limit = 1   # every held batch spilled
    rows = []
    for table, item in decode_group([split], sink=sink):
        if table == "row_changes":
            rows += item.to_pylist()
    got = [(r["order_key"], r["xid"], int(r["commit_timestamp"].timestamp()),
            r["schema_version"]) for r in rows]
    assert got == want and len(got) > 3_000 and got[0][1] == 9_000


def test_corpus_files_columns_equal_the_python_api(corpus):
    checked = 0
    for path in corpus:
        want = api_values(path)
        if not want:
            continue
        _, got = task_values(path, 4096, "arrow")
        assert got == sorted(want), path
        checked += 1
        if os.path.basename(str(path)) == "binlog.000693":
            assert sum(w[1] is not None for w in want) > 1_000
    assert checked >= 5


def test_schema_version_with_the_schema(tmp_path):
    path = tmp_path / "shop-bin.000001"
    path.write_bytes(generate(shop_spec("MINIMAL")))
    plan = SchemaPlan.make([SCHEMA], [statements_of(str(path))])
    splits = prescan(str(path), os.path.getsize(path), 3_000)
    assert len(splits) > 10
    got = sorted((t[4][13], t[4][16]) for s in splits
                 for t in decode_split(s, schema=plan) if t[0] == ROW)
    assert {v for _, v in got} == {1, 2} and len(got) == 241
    assert [v for _, v in got] == sorted(v for _, v in got)   # version 2 after the ALTER
    plain = {t[4][16] for s in splits for t in decode_split(s) if t[0] == ROW}
    assert plain == {None}

"""Iceberg tables by :mod:`binlog_schema.pipeline.tables.iceberg` (pyiceberg and its SQLite
catalog, no JVM): part files committed in place, replace_table's snapshots and schema
evolution, upserts by a key with nulls (one snapshot, only the files holding a key
rewritten, nothing staged: no snapshot), nested types read back by pyiceberg and DuckDB."""

import datetime as dt
import decimal
import os

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("pyiceberg")

from binlog_schema.pipeline.tables import iceberg  # noqa: E402

UTC = dt.timezone.utc
VALUE = pa.struct([("long", pa.int64()), ("decimal", pa.decimal128(38, 18)),
                   ("datetime", pa.timestamp("us")), ("timestamp", pa.timestamp("us", tz="UTC")),
                   ("time", pa.duration("us")), ("vector", pa.list_(pa.float64()))])
IDENT = ("db", "t")


def write_parts(directory, tables):
    """Parquet files ``part-<n>.parquet`` under ``directory``, as the tasks write them (no
    stored Arrow schema: Parquet's types)."""
    os.makedirs(directory, exist_ok=True)
    for i, t in enumerate(tables):
        pq.write_table(t, os.path.join(directory, f"part-{i:05d}.parquet"), store_schema=False)
    return str(directory)


def images():
    one = {"long": 7, "decimal": decimal.Decimal("-1.5"),
           "datetime": dt.datetime(2020, 5, 6, 7, 8, 9, 10),
           "timestamp": dt.datetime(2021, 1, 2, 3, 4, 5, tzinfo=UTC),
           "time": dt.timedelta(hours=-838, microseconds=1), "vector": [1.0, 2.5]}
    return [pa.table({
        "id": pa.array([1, 2], pa.int64()),
        "xid": pa.array([decimal.Decimal(2**64 - 1), None], pa.decimal128(20, 0)),
        "raw": pa.array([b"\x00\x01", None], pa.binary()),
        "image": pa.array([[("c", one)], None], pa.map_(pa.string(), VALUE))}),
        pa.table({"id": pa.array([3], pa.int64()),
                  "xid": pa.array([None], pa.decimal128(20, 0)),
                  "raw": pa.array([b""], pa.binary()),
                  "image": pa.array([[("c", dict(one, time=dt.timedelta(seconds=1)))]],
                                    pa.map_(pa.string(), VALUE))})]


def by_id(t):
    return sorted(t.to_pylist(), key=lambda r: (r["id"] is None, r["id"] or 0, repr(r)))


def test_commit_parts_in_place_nested_types(tmp_path):
    path = write_parts(tmp_path / "events", images())
    before = sorted(os.listdir(path))
    sid = iceberg.commit_parts(str(tmp_path), IDENT, path, {"run": 1})
    assert sorted(p for p in os.listdir(path) if p.endswith(".parquet")) == before
    assert iceberg.data_files(str(tmp_path), IDENT) and all(
        os.path.dirname(p.replace("file://", "")) == path
        for p in iceberg.data_files(str(tmp_path), IDENT))
    got = by_id(iceberg.read_arrow(str(tmp_path), IDENT))
    want = by_id(pa.concat_tables(images()))
    assert [r["id"] for r in got] == [1, 2, 3]
    # every value round-trips; a duration (MySQL TIME) is its microseconds
    assert got[0]["image"] == [("c", dict(want[0]["image"][0][1],
                                          time=-838 * 3600 * 10**6 + 1))]
    assert got[0]["xid"] == decimal.Decimal(2**64 - 1) and got[0]["raw"] == b"\x00\x01"
    assert got[1]["image"] is None and got[1]["raw"] is None     # (null, not an empty map)
    assert got[2]["image"][0][1]["time"] == 10**6
    schema = iceberg.load(str(tmp_path), IDENT).schema()
    value = schema.find_field("image").field_type.value_type
    assert [str(f.field_type) for f in value.fields] == [
        "long", "decimal(38, 18)", "timestamp", "timestamptz", "long", "list<double>"]
    assert iceberg.last_metadata(str(tmp_path), IDENT) == {"run": 1}
    assert iceberg.snapshots(str(tmp_path), IDENT)[-1].snapshot_id == sid
    with pytest.raises(FileExistsError):
        iceberg.commit_parts(str(tmp_path), IDENT, path)
    # DuckDB reads the snapshot through pyiceberg's scan plan
    con = iceberg.load(str(tmp_path), IDENT).scan().to_duckdb("t")
    assert con.sql("select id, xid from t order by id").fetchall() == [
        (1, decimal.Decimal(2**64 - 1)), (2, None), (3, None)]


def test_replace_table_snapshots_and_schema_change(tmp_path):
    root, path = str(tmp_path), str(tmp_path / "db" / "t")
    staged = write_parts(tmp_path / "s1", images())
    first = iceberg.replace_table(root, IDENT, path, staged, {"run": 1})
    assert not os.listdir(staged)      # moved into the table, not copied
    assert len(iceberg.read_arrow(root, IDENT)) == 3
    # columns dropped (raw, image) and added (name, first): the table evolves
    t2 = pa.table({"name": pa.array(["x"]), "id": pa.array([9], pa.int64()),
                   "xid": pa.array([1], pa.decimal128(20, 0))})
    second = iceberg.replace_table(root, IDENT, path, write_parts(tmp_path / "s2", [t2]),
                                   {"run": 2})
    assert iceberg.read_arrow(root, IDENT).to_pylist() == [
        {"name": "x", "id": 9, "xid": decimal.Decimal(1)}]
    # the first snapshot is still readable: the table was evolved, not made anew
    ids = [s.snapshot_id for s in iceberg.snapshots(root, IDENT)]
    assert ids[-1] == second and first in ids
    assert by_id(iceberg.read_arrow(root, IDENT, first))[0]["raw"] == b"\x00\x01"
    with pytest.raises(ValueError):
        iceberg.replace_table(root, IDENT, path, str(tmp_path / "s2"))   # (empty now)
    assert len(iceberg.read_arrow(root, IDENT)) == 1
    # a type Iceberg cannot evolve to (decimal to string): the table is made anew
    t3 = pa.table({"id": pa.array([9], pa.int64()), "xid": pa.array(["1"])})
    iceberg.replace_table(root, IDENT, path, write_parts(tmp_path / "s3", [t3]))
    assert iceberg.read_arrow(root, IDENT).to_pylist() == [{"id": 9, "xid": "1"}]
    assert len(iceberg.snapshots(root, IDENT)) == 1


def base_rows(n, start=0):
    return pa.table({"k": pa.array([None] + list(range(start, start + n - 1)), pa.int64()),
                     "v": pa.array([f"v{i}" for i in range(n)]),
                     "_order_key": pa.array([f"{i:04d}" for i in range(n)])})


def test_upsert_by_key_one_snapshot(tmp_path):
    root, path = str(tmp_path), str(tmp_path / "db" / "t")
    staged = tmp_path / "s0"
    os.makedirs(staged)
    # two data files: keys null, 0..3 and keys 100..104
    pq.write_table(base_rows(5), str(staged / "part-00000.parquet"), store_schema=False)
    other = pa.table({"k": pa.array(range(100, 105), pa.int64()),
                      "v": pa.array(["w"] * 5), "_order_key": pa.array(["0"] * 5)})
    pq.write_table(other, str(staged / "part-00001.parquet"), store_schema=False)
    iceberg.replace_table(root, IDENT, path, str(staged))
    files = set(iceberg.data_files(root, IDENT))
    snaps = len(iceberg.snapshots(root, IDENT))
    # update key null (null-safe), delete key 1, insert key 50
    change = pa.table({"k": pa.array([None, 1, 50], pa.int64()),
                       "v": pa.array(["new", None, "ins"]),
                       "_order_key": pa.array(["9000", "9001", "9002"]),
                       "_deleted": pa.array([False, True, None])})
    sid = iceberg.upsert_table(root, IDENT, path, write_parts(tmp_path / "s1", [change]),
                               ["k"], {"run": 2})
    got = {r["k"]: r["v"] for r in iceberg.read_arrow(root, IDENT).to_pylist()}
    assert got == {None: "new", 0: "v1", 2: "v3", 3: "v4", 50: "ins",
                   **{k: "w" for k in range(100, 105)}}
    snaps_now = iceberg.snapshots(root, IDENT)
    assert len(snaps_now) == snaps + 1 and snaps_now[-1].snapshot_id == sid
    summary = snaps_now[-1].summary
    # only the file holding a key was rewritten: it goes (5 rows), its 3 other rows and the
    # 2 upserted rows come; the other file stays as it was
    assert summary["deleted-data-files"] == "1" and summary["deleted-records"] == "5"
    assert summary["added-records"] == "5"
    assert summary[iceberg.UPSERTED] == "2" and summary[iceberg.DELETED_KEYS] == "1"
    now = set(iceberg.data_files(root, IDENT))
    assert len(files & now) == 1 and len(now) == 3
    # nothing staged: no snapshot
    empty = tmp_path / "s2"
    os.makedirs(empty)
    assert iceberg.upsert_table(root, IDENT, path, str(empty), ["k"]) is None
    assert len(iceberg.snapshots(root, IDENT)) == snaps + 1


def test_composite_key_upsert(tmp_path):
    root, path = str(tmp_path), str(tmp_path / "db" / "t")
    t = pa.table({"a": pa.array([1, 1, 2, 2]), "b": pa.array(["x", "y", "x", "y"]),
                  "v": pa.array([1, 2, 3, 4])})
    iceberg.replace_table(root, IDENT, path, write_parts(tmp_path / "s0", [t]))
    # (1, "y") and (2, "x") each match one column of the other: only the exact pairs go
    change = pa.table({"a": pa.array([1, 2]), "b": pa.array(["y", "x"]),
                       "v": pa.array([20, 30])})
    iceberg.upsert_table(root, IDENT, path, write_parts(tmp_path / "s1", [change]), ["a", "b"])
    got = sorted((r["a"], r["b"], r["v"]) for r in iceberg.read_arrow(root, IDENT).to_pylist())
    assert got == [(1, "x", 1), (1, "y", 20), (2, "x", 30), (2, "y", 4)]


def test_stored_durations_refused(tmp_path):
    """A file whose stored Arrow schema has a duration (pyarrow's default) would make a
    table pyiceberg cannot read: refused, nothing committed."""
    path = tmp_path / "p"
    os.makedirs(path)
    pq.write_table(images()[0], str(path / "part-00000.parquet"))
    with pytest.raises(ValueError, match="durations"):
        iceberg.commit_parts(str(tmp_path), IDENT, str(path))
    assert not iceberg.is_iceberg(str(tmp_path), IDENT)


def test_remote_folders_refused(tmp_path):
    with pytest.raises(ValueError, match="local"):
        iceberg.catalog("s3://bucket/out")

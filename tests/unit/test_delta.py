"""Delta Lake tables by :mod:`binlog_schema.pipeline.tables.delta` (deltalake, no Spark): versions
of replace_table, failures that leave the last version, MERGE by a key with nulls, commit
metadata, part files committed in place, Spark-written files (intervals, INT96 timestamps)."""

import datetime as dt
import json
import os

import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
deltalake = pytest.importorskip("deltalake")

from binlog_schema.pipeline.tables import delta  # noqa: E402
from binlog_schema.pipeline.tasks.parts import SPARK_METADATA  # noqa: E402

UTC = dt.timezone.utc
VALUE = pa.struct([("long", pa.int64()), ("datetime", pa.timestamp("us")),
                   ("time", pa.duration("us"))])


def write_parts(directory, tables, names=None):
    """Parquet files ``part-<n>.parquet`` (or ``names``) under ``directory``."""
    os.makedirs(directory, exist_ok=True)
    for i, t in enumerate(tables):
        pq.write_table(t, os.path.join(directory, names[i] if names else f"part-{i:05d}.parquet"))
    return str(directory)


def rows(path, version=None):
    t = deltalake.DeltaTable(str(path), version=version).to_pyarrow_table()
    return sorted(t.to_pylist(), key=repr)


def first_images():
    return [pa.table({
        "id": pa.array([1, 2], pa.int64()),
        "image": pa.array([[("c", {"long": 7, "datetime": dt.datetime(2020, 5, 6, 7, 8, 9, 10),
                                   "time": dt.timedelta(hours=-838, microseconds=1)})], None],
                          pa.map_(pa.string(), VALUE))}),
        pa.table({"id": pa.array([3], pa.int64()),
                  "image": pa.array([[("c", {"long": None, "datetime": None,
                                             "time": dt.timedelta(seconds=1)})]],
                                    pa.map_(pa.string(), VALUE))})]


def test_replace_table_versions_and_failures(tmp_path):
    table = tmp_path / "t"
    staged = write_parts(tmp_path / "s1", first_images())
    assert delta.replace_table(str(table), staged, {"run": 1}) == 0
    assert not os.listdir(staged)          # moved into the table, not copied
    got = rows(table)
    # durations (MySQL TIME) are long microseconds; timestamp_ntz inside the map survives
    assert [r["id"] for r in got] == [1, 2, 3]
    assert got[0]["image"] == [("c", {"long": 7, "datetime": dt.datetime(2020, 5, 6, 7, 8, 9, 10),
                                      "time": -838 * 3600 * 10**6 + 1})]
    assert got[1]["image"] is None and got[2]["image"][0][1]["time"] == 10**6
    schema = json.loads(deltalake.DeltaTable(str(table)).schema().to_json())
    value = schema["fields"][1]["type"]["valueType"]["fields"]
    assert value[2]["type"] == "long" and "microseconds" in value[2]["metadata"]["comment"]
    assert value[1]["type"] == "timestamp_ntz"

    # a second version with another schema (in a file: URI); version 0 still readable
    staged = write_parts(tmp_path / "s2", [pa.table({"id": ["x"], "score": [1.5]})])
    assert delta.replace_table(f"file://{table}", staged, {"run": 2}) == 1
    assert rows(table) == [{"id": "x", "score": 1.5}]
    assert rows(table, version=0) == got
    assert delta.last_metadata(str(table)) == {"run": 2}

    # failures before the commit leave version 1 whole
    with pytest.raises(FileNotFoundError):
        delta.replace_table(str(table), str(tmp_path / "absent"), {"run": 3})
    os.makedirs(tmp_path / "empty")
    with pytest.raises(ValueError, match="no Parquet part files"):
        delta.replace_table(str(table), str(tmp_path / "empty"), {"run": 3})
    mixed = write_parts(tmp_path / "s3", [pa.table({"id": ["y"]}), pa.table({"other": [1]})])
    with pytest.raises(ValueError, match="not the schema"):
        delta.replace_table(str(table), mixed, {"run": 3})
    assert len(os.listdir(mixed)) == 2     # nothing moved
    assert deltalake.DeltaTable(str(table)).version() == 1
    assert rows(table) == [{"id": "x", "score": 1.5}]
    assert delta.last_metadata(str(table)) == {"run": 2}


def test_replace_table_brings_timestamp_ntz_into_a_table_without_it(tmp_path):
    """deltalake would commit a version no reader can load: the feature is added first, and
    the content's metadata kept on that commit."""
    table = tmp_path / "t"
    delta.replace_table(str(table), write_parts(tmp_path / "s1", [pa.table({"a": [1]})]),
                        {"run": 1})
    assert deltalake.DeltaTable(str(table)).protocol().min_reader_version == 1
    ntz = pa.table({"a": [2], "at": pa.array([dt.datetime(2021, 1, 1)], pa.timestamp("us"))})
    version = delta.replace_table(str(table), write_parts(tmp_path / "s2", [ntz]), {"run": 2})
    assert version == 2        # (1: the protocol)
    history = deltalake.DeltaTable(str(table)).history()
    assert json.loads(history[1]["userMetadata"]) == {"run": 1}
    assert rows(table) == [{"a": 2, "at": dt.datetime(2021, 1, 1)}]
    assert rows(table, version=1) == [{"a": 1}]


def test_merge_table_by_a_key_with_nulls(tmp_path):
    table = str(tmp_path / "t")
    first = pa.table({"k1": [1, 1, None, 2, 9], "k2": ["a", None, "b", None, "z"],
                      "v": [10, 20, 30, 40, 90], "_deleted": [False, False, None, False, True]})
    assert delta.merge_table(table, write_parts(tmp_path / "s1", [first]), ["k1", "k2"],
                             metadata={"step": 1}) == 0
    assert rows(table) == sorted([{"k1": 1, "k2": "a", "v": 10}, {"k1": 1, "k2": None, "v": 20},
                                  {"k1": None, "k2": "b", "v": 30},
                                  {"k1": 2, "k2": None, "v": 40}], key=repr)
    second = pa.table({
        "k1": [1, None, 2, 3, 7, None],
        "k2": [None, "b", None, "c", "q", None],
        "v": [21, 0, 0, 50, 0, 60],
        "note": ["upd", "gone", "gone", "new", "absent", "nulls"],
        "_deleted": [False, True, True, False, True, None]})
    assert delta.merge_table(table, write_parts(tmp_path / "s2", [second]), ("k1", "k2"),
                             metadata={"step": 2}) == 1
    want = [{"k1": 1, "k2": "a", "v": 10, "note": None},       # untouched
            {"k1": 1, "k2": None, "v": 21, "note": "upd"},     # null k2 matched null
            {"k1": 3, "k2": "c", "v": 50, "note": "new"},
            {"k1": None, "k2": None, "v": 60, "note": "nulls"}]  # inserted: no null-null row
    assert rows(table) == sorted(want, key=repr)
    fields = [f["name"] for f in json.loads(
        deltalake.DeltaTable(table).schema().to_json())["fields"]]
    assert "_deleted" not in fields and "note" in fields
    assert delta.last_metadata(table) == {"step": 2}
    assert len(rows(table, version=0)) == 4
    with pytest.raises(ValueError, match="merge keys"):
        delta.merge_table(table, write_parts(tmp_path / "s3", [second]), ["nope"])


def test_last_metadata_and_is_delta(tmp_path):
    assert delta.last_metadata(str(tmp_path / "absent")) is None
    assert not delta.is_delta(str(tmp_path))
    parts = write_parts(tmp_path / "t", [pa.table({"a": [1]})])
    assert delta.commit_parts(parts) == 0
    assert delta.is_delta(parts) and delta.is_delta(f"file://{parts}")
    assert delta.last_metadata(parts) == {}
    meta = {"source": {"file": "bin.000002", "offset": 4}, "tables": ["a", "b"], "n": 3}
    write_parts(tmp_path / "t", [pa.table({"a": [2]})], names=["part-00001.parquet"])
    assert delta.commit_parts(parts, meta, mode="append") == 1
    assert delta.last_metadata(parts) == meta
    with pytest.raises(TypeError):
        delta.commit_parts(parts, ["not", "a", "dict"])


def test_commit_parts_in_place(tmp_path):
    d = tmp_path / "t"
    write_parts(d, [pa.table({"n": list(range(i * 100, i * 100 + 100)), "s": ["x"] * 100})
                    for i in range(3)])
    inodes = {n: os.stat(d / n).st_ino for n in os.listdir(d)}
    assert delta.commit_parts(str(d), {"w": 1}, mode="error") == 0
    table = deltalake.DeltaTable(str(d))
    held = sorted(os.path.basename(u) for u in table.file_uris())
    assert held == sorted(inodes) and {n: os.stat(d / n).st_ino for n in held} == inodes
    assert table.count() == 300            # (from the statistics of the commit)
    adds = pa.table(table.get_add_actions(flatten=True)).to_pylist()
    assert sorted((a["min.n"], a["max.n"], a["null_count.s"]) for a in adds) == [
        (0, 99, 0), (100, 199, 0), (200, 299, 0)]
    with pytest.raises(FileExistsError):
        delta.commit_parts(str(d), mode="error")
    assert delta.commit_parts(str(d)) == 0          # nothing new: no commit
    os.remove(d / "part-00000.parquet")
    write_parts(d, [pa.table({"n": [7], "s": ["y"]})], names=["part-00009.parquet"])
    assert delta.commit_parts(str(d), {"w": 2}) == 1    # overwrite: the directory's files
    assert sorted(r["n"] for r in rows(d)) == [7] + list(range(100, 300))
    assert delta.last_metadata(str(d)) == {"w": 2}


def spark_written(path, table, spark_fields):
    """A part file as Spark writes one: its schema in the key-value metadata, timestamps as
    INT96."""
    spark = {"type": "struct", "fields": [
        {"name": n, "type": t, "nullable": True, "metadata": {}} for n, t in spark_fields]}
    table = table.replace_schema_metadata({SPARK_METADATA: json.dumps(spark).encode()})
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(table, path, use_deprecated_int96_timestamps=True)


def test_spark_written_files_intervals_and_int96(tmp_path):
    at = dt.datetime(2024, 2, 29, 23, 59, 58, 123456, tzinfo=UTC)
    t = pa.table({"k": pa.array([1, 2], pa.int64()),
                  "at": pa.array([at, None], pa.timestamp("us", tz="UTC")),
                  "span": pa.array([dt.timedelta(hours=-1), None], pa.duration("us")),
                  "months": pa.array([14, None], pa.int32()),
                  "clock": pa.array([dt.time(12, 34, 56, 789), None], pa.time64("us")),
                  "_deleted": [False, False]})
    fields = [("k", "long"), ("at", "timestamp"), ("span", "interval day to second"),
              ("months", "interval year to month"), ("clock", "time(6)"),
              ("_deleted", "boolean")]
    spark_written(str(tmp_path / "s1" / "part-00000-x.snappy.parquet"), t, fields)
    table = str(tmp_path / "t")
    delta.merge_table(table, str(tmp_path / "s1"), ["k"])
    got = rows(table)
    assert [(r["k"], r["at"], r["span"], r["months"], r["clock"]) for r in got] == [
        (1, at, -3600 * 10**6, 14, (12 * 3600 + 34 * 60 + 56) * 10**6 + 789),
        (2, None, None, None, None)]
    schema = {f["name"]: f for f in json.loads(
        deltalake.DeltaTable(table).schema().to_json())["fields"]}
    assert [schema[n]["type"] for n in ("span", "months", "clock")] == [
        "long", "integer", "long"]
    assert "months" in schema["months"]["metadata"]["comment"]
    assert "since midnight" in schema["clock"]["metadata"]["comment"]
    # the same files committed in place read back alike (INT96 as UTC instants)
    spark_written(str(tmp_path / "p" / "part-00000.parquet"), t, fields)
    delta.commit_parts(str(tmp_path / "p"))
    assert [(r["k"], r["at"], r["span"]) for r in rows(tmp_path / "p")] == [
        (1, at, -3600 * 10**6), (2, None, None)]


def changes(path, version):
    """The change data feed of one version: sorted (change type, row without the feed's
    columns)."""
    t = pa.table(deltalake.DeltaTable(str(path)).load_cdf(
        starting_version=version, ending_version=version).read_all())
    return sorted(((r.pop("_change_type"), r) for r in t.to_pylist()
                   if r.pop("_commit_version") == version and r.pop("_commit_timestamp")),
                  key=repr)


@pytest.mark.parametrize("ntz", [False, True], ids=["plain", "timestamp_ntz in a map"])
def test_change_data_feed_of_merges_and_rewrites(tmp_path, ntz):
    """A table created with the change data feed property (both ways a first commit is
    written): a MERGE's changes are in the feed row by row (insert, update pre- and
    post-image, delete: deltalake's ``_change_data`` files), a whole rewrite's as every row
    deleted and every row inserted; protocol: writer 4, or the changeDataFeed writer feature
    beside timestampNtz."""
    table = tmp_path / "t"
    first = pa.table({"k": [1, 2, 3], "v": ["a", "b", "c"]})
    if ntz:
        first = first.append_column("image", first_images()[0]["image"].combine_chunks()
                                    .take([0, 1, 0]))
    assert delta.replace_table(str(table), write_parts(tmp_path / "s1", [first]), {"run": 1},
                               delta.CHANGE_DATA_FEED) == 0
    t = deltalake.DeltaTable(str(table))
    assert t.metadata().configuration == delta.CHANGE_DATA_FEED
    protocol = t.protocol()
    if ntz:
        assert sorted(protocol.writer_features) == ["changeDataFeed", "timestampNtz"]
    else:
        assert (protocol.min_reader_version, protocol.min_writer_version) == (1, 4)
    staged = first.slice(1, 2).append_column("_deleted", pa.array([False, True]))
    staged = staged.set_column(1, "v", pa.array(["B", "c"]))
    more = pa.table({**{n: staged.column(n).slice(0, 1) for n in staged.column_names},
                     "k": [4], "v": ["d"]}).select(staged.column_names)
    assert delta.merge_table(str(table), write_parts(tmp_path / "s2", [staged, more]), ["k"],
                             metadata={"run": 2}) == 1
    bare = [{"k": r["k"], "v": r["v"]} for r in rows(table)]
    assert bare == [{"k": 1, "v": "a"}, {"k": 2, "v": "B"}, {"k": 4, "v": "d"}]
    got = [(kind, r["k"], r["v"]) for kind, r in changes(table, 1)]
    assert got == sorted([("update_preimage", 2, "b"), ("update_postimage", 2, "B"),
                          ("delete", 3, "c"), ("insert", 4, "d")], key=repr)
    assert delta.replace_table(str(table), write_parts(tmp_path / "s3", [first]), {"run": 3},
                               delta.CHANGE_DATA_FEED) == 2
    got = [(kind, r["k"]) for kind, r in changes(table, 2)]
    assert got == sorted([("delete", 1), ("delete", 2), ("delete", 4), ("insert", 1),
                          ("insert", 2), ("insert", 3)], key=repr)


def test_properties_set_on_a_table_without_them(tmp_path):
    """A table created without the property gets it by a commit of its own (the content's
    metadata kept) before the MERGE, whose changes are then in the feed; the property there:
    no commit more."""
    table = str(tmp_path / "t")
    delta.replace_table(table, write_parts(tmp_path / "s1", [pa.table({"k": [1], "v": [1]})]),
                        {"run": 1})
    assert "delta.enableChangeDataFeed" not in \
        deltalake.DeltaTable(table).metadata().configuration
    staged = pa.table({"k": [1, 2], "v": [5, 6]})
    assert delta.merge_table(table, write_parts(tmp_path / "s2", [staged]), ["k"],
                             metadata={"run": 2}, properties=delta.CHANGE_DATA_FEED) == 2
    history = deltalake.DeltaTable(table).history()
    assert json.loads(history[1]["userMetadata"]) == {"run": 1}
    assert history[0]["operation"] == "MERGE"
    assert [(kind, r["k"], r["v"]) for kind, r in changes(table, 2)] == [
        ("insert", 2, 6), ("update_postimage", 1, 5), ("update_preimage", 1, 1)]
    staged = pa.table({"k": [3], "v": [7]})
    assert delta.merge_table(table, write_parts(tmp_path / "s3", [staged]), ["k"],
                             properties=delta.CHANGE_DATA_FEED) == 3


def test_same_columns(tmp_path):
    """Whether a table has a Spark schema's columns: by name, order and type (intervals as
    Spark's files hold them), nullability and field metadata aside."""
    table = str(tmp_path / "t")
    spark_written(str(tmp_path / "s1" / "part-00000.parquet"),
                  pa.table({"k": pa.array([1], pa.int64()),
                            "span": pa.array([dt.timedelta(1)], pa.duration("us"))}),
                  [("k", "long"), ("span", "interval day to second")])
    delta.replace_table(table, str(tmp_path / "s1"))

    def schema(*fields, nullable=True):
        return {"type": "struct", "fields": [{"name": n, "type": t, "nullable": nullable,
                                              "metadata": {}} for n, t in fields]}
    assert delta.same_columns(table, schema(("k", "long"), ("span", "interval day to second")))
    assert delta.same_columns(table, schema(("k", "long"), ("span", "interval day to second"),
                                            nullable=False))
    assert not delta.same_columns(table, schema(("span", "interval day to second"),
                                                ("k", "long")))
    assert not delta.same_columns(table, schema(("k", "integer"),
                                                ("span", "interval day to second")))
    assert not delta.same_columns(table, schema(("k", "long"),
                                                ("span", "interval day to second"),
                                                ("note", "string")))

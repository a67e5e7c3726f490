"""Spark-native sources (pipeline/sources/batch.py, streaming.py): ``spark.read.format("binlog")``
gives the decode job's tables for the same files, row for row and value for value (corpus
files of both flavors, a payload file, many column types, damaged files, table maps carried
into splits, names from a schema file), one partition per split; ``spark.readStream`` over a
folder that grows reads whole transactions only, and a Parquet sink with a checkpoint has
every row once across a restart. The transaction boundaries the stream's offsets stand on
are checked against the ``events`` table's transactions without Spark.

Needs pyspark (4+), pyarrow and Java 17+; without them the tier is skipped with a warning,
and fails under CI=true.
"""

import json
import math
import os
import shutil

import pytest

from .. import damage
from ..conftest import CORPUS, corpus_file, unavailable
from .pipeline_support import spark_missing, write_shop

pytestmark = pytest.mark.spark

MISSING = spark_missing()
if MISSING:
    unavailable(f"Spark tier not run: {MISSING}", module=True)

import pyarrow.compute as pc  # noqa: E402

from binlog_schema.pipeline import register  # noqa: E402
from binlog_schema.pipeline.tables import schema  # noqa: E402
from binlog_schema.pipeline.tasks.decode import decode_split  # noqa: E402
from binlog_schema.pipeline.tasks.prescan import prescan  # noqa: E402
from binlog_schema.pipeline.tasks.split import EVENT, Split  # noqa: E402
from binlog_schema.pipeline.jobs.decode import decode  # noqa: E402
from binlog_schema.pipeline.fsio import list_files, list_local  # noqa: E402
from binlog_schema.pipeline.driver.session import start_session  # noqa: E402
from binlog_schema.pipeline.sources.batch import Options  # noqa: E402
from binlog_schema.pipeline.sources.streaming import boundaries  # noqa: E402

CRC32 = "mysql-binlog-connector-java/mysql-bin.checksum-crc32"    # MySQL 5.6, CRC32
NONE = "mysql-binlog-connector-java/mysql-bin.checksum-none"      # no checksums
MARIADB = "mariadb-poc/domain_id_0/mariadb-repl-bin.000005"       # MariaDB, GTIDs
MARIADB_ROWS = "rust_mysql_common/mariadb-bin.000001"             # MariaDB rows
PAYLOAD = "rust_mysql_common/transaction_compression.000001"      # TRANSACTION_PAYLOAD
SAKILA = "mysql-binlog-connector-java/mysql-bin.sakila"           # many types, 1.4 MB
MYSQL8 = "mysql-cdc-rs/8.0/02_query_bigger/binlog.000733"         # MySQL 8, GTIDs, rows
JSON = "rust_mysql_common/json.binlog.000001"                     # MySQL JSON columns
VECTOR = "rust_mysql_common/vector.binlog"                        # VECTOR columns

KEYS = {"events": ("file", "offset", "in_payload_at"),
        "row_changes": ("file", "offset", "inner_offset", "row_index"),
        "errors": tuple(f.name for f in schema.ERRORS.fields)}
SCHEMAS = {"events": schema.EVENTS, "row_changes": schema.ROW_CHANGES,
           "errors": schema.ERRORS}


def path_of(name) -> str:
    return str(corpus_file(name).resolve())


@pytest.fixture(scope="module")
def spark():
    s = start_session("local[2]", {"spark.sql.shuffle.partitions": "4"})
    register(s)
    yield s
    s.stop()


def read(spark, paths, table="events", **options):
    r = spark.read.format("binlog").option("table", table)
    for k, v in options.items():
        r = r.option(k, v)
    return r.load(paths)


def arrow_of(df, table, like=None):
    """A DataFrame's rows as an Arrow table sorted by the table's keys (cast to ``like``'s
    schema: the decode job's tables, read back from Parquet, have every column nullable)."""
    t = df.toArrow()
    if like is not None:
        t = t.cast(like.schema)
    return t.take(pc.sort_indices(t, sort_keys=[(k, "ascending") for k in KEYS[table]]))


def _canon(x):
    """A row value to compare (NaN equals itself here)."""
    if isinstance(x, float) and math.isnan(x):
        return "NaN"
    if isinstance(x, dict):
        return {k: _canon(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_canon(v) for v in x]
    return x


def assert_same(source_df, pipeline_df, table):
    """The source's DataFrame has the table's schema exactly and the pipeline's rows (every
    column of every row); returns them (sorted Arrow)."""
    assert source_df.schema == SCHEMAS[table]
    a = arrow_of(source_df, table)
    same_rows(a, arrow_of(pipeline_df, table, like=a), table)
    return a


def same_rows(a, b, table) -> int:
    """Two sorted Arrow tables hold the same rows; how many."""
    assert a.num_rows == b.num_rows, table
    if not a.equals(b):   # (a NaN differs from itself in Arrow's comparison)
        got, want = _canon(a.to_pylist()), _canon(b.to_pylist())
        diff = next((i for i, (x, y) in enumerate(zip(got, want)) if x != y), None)
        assert got == want, (table, diff, diff is not None and got[diff],
                             diff is not None and want[diff])
    return a.num_rows


# ---------------------------------------------------------------------------------------
# without Spark: listing, transaction boundaries


def test_list_files_lists_as_the_local_listing(corpus):
    """fsio.list_files (pyarrow.fs, where a source plans) lists what list_local lists (the
    order aside: a read's splits have none)."""
    root = str(CORPUS.resolve())
    files, missing = list_files([root])
    assert sorted(files) == sorted(list_local([root])[0]) and not missing
    assert len(files) >= len(corpus) > 50   # (the corpus fixture leaves out .md and .txt)
    pattern = os.path.join(root, "mysql-binlog-connector-java", "mysql-bin.checksum-*")
    assert list_files([pattern]) == list_local([pattern])
    assert len(list_files([pattern])[0]) == 2
    # the same through a file: URI, named twice (listed once); a folder's own files only
    assert list_files(["file://" + pattern, pattern])[0] == list_local([pattern])[0]
    canal = os.path.join(root, "canal", "binlog")
    flat = list_files([canal], recursive=False)[0]
    assert flat and all(os.path.dirname(u) == canal for u, _ in flat)
    assert len(list_files([canal])[0]) > len(flat)
    assert list_files([os.path.join(root, "no-such-*")]) == (
        [], [(os.path.join(root, "no-such-*"), "no such file or directory")])


def test_options_parse():
    """Spark's options (keys in any case, values strings) as a read's settings."""
    got = Options.of({"Path": "a", "paths": '["b", "c"]', "TABLE": "row_changes",
                      "splitSize": "1m", "schema": '["x.sql", "y.sql"]',
                      "includeHidden": "True", "startingFile": "f", "startingPosition": "120"})
    assert got == Options(["a", "b", "c"], "row_changes", 1 << 20, ["x.sql", "y.sql"], True,
                          "f", 120)
    assert Options.of({"path": "a", "schema": "x.sql"}) == Options(["a"],
                                                                     schema_files=["x.sql"])
    with pytest.raises(ValueError, match="unknown option"):
        Options.of({"path": "a", "split_size": "1m"})
    with pytest.raises(ValueError, match="one of events, row_changes, errors"):
        Options.of({"path": "a", "table": "files"})


def _event_rows(path, size):
    """(offset, size, transaction_offset, rows) of a file's events, as the events table has
    them (file level)."""
    out = []
    for t in decode_split(Split(path, size, 0, 0, size)):
        if t[0] == EVENT and t[2][2] is None:
            out.append((t[2][1], t[2][7], t[2][12], t[2][18]))
    return sorted(out)


def _last_boundary(events, n):
    """The last transaction boundary of a file's first ``n`` bytes by its events table:
    before an event that starts a transaction (or is in none), after one that ends one (the
    last of its transaction, or in none); only events whole within ``n`` count."""
    best = 4
    for i, (o, s, txn, _) in enumerate(events):
        if o + s > n:
            break
        after = events[i + 1][2] if i + 1 < len(events) else object()
        if txn is None or o == txn:
            best = max(best, o)
        if txn is None or after != txn:
            best = max(best, o + s)
    return best


@pytest.mark.parametrize("name", [CRC32, NONE, MARIADB, PAYLOAD, MYSQL8, JSON])
def test_boundaries_are_between_transactions(name, tmp_path):
    """The stream's offsets: for prefixes of a file cut everywhere (at events, inside them),
    the last boundary is the last place between transactions of the prefix by the events
    table, and the whole file's is its end."""
    path = path_of(name)
    data = open(path, "rb").read()
    events = _event_rows(path, len(data))
    cuts = sorted({o + d for o, s, _, _ in events for d in (0, 5, s - 1)} | {len(data)})
    cuts = cuts[::max(1, len(cuts) // 60)] + [len(data)]
    prefix = tmp_path / "prefix"
    checked = set()
    for n in cuts:
        prefix.write_bytes(data[:n])
        found = list(boundaries(str(prefix), n))
        assert [b for b, _ in found] == sorted({b for b, _ in found}), n   # in order, once
        last = found[-1][0] if found else 4
        assert last == _last_boundary(events, n), (n, last)
        checked.add(last)
    assert found[-1][0] == len(data)
    assert len(checked) > 3


# ---------------------------------------------------------------------------------------
# batch reads equal the decode job's tables


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """A synthetic shop (many column types; MySQL) whose table maps are written once: its
    later splits need the table maps carried in."""
    root = tmp_path_factory.mktemp("once")
    return write_shop(root / "once-bin.000001", seed=5, transactions=120,
                      table_maps="once")


@pytest.fixture(scope="module")
def pipeline(spark, tmp_path_factory, generated):
    """The decode job, in splits of 32 KiB, over corpus files of both flavors (CRC32 or
    none, a payload, JSON, VECTOR), the first 400 KB of the one of many column types (up to
    a transaction boundary: it has 1.4 MB of rows), and the generated file."""
    out = tmp_path_factory.mktemp("tables")
    sakila = path_of(SAKILA)
    cut = max(b for b, _ in boundaries(sakila, os.path.getsize(sakila)) if b <= 400_000)
    part = out / "mysql-bin.sakila-part"
    part.write_bytes(open(sakila, "rb").read()[:cut])
    paths = [path_of(n) for n in (CRC32, NONE, MARIADB, MARIADB_ROWS, PAYLOAD, JSON,
                                  VECTOR)] + [str(part), generated]
    return paths, decode(paths, spark, out=str(out / "t"), split_size="32k")


@pytest.mark.parametrize("table", ["events", "row_changes"])
def test_batch_read_equals_decode(spark, pipeline, table):
    paths, tables = pipeline
    df = read(spark, paths, table, splitSize="32k")
    got = assert_same(df, getattr(tables, table), table)
    files = {r["file"]: r for r in tables.files.collect()}
    # one partition per split of the decode job
    assert df.rdd.getNumPartitions() == sum(f["splits"] for f in files.values()) > len(paths)
    assert set(got.column("file").to_pylist()) <= set(paths)
    if table == "events":
        assert got.num_rows == sum(f["events_decoded"] for f in files.values())
        assert got.column("in_payload_at").null_count < got.num_rows   # (the payload's)
        assert set(got.column("file").to_pylist()) == set(paths)
    else:
        assert got.num_rows == sum(f["rows"] for f in files.values()) > 3_000
        assert files[paths[-1]]["carried_table_maps"] > 0   # (the generated file)
        types = {c.type for f in tables.table_maps.collect() for c in f["columns"]}
        assert len(types) > 15, types


def test_partitions_are_the_pre_scans_splits(spark):
    sakila = path_of(SAKILA)
    splits = prescan(sakila, os.path.getsize(sakila), 256 << 10)
    df = read(spark, sakila, "events", splitSize="256k")
    assert df.rdd.getNumPartitions() == len(splits) > 3
    whole = read(spark, sakila, "events")   # (the default split size: one split)
    assert whole.rdd.getNumPartitions() == 1


def test_folder_glob_and_path_option(spark, tmp_path):
    """A folder (recursive, as the decode job lists it), a glob, and ``option("path")``."""
    canal = os.path.dirname(path_of("canal/binlog/mysql-bin.000001"))
    tables = decode([canal], spark, out=str(tmp_path / "t"))
    assert assert_same(read(spark, canal), tables.events, "events").num_rows > 400
    pattern = os.path.join(os.path.dirname(path_of(CRC32)), "mysql-bin.checksum-*")
    by_glob = spark.read.format("binlog").option("path", pattern).load()
    by_list = read(spark, [path_of(CRC32), path_of(NONE)])
    got = assert_same(by_glob, by_list, "events")
    assert set(got.column("file").to_pylist()) == {path_of(CRC32), path_of(NONE)}
    # names starting with . or _ inside a folder: read with includeHidden only
    for name in ("binlog.000001", ".hidden/binlog.000002", "_c/binlog.000003"):
        os.makedirs(os.path.dirname(tmp_path / "in" / name), exist_ok=True)
        shutil.copy(path_of(PAYLOAD), tmp_path / "in" / name)
    assert read(spark, str(tmp_path / "in")).rdd.getNumPartitions() == 1
    assert read(spark, str(tmp_path / "in"), includeHidden="true").rdd.getNumPartitions() == 3
    # an input that names nothing: one errors row, as the decode job's plan gives it
    missing = str(tmp_path / "no-such-binlog.*")
    errors = read(spark, [path_of(PAYLOAD), missing], "errors").collect()
    assert [(r["file"], r["stage"], r["kind"], r["message"]) for r in errors] == [
        (missing, "input", "io", "no such file or directory")]


@pytest.fixture(scope="module")
def damaged(spark, corpus, tmp_path_factory):
    """Damaged files (tests/damage.py: sizes that lie, zeroed bytes, garbage, a CRC32
    flipped, a cut, no FORMAT_DESCRIPTION, two files concatenated) and the corpus's corrupt
    QUERY file, in one folder."""
    originals = damage.load_originals(corpus, keys={"crc32", "none", "mariadb"})
    root = tmp_path_factory.mktemp("damaged")
    made = [d for _, d in damage.suite(originals, keys={"crc32"})] + [
        damage.concatenated(originals["none"][0], originals["mariadb"][0])]
    for i, d in enumerate(made):
        (root / f"{i:02d}-{d.name}").write_bytes(d.data)
    shutil.copy(path_of("rust_mysql_common/corrupt-relay-bin.000624"), root)
    tables = decode([str(root)], spark, out=str(tmp_path_factory.mktemp("t") / "t"),
                    split_size="32k")
    return str(root), tables


@pytest.mark.parametrize("table", ["events", "errors"])
def test_damaged_files_read_as_the_pipeline_reads_them(spark, damaged, table):
    root, tables = damaged
    got = assert_same(read(spark, root, table, splitSize="16k"), getattr(tables, table),
                      table)
    assert got.num_rows > {"events": 1000, "errors": 10}[table]
    if table == "errors":
        assert {"event", "skipped", "tail"} <= set(got.column("stage").to_pylist())


def test_schema_option_names_minimal_table_maps(spark, tmp_path):
    """``option("schema", file)`` as ``decode(schema=...)``: a MINIMAL file's rows named from
    the schema file, across splits after a mid-file ALTER."""
    from binlog_schema.synthetic import generate
    from .test_pipeline_schema import SCHEMA, spec
    path = tmp_path / "shop-bin.000001"
    path.write_bytes(generate(spec("MINIMAL", 120)))
    dump = tmp_path / "schema.sql"
    dump.write_text(SCHEMA, encoding="utf-8")
    tables = decode([str(path)], spark, out=str(tmp_path / "t"), split_size="3k",
                    schema=[str(dump)])
    df = read(spark, str(path), "row_changes", splitSize="3k", schema=str(dump))
    assert df.rdd.getNumPartitions() > 3
    got = assert_same(df, tables.row_changes, "row_changes")
    assert got.num_rows > 100 and got.column("schema_version").null_count == 0
    keys = {k for chunk in got.column("after").chunks for k in chunk.keys.to_pylist()}
    assert {"id", "state", "flags", "note", "qty"} <= keys and not any(
        k.startswith("@") for k in keys)
    unnamed = read(spark, str(path), "row_changes")
    assert unnamed.where("map_contains_key(after, '@1')").count() == \
        got.num_rows - got.column("after").null_count > 100


def test_options_are_checked(spark):
    crc = path_of(CRC32)
    for reader, said in (
            (spark.read.format("binlog").option("table", "nope"), "table 'nope'"),
            (spark.read.format("binlog").option("splitsise", "1m"), "unknown option"),
            (spark.read.format("binlog").schema("x long"), "schema of table events"),
            (spark.read.format("binlog").option("schema", "/no/such/schema.sql"),
             "no/such/schema.sql")):
        with pytest.raises(Exception, match=said):
            reader.load(crc).collect()


# ---------------------------------------------------------------------------------------
# streams


def _sink_equals_batch(spark, sink, inbox, table):
    """The Parquet sink (read through its metadata log: committed batches only) has the
    rows of a batch read of the folder, each once (returned, sorted Arrow)."""
    got = spark.read.parquet(sink)
    return assert_same(read(spark, inbox, table), got, table)


def _end_offset(query):
    return json.loads(query.lastProgress["sources"][0]["endOffset"])


def _start(spark, inbox, sink, checkpoint, table="row_changes"):
    return (spark.readStream.format("binlog").option("table", table).load(inbox)
            .writeStream.format("parquet").option("checkpointLocation", checkpoint)
            .start(sink))


def test_stream_reads_whole_transactions_exactly_once(spark, tmp_path):
    """Files appear one by one and the last grows: twice, a prefix cut at a transaction
    boundary plus part of the next transaction (its GTID event whole) gives the rows up to
    the boundary only, and the offset stands on it. Stopped there, the rest of the file and
    two more files added, started again on the same checkpoint: every row once."""
    inbox, sink, checkpoint = (str(tmp_path / d) for d in ("in", "out", "checkpoint"))
    os.mkdir(inbox)
    shutil.copy(path_of(CRC32), os.path.join(inbox, "binlog.000001"))
    data = open(path_of(MYSQL8), "rb").read()
    events = _event_rows(path_of(MYSQL8), len(data))
    with_rows = [o for o, _, _, rows in events if rows]
    starts = [(o, s) for o, s, txn, _ in events if o == txn and with_rows[0] < o < with_rows[-1]]
    cuts = [starts[len(starts) // 3], starts[2 * len(starts) // 3]]   # (rows around each)
    growing = os.path.join(inbox, "binlog.000002")
    query = _start(spark, inbox, sink, checkpoint)
    try:
        query.processAllAvailable()
        assert _sink_equals_batch(spark, sink, inbox, "row_changes").num_rows == 63
        assert _end_offset(query) == {"file": "binlog.000001",
                                      "position": os.path.getsize(path_of(CRC32))}
        written, seen = 0, 63
        for cut, gtid_size in cuts:   # up to a transaction's start, then more of it
            with open(growing, "ab") as f:
                f.write(data[written:cut])
            before = arrow_of(read(spark, inbox, "row_changes"), "row_changes")
            assert seen < before.num_rows < 63 + 14
            with open(growing, "ab") as f:
                f.write(data[cut:cut + gtid_size + 7])
            written, seen = cut + gtid_size + 7, before.num_rows
            query.processAllAvailable()
            assert _end_offset(query)["position"] == cut
            assert same_rows(arrow_of(spark.read.parquet(sink), "row_changes", like=before),
                             before, "row_changes") == before.num_rows
    finally:
        query.stop()
    with open(growing, "ab") as f:
        f.write(data[written:])
    shutil.copy(path_of(PAYLOAD), os.path.join(inbox, "binlog.000003"))
    shutil.copy(path_of(MARIADB_ROWS), os.path.join(inbox, "binlog.000004"))
    query = _start(spark, inbox, sink, checkpoint)
    try:
        query.processAllAvailable()
        assert _sink_equals_batch(spark, sink, inbox, "row_changes").num_rows == 63 + 14 + 3
        last = os.path.join(inbox, "binlog.000004")
        end, gtid_at = list(boundaries(last, os.path.getsize(last)))[-1]
        assert end == os.path.getsize(last) and gtid_at is not None
        assert _end_offset(query) == {"file": "binlog.000004", "position": end,
                                      "gtid_at": gtid_at}
    finally:
        query.stop()


def test_stream_from_a_starting_position_available_now(spark, tmp_path):
    """``startingFile``/``startingPosition`` (a boundary: else refused) and
    Trigger.AvailableNow, table events: the sink has the batch's events from there on."""
    inbox, sink = str(tmp_path / "in"), str(tmp_path / "out")
    os.mkdir(inbox)
    for i, name in enumerate((MARIADB, MYSQL8, PAYLOAD)):
        shutil.copy(path_of(name), os.path.join(inbox, f"binlog.{i + 1:06d}"))
    second = os.path.join(inbox, "binlog.000002")
    marks = [b for b, _ in boundaries(second, os.path.getsize(second))]
    start = marks[len(marks) // 2]

    def stream(position):
        return (spark.readStream.format("binlog").option("startingFile", "binlog.000002")
                .option("startingPosition", position).load(inbox)
                .writeStream.format("parquet").trigger(availableNow=True)
                .option("checkpointLocation", str(tmp_path / f"checkpoint-{position}")))

    query = stream(start).start(sink)
    query.awaitTermination(300)
    assert query.exception() is None and not query.isActive
    got = spark.read.parquet(sink)
    want = read(spark, inbox).where(f"file > '{second}' or (file = '{second}' and "
                                    f"offset >= {start})")
    assert assert_same(want, got, "events").num_rows > 10
    with pytest.raises(Exception, match="not a transaction boundary"):
        stream(start + 1).start(str(tmp_path / "out2")).awaitTermination(300)

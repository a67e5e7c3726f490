"""``spark decode --format delta`` end to end in local mode, without Spark's Delta jars: the
tables are Delta tables committed by deltalake, and every table read back with deltalake and
with DuckDB equals, row for row and column for column, the Parquet files of the same decode
and the output of ``--format parquet`` on the same inputs (engine arrow; engine spark too).

Inputs: corpus files (a MySQL file with CRC32 checksums and many column types, MariaDB's
file with rows, a MySQL TIME column: the interval that Delta holds as long microseconds)
and a generated MariaDB file of many types (TIME, DATETIME(6), DATE, DECIMAL, BLOB...).

DuckDB: its ``delta`` extension (``delta_scan``) is downloaded from DuckDB's extension
repository the first time. WHERE THAT REPOSITORY CANNOT BE REACHED (NO NETWORK), THE DUCKDB
CHECK DOES NOT USE delta_scan: DuckDB then reads the table's Parquet files with its own
Parquet reader, in the order the table's Delta log lists them (the log's JSON commits
replayed here: files added minus files removed), and the test warns that it did so.

Needs pyspark, pyarrow, Java 17+, deltalake and duckdb (``.[spark,dev]``); without them the
tier is skipped with a warning, and fails under CI=true.
"""

import datetime as dt
import json
import os
import warnings
from urllib.parse import unquote

import pytest

from ..conftest import corpus_file, unavailable
from .pipeline_support import spark_missing, write_shop

pytestmark = pytest.mark.spark

MISSING = spark_missing()
if not MISSING:
    try:
        import deltalake  # noqa: F401
        import duckdb  # noqa: F401
    except ImportError as e:
        MISSING = f"{e.name} is not installed (pip install -e '.[spark,dev]')"
if MISSING:
    unavailable(f"Spark tier (Delta) not run: {MISSING}", module=True)

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from deltalake import DeltaTable  # noqa: E402

from binlog_schema.cli import main  # noqa: E402
from binlog_schema.pipeline.tables import delta  # noqa: E402
from binlog_schema.pipeline.tables.result import TABLES, check_format  # noqa: E402

CORPUS = ("mysql-binlog-connector-java/mysql-bin.checksum-crc32",
          "rust_mysql_common/mariadb-bin.000001", "rust_mysql_common/time_issue.000001")
RUN_DEPENDENT = {"files": ("task_seconds", "task_cpu_seconds", "max_rss_kib")}


SPARK_SHUFFLE_PARTITIONS = "4"   # the session of conftest.py


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    shop = write_shop(tmp_path_factory.mktemp("shop") / "mariadb-bin.000001",
                      flavor="mariadb", transactions=80)
    return [str(corpus_file(name)) for name in CORPUS] + [shop]


@pytest.fixture(scope="module")
def outputs(spark, inputs, tmp_path_factory):
    """The same inputs decoded to Parquet and to Delta (engine arrow)."""
    root = tmp_path_factory.mktemp("decoded")
    assert decode_cli(inputs, root / "parquet") == 0
    assert decode_cli(inputs, root / "delta", "--format", "delta") == 0
    return root / "parquet", root / "delta"


@pytest.fixture(scope="module")
def duckdb_reader():
    """How DuckDB reads a Delta table here: ``delta_scan`` when its extension installs, else
    (loudly) its Parquet reader over the files the Delta log lists."""
    import duckdb
    con = duckdb.connect()
    try:
        con.execute("INSTALL delta")
        con.execute("LOAD delta")
    except duckdb.Error as e:
        reason = str(e).splitlines()[0]
        warnings.warn("DuckDB's delta extension cannot be installed here (" + reason + "): "
                      "the DuckDB check reads the Delta tables' Parquet files in the order "
                      "their Delta logs list them, NOT through delta_scan")
        return lambda path: con.read_parquet(log_files(path)).to_arrow_table()
    return lambda path: con.execute("SELECT * FROM delta_scan(?)",
                                    [str(path)]).to_arrow_table()


def decode_cli(inputs, out, *extra):
    """``binlog-schema spark decode`` in this process (it reuses the running session)."""
    return main(["spark", "decode", *inputs, "--out", str(out), "--quiet", *extra])


def log_files(path) -> list:
    """The data files of a Delta table's latest version in the order its log adds them: its
    JSON commits replayed, files added minus files removed (so few commits: no checkpoint)."""
    log = os.path.join(path, "_delta_log")
    assert not [n for n in os.listdir(log) if "checkpoint" in n]
    live = {}
    for name in sorted(n for n in os.listdir(log) if n.endswith(".json")):
        with open(os.path.join(log, name)) as f:
            for line in f:
                action = json.loads(line)
                if "add" in action:
                    live[unquote(action["add"]["path"])] = True
                elif "remove" in action:
                    live.pop(unquote(action["remove"]["path"]), None)
    return [os.path.join(path, p) for p in live]


def delta_table(path) -> pa.Table:
    return pa.table(DeltaTable(str(path)).to_pyarrow_table())


def canonical(table, schema, drop=()):
    """The rows of an Arrow table in the types of ``schema`` (the Delta table's, as deltalake
    reads it: intervals as int64, timestamps in UTC), without the columns ``drop``, sorted;
    the entries of a map by key (a map has no order: engine spark's come in another)."""
    names = [n for n in schema.names if n not in drop]
    want = pa.schema([schema.field(n) for n in names])
    maps = [n for n in names if pa.types.is_map(schema.field(n).type)]
    rows = table.select(names).cast(want).to_pylist()
    for r in rows:
        for n in maps:
            if r[n] is not None:
                r[n] = sorted(r[n], key=lambda entry: entry[0])
    return sorted(rows, key=repr)


def test_check_format():
    check_format(None, "parquet")
    check_format(None, "delta")            # deltalake is here: no jars asked for
    with pytest.raises(ValueError):
        check_format(None, "orc")


def test_decode_delta_reads_back_everywhere(outputs, duckdb_reader):
    """Each table: a Delta table (deltalake's reader and DuckDB's) with exactly the Parquet
    files the tasks wrote, committed in place (no copy), equal to those files read as
    Parquet, and to the ``--format parquet`` output (but the run's timings)."""
    parquet_out, delta_out = outputs
    counts = {}
    for name in TABLES:
        path = delta_out / name
        table = DeltaTable(str(path))
        assert table.version() == 0
        meta = delta.last_metadata(str(path))
        assert meta["command"] == "binlog-schema spark decode" and len(meta["inputs"]) == 4
        on_disk = sorted(n for n in os.listdir(path) if n.endswith(".parquet"))
        assert sorted(os.path.basename(unquote(u)) for u in table.file_uris()) == on_disk
        got = delta_table(path)
        schema = got.schema
        want = canonical(pq.read_table(path), schema)    # (pyarrow skips _delta_log)
        assert canonical(got, schema) == want, name
        assert canonical(duckdb_reader(path), schema) == want, name
        drop = RUN_DEPENDENT.get(name, ())
        assert canonical(got, schema, drop) == canonical(
            pq.read_table(parquet_out / name), schema, drop), name
        counts[name] = got.num_rows
    assert counts["row_changes"] > 100 and counts["events"] > counts["row_changes"] / 10
    assert counts["files"] == 4 and counts["errors"] == 0


def test_time_and_datetime_values(outputs):
    """MySQL TIME: a long of microseconds in ``Value.time`` (with a comment saying so);
    DATETIME: timestamp_ntz inside the map (the protocol has the feature)."""
    _, delta_out = outputs
    path = str(delta_out / "row_changes")
    table = DeltaTable(path)
    assert "timestampNtz" in table.protocol().reader_features
    fields = json.loads(table.schema().to_json())["fields"]
    value = {f["name"]: f for f in next(f for f in fields if f["name"] == "after")["type"][
        "valueType"]["fields"]}
    assert value["time"]["type"] == "long"
    assert "microseconds" in value["time"]["metadata"]["comment"]
    assert value["datetime"]["type"] == "timestamp_ntz"
    rows = delta_table(path).to_pylist()
    times = [v["time"] for r in rows for _, v in (r["after"] or []) if v and v["time"] is not None]
    stamps = [v["datetime"] for r in rows for _, v in (r["after"] or [])
              if v and v["datetime"] is not None]
    assert len(times) > 20 and all(isinstance(t, int) for t in times)
    assert max(abs(t) for t in times) <= 838 * 3600 * 10**6 + 59 * 60 * 10**6 + 59 * 10**6
    assert len(stamps) > 20 and all(s.tzinfo is None for s in stamps)
    issue = [r for r in rows if r["file"].endswith("time_issue.000001")]
    parquet = pq.read_table(delta_out / "row_changes").to_pylist()
    want = [r for r in parquet if r["file"].endswith("time_issue.000001")]
    assert len(issue) == len(want) == 1
    (_, value), = issue[0]["after"]
    (_, as_interval), = want[0]["after"]      # (the Parquet file's interval: a timedelta)
    assert value["time"] == as_interval["time"] // dt.timedelta(microseconds=1) != 0


def test_engine_spark_and_existing_output(spark, inputs, tmp_path):
    """Engine spark: Spark writes the Parquet files, deltalake commits them; the tables equal
    engine arrow's (but the run's timings). An existing output is refused (exit 2) unless
    --overwrite, which writes a new table."""
    out = tmp_path / "d"
    some = inputs[1:]
    assert decode_cli(some, out, "--format", "delta", "--engine", "spark") == 0
    arrow_out = tmp_path / "arrow"
    assert decode_cli(some, arrow_out) == 0
    for name in TABLES:
        got = delta_table(out / name)
        drop = RUN_DEPENDENT.get(name, ())
        assert canonical(got, got.schema, drop) == canonical(
            pq.read_table(arrow_out / name), got.schema, drop), name
    assert decode_cli(some, out, "--format", "delta") == 2
    assert decode_cli(some[:1], out, "--format", "delta", "--overwrite") == 0
    assert DeltaTable(str(out / "files")).version() == 0
    assert [r["file"] for r in delta_table(out / "files").to_pylist()] == some[:1]

"""``spark decode --format iceberg`` end to end in local mode, without a JVM's Iceberg jars:
the tables are Iceberg tables (pyiceberg, a SQLite catalog in the output folder) made of the
part files the tasks wrote, in place, and every table read back (the snapshot's data files,
from pyiceberg's scan plan, read by pyarrow and by DuckDB: DuckDB's own iceberg extension is
a download) equals, row for row and column for column, the ``--format parquet`` output of the
same inputs (engine arrow; engine spark too); pyiceberg's own scan too, for the tables
without a list or map of structs (pyiceberg 0.12.0 reads a null one as empty: issue 3833 of
apache/iceberg-python). MySQL TIME (``Value.time``) is a long of microseconds there.

Needs pyspark, pyarrow, Java 17+, pyiceberg with sqlalchemy and duckdb (``.[spark,dev]``);
without them the tier is skipped with a warning, and fails under CI=true.
"""

import datetime as dt
import os

import pytest

from ..conftest import corpus_file, unavailable
from .pipeline_support import spark_missing, write_shop

pytestmark = pytest.mark.spark

MISSING = spark_missing()
if not MISSING:
    try:
        import duckdb
        import pyiceberg  # noqa: F401
        import sqlalchemy  # noqa: F401
    except ImportError as e:
        MISSING = f"{e.name} is not installed (pip install -e '.[spark,dev]')"
if MISSING:
    unavailable(f"Spark tier (Iceberg) not run: {MISSING}", module=True)

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from binlog_schema.cli import main  # noqa: E402
from binlog_schema.pipeline.tables import iceberg  # noqa: E402
from binlog_schema.pipeline.tables.iceberg_files import plain_schema  # noqa: E402
from binlog_schema.pipeline.tables.result import TABLES, check_format  # noqa: E402

CORPUS = ("mysql-binlog-connector-java/mysql-bin.checksum-crc32",
          "rust_mysql_common/mariadb-bin.000001", "rust_mysql_common/time_issue.000001")
RUN_DEPENDENT = {"files": ("task_seconds", "task_cpu_seconds", "max_rss_kib")}
NULL_NESTED = ("table_maps", "row_changes")   # (lists or maps of structs: see above)
NS = iceberg.DECODE_NAMESPACE


SPARK_SHUFFLE_PARTITIONS = "4"   # the session of conftest.py


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    shop = write_shop(tmp_path_factory.mktemp("shop") / "mariadb-bin.000001",
                      flavor="mariadb", transactions=80)
    return [str(corpus_file(name)) for name in CORPUS] + [shop]


@pytest.fixture(scope="module")
def outputs(spark, inputs, tmp_path_factory):
    """The same inputs decoded to Parquet and to Iceberg (engine arrow)."""
    root = tmp_path_factory.mktemp("decoded")
    assert decode_cli(inputs, root / "parquet") == 0
    assert decode_cli(inputs, root / "iceberg", "--format", "iceberg") == 0
    return root / "parquet", root / "iceberg"


def decode_cli(inputs, out, *extra):
    """``binlog-schema spark decode`` in this process (it reuses the running session)."""
    return main(["spark", "decode", *inputs, "--out", str(out), "--quiet", *extra])


def canonical(table, schema, drop=()):
    """The rows of an Arrow table in the types of ``schema`` (the Iceberg table's, as
    pyiceberg reads it: intervals as int64), without the columns ``drop``, sorted; the
    entries of a map by key (a map has no order)."""
    names = [n for n in schema.names if n not in drop]
    want = pa.schema([pa.field(n, schema.field(n).type) for n in names])
    maps = [n for n in names if pa.types.is_map(schema.field(n).type)]
    rows = table.select(names).cast(want).to_pylist()
    for r in rows:
        for n in maps:
            if r[n] is not None:
                r[n] = sorted(r[n], key=lambda entry: entry[0])
    return sorted(rows, key=repr)


def parquet_rows(path):
    """A Parquet output's table with durations as their int64 microseconds."""
    t = pq.read_table(path)
    return t.cast(plain_schema(t.schema))


def test_check_format():
    check_format(None, "iceberg")          # pyiceberg is here: no jars asked for
    with pytest.raises(ValueError):
        check_format(None, "orc")


def test_decode_iceberg_reads_back_everywhere(outputs):
    """Each table: an Iceberg table in namespace binlog with one snapshot of exactly the
    part files the tasks wrote (no copy), read by pyiceberg and by DuckDB equal to the
    ``--format parquet`` output (but the run's timings); the commit metadata names the
    command and its inputs."""
    parquet_out, iceberg_out = outputs
    counts = {}
    for name in TABLES:
        path = iceberg_out / name
        ident = (NS, name)
        assert len(iceberg.snapshots(str(iceberg_out), ident)) == 1
        meta = iceberg.last_metadata(str(iceberg_out), ident)
        assert meta["command"] == "binlog-schema spark decode" and len(meta["inputs"]) == 4
        on_disk = sorted(n for n in os.listdir(path) if n.endswith(".parquet"))
        assert sorted(os.path.basename(p) for p in
                      iceberg.data_files(str(iceberg_out), ident)) == on_disk
        got = iceberg.read_arrow(str(iceberg_out), ident)
        schema = got.schema
        drop = RUN_DEPENDENT.get(name, ())
        want = canonical(parquet_rows(parquet_out / name), schema, drop)
        assert canonical(got, schema, drop) == want, name
        files = iceberg.data_files(str(iceberg_out), ident)
        by_duckdb = duckdb.read_parquet(files).to_arrow_table()
        assert canonical(by_duckdb, schema, drop) == want, name
        if name not in NULL_NESTED:
            scan = iceberg.load(str(iceberg_out), ident).scan().to_arrow()
            assert canonical(scan, schema, drop) == want, name
        counts[name] = got.num_rows
    assert counts["row_changes"] > 100 and counts["events"] > counts["row_changes"] / 10
    assert counts["files"] == 4 and counts["errors"] == 0


def test_time_and_timestamp_types(outputs):
    """MySQL TIME: a long of microseconds in ``Value.time``; DATETIME: Iceberg timestamp,
    TIMESTAMP: timestamptz; the TIME of time_issue.000001 as the Parquet output's interval."""
    parquet_out, iceberg_out = outputs
    schema = iceberg.load(str(iceberg_out), (NS, "row_changes")).schema()
    value = {f.name: str(f.field_type)
             for f in schema.find_field("after").field_type.value_type.fields}
    assert value["time"] == "long" and value["datetime"] == "timestamp"
    assert value["timestamp"] == "timestamptz"
    rows = iceberg.read_arrow(str(iceberg_out), (NS, "row_changes")).to_pylist()
    issue = [r for r in rows if r["file"].endswith("time_issue.000001")]
    parquet = pq.read_table(parquet_out / "row_changes").to_pylist()
    want = [r for r in parquet if r["file"].endswith("time_issue.000001")]
    assert len(issue) == len(want) == 1
    (_, got), = issue[0]["after"]
    (_, as_interval), = want[0]["after"]      # (the Parquet output's interval: a timedelta)
    assert got["time"] == as_interval["time"] // dt.timedelta(microseconds=1) != 0


def test_engine_spark_and_existing_output(spark, inputs, tmp_path):
    """Engine spark: Spark writes the Parquet files (TIMESTAMP_MICROS), pyiceberg adds
    them; the tables equal engine arrow's Parquet output. An existing output is refused
    (exit 2) unless --overwrite, which makes the tables anew."""
    out = tmp_path / "i"
    some = inputs[1:]
    assert decode_cli(some, out, "--format", "iceberg", "--engine", "spark") == 0
    arrow_out = tmp_path / "arrow"
    assert decode_cli(some, arrow_out) == 0
    for name in TABLES:
        got = iceberg.read_arrow(str(out), (NS, name))
        drop = RUN_DEPENDENT.get(name, ())
        assert canonical(got, got.schema, drop) == canonical(
            parquet_rows(arrow_out / name), got.schema, drop), name
    assert decode_cli(some, out, "--format", "iceberg") == 2
    assert decode_cli(some[:1], out, "--format", "iceberg", "--overwrite") == 0
    assert len(iceberg.snapshots(str(out), (NS, "files"))) == 1
    assert [r["file"] for r in iceberg.read_arrow(str(out), (NS, "files")).to_pylist()] \
        == some[:1]

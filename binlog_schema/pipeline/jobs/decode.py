"""The decode job: binlog files in, :class:`~binlog_schema.pipeline.tables.result.BinlogTables`
out (:func:`decode`): inputs listed and cut into splits (:mod:`..driver.plan`), the splits
decoded by Spark tasks (:mod:`..tasks`) that either write Parquet parts themselves (engine
arrow: :mod:`..tasks.parts`, then ``table_maps`` and ``files`` written on the driver) or hand
their rows to the JVM (engine spark: one cached DataFrame)."""

from __future__ import annotations

from contextlib import nullcontext

from binlog_schema.output.sizes import parse_size
from binlog_schema.pipeline.tasks.decode import decode_group
from binlog_schema.pipeline.tasks.split import STAT, TABLE_MAP
from binlog_schema.pipeline.driver.plan import (DEFAULT_SPLIT, EarlyPrescan, Inputs, binlog_inputs,
                                                pack, plan_splits, task_count)
from binlog_schema.pipeline.tables.reconcile import (EVENT_STAGES, FAILURE_STAGES, count_by_file,
                                                     files_rows)
from binlog_schema.pipeline.driver.session import session_time_zone, start_session
from binlog_schema.pipeline.tables.result import (BinlogTables, CachedTables, ParquetTables,
                                                  first_shapes, prepare_out, qualify)


def have_pyarrow() -> bool:
    """Whether engine arrow can run here (pyarrow and its Parquet writer)."""
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


class SchemaFileError(ValueError):
    """A ``schema`` file that cannot be read, or holds DDL the history does not model."""


def decode(inputs, spark=None, *, out: str | None = None, engine: str = "auto",
           split_size=DEFAULT_SPLIT, rows: bool = True, partitions: int | None = None,
           include_hidden: bool = False, mode: str = "errorifexists",
           progress=None, prescan: EarlyPrescan | None = None,
           schema=None, schema_plan=None, listing: Inputs | None = None,
           arrow_schema: bool = True) -> BinlogTables:
    """Decode binlog files (paths, directories, globs, any Hadoop filesystem) into
    DataFrames: ``events``, ``table_maps``, ``row_changes``, ``errors``, ``files``.

    ``engine="arrow"`` (the default when pyarrow is installed; the workers need it too): the
    tasks write Parquet parts under ``out`` (default: a new temporary directory; on a cluster
    give a path every worker can write, local/shared or reachable by ``pyarrow.fs``),
    decoding runs now, and the tables are read back from there. ``engine="spark"``: rows
    cross into the JVM and are cached; nothing runs until a table is used; write with
    :meth:`BinlogTables.write`.

    ``schema``: local files (paths) of the schema at the start of the first file
    (``mysqldump --no-data`` or ``SHOW CREATE TABLE`` output), the inputs one server's
    binlogs in name order: their DDL is replayed into it (:mod:`..tasks.history`) and table maps
    without column names get its names, ENUM/SET members and primary key where they agree
    with it (else an ``errors`` row of stage ``schema``; see :class:`RowDecoder`). Raises
    :class:`SchemaFileError` for a schema file it cannot use. ``schema_plan``: a
    :class:`~binlog_schema.pipeline.tasks.history.SchemaPlan` made already (instead of
    ``schema``). ``arrow_schema`` False (engine arrow): the part files do not store
    pyarrow's schema, as Iceberg tables of them need (:func:`.parts.write_group`).

    The inputs are listed by :func:`~..driver.plan.binlog_inputs` (or given listed: ``listing``):
    the files a server keeps beside its binlogs (index, GTID state and index, replica info)
    are not read (the tables' ``inputs`` lists them); an index gives the order of the files
    it names. Raises :class:`~..driver.plan.NoInputError` when there is no file to read (nothing is
    written then)."""
    spark = spark or start_session()
    if engine == "auto":
        engine = "arrow" if have_pyarrow() else "spark"
    if engine not in ("arrow", "spark"):
        raise ValueError(f"engine {engine!r}: auto, arrow or spark")
    split_bytes = parse_size(split_size)
    if isinstance(inputs, str):
        inputs = [inputs]
    listing = (listing or binlog_inputs(spark, list(inputs), include_hidden)).check()
    files, missing = listing.files, listing.missing
    with progress.stage("pre-scan") if progress else nullcontext():
        splits = plan_splits(spark, files, missing, split_bytes,
                             prescan.result() if prescan is not None else None)
    plan = schema_plan if rows else None
    if rows and plan is None:   # (the schema history, on by default; ``schema`` seeds it)
        from binlog_schema.pipeline.tasks.history import plan_schema
        from binlog_schema.changes.schema import DDLError
        with progress.stage("schema statements") if progress else nullcontext():
            try:
                plan = plan_schema(spark, files, [schema] if isinstance(schema, str)
                                   else list(schema or ()))
            except OSError as e:
                raise SchemaFileError(f"{e.filename}: {e.strerror or e}") from None
            except DDLError as e:
                raise SchemaFileError(str(e)) from None
    sc = spark.sparkContext
    if partitions is None:
        partitions = task_count(splits, sc.defaultParallelism, split_bytes)
    groups = pack(splits, partitions)
    if progress:
        progress.say(f"{len({s.uri for s in splits})} files, {len(splits)} splits in "
                     f"{len(groups)} tasks, {sum(s.length for s in splits) / (1 << 20):.1f} "
                     "MiB")
    if engine == "spark":
        tables = _decode_cached(spark, groups, splits, rows, plan)
    else:
        tables = _decode_arrow(spark, groups, splits, rows, out, mode, progress, plan,
                               arrow_schema)
    tables.inputs = listing
    return tables


def _decode_cached(spark, groups, splits, want_rows, plan=None):
    from pyspark import StorageLevel
    from binlog_schema.pipeline.tables import schema
    sc = spark.sparkContext
    rdd = sc.parallelize(groups, max(1, len(groups))).flatMap(
        lambda g: decode_group(g, want_rows, schema=plan))
    unified = _frame(spark, rdd, schema.UNIFIED).persist(StorageLevel.MEMORY_AND_DISK)
    return CachedTables(spark, unified, splits)


def _decode_arrow(spark, groups, splits, want_rows, out, mode, progress, plan=None,
                  arrow_schema=True):
    import tempfile
    from binlog_schema.pipeline.tables import arrow
    from binlog_schema.pipeline.tasks import parts
    from binlog_schema.pipeline.tables import schema
    if out is None:
        out = tempfile.mkdtemp(prefix="binlog-schema-tables-")
    out = qualify(spark, out)
    prepare_out(spark, out, mode)
    tz = session_time_zone(spark)
    arrow_schemas = arrow.task_schemas(tz)
    spark_json = {"events": schema.EVENTS.json(), "row_changes": schema.ROW_CHANGES.json(),
                  "errors": schema.ERRORS.json()}
    sc = spark.sparkContext
    sc.setJobDescription(f"decode {len(splits)} splits")
    with progress.stage("decode") if progress else nullcontext():
        small = sc.parallelize(list(enumerate(groups)), max(1, len(groups))).flatMap(
            lambda ig: parts.write_group(ig[0], ig[1], out, arrow_schemas, spark_json,
                                         want_rows, schema=plan,
                                         arrow_schema=arrow_schema)).collect()
    shapes = [row for tag, row in small if tag == TABLE_MAP]  # (Spark's internal form)
    stats = [row for tag, row in small if tag == STAT]
    with progress.stage("table_maps, files") if progress else nullcontext():
        # small tables: written here by pyarrow as the tasks write theirs (a Spark job each
        # would cost more than the data, and it is time no core can share)
        parts.write_table(out, "table_maps", arrow.arrow_schema(schema.TABLE_MAPS, tz),
                          schema.TABLE_MAPS.json(), first_shapes(shapes))
        tables = ParquetTables(spark, out, splits, stats)
        try:  # counted from the part files themselves (pyarrow, on the driver)
            counts = parts.count_parts(out, EVENT_STAGES, FAILURE_STAGES)
        except Exception:  # noqa: BLE001 - a location pyarrow cannot read: Spark counts
            sc.setJobDescription("files (reconciliation)")
            counts = count_by_file(tables.events, tables.errors, tables.row_changes)
        rows = files_rows(stats, [(r[-4], r[2]) for r in shapes], counts)
        parts.write_table(out, "files", arrow.arrow_schema(schema.FILES, tz),
                          schema.FILES.json(), rows)
        tables.file_rows = rows
    return tables



def _frame(spark, rdd, struct):
    """A DataFrame from an RDD of tuples already in Spark's internal form (the tasks produce
    dates as days and timestamps as microseconds): no per-row conversion in Python.
    (pyspark's own private route, the one ``createDataFrame`` takes after converting each
    row: pyspark has no public entry that skips the conversion.)"""
    from pyspark.sql import DataFrame
    jvm = spark._jvm
    jrdd = jvm.SerDeUtil.toJavaArray(rdd._to_java_object_rdd())
    jdf = spark._jsparkSession.applySchemaToPythonRDD(jrdd.rdd(), struct.json())
    df = DataFrame(jdf, spark)
    df._schema = struct
    return df

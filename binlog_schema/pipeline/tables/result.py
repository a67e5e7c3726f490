"""The decode job's result: its tables as DataFrames (:class:`BinlogTables`; engine spark:
:class:`CachedTables`, views of one cached DataFrame; engine arrow: :class:`ParquetTables`,
read back from the Parquet parts), the ``table_maps`` aggregation, the typed view of one
table (:func:`table_view`), and where tables go: output folders (:func:`prepare_out`,
:func:`qualify`, :func:`hadoop_fs`, any Hadoop filesystem) and formats
(:func:`check_format`)."""

from __future__ import annotations

import os
from contextlib import nullcontext

from binlog_schema.pipeline.tables import FORMATS
from binlog_schema.pipeline.tasks.split import ERROR, EVENT, ROW, STAT, TABLE_MAP
from binlog_schema.pipeline.tables.reconcile import count_by_file, files_rows

TABLES = ("events", "table_maps", "row_changes", "errors", "files")


class BinlogTables:
    """The DataFrames of one decode run: ``events``, ``table_maps``, ``row_changes``,
    ``errors``, ``files`` (the per-file reconciliation) and ``split_stats``."""

    spark = None
    splits: list = []

    def tables(self) -> dict:
        return {"events": self.events, "table_maps": self.table_maps,
                "row_changes": self.row_changes, "errors": self.errors, "files": self.files}

    def table(self, database: str, table: str):
        """One table's row changes with typed structs (see :func:`table_view`)."""
        return table_view(self, database, table)

    def write(self, out: str, fmt: str = "parquet", mode: str = "errorifexists",
              progress=None, metadata: dict | None = None) -> dict:
        """Write every table through Spark under ``out`` (``out/events``, ...). ``fmt``
        "delta": Spark writes Parquet, which :func:`.delta.commit_parts` then makes a Delta
        table (deltalake, no Spark jars; ``metadata`` in its commit); "iceberg": the same
        Parquet (timestamps as micros), which :func:`.iceberg.commit_parts` then makes an
        Iceberg table in namespace ``binlog`` of the catalog under ``out``."""
        check_format(self.spark, fmt)
        paths = {}
        for name, df in self.tables().items():
            path = out.rstrip("/") + "/" + name
            self.spark.sparkContext.setJobDescription(f"write {name}")
            with progress.stage(f"write {name}") if progress else nullcontext():
                if fmt == "delta":
                    self._write_delta(df, path, mode, metadata)
                elif fmt == "iceberg":
                    self._write_iceberg(df, out, name, path, mode, metadata)
                else:
                    df.write.mode(mode).format(fmt).save(path)
            paths[name] = path
        return paths

    def _write_delta(self, df, path, mode, metadata):
        from binlog_schema.pipeline.tables import delta
        from binlog_schema.pipeline.tables import session_conf
        # Delta's timestamps (Spark's default: INT96)
        with session_conf(self.spark, "spark.sql.parquet.outputTimestampType",
                          "TIMESTAMP_MICROS"):
            df.write.mode(mode).parquet(path)
        delta.commit_parts(path, metadata, mode="error")

    def _write_iceberg(self, df, out, name, path, mode, metadata):
        from binlog_schema.pipeline.tables import iceberg
        ident = (iceberg.DECODE_NAMESPACE, name)
        if mode == "overwrite":
            iceberg.forget(out, ident)
        elif iceberg.is_iceberg(out, ident):
            raise FileExistsError(f"{path}: an Iceberg table is there already")
        iceberg.write_staged(self.spark, df, path, mode)
        iceberg.commit_parts(out, ident, path, metadata)

    def unpersist(self):
        pass


class CachedTables(BinlogTables):
    """Engine ``spark``: the tasks' rows cross into the JVM (pickled) as one DataFrame,
    cached (memory and disk); every table is a view of it. Needs nothing but pyspark and
    writes through Spark's own writers (any Hadoop filesystem, any format)."""

    def __init__(self, spark, unified, splits):
        self.spark, self.unified, self.splits = spark, unified, splits

    def _part(self, kind, column):
        from pyspark.sql import functions as F
        return self.unified.where(F.col("kind") == kind).select(f"{column}.*")

    @property
    def events(self):
        return self._part(EVENT, "event")

    @property
    def row_changes(self):
        return self._part(ROW, "row")

    @property
    def errors(self):
        return self._part(ERROR, "error")

    @property
    def split_stats(self):
        return self._part(STAT, "stat")

    @property
    def table_maps(self):
        return aggregate_shapes(self._part(TABLE_MAP, "table_map"))

    @property
    def files(self):
        from binlog_schema.pipeline.tables import schema
        stats = [tuple(r) for r in self.split_stats.collect()]
        shapes = [(r["first_file"], r["shape_id"]) for r in
                  self._part(TABLE_MAP, "table_map").select(
                      "first_file", "shape_id").collect()]
        counts = count_by_file(self.events, self.errors, self.row_changes)
        return self.spark.createDataFrame(files_rows(stats, shapes, counts),
                                          schema.FILES).orderBy("file")

    def unpersist(self):
        self.unified.unpersist()


class ParquetTables(BinlogTables):
    """Engine ``arrow`` (default): the tasks wrote ``events``, ``row_changes`` and
    ``errors`` as Parquet parts under ``location``; the driver wrote ``table_maps`` and
    ``files``. Every table is read back from there."""

    file_rows: list | None = None   # the ``files`` rows as written (schema.FILES tuples)

    def __init__(self, spark, location, splits, split_rows):
        self.spark, self.location, self.splits = spark, location.rstrip("/"), splits
        from binlog_schema.pipeline.tables import schema
        self._split_rows = split_rows
        self._stats = None
        self._schemas = {"events": schema.EVENTS, "row_changes": schema.ROW_CHANGES,
                         "errors": schema.ERRORS, "table_maps": schema.TABLE_MAPS,
                         "files": schema.FILES}

    @property
    def split_stats(self):
        if self._stats is None:   # (a DataFrame made only when asked for)
            from binlog_schema.pipeline.tables import schema
            self._stats = self.spark.createDataFrame(self._split_rows, schema.SPLIT_STATS)
        return self._stats

    def _read(self, name):
        return self.spark.read.schema(self._schemas[name]).parquet(f"{self.location}/{name}")

    events = property(lambda self: self._read("events"))
    row_changes = property(lambda self: self._read("row_changes"))
    errors = property(lambda self: self._read("errors"))
    table_maps = property(lambda self: self._read("table_maps").orderBy(
        "first_file", "first_offset"))
    files = property(lambda self: self._read("files").orderBy("file"))

    def write(self, out: str, fmt: str = "parquet", mode: str = "errorifexists",
              progress=None, metadata: dict | None = None) -> dict:
        """As :meth:`BinlogTables.write`; ``fmt`` "delta" with ``out`` where the parts are
        (the decode's ``out``): the part files become Delta tables where they are, nothing
        rewritten (:func:`.delta.commit_parts`)."""
        if fmt not in ("delta", "iceberg") or \
                qualify(self.spark, out).rstrip("/") != self.location:
            return super().write(out, fmt, mode, progress, metadata)
        check_format(self.spark, fmt)
        from binlog_schema.pipeline.tables import delta, iceberg
        paths = {}
        for name in TABLES:
            paths[name] = f"{self.location}/{name}"
            with progress.stage(f"commit {name}") if progress else nullcontext():
                if fmt == "delta":
                    delta.commit_parts(paths[name], metadata, mode="error")
                else:
                    ident = (iceberg.DECODE_NAMESPACE, name)
                    if mode == "overwrite":
                        iceberg.forget(out, ident)
                    iceberg.commit_parts(out, ident, paths[name], metadata)
        return paths


def aggregate_shapes(tm):
    """One row per distinct table-map shape, with where it was first seen (files in name
    order, then offsets) and how many TABLE_MAP events had it."""
    from pyspark.sql import functions as F
    shape_cols = [c for c in tm.columns if c not in (
        "first_file", "first_offset", "first_timestamp", "occurrences", "shape_id")]
    first = F.min_by(F.struct(*shape_cols, "first_file", "first_offset", "first_timestamp"),
                     F.struct("first_file", "first_offset"))
    out = tm.groupBy("shape_id").agg(first.alias("s"),
                                     F.sum("occurrences").alias("occurrences"))
    return out.select("s.database", "s.table", "shape_id",
                      *[f"s.{c}" for c in shape_cols if c not in ("database", "table")],
                      "s.first_file", "s.first_offset", "s.first_timestamp",
                      "occurrences").orderBy("first_file", "first_offset")


def first_shapes(shapes) -> list:
    """:func:`aggregate_shapes` on the driver, for the (few) rows the tasks returned."""
    best, total = {}, {}
    for r in shapes:  # schema.TABLE_MAPS order: ..., first_file, first_offset, ts, count
        shape = r[2]
        total[shape] = total.get(shape, 0) + r[-1]
        if shape not in best or (r[-4], r[-3]) < (best[shape][-4], best[shape][-3]):
            best[shape] = r
    rows = [tuple(best[s][:-1]) + (total[s],) for s in best]
    return sorted(rows, key=lambda r: (r[-4], r[-3]))


def table_view(tables: BinlogTables, database: str, table: str):
    """The row changes of one table with ``before``/``after`` as structs of the exact column
    types (the latest table-map shape gives each column's type; columns of earlier shapes
    are kept). Values with no Spark form (zero dates) are null here, lossless in
    ``row_changes``."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.tables.schema import spark_type_of
    shapes = (tables.table_maps.where((F.col("database") == database)
                                      & (F.col("table") == table))
              .orderBy("first_file", "first_offset").collect())
    if not shapes:
        raise KeyError(f"no table map for {database}.{table}")
    columns = {}
    for s in shapes:  # later shapes win
        for c in s["columns"]:
            name = c["name"] or f"@{c['index'] + 1}"
            columns.pop(name, None)
            columns[name] = c.asDict()
    rc = tables.row_changes.where((F.col("database") == database) & (F.col("table") == table))

    def image(side):
        fields = []
        for name, col in columns.items():
            expr, dtype = spark_type_of(col)(F.col(side)[name])
            fields.append(expr.cast(dtype).alias(name))
        return F.when(F.col(side).isNull(), F.lit(None)).otherwise(F.struct(*fields))
    return rc.select("file", "offset", "inner_offset", "gtid", "timestamp", "operation",
                     "row_index", image("before").alias("before"),
                     image("after").alias("after"), "order_key", "xid", "commit_timestamp",
                     "schema_version")


def check_format(spark, fmt: str):
    """Whether ``fmt`` (one of :data:`FORMATS`) can be written here: parquet; delta (Delta
    Lake tables: the Parquet files written, committed by the deltalake package on the
    driver, see :mod:`.delta`; no Spark jars) when deltalake is installed; iceberg (the
    same files made Iceberg tables by pyiceberg with a SQLite catalog, see :mod:`.iceberg`;
    no JVM) when pyiceberg and sqlalchemy are installed. Raises ValueError (no such
    format) or RuntimeError (not here) otherwise."""
    if fmt == "parquet":
        return
    if fmt not in FORMATS:
        raise ValueError(f"unknown output format {fmt!r} ({', '.join(FORMATS)})")
    package, what = (("deltalake", "Spark's Delta Lake jars are not needed") if fmt == "delta"
                     else ("pyiceberg", "no JVM jars are needed"))
    try:
        __import__(package)
        if fmt == "iceberg":
            import sqlalchemy  # noqa: F401   (pyiceberg's SQLite catalog)
    except ImportError:
        raise RuntimeError(
            f"--format {fmt} needs the {package} package on the driver (pip install "
            f"'binlog-schema[spark]' installs it; {what}), and it is not installed here. "
            "Use --format parquet.") from None


def hadoop_fs(spark, path: str):
    """(Hadoop FileSystem, Path) of a path, through the session's JVM (pyspark's gateway to
    it, ``_jvm``/``_jsc``: Hadoop's API has no Python face)."""
    jvm = spark._jvm
    p = jvm.org.apache.hadoop.fs.Path(path)
    return p.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), p


def qualify(spark, path: str) -> str:
    """An absolute URI for a path (relative local paths against the driver's directory),
    so that workers with another working directory find it."""
    if getattr(spark, "_jvm", None) is None:
        return os.path.abspath(path)
    fs, p = hadoop_fs(spark, path)
    return fs.makeQualified(p).toString()


def prepare_out(spark, out: str, mode: str, names=TABLES):
    """``out/<table>`` for each table: removed (overwrite) or refused (errorifexists) when
    present, then created empty."""
    fs, root = hadoop_fs(spark, out)
    Path = spark._jvm.org.apache.hadoop.fs.Path
    for name in names:
        p = Path(root, name)
        if fs.exists(p):
            if mode == "overwrite":
                fs.delete(p, True)
            else:
                raise FileExistsError(f"{out}/{name} exists (use --overwrite)")
    for name in names:
        fs.mkdirs(Path(root, name))

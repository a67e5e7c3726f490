"""Spark-native sources through Spark 4's Python Data Source API: the ``binlog`` format,
registered by :func:`register`, read as a batch (``spark.read.format("binlog")``, here) or as
a stream (``spark.readStream.format("binlog")``, :mod:`.streaming`).

    from binlog_schema.pipeline import register
    register(spark)
    events = spark.read.format("binlog").load("/data/binlogs/")
    rows = spark.read.format("binlog").option("table", "row_changes").load("/data/binlogs/")

A batch read is the decode job's table, read in place: Spark plans a Python source's reads in
a plain Python process (no SparkSession, no JVM gateway), so the inputs are listed there with
``pyarrow.fs`` (:func:`fsio.list_files`; the files a server keeps beside its binlogs left
out, as the commands leave them: :func:`plan.arrange`) and cut by the same pre-scan
(:func:`plan.plan_here`); each split is one partition, decoded by the pipeline's tasks into
Arrow record batches that Spark takes as they are (:mod:`.partition`). The DataFrame's
schema is the table's (:mod:`schema`), and its rows are those
:func:`binlog_schema.pipeline.decode` writes for the same files.

Options: ``path`` (``load(path)``: a file, a folder, a glob; ``load([...])``: several),
``table`` (``events``, the default, ``row_changes`` or ``errors``; one default for batch and
stream, as the source gives its schema before it knows which read it serves),
``splitSize`` (``8m``: the decode job's), ``schema`` (a local schema file, or a JSON list of
them: ``decode(schema=...)``, the schema at the first file's start; batch reads follow the
files' DDL from it, or from nothing without it, as ``decode`` does), ``includeHidden`` (``true``:
names starting
with ``.`` or ``_`` inside folders are read too), and, for streams, ``startingFile`` and
``startingPosition``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from pyspark.sql.datasource import DataSource, DataSourceReader

from binlog_schema.pipeline.tables import schema as tables
from binlog_schema.pipeline.fsio import list_files
from binlog_schema.output.sizes import parse_size
from binlog_schema.pipeline.driver.plan import (DEFAULT_SPLIT, arrange, plan_here, read_small)
from binlog_schema.pipeline.sources.partition import SplitPartition, read_split

NAME = "binlog"
SCHEMAS = {"events": tables.EVENTS, "row_changes": tables.ROW_CHANGES,
           "errors": tables.ERRORS}
DEFAULT_TABLE = "events"
OPTIONS = ("path", "paths", "table", "splitsize", "schema", "includehidden", "startingfile",
           "startingposition")


def register(spark) -> None:
    """Make the ``binlog`` format known to ``spark`` (batch and streaming reads)."""
    spark.dataSource.register(BinlogDataSource)


@dataclass
class Options:
    """A read's options, checked (a ValueError names what is wrong)."""

    paths: list
    table: str = DEFAULT_TABLE
    split_bytes: int = DEFAULT_SPLIT
    schema_files: list = field(default_factory=list)
    include_hidden: bool = False
    starting_file: str | None = None
    starting_position: int = 4

    @classmethod
    def of(cls, options) -> Options:
        o = {str(k).lower(): v for k, v in dict(options).items()}
        unknown = sorted(set(o) - set(OPTIONS))
        if unknown:
            raise ValueError(f"binlog source: unknown option(s) {', '.join(unknown)} "
                             "(known: path, table, splitSize, schema, includeHidden, "
                             "startingFile, startingPosition)")
        paths = json.loads(o["paths"]) if o.get("paths") else []
        if o.get("path"):
            paths.insert(0, o["path"])
        table = o.get("table", DEFAULT_TABLE)
        if table not in SCHEMAS:
            raise ValueError(f"binlog source: table {table!r}: one of {', '.join(SCHEMAS)}")
        schema = o.get("schema") or ""
        schema_files = json.loads(schema) if schema.startswith("[") else \
            [schema] if schema else []
        return cls(paths, table, parse_size(o.get("splitsize", DEFAULT_SPLIT)), schema_files,
                   str(o.get("includehidden", "false")).lower() == "true",
                   o.get("startingfile"), int(o.get("startingposition", 4)))


class BinlogDataSource(DataSource):
    """The ``binlog`` format: the pipeline's ``events``, ``row_changes`` or ``errors``."""

    @classmethod
    def name(cls) -> str:
        return NAME

    def schema(self):
        return SCHEMAS[Options.of(self.options).table]

    def reader(self, schema) -> BatchReader:
        options = Options.of(self.options)
        _check_schema(schema, options.table)
        return BatchReader(options)

    def streamReader(self, schema):
        from binlog_schema.pipeline.sources.streaming import StreamReader
        options = Options.of(self.options)
        _check_schema(schema, options.table)
        return StreamReader(options)


def _check_schema(schema, table: str):
    if schema != SCHEMAS[table]:
        raise ValueError(f"binlog source: the schema of table {table} is fixed "
                         f"(pipeline/tables/schema.py); given {schema.simpleString()}")


class BatchReader(DataSourceReader):
    """The files listed and their schema plan made when Spark plans the read; the splits
    cut by :meth:`partitions` (after Spark has pickled the reader for its tasks: the
    listing is not shipped to them, the schema plan is)."""

    def __init__(self, options: Options):
        if not options.paths:
            raise ValueError("binlog source: no path (load(path) or option path)")
        self.table = options.table
        self.split_bytes = options.split_bytes
        self.paths, self.include_hidden = options.paths, options.include_hidden
        self.listed = _binlogs(self.paths, self.include_hidden)   # (files, missing)
        # (the schema history, on by default as in decode: the files' DDL replayed, into
        # the ``schema`` files when given)
        self.plan = schema_plan(self.listed[0], options.schema_files)

    def __getstate__(self):
        return {**self.__dict__, "listed": None}

    def partitions(self) -> list:
        files, missing = self.listed or _binlogs(self.paths, self.include_hidden)
        return [SplitPartition(s) for s in plan_here(files, missing, self.split_bytes)]

    def read(self, partition):
        return read_split(partition.value, self.table, self.plan)


def _binlogs(paths, include_hidden) -> tuple:
    """(files, missing) of the paths as the commands read them (:func:`plan.arrange`): the
    companion files of a server's binlogs left out, a binlog index's order."""
    listed = arrange(paths, *list_files(paths, include_hidden),
                     lambda uri: read_small(None, uri))
    return listed.files, listed.missing


def schema_plan(files, schema_files):
    """:func:`history.plan_schema`, its one Spark job (the schema statements of each file)
    run in this process."""
    from binlog_schema.pipeline.tasks.history import plan_schema
    return plan_schema(_Here(), files, schema_files)


class _Here:
    """Enough of a SparkSession for a job of ``parallelize(...).map(f).collect()``, run in
    this process one item after the other."""

    @property
    def sparkContext(self):
        return self

    def setJobDescription(self, text):
        pass

    def parallelize(self, items, slices=None):
        return _Items(items)


class _Items(list):
    def map(self, f):
        return _Items(map(f, self))

    def collect(self) -> list:
        return list(self)

"""The data pipeline on Spark: binlog files in, typed tables out (``events``,
``table_maps``, ``row_changes``, ``errors``, ``files``).

    from binlog_schema.pipeline import decode, start_session
    tables = decode(["/data/binlogs/"], start_session("local[*]"), out="/tmp/tables")

Modules, each importing only those below it: :mod:`commands` (``binlog-schema spark ...``:
arguments, what each command prints, the file spark-submit runs); the jobs
:mod:`decode_job`, :mod:`current_job` (``spark current``: the current state of every
source table; :mod:`current_command` prints it, :mod:`current_plan` makes the plan its
tasks fold by in :mod:`current_fold`, :mod:`current_types` types its columns,
:mod:`current_io` reads and writes its tables), :mod:`delta` (Delta Lake tables with the
``deltalake`` package), :mod:`fixtures_job` (synthetic files of :mod:`binlog_schema.synthetic`)
and :mod:`validate_job`; :mod:`session` (Java, the Spark session and its JVM's start-up),
:mod:`plan` (listing inputs, splits, tasks), :mod:`tables` (the result's DataFrames, the
typed view of a table, output folders and formats), :mod:`reconcile` (the per-file
reconciliation), :mod:`report` (progress, summary, exit status); and what runs in the
executors: :mod:`tasks` (pre-scan, split reading and decoding; plain Python),
:mod:`columns` (the tasks' rows as Arrow record batches), :mod:`parts` (Parquet parts
written by the tasks), :mod:`schema` and :mod:`arrow` (the tables' Spark and Arrow
schemas), :mod:`fsio` (files on any filesystem), :mod:`daemon` (the executors' Python
daemon); :mod:`cluster` (a standalone master and worker on loopback); :mod:`source`,
:mod:`source_stream` and :mod:`source_split` (``spark.read.format("binlog")`` and
``spark.readStream``: Spark 4's Python Data Source API over the same plan and tasks, made
known by :func:`register`). pyspark is imported only when a job runs.
"""

from ..lazy import exports

_API = {"decode": "decode_job", "start_session": "session", "BinlogTables": "tables",
        "table_view": "tables", "generate": "fixtures_job", "validate": "validate_job",
        "LocalCluster": "cluster", "register": "source", "current": "current_job"}


__getattr__, __dir__ = exports(__name__, _API)

__all__ = list(_API)

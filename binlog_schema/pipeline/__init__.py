"""The data pipeline on Spark: binlog files in, typed tables out (``events``,
``table_maps``, ``row_changes``, ``errors``, ``files``).

    from binlog_schema.pipeline import decode, start_session
    tables = decode(["/data/binlogs/"], start_session("local[*]"), out="/tmp/tables")

Its rooms, each importing only those above it in this list (``tests/unit/test_house.py``
holds the order):

* :mod:`.fsio`: files on any filesystem (local paths, ``file:`` URIs, ``pyarrow.fs``), read by
  the executors and listed by the driver alike;
* :mod:`.tasks`: what runs in the executors, plain Python: the pre-scan, reading and decoding
  a split, column values, the sinks (Spark tuples, Arrow record batches), Parquet parts, the
  schema history per split, the executors' Python daemon;
* :mod:`.tables`: the output tables: their Spark and Arrow schemas, the result's DataFrames
  and the typed view of one table, the per-file reconciliation, Delta Lake tables;
* :mod:`.driver`: what runs on the driver around every job: the Spark session and its JVM,
  listing inputs and planning splits and tasks, progress and exit status, a standalone cluster;
* :mod:`.jobs`: the jobs, ``decode``, ``stats``, ``fixtures`` and ``validate``;
* :mod:`.current` (``spark current``: the current state of every source table; ``spark
  changes``: its row changes in the change-data contract's columns) and
  :mod:`.sources` (the ``binlog`` Spark data source, batch and stream), each built on the
  decode job's plan and tasks;
* :mod:`.follow` (``spark follow``: the stream of :mod:`.sources` into the tables of
  :mod:`.current`, micro-batch by micro-batch);
* :mod:`..cli.spark`: ``binlog-schema spark ...`` (arguments, what each command prints, the file
  spark-submit runs).

pyspark is imported only when a job runs.
"""

from ..format.lazy import exports

_API = {"decode": "jobs.decode", "start_session": "driver.session",
        "BinlogTables": "tables.result", "table_view": "tables.result",
        "generate": "jobs.fixtures", "validate": "jobs.validate",
        "LocalCluster": "driver.cluster", "register": "sources.batch", "current": "current.job",
        "follow": "follow.job", "changes": "current.changes"}


__getattr__, __dir__ = exports(__name__, _API)

__all__ = list(_API)

"""The data pipeline on Spark: binlog files in, typed tables out (``events``,
``table_maps``, ``row_changes``, ``errors``, ``files``).

    from binlog_schema.pipeline import decode, start_session
    tables = decode(["/data/binlogs/"], start_session("local[*]"), out="/tmp/tables")

Layers: :mod:`tasks` (pre-scan, split reading and decoding; plain Python, runs in the
executors), :mod:`columns` (the tasks' rows as Arrow record batches, built column by column),
:mod:`parts` (Parquet parts written by the tasks), :mod:`job` (the driver: session and its
JVM's start-up, listing, planning, tables, reconciliation), :mod:`daemon` (the executors'
Python daemon), :mod:`tools` (fixtures and validate jobs), :mod:`cli` (``binlog-schema spark
...``). pyspark is imported only when a job runs.
"""

_API = {"decode": "job", "start_session": "job", "BinlogTables": "job", "table_view": "job",
        "generate": "tools", "validate": "tools", "LocalCluster": "cluster"}


def __getattr__(name):
    if name in _API:
        import importlib
        return getattr(importlib.import_module(f"{__name__}.{_API[name]}"), name)
    raise AttributeError(name)


__all__ = list(_API)

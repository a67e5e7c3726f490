"""The output tables: their Spark schemas (:mod:`.schema`) and Arrow schemas (:mod:`.arrow`), a
decode run's result as DataFrames and the typed view of one source table (:mod:`.result`: also
output folders and formats), the per-file reconciliation that makes the ``files`` table
(:mod:`.reconcile`), and Delta Lake tables made of the tasks' Parquet parts without Spark's
jars (:mod:`.delta`), Iceberg tables of them without a JVM (:mod:`.iceberg`, its files' side
:mod:`.iceberg_files`); :data:`FORMATS`: the formats ``spark decode`` and ``spark current``
write; :func:`session_conf`: a Spark conf set for one write.

May import :mod:`binlog_schema.pipeline.tasks` (the tags of the tasks' rows, their Parquet
parts) and :mod:`binlog_schema.pipeline.fsio`; never the driver, the jobs or the sources.
"""

FORMATS = ("parquet", "delta", "iceberg")
# the column of staged rows that makes a row the delete of its key (Delta MERGE, Iceberg upsert)
DELETED = "_deleted"


class session_conf:
    """Inside the ``with``, the session's Spark conf ``key`` is ``value`` (for one write,
    say); after it, what it was before (unset when it was not set)."""

    def __init__(self, spark, key: str, value: str):
        self.conf, self.key, self.value = spark.conf, key, value

    def __enter__(self):
        self.before = self.conf.get(self.key, None)
        self.conf.set(self.key, self.value)
        return self

    def __exit__(self, *exc):
        if self.before is None:
            self.conf.unset(self.key)
        else:
            self.conf.set(self.key, self.before)
        return False

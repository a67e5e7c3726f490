"""What runs on the driver around every job: Java, the Spark session and its JVM's start-up
(:mod:`.session`), listing inputs, splits and their packing into tasks (:mod:`.plan`: the
pre-scan runs here or in tasks), progress, summary and exit status (:mod:`.report`), and a
standalone master and worker on loopback (:mod:`.cluster`).

May import :mod:`binlog_schema.pipeline.tasks`, :mod:`binlog_schema.pipeline.tables` and
:mod:`binlog_schema.pipeline.fsio`; never the jobs, ``current`` or the sources.
"""

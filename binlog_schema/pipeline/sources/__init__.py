"""The ``binlog`` Spark data source (Spark 4's Python Data Source API, made known by
:func:`~.batch.register`) over the decode job's plan and tasks: ``spark.read.format("binlog")``
(:mod:`.batch`), ``spark.readStream`` (:mod:`.streaming`), one split as a partition
(:mod:`.partition`). Spark finds it by class path and unpickles its readers in the executors.

May import the driver, the tables, the tasks and :mod:`binlog_schema.pipeline.fsio`; never
the jobs or ``current``.
"""

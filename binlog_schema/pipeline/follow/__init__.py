"""``spark follow``: a folder of binlogs followed into the current tables of ``spark current``,
micro-batch by micro-batch: the ``binlog`` stream (:mod:`..sources.streaming`) read by a
Structured Streaming query whose ``foreachBatch`` applies each batch's row changes to the
Delta tables under ``--out`` through the current job's own path
(:func:`..current.job.apply_changes`). :mod:`.job` is the job, :mod:`.command` runs and
prints it.

May import the current job, the sources, the jobs, the driver, the tables, the tasks and
:mod:`binlog_schema.pipeline.fsio`.
"""

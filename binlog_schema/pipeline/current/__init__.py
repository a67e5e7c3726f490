"""``spark current``: the current state of every source table, folded from the decode job's
row changes. :mod:`.command` runs and prints it, :mod:`.job` is the job, :mod:`.plan` makes
on the driver the plan (table lives) its tasks fold by in :mod:`.fold`, :mod:`.types` types
its columns, :mod:`.io` reads and writes its tables. ``spark changes`` (:mod:`.changes`) shares
its front (:func:`.job.read_changes`) and its typed columns, and writes the row changes
themselves in the change-data contract's columns.

May import the jobs, the driver, the tables, the tasks and :mod:`binlog_schema.pipeline.fsio`;
never the sources.
"""

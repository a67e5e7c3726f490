"""``spark current`` and ``spark history``: the current state of every source table, and
every version of its rows, folded from the decode job's row changes. :mod:`.command` runs and
prints them, :mod:`.job` is the job, :mod:`.plan` makes on the driver the plan (table lives)
the fold follows; :mod:`.keying` keys the changes and :mod:`.versions` folds them per key in
Spark SQL (:mod:`.folding`: the public fold), :mod:`.fold` is the Python fold that
:mod:`.sequential` runs for the few tables that need it, :mod:`.history` writes the versions,
:mod:`.types` types the columns, :mod:`.io` reads and writes the tables.

May import the jobs, the driver, the tables, the tasks and :mod:`binlog_schema.pipeline.fsio`;
never the sources.
"""

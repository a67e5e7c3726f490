"""``spark current``, ``spark history`` and ``spark changes``: the current state of every
source table, every version of its rows, and its row changes, from the decode job's row
changes. :mod:`.command` runs and prints them, :mod:`.job` is the job (its front
:func:`.job.read_changes` shared with :mod:`.changes`, which writes the row changes in the
change-data contract's columns), :mod:`.plan` makes on the driver the plan (table lives) the
fold follows; :mod:`.keying` keys the changes and :mod:`.versions` folds them per key in Spark
SQL (:mod:`.folding`: the public fold), :mod:`.fold` is the Python fold that
:mod:`.sequential` runs for the few tables that need it, :mod:`.history` writes the versions,
:mod:`.types` types the columns, :mod:`.io` reads and writes the tables, :mod:`.commit` says
how a run over its own Delta or Iceberg output commits.

May import the jobs, the driver, the tables, the tasks and :mod:`binlog_schema.pipeline.fsio`;
never the sources.
"""

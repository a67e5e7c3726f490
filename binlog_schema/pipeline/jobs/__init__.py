"""The jobs, each a function the commands and the Python API call on the driver, which sends
its tasks to the executors: :mod:`.decode` (binlog files in, the typed tables out),
:mod:`.stats` (``spark stats``), :mod:`.fixtures` (synthetic files of
:mod:`binlog_schema.synthetic`), :mod:`.validate` (every file round-tripped).

May import the driver, the tables, the tasks and :mod:`binlog_schema.pipeline.fsio`; never
``current`` or the sources.
"""

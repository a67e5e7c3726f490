"""The ``binlog-schema`` command line: one module per command (or small family of
commands), each holding its declaration (:class:`~.declare.Cmd`: options, help, epilog)
and a thin run function over the library; the option groups commands share
(:mod:`.options`), the checked option values (:mod:`.values`); the parser (:mod:`.parser`),
the fast scan (:mod:`.fast`) and ``docs/cli.md`` (``scripts/cli_docs.py``) are made from the
declarations. :func:`main` (in :mod:`.command_line`) is the entry point."""

from ..format.lazy import exports

__getattr__, __dir__ = exports(__name__, {"main": "command_line"})

"""Parsed arguments made into what the library takes, for the commands that share them:
the filters' selection, the byte range, the schema history, the progress line (a wrong
value: a usage error naming the option)."""

from __future__ import annotations

import sys



def usage_error(command: str, message: str):
    """Exit as argparse does for a wrong command line (status 2), with the usage of
    ``command``."""
    from .parser import parsers   # (argparse: only on this path)
    parsers(command)[(command,)].error(message)


def selection_of(args, command: str):
    """The :class:`~binlog_schema.changes.selection.Selection` of a command line's filters
    (a wrong one: a usage error naming the option)."""
    from ..changes.selection import Selection, SelectionError
    try:
        return Selection.from_options(
            start_datetime=args.start_datetime, stop_datetime=args.stop_datetime,
            database=args.database, table=args.table, gtid=args.gtid,
            operation=args.operation, thread_id=args.thread_id,
            where=getattr(args, "where", None))
    except SelectionError as e:
        usage_error(command, str(e))


def positions(args, command: str):
    """(--start-position, --stop-position) of ``sql`` and ``flashback``."""
    start, stop = args.start_position, args.stop_position
    if start is not None and stop is not None and stop <= start and len(args.files) == 1:
        usage_error(command, f"--stop-position {stop} is not after --start-position {start}:"
                             " nothing would be read")
    return start, stop


def progress_of(args, what: str):
    """The :class:`~binlog_schema.output.progress.Progress` of a command line, or None."""
    asked = getattr(args, "progress", False)
    if not asked and not sys.stderr.isatty():
        return None   # (the module not even imported)
    from ..output.progress import progress_for
    return progress_for(args.files, asked, what)


def load_schema(paths, files):
    """The :class:`~binlog_schema.changes.schema.SchemaHistory` for ``files`` (see
    :func:`binlog_schema.changes.schema.building.given_history`); None, said on stderr, when a
    ``--schema`` file cannot be read or holds DDL the history refuses."""
    from ..changes.schema import DDLError
    from ..changes.schema.building import given_history
    from ..output.write import os_problem
    try:
        return given_history(files, paths)
    except OSError as e:
        print(f"{e.filename}: {os_problem(e)}", file=sys.stderr, flush=True)
    except DDLError as e:
        print(str(e), file=sys.stderr, flush=True)
    return None


def where_used(matcher, command: str) -> None:
    """A usage error when ``--where`` named columns no table of the input has."""
    from ..changes.row_match import WhereError
    try:
        matcher.check_used()
    except WhereError as e:
        usage_error(command, str(e))

"""``binlog-schema sql`` (row changes as SQL statements, or the SQL that undoes them:
:func:`binlog_schema.output.sql_script.write_sql`) and ``binlog-schema flashback`` (one
binlog file that undoes them: :func:`binlog_schema.output.flashback_file.write_flashback`)."""

from __future__ import annotations

from ..output.statuses import STOPPED, epilog
from .arguments import load_schema, positions, progress_of, selection_of
from .declare import Cmd, Opt
from .options import FILTERS, IN_ORDER, PROGRESS, RANGE, SCHEMA


def cmd_sql(args) -> int:
    from ..output.sql_script import write_sql
    from ..output.write import Output
    selection = selection_of(args, "sql")
    start, stop = positions(args, "sql")
    schema = load_schema(args.schema or (), args.files)
    if schema is None:
        return STOPPED
    progress = progress_of(args, "sql")
    try:
        return write_sql(args.files, Output(), selection, start=start, stop=stop,
                         schema=schema, flashback=args.flashback, progress=progress)
    finally:
        if progress is not None:
            progress.close()


def cmd_flashback(args) -> int:
    from ..output.flashback_file import write_flashback
    selection = selection_of(args, "flashback")
    start, stop = positions(args, "flashback")
    schema = load_schema((), args.files)   # (the files' DDL: hi-res temporal precisions)
    if schema is None:
        return STOPPED
    progress = progress_of(args, "flashback")
    try:
        return write_flashback(args.files, args.output, selection, start=start, stop=stop,
                               schema=schema, progress=progress)
    finally:
        if progress is not None:
            progress.close()


SQL_NOTES = (
    "Foreign-key cascades (ON DELETE CASCADE, ON UPDATE CASCADE) are done by the storage "
    "engine and are not in the binlog: their changes are not in the output (undoing a parent's "
    "delete does not bring its children back). Without FULL metadata "
    "(binlog_row_metadata=MINIMAL) give the schema with --schema: without column names the "
    "command refuses.")
# what is particular to the statuses of sql and flashback (statuses.epilog)
REFUSALS = ("A change that cannot be written or inverted (named with the file, event, offset "
            "and the missing columns), rows that cannot be decoded, a file cut short: 1, and "
            "nothing is written. 3: a schema change ended a flashback's range early.")

COMMANDS = [
    Cmd("sql", "row changes as SQL statements (or, with --flashback, the SQL that undoes "
               "them)", cmd_sql, [
        IN_ORDER,
        Opt("--flashback", action="store_true",
            help="the inverse: deletes for inserts, inserts for deletes, updates back to the "
                 "before image; transactions and statements last first. The files are read "
                 "backwards by transaction (memory does not grow with them). Refused: a "
                 "statement-based change, a MINIMAL or NOBLOB image that lacks a needed column "
                 "(named), a transaction cut by the end of its file; a schema change in the "
                 "range ends the range before it (exit 3)"),
        *RANGE,
        SCHEMA.but(
            help="the schema at the start of the first file (mysqldump --no-data or SHOW "
                 "CREATE TABLE statements; repeatable): column names and primary keys for "
                 "MINIMAL metadata, followed through the files' DDL (the history is on "
                 "without it: the files' DDL replayed from nothing)"),
        *FILTERS,
        PROGRESS,
    ], epilog="One statement per row, in transactions (BEGIN/COMMIT, the GTID in a comment), "
              "each after a comment naming the file, position and time. WHERE finds the row "
              "by its primary key when known, else by every column (<=>, LIMIT 1). The "
              "output starts with SET NAMES utf8mb4, time_zone '+00:00' and a sql_mode that "
              "accepts what binlogs hold (zero dates, AUTO_INCREMENT 0). Apply it with "
              "`mariadb --binary-mode` (or `mysql --binary-mode`). The script is written "
              "whole or not at all (made in a temporary file, copied out when complete): "
              "piped into a server, it is never applied in part. " + SQL_NOTES + " "
              + epilog(REFUSALS)),
    Cmd("flashback", "one binlog file that undoes the row changes of the inputs",
        cmd_flashback, [
        IN_ORDER,
        Opt("-o", "--output", required=True, metavar="OUT",
            help="the inverted binlog to write (replaced only when the whole inversion "
                 "succeeds). Apply it with `mariadb-binlog OUT | mariadb` (or mysqlbinlog "
                 "and mysql)"),
        *RANGE,
        *FILTERS,
        PROGRESS,
    ], epilog="OUT starts with the first input's FORMAT_DESCRIPTION; each transaction keeps "
              "its table maps, its rows events are inverted (WRITE <-> DELETE, UPDATE images "
              "swapped, rows and events last first), transactions last first; GTIDs are "
              "dropped (MySQL) or replaced by BEGIN (MariaDB), so the server gives the "
              "undo its own; positions and checksums are computed. " + SQL_NOTES + " "
              + epilog(REFUSALS.replace("nothing is written", "OUT is left as it was"))),
]

"""``binlog-schema decode``: one JSON object (or text line) per event; the work is
:func:`binlog_schema.output.write.write_events` (and its worker processes,
:mod:`binlog_schema.output.parallel`)."""

from __future__ import annotations

import sys

from ..output.formats import DEFAULT, FORMATS, NAMES, help_text as format_help
from ..output.statuses import CLEAN, STOPPED, epilog, worst
from .arguments import (load_schema, progress_of, selection_of, usage_error,
                        where_used)
from .declare import Cmd, Opt
from .options import BINARY, FILES, FILTERS, PROGRESS, ROWS, SCHEMA, SKIP_ERRORS
from .values import event_types, position


def cmd_decode(args) -> int:
    from ..output.write import Output
    start, stop = args.start_position, args.stop_position
    if start is not None and stop is not None and stop <= start:
        usage_error("decode", f"--stop-position {stop} is not after --start-position {start}:"
                               " nothing would be read")
    selection = None   # (changes/selection.py imported only when a filter is given)
    if any(getattr(args, o.dest) for o in FILTERS):
        selection = selection_of(args, "decode")
    schema = None
    rows = args.rows or FORMATS[args.format].changes  # (rows implied: change records)
    if args.schema:
        if not rows:
            usage_error("decode", "--schema names the columns of decoded rows: give --rows "
                                   "too")
        from ..format.facts.codes import QUERY_EVENT, code_of
        if args.types is not None and QUERY_EVENT not in {code_of(t) for t in args.types}:
            usage_error("decode", "--schema follows the files' DDL (QUERY events): --types "
                                   "must include QUERY")
    if rows and (args.schema or args.types is None):
        # the schema history, on by default: the files' DDL replayed (from --schema)
        schema = load_schema(args.schema or (), args.files)
        if schema is None:
            return STOPPED
    matcher = None
    if selection is not None and selection.where is not None:   # (--where)
        from ..changes.row_match import RowMatcher
        matcher = RowMatcher(selection.where, selection, schema)
    out = Output()
    progress = progress_of(args, "decode")
    options = dict(fmt=args.format, rows=args.rows, binary=args.binary,
                   skip_errors=args.skip_errors)
    # a whole file: large ones are decoded by several processes (the same output; the
    # schema history followed by a first pass over the file's statements and table maps)
    whole = start is None and stop is None and args.types is None and selection is None
    if matcher is None:
        status = _decode_files(args, out, options, progress, whole, schema, selection, None)
    else:
        from ..changes.row_match import WhereError
        try:
            status = _decode_files(args, out, options, progress, whole, schema, selection,
                                   matcher)
        except WhereError as e:   # (--where: a table named by --table lacks a column)
            out.flush()
            usage_error("decode", str(e))
    out.flush()
    if progress is not None:
        progress.close()
    if matcher is not None:
        where_used(matcher, "decode")
    return status


def _decode_files(args, out, options, progress, whole, schema, selection, matcher) -> int:
    """The files of a decode command line, one after the other; the worst status."""
    from ..output.write import write_events
    status = CLEAN
    start = args.start_position
    for index, path in enumerate(args.files):
        if start and _past_end(path, start, out):
            status = worst(status, STOPPED)
            continue
        done = None
        extra = {} if progress is None else {"progress": progress}
        if schema is not None:
            extra.update(schema=schema, file_index=index)
        if whole:
            from ..output import parallel
            done = parallel.write_file(path, out, **options, **extra)
        if done is None:
            done = write_events(path, out, start=args.start_position,
                                stop=args.stop_position, types=args.types, **options, **extra,
                                selection=selection, matcher=matcher)
        if progress is not None:
            progress.file_done(path)
        status = worst(status, done)
    return status


def _past_end(path, start, out) -> bool:
    """Whether ``start`` is past the end of the file ``path`` (said on stderr; a file that
    cannot be looked at is the reader's to report)."""
    import os
    import stat
    try:
        st = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or start <= st.st_size:
        return False
    out.flush()
    print(f"{path}: --start-position {start} is past the end of the file ({st.st_size} "
          "bytes)", file=sys.stderr, flush=True)
    return True


SKIP_ERRORS_HELP = (
    "go on after damage, every byte accounted for: an event with an error keeps its header "
    "and bytes, the bytes no event owns become SKIPPED records and reading resumes at the "
    "next good event; one stderr line per problem, a summary line per file, exit 3 when "
    "anything was skipped or had an error. Without it: the good events before the first "
    "error, then one stderr line (file, offset, field, reason) and exit 1")

COMMANDS = [
    Cmd("decode", "one JSON object (or text line) per event", cmd_decode, [
        FILES,
        Opt("--format", choices=NAMES, default=DEFAULT, help=format_help()),
        Opt("--start-position", type=position, metavar="N",
            help="print the events that start at or after byte N (0 to 4: from the first "
                 "event). The FORMAT_DESCRIPTION before N is still read, for the context, "
                 "not printed (with --rows, a rows event whose TABLE_MAP is before N is "
                 "printed without its rows, and said on stderr: exit 3). N inside an event "
                 "is not an error: a stderr "
                 "note names that event and printing starts at the next one. N past the end "
                 "of the file: an error (exit 1)"),
        Opt("--stop-position", type=position, metavar="N",
            help="stop before the first event that starts at or after byte N: an event that "
                 "starts before N is printed whole, even when it ends after N (as "
                 "mysqlbinlog's --stop-position). Past the end of the file: read to the end"),
        Opt("--types", type=event_types, metavar="T,T,...",
            help="only events of these types: comma-separated names (TABLE_MAP_EVENT or "
                 "TABLE_MAP, WRITE_ROWS_EVENT, QUERY...) or codes (19); an unknown name is an "
                 "error that lists the known ones"),
        SKIP_ERRORS.but(help=SKIP_ERRORS_HELP),
        ROWS.but(
            help="add the typed row values to each rows event (decoded through the TABLE_MAP "
                 "in force; JSON-safe forms: see docs/decode.md)"),
        BINARY.but(help="how binary values are written with --rows: hex (default) or base64"),
        SCHEMA.but(
            help="with --rows: the schema at the start of the first file, as mysqldump "
                 "--no-data or SHOW CREATE TABLE statements (repeatable). The schema history "
                 "is on without it: the DDL of the files is replayed (into this schema, or "
                 "from nothing), and table maps without column names (MINIMAL metadata) get "
                 "its names, ENUM/SET members and primary key when they agree with it, "
                 "MariaDB's hi-res TIME/DATETIME/TIMESTAMP their precision. A disagreement "
                 "is a stderr line and a schema_error in the TABLE_MAP's line (the rows keep "
                 "@N names; with FULL metadata the map's names), exit 3; with --schema, a "
                 "table it does not have is a note (rows keep @N names)"),
        *FILTERS,
        PROGRESS,
    ], epilog=epilog("A rows event whose rows cannot be decoded keeps its line (a rows_error; "
                     "text: a '### rows not decoded' line) and is a stderr line naming the "
                     "file, offset, table, column and reason: 3, with or without "
                     "--skip-errors.")),
]

"""The ``binlog-schema`` command: argument parsing; the work is done by library functions
(:mod:`binlog_schema.serial.write`, :mod:`binlog_schema.roundtrip`, ...). Only the parser of
the command asked for is built, and only its modules are imported (start-up is paid once per
file a user runs it on)."""

from __future__ import annotations

import sys

from .serial.formats import DEFAULT, FORMATS, NAMES, help_text as format_help
from .statuses import CLEAN, DAMAGED, STOPPED, epilog, worst


def cmd_decode(args) -> int:
    from .serial.write import Output
    start, stop = args.start_position, args.stop_position
    if start is not None and stop is not None and stop <= start:
        _usage_error("decode", f"--stop-position {stop} is not after --start-position {start}:"
                               " nothing would be read")
    selection = None   # (model/selection.py imported only when a filter is given)
    if any(getattr(args, o.dest) for o in FILTERS):
        selection = _selection(args, "decode")
    schema = None
    rows = args.rows or FORMATS[args.format].changes  # (rows implied: change records)
    if args.schema:
        if not rows:
            _usage_error("decode", "--schema names the columns of decoded rows: give --rows "
                                   "too")
        from .mysql.codes import QUERY_EVENT, code_of
        if args.types is not None and QUERY_EVENT not in {code_of(t) for t in args.types}:
            _usage_error("decode", "--schema follows the files' DDL (QUERY events): --types "
                                   "must include QUERY")
    if rows and (args.schema or args.types is None):
        # the schema history, on by default: the files' DDL replayed (from --schema)
        schema = load_schema(args.schema or (), args.files)
        if schema is None:
            return STOPPED
    matcher = None
    if selection is not None and selection.where is not None:   # (--where)
        from .model.row_match import RowMatcher
        matcher = RowMatcher(selection.where, selection, schema)
    out = Output()
    progress = _progress(args, "decode")
    options = dict(fmt=args.format, rows=args.rows, binary=args.binary,
                   skip_errors=args.skip_errors)
    # a whole file: large ones are decoded by several processes (the same output; the
    # schema history followed by a first pass over the file's statements and table maps)
    whole = start is None and stop is None and args.types is None and selection is None
    if matcher is None:
        status = _decode_files(args, out, options, progress, whole, schema, selection, None)
    else:
        from .model.row_match import WhereError
        try:
            status = _decode_files(args, out, options, progress, whole, schema, selection,
                                   matcher)
        except WhereError as e:   # (--where: a table named by --table lacks a column)
            out.flush()
            _usage_error("decode", str(e))
    out.flush()
    if progress is not None:
        progress.close()
    if matcher is not None:
        _where_used(matcher, "decode")
    return status


def _decode_files(args, out, options, progress, whole, schema, selection, matcher) -> int:
    """The files of a decode command line, one after the other; the worst status."""
    from .serial.write import write_events
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
            from .serial import parallel
            done = parallel.write_file(path, out, **options, **extra)
        if done is None:
            done = write_events(path, out, start=args.start_position,
                                stop=args.stop_position, types=args.types, **options, **extra,
                                selection=selection, matcher=matcher)
        if progress is not None:
            progress.file_done(path)
        status = worst(status, done)
    return status


def _where_used(matcher, command: str) -> None:
    """A usage error when ``--where`` named columns no table of the input has."""
    from .model.row_match import WhereError
    try:
        matcher.check_used()
    except WhereError as e:
        _usage_error(command, str(e))


def cmd_sql(args) -> int:
    from .serial.sql_write import write_sql
    from .serial.write import Output
    selection = _selection(args, "sql")
    start, stop = _positions(args, "sql")
    schema = load_schema(args.schema or (), args.files)
    if schema is None:
        return STOPPED
    progress = _progress(args, "sql")
    try:
        return write_sql(args.files, Output(), selection, start=start, stop=stop,
                         schema=schema, flashback=args.flashback, progress=progress)
    finally:
        if progress is not None:
            progress.close()


def cmd_flashback(args) -> int:
    from .flashback_file import write_flashback
    selection = _selection(args, "flashback")
    start, stop = _positions(args, "flashback")
    schema = load_schema((), args.files)   # (the files' DDL: hi-res temporal precisions)
    if schema is None:
        return STOPPED
    progress = _progress(args, "flashback")
    try:
        return write_flashback(args.files, args.output, selection, start=start, stop=stop,
                               schema=schema, progress=progress)
    finally:
        if progress is not None:
            progress.close()


def load_schema(paths, files):
    """The :class:`~binlog_schema.schema.SchemaHistory` for ``files`` (see
    :func:`binlog_schema.schema.history.given_history`); None, said on stderr, when a
    ``--schema`` file cannot be read or holds DDL the history refuses."""
    from .schema import DDLError
    from .schema.history import given_history
    from .serial.write import os_problem
    try:
        return given_history(files, paths)
    except OSError as e:
        print(f"{e.filename}: {os_problem(e)}", file=sys.stderr, flush=True)
    except DDLError as e:
        print(str(e), file=sys.stderr, flush=True)
    return None


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


def cmd_stats(args) -> int:
    from .serial.stats_write import write_stats
    schema = None
    if args.schema:
        schema = load_schema(args.schema, args.files)
        if schema is None:
            return STOPPED
    matcher = None
    if args.where:
        from .model.row_match import RowMatcher, WhereError, parse_where
        try:
            matcher = RowMatcher(parse_where(args.where), None, schema)
        except WhereError as e:
            _usage_error("stats", str(e))
    from .model.row_match import WhereError
    try:
        return write_stats(args.files, fmt=args.format, html=args.html, top=args.top,
                           max_event_size=args.max_event_size, schema=schema,
                           matcher=matcher, progress=_progress(args, "stats"))
    except WhereError as e:
        _usage_error("stats", str(e))


def cmd_table_maps(args) -> int:
    from .serial.write import Output, write_table_maps
    out = Output()
    status = CLEAN
    for path in args.files:
        status = worst(status, write_table_maps(path, out, skip_errors=args.skip_errors))
    out.flush()
    return status


def cmd_roundtrip(args) -> int:
    from .errors import BinlogError
    from .roundtrip import roundtrip_file
    totals = {"files": 0, "events": 0, "identical": 0, "differ": 0, "failed": 0, "tails": 0}
    status = CLEAN
    progress = _progress(args, "roundtrip")
    for path in args.files:
        try:
            r = roundtrip_file(path, rows=not args.no_rows, skip_errors=args.skip_errors,
                               **({} if progress is None else {"watch": progress.watch}))
            if progress is not None:
                progress.file_done(path)
        except (OSError, BinlogError) as e:  # (unreadable, or not a binlog at all)
            from .serial.write import os_problem
            print(f"{path}: {os_problem(e) if isinstance(e, OSError) else e}",
                  file=sys.stderr, flush=True)
            status = STOPPED
            continue
        status = worst(status, _roundtrip_problems(path, r, args.skip_errors))
        totals["files"] += 1
        totals["events"] += r["events"]
        totals["identical"] += r["identical"]
        totals["differ"] += len(r["differ"])
        totals["failed"] += len(r["failed"])
        line = f"{path}: events {r['events']}, identical {r['identical']}"
        if r.get("encrypted"):
            line += f" ({r['encrypted']} encrypted, kept as bytes)"
        if r["rows"] or r["rows_failed"]:
            line += f", rows {r['rows']}, rows identical {r['rows_identical']}"
            totals["rows"] = totals.get("rows", 0) + r["rows"]
            totals["rows_identical"] = totals.get("rows_identical", 0) + r["rows_identical"]
        if r["rows_failed"]:
            f = r["rows_failed"][0]
            totals["rows_failed"] = totals.get("rows_failed", 0) + len(r["rows_failed"])
            line += (f", rows not decodable in {len(r['rows_failed'])} events (first: at "
                     f"{f['offset']}: {f['error']})")
        if r["differ"]:
            d = r["differ"][0]
            line += (f", DIFFER {len(r['differ'])} (first: event at {d['offset']} {d['type']}, "
                     f"byte {d['byte']}, field {d['path']})")
        if r["failed"]:
            f = r["failed"][0]
            line += f", FAILED {len(r['failed'])} (first: at {f['offset']}: {f['error']})"
        if r["flagged"]:
            line += f", {r['flagged']} corrupt (kept raw, flagged)"
        if r["skipped"]:
            k = r["skipped"][0]
            totals["skipped"] = totals.get("skipped", 0) + sum(x["size"] for x in r["skipped"])
            line += (f", SKIPPED {sum(x['size'] for x in r['skipped'])} bytes in "
                     f"{len(r['skipped'])} ranges (first: at {k['offset']}: {k['error']})")
        if r["tail"]:
            totals["tails"] += 1
            t = r["tail"]
            line += (f", truncated tail at {t['offset']} ({t['have']} bytes"
                     + (f" of {t['need']}" if t["need"] is not None else "") + ")")
        print(line, flush=True)
    if progress is not None:
        progress.close()
    print(f"total: {totals['files']} files, events {totals['events']}, identical "
          f"{totals['identical']}, differ {totals['differ']}, failed {totals['failed']}, "
          f"truncated tails {totals['tails']}, rows {totals.get('rows', 0)}, rows identical "
          f"{totals.get('rows_identical', 0)}, rows not decodable in "
          f"{totals.get('rows_failed', 0)} events"
          + (f", bytes skipped {totals['skipped']}" if totals.get("skipped") else ""))
    return status


def _roundtrip_problems(path, r, skip_errors: bool) -> int:
    """The stderr lines of one file's roundtrip (each event that fails or differs, each rows
    event whose rows are not decodable, each range skipped, a cut last event) and its status:
    without ``skip_errors`` an event that fails or differs, or a cut, is 1; with it, 3;
    rows not decodable and ranges skipped are 3."""
    lines, status = [], CLEAN
    for f in r["failed"]:
        lines.append(f"{path}: event at {f['offset']} does not parse: {f['error']}")
    for d in r["differ"]:
        lines.append(f"{path}: {d['type']} at {d['offset']} rebuilds differently: byte "
                     f"{d['byte']}, field {d['path']}")
    if r["failed"] or r["differ"]:
        status = DAMAGED if skip_errors else STOPPED
    for f in r["rows_failed"]:
        lines.append(f"{path}: {f['error']}")
    for k in r["skipped"]:
        lines.append(f"{path}: skipped bytes {k['offset']} to {k['offset'] + k['size']} "
                     f"({k['size']} bytes): {k['error']}")
    if r["rows_failed"] or r["skipped"]:
        status = worst(status, DAMAGED)
    t = r["tail"]
    if t is not None and t["need"] is None:
        # (fewer bytes than an event header after the last whole event: no event to compare,
        # the verdict is the events'; said, and with --skip-errors a range skipped: 3)
        lines.append(f"{path}: the file ends {t['have']} bytes into an event header at "
                     f"{t['offset']}: no event there to compare")
        if skip_errors:
            status = worst(status, DAMAGED)
    elif t is not None:
        lines.append(f"{path}: truncated last event at {t['offset']} ({t['have']} bytes"
                     f" of {t['need']})")
        status = worst(status, DAMAGED if skip_errors else STOPPED)
    for line in lines:
        print(line, file=sys.stderr)
    sys.stderr.flush()
    return status


def cmd_build_table_map(args) -> int:
    import json
    from .errors import BinlogError
    from .model.table_map import TableMap
    status = CLEAN
    for name, lines in _inputs(args.files):
        if lines is None:
            status = STOPPED
            continue
        for n, line in enumerate(lines, 1):
            where = f"line {n}" if name is None else f"{name}, line {n}"
            try:
                text = line.decode("utf-8")
                if not text.strip():
                    continue
                doc = json.loads(text)
                if not isinstance(doc, dict):
                    raise TypeError(f"a JSON {type(doc).__name__}, expected an object (one "
                                    "line of table-maps)")
                print(TableMap.from_dict(doc).to_bytes().hex())
            except (BinlogError, KeyError, TypeError, ValueError, AttributeError,
                    IndexError) as e:
                print(f"{where}: cannot build: {type(e).__name__}: {e}", file=sys.stderr)
                print("")
                status = worst(status, DAMAGED)
    return status


def _inputs(files):
    """(name, lines as bytes) of each file of ``files`` (None: stdin); lines None, said on
    stderr, for a file that cannot be read."""
    if not files:
        if sys.stdin.isatty():
            print("build-table-map: reading table-maps JSON Lines from stdin (end with "
                  "Ctrl-D)", file=sys.stderr, flush=True)
        yield None, sys.stdin.buffer
        return
    from .serial.write import os_problem
    for path in files:
        try:
            with open(path, "rb") as f:
                yield path, f
        except OSError as e:
            print(f"{path}: {os_problem(e)}", file=sys.stderr, flush=True)
            yield path, None


# ------------------------------------------------------------------------------ validate


def cmd_validate(args) -> int:
    import os
    from .vectors import summary, validate
    root = args.dir or "specs"
    if not os.path.exists(root):
        if args.dir is None:
            print("no such folder: specs (validate reads the YAML vectors under DIR, default "
                  "./specs)", file=sys.stderr)
        elif root.endswith((".yaml", ".yml", ".ddl")):
            print(f"no such file: {root}", file=sys.stderr)
        else:
            print(f"no such file or folder: {root}", file=sys.stderr)
        return STOPPED
    results = validate(root)
    failed = [r for r in results if not r.ok]
    for r in failed:
        where = r.file if r.line is None else f"{r.file}, line {r.line}"
        if not r.name:  # (the file itself: not YAML, or not vectors)
            print(f"FAIL {where}: {'; '.join(r.problems)}")
            continue
        print(f"FAIL {where} [{r.name}]")
        for p in r.problems:
            print(f"    {p}")
    if not results:
        print(f"no vectors in {root} (validate reads the *.yaml, *.yml and *.ddl files under "
              "it)", file=sys.stderr)
        return STOPPED
    print(summary(results))
    return STOPPED if failed else CLEAN


# ------------------------------------------------------------------------------ options


def _bad_value(message):
    import argparse  # (only on this path: the fast start of common lines does without it)
    return argparse.ArgumentTypeError(message)


def _types(text):
    """``--types``: names (with or without ``_EVENT``) or codes, comma-separated."""
    from .mysql.codes import code_of
    out = []
    for t in (t.strip() for t in text.split(",")):
        if not t:
            continue
        if t.isdigit():
            if int(t) > 255:
                raise _bad_value(f"{t}: an event type code is 0 to 255")
            out.append(int(t))
            continue
        try:
            code_of(t)
        except KeyError:
            from .stream import type_names
            raise _bad_value(f"unknown event type {t!r}; known types (or their codes): "
                             f"{', '.join(type_names())}") from None
        out.append(t)
    if not out:
        raise _bad_value("no event type given (comma-separated names or codes)")
    return out


def _position(text):
    """A byte position: a whole number from 0."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise _bad_value(f"{text!r}: a byte position is a whole number from 0")
    return n


def _count(text):
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise _bad_value(f"{text!r}: a whole number from 0")
    return n


def _byte_count(text) -> int:
    """A size: bytes, or a number with k, m or g (8m, 512k, 1g), as a number of bytes."""
    import re
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*", str(text), re.I)
    n = 0 if not m else int(float(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20,
                                                   "g": 1 << 30}[m.group(2).lower()])
    if n < 1:
        raise _bad_value(f"{text!r}: a size in bytes, or with k, m or g (8m, 512k, 1g)")
    return n


class Opt:
    """One argument of a command, declared once: the argparse parser is built from it, and so
    is the fast scan of common command lines (no argparse import, which costs about 10 ms of
    start-up, for ``decode FILE``-like invocations)."""

    __slots__ = ("names", "kw")

    def __init__(self, *names, **kw):
        self.names, self.kw = names, kw

    @property
    def dest(self) -> str:
        return self.kw.get("dest") or self.names[-1].lstrip("-").replace("-", "_")

    @property
    def flag(self) -> bool:
        return self.kw.get("action") == "store_true"

    @property
    def positional(self) -> bool:
        return not self.names[0].startswith("-")


class Cmd:
    __slots__ = ("name", "help", "func", "opts", "epilog")

    def __init__(self, name, help, func, opts, epilog=None):
        self.name, self.help, self.func, self.opts = name, help, func, opts
        self.epilog = epilog


FILES_HELP = ("binlog or relay-log files (not directories: give the files in one, e.g. "
              "DIR/binlog.0*)")
SKIP_ERRORS_HELP = (
    "go on after damage, every byte accounted for: an event with an error keeps its header "
    "and bytes, the bytes no event owns become SKIPPED records and reading resumes at the "
    "next good event; one stderr line per problem, a summary line per file, exit 3 when "
    "anything was skipped or had an error. Without it: the good events before the first "
    "error, then one stderr line (file, offset, field, reason) and exit 1")

def _selection(args, command: str):
    """The :class:`~binlog_schema.model.selection.Selection` of a command line's filters
    (a wrong one: a usage error naming the option)."""
    from .model.selection import Selection, SelectionError
    try:
        return Selection.from_options(
            start_datetime=args.start_datetime, stop_datetime=args.stop_datetime,
            database=args.database, table=args.table, gtid=args.gtid,
            operation=args.operation, thread_id=args.thread_id,
            where=getattr(args, "where", None))
    except SelectionError as e:
        _usage_error(command, str(e))


def _positions(args, command: str):
    start, stop = args.start_position, args.stop_position
    if start is not None and stop is not None and stop <= start and len(args.files) == 1:
        _usage_error(command, f"--stop-position {stop} is not after --start-position {start}:"
                              " nothing would be read")
    return start, stop


WHERE_HELP = (
    "a row's history: only the row changes whose before or after image has COLUMN=VALUE "
    "(several joined by AND, or --where repeated; VALUE typed by the column: integers, "
    "decimals, strings in their charset, compared exactly, ENUM, SET, dates and times; "
    "quoted with ' or \"; NULL or COL IS NULL). Rows events of tables without the columns "
    "are passed over undecoded; a table named by --table that lacks one, or no table with "
    "them in the input, is a usage error (model/row_match.py)")
# the progress line of long commands (serial/progress.py)
PROGRESS = Opt("--progress", action="store_true",
               help="show the progress line (bytes read of the total, rate, time left) on "
                    "stderr even when it is not a terminal; on a terminal it is shown for "
                    "inputs of 16 MiB and more")


def _progress(args, what: str):
    """The :class:`~binlog_schema.serial.progress.Progress` of a command line, or None."""
    asked = getattr(args, "progress", False)
    if not asked and not sys.stderr.isatty():
        return None   # (the module not even imported)
    from .serial.progress import progress_for
    return progress_for(args.files, asked, what)


# the filters decode, sql and flashback share (model/selection.py)
FILTERS = [
    Opt("--start-datetime", metavar="TIME",
        help="only transactions that begin at or after TIME (YYYY-MM-DD HH:MM:SS, UTC unless "
             "an offset such as +02:00 follows; decode: events at or after it)"),
    Opt("--stop-datetime", metavar="TIME",
        help="only transactions that begin before TIME (decode: events before it)"),
    Opt("--database", action="append", metavar="DB",
        help="only changes of tables of DB (repeatable)"),
    Opt("--table", action="append", metavar="DB.TABLE",
        help="only changes of these tables (repeatable; shell globs: shop.order_*, *.users; "
             "a name without a dot: that table in any database)"),
    Opt("--gtid", action="append", metavar="SET",
        help="only transactions whose GTID is in SET: MySQL uuid:1-5:7,uuid2:3 (tagged "
             "uuid:tag:N), MariaDB domain-server-seq or domain-server-seq1-seq2 "
             "(comma-separated, repeatable)"),
    Opt("--operation", metavar="OPS",
        help="only these row operations: insert,update,delete (comma-separated)"),
    Opt("--thread-id", action="append", metavar="N",
        help="only transactions whose BEGIN query ran in thread N (repeatable; MariaDB row "
             "transactions begin with a GTID event, which carries no thread: none match)"),
    Opt("--where", action="append", metavar="COND",
        help=WHERE_HELP),
]
# the byte range of sql and flashback: in the first and the last file, as mysqlbinlog
RANGE = [
    Opt("--start-position", type=_position, metavar="N",
        help="start at byte N of the first file (as mysqlbinlog)"),
    Opt("--stop-position", type=_position, metavar="N",
        help="stop before the first event at or after byte N of the last file"),
]
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

SPECS = [
    Cmd("decode", "one JSON object (or text line) per event", cmd_decode, [
        Opt("files", nargs="+", metavar="FILE", help=FILES_HELP),
        Opt("--format", choices=NAMES, default=DEFAULT, help=format_help()),
        Opt("--start-position", type=_position, metavar="N",
            help="print the events that start at or after byte N (0 to 4: from the first "
                 "event). The FORMAT_DESCRIPTION before N is still read, for the context, "
                 "not printed (with --rows, a rows event whose TABLE_MAP is before N is "
                 "printed without its rows, and said on stderr: exit 3). N inside an event "
                 "is not an error: a stderr "
                 "note names that event and printing starts at the next one. N past the end "
                 "of the file: an error (exit 1)"),
        Opt("--stop-position", type=_position, metavar="N",
            help="stop before the first event that starts at or after byte N: an event that "
                 "starts before N is printed whole, even when it ends after N (as "
                 "mysqlbinlog's --stop-position). Past the end of the file: read to the end"),
        Opt("--types", type=_types, metavar="T,T,...",
            help="only events of these types: comma-separated names (TABLE_MAP_EVENT or "
                 "TABLE_MAP, WRITE_ROWS_EVENT, QUERY...) or codes (19); an unknown name is an "
                 "error that lists the known ones"),
        Opt("--skip-errors", action="store_true", help=SKIP_ERRORS_HELP),
        Opt("--rows", action="store_true",
            help="add the typed row values to each rows event (decoded through the TABLE_MAP "
                 "in force; JSON-safe forms: see docs/decode.md)"),
        Opt("--binary", choices=("hex", "base64"), default="hex",
            help="how binary values are written with --rows: hex (default) or base64"),
        Opt("--schema", action="append", metavar="FILE",
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
    Cmd("sql", "row changes as SQL statements (or, with --flashback, the SQL that undoes "
               "them)", cmd_sql, [
        Opt("files", nargs="+", metavar="FILE", help=FILES_HELP + "; in binlog order"),
        Opt("--flashback", action="store_true",
            help="the inverse: deletes for inserts, inserts for deletes, updates back to the "
                 "before image; transactions and statements last first. The files are read "
                 "backwards by transaction (memory does not grow with them). Refused: a "
                 "statement-based change, a MINIMAL or NOBLOB image that lacks a needed column "
                 "(named), a transaction cut by the end of its file; a schema change in the "
                 "range ends the range before it (exit 3)"),
        *RANGE,
        Opt("--schema", action="append", metavar="FILE",
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
        Opt("files", nargs="+", metavar="FILE", help=FILES_HELP + "; in binlog order"),
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
    Cmd("roundtrip", "parse and rebuild every event, compare bytes", cmd_roundtrip, [
        Opt("files", nargs="+", metavar="FILE", help=FILES_HELP),
        Opt("--no-rows", action="store_true",
            help="do not decode and rebuild row images (events only)"),
        Opt("--skip-errors", action="store_true",
            help="read with recovery: ranges that are no event's are reported as SKIPPED "
                 "(exit 3 when anything was skipped, failed or differs). Without it an event "
                 "that fails or differs is counted (exit 1) and reading goes on while the "
                 "framing holds"),
        PROGRESS,
    ], epilog=epilog("An event that does not parse or rebuilds differently, or a last "
                     "event cut short: 1 (3 with --skip-errors); a rows event whose rows "
                     "cannot be decoded: 3 (not counted as identical), a stderr line each. A "
                     "file that ends inside an event header (fewer than 19 bytes after its "
                     "last whole event) holds no event to compare there: a stderr line, the "
                     "status the events give.")),
    Cmd("stats", "what the files hold: tables, transactions, events, GTIDs, time (a table, "
                 "JSON, an HTML report)", cmd_stats, [
        Opt("files", nargs="+", metavar="FILE", help=FILES_HELP + "; in binlog order"),
        Opt("--format", choices=("table", "json"), default="table",
            help="table (default): sections of aligned columns, 100 characters wide; json: "
                 "every figure, with the keys docs/insight.md documents"),
        Opt("--html", metavar="FILE",
            help="also write a report page to FILE: charts of writes per table over time, "
                 "transaction sizes and durations, top tables and transactions; one "
                 "self-contained file (its charting library inlined: nothing is loaded from "
                 "the network)"),
        Opt("--top", type=_count, default=10, metavar="N",
            help="how many of the largest and longest transactions (and, in the table, of "
                 "the tables) are named (default 10)"),
        Opt("--max-event-size", type=_byte_count, default=16 << 20, metavar="SIZE",
            help="events larger than SIZE are listed (default 16m, the servers' default "
                 "max_allowed_packet; bytes, or with k, m or g)"),
        Opt("--schema", action="append", metavar="FILE",
            help="the schema at the start of the first file, as for decode (column names "
                 "for --where with MINIMAL metadata)"),
        Opt("--where", action="append", metavar="COND",
            help=WHERE_HELP + "; the figures count the matching row changes and the "
                 "transactions that hold one"),
        PROGRESS,
    ], epilog="Rows are counted, not decoded: a file is read at decode's speed. Figures "
              "count what can be read: a file damaged or cut short is read again with "
              "recovery, each byte range skipped and each event not decoded is a stderr "
              "line and is listed in the output. " + epilog(
                  "3 when something was skipped or not decoded (the figures count the "
                  "rest); 1 for a file that cannot be used (no figures from it) or a "
                  "report page that cannot be written.")),
    Cmd("table-maps", "one typed JSON object per TABLE_MAP", cmd_table_maps, [
        Opt("files", nargs="+", metavar="FILE", help=FILES_HELP),
        Opt("--skip-errors", action="store_true",
            help="go on after damage (reading with recovery); one stderr line per problem, "
                 "a summary per file, exit 3 when anything was skipped or had an error. "
                 "Without it: reading stops at the first error, said on stderr (exit 1)"),
    ], epilog=epilog()),
    Cmd("build-table-map", "table-maps JSON Lines -> TABLE_MAP event hex", cmd_build_table_map,
        [Opt("files", nargs="*", metavar="FILE",
             help="JSON Lines files (default: stdin): one table-maps object per line, as "
                  "`binlog-schema table-maps` writes them (edited or not); each gives one "
                  "line of hex, the TABLE_MAP event's bytes. A line that cannot be built "
                  "gives an empty line (the output stays line for line) and a stderr line "
                  "naming it; exit 3 then")],
        epilog="example: binlog-schema table-maps binlog.000001 | binlog-schema "
               "build-table-map. " + epilog("A line that cannot be built: 3 (an empty line "
                                             "in its place, a stderr line naming it).")),
    Cmd("validate", "check the golden vectors both ways", cmd_validate, [
        Opt("dir", nargs="?", default=None, metavar="DIR",
            help="a vector file, or a folder whose *.yaml and *.yml files (event vectors) "
                 "and *.ddl files (DDL vectors) are read recursively (default: ./specs, the "
                 "folder of the repository's vectors)"),
    ], epilog="Each event vector is checked both ways: its hex parses to its expect (or its "
              "error), and expect builds to its hex. Each DDL vector's statements are "
              "replayed into the schema history, which must leave its expected tables (a "
              "failure names the table, field or column that differs). The last line counts "
              "the vectors passed and failed (and each kind when there are DDL vectors). A "
              "file that is not YAML, or a document that is "
              "not a vector, is one FAIL line naming the file and line; the other files are "
              "still checked. " + epilog("1 also when a vector fails (a FAIL line), a file is "
                                          "not vectors, or none is found.")),
]
SPEC_OF = {c.name: c for c in SPECS}


def _add(sub, cmd: Cmd):
    p = sub.add_parser(cmd.name, help=cmd.help, description=cmd.help, epilog=cmd.epilog)
    for opt in cmd.opts:
        p.add_argument(*opt.names, **opt.kw)
    p.set_defaults(func=cmd.func)


class _Args:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def fast_args(argv):
    """The parsed arguments of a plain command line of a declared command, or None when the
    line needs argparse (help, abbreviations, ``--``, a missing value, anything unusual: then
    argparse parses it, and reports errors, from the same declarations)."""
    if not argv or argv[0] not in SPEC_OF:
        return None
    cmd = SPEC_OF[argv[0]]
    options = {n: o for o in cmd.opts if not o.positional for n in o.names}
    values = {o.dest: False if o.flag else o.kw.get("default") for o in cmd.opts}
    loose = []
    it = iter(argv[1:])
    for arg in it:
        if arg.startswith("-") and arg != "-":
            name, eq, text = arg.partition("=")
            opt = options.get(name)
            if opt is None:
                return None
            if opt.flag:
                if eq:
                    return None
                values[opt.dest] = True
                continue
            if not eq:
                text = next(it, None)
                if text is None or (text.startswith("-") and text != "-"):
                    return None
            convert = opt.kw.get("type")
            try:
                value = convert(text) if convert else text
            except Exception:  # noqa: BLE001 - argparse parses it again and says what is wrong
                return None
            if "choices" in opt.kw and value not in opt.kw["choices"]:
                return None
            if opt.kw.get("action") == "append":  # (a repeatable option: a list)
                value = (values[opt.dest] or []) + [value]
            values[opt.dest] = value
        else:
            loose.append(arg)
    for opt in (o for o in cmd.opts if o.positional):
        nargs = opt.kw.get("nargs")
        if nargs in ("+", "*"):
            if not loose and nargs == "+":
                return None
            values[opt.dest], loose = loose, []
        elif nargs == "?":
            if loose:
                values[opt.dest] = loose.pop(0)
        else:
            if not loose:
                return None
            values[opt.dest] = loose.pop(0)
    if loose:
        return None
    return _Args(command=cmd.name, func=cmd.func, **values)


def _add_fixtures(sub):
    from .synthetic import cli as fixtures_cli
    fixtures_cli.register(sub)


def _add_stream(sub):
    from .replication import stream_command
    stream_command.register(sub)
    p = sub.choices["stream"]
    for opt in FILTERS:   # (decode's filters; --gtid is the stream's start there)
        if opt.dest != "gtid":
            p.add_argument(*opt.names, **opt.kw)


def _add_serve(sub):
    from .replication import serve_command
    serve_command.register(sub)


def _add_spark(sub):
    from .pipeline import commands as spark_commands
    spark_commands.register(sub)
    _check_spark_values(sub.choices["spark"])


def _subparsers(parser) -> dict:
    import argparse
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices
    return {}


def _check_spark_values(spark):
    """Values of ``spark`` options checked as they are parsed (a usage error, not a
    traceback once Spark has started): sizes and counts."""
    checks = {"split_size": _size, "files": _count, "transactions": _count}
    for parser in _subparsers(spark).values():
        for action in parser._actions:
            if action.dest in checks and action.option_strings:
                action.type = checks[action.dest]


def _size(text):
    """``--split-size``: bytes, or a number with k, m or g (checked; kept as given)."""
    _byte_count(text)
    return text





COMMANDS = {**{c.name: (lambda sub, c=c: _add(sub, c)) for c in SPECS},
            "fixtures": _add_fixtures, "spark": _add_spark, "stream": _add_stream,
            "serve": _add_serve}


def version() -> str:
    """The installed package's version (its metadata; imported only when asked for)."""
    from importlib.metadata import PackageNotFoundError, version as of
    try:
        return of("binlog-schema")
    except PackageNotFoundError:
        return "unknown (not installed: run from a source tree)"


def build_parser(only: str | None = None):
    """The argument parser: every command, or only ``only`` (the one the user asked for)."""
    import argparse

    class Version(argparse.Action):  # (the version looked up only when --version is given)
        def __call__(self, parser, namespace, values, option_string=None):
            print(f"binlog-schema {version()}")
            parser.exit()

    p = argparse.ArgumentParser(prog="binlog-schema",
                                description="MySQL/MariaDB binary logs, declared once.",
                                epilog="binlog-schema COMMAND --help: that command's options "
                                       "and exit statuses")
    p.add_argument("--version", action=Version, nargs=0, default=argparse.SUPPRESS,
                   help="print the version and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, add in COMMANDS.items():
        if only is None or name == only:
            add(sub)
    return p


def _usage_error(command: str, message: str):
    """Exit as argparse does for a wrong command line (status 2), with the usage of
    ``command``."""
    _subparsers(build_parser(command))[command].error(message)


def main(argv=None) -> int:
    import gc
    gc.freeze()  # what start-up made (modules, classes) is never garbage: not scanned again
    argv = sys.argv[1:] if argv is None else list(argv)
    args = fast_args(argv)
    if args is None:
        only = argv[0] if argv and argv[0] in COMMANDS else None
        args = build_parser(only).parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:   # (the reader of the output left: what it read was whole)
        return CLEAN
    except KeyboardInterrupt:  # (Ctrl-C: the usual status, no traceback)
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

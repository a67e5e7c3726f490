"""``binlog-schema stats``: what the files hold (tables, transactions, events, GTIDs, time),
as a table, JSON or an HTML report (:func:`binlog_schema.output.stats_write.write_stats`);
its figures' options, which ``spark stats`` shares."""

from __future__ import annotations

from ..changes.stats import DEFAULT_MAX_EVENT_SIZE, DEFAULT_TOP
from ..output.statuses import STOPPED, epilog
from .arguments import load_schema, progress_of, usage_error
from .declare import Cmd, Opt
from .options import IN_ORDER, PROGRESS, SCHEMA, WHERE, WHERE_HELP
from .values import byte_count, count


def cmd_stats(args) -> int:
    from ..output.stats_write import write_stats
    schema = None
    if args.schema:
        schema = load_schema(args.schema, args.files)
        if schema is None:
            return STOPPED
    matcher = None
    if args.where:
        from ..changes.row_match import RowMatcher, WhereError, parse_where
        try:
            matcher = RowMatcher(parse_where(args.where), None, schema)
        except WhereError as e:
            usage_error("stats", str(e))
    from ..changes.row_match import WhereError
    try:
        return write_stats(args.files, fmt=args.format, html=args.html, top=args.top,
                           max_event_size=args.max_event_size, schema=schema,
                           matcher=matcher, progress=progress_of(args, "stats"))
    except WhereError as e:
        usage_error("stats", str(e))


# the figures' options, stats' and spark stats' (with their own help)
FORMAT = Opt("--format", choices=("table", "json"), default="table")
HTML = Opt("--html", metavar="FILE")
TOP = Opt("--top", type=count, default=DEFAULT_TOP, metavar="N")
MAX_EVENT_SIZE = Opt("--max-event-size", type=byte_count, default=DEFAULT_MAX_EVENT_SIZE,
                     metavar="SIZE")

COMMANDS = [
    Cmd("stats", "what the files hold: tables, transactions, events, GTIDs, time (a table, "
                 "JSON, an HTML report)", cmd_stats, [
        IN_ORDER,
        FORMAT.but(help="table (default): sections of aligned columns, 100 characters wide; "
                        "json: every figure, with the keys docs/insight.md documents"),
        HTML.but(help="also write a report page to FILE: charts of writes per table over "
                      "time, transaction sizes and durations, top tables and transactions; one "
                      "self-contained file (its charting library inlined: nothing is loaded "
                      "from the network)"),
        TOP.but(help="how many of the largest and longest transactions (and, in the table, "
                     f"of the tables) are named (default {DEFAULT_TOP})"),
        MAX_EVENT_SIZE.but(help="events larger than SIZE are listed (default 16m, the "
                                "servers' default max_allowed_packet; bytes, or with k, m or "
                                "g)"),
        SCHEMA.but(
            help="the schema at the start of the first file, as for decode (column names "
                 "for --where with MINIMAL metadata)"),
        WHERE.but(
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
]

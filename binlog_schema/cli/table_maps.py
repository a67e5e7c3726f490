"""``binlog-schema table-maps`` (one typed JSON object per TABLE_MAP:
:func:`binlog_schema.output.write.write_table_maps`) and ``binlog-schema build-table-map``
(those objects back to TABLE_MAP events: :class:`binlog_schema.changes.table_map.TableMap`)."""

from __future__ import annotations

import sys

from ..output.statuses import CLEAN, DAMAGED, STOPPED, epilog, worst
from .declare import Cmd, Opt
from .options import FILES, SKIP_ERRORS


def cmd_table_maps(args) -> int:
    from ..output.write import Output, write_table_maps
    out = Output()
    status = CLEAN
    for path in args.files:
        status = worst(status, write_table_maps(path, out, skip_errors=args.skip_errors))
    out.flush()
    return status


def cmd_build_table_map(args) -> int:
    import json
    from ..format.errors import BinlogError
    from ..changes.table_map import TableMap
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
    from ..output.write import os_problem
    for path in files:
        try:
            with open(path, "rb") as f:
                yield path, f
        except OSError as e:
            print(f"{path}: {os_problem(e)}", file=sys.stderr, flush=True)
            yield path, None


COMMANDS = [
    Cmd("table-maps", "one typed JSON object per TABLE_MAP", cmd_table_maps, [
        FILES,
        SKIP_ERRORS.but(
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
]

"""The ``binlog-schema`` command: argument parsing; the work is done by library functions
(:mod:`binlog_schema.serial.write`, :mod:`binlog_schema.roundtrip`, ...). Only the parser of
the command asked for is built, and only its modules are imported (start-up is paid once per
file a user runs it on)."""

from __future__ import annotations

import sys


STATUSES = """exit status: 0 every file read cleanly; 1 a file could not be read, or (without
--skip-errors) reading stopped at its first error, said on stderr with the file, offset, field
and reason; 3 (with --skip-errors) something was skipped or had an error: each said on stderr,
with a summary line per file."""


def worst(a: int, b: int) -> int:
    """The status of two files' statuses: 1 (a file unread or stopped) over 3 (damage gone
    round) over 0."""
    return 1 if 1 in (a, b) else max(a, b)


def cmd_decode(args) -> int:
    from .serial.write import Output, write_events
    out = Output()
    status = 0
    options = dict(fmt=args.format, rows=args.rows, binary=args.binary,
                   skip_errors=args.skip_errors)
    # a whole file: large ones are decoded by several processes (the same output)
    whole = args.start_position is None and args.stop_position is None and args.types is None
    for path in args.files:
        done = None
        if whole:
            from .serial import parallel
            done = parallel.write_file(path, out, **options)
        if done is None:
            done = write_events(path, out, start=args.start_position,
                                stop=args.stop_position, types=args.types, **options)
        status = worst(status, done)
    out.flush()
    return status


def cmd_table_maps(args) -> int:
    from .serial.write import Output, write_table_maps
    out = Output()
    status = 0
    for path in args.files:
        status = worst(status, write_table_maps(path, out, skip_errors=args.skip_errors))
    out.flush()
    return status


def cmd_roundtrip(args) -> int:
    from .roundtrip import roundtrip_file
    totals = {"files": 0, "events": 0, "identical": 0, "differ": 0, "failed": 0, "tails": 0}
    status = 0
    for path in args.files:
        try:
            r = roundtrip_file(path, rows=not args.no_rows, skip_errors=args.skip_errors)
        except OSError as e:
            print(f"{path}: {e.strerror or e}", file=sys.stderr, flush=True)
            status = 1
            continue
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
    print(f"total: {totals['files']} files, events {totals['events']}, identical "
          f"{totals['identical']}, differ {totals['differ']}, failed {totals['failed']}, "
          f"truncated tails {totals['tails']}, rows {totals.get('rows', 0)}, rows identical "
          f"{totals.get('rows_identical', 0)}, rows not decodable in "
          f"{totals.get('rows_failed', 0)} events"
          + (f", bytes skipped {totals['skipped']}" if totals.get("skipped") else ""))
    if totals["differ"] or totals["failed"]:
        status = worst(status, 3 if args.skip_errors else 1)
    elif totals.get("skipped"):
        status = worst(status, 3)
    return status


def cmd_build_table_map(args) -> int:
    import json
    from .errors import BinlogError
    from .model.table_map import TableMap
    status = 0
    for n, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            print(TableMap.from_dict(json.loads(line)).to_bytes().hex())
        except (BinlogError, KeyError, TypeError, ValueError) as e:
            print(f"line {n}: cannot build: {type(e).__name__}: {e}", file=sys.stderr)
            print("")
            status = 1
    return status


# ------------------------------------------------------------------------------ validate


def cmd_validate(args) -> int:
    from .vectors import validate
    results = validate(args.dir)
    failed = [r for r in results if not r.ok]
    for r in failed:
        print(f"FAIL {r.file} [{r.name}]")
        for p in r.problems:
            print(f"    {p}")
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not results else 0


# ------------------------------------------------------------------------------ options


def _types(text):
    return [int(t) if t.isdigit() else t for t in text.split(",") if t]


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


SPECS = [
    Cmd("decode", "one JSON object (or text line) per event", cmd_decode, [
        Opt("files", nargs="+"),
        Opt("--format", choices=("jsonl", "text"), default="jsonl"),
        Opt("--start-position", type=int),
        Opt("--stop-position", type=int),
        Opt("--types", type=_types, help="comma-separated type names or codes"),
        Opt("--skip-errors", action="store_true",
            help="go on after damage: every byte accounted for (an event with an error keeps "
                 "its header and bytes; bytes no event owns become SKIPPED records, reading "
                 "resumes at the next good event); one stderr line per problem, a summary "
                 "per file, exit 3 when anything was skipped or had an error"),
        Opt("--rows", action="store_true", help="add the typed row values to each rows event"),
        Opt("--binary", choices=("hex", "base64"), default="hex",
            help="how binary values are written (with --rows)"),
    ], epilog=STATUSES),
    Cmd("roundtrip", "parse and rebuild every event, compare bytes", cmd_roundtrip, [
        Opt("files", nargs="+"),
        Opt("--no-rows", action="store_true",
            help="do not decode and rebuild row images (events only)"),
        Opt("--skip-errors", action="store_true",
            help="read with recovery: ranges that are no event's are reported as SKIPPED "
                 "(exit 3 when anything was skipped, failed or differs)"),
    ], epilog=STATUSES),
    Cmd("table-maps", "one typed JSON object per TABLE_MAP", cmd_table_maps, [
        Opt("files", nargs="+"),
        Opt("--skip-errors", action="store_true",
            help="go on after damage (reading with recovery); one stderr line per problem, "
                 "a summary per file, exit 3 when anything was skipped or had an error"),
    ], epilog=STATUSES),
    Cmd("build-table-map", "table-maps JSON Lines on stdin -> event hex", cmd_build_table_map,
        []),
    Cmd("validate", "check the golden vectors both ways", cmd_validate, [
        Opt("dir", nargs="?", default="specs"),
    ]),
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
            except (TypeError, ValueError):
                return None
            if "choices" in opt.kw and value not in opt.kw["choices"]:
                return None
            values[opt.dest] = value
        else:
            loose.append(arg)
    for opt in (o for o in cmd.opts if o.positional):
        nargs = opt.kw.get("nargs")
        if nargs == "+":
            if not loose:
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
    from .fixtures import cli as fixtures_cli
    fixtures_cli.register(sub)


def _add_spark(sub):
    from .pipeline import cli as pipeline_cli
    pipeline_cli.register(sub)


COMMANDS = {**{c.name: (lambda sub, c=c: _add(sub, c)) for c in SPECS},
            "fixtures": _add_fixtures, "spark": _add_spark}


def build_parser(only: str | None = None):
    """The argument parser: every command, or only ``only`` (the one the user asked for)."""
    import argparse
    p = argparse.ArgumentParser(prog="binlog-schema",
                                description="MySQL/MariaDB binary logs, declared once.")
    sub = p.add_subparsers(dest="command", required=True)
    for name, add in COMMANDS.items():
        if only is None or name == only:
            add(sub)
    return p


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
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

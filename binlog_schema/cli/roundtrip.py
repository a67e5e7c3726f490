"""``binlog-schema roundtrip``: parse and rebuild every event (and row image) of each file
and compare the bytes (:func:`binlog_schema.output.roundtrip.roundtrip_file`); a line per file, a
total, a stderr line per problem."""

from __future__ import annotations

import sys

from ..output.statuses import CLEAN, DAMAGED, STOPPED, epilog, worst
from .arguments import progress_of
from .declare import Cmd, Opt
from .options import FILES, PROGRESS, SKIP_ERRORS


def cmd_roundtrip(args) -> int:
    from ..format.errors import BinlogError
    from ..output.roundtrip import roundtrip_file
    totals = {"files": 0, "events": 0, "identical": 0, "differ": 0, "failed": 0, "tails": 0}
    status = CLEAN
    progress = progress_of(args, "roundtrip")
    for path in args.files:
        try:
            r = roundtrip_file(path, rows=not args.no_rows, skip_errors=args.skip_errors,
                               **({} if progress is None else {"watch": progress.watch}))
            if progress is not None:
                progress.file_done(path)
        except (OSError, BinlogError) as e:  # (unreadable, or not a binlog at all)
            from ..output.write import os_problem
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


COMMANDS = [
    Cmd("roundtrip", "parse and rebuild every event, compare bytes", cmd_roundtrip, [
        FILES,
        Opt("--no-rows", action="store_true",
            help="do not decode and rebuild row images (events only)"),
        SKIP_ERRORS.but(
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
]

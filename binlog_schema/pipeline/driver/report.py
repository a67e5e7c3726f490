"""What ``spark decode`` tells its user: progress lines while Spark jobs run
(:class:`Progress`), the per-file summary table and its reconciliation line
(:func:`summary_lines`), the companion files passed by (:func:`companion_lines`), what could
not be read or decoded, one stderr line each (:func:`problem_lines`), and the exit status
with what it means (:func:`exit_status`, :func:`status_line`)."""

from __future__ import annotations

import os
import sys
import threading
import time

from binlog_schema.pipeline.tables.reconcile import MAGIC_SIZE
# exit statuses of ``spark decode``: the single-process commands' (a file not reconciled
# is the pipeline's reading that stopped), and argparse's for usage
from binlog_schema.output.statuses import CLEAN, DAMAGED, USAGE  # noqa: F401 - (USAGE: the commands')
from binlog_schema.output.statuses import STOPPED as NOT_RECONCILED


class Progress:
    """Prints, while Spark jobs run, how many tasks of the active stages are done (polled
    from the status tracker every ``every`` seconds, on stderr)."""

    def __init__(self, spark, out=sys.stderr, every: float = 2.0, enabled: bool = True):
        self.sc = spark.sparkContext
        self.out = out
        self.every = every
        self.enabled = enabled
        self.t0 = time.time()
        self.lines = []

    def say(self, text: str):
        line = f"[{time.time() - self.t0:6.1f}s] {text}"
        self.lines.append(line)
        if self.enabled:
            print(line, file=self.out, flush=True)

    def stage(self, label: str):
        return _Watch(self, label)


class _Watch:
    def __init__(self, progress: Progress, label: str):
        self.p = progress
        self.label = label
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self.t0 = time.time()
        self.thread.start()
        return self

    def _run(self):
        last = None
        tracker = self.p.sc.statusTracker()
        while not self.stop.wait(self.p.every):
            try:
                stages = [tracker.getStageInfo(i) for i in tracker.getActiveStageIds()]
            except Exception:  # noqa: BLE001 - the context may be stopping
                return
            stages = [s for s in stages if s is not None]
            if not stages:
                continue
            done = sum(s.numCompletedTasks for s in stages)
            total = sum(s.numTasks for s in stages)
            running = sum(s.numActiveTasks for s in stages)
            state = (done, total, running)
            if state != last:
                self.p.say(f"{self.label}: {done}/{total} tasks done, {running} running")
                last = state

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        self.p.say(f"{self.label}: done in {time.time() - self.t0:.1f}s")
        return False


def summary_lines(files_rows, width: int = 60) -> list:
    """The per-file summary table and the reconciliation line: events read = decoded +
    quarantined, and bytes = magic numbers + decoded + skipped."""
    head = (f"{'file':<{width}} {'splits':>6} {'read':>9} {'decoded':>9} {'quarant.':>8} "
            f"{'bytes':>12} {'skipped':>10} {'rows':>9} {'shapes':>6} {'errors':>6}  ok")
    out = [head, "-" * len(head)]
    tot = dict(files=0, read=0, decoded=0, quarantined=0, rows=0, errors=0, bad=0, bytes=0,
               bytes_decoded=0, bytes_skipped=0)
    for r in files_rows:
        name = _short(r["file"])
        name = name if len(name) <= width else "..." + name[-(width - 3):]
        ok = bool(r["reconciled"])
        out.append(f"{name:<{width}} {r['splits']:>6} {r['events_read'] or 0:>9} "
                   f"{r['events_decoded']:>9} {r['events_quarantined']:>8} "
                   f"{r['bytes'] or 0:>12} {r['bytes_skipped'] or 0:>10} {r['rows']:>9} "
                   f"{r['table_map_shapes']:>6} {r['errors']:>6}  {'yes' if ok else 'NO'}")
        tot["files"] += 1
        tot["read"] += r["events_read"] or 0
        tot["decoded"] += r["events_decoded"]
        tot["quarantined"] += r["events_quarantined"]
        tot["rows"] += r["rows"]
        tot["errors"] += r["errors"]
        tot["bad"] += not ok
        for k in ("bytes", "bytes_decoded", "bytes_skipped"):
            tot[k] += r[k] or 0
    out.append("-" * len(head))
    out.append(f"reconciliation: {tot['files']} files, events read {tot['read']} = decoded "
               f"{tot['decoded']} + quarantined {tot['quarantined']}, bytes {tot['bytes']} = "
               f"{MAGIC_SIZE} x {tot['files']} + decoded {tot['bytes_decoded']} + skipped "
               f"{tot['bytes_skipped']}: "
               + ("OK" if not tot["bad"] else f"MISMATCH in {tot['bad']} files")
               + f"; rows {tot['rows']}, error rows {tot['errors']}")
    return out


def companion_lines(inputs) -> list:
    """The files a server keeps beside its binlogs that were among the inputs (not read as
    binlogs), one line each, for the summary."""
    from binlog_schema.pipeline.fsio import display_name
    return [f"companion (not a binlog, not read): {_short(display_name(uri))}: {what}"
            for uri, _, what in (inputs.companions if inputs is not None else ())]


def note_lines(inputs) -> list:
    """What the inputs' binlog indexes said that could not be followed (stderr lines)."""
    from binlog_schema.pipeline.fsio import display_name
    return [f"{display_name(where)}: {message}"
            for where, message in (inputs.notes if inputs is not None else ())]


# what each stage of an ``errors`` row means, in a stderr line
_STAGE_WORDS = {"event": "event quarantined", "skipped": "bytes skipped",
                "tail": "last event cut short", "rows": "rows not decodable",
                "schema": "table map disagrees with the schema history",
                "split": "split not read"}
PROBLEM_LIMIT = 100   # error rows said on stderr (the errors table holds them all)


def problem_lines(error_rows, files_rows, total: int | None = None,
                  limit: int = PROBLEM_LIMIT) -> list:
    """One stderr line per file that could not be read (its reason, in the words of the
    single-process ``decode``: :func:`binlog_schema.format.errors.not_a_binlog`,
    :func:`binlog_schema.output.write.os_problem`) and per ``errors`` row of the damaged
    ones (file, offset, what, reason), the first ``limit`` of those, then how many more
    (``total``: how many such rows there are, when ``error_rows`` holds only some)."""
    from binlog_schema.pipeline.tables.reconcile import FAILURE_STAGES
    lines, said = [], set()
    rows = sorted(error_rows, key=lambda r: (r["stage"] not in FAILURE_STAGES, r["file"],
                                             r["offset"] or 0))
    others = [r for r in rows if r["stage"] not in FAILURE_STAGES]
    for r in rows:
        if r["stage"] in FAILURE_STAGES:
            said.add(r["file"])
            lines.append(f"{r['file']}: {r['message']}" if r["stage"] != "split" else
                         f"{r['file']}: at {r['offset']}: split not read: {r['message']}")
    for r in others[:limit]:
        where = f"at {r['offset']}" + (f" (in the payload at {r['in_payload_at']})"
                                       if r["in_payload_at"] is not None else "")
        what = _STAGE_WORDS.get(r["stage"], r["stage"])
        size = f", {r['size']} bytes" if r["stage"] in ("skipped", "tail") and r["size"] \
            else ""
        lines.append(f"{r['file']}: {where}: {what}{size}: {r['message']}")
    more = (len(others) if total is None else total) - min(len(others), limit)
    if more > 0:
        lines.append(f"... and {more} more error rows: see the errors table")
    for f in files_rows:
        if not f["reconciled"] and f["file"] not in said:
            lines.append(f"{f['file']}: not every byte or event accounted for (events read "
                         f"{f['events_read']}, decoded {f['events_decoded']}, quarantined "
                         f"{f['events_quarantined']}; bytes {f['bytes']}, decoded "
                         f"{f['bytes_decoded']}, skipped {f['bytes_skipped']})")
    return lines


def problem_lines_of(spark, errors_path: str, rows) -> list:
    """:func:`problem_lines` of a run whose ``errors`` table is at ``errors_path`` (read
    back with Spark when a file has errors or did not reconcile; ``rows``: the ``files``
    rows)."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.tables.reconcile import FAILURE_STAGES
    if not any(r["errors"] or not r["reconciled"] for r in rows):
        return []
    if not any(r["errors"] for r in rows):   # (no errors row to read: the files' counts)
        return problem_lines([], rows)
    spark.sparkContext.setJobDescription("errors said on stderr")
    errors = spark.read.parquet(errors_path)
    failed = F.col("stage").isin(*FAILURE_STAGES)
    others = errors.where(~failed)
    got = errors.where(failed).collect() + others.orderBy("file", "offset").limit(
        PROBLEM_LIMIT).collect()
    return problem_lines([r.asDict() for r in got], rows, total=others.count())


def _short(name: str) -> str:
    cwd = os.getcwd() + os.sep
    return name[len(cwd):] if name.startswith(cwd) else name


def exit_status(files_rows) -> int:
    """``spark decode``'s exit status, as the single-process commands' with
    ``--skip-errors`` (:mod:`binlog_schema.output.write`): 1 when a file does not reconcile
    (its bytes or events are not all accounted for: a file that is not a binlog, an input
    that could not be read, a task that failed), else 3 when a file is damaged (an ``errors``
    row: a quarantined event, a skipped range, a rows event that could not be decoded, a
    table map that disagrees with ``--schema``), else 0."""
    if any(not r["reconciled"] for r in files_rows):
        return NOT_RECONCILED
    return DAMAGED if any(r["errors"] for r in files_rows) else CLEAN


def status_line(files_rows) -> str | None:
    """What a status other than 0 means, for the end of the summary."""
    bad = sum(not r["reconciled"] for r in files_rows)
    damaged = sum(bool(r["errors"]) for r in files_rows)
    if bad:
        return (f"exit status {NOT_RECONCILED}: {bad} files not reconciled (not binlogs, "
                "unreadable, or not every byte accounted for: said on stderr, and in the "
                "errors table)")
    if damaged:
        return (f"exit status {DAMAGED}: {damaged} files damaged, every byte accounted for "
                "(quarantined events and skipped ranges, or with --schema table maps that "
                "disagree with it: the errors table, with offset and size)")
    return None

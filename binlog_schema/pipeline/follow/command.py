"""``binlog-schema spark follow``: runs :func:`~.job.follow` until it ends (``--once``), has
been idle ``--until-idle`` seconds, or SIGTERM/SIGINT asks it to stop (after the batch being
applied), then prints the summary of ``spark current`` (per table: row changes applied by
this run's batches, rows held at the end)."""

from __future__ import annotations

import os
import signal
import sys
import threading


def run_follow(args, conf: dict) -> int:
    """``args``: the command's arguments; ``conf``: its ``--conf`` items parsed."""
    from ...output.statuses import CLEAN, DAMAGED, STOPPED, USAGE
    from binlog_schema.pipeline.current.command import summary_lines
    from binlog_schema.pipeline.current.job import CurrentError, CurrentResult
    from binlog_schema.pipeline.driver.session import finish_session, jvm_starts_here, start_session
    from binlog_schema.pipeline.follow.job import follow
    own_jvm = "PYSPARK_GATEWAY_PORT" not in os.environ and jvm_starts_here()
    spark = start_session(args.master, conf)
    rc = None
    stop = threading.Event()
    handlers = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGTERM,
                                                                      signal.SIGINT)}

    def say(text):
        if not args.quiet:
            print(f"binlog-schema spark follow: {text}", file=sys.stderr, flush=True)
    try:
        try:
            following = follow(args.folder, spark, out=args.out, checkpoint=args.checkpoint,
                               schema=args.schema, assume_empty=args.assume_empty,
                               fmt=args.format, once=args.once,
                               trigger_interval=args.trigger_interval, say=say)
        except (CurrentError, OSError) as e:
            print(f"binlog-schema spark follow: {e}", file=sys.stderr)
            rc = USAGE
            return rc
        try:
            following.wait(until_idle=args.until_idle, stop=stop)
        except Exception as e:  # noqa: BLE001 - a batch that failed: said, status 1
            print(f"binlog-schema spark follow: stopped: {e}", file=sys.stderr)
            rc = STOPPED
            return rc
        result = CurrentResult(following.batches.out, args.format)
        for note in following.notes:
            for name, t in note.tables.items():
                entry = result.tables.setdefault(name, {"inserted": 0, "updated": 0,
                                                        "deleted": 0})
                for k in ("inserted", "updated", "deleted"):
                    entry[k] += t[k]
                entry["rows"] = t["rows"]
        applied = [n for n in following.notes if n.applied and n.tables is not None]
        if applied:
            last = applied[-1]
            result.tables = {n: t for n, t in result.tables.items() if n in last.tables}
            result.applied = last.offset
        result.problems = following.problems
        for line in summary_lines(result):
            print(line)
        for table, message in result.problems:
            print(f"binlog-schema spark follow: {table + ': ' if table else ''}{message}",
                  file=sys.stderr)
        rc = DAMAGED if result.problems else CLEAN
        return rc
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
        if own_jvm:
            finish_session(spark, ok=rc is not None and rc != USAGE)

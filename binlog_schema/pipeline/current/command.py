"""``binlog-schema spark current``, ``spark history`` and ``spark changes``: run
:func:`~.job.current` (or :func:`~.changes.changes`) and print the summary (per table: rows
inserted, updated, deleted and held at the end; for history, versions written; or change rows
written)."""

from __future__ import annotations

import os
import sys


def run_current(args, conf: dict, kind: str = "current") -> int:
    """``args``: the command's arguments; ``conf``: its ``--conf`` items parsed; ``kind``:
    current or history."""
    from binlog_schema.pipeline.current.job import current

    def job(spark, progress):
        return current(args.inputs, spark, out=args.out, base=getattr(args, "base", None),
                       schema=args.schema, fmt=args.format, overwrite=args.overwrite,
                       assume_empty=args.assume_empty, split_size=args.split_size,
                       progress=progress, kind=kind)
    return _run(kind, args, conf, job, summary_lines)


def run_changes(args, conf: dict) -> int:
    """``spark changes``: as :func:`run_current`, the job :func:`~.changes.changes`."""
    from binlog_schema.pipeline.current.changes import changes

    def job(spark, progress):
        return changes(args.inputs, spark, out=args.out, schema=args.schema, fmt=args.format,
                       overwrite=args.overwrite, split_size=args.split_size,
                       progress=progress)
    return _run("changes", args, conf, job, summary_lines)


def _run(command, args, conf, job, summary) -> int:
    """Start the session, run ``job(spark, progress)``, print its ``summary`` lines and its
    problems (stderr); the exit status."""
    from ...output.statuses import STOPPED, USAGE
    from binlog_schema.pipeline.current.job import CurrentError
    from binlog_schema.pipeline.jobs.decode import SchemaFileError
    from binlog_schema.pipeline.driver.plan import NoInputError
    from binlog_schema.pipeline.driver.report import Progress, companion_lines
    from binlog_schema.pipeline.driver.session import finish_session, jvm_starts_here, start_session
    own_jvm = "PYSPARK_GATEWAY_PORT" not in os.environ and jvm_starts_here()
    spark = start_session(args.master, conf, verbose=args.verbose)
    rc = None
    try:
        progress = Progress(spark, enabled=not args.quiet)
        try:
            result = job(spark, progress)
        except (CurrentError, FileExistsError) as e:
            print(f"binlog-schema spark {command}: {e}", file=sys.stderr)
            rc = USAGE
            return rc
        except SchemaFileError as e:
            print(f"binlog-schema spark {command}: --schema {e}", file=sys.stderr)
            rc = STOPPED
            return rc
        except NoInputError as e:
            print(f"binlog-schema spark {command}: {e}", file=sys.stderr)
            rc = STOPPED
            return rc
        for line in summary(result):
            print(line)
        for line in companion_lines(result.inputs):
            print(line)
        for line in result.problem_lines():
            print(line, file=sys.stderr)
        rc = result.status
        return rc
    finally:
        if own_jvm:   # (a session this command started; one it was given stays)
            finish_session(spark, ok=rc is not None and rc != USAGE)


# per command: the headings of the counts, what the last lines say
_WORDS = {"changes": (("inserts", "updates", "deletes", "rows"), "changes up to", "not written"),
          "history": (("inserted", "updated", "deleted", "versions"), "applied to",
                      "left for the next run")}
_CURRENT = (("inserted", "updated", "deleted", "rows"), "applied to", "left for the next run")


def summary_lines(result) -> list:
    """The table of a run: per table inserted, updated, deleted (changes applied; for
    ``spark changes`` the inserts, updates and deletes written) and rows held (versions,
    change rows: an update is two); then up to where, and what is left."""
    heads, upto, left = _WORDS.get(result.command, _CURRENT)
    names = sorted(result.tables)
    width = max([len(n) for n in names] + [5])
    lines = [f"{'table':<{width}}  {heads[0]:>9}  {heads[1]:>9}  {heads[2]:>9}  "
             f"{heads[3]:>10}"]
    for n in names:
        t = result.tables[n]
        lines.append(f"{n:<{width}}  {t['inserted']:>9}  {t['updated']:>9}  "
                     f"{t['deleted']:>9}  {t['rows']:>10}")
    a = result.applied or {}
    if a:
        lines.append(f"{upto} {a.get('file')} position {a.get('position')} "
                     f"({len(names)} tables, {result.fmt}, under {result.out})")
    if result.pending:
        lines.append(f"{result.pending} row changes after the last complete transaction: "
                     f"{left}")
    return lines

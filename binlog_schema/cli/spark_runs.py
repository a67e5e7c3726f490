"""What each ``binlog-schema spark`` command does on the driver and prints (their
declarations: :mod:`binlog_schema.cli.spark`); the jobs are :mod:`binlog_schema.pipeline`'s.
pyspark is imported only when one of them runs."""

from __future__ import annotations

import os
import sys
import time

from binlog_schema.output.statuses import CLEAN, USAGE


def fail(command: str, problem, status: int) -> int:
    """Say ``binlog-schema spark COMMAND: PROBLEM`` on stderr; ``status``, to return."""
    print(f"binlog-schema spark {command}: {problem}", file=sys.stderr)
    return status


def parse_conf(items) -> dict:
    """``--conf KEY=VALUE`` items as a dict."""
    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--conf {item!r}: expected KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


# ---------------------------------------------------------------------------------------
# decode


def run_decode(args) -> int:
    """``spark decode``: decode, write the tables, print the summary."""
    from binlog_schema.pipeline.jobs.decode import have_pyarrow
    from binlog_schema.pipeline.driver.plan import EarlyPrescan
    from binlog_schema.output.sizes import parse_size
    from binlog_schema.pipeline.driver.session import (finish_session, jvm_starts_here,
                                                records_class_archive, start_session)
    own_jvm = "PYSPARK_GATEWAY_PORT" not in os.environ and jvm_starts_here()
    early = None
    if own_jvm:   # the pre-scan of local files while the JVM starts
        early = EarlyPrescan(args.inputs, parse_size(args.split_size), args.include_hidden)
        early.start()
    if args.engine == "auto":
        args.engine = "arrow" if have_pyarrow() else "spark"
    # C1 only when the JVM merely schedules (rows through the JVM and Spark's writers are
    # JVM work that C2's code does faster)
    spark = start_session(args.master, parse_conf(args.conf), class_cache="create",
                          short_lived=args.engine == "arrow", verbose=args.verbose)
    rc = None
    try:
        rc = _run_decode(spark, args, early)
    finally:
        if own_jvm:
            ok = rc is not None and rc != USAGE
            if ok and records_class_archive() and not args.quiet:
                print("binlog-schema spark: recording the JVM's class-data archive (once per "
                      "Java and Spark installation: later commands start faster)",
                      file=sys.stderr, flush=True)
            finish_session(spark, ok=ok)
    return rc


def _run_decode(spark, args, early=None) -> int:
    from binlog_schema.pipeline.jobs.decode import SchemaFileError, decode
    from binlog_schema.pipeline.driver.plan import NoInputError
    from binlog_schema.pipeline.driver.report import (Progress, companion_lines, exit_status,
                                               note_lines, problem_lines_of, status_line,
                                               summary_lines)
    from binlog_schema.pipeline.tables.result import TABLES, check_format
    from binlog_schema.output.statuses import DAMAGED, STOPPED, worst
    progress = Progress(spark, enabled=not args.quiet)
    try:
        check_format(spark, args.format)
    except RuntimeError as e:
        return fail("decode", e, USAGE)
    mode = "overwrite" if args.overwrite else "errorifexists"
    out = args.out.rstrip("/")
    progress.say(f"Spark {spark.version}, master {spark.sparkContext.master}, "
                 f"{spark.sparkContext.defaultParallelism} cores, engine {args.engine}")
    # Delta, Iceberg: the Parquet files written become Delta tables (deltalake) or Iceberg
    # tables (pyiceberg), with this commit metadata
    metadata = {"command": "binlog-schema spark decode", "engine": args.engine,
                "inputs": list(args.inputs)}
    try:
        if args.engine == "arrow":
            tables = decode(args.inputs, spark, out=out, engine="arrow",
                            split_size=args.split_size, rows=not args.no_rows,
                            include_hidden=args.include_hidden, mode=mode, progress=progress,
                            prescan=early, schema=args.schema,
                            arrow_schema=args.format != "iceberg")
            if args.format in ("delta", "iceberg"):   # (committed where the tasks wrote them)
                tables.write(out, args.format, mode, progress, metadata)
        else:
            tables = decode(args.inputs, spark, engine="spark", split_size=args.split_size,
                            rows=not args.no_rows, include_hidden=args.include_hidden,
                            progress=progress, prescan=early, schema=args.schema)
            with progress.stage("decode"):
                spark.sparkContext.setJobDescription("decode")
                tables.unified.count()
            tables.write(out, args.format, mode, progress, metadata)
            tables.unpersist()
    except FileExistsError as e:
        return fail("decode", e, USAGE)
    except SchemaFileError as e:
        return fail("decode", f"--schema {e}", STOPPED)
    except NoInputError as e:
        return fail("decode", e, STOPPED)
    if getattr(tables, "file_rows", None) is not None:   # as written, without reading back
        from binlog_schema.pipeline.tables import schema
        names = schema.FILES.fieldNames()
        rows = [dict(zip(names, r)) for r in tables.file_rows]
    else:
        # (a Delta table's too: the Parquet files of its only version)
        rows = spark.read.parquet(out + "/files").orderBy("file").collect()
    rows = in_stream_order(rows, tables.inputs)
    for line in summary_lines(rows):
        print(line)
    for line in companion_lines(tables.inputs):
        print(line)
    print(f"tables written under {out}: {', '.join(TABLES)} ({args.format})", flush=True)
    status = exit_status(rows)
    problems = problem_lines_of(spark, out + "/errors", rows) if status else []
    notes = note_lines(tables.inputs)
    for line in problems + notes:
        print(line, file=sys.stderr)
    sys.stderr.flush()
    said = status_line(rows)
    if said:
        print(said, flush=True)
    if notes:
        status = worst(status, DAMAGED)
        if status == DAMAGED and not said:
            print(f"exit status {DAMAGED}: a binlog index names files that are not among "
                  "the inputs, or could not be read (said on stderr)", flush=True)
    return status


def in_stream_order(rows, inputs) -> list:
    """The ``files`` rows in the order the inputs were read in (a binlog index's, else
    names); inputs that named nothing after them."""
    from binlog_schema.pipeline.fsio import display_name
    order = {display_name(uri): i for i, (uri, _) in enumerate(inputs.files)} \
        if inputs is not None else {}
    return sorted(rows, key=lambda r: (order.get(r["file"], len(order)), r["file"]))


# ---------------------------------------------------------------------------------------
# stats


def run_stats(args) -> int:
    """``spark stats``: count, say each problem on stderr, write the figures (and the page)
    as ``binlog-schema stats`` writes them."""
    from binlog_schema.pipeline.driver.plan import NoInputError
    from binlog_schema.pipeline.driver.report import Progress, companion_lines
    from binlog_schema.pipeline.driver.session import finish_session, jvm_starts_here, start_session
    from binlog_schema.pipeline.jobs.stats import stats
    from binlog_schema.output.stats_write import chart_library, write_figures
    from binlog_schema.output.statuses import STOPPED, worst
    max_event_size = args.max_event_size   # (checked as parsed: cli/values.py)
    library = None
    if args.html is not None:   # (said before Spark starts)
        library = chart_library(args.html, sys.stderr)
        if library is None:
            return STOPPED
    own_jvm = "PYSPARK_GATEWAY_PORT" not in os.environ and jvm_starts_here()
    spark = start_session(args.master, parse_conf(args.conf), short_lived=True,
                          verbose=args.verbose)
    rc = None
    try:
        progress = Progress(spark, enabled=not args.quiet)
        try:
            run = stats(args.inputs, spark, top=args.top, max_event_size=max_event_size,
                        split_size=args.split_size, include_hidden=args.include_hidden,
                        progress=progress)
        except NoInputError as e:
            rc = fail("stats", e, STOPPED)
            return rc
        if run.whole:
            progress.say(f"counted whole (damaged or not read in splits): "
                         f"{', '.join(run.whole)}")
        for line in companion_lines(run.inputs) + run.lines:
            print(line, file=sys.stderr)
        sys.stderr.flush()
        rc = worst(run.status, write_figures(run.stats.to_dict(), fmt=args.format,
                                             top=args.top, html=args.html, library=library))
        return rc
    finally:
        if own_jvm:   # (a session this command started; one it was given stays)
            finish_session(spark, ok=rc is not None and rc != USAGE)


# ---------------------------------------------------------------------------------------
# fixtures, validate


def run_fixtures(args) -> int:
    """``spark fixtures``: write the files, say what was written."""
    from binlog_schema.pipeline.jobs.fixtures import generate
    from binlog_schema.pipeline.driver.session import start_session
    spark = start_session(args.master, parse_conf(args.conf), verbose=args.verbose)
    t0 = time.time()
    try:
        made = generate(spark, args.out, args.files, seed=args.seed, flavor=args.flavor,
                        transactions=args.transactions, table_maps=args.table_maps)
    except ValueError as e:
        return fail("fixtures", e, USAGE)
    total = sum(m["bytes"] for m in made)
    by_flavor = {}
    for m in made:
        by_flavor[m["flavor"]] = by_flavor.get(m["flavor"], 0) + 1
    print(f"{len(made)} files ({', '.join(f'{n} {f}' for f, n in sorted(by_flavor.items()))})"
          f", {total / (1 << 20):.1f} MiB, {sum(m['transactions'] for m in made)} "
          f"transactions, {sum(1 for m in made if m.get('compressed'))} files compressed, "
          f"in {time.time() - t0:.1f}s under {os.path.abspath(args.out)} (seed {args.seed})")
    return CLEAN


def run_validate(args) -> int:
    """``spark validate``: check, print the failures and the counts, write the report."""
    from binlog_schema.pipeline.driver.plan import NoInputError, binlog_inputs
    from binlog_schema.pipeline.driver.report import companion_lines, note_lines
    from binlog_schema.pipeline.driver.session import start_session
    from binlog_schema.pipeline.jobs.validate import status_of, validate
    from binlog_schema.output.write import os_problem
    from binlog_schema.output.statuses import DAMAGED, STOPPED, worst
    if not args.specs and not args.roundtrip:
        return fail("validate", "give --specs DIR and/or --roundtrip INPUT...", USAGE)
    spark = start_session(args.master, parse_conf(args.conf), verbose=args.verbose)
    t0 = time.time()
    listing = None
    try:
        if args.roundtrip:
            listing = binlog_inputs(spark, list(args.roundtrip)).check()
        df = validate(spark, args.specs or (), args.roundtrip or (), listing=listing).cache()
    except NoInputError as e:
        return fail("validate", f"--roundtrip: {e}", STOPPED)
    except OSError as e:
        return fail("validate", f"{e.filename}: {os_problem(e)}", STOPPED)
    if args.out:
        from pyspark.errors import AnalysisException
        try:
            df.write.mode("overwrite" if args.overwrite else "errorifexists").parquet(args.out)
        except AnalysisException as e:   # (it exists: --overwrite)
            return fail("validate", f"--out {args.out}: {str(e).strip().splitlines()[0]}",
                        USAGE)
    rows = df.collect()
    bad = [r for r in rows if not r["ok"]]
    for r in [r for r in bad if r["check"] == "spec"][:20]:
        print(f"FAIL {r['check']} {r['file']} [{r['name']}]")
        for p in (r["problems"] or [])[:3]:
            print(f"    {p}")
    for r in bad:   # (every file that did not pass: file, offset, reason)
        if r["check"] == "roundtrip":
            for p in r["problems"] or ["failed"]:
                print(f"{r['file']}: {p}", file=sys.stderr)
    for line in note_lines(listing):
        print(line, file=sys.stderr)
    sys.stderr.flush()
    for check in ("spec", "roundtrip"):
        sel = [r for r in rows if r["check"] == check]
        if not sel:
            continue
        good = sum(1 for r in sel if r["ok"])
        line = f"{check}: {good} passed, {len(sel) - good} failed"
        if check == "roundtrip":
            line += (f" ({sum(r['events'] or 0 for r in sel)} events, "
                     f"{sum(r['identical'] or 0 for r in sel)} identical, "
                     f"{sum(r['rows'] or 0 for r in sel)} rows, "
                     f"{sum(r['rows_identical'] or 0 for r in sel)} rows identical, rows not "
                     f"decodable in {sum(r['rows_failed'] or 0 for r in sel)} events, "
                     f"{sum(1 for r in sel if r['truncated_tail'])} truncated tails)")
        print(line)
    for line in companion_lines(listing):
        print(line)
    print(f"checked {len(rows)} items in {time.time() - t0:.1f}s"
          + (f"; report table: {args.out}" if args.out else ""))
    status = CLEAN if rows else STOPPED
    for r in bad:
        status = worst(status, status_of(r))
    if listing is not None and listing.notes:
        status = worst(status, DAMAGED)
    return status

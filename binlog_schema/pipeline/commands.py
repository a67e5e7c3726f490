"""``binlog-schema spark decode|current|stats|fixtures|validate``: the pipeline's commands,
their arguments (:func:`add_commands`, :func:`register`) and what each prints (pyspark is
imported only when one of them runs).

The driver of a job, also run as ``python -m binlog_schema.pipeline.commands decode ...`` or
``spark-submit .../binlog_schema/pipeline/commands.py decode ...`` (the driver and the
workers need this package importable: same virtual environment, or installed on every
node).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

if __name__ == "__main__":  # run as a script (spark-submit): this directory is no package root
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

from binlog_schema.statuses import CLEAN, USAGE  # (after the path is set)


def parse_conf(items) -> dict:
    """``--conf KEY=VALUE`` items as a dict."""
    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--conf {item!r}: expected KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def _need_pyspark(func):
    def run(args):
        try:
            import pyspark  # noqa: F401
        except ImportError:
            print("binlog-schema spark: pyspark is not installed (pip install "
                  "'binlog-schema[spark]', or scripts/setup.sh); Spark also needs Java 17+",
                  file=sys.stderr)
            return USAGE
        from binlog_schema.pipeline.driver.session import find_java
        if find_java() is None:
            print("binlog-schema spark: Spark needs Java 17+ and none was found on JAVA_HOME "
                  "or PATH (scripts/setup.sh finds or installs one)", file=sys.stderr)
            return USAGE
        return func(args)
    return run


# ---------------------------------------------------------------------------------------
# the arguments

def _common(p):
    """--master and --conf, which every command has."""
    p.add_argument("--master", help="Spark master URL (default: the one spark-submit gives, "
                   "else local[*] started here), e.g. spark://host:7077")
    p.add_argument("--conf", action="append", metavar="KEY=VALUE",
                   help="extra Spark configuration (repeatable)")


def add_commands(sub):
    """The ``decode``, ``fixtures`` and ``validate`` subcommands (shared by
    ``binlog-schema spark`` and ``python -m binlog_schema.pipeline.commands``)."""
    from binlog_schema.pipeline.jobs.fixtures import TABLE_MAPS   # (a light module)
    d = sub.add_parser("decode", help="binlog files to typed tables (events, table_maps, "
                       "row_changes, errors, files)",
                       description="Decode binlog files, directories or globs (any Hadoop "
                       "filesystem) into typed tables written under --out (the index, GTID "
                       "state and replica info files a server keeps beside its binlogs are "
                       "listed as companions, not read; an index gives the order of the "
                       "binlogs it names), with a per-file "
                       "reconciliation: events read = decoded + quarantined, and the file's "
                       "bytes = 4 (magic number) + bytes decoded (events) + bytes skipped "
                       "(quarantined events and skipped ranges, each an errors row with offset "
                       "and size). Damage never stops the job: each split resynchronises "
                       "inside its own byte range. Exit status: 0 every file clean; 3 damaged "
                       "but every file reconciled (events quarantined or bytes skipped: see "
                       "the errors table; an index entry not found); 1 a file does not "
                       "reconcile (not a binlog, unreadable, bytes not all accounted for), or "
                       "no input file at all; 2 usage (output exists, format unavailable). "
                       "What could not be read is said on stderr, file by file.")
    d.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="binlog or relay-log files, directories (read recursively) or globs, "
                   "on any Hadoop filesystem (file:, hdfs:, s3a:, ...)")
    d.add_argument("--out", required=True, help="output directory (any Hadoop filesystem)")
    d.add_argument("--format", choices=("parquet", "delta"), default="parquet",
                   help="parquet (default); delta: Delta Lake tables, the same Parquet files "
                   "committed in place by the deltalake package (no Spark jars needed; read "
                   "them with deltalake, DuckDB or Spark with Delta); Delta has no interval "
                   "type, so MySQL TIME values (Value.time) are microseconds as long there")
    d.add_argument("--split-size", default="8m",
                   help="work per split (bytes, plus 200 per event): large files are cut "
                   "at transaction boundaries into splits of about this size (default 8m)")
    d.add_argument("--engine", choices=("auto", "arrow", "spark"), default="auto",
                   help="arrow: tasks write Parquet parts themselves (pyarrow; half the CPU "
                   "per row); spark: rows go through the JVM and Spark's writers (any "
                   "Hadoop filesystem); auto (default): arrow when pyarrow is installed")
    d.add_argument("--overwrite", action="store_true", help="replace existing tables")
    d.add_argument("--no-rows", action="store_true", help="skip row_changes")
    d.add_argument("--include-hidden", action="store_true",
                   help="also read files named .* and _* inside directories")
    d.add_argument("--quiet", action="store_true", help="no progress lines")
    d.add_argument("--schema", action="append", metavar="FILE",
                   help="the schema at the start of the first file, as mysqldump --no-data "
                   "or SHOW CREATE TABLE statements (a local file, read by the driver; "
                   "repeatable): the inputs are one server's binlogs, in name order, whose "
                   "DDL is replayed into it (the history is on without it: replayed "
                   "from nothing); table maps without column names (MINIMAL "
                   "metadata) get its names, ENUM/SET members and primary key where they "
                   "agree with it, else their rows keep @N names and an errors row of stage "
                   "schema names the table and the difference (exit 3)")
    _common(d)
    d.set_defaults(func=_need_pyspark(run_decode))

    add_current(sub)
    add_stats(sub)

    f = sub.add_parser("fixtures", help="write synthetic binlog files in parallel",
                       description="Synthetic binlogs written by Spark tasks, deterministic "
                       "per --seed and file index: each file a random spec of the synthetic "
                       "generator (binlog_schema.synthetic, as 'binlog-schema fixtures "
                       "--random'): three tables of random column types, for the flavor's "
                       "server profiles in turn, every other file compressed where the "
                       "server can.")
    f.add_argument("--out", required=True, help="directory the workers can write")
    f.add_argument("--files", type=int, default=20,
                   help="how many files to write (default 20)")
    f.add_argument("--transactions", type=int, default=200,
                   help="transactions per file (default 200)")
    f.add_argument("--seed", type=int, default=0,
                   help="the seed of the random specs (default 0): the same seed, flavor "
                   "and file index give the same bytes")
    f.add_argument("--flavor", default="mixed",
                   help="mysql, mariadb, mixed (default: every server profile in turn) or "
                   "one server profile (mysql-8.0, mariadb-10.11, ...)")
    f.add_argument("--table-maps", choices=TABLE_MAPS, default="per_transaction",
                   help="per_transaction (default: as servers write them); once: each "
                   "TABLE_MAP only before its table's first rows event in the file (not "
                   "what servers do; makes splits that need carried table maps)")
    _common(f)
    f.set_defaults(func=_need_pyspark(run_fixtures))

    v = sub.add_parser("validate", help="check golden vectors / round-trip a corpus in "
                       "parallel, into a report table",
                       description="Golden vectors checked and binlog files round-tripped "
                       "(every event and row image rebuilt byte for byte) by Spark tasks. "
                       "Exit status: 0 everything passed; 3 rows not decodable (each said "
                       "on stderr: file, offset, reason) and nothing worse; 1 a vector or file "
                       "failed (bytes that differ, an event that fails, a last event cut "
                       "short, a file not read: said on stderr), or no input file at all; "
                       "2 usage.")
    v.add_argument("--specs", action="append", metavar="DIR",
                   help="directory of YAML golden vectors (repeatable)")
    v.add_argument("--roundtrip", nargs="+", metavar="INPUT",
                   help="binlog files, directories or globs to parse and rebuild")
    v.add_argument("--out", help="write the report table (parquet) here")
    v.add_argument("--overwrite", action="store_true",
                   help="replace the report table at --out if it exists")
    _common(v)
    v.set_defaults(func=_need_pyspark(run_validate))


def add_current(sub):
    c = sub.add_parser(
        "current", help="the current state of every source table (Parquet or Delta)",
        description="The rows every source table held at the end of the last input binlog's "
        "last complete transaction, one table per source table at OUT/<database>/<table>: "
        "the source columns as Spark types, then _order_key (the order key of the row's last "
        "change). Changes are applied in binlog order, by primary key (a table without one is "
        "a multiset); DDL where it falls (ADD COLUMN fills the rows there with its DEFAULT, "
        "DROP/MODIFY/CHANGE/RENAME COLUMN, RENAME TABLE, TRUNCATE, DROP TABLE). The schema "
        "history is replayed from the binlogs (and --schema). OUT/_binlog_schema/state.json "
        "records what was applied: --base OUT continues from there (incremental; the same "
        "files again change nothing). Foreign-key cascades are in the binlog as rows. Exit "
        "status: 0 clean; 3 when a table could not be built exactly (said on stderr and in "
        "state.json: a table whose history starts before the binlogs without --base, a "
        "statement the schema history refuses: its file, offset, statement and reason, a "
        "damaged file); 1 when a file does not reconcile, or no input file at all; 2 usage.")
    c.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="binlog files, folders or globs of one server (any Hadoop filesystem)")
    c.add_argument("--out", required=True, help="output folder")
    c.add_argument("--base", help="a previous run's --out to continue (its tables are the "
                   "starting state; with --format delta it may be --out itself)")
    c.add_argument("--schema", action="append", metavar="FILE",
                   help="the schema at the start of the first file (mysqldump --no-data; "
                   "repeatable), for tables created before it (their rows before it are not "
                   "known: use with --assume-empty, or start from --base)")
    c.add_argument("--assume-empty", action="store_true",
                   help="tables created before the first binlog were empty then")
    c.add_argument("--format", choices=("parquet", "delta"), default="parquet",
                   help="parquet (default) or delta (the deltalake package: no Spark jars; "
                   "one commit per table and run; TIME as microseconds)")
    c.add_argument("--split-size", default="8m", help="bytes per split (default 8m)")
    c.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    c.add_argument("--quiet", action="store_true", help="no progress lines")
    _common(c)
    from binlog_schema.pipeline.current.command import run_current
    c.set_defaults(func=_need_pyspark(lambda args: run_current(args, parse_conf(args.conf))))


def add_stats(sub):
    from binlog_schema.model.stats import DEFAULT_MAX_EVENT_SIZE, DEFAULT_TOP
    t = sub.add_parser(
        "stats", help="what the files hold (binlog-schema stats' figures), counted on Spark",
        description="The figures of 'binlog-schema stats' (tables, transactions, events, "
        "GTIDs, time) of binlog files, folders or globs (any Hadoop filesystem; the files a "
        "server keeps beside its binlogs are listed on stderr, not read; an index gives the "
        "order of the binlogs it names), counted by Spark tasks split by split and merged: "
        "the same document as 'stats --format json' on the same files in the same order "
        "(files named as spark decode names them). A file with damage is counted again "
        "whole by one task, as 'stats' counts it. Exit status: 0 clean; 3 something skipped "
        "or not decoded (each said on stderr, and listed), or an index naming a file not "
        "there; 1 a file that cannot be used (no figures from it), no input file at all, or "
        "a report page that cannot be made; 2 usage.")
    t.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="binlog or relay-log files, folders (read recursively) or globs, on "
                   "any Hadoop filesystem (file:, hdfs:, s3a:, ...)")
    t.add_argument("--format", choices=("table", "json"), default="table",
                   help="table (default): as 'stats' prints it; json: every figure, with the "
                   "keys docs/insight.md documents")
    t.add_argument("--html", metavar="FILE",
                   help="also write the report page to FILE (a local file, as 'stats --html')")
    t.add_argument("--top", type=int, default=DEFAULT_TOP, metavar="N",
                   help=f"how many of the largest and longest transactions are named "
                   f"(default {DEFAULT_TOP})")
    t.add_argument("--max-event-size", default=DEFAULT_MAX_EVENT_SIZE, metavar="SIZE",
                   help="events larger than SIZE are listed (default 16m; bytes, or with k, m "
                   "or g)")
    t.add_argument("--split-size", default="8m",
                   help="work per split (bytes, plus 200 per event): large files are cut "
                   "at transaction boundaries into splits of about this size (default 8m)")
    t.add_argument("--include-hidden", action="store_true",
                   help="also read files named .* and _* inside directories")
    t.add_argument("--quiet", action="store_true", help="no progress lines")
    _common(t)
    t.set_defaults(func=_need_pyspark(run_stats))


def register(sub):
    """Add this package's subcommands to the ``binlog-schema`` parser."""
    s = sub.add_parser("spark", help="the PySpark pipeline: decode, current, stats, fixtures, "
                       "validate",
                       description="Binlog files to typed tables on Spark (local[*] by "
                       "default, or --master spark://host:7077).",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_commands(s.add_subparsers(dest="spark_command", required=True))


# ---------------------------------------------------------------------------------------
# decode


def run_decode(args) -> int:
    """``spark decode``: decode, write the tables, print the summary."""
    from binlog_schema.pipeline.jobs.decode import have_pyarrow
    from binlog_schema.pipeline.driver.plan import EarlyPrescan, parse_size
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
                          short_lived=args.engine == "arrow")
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
    from binlog_schema.statuses import DAMAGED, STOPPED, worst
    progress = Progress(spark, enabled=not args.quiet)
    try:
        check_format(spark, args.format)
    except RuntimeError as e:
        print(f"binlog-schema spark decode: {e}", file=sys.stderr)
        return USAGE
    mode = "overwrite" if args.overwrite else "errorifexists"
    out = args.out.rstrip("/")
    progress.say(f"Spark {spark.version}, master {spark.sparkContext.master}, "
                 f"{spark.sparkContext.defaultParallelism} cores, engine {args.engine}")
    # Delta: the Parquet files written become Delta tables (deltalake), with this commit
    # metadata
    metadata = {"command": "binlog-schema spark decode", "engine": args.engine,
                "inputs": list(args.inputs)}
    try:
        if args.engine == "arrow":
            tables = decode(args.inputs, spark, out=out, engine="arrow",
                            split_size=args.split_size, rows=not args.no_rows,
                            include_hidden=args.include_hidden, mode=mode, progress=progress,
                            prescan=early, schema=args.schema)
            if args.format == "delta":   # (committed where the tasks wrote them)
                tables.write(out, "delta", mode, progress, metadata)
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
        print(f"binlog-schema spark decode: {e}", file=sys.stderr)
        return USAGE
    except SchemaFileError as e:
        print(f"binlog-schema spark decode: --schema {e}", file=sys.stderr)
        return STOPPED
    except NoInputError as e:
        print(f"binlog-schema spark decode: {e}", file=sys.stderr)
        return STOPPED
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
    from binlog_schema.pipeline.driver.plan import NoInputError, parse_size
    from binlog_schema.pipeline.driver.report import Progress, companion_lines
    from binlog_schema.pipeline.driver.session import finish_session, jvm_starts_here, start_session
    from binlog_schema.pipeline.jobs.stats import stats
    from binlog_schema.serial.stats_write import chart_library, write_figures
    from binlog_schema.statuses import STOPPED, worst
    try:
        max_event_size = parse_size(args.max_event_size)
    except ValueError:
        print(f"binlog-schema spark stats: --max-event-size {args.max_event_size!r}: expected "
              "bytes, or a number with k, m or g", file=sys.stderr)
        return USAGE
    if args.top < 0:
        print(f"binlog-schema spark stats: --top {args.top}: expected 0 or more",
              file=sys.stderr)
        return USAGE
    library = None
    if args.html is not None:   # (said before Spark starts)
        library = chart_library(args.html, sys.stderr)
        if library is None:
            return STOPPED
    own_jvm = "PYSPARK_GATEWAY_PORT" not in os.environ and jvm_starts_here()
    spark = start_session(args.master, parse_conf(args.conf), short_lived=True)
    rc = None
    try:
        progress = Progress(spark, enabled=not args.quiet)
        try:
            run = stats(args.inputs, spark, top=args.top, max_event_size=max_event_size,
                        split_size=args.split_size, include_hidden=args.include_hidden,
                        progress=progress)
        except NoInputError as e:
            print(f"binlog-schema spark stats: {e}", file=sys.stderr)
            rc = STOPPED
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
    spark = start_session(args.master, parse_conf(args.conf))
    t0 = time.time()
    try:
        made = generate(spark, args.out, args.files, seed=args.seed, flavor=args.flavor,
                        transactions=args.transactions, table_maps=args.table_maps)
    except ValueError as e:
        print(f"binlog-schema spark fixtures: {e}", file=sys.stderr)
        return USAGE
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
    from binlog_schema.serial.write import os_problem
    from binlog_schema.statuses import DAMAGED, STOPPED, worst
    if not args.specs and not args.roundtrip:
        print("binlog-schema spark validate: give --specs DIR and/or --roundtrip INPUT...",
              file=sys.stderr)
        return USAGE
    spark = start_session(args.master, parse_conf(args.conf))
    t0 = time.time()
    listing = None
    try:
        if args.roundtrip:
            listing = binlog_inputs(spark, list(args.roundtrip)).check()
        df = validate(spark, args.specs or (), args.roundtrip or (), listing=listing).cache()
    except NoInputError as e:
        print(f"binlog-schema spark validate: --roundtrip: {e}", file=sys.stderr)
        return STOPPED
    except OSError as e:
        print(f"binlog-schema spark validate: {e.filename}: {os_problem(e)}", file=sys.stderr)
        return STOPPED
    if args.out:
        from pyspark.errors import AnalysisException
        try:
            df.write.mode("overwrite" if args.overwrite else "errorifexists").parquet(args.out)
        except AnalysisException as e:   # (it exists: --overwrite)
            print(f"binlog-schema spark validate: --out {args.out}: "
                  f"{str(e).strip().splitlines()[0]}", file=sys.stderr)
            return USAGE
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


def main(argv=None) -> int:
    """``python -m binlog_schema.pipeline.commands decode|fixtures|validate ...``, and the
    file spark-submit runs."""
    p = argparse.ArgumentParser(prog="binlog_schema.pipeline.commands",
                                description="binlog files to typed tables on Spark")
    add_commands(p.add_subparsers(dest="command", required=True))
    args = p.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The Spark pipeline, measured two ways.

Whole command (the default): the wall time of ``binlog-schema spark decode FILE --out DIR
--overwrite --master local[2]`` as a user runs it (a subprocess: interpreter and Spark start-up
included, JAVA_HOME from the repository's .venv/java-home), beside ``mariadb-binlog --verbose
--base64-output=decode-rows FILE > /dev/null``, the two taking turns in the same run; medians
with the min-max spread, and the ratio mariadb-binlog/spark (the median of the per-turn
ratios; below 1: the Spark command is slower).

    .venv/bin/python benchmarks/spark_pipeline.py [FILE] [--python PY] [--ours-cwd DIR]
        [--repeats N] [--master local[2]] [--json OUT] [--baseline-cwd DIR]

FILE defaults to the large MariaDB binlog .work/large/mariadb-large.* (scripts/
make_large_binlog.sh). ``--python`` (default: this repository's .venv) and ``--ours-cwd``
(default: the source tree of that venv) let another worktree's code be measured;
``--baseline-cwd`` runs the same command from another source tree too, in the same turns (a
before/after in one run). The untimed
warm-up turn also lets the first ``spark decode`` of an installation record the JVM's
class-data archive (``binlog_schema.pipeline.driver.session.class_archive``), which every
later command starts from. After the walls, where the Spark command's seconds went (start-up
and exit, pre-scan, decode, driver-side tables: from its progress lines) and the decode stage's
rows and events per second per core (rows and events from its ``files`` table).

Throughput (``--throughput``): events/s and rows/s of the pipeline (default engine: tasks
write Parquet) on local[1] and local[2], on one large binlog and on many small ones, against
the single-process decode (RowDecoder over ``BinlogReader(decode="lazy")``) of the same files,
in this process with this repository's code.

    .venv/bin/python benchmarks/spark_pipeline.py --throughput [LARGE_BINLOG]

Reports, as medians of BENCH_REPEATS runs (default 3; session start-up excluded):
  * events/s and rows/s for local[1] and local[2], large file and small files;
  * speedup local[2]/local[1] (the target on a 2-core machine is 1.8);
  * the single-file split speedup: local[2] with the file cut at transaction boundaries
    against local[2] with the file as one split (no parallelism inside a file);
  * overhead against the single-process decode (wall time of local[1]; and CPU seconds of
    the tasks against the single process's, which the machine's load does not skew);
  * peak memory of a task (worker RSS): with the large file split, unsplit (one task reads
    all 129 MiB) and on small files: bounded regardless of file size, as tasks stream.

The machine is shared: before the figures it prints how two CPU-bound processes scale here
(1.0 = two cores free), which bounds any speedup measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import statistics
import sys
import tempfile
import time
from multiprocessing import Pool

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from command_runs import (  # noqa: E402
    MIB,
    Spread,
    describe_ours,
    java_home,
    load_line,
    ours_cwd_for,
    ratios,
    run_command,
)

REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
SMALL_FILES = int(os.environ.get("BENCH_SMALL_FILES", "48"))
SMALL_TXNS = int(os.environ.get("BENCH_SMALL_TXNS", "400"))


def _burn(n):
    t = time.perf_counter()
    x = 0
    for i in range(n):
        x += i * i
    return time.perf_counter() - t


def cpu_scaling() -> float:
    """Throughput of 2 CPU-bound processes over 1 (2.0: two free cores)."""
    n = 6_000_000
    with Pool(2) as p:
        p.map(_burn, [1000, 1000])
        t = time.perf_counter()
        p.map(_burn, [n], chunksize=1)
        one = time.perf_counter() - t
        t = time.perf_counter()
        p.map(_burn, [n, n], chunksize=1)
        two = time.perf_counter() - t
    return 2 * one / two


def single_process(paths):
    """Events and rows of the files decoded in this process, the seconds and CPU seconds it
    took."""
    from binlog_schema.changes.row_change import RowDecoder
    from binlog_schema.format.stream import BinlogReader
    t, c = time.perf_counter(), time.process_time()
    events = rows = 0
    for path in paths:
        dec = RowDecoder(str(path))
        for rec in BinlogReader(str(path), decode="lazy", skip_errors=True):
            events += 1 + len(rec.inner or ())
            rows += len(dec.feed(rec))
    return events, rows, time.perf_counter() - t, time.process_time() - c


def pipeline_run(spark, inputs, split_size, out):
    from binlog_schema.pipeline.jobs.decode import decode
    t = time.perf_counter()
    tables = decode(inputs, spark, out=out, split_size=split_size, mode="overwrite")
    wall = time.perf_counter() - t
    files = tables.files.collect()
    return {"wall": wall, "events": sum(f["events_read"] for f in files),
            "rows": sum(f["rows"] for f in files),
            "task_cpu": sum(f["task_cpu_seconds"] for f in files),
            "rss_mib": max((f["max_rss_kib"] or 0) for f in files) / 1024,
            "splits": sum(f["splits"] for f in files),
            "reconciled": all(f["reconciled"] for f in files)}


def fmt(r):
    return (f"{r['events'] / r['wall']:>9,.0f} events/s {r['rows'] / r['wall']:>9,.0f} rows/s  "
            f"({r['wall']:.1f}s, {r['splits']} splits, task RSS <= {r['rss_mib']:.0f} MiB)")


def throughput(large):
    from binlog_schema.pipeline.jobs import fixtures as fixtures_job
    from binlog_schema.pipeline.driver.session import start_session
    if large is None:
        found = sorted((ROOT / ".work" / "large").glob("mariadb-large.*"))
        if not found:
            from table_maps import make_large
            found = [pathlib.Path(p) for p in make_large()]
        large = found[0] if found else None
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-spark-"))
    try:
        print(f"machine: {os.cpu_count()} CPUs; two CPU-bound processes run {cpu_scaling():.2f}x "
              "one (2.00 = two free cores)")
        print(f"medians of {REPEATS} runs; Spark session start excluded")
        small_dir = tmp / "small"
        spark = start_session("local[2]")
        fixtures_job.generate(spark, str(small_dir), SMALL_FILES, seed=1, flavor="mixed",
                              transactions=SMALL_TXNS)
        spark.stop()
        small = sorted(small_dir.iterdir())
        cases = []
        if large is not None:
            cases.append(("large file", [str(large)], large.stat().st_size))
        else:
            print("(no large binlog: run scripts/make_large_binlog.sh for the large-file case)")
        cases.append((f"{len(small)} small files", [str(small_dir)],
                      sum(p.stat().st_size for p in small)))
        results = {}
        for name, _inputs, size in cases:
            paths = [large] if name == "large file" else small
            sp = [single_process(paths) for _ in range(REPEATS)]
            ev, rows, _, _ = sp[0]
            secs = statistics.median(s[2] for s in sp)
            results[(name, "single")] = {"events": ev, "rows": rows, "wall": secs,
                                         "cpu": statistics.median(s[3] for s in sp)}
            print(f"\n{name}: {size / MIB:.1f} MiB, {ev:,} events, {rows:,} rows")
            print(f"  single process        {ev / secs:>9,.0f} events/s {rows / secs:>9,.0f} "
                  f"rows/s  ({secs:.1f}s)")
        # the configurations take turns (a fresh session each time: a worker's RSS is a
        # per-process high-water mark), so that the machine's load falls on all of them
        configs = [("local[1]", "8m"), ("local[2]", "8m")]
        if large is not None:
            configs.append(("unsplit", "100g"))
        runs, scalings = {}, []
        for _ in range(REPEATS):
            scalings.append(cpu_scaling())
            for master, split in configs:
                spark = start_session("local[2]" if master == "unsplit" else master)
                pipeline_run(spark, [str(small[0])], "8m", str(tmp / "warm"))  # JVM warm-up
                for name, inputs, _ in cases:
                    if master == "unsplit" and name != "large file":
                        continue
                    r = pipeline_run(spark, inputs, split, str(tmp / "o"))
                    assert r["reconciled"], "a run did not reconcile"
                    assert r["events"] == results[(name, "single")]["events"]
                    assert r["rows"] == results[(name, "single")]["rows"]
                    runs.setdefault((name, master), []).append(r)
                spark.stop()
        for key, rs in runs.items():
            results[key] = {**rs[0], **{k: statistics.median(r[k] for r in rs)
                                        for k in ("wall", "task_cpu", "rss_mib")}}
        print(f"\nmachine during the Spark runs: two CPU-bound processes ran "
              f"{statistics.median(scalings):.2f}x one (median; min {min(scalings):.2f}, "
              f"max {max(scalings):.2f})")
        print()
        for name, _, _ in cases:
            one, two = results[(name, "local[1]")], results[(name, "local[2]")]
            base = results[(name, "single")]
            print(f"{name}:")
            print(f"  local[1]              {fmt(one)}")
            print(f"  local[2]              {fmt(two)}")
            print(f"  speedup local[2]/local[1]: {one['wall'] / two['wall']:.2f}")
            print(f"  overhead of local[1] against the single process: wall "
                  f"{one['wall'] / base['wall']:.2f}x, "
                  f"CPU {one['task_cpu'] / base['cpu']:.2f}x (task CPU seconds against the "
                  "single process's)")
            if (name, "unsplit") in results:
                un = results[(name, "unsplit")]
                print(f"  local[2] unsplit      {fmt(un)}")
                print(f"  single-file split speedup (local[2], split/unsplit): "
                      f"{un['wall'] / two['wall']:.2f}")
                print(f"  task memory: {two['rss_mib']:.0f} MiB split, {un['rss_mib']:.0f} MiB "
                      f"with the whole {large.stat().st_size / MIB:.0f} MiB file in one task")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


PHASES = (("pre-scan", "pre-scan"), ("decode", "decode"), ("tables", "table_maps, files"))


def command_phases(wall, stderr_tail, out) -> dict:
    """Where one run's seconds went, from its progress lines (``[   t s] label: done in x s``,
    t counted from the session being up) and its ``files`` table (rows, events, the splits'
    own wall and CPU seconds)."""
    ph = {"wall": wall}
    last = 0.0
    for line in stderr_tail.splitlines():
        m = re.match(r"\[\s*([\d.]+)s\] (.*)", line.strip())
        if not m:
            continue
        last = max(last, float(m.group(1)))
        for key, label in PHASES:
            d = re.match(re.escape(label) + r": done in ([\d.]+)s", m.group(2))
            if d:
                ph[key] = float(d.group(1))
    # before the session was up, and after the last progress line (summary, exit)
    ph["start-up, exit"] = wall - last
    ph["listing, planning"] = max(0.0, last - sum(ph.get(k, 0.0) for k, _ in PHASES))
    try:
        import pyarrow.parquet as pq
        files = pq.read_table(os.path.join(out, "files")).to_pylist()
        ph["task_seconds"] = sum(f["task_seconds"] or 0 for f in files)
        ph["task_cpu_seconds"] = sum(f["task_cpu_seconds"] or 0 for f in files)
        ph["rows"] = sum(f["rows"] or 0 for f in files)
        ph["events"] = sum(f["events_read"] or 0 for f in files)
    except Exception:  # noqa: BLE001 - no pyarrow here, or no table
        pass
    return ph


def print_phases(phases, cores):
    med = {k: statistics.median(p[k] for p in phases) for k in phases[0]
           if all(k in p for p in phases)}
    print("\nthe Spark command's seconds (median of the turns):")
    for k in ("start-up, exit", "listing, planning", "pre-scan", "decode", "tables"):
        if k in med:
            print(f"  {k:20} {med[k]:6.2f}")
    if "rows" in med and med.get("decode"):
        core_seconds = med["decode"] * cores
        print(f"  decode stage: {med['rows'] / core_seconds:,.0f} rows and "
              f"{med['events'] / core_seconds:,.0f} events per second per core ({cores} "
              f"cores); the splits' own decoding (files table, without each task's last "
              f"batch and Parquet close) {med['task_seconds']:.1f} s wall, "
              f"{med['task_cpu_seconds']:.1f} CPU s")


def whole_command(args):
    """The Spark command and mariadb-binlog, taking turns; wall seconds and their ratio."""
    path = args.file
    if path is None:
        found = sorted((ROOT / ".work" / "large").glob("mariadb-large.*"))
        if not found:
            print("no large MariaDB binlog in .work/large/: run scripts/make_large_binlog.sh "
                  "or give a FILE")
            return 1
        path = found[0]
    path = os.path.abspath(path)
    python = os.path.abspath(args.python)
    cwd = os.path.abspath(args.ours_cwd or ours_cwd_for(python, str(ROOT)))
    env = dict(os.environ)
    jh = args.java_home or java_home(str(ROOT))
    if jh:
        env["JAVA_HOME"] = jh
    where, commit = describe_ours(python, cwd)
    print(f"ours: {python} -m binlog_schema spark decode, cwd {cwd}\n"
          f"      imports {where} (commit {commit}); JAVA_HOME={jh}")
    print(f"file: {path} ({os.path.getsize(path) / MIB:.1f} MiB)")
    print(f"{args.repeats} turns; {os.cpu_count()} CPUs; {load_line()}")
    tmp = tempfile.mkdtemp(prefix="bench-spark-cmd-")
    mb = args.mariadb_binlog
    commands = {
        "spark": ("binlog-schema spark decode FILE --out DIR --overwrite --master "
                  f"{args.master}",
                  lambda out: [python, "-m", "binlog_schema", "spark", "decode", path,
                               "--out", out, "--overwrite", "--master", args.master], cwd),
    }
    if args.baseline_cwd:
        base = os.path.abspath(args.baseline_cwd)
        bwhere, bcommit = describe_ours(python, base)
        print(f"baseline: the same command from {base} (imports {bwhere}, commit {bcommit})")
        commands["baseline"] = (
            f"the same, from {os.path.basename(base)}",
            lambda out: [python, "-m", "binlog_schema", "spark", "decode", path, "--out",
                         out, "--overwrite", "--master", args.master], base)
    if mb:
        commands["mariadb-binlog"] = (
            "mariadb-binlog --verbose --base64-output=decode-rows FILE > /dev/null",
            lambda out: [mb, "--verbose", "--base64-output=decode-rows", path], None)
    else:
        print("(mariadb-binlog not found: the Spark command alone)")
    runs = {k: [] for k in commands}
    phases = []
    try:
        with open(path, "rb") as fh:  # into the page cache
            while fh.read(1 << 24):
                pass
        turns = ([None] if args.warm_up else []) + list(range(args.repeats))
        for turn in turns:
            t = time.perf_counter()
            for key, (_label, argv, kcwd) in commands.items():
                out = os.path.join(tmp, f"out-{key}")
                r = run_command(argv(out), cwd=kcwd, env=env)
                if key == "spark" and turn is not None:
                    phases.append(command_phases(r.wall, r.stderr_tail, out))
                shutil.rmtree(out, ignore_errors=True)
                if r.rc != 0:
                    print(f"  ! {key} exited {r.rc}: {r.stderr_tail[-600:]}", file=sys.stderr)
                if turn is not None:
                    runs[key].append(r)
            print(f"  {'warm-up' if turn is None else f'turn {turn + 1}/{args.repeats}'}: "
                  f"{time.perf_counter() - t:.0f}s; {load_line()}", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"\nwall seconds, median of {args.repeats} turns [min-max]:")
    result = {"file": path, "python": python, "ours_cwd": cwd, "ours_package": where,
              "ours_commit": commit, "master": args.master, "repeats": args.repeats,
              "commands": {}}
    for key, (label, _argv, _cwd) in commands.items():
        rs = runs[key]
        bad = sorted({r.rc for r in rs} - {0})
        w = Spread.of(r.wall for r in rs)
        print(f"  {label:72} {w.fmt()}" + (f"  (exit {bad})" if bad else ""))
        result["commands"][key] = {"label": label, "wall": w.__dict__,
                                   "runs": [r.as_dict() for r in rs]}
    if "mariadb-binlog" in runs:
        q = Spread.of(ratios(runs["mariadb-binlog"], runs["spark"]))
        print(f"  ratio mariadb-binlog/spark (per turn, median [min-max]): {q.fmt()}; "
              f"the Spark command takes {1 / q.median:.1f}x mariadb-binlog's time")
        result["ratio_peer_over_ours"] = q.__dict__
        if "baseline" in runs:
            b = Spread.of(ratios(runs["mariadb-binlog"], runs["baseline"]))
            print(f"  ratio mariadb-binlog/baseline: {b.fmt()}; the baseline takes "
                  f"{1 / b.median:.1f}x mariadb-binlog's time")
            result["ratio_peer_over_baseline"] = b.__dict__
    if phases:
        m = re.fullmatch(r"local\[(\d+)\]", args.master)
        print_phases(phases, int(m.group(1)) if m else os.cpu_count())
        result["phases"] = phases
    tail = runs["spark"][0].stderr_tail.strip().splitlines() if runs["spark"] else []
    if tail:
        print(f"  spark decode said (last line, first turn): {tail[-1][:200]}")
    print(load_line())
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)
        print(f"figures saved to {args.json}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("file", nargs="?", help="binlog file (default: the large MariaDB binlog)")
    ap.add_argument("--throughput", action="store_true",
                    help="in-process pipeline throughput (events/s, rows/s, speedups)")
    ap.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"),
                    help="interpreter for the Spark command (default: this repository's .venv)")
    ap.add_argument("--ours-cwd", help="directory the Spark command runs in (default: the "
                    "source tree of --python's venv, else this repository)")
    ap.add_argument("--repeats", type=int, default=3, help="timed turns (default 3)")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--java-home", help="default: .venv/java-home of this repository, else "
                    "$JAVA_HOME")
    ap.add_argument("--mariadb-binlog", default=shutil.which("mariadb-binlog")
                    or shutil.which("mysqlbinlog"))
    ap.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                    help="skip the untimed first turn")
    ap.add_argument("--json", metavar="OUT", help="save the figures as JSON")
    ap.add_argument("--baseline-cwd", metavar="DIR", help="also run the Spark command from "
                    "this source tree (another version of the package), in the same turns")
    args = ap.parse_args(argv)
    if args.throughput:
        return throughput(pathlib.Path(args.file) if args.file else None)
    return whole_command(args)


if __name__ == "__main__":
    sys.exit(main())

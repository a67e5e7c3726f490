#!/usr/bin/env python3
"""``spark current`` beside ``spark decode`` on one large binlog, as a user runs them.

    .venv/bin/python benchmarks/bench_current.py [FILE] [--python PY] [--ours-cwd DIR]
        [--repeats N] [--master local[2]] [--json OUT] [--no-warm-up] [--min-mib N]

The wall time of ``binlog-schema spark current FILE --out DIR --master local[2]`` (the
current-state tables of every table in the binlog) and of ``binlog-schema spark decode FILE
--out DIR --overwrite --master local[2]`` (the row changes alone), each a subprocess
(interpreter and Spark start-up included, JAVA_HOME from the repository's .venv/java-home), the
two taking turns (an untimed warm-up turn first), each into a fresh output folder. Reported:
the wall medians with their min-max spread, and the ratio current/decode
(the median of the per-turn ratios: how many times decode's time the current state costs),
with the tables and rows ``spark current`` wrote (its state.json). Progress goes to stderr;
the summary is printed as JSON on stdout (``--json OUT`` also saves every run's figures).

FILE defaults to the large MariaDB binlog .work/large/mariadb-large.* (scripts/
make_large_binlog.sh writes one of about 128 MiB); a file under ``--min-mib`` (default 100) is
refused unless ``--min-mib 0``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
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


def current_account(out) -> dict:
    """Tables and rows of a ``spark current`` output, from its state.json."""
    try:
        with open(os.path.join(out, "_binlog_schema", "state.json"), encoding="utf-8") as f:
            tables = json.load(f).get("tables", {})
    except (OSError, ValueError):
        return {}
    return {"tables": len(tables), "rows": sum(t.get("rows") or 0 for t in tables.values())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("file", nargs="?", help="binlog file (default: the large MariaDB binlog)")
    ap.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"),
                    help="interpreter of the commands (default: this repository's .venv)")
    ap.add_argument("--ours-cwd", help="directory the commands run in (default: the source "
                    "tree of --python's venv, else this repository)")
    ap.add_argument("--repeats", type=int, default=3, help="timed turns (default 3)")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                    help="skip the untimed first turn")
    ap.add_argument("--min-mib", type=float, default=100.0,
                    help="refuse a smaller file (default 100; 0: any)")
    ap.add_argument("--json", metavar="OUT", help="also save every run's figures as JSON")
    args = ap.parse_args(argv)

    path = args.file
    if path is None:
        found = sorted((ROOT / ".work" / "large").glob("mariadb-large.*"))
        if not found:
            print("no large MariaDB binlog in .work/large/: run scripts/make_large_binlog.sh "
                  "or give a FILE", file=sys.stderr)
            return 1
        path = found[0]
    path = os.path.abspath(path)
    size = os.path.getsize(path)
    if size < args.min_mib * MIB:
        print(f"{path} is {size / MIB:.1f} MiB, under --min-mib {args.min_mib:g}",
              file=sys.stderr)
        return 2
    python = os.path.abspath(args.python)
    cwd = os.path.abspath(args.ours_cwd or ours_cwd_for(python, str(ROOT)))
    env = dict(os.environ)
    jh = java_home(str(ROOT))
    if jh:
        env["JAVA_HOME"] = jh
    where, commit = describe_ours(python, cwd)
    log = sys.stderr
    print(f"ours: {python} -m binlog_schema, cwd {cwd}\n      imports {where} (commit "
          f"{commit}); JAVA_HOME={jh}", file=log)
    print(f"file: {path} ({size / MIB:.1f} MiB); {args.repeats} turns, master "
          f"{args.master}; {os.cpu_count()} CPUs; {load_line()}", file=log)
    commands = {
        "decode": (f"spark decode FILE --out DIR --overwrite --master {args.master}",
                   lambda out: ["spark", "decode", path, "--out", out, "--overwrite"]),
        "current": (f"spark current FILE --out DIR --master {args.master}",
                    lambda out: ["spark", "current", path, "--out", out]),
    }
    runs = {k: [] for k in commands}
    accounts = []
    tmp = tempfile.mkdtemp(prefix="bench-current-")
    try:
        with open(path, "rb") as fh:  # into the page cache
            while fh.read(1 << 24):
                pass
        turns = ([None] if args.warm_up else []) + list(range(args.repeats))
        for turn in turns:
            t = time.perf_counter()
            for key, (_label, argv_of) in commands.items():
                out = os.path.join(tmp, f"out-{key}")
                shutil.rmtree(out, ignore_errors=True)
                r = run_command([python, "-m", "binlog_schema", *argv_of(out),
                                 "--master", args.master], cwd=cwd, env=env)
                if key == "current" and turn is not None:
                    accounts.append(current_account(out))
                shutil.rmtree(out, ignore_errors=True)
                if r.rc != 0:
                    print(f"  ! {key} exited {r.rc}: {r.stderr_tail[-600:]}", file=log)
                if turn is not None:
                    runs[key].append(r)
            label = "warm-up" if turn is None else f"turn {turn + 1}/{args.repeats}"
            print(f"  {label}: {time.perf_counter() - t:.0f}s; {load_line()}", file=log,
                  flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    summary = {"file": path, "mib": round(size / MIB, 1), "master": args.master,
               "repeats": args.repeats, "ours_commit": commit, "commands": {}}
    print(f"\nwall seconds, median of {args.repeats} turns [min-max]:", file=log)
    for key, (label, _argv) in commands.items():
        rs = runs[key]
        w = Spread.of(r.wall for r in rs)
        codes = sorted({r.rc for r in rs})
        print(f"  {label:60} {w.fmt()}  exit {codes}", file=log)
        # (wall only: a command's CPU and RSS figures would be its Python driver's, not the
        # JVM's nor its workers'; every run's raw figures are in --json)
        summary["commands"][key] = {"label": label, "wall": w.__dict__, "exit_codes": codes}
    q = Spread.of(ratios(runs["current"], runs["decode"]))
    summary["ratio_current_over_decode"] = q.__dict__
    summary["current_output"] = accounts[0] if accounts else {}
    print(f"  ratio current/decode (per turn): {q.fmt()}; {load_line()}", file=log)
    print(json.dumps(summary, indent=1))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({**summary, "runs": {k: [r.as_dict() for r in rs]
                                           for k, rs in runs.items()}}, fh, indent=1)
        print(f"figures saved to {args.json}", file=log)
    return 0 if all(r.rc == 0 for rs in runs.values() for r in rs) else 1


if __name__ == "__main__":
    sys.exit(main())

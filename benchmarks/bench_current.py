#!/usr/bin/env python3
"""``spark decode``, ``spark current``, ``spark changes`` and ``spark history`` on a large
binlog and on a small one, as a user runs them.

    .venv/bin/python benchmarks/bench_current.py [FILE] [--small FILE] [--python PY]
        [--ours-cwd DIR] [--repeats N] [--master local[2]] [--json OUT] [--no-warm-up]
        [--min-mib N] [--commands decode,current]

The wall time of each command, ``binlog-schema spark decode FILE --out DIR --overwrite``,
``spark current FILE --out DIR``, ``spark changes FILE --out DIR`` and ``spark history FILE
--out DIR`` (when ``spark history --help`` works in the tree measured; else reported
missing), all with ``--master local[2]``, each a subprocess (interpreter and Spark start-up
included, JAVA_HOME from the repository's .venv/java-home), into a fresh output folder. The
runs take turns: each turn runs every (file, command) once, the order rotated by one from one
turn to the next (an untimed warm-up turn first), so that the load of a shared machine falls on
all alike. Reported per file: the wall medians with their min-max spread, and the ratio
current/decode (the median of the per-turn ratios), with the tables and rows ``spark current``
wrote (its state.json). Progress goes to stderr; the summary is printed as JSON on stdout
(``--json OUT`` also saves every run's figures).

FILE defaults to the large MariaDB binlog .work/large/mariadb-large.* (scripts/
make_large_binlog.sh writes one of about 128 MiB); a FILE under ``--min-mib`` (default 100) is
refused unless ``--min-mib 0``. ``--commands``: only these of the four (say ``decode,current``
for the ratio alone). ``--small``: a binlog of about 1 MiB (the corpus's
mysql-binlog-connector-java/mysql-bin.sakila, say), measured in the same turns.
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


COMMANDS = ("decode", "current", "changes", "history")


def command_argv(key, path, out):
    """The arguments of ``binlog-schema`` for the command ``key`` on ``path`` into ``out``."""
    return ["spark", key, path, "--out", out] + (["--overwrite"] if key == "decode" else [])


def available(python, cwd, env, key) -> bool:
    """Whether the tree measured has ``spark KEY`` (its ``--help`` exits 0)."""
    import subprocess
    r = subprocess.run([python, "-m", "binlog_schema", "spark", key, "--help"], cwd=cwd,
                       env=env, capture_output=True)
    return r.returncode == 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("file", nargs="?", help="binlog file (default: the large MariaDB binlog)")
    ap.add_argument("--small", metavar="FILE", help="a binlog of about 1 MiB, measured too")
    ap.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"),
                    help="interpreter of the commands (default: this repository's .venv)")
    ap.add_argument("--ours-cwd", help="directory the commands run in (default: the source "
                    "tree of --python's venv, else this repository)")
    ap.add_argument("--repeats", type=int, default=3, help="timed turns (default 3)")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--no-warm-up", dest="warm_up", action="store_false",
                    help="skip the untimed first turn")
    ap.add_argument("--min-mib", type=float, default=100.0,
                    help="refuse a smaller FILE (default 100; 0: any)")
    ap.add_argument("--json", metavar="OUT", help="also save every run's figures as JSON")
    ap.add_argument("--commands", default=",".join(COMMANDS),
                    help=f"the commands measured, comma-separated (default {','.join(COMMANDS)})")
    args = ap.parse_args(argv)
    chosen = [k.strip() for k in args.commands.split(",") if k.strip()]
    unknown = [k for k in chosen if k not in COMMANDS]
    if unknown or not chosen:
        ap.error(f"--commands: one or more of {', '.join(COMMANDS)}")

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
    files = {"large": path}
    if args.small:
        files["small"] = os.path.abspath(args.small)
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
    for label, f in files.items():
        print(f"{label}: {f} ({os.path.getsize(f) / MIB:.1f} MiB)", file=log)
    print(f"{args.repeats} turns, master {args.master}; {os.cpu_count()} CPUs; "
          f"{load_line()}", file=log)
    keys = [k for k in COMMANDS if k in chosen and available(python, cwd, env, k)]
    missing = [k for k in COMMANDS if k in chosen and k not in keys]
    if missing:
        print(f"missing (no 'spark {' / '.join(missing)}' in the tree measured): not run",
              file=log)
    cases = [(f, k) for f in files for k in keys]
    runs = {c: [] for c in cases}
    accounts = {f: [] for f in files}
    tmp = tempfile.mkdtemp(prefix="bench-current-")
    try:
        for f in files.values():  # into the page cache
            with open(f, "rb") as fh:
                while fh.read(1 << 24):
                    pass
        turns = ([None] if args.warm_up else []) + list(range(args.repeats))
        for n, turn in enumerate(turns):
            t = time.perf_counter()
            shift = n % len(cases)
            for f, key in cases[shift:] + cases[:shift]:
                out = os.path.join(tmp, f"out-{f}-{key}")
                shutil.rmtree(out, ignore_errors=True)
                r = run_command([python, "-m", "binlog_schema",
                                 *command_argv(key, files[f], out), "--master", args.master],
                                cwd=cwd, env=env)
                if key == "current" and turn is not None:
                    accounts[f].append(current_account(out))
                shutil.rmtree(out, ignore_errors=True)
                if r.rc not in (0, 3):
                    print(f"  ! {f} {key} exited {r.rc}: {r.stderr_tail[-600:]}", file=log)
                if turn is not None:
                    runs[(f, key)].append(r)
            label = "warm-up" if turn is None else f"turn {turn + 1}/{args.repeats}"
            print(f"  {label}: {time.perf_counter() - t:.0f}s; {load_line()}", file=log,
                  flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    summary = {"files": {f: {"path": p, "mib": round(os.path.getsize(p) / MIB, 1)}
                         for f, p in files.items()},
               "master": args.master, "repeats": args.repeats, "ours_commit": commit,
               "missing": missing, "commands": {}}
    print(f"\nwall seconds, median of {args.repeats} turns [min-max]:", file=log)
    for f in files:
        for key in keys:
            rs = runs[(f, key)]
            w = Spread.of(r.wall for r in rs)
            codes = sorted({r.rc for r in rs})
            label = f"{f}: spark {key}"
            print(f"  {label:28} {w.fmt()}  exit {codes}", file=log)
            # (wall only: a command's CPU and RSS figures would be its Python driver's, not
            # the JVM's nor its workers'; every run's raw figures are in --json)
            summary["commands"][f"{f} {key}"] = {"wall": w.__dict__, "exit_codes": codes}
        if "current" in keys and "decode" in keys:
            q = Spread.of(ratios(runs[(f, "current")], runs[(f, "decode")]))
            summary["files"][f]["ratio_current_over_decode"] = q.__dict__
            summary["files"][f]["current_output"] = accounts[f][0] if accounts[f] else {}
            print(f"  {f}: ratio current/decode (per turn): {q.fmt()}", file=log)
    for key in missing:
        print(f"  spark {key}: missing", file=log)
    print(f"  {load_line()}", file=log)
    print(json.dumps(summary, indent=1))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({**summary, "runs": {f"{f} {k}": [r.as_dict() for r in rs]
                                           for (f, k), rs in runs.items()}}, fh, indent=1)
        print(f"figures saved to {args.json}", file=log)
    # (3: a command that said what it could not do, e.g. tables whose history starts before
    # the binlog: measured all the same)
    return 0 if all(r.rc in (0, 3) for rs in runs.values() for r in rs) else 1


if __name__ == "__main__":
    sys.exit(main())

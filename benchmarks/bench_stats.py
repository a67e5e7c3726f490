#!/usr/bin/env python3
"""``stats`` end to end, on a large file (issue 28's figure):

    .venv/bin/python benchmarks/bench_stats.py [--large FILE] [--repeats N] [--workers N]
        [--skip-count] [--json OUT]

``binlog-schema stats --format json FILE`` against ``binlog-schema decode FILE`` (no rows)
on the >= 100 MiB real binlog (default: .work/large/mariadb-large.*, made by
scripts/make_large_binlog.sh from a real MariaDB), taking turns; the goal: stats at most 1.2x
decode. Then stats' figures are compared with an independent count: decode --rows's JSON
Lines summed here (tests/stats_count.py; --skip-count leaves it out: it takes minutes).
``--where`` against the full decode: benchmarks/bench_where.py.

Every command is a whole process (interpreter start included), stdout to /dev/null; wall and
CPU seconds (user + system, children included) per run; medians of ``--repeats`` turns.
``--workers`` sets BINLOG_SCHEMA_WORKERS for both sides (default: as the machine decides).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from command_runs import run_command  # noqa: E402


def timed(cases, repeats, env):
    """{name: [Run, ...]} of the commands taking turns."""
    runs = {name: [] for name, _ in cases}
    for _ in range(repeats):
        for name, argv in cases:
            r = run_command(argv, env=env, cwd=str(ROOT))
            if r.rc not in (0, 3):
                raise SystemExit(f"{name} failed ({r.rc}): {r.stderr_tail}")
            runs[name].append(r)
    return runs


def med(runs, field):
    return statistics.median(getattr(r, field) for r in runs)


def independent_count(path, env):
    from tests.stats_count import count
    p = subprocess.Popen([sys.executable, "-m", "binlog_schema", "decode", "--rows", path],
                         stdout=subprocess.PIPE, env=env, cwd=str(ROOT))
    got = count([(path, (json.loads(line) for line in p.stdout))])
    p.wait()
    return got


def add_turn_arguments(ap, repeats: int) -> None:
    """The arguments of the turns these benchmarks time (also ``bench_where.py``'s): how many
    turns, the worker processes of ours, a JSON file for the figures."""
    ap.add_argument("--repeats", type=int, default=repeats)
    ap.add_argument("--workers", type=int)
    ap.add_argument("--json", help="write the figures there")


def turn_env(args) -> dict:
    """The environment the timed commands run in (``--workers``: BINLOG_SCHEMA_WORKERS)."""
    env = dict(os.environ)
    if args.workers:
        env["BINLOG_SCHEMA_WORKERS"] = str(args.workers)
    return env


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large", help="the >= 100 MiB binlog (default .work/large/mariadb-large.*)")
    add_turn_arguments(ap, repeats=3)
    ap.add_argument("--skip-count", action="store_true")
    args = ap.parse_args()
    env = turn_env(args)
    B = [sys.executable, "-m", "binlog_schema"]
    figures = {}
    large = args.large or next(iter(sorted(glob.glob(str(ROOT / ".work/large/mariadb-large.*")))),
                               None)
    if large is None:
        raise SystemExit("no large binlog: run scripts/make_large_binlog.sh (or --large FILE)")
    size = os.path.getsize(large)
    print(f"1. stats vs decode (no rows) on {large} ({size / (1 << 20):.1f} MiB)")
    runs = timed([("decode", B + ["decode", large]),
                  ("stats", B + ["stats", "--format", "json", large])], args.repeats, env)
    for name in runs:
        print(f"   {name:8} wall {med(runs[name], 'wall'):6.2f} s  "
              f"cpu {med(runs[name], 'cpu'):6.2f} s")
    wall = med(runs["stats"], "wall") / med(runs["decode"], "wall")
    cpu = med(runs["stats"], "cpu") / med(runs["decode"], "cpu")
    print(f"   stats / decode: wall {wall:.2f}x, cpu {cpu:.2f}x (goal <= 1.2x)")
    figures["stats_vs_decode"] = {"file_mib": size / (1 << 20), "wall_ratio": wall,
                                  "cpu_ratio": cpu}
    if not args.skip_count:
        from tests.stats_count import of_stats
        out = subprocess.run(B + ["stats", "--format", "json", large], capture_output=True,
                             env=env, cwd=str(ROOT), check=False)
        got = of_stats(json.loads(out.stdout))
        want = independent_count(large, env)
        same = got == want
        print(f"   figures equal decode --rows's JSON summed: {same}")
        figures["stats_equal_independent_count"] = same
        if not same:
            for k in want:
                if got.get(k) != want[k]:
                    print(f"   differs: {k}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()

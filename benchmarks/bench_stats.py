#!/usr/bin/env python3
"""``stats`` and ``--where``, end to end, on large files (issue 28's figures):

    .venv/bin/python benchmarks/bench_stats.py [--large FILE] [--repeats N] [--workers N]
        [--skip-count] [--json OUT]

1. ``binlog-schema stats --format json FILE`` against ``binlog-schema decode FILE`` (no rows)
   on the >= 100 MiB real binlog (default: .work/large/mariadb-large.*, made by
   scripts/make_large_binlog.sh from a real MariaDB), taking turns; the goal: stats at most
   1.2x decode. Then stats' figures are compared with an independent count: decode --rows's
   JSON Lines summed here (tests/stats_count.py; --skip-count leaves it out: it takes minutes).
2. ``decode --format maxwell --table fx.rare --where id=N`` against the full ``decode --format
   maxwell`` (and ``decode --rows``) on a synthetic file where that table holds 1% of the rows
   events (written here by the fixture generator); the goal: --where at least 3x faster. The
   changes it finds are checked against the full decode filtered here.

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
import tempfile

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


def rare_file(folder, transactions=40000) -> str:
    """A binlog where table ``rare`` holds 1% of the rows events (the fixture generator)."""
    from binlog_schema.synthetic.spec import load_spec
    from binlog_schema.synthetic.writer import generate
    txs = []
    busy = rare = 0
    for i in range(transactions):
        if i % 100 == 50:
            rare += 1
            txs.append({"changes": [{"insert": "rare", "rows": [
                {"id": rare, "note": f"rare {rare}", "amount": f"{rare}.50"}]}]})
        else:
            busy += 1
            txs.append({"changes": [{"insert": "busy", "rows": [
                {"id": busy * 4 + k, "name": f"row {busy} {k}", "qty": k,
                 "at": "2024-05-01 10:00:00.250"} for k in range(4)]}]})
    spec = {"server": "mariadb-10.11", "settings": {"binlog_row_metadata": "FULL"},
            "database": "fx", "tables": [
                {"name": "busy", "columns": [
                    {"name": "id", "type": "BIGINT", "nullable": False},
                    {"name": "name", "type": "VARCHAR(40)", "charset": "utf8mb4"},
                    {"name": "qty", "type": "INT"},
                    {"name": "at", "type": "DATETIME(3)"}], "primary_key": ["id"]},
                {"name": "rare", "columns": [
                    {"name": "id", "type": "BIGINT", "nullable": False},
                    {"name": "note", "type": "VARCHAR(40)", "charset": "utf8mb4"},
                    {"name": "amount", "type": "DECIMAL(10,2)"}], "primary_key": ["id"]}],
            "transactions": txs}
    path = os.path.join(folder, "rare.000001")
    with open(path, "wb") as f:
        f.write(generate(load_spec(spec)))
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--large", help="the >= 100 MiB binlog (default .work/large/mariadb-large.*)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int)
    ap.add_argument("--skip-count", action="store_true")
    ap.add_argument("--json", help="write the figures there")
    args = ap.parse_args()
    env = dict(os.environ)
    if args.workers:
        env["BINLOG_SCHEMA_WORKERS"] = str(args.workers)
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
        print(f"   {name:8} wall {med(runs[name], 'wall'):6.2f} s  cpu {med(runs[name], 'cpu'):6.2f} s")
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
    with tempfile.TemporaryDirectory() as tmp:
        rare = rare_file(tmp)
        print(f"2. --where vs the full decode on {os.path.getsize(rare) / (1 << 20):.1f} MiB, "
              "table fx.rare 1% of the rows events")
        where = B + ["decode", "--format", "maxwell", "--table", "fx.rare", "--where", "id=77",
                     rare]
        runs = timed([("full maxwell", B + ["decode", "--format", "maxwell", rare]),
                      ("full --rows", B + ["decode", "--rows", rare]),
                      ("--where", where)], args.repeats, env)
        for name in runs:
            print(f"   {name:13} wall {med(runs[name], 'wall'):6.2f} s  cpu "
                  f"{med(runs[name], 'cpu'):6.2f} s")
        for full in ("full maxwell", "full --rows"):
            r = med(runs[full], "wall") / med(runs["--where"], "wall")
            c = med(runs[full], "cpu") / med(runs["--where"], "cpu")
            print(f"   {full} / --where: wall {r:.2f}x, cpu {c:.2f}x (goal >= 3x)")
            figures[f"where_speedup_vs_{full.split()[1].lstrip('-')}"] = {"wall": r, "cpu": c}
        found = [json.loads(x) for x in subprocess.run(where, capture_output=True, env=env,
                                                       cwd=str(ROOT)).stdout.splitlines()]
        full = [json.loads(x) for x in subprocess.run(
            B + ["decode", "--format", "maxwell", rare], capture_output=True, env=env,
            cwd=str(ROOT)).stdout.splitlines()]
        want = [c for c in full if c["table"] == "rare" and (c["data"].get("id") == 77 or
                                                             (c.get("old") or {}).get("id") == 77)]
        same = found == want and len(want) > 0
        print(f"   --where found exactly the filtered full decode's changes: {same} "
              f"({len(found)})")
        figures["where_equal_filtered_full_decode"] = same
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()

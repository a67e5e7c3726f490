#!/usr/bin/env python3
"""Fixture generation throughput: MiB of binlog written per second, spec loading (values
checked, state tracked) included, for random specs of each server flavor, and for the
example spec of every MariaDB column type.

    .venv/bin/python benchmarks/fixtures.py [--transactions N] [--rows N]

Medians of BENCH_REPEATS runs (default 3); the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from binlog_schema.synthetic import generate, load_spec, random_spec  # noqa: E402

REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
MIB = 1 << 20


def timed(spec):
    runs, size, events = [], 0, 0
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fx = load_spec(spec)
        data = generate(fx)
        runs.append(time.perf_counter() - t0)
        size = len(data)
        events = sum(len(tx.changes) for tx in fx.transactions)
    return statistics.median(runs), size, events


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--transactions", type=int, default=400)
    p.add_argument("--rows", type=int, default=8)
    p.add_argument("--tables", type=int, default=6)
    args = p.parse_args(argv)
    cases = []
    for flavor in ("mysql-5.7", "mysql-8.0", "mysql-9.0", "mariadb-10.11"):
        cases.append((f"random {flavor}", random_spec(1, tables=args.tables,
                                                     transactions=args.transactions,
                                                     flavor=flavor, rows=args.rows)))
    big = random_spec(2, tables=args.tables, transactions=args.transactions,
                      flavor="mysql-8.0", rows=args.rows)
    big["settings"]["compression"] = True
    cases.append(("random mysql-8.0 zstd", big))
    ints = random_spec(3, tables=args.tables, transactions=args.transactions,
                       flavor="mariadb-10.11", rows=args.rows * 4, types="int:3,string")
    cases.append(("random mariadb ints+strings", ints))
    cases.append(("example: MariaDB all types",
                  ROOT / "specs" / "fixtures" / "examples" / "mariadb-all-types.fixture"))
    print(f"{'case':32} {'MiB':>8} {'changes':>8} {'seconds':>8} {'MiB/s':>8}")
    total_bytes = total_time = 0.0
    for name, spec in cases:
        seconds, size, changes = timed(spec)
        total_bytes += size
        total_time += seconds
        print(f"{name:32} {size / MIB:8.2f} {changes:8d} {seconds:8.3f} "
              f"{size / MIB / seconds:8.2f}")
    print(f"{'all':32} {total_bytes / MIB:8.2f} {'':8} {total_time:8.3f} "
          f"{total_bytes / MIB / total_time:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Row decoding throughput: binlog_schema (every event parsed, every row image decoded to typed
values through its table map) beside python-mysql-replication (rows decoded) and
`mariadb-binlog --verbose` (rows printed as text to /dev/null), on the same file in one run.

    .venv/bin/python benchmarks/rows.py [BINLOG]

Default: the large MariaDB binlog of scripts/make_large_binlog.sh (.work/large/). Medians of
BENCH_REPEATS runs (default 3); the machine is shared and noisy.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from binlog_schema.changes.row_change import RowDecoder  # noqa: E402
from binlog_schema.format.stream import BinlogReader  # noqa: E402
from table_maps import make_large  # noqa: E402

REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
MIB = 1 << 20


def ours(path):
    dec = RowDecoder(str(path))
    n = 0
    for rec in BinlogReader(path, decode="lazy"):
        n += len(dec.feed(rec))
    return n


def pmr(path):
    from peers import pmr_event_parser
    d = pmr_event_parser(decode_rows=True, strict=False)
    n = 0
    for _off, _t, ev, err in d.iter_events(pathlib.Path(path).read_bytes()):
        if err is None and ev is not None and isinstance(ev, d._RowsEvent):
            n += len(ev.rows)
    return n


def mariadb_binlog_verbose(path):
    tool = shutil.which("mariadb-binlog") or shutil.which("mysqlbinlog")
    if tool is None:
        return None
    with open(os.devnull, "wb") as null:
        subprocess.run([tool, "--verbose", "--base64-output=decode-rows", str(path)],
                       stdout=null, stderr=subprocess.DEVNULL, check=False)
    return -1


def timed(fn, path):
    times, result = [], None
    for _ in range(REPEATS):
        t = time.perf_counter()
        result = fn(path)
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def main(argv):
    if argv:
        path = pathlib.Path(argv[0])
    else:
        large = sorted((ROOT / ".work" / "large").glob("mariadb-large.*")) or [
            pathlib.Path(p) for p in make_large()]
        if not large:
            print("no large binlog: run scripts/make_large_binlog.sh first")
            return 1
        path = large[0]
    size = path.stat().st_size / MIB
    t_ours, rows = timed(ours, path)
    print(f"{path.name}: {size:.1f} MiB")
    print(f"  binlog_schema          {rows / t_ours:10,.0f} rows/s {size / t_ours:7.1f} MiB/s"
          f"  ({rows:,} rows)")
    t_pmr, rows_pmr = timed(pmr, path)
    print(f"  python-mysql-replication {rows_pmr / t_pmr:8,.0f} rows/s {size / t_pmr:7.1f} MiB/s"
          f"  ({rows_pmr:,} rows)   ours/PMR = {t_pmr / t_ours:.2f}x")
    t_mb, ok = timed(mariadb_binlog_verbose, path)
    if ok is None:
        print("  mariadb-binlog: not installed")
    else:
        print(f"  mariadb-binlog --verbose {size / t_mb:15.1f} MiB/s"
              f"   ours/mariadb-binlog = {t_mb / t_ours:.2f}x (target: within 5x, i.e. >= 0.2)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""TABLE_MAP throughput: binlog_schema parse, build and typed model, beside
python-mysql-replication's TableMapEvent on the same events, in the same run.

    .venv/bin/python benchmarks/table_maps.py [BINLOG...]

Events: every TABLE_MAP of the shared corpus (BINLOG_CORPUS, default ../shared/corpus) and of
the MariaDB binlogs under .work/ (scripts/make_mariadb_binlogs.sh and
scripts/make_large_binlog.sh write them; pass files to use others). Figures are medians of
repeated passes (the machine is shared and noisy); ratios are within this run.
"""

from __future__ import annotations

import glob
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from binlog_schema.format.event_codec import build_event, parse_event  # noqa: E402
from binlog_schema.changes.table_map import table_map_from_event  # noqa: E402
from binlog_schema.format.facts.codes import TABLE_MAP_EVENT, TRANSACTION_PAYLOAD_EVENT  # noqa: E402
from binlog_schema.format.stream import BinlogReader  # noqa: E402

CORPUS = pathlib.Path(os.environ.get("BINLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "5"))


def collect(files, limit=None):
    events = []
    for path in files:
        for rec in BinlogReader(path, types=[TABLE_MAP_EVENT, TRANSACTION_PAYLOAD_EVENT]):
            for r in [rec] + list(rec.inner or []):
                if r.kind == TABLE_MAP_EVENT and r.value is not None:
                    events.append((r.raw, r.ctx))
                    if limit and len(events) >= limit:
                        return events
    return events


def rate(fn, items, repeats=REPEATS):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for it in items:
            fn(it)
        times.append(time.perf_counter() - t)
    return len(items) / statistics.median(times)


def bench(name, events):
    from peers import pmr_table_map_parser
    pmr = {f: pmr_table_map_parser(f) for f in ("mysql", "mariadb")}

    def pmr_parse(item):
        raw, ctx = item
        return pmr[ctx.flavor or "mysql"](raw, ctx.table_id_size, ctx.checksum)

    usable, failed = [], 0
    for item in events:
        try:
            pmr_parse(item)
            usable.append(item)
        except Exception:  # noqa: BLE001 - PMR's failures are counted, not fatal
            failed += 1
    parsed = [(parse_event(raw, ctx), ctx) for raw, ctx in usable]
    r_ours = rate(lambda it: parse_event(it[0], it[1]), usable)
    r_pmr = rate(pmr_parse, usable)
    r_build = rate(lambda it: build_event(it[0], it[1]), parsed)
    r_model = rate(lambda it: table_map_from_event(it[0], it[1]), parsed)
    r_all = rate(lambda it: parse_event(it[0], it[1]), events)
    print(f"\n{name}: {len(events)} TABLE_MAPs ({len(usable)} that PMR parses, "
          f"{failed} it fails on)")
    print(f"  binlog_schema parse  {r_ours:10,.0f} maps/s   (all {len(events)}: "
          f"{r_all:,.0f} maps/s)")
    print(f"  binlog_schema build  {r_build:10,.0f} maps/s   build/parse = {r_build / r_ours:.2f}")
    print(f"  typed model (from parsed) {r_model:7,.0f} maps/s")
    print(f"  python-mysql-replication {r_pmr:6,.0f} maps/s")
    print(f"  ratio parse / PMR    {r_ours / r_pmr:10.2f}x")
    return {"maps": len(events), "parse": r_ours, "build": r_build, "model": r_model,
            "pmr": r_pmr, "ratio": r_ours / r_pmr}


def make_large():
    """Generate the large MariaDB binlog (a private real server) when it is not there."""
    import shutil
    import subprocess
    if not (shutil.which("mariadbd") or os.path.exists("/usr/sbin/mariadbd")):
        print("(no mariadbd: the large MariaDB binlog is not generated)")
        return []
    print("generating the large MariaDB binlog (scripts/make_large_binlog.sh) ...", flush=True)
    subprocess.run(["bash", str(ROOT / "scripts" / "make_large_binlog.sh")], check=True,
                   stdout=subprocess.DEVNULL)
    return sorted(glob.glob(str(ROOT / ".work" / "large" / "mariadb-large.*")))


def main(argv):
    sets = []
    if argv:
        sets.append(("given files", argv))
    else:
        corpus = sorted(p for p in CORPUS.rglob("*") if p.is_file()
                        and p.suffix not in (".md", ".txt")) if CORPUS.is_dir() else []
        if corpus:
            sets.append((f"shared corpus ({len(corpus)} files)", corpus))
        maria = sorted(glob.glob(str(ROOT / ".work" / "binlogs" / "mariadb-*")))
        if maria:
            sets.append(("MariaDB server binlogs (scripts/make_mariadb_binlogs.sh)", maria))
        large = sorted(glob.glob(str(ROOT / ".work" / "large" / "mariadb-large.*")))
        if not large:
            large = make_large()
        if large:
            sets.append(("large MariaDB binlog (scripts/make_large_binlog.sh), first 50,000",
                         large))
    if not sets:
        print("no binlogs: set BINLOG_CORPUS or run scripts/make_mariadb_binlogs.sh")
        return 1
    for name, files in sets:
        bench(name, collect(files, limit=50_000))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

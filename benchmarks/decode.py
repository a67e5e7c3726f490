#!/usr/bin/env python3
"""Whole-file decode throughput: binlog_schema's streaming reader (every event parsed, rows
kept raw) beside python-mysql-replication (events decoded, rows not) and `mariadb-binlog`
(text output to /dev/null) on the same files, in the same run; and the reader's peak memory
on a small and a large file (it must stay flat as the file grows).

    .venv/bin/python benchmarks/decode.py [BINLOG...]

Default files: the largest file of the shared corpus and the large MariaDB binlog of
scripts/make_large_binlog.sh (.work/large/). Ours and PMR run in turns in this process and are
timed in CPU seconds (the machine is shared); mariadb-binlog by wall clock. Figures are medians.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from binlog_schema.format.scanning import Blocks  # noqa: E402
from binlog_schema.format.stream import MAX_EVENT_SIZE, BinlogReader  # noqa: E402
from table_maps import make_large  # noqa: E402

CORPUS = pathlib.Path(os.environ.get("BINLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
MIB = 1 << 20


def ours(path):
    n = 0
    for rec in BinlogReader(path, skip_errors=True):
        n += 1 + len(rec.inner or ())
    return n


def pmr(path):
    from peers import pmr_event_parser
    dec = pmr_event_parser(decode_rows=False, strict=False)
    data = pathlib.Path(path).read_bytes()
    return sum(1 for _ in dec.iter_events(data))


def mariadb_binlog(path, verbose=False):
    tool = shutil.which("mariadb-binlog") or shutil.which("mysqlbinlog")
    if tool is None:
        return None
    args = [tool] + (["--verbose"] if verbose else []) + [str(path)]
    with open(os.devnull, "wb") as null:
        subprocess.run(args, stdout=null, stderr=subprocess.DEVNULL, check=False)
    return -1


def timed(fn, path, repeats=REPEATS):
    times, result = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        result = fn(path)
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def paired(fa, fb, path, repeats=REPEATS):
    """Two in-process decoders timed in turns (a, b, a, b, ...) in CPU seconds of this process,
    so that another job on the shared machine neither favours one nor inflates both; returns
    the two medians, the median of the per-turn ratios b/a, and the two results."""
    ta, tb, ra, rb = [], [], None, None
    for _ in range(repeats):
        t = time.process_time()
        ra = fa(path)
        ta.append(time.process_time() - t)
        t = time.process_time()
        rb = fb(path)
        tb.append(time.process_time() - t)
    ratio = statistics.median(b / a for a, b in zip(ta, tb))
    return statistics.median(ta), statistics.median(tb), ratio, ra, rb


def peak_rss_mib(path) -> float:
    """Peak RSS of a fresh process that streams the whole file with the reader."""
    code = ("import resource, sys\nfrom binlog_schema.format.stream import BinlogReader\n"
            "n = sum(1 for _ in BinlogReader(sys.argv[1], skip_errors=True))\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, check=True, cwd=ROOT)
    return int(out.stdout.split()[-1]) / 1024


def prefix_copy(path, size, out):
    """The first events of ``path`` up to about ``size`` bytes (cut at an event boundary)."""
    with open(path, "rb") as f, open(out, "wb") as g:
        g.write(f.read(4))
        for pos, _code, n, buf, i in Blocks(f, pos=4).walk(4, MAX_EVENT_SIZE):
            if pos >= size:
                break
            g.write(buf[i:i + n])


def bench(path):
    size = os.path.getsize(path)
    repeats = REPEATS if size > 32 * MIB else max(REPEATS, 9)  # small files: more turns
    try:
        t_ours, t_pmr, ratio, n, n_pmr = paired(ours, pmr, path, repeats)
    except Exception as e:  # noqa: BLE001 - a peer that cannot run is reported, not fatal
        print(f"  python-mysql-replication: not run ({type(e).__name__}: {e})")
        t_ours, n = timed(ours, path)
        t_pmr = None
    print(f"\n{path.name}: {size / MIB:.1f} MiB, {n:,} events "
          f"(CPU-time medians of {repeats} turns)")
    print(f"  binlog_schema   {size / MIB / t_ours:8.1f} MiB/s {n / t_ours:12,.0f} events/s")
    if t_pmr is not None:
        print(f"  python-mysql-replication {size / MIB / t_pmr:5.1f} MiB/s "
              f"{n_pmr / t_pmr:12,.0f} events/s   ours/PMR = {t_pmr / t_ours:.2f}x "
              f"(median of per-turn ratios {ratio:.2f}x)")
    t_mb, ok = timed(mariadb_binlog, path)
    if ok is None:
        print("  mariadb-binlog: not installed")
    else:
        print(f"  mariadb-binlog  {size / MIB / t_mb:8.1f} MiB/s                      "
              f"ours/mariadb-binlog = {t_mb / t_ours:.2f}x")


def main(argv):
    files = [pathlib.Path(a) for a in argv]
    if not files:
        if CORPUS.is_dir():
            corpus = [p for p in CORPUS.rglob("*") if p.is_file()
                      and p.suffix not in (".md", ".txt")]
            files.append(max(corpus, key=lambda p: p.stat().st_size))
        large = sorted((ROOT / ".work" / "large").glob("mariadb-large.*")) or [
            pathlib.Path(p) for p in make_large()]
        if not large:
            print("(no large binlog: run scripts/make_large_binlog.sh for the 128 MiB case)")
        files += large[:1]
    for path in files:
        bench(path)
    big = max(files, key=lambda p: p.stat().st_size)
    if big.stat().st_size > 32 * MIB:
        with tempfile.TemporaryDirectory() as tmp:
            small = pathlib.Path(tmp) / "prefix.bin"
            prefix_copy(big, 8 * MIB, small)
            a, b = peak_rss_mib(small), peak_rss_mib(big)
            print(f"\npeak RSS streaming {small.stat().st_size / MIB:.0f} MiB: {a:.0f} MiB; "
                  f"{big.stat().st_size / MIB:.0f} MiB: {b:.0f} MiB (flat: {b / a:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

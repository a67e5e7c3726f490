#!/usr/bin/env python3
"""``binlog-schema serve`` beside a real MariaDB master, serving the same binlog files.

    .venv/bin/python benchmarks/bench_serve.py [--rows N] [--json OUT]

A private MariaDB (the writer, scripts/mariadb.sh) writes ``--rows`` rows (default 100000:
INSERTs of 20 rows, 200 rows a transaction, an UPDATE of every row, over a few files), its
binlog files are copied to a folder that ``binlog-schema serve`` (a subprocess) serves. Then,
in the same run, the events/s of:

* a real MariaDB replica (a second private server) catching up, from START SLAVE until its
  executed position is the end of the last file: replicating from ``serve``, and from the
  writer itself (the replica reset between the two);
* python-mysql-replication's BinLogStreamReader reading every event (non-blocking, all
  events decoded, rows included): from ``serve``, and from the writer;
* the client side, end to end as users run it: ``binlog-schema stream --rows`` (to
  /dev/null) beside a python-mysql-replication process doing the same work (every event, rows
  decoded), alternately, ``--turns`` times each, from the writer and from ``serve``; medians,
  and each side's peak resident memory;
* ``serve``'s own peak resident memory at the end (VmHWM).

Events are the files' events after the first FORMAT_DESCRIPTION (what a replica receives).
Progress on stderr, the summary as JSON on stdout (``--json OUT`` saves it too).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.server.flashback_workload import Server  # noqa: E402

USER, PASSWORD = "bench", "bench-pw"


def note(msg):
    print(f"[bench_serve] {msg}", file=sys.stderr, flush=True)


def workload(srv, rows):
    srv.q("SET sql_log_bin = 0")
    srv.q(f"CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'")
    srv.q(f"GRANT ALL ON *.* TO '{USER}'@'%'")
    srv.q("SET sql_log_bin = 1")
    srv.q("CREATE DATABASE bs")
    srv.q("CREATE TABLE bs.t (id INT PRIMARY KEY, a BIGINT, s VARCHAR(64), d DECIMAL(12,3), "
          "t DATETIME(6))")
    conn = srv.conn
    for start in range(0, rows, 200):
        conn.begin()
        cur = conn.cursor()
        for lo in range(start, min(start + 200, rows), 20):
            cur.execute("INSERT INTO bs.t VALUES " + ",".join(
                f"({i}, {i * 7919}, 'row {i}', {i}.125, '2024-05-06 07:08:09.{i % 1000000:06d}')"
                for i in range(lo, min(lo + 20, rows))))
        conn.commit()
        if start and start % (rows // 3 // 200 * 200 or 200) == 0:
            srv.q("FLUSH BINARY LOGS")
    srv.q("UPDATE bs.t SET a = a + 1")


def files_of(srv):
    return sorted(p for p in srv.binlog_dir.iterdir()
                  if p.is_file() and not p.name.endswith(".index"))


def count_events(paths):
    from binlog_schema.format.stream import BinlogReader
    return sum(sum(1 for _ in BinlogReader(str(p), decode=False)) - 1 for p in paths)



def replica_run(replica, port, last_name, last_size):
    replica.q("STOP SLAVE")
    replica.q("RESET SLAVE ALL")
    replica.q("DROP DATABASE IF EXISTS bs")
    replica.q("RESET MASTER")
    replica.q("SET GLOBAL gtid_slave_pos = ''")
    replica.q(f"CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={port}, "
              f"MASTER_USER='{USER}', MASTER_PASSWORD='{PASSWORD}', MASTER_USE_GTID=no, "
              f"MASTER_LOG_FILE='{FIRST[0]}', MASTER_LOG_POS=4")
    t0 = time.perf_counter()
    replica.q("START SLAVE")
    while True:
        st = replica.slave_status()
        if st.get("Last_IO_Error") or st.get("Last_SQL_Error"):
            raise RuntimeError(f"replica error: {st.get('Last_IO_Error')} "
                               f"{st.get('Last_SQL_Error')}")
        if st.get("Relay_Master_Log_File") == last_name and \
                st.get("Exec_Master_Log_Pos") == last_size:
            return time.perf_counter() - t0
        time.sleep(0.05)


def pmr_run(port):
    """python-mysql-replication from the first file at 4 (COM_BINLOG_DUMP by file name, which
    MariaDB and serve both take), every event, rows decoded; (events, seconds)."""
    import logging
    from pymysqlreplication import BinLogStreamReader
    logging.getLogger("pymysqlreplication").setLevel(logging.CRITICAL)
    t0 = time.perf_counter()
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": port, "user": USER,
                             "password": PASSWORD},
        server_id=1234, blocking=False, is_mariadb=False, log_file=FIRST[0], log_pos=4,
        resume_stream=True)
    n = 0
    try:
        for ev in stream:
            if hasattr(ev, "rows"):
                ev.rows  # noqa: B018 - decode the rows
            n += 1
    finally:
        stream.close()
    return n, time.perf_counter() - t0


FIRST: list = []


def stream_turns(port, password_file, turns):
    """``binlog-schema stream --rows`` and a python-mysql-replication process (this file with
    ``--pmr-once``), alternately, as whole processes; their medians (seconds)."""
    import statistics
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from command_runs import run_command
    ours = [sys.executable, "-m", "binlog_schema", "stream", "--port", str(port), "--user",
            USER, "--password-file", str(password_file), "--rows", "--file", FIRST[0],
            "--position", "4"]
    peer = [sys.executable, str(pathlib.Path(__file__).resolve()), "--pmr-once", str(port),
            "--first", FIRST[0]]
    walls = {"stream": [], "pmr": []}
    rss = {"stream": 0, "pmr": 0}
    for _ in range(turns):
        for label, argv in (("stream", ours), ("pmr", peer)):
            run = run_command(argv, cwd=ROOT)
            if run.rc != 0:
                raise RuntimeError(f"{label} failed: {run.stderr_tail}")
            walls[label].append(run.wall)
            rss[label] = max(rss[label], run.rss_kib)
    return {k: statistics.median(v) for k, v in walls.items()}, rss


def peak_rss_mib(pid: int) -> float | None:
    """A running process's peak resident set (VmHWM), MiB; None when /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100000, help="rows the writer inserts")
    ap.add_argument("--json", help="also save the summary here")
    ap.add_argument("--turns", type=int, default=3,
                    help="alternating runs of stream and its peer, each (default 3)")
    ap.add_argument("--pmr-once", type=int, metavar="PORT", help=argparse.SUPPRESS)
    ap.add_argument("--first", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.pmr_once:   # (the peer's process of stream_turns)
        FIRST[:] = [args.first]
        pmr_run(args.pmr_once)
        return 0
    tag = os.getpid()
    writer = Server(f"bench-serve-writer-{tag}", "--server-id=1", "--binlog-checksum=CRC32",
                    "--binlog-row-image=FULL")
    replica = serve = None
    try:
        note(f"writer: {args.rows} rows")
        workload(writer, args.rows)
        writer.q("FLUSH BINARY LOGS")
        time.sleep(1.5)   # (MariaDB writes the new file's BINLOG_CHECKPOINT a moment later)
        writer_end = writer.master_status()
        port = int(writer.q("SELECT @@port")[0][0])
        folder = pathlib.Path(f"{ROOT}/.work/bench-serve-{tag}")
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for p in files_of(writer):
            shutil.copyfile(p, folder / p.name)
            paths.append(folder / p.name)
        FIRST[:] = [paths[0].name]
        events = count_events(paths)
        last_name, last_size = paths[-1].name, paths[-1].stat().st_size
        if (last_name, last_size) != writer_end:
            raise RuntimeError(f"the writer moved on while copied: {writer_end}")
        note(f"{len(paths)} files, {events} events, "
             f"{sum(p.stat().st_size for p in paths) / 2**20:.1f} MiB")
        pw = folder / "password"
        pw.write_text(PASSWORD)
        serve = subprocess.Popen(
            [sys.executable, "-m", "binlog_schema", "serve", str(folder), "--port", "0",
             "--user", USER, "--password-file", str(pw)], cwd=ROOT, stderr=subprocess.PIPE,
            text=True)
        line = serve.stderr.readline()
        serve_port = int(line.split(" on 127.0.0.1:")[1].split()[0])
        replica = Server(f"bench-serve-replica-{tag}", "--server-id=2")
        result = {"events": events, "files": len(paths), "rows": args.rows}
        for label, p in (("serve", serve_port), ("mariadb", port)):
            secs = replica_run(replica, p, last_name, last_size)
            result[f"replica_from_{label}"] = {"seconds": round(secs, 3),
                                               "events_per_s": round(events / secs)}
            note(f"replica from {label}: {secs:.2f} s")
        for label, p in (("serve", serve_port), ("mariadb", port)):
            n, secs = pmr_run(p)
            result[f"python_mysql_replication_from_{label}"] = {
                "events": n, "seconds": round(secs, 3), "events_per_s": round(n / secs)}
            note(f"python-mysql-replication from {label}: {n} events, {secs:.2f} s")
        for label, p in (("mariadb", port), ("serve", serve_port)):
            med, rss = stream_turns(p, pw, args.turns)
            result[f"stream_from_{label}"] = {
                "stream_seconds": round(med["stream"], 3),
                "stream_events_per_s": round(events / med["stream"]),
                "stream_peak_rss_mib": round(rss["stream"] / 1024, 1),
                "python_mysql_replication_seconds": round(med["pmr"], 3),
                "python_mysql_replication_events_per_s": round(events / med["pmr"]),
                "python_mysql_replication_peak_rss_mib": round(rss["pmr"] / 1024, 1),
                "ratio": round(med["pmr"] / med["stream"], 2)}
            note(f"stream from {label}: {med['stream']:.2f} s, python-mysql-replication "
                 f"{med['pmr']:.2f} s (medians of {args.turns})")
        # serve's peak memory after all of it (a replica twice, pmr, the stream turns): it reads
        # the files event by event, so this stays flat whatever the files' size
        result["serve_peak_rss_mib"] = peak_rss_mib(serve.pid)
        text = json.dumps(result, indent=2)
        print(text)
        if args.json:
            pathlib.Path(args.json).write_text(text + "\n")
        shutil.rmtree(folder, ignore_errors=True)
    finally:
        if serve is not None:
            serve.terminate()
            serve.wait(timeout=10)
        for s in (replica, writer):
            if s is not None:
                s.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())

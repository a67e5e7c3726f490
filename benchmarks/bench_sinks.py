#!/usr/bin/env python3
"""``binlog-schema stream --to`` against stdout: records per second to each broker.

    .venv/bin/python benchmarks/bench_sinks.py [--rows N] [--tx-rows N] [--turns N]
                                               [--format maxwell] [--json OUT]

A private MariaDB (scripts/mariadb.sh) writes ``--rows`` rows (default 20000; INSERTs of
``--tx-rows`` rows a transaction, default 100, then an UPDATE of every row, as many
transactions): twice ``--rows`` row changes. Private brokers (scripts/brokers.sh: Redis,
NATS with JetStream, RabbitMQ) are started. Then, in the same run, ``--turns`` times (default
3), alternating: ``binlog-schema stream --format F`` from the server's first file to the end
of its last (non-blocking), to /dev/null, and with ``--to`` each broker (a fresh Redis
stream, JetStream stream or RabbitMQ queue each run, set up as a consumer would before: the
RabbitMQ queue bound to the exchange of the type ``--rabbitmq-queue`` says, a stream queue by
default, the cheapest for the broker per message; the
count of messages the broker holds is checked after each run). Each run's wall time is the
command's, process start to exit (so with the broker's acknowledgement of the last record);
beside it, the CPU seconds of the stream's process and of the broker's (from /proc: where the
time goes on a machine they share). Medians, records per second, and each broker's ratio to
stdout (the issue's goal: at most 1.5), with the load average before and after. Progress on
stderr, the summary as JSON on stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.command_runs import load_line, run_command  # noqa: E402
from tests.server.flashback_workload import Server  # noqa: E402

USER, PASSWORD = "bench", "bench-pw"
BROKERS = ("redis", "nats", "rabbitmq")


def note(msg):
    print(f"[bench_sinks] {msg}", file=sys.stderr, flush=True)


def workload(srv, rows, tx_rows):
    srv.q(f"CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'")
    srv.q(f"GRANT ALL ON *.* TO '{USER}'@'%'")
    srv.q("CREATE DATABASE bs")
    srv.q("CREATE TABLE bs.t (id INT PRIMARY KEY, a BIGINT, s VARCHAR(64), d DECIMAL(12,3), "
          "t DATETIME(6))")
    conn = srv.conn
    for start in range(0, rows, tx_rows):
        conn.begin()
        srv.q("INSERT INTO bs.t VALUES " + ",".join(
            f"({i}, {i * 7919}, 'row {i} of the sink benchmark', {i}.125, "
            f"'2024-01-02 03:04:05.{i % 1000000:06d}')" for i in range(start, min(
                rows, start + tx_rows))))
        conn.commit()
    for start in range(0, rows, tx_rows):
        srv.q("UPDATE bs.t SET a = a + 1 WHERE id >= %s AND id < %s", start, start + tx_rows)


def start_broker(kind):
    out = subprocess.run(["bash", str(ROOT / "scripts" / "brokers.sh"), "start", kind,
                          "bench"], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise SystemExit(f"brokers.sh start {kind}: {out.stderr[-2000:]}")
    env = dict(line.split("=", 1) for line in out.stdout.split() if "=" in line)
    note(f"{kind} at {env['url']} (started in {env['seconds']} s)")
    pid = int(env["pid"])
    if kind == "rabbitmq":   # (the Erlang VM's, not its wrapper's)
        pid = int((pathlib.Path(env["dir"]) / "rabbitmq.pid").read_text())
    return env["url"], int(env["port"]), pid


def cpu_seconds(pid):
    """User and system CPU seconds of a running process (all its threads)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop_broker(kind):
    subprocess.run(["bash", str(ROOT / "scripts" / "brokers.sh"), "destroy", kind, "bench"],
                   capture_output=True, timeout=120)


class Target:
    """A broker's target for one run (fresh), and the count of messages it holds."""

    def __init__(self, kind, url, port, pid, queue_type="classic"):
        self.kind, self.url, self.port, self.pid = kind, url, port, pid
        self.queue_type = queue_type

    def fresh(self, name):
        if self.kind == "redis":
            import redis
            r = redis.Redis(port=self.port)
            r.delete(name)
            r.close()
        elif self.kind == "rabbitmq":
            import pika
            c = pika.BlockingConnection(pika.ConnectionParameters(port=self.port))
            ch = c.channel()
            ch.exchange_declare(name, "fanout", durable=True)
            ch.queue_declare(name, durable=True,
                             arguments={"x-queue-type": self.queue_type})
            ch.queue_bind(name, name)
            if self.queue_type != "stream":   # (a stream cannot be purged: it is fresh)
                ch.queue_purge(name)
            c.close()
        else:
            import nats

            async def nats_stream():
                nc = await nats.connect(self.url)
                await nc.jetstream().add_stream(name=name, subjects=[name])
                await nc.close()
            asyncio.run(nats_stream())
        return f"{self.url}/{name}"

    def count(self, name, expected=None):
        if self.kind == "redis":
            import redis
            r = redis.Redis(port=self.port)
            n = r.xlen(name)
            r.delete(name)
            r.close()
            return n
        if self.kind == "rabbitmq":
            import time

            import pika
            c = pika.BlockingConnection(pika.ConnectionParameters(port=self.port))
            ch = c.channel()
            for _ in range(50):   # (a stream's count follows its log a moment later)
                n = ch.queue_declare(name, passive=True).method.message_count
                if n == expected:
                    break
                time.sleep(0.2)
            ch.queue_delete(name)
            ch.exchange_delete(name)
            c.close()
            return n
        import nats

        async def nats_count():
            nc = await nats.connect(self.url)
            js = nc.jetstream()
            stream = await js.find_stream_name_by_subject(name)
            n = (await js.stream_info(stream)).state.messages
            await js.delete_stream(stream)
            await nc.close()
            return n
        return asyncio.run(nats_count())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--tx-rows", type=int, default=100)
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--format", default="maxwell", choices=("maxwell", "debezium", "jsonl"))
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--group", type=int, help="stream's --group (default: its own)")
    ap.add_argument("--rabbitmq-queue", default="stream",
                    choices=("stream", "quorum", "classic"),
                    help="the type of the queue bound to the exchange (default: stream)")
    ap.add_argument("--brokers", default=",".join(BROKERS),
                    help="comma-separated, of " + ", ".join(BROKERS))
    args = ap.parse_args()
    brokers = [b for b in args.brokers.split(",") if b]
    name = f"bench-sinks-{os.getpid()}"
    srv = Server(name)
    started = []
    try:
        port = int(dict(line.split("=", 1) for line in (
            ROOT / ".work" / "mariadb" / name / "env").read_text().split())["port"])
        note(f"workload: {args.rows} rows, {args.tx_rows} a transaction")
        workload(srv, args.rows, args.tx_rows)
        records = 2 * args.rows if args.format != "jsonl" else None
        targets = {}
        for kind in brokers:
            url, bport, bpid = start_broker(kind)
            started.append(kind)
            targets[kind] = Target(kind, url, bport, bpid, args.rabbitmq_queue)
        base = [args.python, "-m", "binlog_schema", "stream", "--port", str(port), "--user",
                USER, "--format", args.format, "--rows"] + (
                    [] if args.group is None else ["--group", str(args.group)])
        env = dict(os.environ, MYSQL_PWD=PASSWORD)
        walls = {k: [] for k in ("stdout", *brokers)}
        cpus = {k: [] for k in walls}
        broker_cpus = {k: [] for k in brokers}
        order = ["stdout", *brokers]
        load_before = load_line()
        for turn in range(args.turns):
            for kind in order if turn % 2 == 0 else reversed(order):
                argv = list(base)
                target = f"bench{turn}"
                if kind != "stdout":
                    argv += ["--to", targets[kind].fresh(target)]
                    before = cpu_seconds(targets[kind].pid)
                run = run_command(argv, cwd=str(ROOT), env=env)
                if run.rc != 0:
                    raise SystemExit(f"{kind}: status {run.rc}: {run.stderr_tail}")
                broker = ""
                if kind != "stdout":
                    broker_cpus[kind].append(cpu_seconds(targets[kind].pid) - before)
                    broker = f", the broker {broker_cpus[kind][-1]:.2f} s"
                    held = targets[kind].count(target, records)
                    if records is not None and held != records:
                        raise SystemExit(f"{kind}: {held} messages, {records} expected")
                walls[kind].append(run.wall)
                cpus[kind].append(run.cpu)
                note(f"turn {turn + 1} {kind}: {run.wall:.2f} s (CPU: the stream "
                     f"{run.cpu:.2f} s{broker})")
        stdout = statistics.median(walls["stdout"])
        summary = {"rows": args.rows, "tx_rows": args.tx_rows, "format": args.format,
                   "records": records, "turns": args.turns, "load_before": load_before,
                   "load_after": load_line(), "wall_seconds": walls, "cpu_seconds": cpus,
                   "broker_cpu_seconds": broker_cpus, "results": {}}
        for kind, values in walls.items():
            med = statistics.median(values)
            summary["results"][kind] = {
                "median_seconds": round(med, 3),
                "records_per_second": round(records / med) if records else None,
                "ratio_to_stdout": round(med / stdout, 2),
                "median_cpu_seconds": round(statistics.median(cpus[kind]), 3),
                "median_broker_cpu_seconds": round(statistics.median(broker_cpus[kind]), 3)
                if kind in broker_cpus else None}
            note(f"{kind:8} median {med:.2f} s"
                 + (f", {records / med:,.0f} records/s" if records else "")
                 + f", {med / stdout:.2f}x stdout (CPU: the stream "
                 f"{statistics.median(cpus[kind]):.2f} s"
                 + (f", the broker {statistics.median(broker_cpus[kind]):.2f} s"
                    if kind in broker_cpus else "") + ")")
        note(f"{load_before} before the runs, {summary['load_after']} after")
        text = json.dumps(summary, indent=2)
        print(text)
        if args.json:
            pathlib.Path(args.json).write_text(text + "\n")
    finally:
        for kind in started:
            stop_broker(kind)
        srv.destroy()


if __name__ == "__main__":
    main()

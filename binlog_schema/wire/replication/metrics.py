"""Metrics and health of ``stream`` and ``serve`` (``--metrics HOST:PORT``): Prometheus text
(the prometheus_client library's exposition) at ``/metrics``, and ``/health`` (also
``/healthz``): 200 ``ok``, or 503 with the reason when the stream is stuck.

``stream`` (:class:`StreamMetrics`, fed by the command after each transaction it delivered):

    binlog_schema_events_total          events delivered (those inside transaction payloads too)
    binlog_schema_rows_total            row changes delivered as records (--format maxwell,
                                        debezium: one record each; not counted for jsonl/text,
                                        whose lines are events)
    binlog_schema_transactions_total    transactions delivered (a GTID or BEGIN to its end)
    binlog_schema_bytes_total           bytes of the events delivered
    binlog_schema_reconnects_total      reconnections to the server (--stop-never)
    binlog_schema_sink_retries_total    retries of a broker that could not be reached (--to)
    binlog_schema_lag_seconds           now minus the time of the last transaction delivered
                                        (its last event's timestamp); 0 when the stream has
                                        reached the server's end (lag_bytes 0)
    binlog_schema_lag_bytes             the server's end minus the checkpoint, in bytes over
                                        its files (SHOW BINARY LOGS, asked at most once a
                                        second, on a connection of its own; NaN when unknown)
    binlog_schema_checkpoint_position{file}   the checkpoint (the position after the last
                                        transaction delivered)
    binlog_schema_last_transaction_timestamp_seconds
    binlog_schema_seconds_since_progress  since the last transaction delivered or heartbeat
                                        heard (the health's measure)

The stream is stuck, ``/health`` 503, when nothing was delivered nor heard from the server
(a heartbeat comes each --heartbeat seconds when it is idle) for more than ``stuck_after``
seconds: a broker or consumer that does not take the records, a server gone (reconnecting).

``serve`` (:class:`ServeMetrics`): ``binlog_schema_serve_replicas`` (dumps under way),
``binlog_schema_serve_replica_position{replica,server_id,file}`` (each one's position: where
its dump has read to), ``binlog_schema_serve_events_total`` and ``..._bytes_total`` (the
files' events sent, each file's FORMAT_DESCRIPTION aside: it is sent rebuilt); ``/health`` is
200 while it serves.
"""

from __future__ import annotations

import math
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ...output.formats import CHANGE_FORMATS

PREFIX = "binlog_schema_"


def _families():
    try:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
    except ImportError:
        raise RuntimeError("--metrics needs prometheus_client: pip install "
                           "'binlog-schema[metrics]'") from None
    return CounterMetricFamily, GaugeMetricFamily


class ServerLogs:
    """The server's binlog files and sizes (SHOW BINARY LOGS), asked at most once per
    ``interval`` seconds on a connection of its own (``connect()``: a PyMySQL connection)."""

    def __init__(self, connect, interval: float = 1.0):
        self.connect, self.interval = connect, interval
        self.conn = None
        self.logs = None     # [(name, size)], or None (not known)
        self.asked = None

    def current(self):
        now = time.monotonic()
        if self.asked is not None and now - self.asked < self.interval:
            return self.logs
        self.asked = now
        try:
            if self.conn is None:
                self.conn = self.connect()
            with self.conn.cursor() as cur:
                cur.execute("SHOW BINARY LOGS")
                self.logs = [(str(r[0]), int(r[1])) for r in cur.fetchall()]
        except Exception:  # noqa: BLE001 - (a server away, a user without the privilege)
            self.logs = None
            conn, self.conn = self.conn, None
            if conn is not None:
                try:
                    conn.close()
                except Exception:  # noqa: BLE001
                    pass
        return self.logs

    def behind(self, file: str, position: int) -> float:
        """Bytes from (file, position) to the server's end; NaN when not known."""
        logs = self.current()
        if not logs:
            return math.nan
        sizes = dict(logs)
        if file not in sizes:
            return math.nan
        later = sum(size for name, size in logs if name > file)
        return float(max(0, sizes[file] - position) + later)


class StreamMetrics:
    """The state of a ``stream`` (fed by :meth:`delivered`), collected at each scrape."""

    def __init__(self, stream, server_logs=None, stuck_after: float = 120.0,
                 delivery=None, clock=time.time, monotonic=time.monotonic):
        self.stream, self.server_logs, self.stuck_after = stream, server_logs, stuck_after
        self.delivery = delivery
        self.clock, self.monotonic = clock, monotonic
        self.events = self.rows = self.transactions = self.bytes = 0
        self.last_timestamp = None   # the last delivered transaction's time (unix seconds)
        self.checkpoint = stream.checkpoint   # the position after it (or where we resumed)
        self.progress = monotonic()
        self._heartbeats = (0, self.progress)   # (the stream's count, when it last changed)

    def delivered(self, batch, rows: int, transaction: bool, checkpoint) -> None:
        """One transaction (or event outside transactions) delivered, with ``rows`` records
        of row changes; ``checkpoint``: the stream's position after it."""
        events = size = 0
        for rec in batch:
            events += 1 + len(rec.inner or ())
            size += len(rec.raw)
        self.events += events
        self.bytes += size
        self.rows += rows
        if transaction:
            self.transactions += 1
        if batch:
            self.last_timestamp = int.from_bytes(batch[-1].raw[0:4], "little")
        self.checkpoint = checkpoint
        self.progress = self.monotonic()

    def since_progress(self) -> float:
        now = self.monotonic()
        beats = self.stream.heartbeats
        if beats != self._heartbeats[0]:
            self._heartbeats = (beats, now)
        return now - max(self.progress, self._heartbeats[1])

    def health(self):
        idle = self.since_progress()
        if idle > self.stuck_after:
            return False, (f"stuck: nothing delivered nor heard from the server for "
                           f"{idle:.0f} s (--stuck-after {self.stuck_after:g})")
        return True, "ok"

    def collect(self):
        Counter, Gauge = _families()
        for name, text, value in (
                ("events", "events delivered", self.events),
                ("rows", f"row changes delivered as records ({', '.join(CHANGE_FORMATS)})",
                 self.rows),
                ("transactions", "transactions delivered", self.transactions),
                ("bytes", "bytes of the events delivered", self.bytes),
                ("reconnects", "reconnections to the server", self.stream.reconnects)):
            yield Counter(PREFIX + name, text, value=value)
        if self.delivery is not None:
            yield Counter(PREFIX + "sink_retries", "retries of a broker that could not be "
                          "reached", value=self.delivery.retries)
        checkpoint = self.checkpoint
        behind = math.nan
        if checkpoint is not None:
            g = Gauge(PREFIX + "checkpoint_position", "the checkpoint: the position after "
                      "the last transaction delivered", labels=["file"])
            g.add_metric([checkpoint["file"]], checkpoint["position"])
            yield g
            if self.server_logs is not None:
                behind = self.server_logs.behind(checkpoint["file"], checkpoint["position"])
        yield Gauge(PREFIX + "lag_bytes", "the server's end minus the checkpoint (bytes)",
                    value=behind)
        lag = math.nan
        if self.last_timestamp is not None:
            lag = 0.0 if behind == 0 else max(0.0, self.clock() - self.last_timestamp)
            yield Gauge(PREFIX + "last_transaction_timestamp_seconds", "the time of the "
                        "last transaction delivered", value=self.last_timestamp)
        yield Gauge(PREFIX + "lag_seconds", "now minus the time of the last transaction "
                    "delivered (0 at the server's end)", value=lag)
        yield Gauge(PREFIX + "seconds_since_progress", "seconds since the last transaction "
                    "delivered or heartbeat heard", value=self.since_progress())


class ServeMetrics:
    """The dumps of a ``serve`` (:class:`~.server.BinlogServer`), collected at each scrape."""

    def __init__(self, server):
        self.server = server

    def health(self):
        return True, "ok"

    def collect(self):
        Counter, Gauge = _families()
        dumps, events, size = self.server.dump_counts()
        yield Gauge(PREFIX + "serve_replicas", "replicas connected (dumps under way)",
                    value=len(dumps))
        g = Gauge(PREFIX + "serve_replica_position", "where each replica's dump has read "
                  "to", labels=["replica", "server_id", "file"])
        for d in dumps:
            g.add_metric([str(d.client.conn_id), str(d.replica), d.name], d.position)
        yield g
        yield Counter(PREFIX + "serve_events", "events of the files sent to replicas",
                      value=events)
        yield Counter(PREFIX + "serve_bytes", "bytes of the files' events sent to replicas",
                      value=size)


class MetricsServer:
    """``/metrics`` and ``/health`` of ``source`` (a :class:`StreamMetrics` or
    :class:`ServeMetrics`) on ``host:port`` (port 0: a free one, :attr:`port`), served by a
    daemon thread."""

    def __init__(self, source, host: str, port: int):
        _families()   # (prometheus_client installed, else said)
        from prometheus_client import CollectorRegistry
        from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
        registry = CollectorRegistry(auto_describe=False)
        registry.register(source)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                path = self.path.split("?", 1)[0]
                if path == "/metrics":
                    code, body, kind = 200, generate_latest(registry), CONTENT_TYPE_LATEST
                elif path in ("/health", "/healthz"):
                    ok, text = source.health()
                    code, body, kind = (200 if ok else 503), (text + "\n").encode(), \
                        "text/plain; charset=utf-8"
                else:
                    code, body, kind = 404, b"/metrics or /health\n", "text/plain"
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args):   # (no line per request on stderr)
                pass

        self.http = ThreadingHTTPServer((host, port), Handler)
        self.http.daemon_threads = True
        self.host, self.port = self.http.server_address[:2]
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()


def address(text: str):
    """``HOST:PORT`` (``:PORT``: 127.0.0.1) -> (host, port); ValueError when it is not."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--metrics {text}: give HOST:PORT")
    return host.strip("[]") or "127.0.0.1", int(port)

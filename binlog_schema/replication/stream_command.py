"""``binlog-schema stream``: a live server's binlog, written as ``decode`` writes files."""

from __future__ import annotations

import json
import os
import sys

from ..serial.formats import (DEFAULT, FORMATS, RECORD_FORMATS, STREAM_FORMATS, listing,
                              titles)
from ..sinks.delivery import GROUP
from ..statuses import CLEAN, DAMAGED, STOPPED, USAGE, epilog, worst

# the formats --to delivers: lines that are records (not text)
DELIVERED = tuple(n for n in STREAM_FORMATS if n in RECORD_FORMATS)

EPILOG = """The output is what `decode` writes for the server's files (the same records, offsets
in the server's files, a ROTATE switching the file name), one complete transaction at a time,
flushed after each: a disconnect never prints half a transaction. Artificial events (the
ROTATE a server sends first, a FORMAT_DESCRIPTION sent again, heartbeats) are not printed.
--database, --table, --operation, --thread-id and --start/--stop-datetime select as decode's
do (a transaction left out still moves the checkpoint).
--resume FILE stores {"file", "position", "gtid"} after each transaction (written to a
temporary file and renamed); when FILE exists it wins over --file/--position/--gtid.
--semi-sync (with --stop-never): a semi-synchronous replica, when the server has semi-sync on
(checked at each connection): each transaction the server asks an ack for is acked once it is
written and flushed, so the server's commits wait for this stream (up to its semi-sync
timeout); when semi-sync is off on the server, a warning on stderr (once) and the stream goes
on without.
--to URL delivers each record (a line of the format) to a broker as a message instead,
with its record key and order key; the checkpoint moves once the broker has acknowledged every
record of the transactions before it (awaited once per group of transactions: --group).
--metrics HOST:PORT serves Prometheus metrics and /health."""
# what is particular to stream's exit statuses (statuses.epilog)
STATUS_NOTE = ("0: the stream ended (without --stop-never: at the end of the server's last "
               "file); 1 also when the connection fails or the server refuses (a wrong "
               "password, a purged or missing start, a clashing --server-id: said with the "
               "server's error number), when the server sends again what the stream "
               "delivered (a loop), or when a --to broker refuses or cannot be reached for "
               "--retry-for seconds (the checkpoint stays before the transaction not "
               "delivered); 3 an event with an error or rows that cannot be decoded, the "
               "stream going on, or the server's binlog ended inside a transaction (its "
               "events not printed).")


def register(sub) -> None:
    p = sub.add_parser("stream", help="stream a live server's binlog as a replica "
                                      f"({titles(STREAM_FORMATS)})",
                       description="Connect to a MySQL or MariaDB server as a replica "
                                   "(COM_REGISTER_SLAVE, COM_BINLOG_DUMP) and write its "
                                   "binlog's events as they come.",
                       epilog=EPILOG + "\n" + epilog(STATUS_NOTE))
    p.add_argument("--host", default="127.0.0.1", help="the server's host (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=3306, help="the server's port (default 3306)")
    p.add_argument("--user", default="root",
                   help="a user with REPLICATION SLAVE (and REPLICATION CLIENT for SHOW BINARY "
                        "LOGS) privileges (default root)")
    p.add_argument("--password-file", metavar="F",
                   help="a file whose first line is the password (default: the MYSQL_PWD "
                        "environment variable, else no password)")
    p.add_argument("--server-id", type=int, default=1001, metavar="N",
                   help="the replica id to register as; it must differ from the server's and "
                        "from every other replica's (default 1001)")
    p.add_argument("--file", metavar="NAME",
                   help="the binlog file to start in (default: the first the server lists)")
    p.add_argument("--position", type=int, default=None, metavar="N",
                   help="the position in --file to start at (default 4: its start)")
    p.add_argument("--gtid", metavar="SET",
                   help="start after these GTIDs instead of a file and position: MariaDB "
                        "D-S-N[,D-S-N...] (the transactions after them), MySQL uuid:1-5[,...] "
                        "(the transactions not in the set)")
    p.add_argument("--resume", metavar="FILE",
                   help="checkpoint file: read at start when it exists (wins over --file, "
                        "--position and --gtid), rewritten after each transaction")
    p.add_argument("--stop-never", action="store_true",
                   help="wait for new events at the end of the last file, and reconnect by "
                        "itself (with backoff) when the server goes away, from the last "
                        "complete transaction (default: stop at the end of the last file)")
    p.add_argument("--rows", action="store_true",
                   help="add the typed row values to each rows event (as decode --rows)")
    p.add_argument("--format", choices=STREAM_FORMATS, default=DEFAULT,
                   help=f"as decode's --format (default {DEFAULT})")
    p.add_argument("--schema", action="append", metavar="FILE",
                   help="with rows: the schema where the stream starts, as mysqldump "
                        "--no-data or SHOW CREATE TABLE statements (repeatable). The schema "
                        "history is on without it (the streamed DDL replayed from nothing): "
                        "table maps without names get its names; a disagreement is a stderr "
                        "line, exit 3 (as decode --rows)")
    p.add_argument("--binary", choices=("hex", "base64"), default="hex",
                   help="how binary values are written with --rows (default hex)")
    p.add_argument("--ssl", action="store_true",
                   help="connect over TLS (without --ssl-ca the server's certificate is not "
                        "verified)")
    p.add_argument("--ssl-ca", metavar="FILE",
                   help="TLS, verifying the server's certificate against this CA file")
    p.add_argument("--heartbeat", type=float, default=30.0, metavar="SECONDS",
                   help="the server's heartbeat period when idle (default 30)")
    p.add_argument("--semi-sync", action="store_true",
                   help="with --stop-never: be a semi-synchronous replica, acking each "
                        "transaction the server asks for after it is written and flushed, so "
                        "that the server's commits wait for it (MariaDB "
                        "rpl_semi_sync_master_enabled, MySQL rpl_semi_sync_source_enabled; "
                        "when off on the server: a warning, and the stream goes on without "
                        "acks)")
    p.add_argument("--to", metavar="URL",
                   help="deliver the records to a broker instead of stdout: "
                        "redis://HOST:PORT/STREAM (Redis Streams), nats://HOST:PORT/SUBJECT "
                        "(NATS JetStream), amqp://HOST:PORT/EXCHANGE (RabbitMQ, publisher "
                        "confirms); one message per line of --format "
                        f"{listing(DELIVERED)}, with its record key and order key; the checkpoint "
                        "(--resume) moves once the broker acknowledged a transaction's every "
                        "record (at least once: see docs/replication.md)")
    p.add_argument("--retry-for", type=float, default=60.0, metavar="SECONDS",
                   help="with --to: how long a broker that cannot be reached is retried "
                        "(backoff, a stderr line per retry) before the stream stops with "
                        "status 1, its checkpoint left before the transaction not "
                        "delivered (default 60)")
    p.add_argument("--group", type=int, default=GROUP, metavar="N",
                   help="with --to: the broker's acknowledgements are awaited once per group "
                        "of transactions, of up to N records or N transactions (and 8 MiB, "
                        "1 s; at once when a live server has nothing more to send), and the "
                        "--resume checkpoint saved once per group: after a kill, what is "
                        "sent again is at most a group and the transaction under way "
                        f"(default {GROUP}: each transaction confirmed and saved alone, so "
                        "a kill sends again only the last unacknowledged transaction; larger "
                        "groups save round trips)")
    p.add_argument("--metrics", metavar="HOST:PORT",
                   help="serve Prometheus metrics at http://HOST:PORT/metrics (events, rows, "
                        "transactions, bytes, lag in seconds and bytes, checkpoint, "
                        "reconnects) and /health (503 when stuck: see --stuck-after)")
    p.add_argument("--stuck-after", type=float, default=120.0, metavar="SECONDS",
                   help="with --metrics: /health fails (503) when nothing was delivered nor "
                        "heard from the server for this long; more than --heartbeat "
                        "(default 120)")
    p.set_defaults(func=cmd_stream)


def _password(args) -> str:
    if args.password_file:
        with open(args.password_file, encoding="utf-8") as f:
            return f.readline().rstrip("\r\n")
    return os.environ.get("MYSQL_PWD", "")


def _ssl(args):
    if not (args.ssl or args.ssl_ca):
        return None
    import ssl
    ctx = ssl.create_default_context(cafile=args.ssl_ca) if args.ssl_ca else \
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if not args.ssl_ca:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


class CheckpointError(Exception):
    """The checkpoint could not be saved (said with its file and the system's reason)."""


def save_checkpoint(path: str, checkpoint: dict) -> None:
    """``checkpoint`` written to ``path`` whole or not at all (a temporary file renamed)."""
    tmp = f"{path}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(checkpoint, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        raise CheckpointError(f"{path}: cannot save the checkpoint (through {tmp}): "
                              f"{e.strerror or e}") from None


def load_checkpoint(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return None
    if not (isinstance(data, dict) and isinstance(data.get("file"), str)
            and isinstance(data.get("position"), int)):
        raise ValueError(f"{path}: not a checkpoint ({{\"file\": ..., \"position\": ...}})")
    return data


# the filters of decode that stream takes too (cli.FILTERS, but --gtid: the start here)
FILTERS = ("start_datetime", "stop_datetime", "database", "table", "operation", "thread_id",
           "where")


def cmd_stream(args) -> int:
    from ..errors import BinlogError
    from ..serial.write import Output, RecordWriter, os_problem
    from .client import ReplicationStream
    if args.position is not None and not args.file:
        print("binlog-schema stream: --position is a position in --file: give --file too",
              file=sys.stderr)
        return USAGE
    if args.semi_sync and not args.stop_never:
        print("binlog-schema stream: --semi-sync makes this stream a replica the server waits "
              "for: give --stop-never too", file=sys.stderr)
        return USAGE
    if args.gtid and (args.file or args.position is not None):
        print("binlog-schema stream: --gtid starts after a GTID set, --file/--position at a "
              "place in a file: give one of them", file=sys.stderr)
        return USAGE
    if args.to and args.format not in DELIVERED:
        print(f"binlog-schema stream: --to delivers records: --format {listing(DELIVERED)}",
              file=sys.stderr)
        return USAGE
    if args.group < 1:
        print("binlog-schema stream: --group is a count of records: 1 or more",
              file=sys.stderr)
        return USAGE
    if args.metrics and args.stuck_after <= args.heartbeat:
        print("binlog-schema stream: --stuck-after must be longer than --heartbeat (an idle "
              "server is heard once a heartbeat)", file=sys.stderr)
        return USAGE
    selection = None
    if any(getattr(args, f, None) for f in FILTERS):   # (decode's filters: model/selection.py)
        from ..model.selection import Selection, SelectionError
        try:
            selection = Selection.from_options(**{f: getattr(args, f) for f in FILTERS})
        except SelectionError as e:
            print(f"binlog-schema stream: {e}", file=sys.stderr)
            return USAGE
    try:
        password = _password(args)
        resume = load_checkpoint(args.resume) if args.resume else None
    except (OSError, ValueError) as e:
        print(f"binlog-schema stream: {os_problem(e) if isinstance(e, OSError) else e}",
              file=sys.stderr)
        return STOPPED
    stream = ReplicationStream(args.host, args.port, args.user, password, args.server_id,
                               file=args.file, position=args.position, gtid=args.gtid,
                               resume=resume, blocking=args.stop_never,
                               reconnect=args.stop_never, ssl=_ssl(args),
                               heartbeat=args.heartbeat, semi_sync=args.semi_sync,
                               decode="lazy",   # (as decode: the writers parse what they need)
                               on_warning=lambda m: print(f"binlog-schema stream: warning: {m}",
                                                          file=sys.stderr))
    def say(message):
        print(f"binlog-schema stream: {message}", file=sys.stderr, flush=True)

    changes = FORMATS[args.format].changes
    counted = args.metrics and changes and not args.to   # (rows: the records written)
    out = _counted_output() if counted else Output()
    status = CLEAN
    rows = args.rows or changes
    writer = None
    history = None
    if rows:   # (the schema history, on by default: the stream's DDL replayed as it comes)
        from ..schema.history import DDLError, given_history
        try:
            history = given_history((), args.schema or ())
        except OSError as e:
            print(f"{e.filename}: {os_problem(e)}", file=sys.stderr)
            return STOPPED
        except DDLError as e:
            print(str(e), file=sys.stderr)
            return STOPPED
    files = 0
    delivery = metrics = None
    sink_errors = ()   # (the sinks' errors: imported with --to only)
    try:
        if args.to:
            from ..sinks.base import SinkError
            sink_errors = (SinkError,)
            delivery = _delivery(args, say)
        if args.metrics:
            metrics = _metrics(args, stream, delivery, password)
    except _Refused as e:
        print(f"binlog-schema stream: {e}", file=sys.stderr)
        if delivery is not None:
            delivery.close()
        return e.status

    def on_delivered(items):   # (a group of transactions on the broker, acknowledged)
        for batch, records, checkpoint in items:
            if metrics is not None:
                metrics.delivered(batch, records if changes else 0, _is_transaction(batch),
                                  checkpoint)
        if args.resume and checkpoint is not None:
            save_checkpoint(args.resume, checkpoint)

    if delivery is not None:
        delivery.on_delivered = on_delivered

    def said(text):   # (an event with an error, rows not decoded: reported, the stream goes on)
        nonlocal status
        status = DAMAGED
        out.flush()
        print(text, file=sys.stderr, flush=True)

    def on_error(rec):
        said(f"{writer.path}: {rec.error}")

    matcher = None   # (--where: one for the stream, following its table maps)
    try:
        for file, batch in stream.transactions():
            if writer is None or writer.path != file:
                decoder = None
                if rows:
                    from ..model.row_change import RowDecoder
                    decoder = RowDecoder(
                        file, schema=history, file_index=files,
                        on_problem=lambda e, f=file: said(f"{f}: {e}"),
                        on_undecoded=lambda e, f=file: said(f"{f}: {e}"),
                        on_notice=lambda t, f=file: (out.flush(), print(
                            f"{f}: note: {t}", file=sys.stderr)))
                    files += 1
                if delivery is not None:
                    from ..sinks.messages import Outbox
                    writer = Outbox(file, args.format, decoder, args.binary,
                                    delivery.publish)
                else:
                    writer = RecordWriter(file, out, args.format, decoder, args.binary)
            if selection is not None:   # (a whole transaction: judged as decode judges it)
                from ..model.row_match import RowMatcher, WhereError
                from ..model.selection import select_events
                if writer.decoder is not None:   # (the history follows every statement)
                    batch = writer.decoder.watch(batch)
                if selection.where is not None:   # (--where: model/row_match.py)
                    if matcher is None:
                        matcher = RowMatcher(selection.where, selection, history)
                    batch = matcher.events(batch)
                try:
                    batch = list(select_events(batch, selection))
                except WhereError as e:   # (a table named by --table lacks a column)
                    print(f"binlog-schema stream: {e}", file=sys.stderr)
                    return USAGE
            if delivery is not None:   # (published; delivered once the group is confirmed)
                from ..sinks.messages import transaction_gtid
                before = writer.sent
                writer.write(batch, transaction_gtid(batch), on_error)
                delivery.ended((batch, writer.sent - before, stream.checkpoint))
                if args.stop_never and stream.caught_up():   # (a live server with no more
                    delivery.flush()                          # now: the group confirmed)
                continue
            before = out.lines if counted else 0
            writer.write(batch, on_error)
            out.flush()
            if metrics is not None:
                metrics.delivered(batch, out.lines - before if counted else 0,
                                  _is_transaction(batch), stream.checkpoint)
            if args.resume and stream.checkpoint is not None:
                save_checkpoint(args.resume, stream.checkpoint)
        if delivery is not None:   # (the last group)
            delivery.flush()
    except BinlogError as e:
        out.flush()
        print(f"binlog-schema stream: {e}", file=sys.stderr)
        if delivery is not None:   # (the transactions before it: their group confirmed)
            try:
                delivery.flush()
            except (CheckpointError, *sink_errors) as e:
                print(f"binlog-schema stream: {e} (the checkpoint stays before the "
                      "transactions not delivered)", file=sys.stderr)
        return STOPPED
    except OSError as e:
        print(f"binlog-schema stream: {os_problem(e)}", file=sys.stderr)
        return STOPPED
    except CheckpointError as e:   # (what was delivered is sent again at the next start)
        print(f"binlog-schema stream: {e}", file=sys.stderr)
        return STOPPED
    except sink_errors as e:   # (the broker unreachable past --retry-for, or refusing)
        print(f"binlog-schema stream: {e} (the checkpoint stays before the transactions not "
              "delivered)", file=sys.stderr)
        return STOPPED
    finally:
        if delivery is not None:
            delivery.close()
    out.flush()
    if stream.unfinished is not None:   # (said by on_warning)
        status = worst(status, DAMAGED)
    return status


class _Refused(Exception):
    """A --to or --metrics that cannot be used: said, and the status to end with."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


def _delivery(args, say):
    """The --to broker, connected (retried up to --retry-for)."""
    from ..sinks.base import SinkError, SinkRefused, open_sink
    from ..sinks.delivery import Delivery
    try:
        sink = open_sink(args.to, note=say, timeout=10.0)
    except SinkRefused as e:
        raise _Refused(str(e), USAGE) from None
    delivery = Delivery(sink, say, retry_for=args.retry_for,
                        group=1 if args.semi_sync else args.group)
    try:
        delivery.connect()
    except SinkError as e:
        delivery.close()
        raise _Refused(str(e), STOPPED) from None
    return delivery


def _metrics(args, stream, delivery, password):
    """The --metrics server of this stream."""
    from .metrics import MetricsServer, ServerLogs, StreamMetrics, address
    try:
        host, port = address(args.metrics)
    except ValueError as e:
        raise _Refused(str(e), USAGE) from None

    def connect():
        import pymysql
        return pymysql.connect(host=args.host, port=args.port, user=args.user,
                               password=password, ssl=_ssl(args), connect_timeout=5,
                               read_timeout=5, autocommit=True)
    metrics = StreamMetrics(stream, ServerLogs(connect), args.stuck_after, delivery)
    try:
        server = MetricsServer(metrics, host, port)
    except (OSError, RuntimeError) as e:
        raise _Refused(f"--metrics {args.metrics}: "
                       f"{e.strerror if isinstance(e, OSError) else e}", STOPPED) from None
    print(f"binlog-schema stream: metrics on http://{server.host}:{server.port}/metrics",
          file=sys.stderr, flush=True)
    return metrics


def _is_transaction(batch) -> bool:
    """A batch of the stream is a transaction (a GTID or BEGIN to its end), not one event
    outside transactions."""
    from ..mysql.codes import GTID_KINDS
    return len(batch) > 1 or (bool(batch) and batch[0].kind in GTID_KINDS)


def _counted_output():
    from ..serial.write import Output

    class CountedOutput(Output):
        """An Output that counts its lines (the records of a change format)."""
        lines = 0

        def add(self, line: str) -> None:
            self.lines += 1
            Output.add(self, line)
    return CountedOutput()

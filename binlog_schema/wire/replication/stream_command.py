"""What ``binlog-schema stream`` does (declared in ``binlog_schema/cli/stream.py``): a live
server's binlog, written as ``decode`` writes files."""

from __future__ import annotations

import json
import os
import sys

from ...output.formats import FORMATS, RECORD_FORMATS, STREAM_FORMATS, listing
from ...output.statuses import CLEAN, DAMAGED, STOPPED, USAGE, worst

# the formats --to delivers: lines that are records (not text)
DELIVERED = tuple(n for n in STREAM_FORMATS if n in RECORD_FORMATS)


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


# the filters of decode that stream takes too (cli/options.py's STREAM_FILTERS)
FILTERS = ("start_datetime", "stop_datetime", "database", "table", "operation", "thread_id",
           "where")


def cmd_stream(args) -> int:
    from ...format.errors import BinlogError
    from ...output.write import Output, RecordWriter, os_problem
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
    if any(getattr(args, f, None) for f in FILTERS):   # (decode's filters: changes/selection.py)
        from ...changes.selection import Selection, SelectionError
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
        from ...changes.schema.building import given_history
        from ...changes.schema import DDLError
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
                    from ...changes.row_change import RowDecoder
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
                from ...changes.row_match import RowMatcher, WhereError
                from ...changes.selection import select_events
                if writer.decoder is not None:   # (the history follows every statement)
                    batch = writer.decoder.watch(batch)
                if selection.where is not None:   # (--where: changes/row_match.py)
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
    delivery = Delivery(sink, say, retry_for=args.retry_for,   # (--semi-sync: the server's
                        group=1 if args.semi_sync else args.group,   # ack, sent as the next
                        at_end=args.semi_sync)   # transaction is asked for, follows the broker's)
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
    from ...format.facts.codes import GTID_KINDS
    return len(batch) > 1 or (bool(batch) and batch[0].kind in GTID_KINDS)


def _counted_output():
    from ...output.write import Output

    class CountedOutput(Output):
        """An Output that counts its lines (the records of a change format)."""
        lines = 0

        def add(self, line: str) -> None:
            self.lines += 1
            Output.add(self, line)
    return CountedOutput()

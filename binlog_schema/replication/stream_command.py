"""``binlog-schema stream``: a live server's binlog, written as ``decode`` writes files."""

from __future__ import annotations

import json
import os
import sys

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
exit status: 0 the stream ended cleanly (without --stop-never: at the end of the server's
last file); 1 the connection failed or the server refused (wrong password, a purged or
missing start file or position, a clashing --server-id: said on stderr with the server's
error number); 2 the command line is wrong; 3 an event had an error (said on stderr, the
stream went on)."""


def register(sub) -> None:
    p = sub.add_parser("stream", help="stream a live server's binlog as a replica (JSON Lines, "
                                      "text, maxwell, debezium)",
                       description="Connect to a MySQL or MariaDB server as a replica "
                                   "(COM_REGISTER_SLAVE, COM_BINLOG_DUMP) and write its "
                                   "binlog's events as they come.", epilog=EPILOG)
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
    p.add_argument("--format", choices=("jsonl", "text", "maxwell", "debezium"),
                   default="jsonl", help="as decode's --format (default jsonl)")
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


def save_checkpoint(path: str, checkpoint: dict) -> None:
    """``checkpoint`` written to ``path`` whole or not at all (a temporary file renamed)."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(checkpoint, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


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
FILTERS = ("start_datetime", "stop_datetime", "database", "table", "operation", "thread_id")


def cmd_stream(args) -> int:
    from ..errors import BinlogError
    from ..serial.write import Output, RecordWriter, os_problem
    from .client import ReplicationStream
    if args.position is not None and not args.file:
        print("binlog-schema stream: --position is a position in --file: give --file too",
              file=sys.stderr)
        return 2
    if args.semi_sync and not args.stop_never:
        print("binlog-schema stream: --semi-sync makes this stream a replica the server waits "
              "for: give --stop-never too", file=sys.stderr)
        return 2
    if args.gtid and (args.file or args.position is not None):
        print("binlog-schema stream: --gtid starts after a GTID set, --file/--position at a "
              "place in a file: give one of them", file=sys.stderr)
        return 2
    selection = None
    if any(getattr(args, f, None) for f in FILTERS):   # (decode's filters: model/selection.py)
        from ..model.selection import Selection, SelectionError
        try:
            selection = Selection.from_options(**{f: getattr(args, f) for f in FILTERS})
        except SelectionError as e:
            print(f"binlog-schema stream: {e}", file=sys.stderr)
            return 2
    try:
        password = _password(args)
        resume = load_checkpoint(args.resume) if args.resume else None
    except (OSError, ValueError) as e:
        print(f"binlog-schema stream: {os_problem(e) if isinstance(e, OSError) else e}",
              file=sys.stderr)
        return 1
    stream = ReplicationStream(args.host, args.port, args.user, password, args.server_id,
                               file=args.file, position=args.position, gtid=args.gtid,
                               resume=resume, blocking=args.stop_never,
                               reconnect=args.stop_never, ssl=_ssl(args),
                               heartbeat=args.heartbeat, semi_sync=args.semi_sync,
                               decode="lazy",   # (as decode: the writers parse what they need)
                               on_warning=lambda m: print(f"binlog-schema stream: warning: {m}",
                                                          file=sys.stderr))
    out = Output()
    status = 0
    rows = args.rows or args.format in ("maxwell", "debezium")
    writer = None
    history = None
    if rows:   # (the schema history, on by default: the stream's DDL replayed as it comes)
        from ..schema.history import DDLError, given_history
        try:
            history = given_history((), args.schema or ())
        except OSError as e:
            print(f"{e.filename}: {os_problem(e)}", file=sys.stderr)
            return 1
        except DDLError as e:
            print(str(e), file=sys.stderr)
            return 1
    files = 0

    def problem(file, text):
        nonlocal status
        status = 3
        out.flush()
        print(f"{file}: {text}", file=sys.stderr)

    def on_error(rec):
        nonlocal status
        status = 3
        out.flush()
        print(f"{writer.path}: {rec.error}", file=sys.stderr)

    try:
        for file, batch in stream.transactions():
            if writer is None or writer.path != file:
                decoder = None
                if rows:
                    from ..model.row_change import RowDecoder
                    decoder = RowDecoder(
                        file, schema=history, file_index=files,
                        on_problem=lambda e, file=file: problem(file, e),
                        on_notice=lambda t, file=file: (out.flush(), print(
                            f"{file}: note: {t}", file=sys.stderr)))
                    files += 1
                writer = RecordWriter(file, out, args.format, decoder, args.binary)
            if selection is not None:   # (a whole transaction: judged as decode judges it)
                from ..model.selection import select_events
                if writer.decoder is not None:   # (the history follows every statement)
                    batch = writer.decoder.watch(batch)
                batch = list(select_events(batch, selection))
            writer.write(batch, on_error)
            out.flush()
            if args.resume and stream.checkpoint is not None:
                save_checkpoint(args.resume, stream.checkpoint)
    except BinlogError as e:
        out.flush()
        print(f"binlog-schema stream: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"binlog-schema stream: {os_problem(e)}", file=sys.stderr)
        return 1
    out.flush()
    return status

"""``binlog-schema stream``: a live server's binlog, written as ``decode`` writes files (the
work: :func:`binlog_schema.wire.replication.stream_command.cmd_stream`)."""

from __future__ import annotations

from ..wire.replication.stream_command import DELIVERED, cmd_stream
from ..output.formats import DEFAULT, STREAM_FORMATS, listing, titles
from ..wire.sinks.delivery import GROUP
from ..output.statuses import epilog
from .declare import Cmd, Opt
from .options import (BINARY, HEARTBEAT, HOST, METRICS, PASSWORD_FILE, PORT, ROWS, SCHEMA,
                      SEMI_SYNC, SERVER_ID, STREAM_FILTERS, TLS_CLIENT, USER)

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


COMMANDS = [
    Cmd("stream", f"stream a live server's binlog as a replica ({titles(STREAM_FORMATS)})",
        cmd_stream, [
        HOST.but(help="the server's host (default 127.0.0.1)"),
        PORT.but(default=3306, help="the server's port (default 3306)"),
        USER.but(default="root",
            help="a user with REPLICATION SLAVE (and REPLICATION CLIENT for SHOW BINARY "
                 "LOGS) privileges (default root)"),
        PASSWORD_FILE.but(metavar="F",
            help="a file whose first line is the password (default: the MYSQL_PWD "
                 "environment variable, else no password)"),
        SERVER_ID.but(type=int, default=1001, metavar="N",
            help="the replica id to register as; it must differ from the server's and "
                 "from every other replica's (default 1001)"),
        Opt("--file", metavar="NAME",
            help="the binlog file to start in (default: the first the server lists)"),
        Opt("--position", type=int, default=None, metavar="N",
            help="the position in --file to start at (default 4: its start)"),
        Opt("--gtid", metavar="SET",
            help="start after these GTIDs instead of a file and position: MariaDB "
                 "D-S-N[,D-S-N...] (the transactions after them), MySQL uuid:1-5[,...] "
                 "(the transactions not in the set)"),
        Opt("--resume", metavar="FILE",
            help="checkpoint file: read at start when it exists (wins over --file, "
                 "--position and --gtid), rewritten after each transaction"),
        Opt("--stop-never", action="store_true",
            help="wait for new events at the end of the last file, and reconnect by "
                 "itself (with backoff) when the server goes away, from the last "
                 "complete transaction (default: stop at the end of the last file)"),
        ROWS.but(
            help="add the typed row values to each rows event (as decode --rows)"),
        Opt("--format", choices=STREAM_FORMATS, default=DEFAULT,
            help=f"as decode's --format (default {DEFAULT})"),
        SCHEMA.but(
            help="with rows: the schema where the stream starts, as mysqldump "
                 "--no-data or SHOW CREATE TABLE statements (repeatable). The schema "
                 "history is on without it (the streamed DDL replayed from nothing): "
                 "table maps without names get its names; a disagreement is a stderr "
                 "line, exit 3 (as decode --rows)"),
        BINARY.but(
            help="how binary values are written with --rows (default hex)"),
        *TLS_CLIENT,
        HEARTBEAT.but(default=30.0,
            help="the server's heartbeat period when idle (default 30)"),
        SEMI_SYNC.but(
            help="with --stop-never: be a semi-synchronous replica, acking each "
                 "transaction the server asks for after it is written and flushed, so "
                 "that the server's commits wait for it (MariaDB "
                 "rpl_semi_sync_master_enabled, MySQL rpl_semi_sync_source_enabled; "
                 "when off on the server: a warning, and the stream goes on without "
                 "acks)"),
        Opt("--to", metavar="URL",
            help="deliver the records to a broker instead of stdout: "
                 "redis://HOST:PORT/STREAM (Redis Streams), nats://HOST:PORT/SUBJECT "
                 "(NATS JetStream), amqp://HOST:PORT/EXCHANGE (RabbitMQ, publisher "
                 "confirms); one message per line of --format "
                 f"{listing(DELIVERED)}, with its record key and order key; the checkpoint "
                 "(--resume) moves once the broker acknowledged a transaction's every "
                 "record (at least once: see docs/replication.md)"),
        Opt("--retry-for", type=float, default=60.0, metavar="SECONDS",
            help="with --to: how long a broker that cannot be reached is retried "
                 "(backoff, a stderr line per retry) before the stream stops with "
                 "status 1, its checkpoint left before the transaction not "
                 "delivered (default 60)"),
        Opt("--group", type=int, default=GROUP, metavar="N",
            help="with --to: the broker's acknowledgements are awaited once per group "
                 "of transactions, of up to N records or N transactions (and 8 MiB, "
                 "1 s; at once when a live server has nothing more to send), and the "
                 "--resume checkpoint saved once per group: after a kill, what is "
                 "sent again is at most a group and the transaction under way "
                 f"(default {GROUP}: each transaction confirmed and saved alone, so "
                 "a kill sends again only the last unacknowledged transaction; larger "
                 "groups save round trips)"),
        METRICS.but(
            help="serve Prometheus metrics at http://HOST:PORT/metrics (events, rows, "
                 "transactions, bytes, lag in seconds and bytes, checkpoint, "
                 "reconnects) and /health (503 when stuck: see --stuck-after)"),
        Opt("--stuck-after", type=float, default=120.0, metavar="SECONDS",
            help="with --metrics: /health fails (503) when nothing was delivered nor "
                 "heard from the server for this long; more than --heartbeat "
                 "(default 120)"),
        *STREAM_FILTERS,   # (decode's filters; --gtid is the stream's start here)
    ], description="Connect to a MySQL or MariaDB server as a replica (COM_REGISTER_SLAVE, "
                   "COM_BINLOG_DUMP) and write its binlog's events as they come.",
        epilog=EPILOG + "\n" + epilog(STATUS_NOTE)),
]

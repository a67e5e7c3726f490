"""Option groups several commands share, declared once: the files and their byte range, the
filters (decode, sql, flashback, stream: :mod:`binlog_schema.changes.selection`), output
(format of binary values, progress), connection and TLS (stream, serve), Spark (every
``spark`` command). A command takes a shared option as it is, or with its own help
(:meth:`Opt.but`)."""

from __future__ import annotations

from binlog_schema.pipeline.tables import FORMATS

from .declare import Opt
from .values import position, size

# ------------------------------------------------------------------------- files and range

FILES_HELP = ("binlog or relay-log files (not directories: give the files in one, e.g. "
              "DIR/binlog.0*)")
FILES = Opt("files", nargs="+", metavar="FILE", help=FILES_HELP)
IN_ORDER = FILES.but(help=FILES_HELP + "; in binlog order")

# the byte range of sql and flashback: in the first and the last file, as mysqlbinlog
START_POSITION = Opt("--start-position", type=position, metavar="N",
                     help="start at byte N of the first file (as mysqlbinlog)")
STOP_POSITION = Opt("--stop-position", type=position, metavar="N",
                    help="stop before the first event at or after byte N of the last file")
RANGE = [START_POSITION, STOP_POSITION]

SKIP_ERRORS = Opt("--skip-errors", action="store_true")

# ------------------------------------------------------------------------------- filters

WHERE_HELP = (
    "a row's history: only the row changes whose before or after image has COLUMN=VALUE "
    "(several joined by AND, or --where repeated; VALUE typed by the column: integers, "
    "decimals, strings in their charset, compared exactly, ENUM, SET, dates and times; "
    "quoted with ' or \"; NULL or COL IS NULL). Rows events of tables without the columns "
    "are passed over undecoded; a table named by --table that lacks one, or no table with "
    "them in the input, is a usage error (changes/row_match.py)")
WHERE = Opt("--where", action="append", metavar="COND", help=WHERE_HELP)
GTID_FILTER = Opt(
    "--gtid", action="append", metavar="SET",
    help="only transactions whose GTID is in SET: MySQL uuid:1-5:7,uuid2:3 (tagged "
         "uuid:tag:N), MariaDB domain-server-seq or domain-server-seq1-seq2 "
         "(comma-separated, repeatable)")
# the filters decode, sql and flashback share (stream: all but --gtid, its start there)
FILTERS = [
    Opt("--start-datetime", metavar="TIME",
        help="only transactions that begin at or after TIME (YYYY-MM-DD HH:MM:SS, UTC unless "
             "an offset such as +02:00 follows; decode: events at or after it)"),
    Opt("--stop-datetime", metavar="TIME",
        help="only transactions that begin before TIME (decode: events before it)"),
    Opt("--database", action="append", metavar="DB",
        help="only changes of tables of DB (repeatable)"),
    Opt("--table", action="append", metavar="DB.TABLE",
        help="only changes of these tables (repeatable; shell globs: shop.order_*, *.users; "
             "a name without a dot: that table in any database)"),
    GTID_FILTER,
    Opt("--operation", metavar="OPS",
        help="only these row operations: insert,update,delete (comma-separated)"),
    Opt("--thread-id", action="append", metavar="N",
        help="only transactions whose BEGIN query ran in thread N (repeatable; MariaDB row "
             "transactions begin with a GTID event, which carries no thread: none match)"),
    WHERE,
]
STREAM_FILTERS = [o for o in FILTERS if o is not GTID_FILTER]

# -------------------------------------------------------------------------------- output

ROWS = Opt("--rows", action="store_true")
BINARY = Opt("--binary", choices=("hex", "base64"), default="hex")
# the schema at the start (mysqldump --no-data, SHOW CREATE TABLE; repeatable)
SCHEMA = Opt("--schema", action="append", metavar="FILE")
# the progress line of long commands (output/progress.py)
PROGRESS = Opt("--progress", action="store_true",
               help="show the progress line (bytes read of the total, rate, time left) on "
                    "stderr even when it is not a terminal; on a terminal it is shown for "
                    "inputs of 16 MiB and more")

# ---------------------------------------------------------------- connection and TLS

HOST = Opt("--host", default="127.0.0.1")
PORT = Opt("--port", type=int)
USER = Opt("--user")
PASSWORD_FILE = Opt("--password-file", metavar="FILE")
SERVER_ID = Opt("--server-id")
HEARTBEAT = Opt("--heartbeat", type=float, metavar="SECONDS")
SEMI_SYNC = Opt("--semi-sync", action="store_true")
METRICS = Opt("--metrics", metavar="HOST:PORT")
# a client's TLS (stream)
TLS_CLIENT = [
    Opt("--ssl", action="store_true",
        help="connect over TLS (without --ssl-ca the server's certificate is not verified)"),
    Opt("--ssl-ca", metavar="FILE",
        help="TLS, verifying the server's certificate against this CA file"),
]
# a server's TLS (serve)
TLS_SERVER = [
    Opt("--ssl-cert", metavar="FILE",
        help="the server's TLS certificate (PEM, a chain: the server's first); with "
             "--ssl-key, TLS is offered to clients that ask for it"),
    Opt("--ssl-key", metavar="FILE", help="the private key of --ssl-cert (PEM, unencrypted)"),
    Opt("--require-ssl", action="store_true",
        help="refuse clients that do not start TLS (ERR 1045)"),
]

# --------------------------------------------------------------------------------- Spark

INPUTS = Opt("inputs", nargs="+", metavar="INPUT",
             help="binlog or relay-log files, directories (read recursively) or globs, on "
                  "any Hadoop filesystem (file:, hdfs:, s3a:, ...)")
OUT = Opt("--out", required=True, help="output directory (any Hadoop filesystem)")
LAKE_FORMAT = Opt("--format", choices=FORMATS, default="parquet")
SPLIT_SIZE = Opt("--split-size", type=size, default="8m",
                 help="work per split (bytes, plus 200 per event): large files are cut at "
                      "transaction boundaries into splits of about this size (default 8m)")
OVERWRITE = Opt("--overwrite", action="store_true", help="replace existing tables")
QUIET = Opt("--quiet", action="store_true", help="no progress lines")
INCLUDE_HIDDEN = Opt("--include-hidden", action="store_true",
                     help="also read files named .* and _* inside directories")
# --master, --conf and --verbose, which every spark command has
SPARK = [
    Opt("--master", help="Spark master URL (default: the one spark-submit gives, else "
                         "local[*] started here), e.g. spark://host:7077"),
    Opt("--conf", action="append", metavar="KEY=VALUE",
        help="extra Spark configuration (repeatable)"),
    Opt("--verbose", action="store_true",
        help="Spark's and the JVM's own messages on stderr too (log4j at Spark's level, "
             "the JVM's start-up warnings); without it only the command's progress lines "
             "and problems, and the JVM's errors"),
]

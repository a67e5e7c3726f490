"""``binlog-schema spark decode|current|history|changes|follow|stats|fixtures|validate``:
the pipeline's commands, declared (what each prints: :mod:`binlog_schema.cli.spark_runs`; the jobs:
:mod:`binlog_schema.pipeline`).

The driver of a job, also run as ``python -m binlog_schema.cli.spark decode ...`` or
``spark-submit .../binlog_schema/cli/spark.py decode ...`` (the driver and the workers need
this package importable: same virtual environment, or installed on every node).
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # run as a script (spark-submit): this directory is no package root
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

# (absolute imports, after the path is set: this file is also a script)
from binlog_schema.cli.declare import Cmd, Opt
from binlog_schema.cli.options import (INCLUDE_HIDDEN, INPUTS, LAKE_FORMAT, OUT, OVERWRITE,
                                       QUIET, SCHEMA, SPARK, SPLIT_SIZE)
from binlog_schema.cli.spark_runs import (parse_conf, run_decode, run_fixtures, run_stats,
                                          run_validate)
from binlog_schema.cli.stats import FORMAT, HTML, MAX_EVENT_SIZE, TOP
from binlog_schema.cli.values import count
from binlog_schema.changes.stats import DEFAULT_TOP
from binlog_schema.pipeline.jobs.fixtures import TABLE_MAPS   # (a light module)
from binlog_schema.output.statuses import USAGE


def _need_pyspark(func):
    def run(args):
        try:
            import pyspark  # noqa: F401
        except ImportError:
            print("binlog-schema spark: pyspark is not installed (pip install "
                  "'binlog-schema[spark]', or scripts/setup.sh); Spark also needs Java 17+",
                  file=sys.stderr)
            return USAGE
        from binlog_schema.pipeline.driver.session import find_java
        if find_java() is None:
            print("binlog-schema spark: Spark needs Java 17+ and none was found on JAVA_HOME "
                  "or PATH (scripts/setup.sh finds or installs one)", file=sys.stderr)
            return USAGE
        return func(args)
    return run


def _run_current(args) -> int:
    from binlog_schema.pipeline.current.command import run_current
    return run_current(args, parse_conf(args.conf))


def _run_history(args) -> int:
    from binlog_schema.pipeline.current.command import run_current
    return run_current(args, parse_conf(args.conf), "history")


def _run_follow(args) -> int:
    from binlog_schema.pipeline.follow.command import run_follow
    return run_follow(args, parse_conf(args.conf))


def _run_changes(args) -> int:
    from binlog_schema.pipeline.current.command import run_changes
    return run_changes(args, parse_conf(args.conf))


# the inputs and output of the jobs over one server's binlogs (current, history, changes)
ONE_SERVER = (INPUTS.but(help="binlog files, folders or globs of one server (any Hadoop "
                              "filesystem)"),
              OUT.but(help="output folder"))
# their tables' format and the run's options (history, changes)
TABLE_RUN = (LAKE_FORMAT.but(help="parquet (default), delta (the deltalake package: no Spark "
                             "jars; TIME as microseconds) or iceberg (pyiceberg, a SQLite "
                             "catalog in OUT)"),
             SPLIT_SIZE.but(help="bytes per split (default 8m)"),
             OVERWRITE.but(help="replace an existing --out"),
             QUIET,
             *SPARK)


SUBS = [
    Cmd("decode", "binlog files to typed tables (events, table_maps, row_changes, errors, "
                      "files)",
        _need_pyspark(run_decode), [
        INPUTS,
        OUT,
        LAKE_FORMAT.but(
            help="parquet (default); delta: Delta Lake tables, the same Parquet files "
            "committed in place by the deltalake package (no Spark jars needed; read "
            "them with deltalake, DuckDB or Spark with Delta); Delta has no interval "
            "type, so MySQL TIME values (Value.time) are microseconds as long there; "
            "iceberg: Iceberg tables, the same Parquet files added in place by pyiceberg "
            "(no JVM; catalog OUT/_binlog_schema/catalog.db, SQLite; local --out only; "
            "Value.time as long microseconds too)"),
        SPLIT_SIZE,
        Opt("--engine", choices=("auto", "arrow", "spark"), default="auto",
            help="arrow: tasks write Parquet parts themselves (pyarrow; half the CPU "
            "per row); spark: rows go through the JVM and Spark's writers (any "
            "Hadoop filesystem); auto (default): arrow when pyarrow is installed"),
        OVERWRITE,
        Opt("--no-rows", action="store_true", help="skip row_changes"),
        INCLUDE_HIDDEN,
        QUIET,
        SCHEMA.but(
            help="the schema at the start of the first file, as mysqldump --no-data "
            "or SHOW CREATE TABLE statements (a local file, read by the driver; "
            "repeatable): the inputs are one server's binlogs, in name order, whose "
            "DDL is replayed into it (the history is on without it: replayed "
            "from nothing); table maps without column names (MINIMAL "
            "metadata) get its names, ENUM/SET members and primary key where they "
            "agree with it, else their rows keep @N names and an errors row of stage "
            "schema names the table and the difference (exit 3)"),
        *SPARK,
    ], description="Decode binlog files, directories or globs (any Hadoop filesystem) into "
        "typed tables written under --out (the index, GTID state and replica info files a "
        "server keeps beside its binlogs are listed as companions, not read; an index gives "
        "the order of the binlogs it names), with a per-file reconciliation: events read = "
        "decoded + quarantined, and the file's bytes = 4 (magic number) + bytes decoded "
        "(events) + bytes skipped (quarantined events and skipped ranges, each an errors row "
        "with offset and size). Damage never stops the job: each split resynchronises inside "
        "its own byte range. Exit status: 0 every file clean; 3 damaged but every file "
        "reconciled (events quarantined or bytes skipped: see the errors table; an index entry "
        "not found); 1 a file does not reconcile (not a binlog, unreadable, bytes not all "
        "accounted for), or no input file at all; 2 usage (output exists, format unavailable). "
        "What could not be read is said on stderr, file by file."),
    Cmd("current", "the current state of every source table (Parquet, Delta or Iceberg)",
        _need_pyspark(_run_current), [
        *ONE_SERVER,
        Opt("--base", help="a previous run's --out to continue (its tables are the "
            "starting state; with --format delta or iceberg it may be --out itself)"),
        SCHEMA.but(
            help="the schema at the start of the first file (mysqldump --no-data; "
            "repeatable), for tables created before it (their rows before it are not "
            "known: use with --assume-empty, or start from --base)"),
        Opt("--assume-empty", action="store_true",
            help="tables created before the first binlog were empty then"),
        LAKE_FORMAT.but(
            help="parquet (default), delta (the deltalake package: no Spark jars; "
            "one commit per table and run; TIME as microseconds) or iceberg (pyiceberg, "
            "a SQLite catalog in OUT/_binlog_schema/catalog.db: one snapshot per changed "
            "table and run, an upsert of the changed keys with --base OUT; TIME as Iceberg "
            "time when every value lies within a day, else microseconds)"),
        SPLIT_SIZE.but(help="bytes per split (default 8m)"),
        OVERWRITE.but(help="replace an existing --out"),
        QUIET,
        *SPARK,
    ], description="The rows every source table held at the end of the last input binlog's "
        "last complete transaction, one table per source table at OUT/<database>/<table>: the "
        "source columns as Spark types, then _order_key (the order key of the row's last "
        "change). Changes are applied in binlog order, by primary key (a table without one is "
        "a multiset); DDL where it falls (ADD COLUMN fills the rows there with its DEFAULT, "
        "DROP/MODIFY/CHANGE/RENAME COLUMN, RENAME TABLE, TRUNCATE, DROP TABLE). The schema "
        "history is replayed from the binlogs (and --schema). OUT/_binlog_schema/state.json "
        "records what was applied: --base OUT continues from there (incremental; the same "
        "files again change nothing). Foreign-key cascades are in the binlog as rows. Exit "
        "status: 0 clean; 3 when a table could not be built exactly (said on stderr and in "
        "state.json: a table whose history starts before the binlogs without --base, a "
        "statement the schema history refuses: its file, offset, statement and reason, a "
        "damaged file); 1 when a file does not reconcile, or no input file at all; 2 usage."),
    Cmd("history", "every version of every row of every source table (SCD type 2)",
        _need_pyspark(_run_history), [
        *ONE_SERVER,
        SCHEMA.but(
            help="the schema at the start of the first file (mysqldump --no-data; "
            "repeatable), for tables created before it (their rows before it are not "
            "known: use with --assume-empty)"),
        Opt("--assume-empty", action="store_true",
            help="tables created before the first binlog were empty then"),
        *TABLE_RUN,
    ], description="Every version of every row of every source table (slowly changing "
        "dimension type 2), one table per source table at OUT/<database>/<table>: the source "
        "columns typed as spark current types them, then _order_key (the change that made the "
        "version), _valid_from and _valid_to (the commit timestamps of the transactions that "
        "made and ended it; _valid_to null for the version held at the end), _is_current. A "
        "delete ends a row's last version, TRUNCATE every version; a table without a primary "
        "key has one version line per copy of a row. The versions are spark current's fold: "
        "those current at the end are spark current's rows. Exit status as spark current's "
        "(3 also for a table whose primary key changes in its life, or whose keyed rows a "
        "partial image moves: its history is not written)."),
    Cmd("follow", "a folder of binlogs followed into current tables (Delta), batch by batch",
        _need_pyspark(_run_follow), [
        Opt("folder", metavar="FOLDER",
            help="the folder (or a glob of names in one folder) where one server's binlogs "
            "appear in name order and the last one grows (any Hadoop filesystem)"),
        OUT.but(help="output folder: new, or the output of an earlier follow or spark "
                     "current --format delta (continued)"),
        Opt("--checkpoint", required=True, metavar="DIR",
            help="Spark's checkpoint folder of the query (keep it: a start with the same "
            "one goes on where the last committed batch ended)"),
        SCHEMA.but(
            help="the schema at the start of the first file (mysqldump --no-data; "
            "repeatable; the same at every start), for tables created before it"),
        Opt("--assume-empty", action="store_true",
            help="tables created before the first binlog were empty then"),
        LAKE_FORMAT.but(default="delta", help="delta (the default and the only one: "
                        "each micro-batch gives the tables it changes a new version)"),
        Opt("--trigger-interval", type=float, default=5.0, metavar="S",
            help="seconds between micro-batches while the folder grows (default 5)"),
        Opt("--until-idle", type=float, metavar="S",
            help="stop when nothing was applied for S seconds"),
        Opt("--once", action="store_true",
            help="apply what the folder holds now, then stop (Trigger.AvailableNow)"),
        QUIET,
        *SPARK,
    ], description="spark.readStream.format(\"binlog\") over FOLDER into the tables of "
        "spark current at OUT/<database>/<table> (Delta), one micro-batch at a time, each "
        "ending at a transaction boundary and applied as spark current --base OUT applies "
        "a run (the schema history in force, DDL where it falls; OUT/_binlog_schema/"
        "state.json written last). Restart-safe through --checkpoint: killed and started "
        "again with the same --checkpoint and --out, the tables equal those of spark "
        "current over the same files, no change applied twice. Runs until --once's "
        "batch is done, --until-idle, or SIGTERM/SIGINT (the batch being applied finishes "
        "first). Exit status: 0 clean; 3 a table could not be built exactly (said on "
        "stderr, as spark current says it); 1 a batch failed; 2 usage (Parquet, an --out "
        "that is not a follow's or current's Delta output, another --schema)."),
    Cmd("changes", "the row changes of every source table, in the change-data contract's "
                       "columns (Parquet, Delta or Iceberg)",
        _need_pyspark(_run_changes), [
        *ONE_SERVER,
        SCHEMA.but(
            help="the schema at the start of the first file (mysqldump --no-data; "
            "repeatable), for tables created before it"),
        *TABLE_RUN,
    ], description="The row changes of every source table up to the last input binlog's "
        "last complete transaction, one table per source table at OUT/<database>/<table> "
        "(its final name: a renamed table is one table; tables dropped by the end are left "
        "out), in the columns of Spark's change-data contract and Delta's change data feed: "
        "the table's final columns typed as spark current types them, then _change_type "
        "(insert, delete, update_preimage, update_postimage), _commit_version (the "
        "transaction's place: file sequence number x 10^12 + the offset of its GTID or "
        "BEGIN), _commit_timestamp (its commit event's time), _order_key (the change's "
        "place: a total order) and _columns_present (the columns the image holds: MINIMAL "
        "images hold only some; the others are null). A TRUNCATE and the DEFAULT an ALTER "
        "gives the rows already there are no row changes: OUT/_binlog_schema/changes.json "
        "says where they are. Exit status: 0 clean; 3 when changes could not be placed (a "
        "table whose history is not known, a statement the schema history refuses: said on "
        "stderr, file, offset and reason; a damaged file); 1 when a file does not reconcile, "
        "or no input file at all; 2 usage."),
    Cmd("stats", "what the files hold (binlog-schema stats' figures), counted on Spark",
        _need_pyspark(run_stats), [
        INPUTS.but(help="binlog or relay-log files, folders (read recursively) or globs, on "
                        "any Hadoop filesystem (file:, hdfs:, s3a:, ...)"),
        FORMAT.but(
            help="table (default): as 'stats' prints it; json: every figure, with the "
            "keys docs/insight.md documents"),
        HTML.but(
            help="also write the report page to FILE (a local file, as 'stats --html')"),
        TOP.but(
            help=f"how many of the largest and longest transactions are named "
            f"(default {DEFAULT_TOP})"),
        MAX_EVENT_SIZE.but(
            help="events larger than SIZE are listed (default 16m; bytes, or with k, m "
            "or g)"),
        SPLIT_SIZE,
        INCLUDE_HIDDEN,
        QUIET,
        *SPARK,
    ], description="The figures of 'binlog-schema stats' (tables, transactions, events, "
        "GTIDs, time) of binlog files, folders or globs (any Hadoop filesystem; the files a "
        "server keeps beside its binlogs are listed on stderr, not read; an index gives the "
        "order of the binlogs it names), counted by Spark tasks split by split and merged: the "
        "same document as 'stats --format json' on the same files in the same order (files "
        "named as spark decode names them). A file with damage is counted again whole by one "
        "task, as 'stats' counts it. Exit status: 0 clean; 3 something skipped or not decoded "
        "(each said on stderr, and listed), or an index naming a file not there; 1 a file that "
        "cannot be used (no figures from it), no input file at all, or a report page that "
        "cannot be made; 2 usage."),
    Cmd("fixtures", "write synthetic binlog files in parallel",
        _need_pyspark(run_fixtures), [
        OUT.but(help="directory the workers can write"),
        Opt("--files", type=count, default=20,
            help="how many files to write (default 20)"),
        Opt("--transactions", type=count, default=200,
            help="transactions per file (default 200)"),
        Opt("--seed", type=int, default=0,
            help="the seed of the random specs (default 0): the same seed, flavor "
            "and file index give the same bytes"),
        Opt("--flavor", default="mixed",
            help="mysql, mariadb, mixed (default: every server profile in turn) or "
            "one server profile (mysql-8.0, mariadb-10.11, ...)"),
        Opt("--table-maps", choices=TABLE_MAPS, default="per_transaction",
            help="per_transaction (default: as servers write them); once: each "
            "TABLE_MAP only before its table's first rows event in the file (not "
            "what servers do; makes splits that need carried table maps)"),
        *SPARK,
    ], description="Synthetic binlogs written by Spark tasks, deterministic per --seed and "
        "file index: each file a random spec of the synthetic generator "
        "(binlog_schema.synthetic, as 'binlog-schema fixtures --random'): three tables of "
        "random column types, for the flavor's server profiles in turn, every other file "
        "compressed where the server can."),
    Cmd("validate", "check golden vectors / round-trip a corpus in parallel, into a report "
                        "table",
        _need_pyspark(run_validate), [
        Opt("--specs", action="append", metavar="DIR",
            help="directory of YAML golden vectors (repeatable)"),
        Opt("--roundtrip", nargs="+", metavar="INPUT",
            help="binlog files, directories or globs to parse and rebuild"),
        OUT.but(required=False, help="write the report table (parquet) here"),
        OVERWRITE.but(help="replace the report table at --out if it exists"),
        *SPARK,
    ], description="Golden vectors checked and binlog files round-tripped (every event and "
        "row image rebuilt byte for byte) by Spark tasks. Exit status: 0 everything passed; 3 "
        "rows not decodable (each said on stderr: file, offset, reason) and nothing worse; 1 a "
        "vector or file failed (bytes that differ, an event that fails, a last event cut "
        "short, a file not read: said on stderr), or no input file at all; 2 usage."),
]

COMMANDS = [
    Cmd("spark", "the PySpark pipeline: decode, current, history, changes, follow, stats, "
                 "fixtures, validate",
        description="Binlog files to typed tables on Spark (local[*] by default, or --master "
                    "spark://host:7077).", raw=True, subs=SUBS, sub_dest="spark_command"),
]


def main(argv=None) -> int:
    """``python -m binlog_schema.cli.spark decode|current|history|changes|follow|stats|fixtures|
    validate ...``, and the file spark-submit runs."""
    from binlog_schema.cli.parser import parsers
    top = Cmd("binlog_schema.cli.spark", None, description="binlog files to typed tables on "
              "Spark", subs=SUBS, sub_dest="command")
    args = parsers(top=top)[()].parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

"""``binlog-schema spark decode|fixtures|validate``: the pipeline's commands (pyspark is
imported only when one of them runs)."""

from __future__ import annotations

import argparse
import sys


def parse_conf(items) -> dict:
    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--conf {item!r}: expected KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def _need_pyspark(func):
    def run(args):
        try:
            import pyspark  # noqa: F401
        except ImportError:
            print("binlog-schema spark: pyspark is not installed (pip install "
                  "'binlog-schema[spark]', or scripts/setup.sh); Spark also needs Java 17+",
                  file=sys.stderr)
            return 2
        from .job import find_java
        if find_java() is None:
            print("binlog-schema spark: Spark needs Java 17+ and none was found on JAVA_HOME "
                  "or PATH (scripts/setup.sh finds or installs one)", file=sys.stderr)
            return 2
        return func(args)
    return run


def _decode(args):
    from .job import run_decode
    return run_decode(args)


def _fixtures(args):
    from .tools import run_fixtures
    return run_fixtures(args)


def _validate(args):
    from .tools import run_validate
    return run_validate(args)


def _common(p):
    p.add_argument("--master", help="Spark master URL (default: the one spark-submit gives, "
                   "else local[*] started here), e.g. spark://host:7077")
    p.add_argument("--conf", action="append", metavar="KEY=VALUE",
                   help="extra Spark configuration (repeatable)")


def add_commands(sub):
    """The ``decode``, ``fixtures`` and ``validate`` subcommands (shared by
    ``binlog-schema spark`` and ``python -m binlog_schema.pipeline.job``)."""
    d = sub.add_parser("decode", help="binlog files to typed tables (events, table_maps, "
                       "row_changes, errors, files)",
                       description="Decode binlog files, directories or globs (any Hadoop "
                       "filesystem) into typed tables written under --out, with a per-file "
                       "reconciliation: events read = decoded + quarantined, and the file's "
                       "bytes = 4 (magic number) + bytes decoded (events) + bytes skipped "
                       "(quarantined events and skipped ranges, each an errors row with offset "
                       "and size). Damage never stops the job: each split resynchronises "
                       "inside its own byte range. Exit status: 0 every file clean; 3 damaged "
                       "but every file reconciled (events quarantined or bytes skipped: see "
                       "the errors table); 1 a file does not reconcile (not a binlog, "
                       "unreadable, bytes not all accounted for); 2 usage (output exists, "
                       "format unavailable).")
    d.add_argument("inputs", nargs="+", metavar="INPUT")
    d.add_argument("--out", required=True, help="output directory (any Hadoop filesystem)")
    d.add_argument("--format", choices=("parquet", "delta"), default="parquet",
                   help="parquet (default); delta needs the Delta Lake jars on Spark's "
                   "classpath and fails with a clear message otherwise")
    d.add_argument("--split-size", default="8m",
                   help="work per split (bytes, plus 200 per event): large files are cut "
                   "at transaction boundaries into splits of about this size (default 8m)")
    d.add_argument("--engine", choices=("auto", "arrow", "spark"), default="auto",
                   help="arrow: tasks write Parquet parts themselves (pyarrow; half the CPU "
                   "per row); spark: rows go through the JVM and Spark's writers (any "
                   "Hadoop filesystem); auto (default): arrow when pyarrow is installed")
    d.add_argument("--overwrite", action="store_true", help="replace existing tables")
    d.add_argument("--no-rows", action="store_true", help="skip row_changes")
    d.add_argument("--include-hidden", action="store_true",
                   help="also read files named .* and _* inside directories")
    d.add_argument("--quiet", action="store_true", help="no progress lines")
    _common(d)
    d.set_defaults(func=_need_pyspark(_decode))

    f = sub.add_parser("fixtures", help="write synthetic binlog files in parallel",
                       description="Synthetic binlogs written by Spark tasks, deterministic "
                       "per --seed and file index.")
    f.add_argument("--out", required=True, help="directory the workers can write")
    f.add_argument("--files", type=int, default=20)
    f.add_argument("--transactions", type=int, default=200, help="per file")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--generator", choices=("fixtures", "recipe"), default="fixtures",
                   help="fixtures (default): random specs of binlog_schema.synthetic (three "
                   "tables of random column types, the flavor's server profiles in turn); "
                   "recipe: two known tables, a mid-file ALTER (MySQL 8.0 / MariaDB 10.11)")
    f.add_argument("--flavor", default="mixed",
                   help="mysql, mariadb, mixed (default) or, with the fixtures generator, "
                   "one server profile (mysql-8.0, mariadb-10.11, ...)")
    f.add_argument("--table-maps", choices=("per_transaction", "once"),
                   default="per_transaction",
                   help="recipe only; once: each TABLE_MAP only before its table's first rows "
                   "event (not what servers do; makes splits that need carried table maps)")
    _common(f)
    f.set_defaults(func=_need_pyspark(_fixtures))

    v = sub.add_parser("validate", help="check golden vectors / round-trip a corpus in "
                       "parallel, into a report table")
    v.add_argument("--specs", action="append", metavar="DIR",
                   help="directory of YAML golden vectors (repeatable)")
    v.add_argument("--roundtrip", nargs="+", metavar="INPUT",
                   help="binlog files, directories or globs to parse and rebuild")
    v.add_argument("--out", help="write the report table (parquet) here")
    v.add_argument("--overwrite", action="store_true")
    _common(v)
    v.set_defaults(func=_need_pyspark(_validate))


def register(sub):
    """Add this package's subcommands to the ``binlog-schema`` parser."""
    s = sub.add_parser("spark", help="the PySpark pipeline: decode, fixtures, validate",
                       description="Binlog files to typed tables on Spark (local[*] by "
                       "default, or --master spark://host:7077).",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_commands(s.add_subparsers(dest="spark_command", required=True))

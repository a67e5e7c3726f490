"""``binlog-schema fixtures``: synthetic binlogs from a spec, at random, or a spec's tables
from DDL.

    binlog-schema fixtures SPEC.yaml -o FILE              # the binlog file of a spec
    binlog-schema fixtures SPEC.yaml --event N -o V.yaml  # one event as a golden vector
    binlog-schema fixtures SPEC.yaml --sql                # DDL + initial rows for a replay
    binlog-schema fixtures --random --seed N --tables T --transactions X --flavor F -o DIR
    binlog-schema fixtures --from-ddl FILE [--database DB] [--flavor F] [-o SPEC.yaml]
    binlog-schema fixtures --list-servers

The work: :func:`binlog_schema.synthetic.fixtures_command.cmd_fixtures`.
"""

from __future__ import annotations

from ..output.statuses import epilog
from ..synthetic.fixtures_command import cmd_fixtures
from .declare import Cmd, Opt
from .values import at_least, bad_value, count


def mix(text):
    """``--types``, checked (kept as given)."""
    from ..synthetic.randomspec import parse_mix
    try:
        weights = parse_mix(text)
    except ValueError as e:
        msg = str(e) if "family" in str(e) else f"{text!r}: a weight is a whole number"
        raise bad_value(msg) from None
    if not any(w > 0 for w in weights.values()):
        raise bad_value(f"{text!r}: no family with a weight above 0")
    return text


_USAGE = ("usage lines:\n" + "\n".join(
    "  " + line.strip() for line in __doc__.splitlines() if line.strip().startswith(
        "binlog-schema fixtures")) + "\n\n" + epilog(
    "1: a spec, DDL or file that cannot be used (said on stderr); the files written are "
    "whole or absent.", width=79))

COMMANDS = [
    Cmd("fixtures", "synthetic binlogs from a YAML spec, at random, or a spec's tables from "
                    "DDL", cmd_fixtures, [
        Opt("spec", nargs="?", metavar="SPEC.yaml",
            help="the YAML fixture spec (one document: server, settings, database, tables, "
                 "transactions; see binlog_schema/synthetic/spec.py). A spec that is not "
                 "YAML, or not of that shape, is refused naming the file and line; an "
                 "unknown server is refused with the list of known ones"),
        Opt("-o", "--output", help="the binlog file (a directory with --random; the YAML with "
                                   "--from-ddl / --event / --sql, default stdout)"),
        Opt("--event", type=int, metavar="N",
            help="write event N of the file (from 0) as a YAML golden vector"),
        Opt("--sql", action="store_true",
            help="the CREATE statements and initial rows the spec's tables need"),
        Opt("--random", action="store_true",
            help="a random spec and its binlog, written under -o DIR"),
        Opt("--seed", type=int, default=0,
            help="--random: the seed (the same seed, the same files; default 0)"),
        Opt("--tables", type=at_least(1), default=3, help="--random: tables (default 3)"),
        Opt("--transactions", type=count, default=20,
            help="--random: transactions (default 20)"),
        Opt("--rows", type=at_least(1), default=5,
            help="--random: at most this many rows per change (default 5)"),
        Opt("--types", type=mix,
            help="--random: column-type mix: comma-separated families with optional "
                 "weights, e.g. int:3,string,temporal,decimal:2"),
        Opt("--flavor", help="the server to imitate (--random, --from-ddl): mysql-5.7, "
                             "mysql-8.0, mysql-8.4, mysql-9.0, mariadb-10.11, mariadb-11.4, "
                             "... (--list-servers)"),
        Opt("--from-ddl", metavar="FILE",
            help="CREATE TABLE statements (or SHOW CREATE TABLE output) -> spec tables"),
        Opt("--database", help="the database of unqualified tables (--from-ddl)"),
        Opt("--list-servers", action="store_true",
            help="the server profiles a spec can name, and where each comes from"),
    ], description=__doc__.split("\n\n", 1)[0].replace("``", ""), epilog=_USAGE, raw=True),
]

#!/usr/bin/env python3
"""How much of the DDL in binlogs the schema history understands.

    scripts/ddl_survey.py [FILE_OR_DIR ...]      (default: the corpus, BINLOG_CORPUS)
    scripts/ddl_survey.py --sqlglot              (also: how sqlglot parses the same DDL)

Each directory's files are one stream (replayed in name order into one history); a file
given alone is its own. Prints, per stream and in total, the QUERY statements understood
(changed or left unchanged a table or database), ignored (not schema DDL) and refused (each
with its message), then how the TABLE_MAPs agree with the history's tables (tables the
history knows: column count and every fact both sides carry).
"""

from __future__ import annotations

import argparse
import collections
import os
import pathlib
import re
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from binlog_schema import BinlogReader, table_map_from_event  # noqa: E402
from binlog_schema.changes.schema import DDLRefused, SchemaHistory  # noqa: E402
from binlog_schema.changes.schema.ddl.statements import parse_statement  # noqa: E402
from binlog_schema.changes.schema.ddl.tokens import DDLError  # noqa: E402

DDL_START = re.compile(r"(?is)\s*(?:/\*.*?\*/\s*)?(create|alter|drop|rename|truncate)\b")


def corpus_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("BINLOG_CORPUS", ROOT.parent / "shared" / "corpus"))


def streams(paths):
    """[(name, [files])]: a directory's files (recursively, grouped by folder) are streams."""
    out = collections.OrderedDict()
    for p in paths:
        p = pathlib.Path(p)
        if p.is_dir():
            for f in sorted(x for x in p.rglob("*") if x.is_file() and
                            x.suffix not in (".md", ".txt")):
                out.setdefault(str(f.parent), []).append(f)
        else:
            out.setdefault(str(p), []).append(p)
    return list(out.items())


def survey(files, check_maps=True):
    """Replay one stream: counts, refusals, table-map agreement, the DDL texts seen."""
    history = SchemaHistory()
    counts = collections.Counter()
    refused, disagreements, ddl = [], [], []
    for index, f in enumerate(files):
        try:
            reader = BinlogReader(str(f), skip_errors=True)
            for rec in reader:
                for r in [rec] + list(rec.inner or ()):
                    if r.error is not None or r.value is None:
                        continue
                    name = r.type_name
                    if name in ("QUERY_EVENT", "QUERY_COMPRESSED_EVENT",
                                "EXECUTE_LOAD_QUERY_EVENT"):
                        body = r.value["body"]
                        if "query" not in body:
                            continue
                        pos = (index, r.offset)
                        q = body["query"]
                        q = q if isinstance(q, str) else bytes(q).decode("utf-8", "replace")
                        if DDL_START.match(q):
                            ddl.append((q, r.ctx.flavor))
                        try:
                            out = history.apply_query(body, r.ctx, pos)
                        except DDLRefused as e:
                            counts["refused"] += 1
                            refused.append((f, r.offset, str(e)))
                            continue
                        counts["ignored" if out.kind == "ignored" else "understood"] += 1
                    elif name == "TABLE_MAP_EVENT" and check_maps:
                        tm = table_map_from_event(r.value, r.ctx)
                        db = tm.database if isinstance(tm.database, str) else None
                        tb = tm.table if isinstance(tm.table, str) else None
                        t = history.table(db, tb)
                        if t is None:
                            counts["maps_unknown_table"] += 1
                            continue
                        problems = t.check(tm)
                        if problems:
                            counts["maps_disagree"] += 1
                            disagreements.append((f, r.offset, problems))
                        else:
                            counts["maps_agree"] += 1
        except Exception as e:  # noqa: BLE001 - a file the reader cannot open: say so, go on
            counts["unreadable_files"] += 1
            refused.append((f, 0, f"unreadable: {e}"))
    return counts, refused, disagreements, ddl


def _sqlglot_usable(e, exp) -> bool:
    """A structure the history could use: not an opaque Command; a CREATE TABLE's columns
    all with a known data type."""
    if isinstance(e, exp.Command):
        return False
    for col in e.find_all(exp.ColumnDef):
        kind = col.args.get("kind")
        if kind is not None and kind.this in (exp.DataType.Type.UNKNOWN,
                                              exp.DataType.Type.USERDEFINED):
            return False
    return True


def sqlglot_eval(ddl):
    """sqlglot (mysql dialect) vs this parser on the schema DDL among the texts (the
    statements this parser classifies as table or database DDL, or fails on)."""
    import logging
    logging.disable(logging.CRITICAL)
    import sqlglot
    from sqlglot import exp
    schema_ddl = []
    for q, flavor in ddl:
        try:
            if parse_statement(q)["kind"] != "other":
                schema_ddl.append((q, flavor))
        except DDLError:
            schema_ddl.append((q, flavor))
    res = collections.Counter(statements=len(schema_ddl))
    failed = []
    sqlglot.parse_one("CREATE TABLE warm (a INT)", dialect="mysql")
    t0 = time.perf_counter()
    for q, _flavor in schema_ddl:
        try:
            e = sqlglot.parse_one(q, dialect="mysql")
        except Exception as x:  # noqa: BLE001 - sqlglot's failure is counted
            res["sqlglot_error"] += 1
            failed.append(("sqlglot error", q, str(x).split("\n")[0]))
            continue
        if _sqlglot_usable(e, exp):
            res["sqlglot_usable"] += 1
        else:
            res["sqlglot_unusable"] += 1
            failed.append(("sqlglot unusable", q, type(e).__name__))
    t1 = time.perf_counter()
    for q, _ in schema_ddl:
        try:
            parse_statement(q)
            res["ours_parsed"] += 1
        except DDLError as x:
            res["ours_error"] += 1
            failed.append(("ours error", q, str(x)))
    t2 = time.perf_counter()
    res["sqlglot_ms"] = round((t1 - t0) * 1000, 1)
    res["ours_ms"] = round((t2 - t1) * 1000, 1)
    return res, failed


def sqlglot_version() -> str:
    import sqlglot
    return sqlglot.__version__


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--sqlglot", action="store_true", help="compare with sqlglot")
    ap.add_argument("--no-table-maps", action="store_true")
    args = ap.parse_args(argv)
    paths = args.paths or [corpus_dir()]
    total = collections.Counter()
    all_refused, all_dis, all_ddl = [], [], []
    for _name, files in streams(paths):
        counts, refused, dis, ddl = survey(files, not args.no_table_maps)
        total.update(counts)
        all_refused += refused
        all_dis += dis
        all_ddl += ddl
    print(f"statements: {total['understood']} understood, {total['ignored']} ignored (not "
          f"schema DDL), {total['refused']} refused")
    print(f"table maps: {total['maps_agree']} agree, {total['maps_disagree']} disagree, "
          f"{total['maps_unknown_table']} of tables the history does not know")
    if total["unreadable_files"]:
        print(f"unreadable files: {total['unreadable_files']}")
    for f, off, msg in all_refused:
        print(f"REFUSED {f}@{off}: {msg}")
    for f, off, problems in all_dis:
        for p in problems:
            print(f"DISAGREE {f}@{off}: {p}")
    if args.sqlglot:
        res, failed = sqlglot_eval(all_ddl)
        print(f"schema DDL statements: {res['statements']}")
        print(f"sqlglot {sqlglot_version()}: {res['sqlglot_usable']} usable, "
              f"{res['sqlglot_unusable']} not (an opaque Command or an unknown type), "
              f"{res['sqlglot_error']} errors, {res['sqlglot_ms']} ms")
        print(f"ours: {res['ours_parsed']} parsed, {res['ours_error']} errors, "
              f"{res['ours_ms']} ms")
        for who, q, why in failed:
            print(f"  {who}: {' '.join(q.split())[:110]}: {why[:80]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Write every table of some databases as typed JSON: the rows a server holds, losslessly.

    python scripts/current_snapshot.py --socket SOCK --databases db1,db2 --out FILE [--set k=v]

Used by scripts/make_current_binlogs.sh after each part of scripts/workloads/current.sql; the
server tier (tests/server/test_current_server.py) compares ``binlog-schema spark current``
with it. The document:

    {"server_version", "databases", ...--set fields...,
     "tables": {"db.table": {"columns": [{"name", "type", "column_type", "key"}],
                             "primary_key": [names], "count": COUNT(*), "rows": [[...]]}}}

``type`` is information_schema's DATA_TYPE, except ``json`` for a MariaDB JSON column (a
LONGTEXT with a ``json_valid`` CHECK). The session runs with time_zone '+00:00'. Values, as
the SELECT gives them (``null`` for NULL):

    integers, YEAR, BIT          JSON integer (exact at any size)
    DECIMAL                      string, the exact decimal text
    FLOAT, DOUBLE                JSON number: the stored value widened to a double, exactly
                                 (CAST(c AS DOUBLE); -0.0 kept)
    character strings, ENUM,     string (the server converts to utf8mb4)
    SET, JSON
    binary strings, BLOB         hex string (BINARY(n) with its padding, as SELECT gives it)
    DATE                         'YYYY-MM-DD'
    DATETIME                     'YYYY-MM-DDTHH:MM:SS.ffffff'
    TIMESTAMP                    'YYYY-MM-DDTHH:MM:SS.ffffff+00:00'
    TIME                         integer microseconds (negative, and beyond a day, kept)

Rows are in primary-key order where there is one (the tests compare multisets).
"""

from __future__ import annotations

import argparse
import re
import sys

import pymysql

from rows_snapshot import BINARY, INTEGER, TEXTUAL, q, text, write_doc


def select_expression(name: str, ty: str) -> str:
    c = q(name)
    if ty in INTEGER:
        return f"CAST({c} AS CHAR)"          # (DECIMAL too: its exact text)
    if ty == "bit":
        return f"CAST({c} AS UNSIGNED)"
    if ty in ("float", "double"):
        return f"CONCAT(CAST({c} AS DOUBLE), IF(ATAN2({c}, -1) < 0, '-', '+'))"
    if ty in ("date", "time", "datetime", "timestamp"):
        return f"CAST({c} AS CHAR)"
    if ty in BINARY:
        return f"HEX({c})"
    if ty in TEXTUAL or ty in ("enum", "set", "json"):
        return f"CONVERT({c} USING utf8mb4)"
    raise SystemExit(f"current_snapshot.py: no typed form for column {name} ({ty})")


def micros(t: str) -> int:
    """'[-]HHH:MM:SS[.ffffff]' -> microseconds."""
    m = re.fullmatch(r"(-?)(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?", t)
    if not m:
        raise SystemExit(f"current_snapshot.py: TIME {t!r}")
    sign, h, mi, s, frac = m.groups()
    us = ((int(h) * 60 + int(mi)) * 60 + int(s)) * 1_000_000 + int((frac or "").ljust(6, "0"))
    return -us if sign else us


def fraction(t: str) -> str:
    """A DATETIME/TIMESTAMP text with six fractional digits, 'T' between date and time."""
    day, _, clock = t.partition(" ")
    whole, _, frac = clock.partition(".")
    return f"{day}T{whole}.{frac.ljust(6, '0')}"


def typed(v, ty: str):
    if v is None:
        return None
    v = text(v)
    if ty in INTEGER and ty != "decimal" or ty == "bit":
        return int(v)
    if ty in ("float", "double"):
        x = float(v[:-1])
        return -x if v.endswith("-") and x == 0 else x
    if ty == "time":
        return micros(v)
    if ty == "datetime":
        return fraction(v)
    if ty == "timestamp":
        return fraction(v) + "+00:00"
    return v                # DECIMAL text, DATE, strings, hex of binary strings


def snapshot(conn, databases: list) -> dict:
    cur = conn.cursor()
    marks = ", ".join(["%s"] * len(databases))
    cur.execute("SELECT CONSTRAINT_SCHEMA, TABLE_NAME, CHECK_CLAUSE FROM "
                f"information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA IN ({marks})",
                databases)
    json_columns = set()
    for db, table, clause in cur.fetchall():
        m = re.fullmatch(r"json_valid\(`((?:[^`]|``)+)`\)", text(clause).strip())
        if m:
            json_columns.add((text(db), text(table), m.group(1).replace("``", "`")))
    cur.execute("SELECT c.TABLE_SCHEMA, c.TABLE_NAME, c.COLUMN_NAME, c.DATA_TYPE, "
                "c.COLUMN_TYPE, c.COLUMN_KEY FROM information_schema.COLUMNS c JOIN "
                "information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND "
                "t.TABLE_NAME = c.TABLE_NAME AND t.TABLE_TYPE = 'BASE TABLE' "
                f"WHERE c.TABLE_SCHEMA IN ({marks}) "
                "ORDER BY c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION", databases)
    tables: dict = {}
    for db, table, name, dtype, ctype, key in cur.fetchall():
        db, table, name = text(db), text(table), text(name)
        ty = "json" if (db, table, name) in json_columns else text(dtype).lower()
        tables.setdefault((db, table), []).append(
            {"name": name, "type": ty, "column_type": text(ctype), "key": text(key)})
    cur.execute("SELECT s.TABLE_SCHEMA, s.TABLE_NAME, s.COLUMN_NAME FROM "
                "information_schema.STATISTICS s WHERE s.INDEX_NAME = 'PRIMARY' AND "
                f"s.TABLE_SCHEMA IN ({marks}) ORDER BY s.TABLE_SCHEMA, s.TABLE_NAME, "
                "s.SEQ_IN_INDEX", databases)
    keys: dict = {}
    for db, table, name in cur.fetchall():
        keys.setdefault((text(db), text(table)), []).append(text(name))
    out = {}
    for (db, table), cols in sorted(tables.items()):
        pk = keys.get((db, table), [])
        exprs = ", ".join(select_expression(c["name"], c["type"]) for c in cols)
        order = f" ORDER BY {', '.join(q(k) for k in pk)}" if pk else ""
        cur.execute(f"SELECT {exprs} FROM {q(db)}.{q(table)}{order}")
        rows = [[typed(v, c["type"]) for v, c in zip(raw, cols)] for raw in cur.fetchall()]
        cur.execute(f"SELECT COUNT(*) FROM {q(db)}.{q(table)}")
        count = int(cur.fetchone()[0])
        out[f"{db}.{table}"] = {"columns": cols, "primary_key": pk, "count": count,
                                "rows": rows}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--socket", required=True)
    p.add_argument("--databases", required=True, help="comma-separated")
    p.add_argument("--out", required=True)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="extra top-level string fields (pass, part, binlog files, ...)")
    args = p.parse_args(argv)
    databases = [d for d in args.databases.split(",") if d]
    conn = pymysql.connect(unix_socket=args.socket, user="root", charset="utf8mb4")
    try:
        cur = conn.cursor()
        cur.execute("SET SESSION time_zone = '+00:00'")
        cur.execute("SELECT VERSION()")
        doc = {"server_version": text(cur.fetchone()[0]), "databases": databases}
        doc["tables"] = snapshot(conn, databases)
    finally:
        conn.close()
    return write_doc(args.out, doc, args.set)


if __name__ == "__main__":
    sys.exit(main())

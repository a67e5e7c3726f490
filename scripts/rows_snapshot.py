#!/usr/bin/env python3
"""Write the final contents of every table of a database as JSON, in forms that are exact.

    python scripts/rows_snapshot.py --socket SOCK --database bs_rows --out FILE [--set k=v ...]

Used by scripts/make_rows_binlogs.sh after each pass of scripts/workloads/rows.sql; the server
tier (tests/server/test_rows_server.py) replays the binlog's row changes and compares with this.

Each value is selected so that nothing is lost on the way (the text protocol would otherwise
round FLOAT to 6 digits, drop the sign of a zero, print BIT as raw bytes, ...):

    integers, DECIMAL, YEAR       CAST(c AS CHAR)                    exact decimal text
    FLOAT, DOUBLE                 [CAST(c AS DOUBLE), ATAN2(c,-1)<0]  shortest round-trip text of
                                                                     the stored value (a FLOAT
                                                                     widens exactly), sign bit
    BIT                           CAST(c AS UNSIGNED)
    DATE, TIME, DATETIME          CAST(c AS CHAR)                    zero dates kept
    TIMESTAMP                     UNIX_TIMESTAMP(c)                  seconds[.fraction], UTC
    character strings             [HEX(c), HEX(CONVERT(c USING utf8mb4))]  the stored bytes, and
                                                                     the text the server reads
    binary strings, BLOB          HEX(c)
    ENUM, SET                     [CAST(c+0 AS UNSIGNED), HEX(c)]    index / bits, member bytes
    geometry types                [ST_SRID(c), HEX(ST_AsWKB(c))]
    INET4, INET6, UUID            [HEX(CAST(c AS BINARY(n))), CAST(c AS CHAR)]

NULL is null. Rows are in primary-key order where there is one (the tests compare multisets).
"""

from __future__ import annotations

import argparse
import json
import sys

import pymysql

INTEGER = {"tinyint", "smallint", "mediumint", "int", "bigint", "decimal", "year"}
TEXTUAL = {"char", "varchar", "tinytext", "text", "mediumtext", "longtext"}
BINARY = {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"}
GEOMETRY = {"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring",
            "multipolygon", "geometrycollection"}
FIXED_BINARY = {"inet4": 4, "inet6": 16, "uuid": 16}


def q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def expressions(col: dict) -> list:
    """The SQL expressions that fetch one column exactly (one or two per column)."""
    c, ty = q(col["name"]), col["data_type"]
    if ty in INTEGER:
        return [f"CAST({c} AS CHAR)"]
    if ty in ("float", "double"):
        return [f"CAST({c} AS DOUBLE)", f"ATAN2({c}, -1) < 0"]
    if ty == "bit":
        return [f"CAST({c} AS UNSIGNED)"]
    if ty in ("date", "time", "datetime"):
        return [f"CAST({c} AS CHAR)"]
    if ty == "timestamp":
        return [f"UNIX_TIMESTAMP({c})"]
    if ty in TEXTUAL:
        return [f"HEX({c})", f"HEX(CONVERT({c} USING utf8mb4))"] if col["charset"] else \
            [f"HEX({c})"]
    if ty in BINARY:
        return [f"HEX({c})"]
    if ty in ("enum", "set"):
        return [f"CAST({c} + 0 AS UNSIGNED)", f"HEX({c})"]
    if ty in GEOMETRY:
        return [f"ST_SRID({c})", f"HEX(ST_AsWKB({c}))"]
    if ty in FIXED_BINARY:
        return [f"HEX(CAST({c} AS BINARY({FIXED_BINARY[ty]})))", f"CAST({c} AS CHAR)"]
    raise SystemExit(f"rows_snapshot.py: no exact form for {col['table']}.{col['name']} ({ty})")


def text(v):
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).decode("ascii")
    return str(v)


def snapshot(conn, database: str) -> dict:
    cur = conn.cursor()
    cur.execute("SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE, COLUMN_TYPE, "
                "CHARACTER_SET_NAME, COLLATION_NAME, COLUMN_KEY, IS_NULLABLE "
                "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s "
                "ORDER BY TABLE_NAME, ORDINAL_POSITION", (database,))
    tables: dict = {}
    for (table, name, pos, dtype, ctype, cs, coll, key, nullable) in cur.fetchall():
        tables.setdefault(text(table), []).append(
            {"table": text(table), "name": text(name), "ordinal": int(pos),
             "data_type": text(dtype).lower(), "column_type": text(ctype), "charset": text(cs),
             "collation": text(coll), "key": text(key), "nullable": text(nullable) == "YES"})
    out = {}
    for table, cols in tables.items():
        exprs, spans = [], []
        for col in cols:
            e = expressions(col)
            spans.append((len(exprs), len(e)))
            exprs += e
        pk = [q(c["name"]) for c in cols if c["key"] == "PRI"]
        order = f" ORDER BY {', '.join(pk)}" if pk else ""
        cur.execute(f"SELECT {', '.join(exprs)} FROM {q(database)}.{q(table)}{order}")
        rows = []
        for raw in cur.fetchall():
            row = []
            for start, n in spans:
                vals = [text(v) for v in raw[start:start + n]]
                row.append(None if vals[0] is None else vals[0] if n == 1 else vals)
            rows.append(row)
        for col in cols:
            del col["table"]
        out[table] = {"columns": cols, "rows": rows}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--socket", required=True)
    p.add_argument("--database", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="extra top-level string fields (pass name, binlog files, ...)")
    args = p.parse_args(argv)
    conn = pymysql.connect(unix_socket=args.socket, user="root", charset="utf8mb4",
                           use_unicode=True)
    try:
        cur = conn.cursor()
        cur.execute("SET SESSION time_zone = '+00:00'")
        cur.execute("SELECT VERSION(), @@GLOBAL.binlog_row_metadata, @@GLOBAL.binlog_checksum")
        version, metadata, checksum = (text(v) for v in cur.fetchone())
        doc = {"server_version": version, "database": args.database,
               "global": {"binlog_row_metadata": metadata, "binlog_checksum": checksum}}
        doc["tables"] = snapshot(conn, args.database)
    finally:
        conn.close()
    return write_doc(args.out, doc, args.set)


def write_doc(path, doc: dict, sets) -> int:
    """The snapshot ``doc`` with the ``--set KEY=VALUE`` items, as JSON at ``path``."""
    for item in sets:
        key, _, value = item.partition("=")
        doc[key] = value
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

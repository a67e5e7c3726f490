#!/usr/bin/env python3
"""Regenerate the collation and character-set data of binlog_schema/format/facts/ from a running
MariaDB server, in two modules read by binlog_schema/format/facts/charsets.py:

- collation_data.py: every collation (name, id, character set) and every character set
  (maximum bytes per character, default collation) of information_schema;
- charset_data.py: what decoding needs, loaded without the names: the character set of each
  collation id (as runs of consecutive ids), and the server's own byte -> character table of
  each single-byte character set (every byte converted to UTF-32 by the server: its
  ctype-*.c and share/charsets/*.xml tables, which MySQL shares).

    scripts/mariadb.sh start coll && \
    .venv/bin/python scripts/make_collation_data.py --socket .work/mariadb/coll/sock

MySQL's own names (utf8mb4_0900_*, gb18030_*, ...) are kept by hand in
binlog_schema/format/facts/charsets.py, as are the Python codecs of the multi-byte character sets.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import pymysql

HERE = pathlib.Path(__file__).resolve().parent.parent / "binlog_schema" / "mysql"
NAMES_OUT = HERE / "collation_data.py"
TABLES_OUT = HERE / "charset_data.py"


def id_runs(collations) -> list:
    """[(first id, last id, character set)] for runs of consecutive ids of one charset."""
    runs: list = []
    for _name, cid, cs in sorted(collations, key=lambda c: c[1]):
        if runs and runs[-1][2] == cs and runs[-1][1] in (cid, cid - 1):
            runs[-1][1] = cid
        else:
            runs.append([cid, cid, cs])
    return [tuple(r) for r in runs]


def single_byte_table(cur, charset: str) -> list:
    """The code point of each byte 0-255 in ``charset`` as the server converts it, 0 where it
    has none (as ctype-extra.c's to_uni tables: the server gives '?' for such a byte, tis620
    U+FFFD)."""
    every = bytes(range(256)).hex()
    cur.execute(f"SELECT HEX(CONVERT(CAST(X'{every}' AS CHAR CHARACTER SET {charset}) "
                "USING utf32))")
    text = bytes.fromhex(cur.fetchone()[0]).decode("utf-32-be")
    if len(text) != 256:
        raise SystemExit(f"{charset}: {len(text)} characters for 256 bytes")
    return [0 if (ch == "?" and b != 0x3F) or ch == "\ufffd" else ord(ch)
            for b, ch in enumerate(text)]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--socket", required=True)
    args = p.parse_args(argv)
    conn = pymysql.connect(unix_socket=args.socket, user="root", charset="utf8mb4")
    cur = conn.cursor()
    cur.execute("SELECT VERSION()")
    version = cur.fetchone()[0]
    # FULL_COLLATION_NAME (10.10+) names the charset-specific forms of the uca1400
    # collations (utf8mb4_uca1400_ai_ci, ...), which COLLATIONS lists without ids
    cur.execute("SELECT FULL_COLLATION_NAME, ID, CHARACTER_SET_NAME FROM information_schema."
                "COLLATION_CHARACTER_SET_APPLICABILITY ORDER BY ID, FULL_COLLATION_NAME")
    collations = cur.fetchall()
    cur.execute("SELECT CHARACTER_SET_NAME, MAXLEN, DEFAULT_COLLATE_NAME FROM "
                "information_schema.CHARACTER_SETS ORDER BY CHARACTER_SET_NAME")
    charsets = cur.fetchall()
    tables = {name: single_byte_table(cur, name) for name, maxlen, _ in charsets
              if maxlen == 1 and name != "binary"}
    conn.close()

    lines = [f'"""Collations and character sets of MariaDB {version} (information_schema),',
             'written by scripts/make_collation_data.py: do not edit by hand."""', "",
             "# name: (id, character set)", "MARIADB_COLLATIONS = {"]
    lines += [f"    {name!r}: ({cid}, {cs!r})," for name, cid, cs in collations]
    lines += ["}", "", "# name: (maximum bytes per character, default collation)",
              "MARIADB_CHARSETS = {"]
    lines += [f"    {name!r}: ({maxlen}, {default!r})," for name, maxlen, default in charsets]
    lines += ["}", ""]
    NAMES_OUT.write_text("\n".join(lines), encoding="utf-8")

    runs = id_runs(collations)
    lines = [f'"""The character set of every collation id of MariaDB {version},',
             "and the byte -> code point table of each of its single-byte character sets (as",
             "the server converts them), written by scripts/make_collation_data.py from the",
             'same server as :mod:`.collation_data`: do not edit by hand."""', "",
             "# (first id, last id, character set): the ids of a run are all of that set",
             "COLLATION_ID_RUNS = ("]
    lines += [f"    ({a}, {b}, {cs!r})," for a, b, cs in runs]
    lines += [")", "",
              "# character set: the code point of each byte 0-255 (0: none, but for byte 0)",
              "SINGLE_BYTE_TABLES = {"]
    for name, table in tables.items():
        lines.append(f"    {name!r}: (")
        lines += ["        " + " ".join(f"0x{cp:04X}," for cp in table[i:i + 8])
                  for i in range(0, 256, 8)]
        lines.append("    ),")
    lines += ["}", ""]
    TABLES_OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"{NAMES_OUT}: {len(collations)} collations, {len(charsets)} character sets")
    print(f"{TABLES_OUT}: {len(runs)} runs of ids, {len(tables)} single-byte tables")
    return 0


if __name__ == "__main__":
    sys.exit(main())

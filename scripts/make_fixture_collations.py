#!/usr/bin/env python3
"""Regenerate binlog_schema/fixtures/collation_data.py from a running MariaDB server:
every collation (name, id, character set) and every character set (maximum bytes per
character, default collation) of information_schema.

    scripts/mariadb.sh start coll && \
    .venv/bin/python scripts/make_fixture_collations.py --socket .work/mariadb/coll/sock

MySQL's own names (utf8mb4_0900_*, ...) are kept by hand in binlog_schema/fixtures/
collations.py.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import pymysql

OUT = pathlib.Path(__file__).resolve().parent.parent / "binlog_schema" / "fixtures" / \
    "collation_data.py"


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
    conn.close()
    lines = [f'"""Collations and character sets of MariaDB {version} (information_schema),',
             'written by scripts/make_fixture_collations.py: do not edit by hand."""', "",
             "# name: (id, character set)", "MARIADB_COLLATIONS = {"]
    lines += [f"    {name!r}: ({cid}, {cs!r})," for name, cid, cs in collations]
    lines += ["}", "", "# name: (maximum bytes per character, default collation)",
              "MARIADB_CHARSETS = {"]
    lines += [f"    {name!r}: ({maxlen}, {default!r})," for name, maxlen, default in charsets]
    lines += ["}", ""]
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print(f"{OUT}: {len(collations)} collations, {len(charsets)} character sets")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The workload of the ``--where`` server tier (tests/server/test_where_server.py): one row's
history in each of several tables of a private MariaDB (scripts/mariadb.sh, through
flashback_workload.Server), among other rows' changes.

Database ``wh``; each table's first column is its primary key, the column ``--where`` names,
of one type per table:

  t_int    iid BIGINT                              where iid=42
  t_dec    dk DECIMAL(12,4)                        where dk=12.5     (stored as 12.5000)
  t_str    sk VARCHAR utf8mb4_nopad_bin            where sk='Zoë ✓ 東京 😀'
  t_l1     lk VARCHAR latin1_nopad_bin             where lk='crème brûlée €' (cp1252's euro)
  t_date   dd DATE                                 where dd='2024-02-29'
  t_dt     ts DATETIME(3)                          where ts='2024-05-01 12:00:00.500'
  rare     rid INT: 4 rows events, 1% of them      where rid=7
  bulk     bid INT: the other 400 rows events (single-row transactions)

Each watched row (``HISTORY``) is, in this order: updated alone; updated with its neighbours
by one multi-row UPDATE; moved to another key (an UPDATE of the matched column: its before
image matches, its after image does not); inserted again under its key by a multi-row INSERT;
deleted with a neighbour by a multi-row DELETE (rare: inserted, updated, moved, and a
neighbour deleted). No change that does not match touches the keys it had (``keys``: the key
and the one it moved to), so that its changes alone take those keys from the state before
the workload (S0) to the state after it (S1), and back. Strings compare without collation, as
``--where`` compares them: the string keys' collations are ``nopad_bin`` (keys that differ in
case, accents or a trailing space are different rows). The DML runs under
binlog_format=ROW, FULL row images, over two binlog files (a FLUSH in the middle), with
binlog_row_metadata FULL or MINIMAL (then ``schema``, a mariadb-dump --no-data taken before
the DML, gives the names).
"""

from __future__ import annotations

import dataclasses
import pathlib
import shutil
import subprocess

from . import flashback_workload as fw

DB = "wh"
BULK_EVENTS = 400


@dataclasses.dataclass(frozen=True)
class Watched:
    """One table's watched row: its ``--where``, the key's column, SQL type and values
    (``key``: the matched one; ``moved``: where it moves; ``others``: keys of other rows,
    in S0, neighbours first), the key's exact text form (flashback_workload.exact_expression's)."""

    table: str
    column: str
    sql_type: str
    key: object
    moved: object
    others: tuple
    where: str

    def lit(self, v):
        if isinstance(v, str):
            return "'" + v.replace("'", "''") + "'"
        return str(v)

    def exact(self, v) -> str:
        """The exact text of a key value (the form of flashback_workload.exact_state)."""
        if "CHAR" in self.sql_type:
            return v.encode("cp1252" if "latin1" in self.sql_type else "utf-8").hex().upper()
        if self.sql_type.startswith("DECIMAL"):
            return f"{float(v):.4f}"
        if self.sql_type == "DATETIME(3)":   # (decode writes six digits, maxwell three)
            whole, _, fraction = str(v).partition(".")
            return f"{whole}.{(fraction + '000')[:3]}"
        return str(v)

    @property
    def keys(self) -> frozenset:
        return frozenset({self.exact(self.key), self.exact(self.moved)})


HISTORY = (
    Watched("t_int", "iid", "BIGINT", 42, 142, (41, 43, 40, 44, 1, 2, 3), "iid=42"),
    Watched("t_dec", "dk", "DECIMAL(12,4)", "12.5", "99.9999",
            ("12.4999", "12.5001", "-12.5", "0.0001", "1.25", "7"), "dk=12.5"),
    Watched("t_str", "sk", "VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin",
            "Zoë ✓ 東京 😀", "moved ✓",
            ("zoë ✓ 東京 😀", "Zoë ✓ 東京 😀 ", "Zoë", "a", "b", "c"),
            "sk='Zoë ✓ 東京 😀'"),
    Watched("t_l1", "lk", "VARCHAR(40) CHARACTER SET latin1 COLLATE latin1_nopad_bin",
            "crème brûlée €", "moved €",
            ("crème brûlée", "creme brulee €", "ñ", "x", "y", "z"), "lk='crème brûlée €'"),
    Watched("t_date", "dd", "DATE", "2024-02-29", "2025-01-01",
            ("2024-02-28", "2024-03-01", "2023-02-28", "1999-12-31", "2000-01-01", "2024-12-31"),
            "dd='2024-02-29'"),
    Watched("t_dt", "ts", "DATETIME(3)", "2024-05-01 12:00:00.500", "2030-01-01 00:00:00.000",
            ("2024-05-01 12:00:00.499", "2024-05-01 12:00:00.501", "2024-05-01 12:00:00.000",
             "2024-05-01 12:00:01.500", "1970-01-01 00:00:01.000", "2038-01-19 03:14:08.000"),
            "ts='2024-05-01 12:00:00.500'"),
)
RARE = Watched("rare", "rid", "INT", 7, 8, (6, 9, 1, 2, 3, 4), "rid=7")
WATCHED = HISTORY + (RARE,)


@dataclasses.dataclass
class Workload:
    config: str                 # "full" or "minimal" (binlog_row_metadata)
    files: list                 # the binlog files of the DML, copied aside, in order
    schema: pathlib.Path        # mariadb-dump --no-data of wh, taken before the DML
    s0: dict                    # exact_state before the DML
    s1: dict                    # exact_state after it
    copies: dict                # label ("s0", "s1") -> {"wh.t": "copy_db.t"} on the server


def _ddl():
    out = [f"CREATE DATABASE {DB} CHARACTER SET utf8mb4"]
    for w in WATCHED:
        out.append(f"CREATE TABLE {DB}.{w.table} ({w.column} {w.sql_type} NOT NULL PRIMARY KEY, "
                   "n INT, note VARCHAR(40) CHARACTER SET utf8mb4) ENGINE=InnoDB")
    out.append(f"CREATE TABLE {DB}.bulk (bid INT NOT NULL AUTO_INCREMENT PRIMARY KEY, "
               "n INT, note VARCHAR(40)) ENGINE=InnoDB")
    return out


def _copy(server, config, label):
    """The tables of wh copied on the server (not binlogged): {"wh.t": "copy_db.t"}."""
    copies = {}
    db = f"whs_{config}_{label}"
    server.q("SET SESSION sql_log_bin = 0")
    try:
        server.q(f"DROP DATABASE IF EXISTS {db}")
        server.q(f"CREATE DATABASE {db}")
        for name in fw.tables_of(server, (DB,)):
            table = name.split(".", 1)[1]
            server.q(f"CREATE TABLE {db}.{table} LIKE {DB}.{table}")
            server.q(f"INSERT INTO {db}.{table} SELECT * FROM {DB}.{table}")
            copies[name] = f"{db}.{table}"
    finally:
        server.q("SET SESSION sql_log_bin = 1")
    return copies


def restore(server, copies):
    """wh made again from saved copies (not binlogged); its exact state."""
    server.q("SET SESSION sql_log_bin = 0")
    try:
        server.q(f"DROP DATABASE IF EXISTS {DB}")
        server.q(f"CREATE DATABASE {DB} CHARACTER SET utf8mb4")
        for name, copy in copies.items():
            table = name.split(".", 1)[1]
            server.q(f"CREATE TABLE {DB}.{table} LIKE {copy}")
            server.q(f"INSERT INTO {DB}.{table} SELECT * FROM {copy}")
    finally:
        server.q("SET SESSION sql_log_bin = 1")
    return fw.exact_state(server, (DB,))


def run_workload(server, config, out_dir) -> Workload:
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    server.q(f"SET GLOBAL binlog_row_metadata = {config.upper()}")
    server.conn.close()   # (the variable is read per session at its start)
    server.conn = server.connect()
    server.q("SET SESSION binlog_format = 'ROW'")
    server.q("SET SESSION binlog_row_image = 'FULL'")
    server.q(f"DROP DATABASE IF EXISTS {DB}")
    for stmt in _ddl():
        server.q(stmt)
    for w in WATCHED:
        keys = [w.key] + [k for k in w.others]
        if w is RARE:
            keys = list(w.others)   # (the rare row is inserted by the workload)
        server.q(f"INSERT INTO {DB}.{w.table} VALUES " + ", ".join(
            f"({w.lit(k)}, {i}, 'start')" for i, k in enumerate(keys)))
    schema = out_dir / f"schema-{config}.sql"
    dump = subprocess.run([fw.tool("mariadb-dump"), "--no-defaults", f"--socket={server.socket}",
                           "-uroot", "--no-data", "--skip-comments", "--databases", DB],
                          capture_output=True, timeout=120)
    assert dump.returncode == 0, dump.stderr.decode(errors="replace")
    schema.write_bytes(dump.stdout)
    copies = {"s0": _copy(server, config, "s0")}
    s0 = fw.exact_state(server, (DB,))
    server.q("FLUSH BINARY LOGS")
    first = server.master_status()[0]

    def bulk(n):
        for i in range(n):
            server.q(f"INSERT INTO {DB}.bulk (n, note) VALUES ({i}, 'bulk {i}')")

    per_step = BULK_EVENTS // 8
    bulk(per_step)
    server.q(f"INSERT INTO {DB}.rare VALUES (7, 70, 'rare')")
    for w in HISTORY:   # updated alone
        server.q(f"UPDATE {DB}.{w.table} SET note = 'alone' WHERE {w.column} = {w.lit(w.key)}")
    bulk(per_step)
    for w in HISTORY:   # with its neighbours, by one multi-row UPDATE (one rows event)
        near = ", ".join(w.lit(k) for k in (w.key, *w.others[:2]))
        server.q(f"UPDATE {DB}.{w.table} SET n = n + 100 WHERE {w.column} IN ({near})")
    server.q(f"UPDATE {DB}.rare SET note = 'rare changed', n = n + 1 WHERE rid = 7")
    bulk(per_step)
    server.q("BEGIN")   # several tables' changes in one transaction
    for w in HISTORY[:3]:
        server.q(f"UPDATE {DB}.{w.table} SET note = 'in a transaction' "
                 f"WHERE {w.column} = {w.lit(w.key)}")
    server.q(f"UPDATE {DB}.bulk SET note = 'in the transaction' WHERE bid = 3")
    server.q("COMMIT")
    bulk(per_step)
    server.q("FLUSH BINARY LOGS")   # (the history goes on in the next file)
    bulk(per_step)
    for w in WATCHED:   # moved: the matched column changed
        server.q(f"UPDATE {DB}.{w.table} SET {w.column} = {w.lit(w.moved)}, note = 'moved' "
                 f"WHERE {w.column} = {w.lit(w.key)}")
    bulk(per_step)
    for w in HISTORY:   # inserted again under its key, among others (one rows event)
        server.q(f"INSERT INTO {DB}.{w.table} VALUES ({w.lit(w.key)}, 5, 'again'), "
                 f"({w.lit(_fresh(w))}, 6, 'new')")
    server.q(f"DELETE FROM {DB}.rare WHERE rid = {RARE.others[0]}")
    bulk(per_step)
    for w in HISTORY:   # deleted with a neighbour (one rows event)
        server.q(f"DELETE FROM {DB}.{w.table} WHERE {w.column} IN "
                 f"({w.lit(w.key)}, {w.lit(w.others[2])})")
    bulk(BULK_EVENTS - 7 * per_step)
    server.q("FLUSH BINARY LOGS")
    last = server.master_status()[0]
    copies["s1"] = _copy(server, config, "s1")
    s1 = fw.exact_state(server, (DB,))
    index = (server.binlog_dir / "mariadb-bin.index").read_text().split()
    files = []
    for n in [pathlib.Path(p).name for p in index]:
        if first <= n < last:
            shutil.copyfile(server.binlog_dir / n, out_dir / n)
            files.append(out_dir / n)
    assert len(files) == 2, files
    return Workload(config, files, schema, s0, s1, copies)


def _fresh(w):
    """A key no row of ``w``'s table has had: the row inserted beside the watched one."""
    return {"t_int": 1000, "t_dec": "9", "t_str": "fresh", "t_l1": "fresh", "t_date": "2001-01-01",
            "t_dt": "2001-01-01 00:00:00.000"}[w.table]

"""The workload, exact snapshots and apply helpers of the SQL / flashback server tier
(tests/server/test_flashback_server.py; also usable by hand, see ``main`` at the end).

A private MariaDB (scripts/mariadb.sh: ROW format, binlog_row_image=FULL, CRC32; metadata FULL,
or MINIMAL for the second configuration) gets the tables below, filled with edge values; the
state S0 is saved; then ``FLUSH BINARY LOGS`` and DML in three phases A, B, C spread over three
binlog files, with the states SA (after A) and SB (after B) saved at whole-second boundaries
T1 and T2 that no event straddles; the state S1 is saved after C and a last FLUSH. The binlog
files written by the DML (from the first FLUSH to the last) are copied aside.

Databases and tables (``fb`` is changed by the main connection only, ``fb_other`` by a second
connection only, so that --database and --thread-id each select whole tables):

  fb.t_num     PK id: TINYINT..BIGINT signed and unsigned, INT ZEROFILL, DECIMAL(65,30) /
               (10,3) / (20,0) (wide, negative), FLOAT, DOUBLE (0.1, 1/3, 5e-324, 1e308, 16777217
               in a FLOAT, -0e0), BIT(1), BIT(7), BIT(33), BIT(64), YEAR
  fb.t_time    PK id: DATE, DATETIME(0..6), TIME(0..6), TIMESTAMP(0), TIMESTAMP(6), with zero
               dates and zero parts (sql_mode without NO_ZERO_DATE / NO_ZERO_IN_DATE), negative
               and fractional TIME (-838:59:59, -00:00:00.000001)
  fb.t_str     PK id: CHAR/VARCHAR/TEXT/MEDIUMTEXT utf8mb4 (emoji, quotes, backslashes, NUL, CR
               LF, ^Z, trailing spaces), latin1 VARCHAR/TINYTEXT (non-ASCII, the euro sign of
               cp1252), a case-insensitive utf8mb4_general_ci column, BINARY(8) with trailing
               zero bytes, VARBINARY, TINYBLOB, BLOB, ENUM, SET, JSON
  fb.t_geo     PK id: GEOMETRY, POINT REF_SYSTEM_ID=4326, LINESTRING, POLYGON, INET4, INET6, UUID
  fb.t_comp    composite PK (a INT, b VARCHAR utf8mb4_unicode_ci): a key whose text compares
               case-insensitively ('k' deleted, 'K' inserted)
  fb.t_nokey   no key at all: FLOAT, DOUBLE, TEXT, VARBINARY, with three identical rows
  fb.t_vec     VECTOR(3), only when the server has the type (MariaDB 11.7+; 10.11 lacks it)
  fb_other.kv  PK VARCHAR: changed by the second connection (its thread id: ``thread_id``)

The DML: single- and multi-row INSERT, UPDATE and DELETE; UPDATEs that change a primary key
(one row, and several rows of the composite key); INSERT / DELETE / INSERT of one key;
multi-statement transactions over several tables; an UPDATE and a DELETE ... LIMIT 1 of the
keyless table's duplicate rows; a FLUSH inside phase A and one inside phase C.

States are compared in exact forms (as binlog_schema.synthetic.sql.select_expression: HEX of
strings, CAST of numbers, FLOAT/DOUBLE as the widened double's text and the sign bit, BIT as an
integer, TIMESTAMP as UNIX_TIMESTAMP, geometry as SRID + WKB), every row in primary-key order
(rows of the keyless table sorted: a multiset), and CHECKSUM TABLE. ``mariadb-dump`` rounds
FLOAT, so it is used only for the schema (``--no-data``), never for states.

A state is saved *on the server*: ``CREATE TABLE fbs_<config>_<label>_<db>.t LIKE db.t;
INSERT ... SELECT * FROM db.t`` (sql_log_bin=0, so nothing of it enters the binlog), and is
restored the same way back (exact for every type, FLOAT included).

Applying SQL: ``mariadb --binary-mode`` (NUL bytes and ``\\`` pass untouched; no
``--default-character-set``: the SQL must carry its own SET NAMES, as a user's pipe would
need). Applying a binlog: ``mariadb-binlog [OPTIONS] FILES | mariadb``.

Time filters: ``mariadb-binlog --start-datetime/--stop-datetime`` read 'YYYY-MM-DD HH:MM:SS' in
the client's *local* time zone and select events with start <= timestamp < stop. Every
command of this tier (ours and mariadb-binlog) runs with TZ=UTC, and the window's bounds are
written in UTC, so that local time and UTC are the same: the test holds whichever of the two
``binlog-schema`` reads them in.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import shutil
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
MARIADB_SH = ROOT / "scripts" / "mariadb.sh"

DB = "fb"
OTHER = "fb_other"
DATABASES = (DB, OTHER)
ENV = dict(os.environ, TZ="UTC")
# strict, but zero dates and zero parts allowed
SQL_MODE = "STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION"


def tool(name):
    return shutil.which(name) or (f"/usr/sbin/{name}" if os.path.exists(f"/usr/sbin/{name}")
                                  else None)


def qi(name):
    return "`" + str(name).replace("`", "``") + "`"


# ------------------------------------------------------------------ the server


class Server:
    """A private MariaDB of scripts/mariadb.sh, and a pymysql connection to it."""

    def __init__(self, name, *options):
        self.name = name
        subprocess.run(["bash", str(MARIADB_SH), "destroy", name], capture_output=True)
        out = subprocess.run(["bash", str(MARIADB_SH), "start", name, *options],
                             capture_output=True, text=True, timeout=180)
        if out.returncode != 0:
            raise RuntimeError(f"mariadb.sh start {name} failed: {out.stderr[-3000:]}")
        env = dict(line.split("=", 1) for line in out.stdout.split() if "=" in line)
        self.socket = env["socket"]
        self.binlog_dir = pathlib.Path(env["binlog_dir"])
        self.conn = self.connect()
        self.version = self.q("SELECT VERSION()")[0][0]

    def connect(self):
        import pymysql
        conn = pymysql.connect(unix_socket=self.socket, user="root", charset="utf8mb4",
                               autocommit=True)
        cur = conn.cursor()
        cur.execute("SET SESSION time_zone = '+00:00'")
        cur.execute(f"SET SESSION sql_mode = '{SQL_MODE}'")
        return conn

    def destroy(self):
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001 - (a connection already gone)
            pass
        subprocess.run(["bash", str(MARIADB_SH), "destroy", self.name], capture_output=True,
                       timeout=120)

    def q(self, sql, *args, conn=None):
        cur = (conn or self.conn).cursor()
        cur.execute(sql, args or None)
        return cur.fetchall()

    def master_status(self):
        row = self.q("SHOW MASTER STATUS")[0]
        return row[0], int(row[1])

    def slave_status(self) -> dict:
        """SHOW SLAVE STATUS as a dict by column name (empty: not a replica)."""
        cur = self.conn.cursor()
        cur.execute("SHOW SLAVE STATUS")
        names = [d[0] for d in cur.description]
        row = cur.fetchone()
        return dict(zip(names, row)) if row else {}

    def client(self):
        return [tool("mariadb"), "--no-defaults", f"--socket={self.socket}", "-uroot",
                "--binary-mode"]

    # -------------------------------------------------------------- applying

    def apply_sql(self, sql: bytes):
        """Run SQL text through the ``mariadb`` client; returns (returncode, stderr)."""
        run = subprocess.run(self.client(), input=sql, capture_output=True, timeout=600,
                             env=ENV)
        return run.returncode, run.stderr.decode(errors="replace")

    def apply_binlog(self, files, *options):
        """``mariadb-binlog OPTIONS FILES | mariadb``; returns (returncode, stderr of both)."""
        dump = vendor_binlog(files, *options)
        if dump.returncode != 0:
            return dump.returncode, "mariadb-binlog: " + dump.stderr.decode(errors="replace")
        return self.apply_sql(dump.stdout)


def vendor_binlog(files, *options):
    """``mariadb-binlog OPTIONS FILES`` (TZ=UTC), its output captured."""
    return subprocess.run([tool("mariadb-binlog"), *options, *map(str, files)],
                          capture_output=True, timeout=600, env=ENV)


def binlog_schema(*args, timeout=600):
    """``python -m binlog_schema ARGS`` run in the repository (TZ=UTC), output captured."""
    return subprocess.run([sys.executable, "-m", "binlog_schema", *map(str, args)], cwd=ROOT,
                          capture_output=True, timeout=timeout, env=ENV)


# ------------------------------------------------------------------ exact states


INTEGER = {"tinyint", "smallint", "mediumint", "int", "bigint", "decimal", "year"}
GEOMETRY = {"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring",
            "multipolygon", "geometrycollection"}
FIXED_BINARY = {"inet4": 4, "inet6": 16, "uuid": 16}


def exact_expression(name, data_type):
    """The expression that fetches a column's stored value exactly, as text (the forms of
    binlog_schema.synthetic.sql.select_expression, chosen by information_schema's type)."""
    c = qi(name)
    if data_type in INTEGER or data_type in ("date", "time", "datetime"):
        return f"CAST({c} AS CHAR)"
    if data_type == "bit":
        return f"CAST({c} AS UNSIGNED)"
    if data_type in ("float", "double"):
        return f"CONCAT(CAST({c} AS DOUBLE), IF(ATAN2({c}, -1) < 0, '-', '+'))"
    if data_type == "timestamp":
        return f"CAST(UNIX_TIMESTAMP({c}) AS CHAR)"
    if data_type in ("enum", "set"):
        return f"CONCAT(CAST({c} + 0 AS UNSIGNED), ':', HEX({c}))"
    if data_type in GEOMETRY:
        return f"CONCAT(ST_SRID({c}), ':', HEX(ST_AsWKB({c})))"
    if data_type in FIXED_BINARY:
        return f"HEX(CAST({c} AS BINARY({FIXED_BINARY[data_type]})))"
    return f"HEX({c})"       # character and binary strings, BLOB, TEXT, JSON, VECTOR


def tables_of(server, databases=DATABASES):
    """{"db.t": [(column, data_type, is_primary_key)]} of the databases' base tables."""
    marks = ", ".join(["%s"] * len(databases))
    rows = server.q("SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, DATA_TYPE, COLUMN_KEY "
                    f"FROM information_schema.COLUMNS WHERE TABLE_SCHEMA IN ({marks}) "
                    "ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION", *databases)
    out: dict = {}
    for db, table, col, dtype, key in rows:
        out.setdefault(f"{db}.{table}", []).append((col, dtype.lower(), key == "PRI"))
    return out


def exact_state(server, databases=DATABASES):
    """{"db.t": {"rows": [row tuples of exact texts], "checksum": CHECKSUM TABLE}}."""
    state = {}
    for name, cols in tables_of(server, databases).items():
        db, table = name.split(".", 1)
        exprs = ", ".join(exact_expression(c, t) for c, t, _ in cols)
        pk = [qi(c) for c, _, is_pk in cols if is_pk]
        order = f" ORDER BY {', '.join(pk)}" if pk else ""
        rows = [tuple(None if v is None else v.decode("ascii") if isinstance(v, bytes)
                      else str(v) for v in row)
                for row in server.q(f"SELECT {exprs} FROM {qi(db)}.{qi(table)}{order}")]
        if not pk:
            rows.sort(key=lambda r: tuple((v is not None, v or "") for v in r))
        checksum = server.q(f"CHECKSUM TABLE {qi(db)}.{qi(table)}")[0][1]
        state[name] = {"rows": rows, "checksum": checksum,
                       "columns": [c for c, _, _ in cols]}
    return state


def state_differences(got, want, tables=None):
    """Readable differences between two exact states (per table: checksum, row count, the first
    differing rows by column), for the tables named (default: both states' tables)."""
    out = []
    for name in sorted(tables or set(got) | set(want)):
        g, w = got.get(name), want.get(name)
        if g is None or w is None:
            out.append(f"{name}: {'missing' if g is None else 'unexpected'}")
            continue
        if g["rows"] == w["rows"] and g["checksum"] == w["checksum"]:
            continue
        msg = [f"{name}: checksum {g['checksum']} (want {w['checksum']}), "
               f"{len(g['rows'])} rows (want {len(w['rows'])})"]
        shown = 0
        for i, (rg, rw) in enumerate(zip(g["rows"], w["rows"])):
            if rg != rw and shown < 3:
                cols = [f"{c}={a!r} (want {b!r})" for c, a, b in zip(g["columns"], rg, rw)
                        if a != b]
                msg.append(f"  row {i}: " + ", ".join(cols)[:600])
                shown += 1
        out.append("\n".join(msg))
    return out


def differing_tables(got, want):
    return sorted(n for n in set(got) | set(want)
                  if n not in got or n not in want or got[n]["rows"] != want[n]["rows"]
                  or got[n]["checksum"] != want[n]["checksum"])


def mixed(first, second, chosen):
    """A state: ``first``'s tables named in ``chosen``, ``second``'s for the others."""
    return {n: (first if n in chosen else second)[n] for n in second}


# ------------------------------------------------------------------ saved states


@dataclasses.dataclass
class Snapshot:
    label: str
    state: dict                 # exact_state()
    copies: dict                # "db.t" -> "copy_db.t" on the server
    binlog: tuple               # (file name, position) of SHOW MASTER STATUS
    gtid: str                   # @@gtid_binlog_pos
    when: float                 # server UNIX_TIMESTAMP(NOW(6)) when taken


def save(server, config, label):
    """Save the current state of DATABASES on the server itself and take its exact form."""
    copies = {}
    server.q("SET SESSION sql_log_bin = 0")
    try:
        for name in tables_of(server):
            db, table = name.split(".", 1)
            copy_db = f"fbs_{config}_{label}_{db}"
            server.q(f"CREATE DATABASE IF NOT EXISTS {qi(copy_db)}")
            server.q(f"DROP TABLE IF EXISTS {qi(copy_db)}.{qi(table)}")
            server.q(f"CREATE TABLE {qi(copy_db)}.{qi(table)} LIKE {qi(db)}.{qi(table)}")
            server.q(f"INSERT INTO {qi(copy_db)}.{qi(table)} SELECT * FROM {qi(db)}.{qi(table)}")
            copies[name] = f"{copy_db}.{table}"
    finally:
        server.q("SET SESSION sql_log_bin = 1")
    when = float(server.q("SELECT UNIX_TIMESTAMP(NOW(6))")[0][0])
    return Snapshot(label, exact_state(server), copies, server.master_status(),
                    server.q("SELECT @@gtid_binlog_pos")[0][0], when)


def restore(server, snap):
    """Drop DATABASES and recreate them from a saved state (not binlogged)."""
    server.q("SET SESSION sql_log_bin = 0")
    try:
        for db in DATABASES:
            server.q(f"DROP DATABASE IF EXISTS {qi(db)}")
            server.q(f"CREATE DATABASE {qi(db)}")
        for name, copy in snap.copies.items():
            db, table = name.split(".", 1)
            cdb, ctable = copy.split(".", 1)
            server.q(f"CREATE TABLE {qi(db)}.{qi(table)} LIKE {qi(cdb)}.{qi(ctable)}")
            server.q(f"INSERT INTO {qi(db)}.{qi(table)} SELECT * FROM {qi(cdb)}.{qi(ctable)}")
    finally:
        server.q("SET SESSION sql_log_bin = 1")
    got = exact_state(server)
    assert not differing_tables(got, snap.state), state_differences(got, snap.state)


# ------------------------------------------------------------------ the workload


def has_vector(server):
    """Whether the server has the VECTOR type (MariaDB 11.7+): asked by trying it."""
    try:
        server.q("DO VEC_FromText('[1]')")
        return True
    except Exception:  # noqa: BLE001 - any refusal: no VECTOR type
        return False


def ddl(vector):
    dt = ",\n  ".join([f"dt{n} DATETIME({n})" for n in range(7)]
                      + [f"tm{n} TIME({n})" for n in range(7)])
    out = [
        f"CREATE DATABASE {DB} CHARACTER SET latin1 COLLATE latin1_swedish_ci",
        f"CREATE DATABASE {OTHER} CHARACTER SET utf8mb4",
        f"""CREATE TABLE {DB}.t_num (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED,
  mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED,
  zf INT(6) UNSIGNED ZEROFILL,
  d65 DECIMAL(65,30), d10 DECIMAL(10,3), d20 DECIMAL(20,0) UNSIGNED,
  f FLOAT, dbl DOUBLE,
  b1 BIT(1), b7 BIT(7), b33 BIT(33), b64 BIT(64), y YEAR
) ENGINE=InnoDB""",
        f"""CREATE TABLE {DB}.t_time (
  id INT NOT NULL PRIMARY KEY,
  d DATE,
  {dt},
  ts0 TIMESTAMP(0) NULL DEFAULT NULL, ts6 TIMESTAMP(6) NULL DEFAULT NULL
) ENGINE=InnoDB""",
        f"""CREATE TABLE {DB}.t_str (
  id INT NOT NULL PRIMARY KEY,
  c CHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  vc VARCHAR(300) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
  tx TEXT CHARACTER SET utf8mb4,
  mt MEDIUMTEXT CHARACTER SET utf8mb4,
  l1 VARCHAR(40) CHARACTER SET latin1,
  lt TINYTEXT CHARACTER SET latin1,
  ci VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci,
  bn BINARY(8), vb VARBINARY(64), tb TINYBLOB, bl BLOB,
  e ENUM('a', 'b', 'ç', 'x y'), s SET('r', 'w', 'x', 'ü'),
  j JSON
) ENGINE=InnoDB""",
        f"""CREATE TABLE {DB}.t_geo (
  id INT NOT NULL PRIMARY KEY,
  g GEOMETRY, p POINT REF_SYSTEM_ID=4326, ls LINESTRING, pg POLYGON,
  i4 INET4, i6 INET6, u UUID
) ENGINE=InnoDB""",
        f"""CREATE TABLE {DB}.t_comp (
  a INT NOT NULL,
  b VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL,
  val INT, note TEXT CHARACTER SET utf8mb4, at DATETIME(6),
  PRIMARY KEY (a, b)
) ENGINE=InnoDB""",
        f"""CREATE TABLE {DB}.t_nokey (
  n INT, f FLOAT, d DOUBLE, txt TEXT CHARACTER SET utf8mb4, vb VARBINARY(20)
) ENGINE=InnoDB""",
        f"""CREATE TABLE {OTHER}.kv (
  k VARCHAR(32) NOT NULL PRIMARY KEY, v BIGINT, t TEXT
) ENGINE=InnoDB""",
    ]
    if vector:
        out.append(f"CREATE TABLE {DB}.t_vec (id INT NOT NULL PRIMARY KEY, v VECTOR(3) NOT NULL)"
                   " ENGINE=InnoDB")
    return out


class Raw(str):
    """SQL text put into a statement as it is (an expression, not a value)."""


def lit(conn, v):
    if v is None:
        return "NULL"
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v) if "e" in repr(v) or "." in repr(v) else repr(v) + ".0"
    if isinstance(v, (bytes, bytearray)):
        return f"X'{bytes(v).hex()}'" if v else "''"
    return conn.escape(str(v))


def insert(conn, table, rows):
    """A (multi-row) INSERT of literal rows."""
    values = ",\n ".join("(" + ", ".join(lit(conn, v) for v in row) + ")" for row in rows)
    return f"INSERT INTO {table} VALUES\n {values}"


def geo(wkt, srid=0):
    return Raw(f"ST_GeomFromText('{wkt}', {srid})")


def num_row(i, ti, tu, si, su, mi, mu, ii, iu, bi, bu, zf, d65, d10, d20, f, dbl, b1, b7, b33,
            b64, y):
    return (i, ti, tu, si, su, mi, mu, ii, iu, bi, bu, zf, Raw(d65), Raw(d10), Raw(d20), f, dbl,
            Raw(b1), Raw(b7), Raw(b33), Raw(b64), y)


NUM0 = [
    num_row(1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0, 0,
            "-12345678901234567890123456789012345.123456789012345678901234567890",
            "-1234567.891", "0", 0.1, 0.1, "b'0'", "b'0'", "b'0'", "b'0'", 1901),
    num_row(2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295,
            9223372036854775807, 18446744073709551615, 999999,
            "99999999999999999999999999999999999.999999999999999999999999999999",
            "9999999.999", "99999999999999999999", 3.4028234663852886e38, 1 / 3, "b'1'",
            "b'1111111'", "b'111111111111111111111111111111111'",
            "0xFFFFFFFFFFFFFFFF", 2155),
    num_row(3, -1, 128, -1, 32768, -1, 8388608, -1, 2147483648, -1, 9223372036854775808, 7,
            "0.000000000000000000000000000001", "-0.001", "12345678901234567890",
            Raw("-0e0"), 5e-324, "b'1'", "b'1010101'", "b'100000000000000000000000000000001'",
            "0x8000000000000001", 0),
    (4,) + (None,) * 21,
]

TEXTS = ["plain", "it's \"quoted\" `ticked`", "back\\slash \\' \\0 \\n", "nul\0byte\0",
         "new\nline\r\ncr\ttab", "emoji 😀🎉 𝄞 and ß", "%_ like ^Z:\x1a", "trailing   ",
         "", "SELECT 1; -- not a comment /* nor */", "\\", "'"]

STR0 = [
    (1, "a 'b' \"c\"", TEXTS[1], TEXTS[2], TEXTS[5] * 3, "café naïve €", "Ärger ½ ÿ",
     "Straße", b"\x00\x01\xff", b"\x00", b"", b"\x00\x00\xff\x00", "a", "r,w", '{"a": [1, 2.5, '
     '"x\\"y"], "b": null, "ü": true}'),
    (2, "emoji 😀", TEXTS[3], TEXTS[4], TEXTS[0], "£ ¥ §", "", "ABC", b"ab\x00\x00",
     b"\xff" * 64, b"\x00" * 3, bytes(range(256)), "ç", "ü,x", "[]"),
    (3, "trailing   ", TEXTS[7], TEXTS[6], TEXTS[9], "Œuvre", "æøå", "abc ", b"\x00" * 8,
     b"x\x00y", b"\\'", b"\r\n", "x y", "", '"str"'),
    (4,) + (None,) * 14,
]


def time_row(i, d, dt, tm, ts0, ts6):
    return (i, d) + (dt,) * 7 + (tm,) * 7 + (ts0, ts6)


TIME0 = [
    time_row(1, "0000-00-00", "0000-00-00 00:00:00", "-838:59:59", "0000-00-00 00:00:00",
             "0000-00-00 00:00:00"),
    time_row(2, "2024-02-29", "2024-02-29 23:59:59.999999", "-00:00:00.000001",
             "1970-01-01 00:00:01", "2038-01-19 03:14:07.999999"),
    time_row(3, "2020-00-15", "9999-12-31 23:59:59.123456", "838:59:59.999999",
             "2001-02-03 04:05:06", "2001-02-03 04:05:06.000001"),
    time_row(4, "1000-01-01", "1000-01-01 00:00:00.5", "-12:34:56.654321",
             "2024-06-30 12:00:00", "1999-12-31 23:59:59.5"),
    (5,) + (None,) * 17,
]

GEO0 = [
    (1, geo("POINT(1 2)"), geo("POINT(1.5 -2.25)", 4326), geo("LINESTRING(0 0, 1 1, 2 0)"),
     geo("POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 3 2, 3 3, 2 2))"), "192.168.0.1",
     "::1", "123e4567-e89b-12d3-a456-426655440000"),
    (2, geo("GEOMETRYCOLLECTION(POINT(0 0), LINESTRING(1 1, 2 2))"),
     geo("POINT(0.1 0.2)", 4326), None, None, "0.0.0.0", "2001:db8::ff00:42:8329",
     "00000000-0000-0000-0000-000000000000"),
    (3, geo("MULTIPOINT(1 1, 2 2)", 3857), None, geo("LINESTRING(-1e300 1e-300, 0 0)"), None,
     "255.255.255.255", "::ffff:1.2.3.4", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
    (4,) + (None,) * 7,
]

COMP0 = [(1, "x", 1, "one", "2024-01-01 00:00:00.000001"), (1, "y", 2, "two", None),
         (2, "x", 3, "three 😀", "1999-12-31 23:59:59.999999"), (2, "Ä", 4, None, None),
         (3, "k", 5, "k", "2000-01-01 00:00:00")]

NOKEY0 = [(1, 0.1, 0.1, "dup", b"\x00"), (1, 0.1, 0.1, "dup", b"\x00"),
          (1, 0.1, 0.1, "dup", b"\x00"), (2, 16777217.0, 1 / 3, "two\nlines", None),
          (3, None, None, None, None)]

KV0 = [("k1", 1, "one"), ("k2", 2, "two"), ("k3", None, None)]


def _wait_past_second(server, at_least):
    """Sleep until the server's clock is past the next whole second after ``at_least``
    (seconds since the epoch, the time of the last event); returns that whole second."""
    boundary = int(at_least) + 1
    while True:
        now = float(server.q("SELECT UNIX_TIMESTAMP(NOW(6))")[0][0])
        if now >= boundary + 0.2:
            return boundary
        time.sleep(boundary + 0.25 - now)


def _now(server):
    return float(server.q("SELECT UNIX_TIMESTAMP(NOW(6))")[0][0])


def utc_text(seconds):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds))


@dataclasses.dataclass
class Workload:
    config: str                 # "full" or "minimal" (binlog_row_metadata)
    files: list                 # the binlog files of the DML, copied aside, in order
    snapshots: dict             # label ("s0", "sa", "sb", "s1") -> Snapshot
    schema: pathlib.Path        # mariadb-dump --no-data of DATABASES, taken before the DML
    thread_id: int              # the second connection's (it changes fb_other.kv only)
    window: tuple               # ('YYYY-MM-DD HH:MM:SS' T1, T2), UTC: phase B exactly
    position_file: pathlib.Path  # the copy of the file holding all of phase B
    positions: tuple            # (start, stop): phase B in position_file
    vector: bool                # whether fb.t_vec exists
    version: str
    tables: list                # "db.t" of every table


def run_workload(server, config, out_dir):
    """Create the tables, save S0, run phases A, B, C (saving SA, SB), save S1; the binlog
    files of the DML are copied into ``out_dir``."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    conn = server.conn
    server.q(f"SET GLOBAL binlog_row_metadata = {config.upper()}")
    # a connection opened after the SET: the variable is read per session at its start
    server.conn.close()
    server.conn = conn = server.connect()
    server.q("SET SESSION binlog_format = 'ROW'")
    server.q("SET SESSION binlog_row_image = 'FULL'")
    vector = has_vector(server)
    for db in DATABASES:
        server.q(f"DROP DATABASE IF EXISTS {qi(db)}")
    for stmt in ddl(vector):
        server.q(stmt)
    server.q(insert(conn, f"{DB}.t_num", NUM0))
    server.q(insert(conn, f"{DB}.t_str", STR0))
    server.q(insert(conn, f"{DB}.t_time", TIME0))
    server.q(insert(conn, f"{DB}.t_geo", GEO0))
    server.q(insert(conn, f"{DB}.t_comp", COMP0))
    server.q(insert(conn, f"{DB}.t_nokey", NOKEY0))
    server.q(insert(conn, f"{OTHER}.kv", KV0))
    if vector:
        server.q(f"INSERT INTO {DB}.t_vec VALUES (1, VEC_FromText('[1, 2.5, -0.0]')), "
                 "(2, VEC_FromText('[0.1, 1e-38, 3e38]'))")

    schema = out_dir / f"schema-{config}.sql"
    dump = subprocess.run([tool("mariadb-dump"), "--no-defaults", f"--socket={server.socket}",
                           "-uroot", "--no-data", "--skip-comments", "--databases", *DATABASES],
                          capture_output=True, timeout=120)
    assert dump.returncode == 0, dump.stderr.decode(errors="replace")
    schema.write_bytes(dump.stdout)

    snaps = {"s0": save(server, config, "s0")}
    other = server.connect()
    thread_id = server.q("SELECT CONNECTION_ID()", conn=other)[0][0]
    server.q("FLUSH BINARY LOGS")
    first = server.master_status()[0]

    def tx(*statements):
        server.q("BEGIN")
        for s in statements:
            server.q(s)
        server.q("COMMIT")

    def kv(sql):
        server.q(sql, conn=other)

    # ---- phase A (two files)
    server.q(insert(conn, f"{DB}.t_num", [num_row(
        10, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, "1.5", "2.5", "3", 1e-45,
        2.2250738585072014e-308, "b'1'", "b'11'", "b'1'", "b'1'", 1999)]))
    server.q(insert(conn, f"{DB}.t_str", [
        (10, TEXTS[8], TEXTS[10], TEXTS[11], TEXTS[3] * 50, "\\x", "'", "MiXeD", b"\x01",
         b"\x00\x00", b"\x00", b"", "b", "r,w,x,ü", '{"k": "\\u0000 nul"}'),
        (11, "x", "y", "z", None, None, None, "x", None, None, None, None, None, None, None),
        (12, TEXTS[4][:20], TEXTS[5], TEXTS[1], "", "", "", "", b"", b"", b"", b"", None, "",
         '123456789012345678901234567890')]))
    server.q(f"UPDATE {DB}.t_num SET id = 20 WHERE id = 1")            # a primary key change
    kv(f"INSERT INTO {OTHER}.kv VALUES ('k4', 4, 'four')")
    kv(f"UPDATE {OTHER}.kv SET v = v + 1 WHERE k = 'k1'")
    server.q("FLUSH BINARY LOGS")
    tx(insert(conn, f"{DB}.t_time", [time_row(10, "2024-12-31", "2024-12-31 12:34:56.789",
                                              "-0:00:01.5", "2024-12-31 12:34:56",
                                              "2024-12-31 12:34:56.789012")]),
       f"UPDATE {DB}.t_geo SET g = ST_GeomFromText('POINT(-1 -1)'), i4 = '10.0.0.1', "
       "u = 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee' WHERE id = 1",
       f"DELETE FROM {DB}.t_comp WHERE a = 1 AND b = 'x'")
    server.q(f"UPDATE {DB}.t_str SET tx = CONCAT(tx, '+'), bn = X'0000' WHERE id <= 3")
    if vector:
        server.q(f"UPDATE {DB}.t_vec SET v = VEC_FromText('[-1, 0, 1]') WHERE id = 1")
    t1 = _wait_past_second(server, _now(server))
    snaps["sa"] = save(server, config, "sa")

    # ---- phase B (one file)
    server.q(insert(conn, f"{DB}.t_comp", [(9, "k", 90, "first", None)]))
    server.q(f"DELETE FROM {DB}.t_comp WHERE a = 9 AND b = 'k'")
    server.q(insert(conn, f"{DB}.t_comp", [(9, "K", 91, "second", "2024-05-05 05:05:05.5")]))
    server.q(f"UPDATE {DB}.t_nokey SET txt = 'changed' WHERE n = 1 LIMIT 1")
    server.q(f"DELETE FROM {DB}.t_time WHERE id IN (2, 3)")
    tx(f"UPDATE {DB}.t_num SET f = f / 3, dbl = -dbl, d65 = -d65, b64 = b64 >> 1 "
       "WHERE id IN (2, 3)",
       f"UPDATE {DB}.t_str SET j = '{{\"changed\": [true, false]}}', e = 'x y', s = 'r,ü', "
       "l1 = 'ñ' WHERE id IN (1, 2)",
       insert(conn, f"{DB}.t_nokey", [(1, 0.1, 0.1, "dup", b"\x00")]),
       f"DELETE FROM {DB}.t_geo WHERE id = 2")
    kv(f"DELETE FROM {OTHER}.kv WHERE k = 'k2'")
    kv(f"INSERT INTO {OTHER}.kv VALUES ('k5', -5, 'five\\0nul')")
    server.q(f"UPDATE {DB}.t_time SET tm6 = '-00:00:00.000001', tm3 = '-838:59:59.999', "
             "d = '0000-00-00' WHERE id = 1")
    t2 = _wait_past_second(server, _now(server))
    snaps["sb"] = save(server, config, "sb")

    # ---- phase C (two files)
    server.q(f"UPDATE {DB}.t_comp SET a = a + 100 WHERE a < 3")        # several key changes
    server.q("FLUSH BINARY LOGS")
    server.q(f"DELETE FROM {DB}.t_nokey WHERE n = 1 LIMIT 1")
    server.q(f"DELETE FROM {DB}.t_str WHERE id IN (10, 11)")
    tx(insert(conn, f"{DB}.t_geo", [(5, geo("POINT(5 5)", 4326), geo("POINT(6 6)", 4326),
                                     None, None, "1.2.3.4", "fe80::1", None)]),
       f"UPDATE {DB}.t_num SET b64 = 0, f = -f, y = 2000, zf = 1 WHERE id = 10")
    kv(f"UPDATE {OTHER}.kv SET t = CONCAT('changed ', k) WHERE k IN ('k1', 'k3')")
    if vector:
        server.q(f"DELETE FROM {DB}.t_vec WHERE id = 2")
    server.q("FLUSH BINARY LOGS")
    last = server.master_status()[0]
    snaps["s1"] = save(server, config, "s1")
    other.close()

    index = (server.binlog_dir / "mariadb-bin.index").read_text().split()
    names = [pathlib.Path(p).name for p in index]
    files = []
    for n in names:
        if first <= n < last:
            shutil.copyfile(server.binlog_dir / n, out_dir / n)
            files.append(out_dir / n)
    assert len(files) == 3, files
    (sa_file, sa_pos), (sb_file, sb_pos) = snaps["sa"].binlog, snaps["sb"].binlog
    assert sa_file == sb_file == files[1].name, (snaps["sa"].binlog, snaps["sb"].binlog)
    return Workload(config, files, snaps, schema, thread_id, (utc_text(t1), utc_text(t2)),
                    files[1], (sa_pos, sb_pos), vector, server.version, sorted(snaps["s0"].state))


# ------------------------------------------------------------------ reading printed row changes


def _counts(pattern, text):
    import re
    counts: dict = {}
    for m in re.finditer(pattern, text, re.M):
        key = (m.group(1).split()[0], f"{m.group(2)}.{m.group(3)}")
        counts[key] = counts.get(key, 0) + 1
    return counts


def verbose_counts(text):
    """{(operation, "db.t"): row count} from the ``###`` lines of ``mariadb-binlog -v``."""
    return _counts(r"^### (INSERT INTO|UPDATE|DELETE FROM) `([^`]*)`\.`([^`]*)`$", text)


def sql_counts(text):
    """{(operation, "db.t"): statement count} of SQL with one statement per row change, as
    ``binlog-schema sql`` writes it (the table named `db`.`t`; a statement starts a line)."""
    return _counts(r"^(INSERT INTO|UPDATE|DELETE FROM) `([^`]*)`\.`([^`]*)`", text)


def inverted(counts):
    swap = {"INSERT": "DELETE", "DELETE": "INSERT", "UPDATE": "UPDATE"}
    return {(swap[op], t): n for (op, t), n in counts.items()}


def main():
    """Run the workload once on a private server and print where things are (by hand)."""
    import argparse
    import json
    p = argparse.ArgumentParser(description="run the flashback workload on a private MariaDB")
    p.add_argument("out_dir")
    p.add_argument("--config", default="full", choices=("full", "minimal"))
    p.add_argument("--keep", action="store_true", help="leave the server running")
    args = p.parse_args()
    server = Server("flashback-manual", "--binlog-checksum=CRC32", "--binlog-row-image=FULL")
    try:
        w = run_workload(server, args.config, args.out_dir)
        print(json.dumps({"files": [str(f) for f in w.files], "window": w.window,
                          "positions": [str(w.position_file), *w.positions],
                          "thread_id": w.thread_id, "version": w.version, "vector": w.vector,
                          "socket": server.socket}, indent=1))
    finally:
        if not args.keep:
            server.destroy()


if __name__ == "__main__":
    main()

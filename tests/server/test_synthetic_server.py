"""Server tier for the fixture generator: a private, real MariaDB server (Debian's
mariadb-server, scripts/mariadb.sh) and the real ``mariadb-binlog`` client.

(a) MariaDB fixtures of every column type are read by ``mariadb-binlog --verbose`` without
    error, and it prints the values the spec asked for;
(b) ``mariadb-binlog FILE | mariadb`` replays them into the server (tables created from the
    spec's DDL) and the tables' SELECT equals the spec's final state -- for the example spec
    under every row image, log_bin_compress, checksum NONE, and for random specs;
(c) the server, running the same DDL and DML as SQL, writes TABLE_MAP events byte-identical to
    the fixture's (timestamps, server id and table ids set by the spec), the same row images,
    and the FORMAT_DESCRIPTION post-header table of the mariadb-10.11 profile.
"""

from __future__ import annotations

import copy
import os
import pathlib
import re
import shutil
import subprocess

import pytest
import yaml

from binlog_schema.format.facts.codes import ROWS_KINDS
from binlog_schema.synthetic import SERVERS, generate, load_spec, random_spec
from binlog_schema.synthetic import sql as fsql
from binlog_schema.format.stream import BinlogReader

from ..conftest import ROOT, unavailable

pytestmark = pytest.mark.server

NAME = "fixtures-test"
EXAMPLE = ROOT / "specs" / "fixtures" / "examples" / "mariadb-all-types.fixture"
MARIADB_SH = ROOT / "scripts" / "mariadb.sh"


def _tool(name):
    return shutil.which(name) or (f"/usr/sbin/{name}" if os.path.exists(f"/usr/sbin/{name}")
                                  else None)


class Server:
    def __init__(self, env):
        self.socket = env["socket"]
        self.binlog_dir = pathlib.Path(env["binlog_dir"])
        import pymysql
        self.conn = pymysql.connect(unix_socket=self.socket, user="root", charset="utf8mb4",
                                    autocommit=True)

    def q(self, sql, *args):
        cur = self.conn.cursor()
        cur.execute(sql, args or None)
        return cur.fetchall()

    def binlogs_since(self, first):
        """The binlog files from ``first`` to the one before the current (after a FLUSH)."""
        index = (self.binlog_dir / "mariadb-bin.index").read_text().split()
        names = [pathlib.Path(p).name for p in index]
        current = self.q("SHOW MASTER STATUS")[0][0]
        return [self.binlog_dir / n for n in names if first <= n < current]

    def replay(self, path):
        """``mariadb-binlog FILE | mariadb``; returns (client returncode, stderr)."""
        dump = subprocess.run([_tool("mariadb-binlog"), str(path)], capture_output=True,
                              timeout=300)
        assert dump.returncode == 0, dump.stderr.decode(errors="replace")
        run = subprocess.run([_tool("mariadb"), "--no-defaults", f"--socket={self.socket}",
                              "-uroot"], input=dump.stdout, capture_output=True, timeout=300)
        return run.returncode, run.stderr.decode(errors="replace")


@pytest.fixture(scope="module")
def server():
    missing = [t for t in ("mariadbd", "mariadb-binlog", "mariadb") if not _tool(t)]
    if missing:
        msg = (f"{', '.join(missing)} not installed (apt-get install mariadb-server "
               "mariadb-client): fixture server tier not run")
        unavailable(msg)
    try:
        import pymysql  # noqa: F401
    except ImportError:
        unavailable("pymysql missing: fixture server tier not run")
    subprocess.run(["bash", str(MARIADB_SH), "destroy", NAME], capture_output=True)
    out = subprocess.run(["bash", str(MARIADB_SH), "start", NAME, "--binlog-checksum=CRC32",
                          "--binlog-row-metadata=FULL"], capture_output=True, text=True,
                         timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    env = dict(line.split("=", 1) for line in out.stdout.split() if "=" in line)
    try:
        yield Server(env)
    finally:
        subprocess.run(["bash", str(MARIADB_SH), "stop", NAME], capture_output=True,
                       timeout=120)


def _spec(path=EXAMPLE):
    return yaml.safe_load(pathlib.Path(path).read_text(encoding="utf-8"))


def _fresh(server, fx):
    for db in sorted({t.database for t in fx.tables.values()}):
        server.q(f"DROP DATABASE IF EXISTS {fsql.qi(db)}")


def _schema(server, fx):
    for stmt in fsql.schema_sql(fx).split(";\n"):
        if stmt.strip():
            server.q(stmt)


def _compare_tables(server, fx):
    server.q("SET time_zone = '+00:00'")
    checked = 0
    for key, table in fx.tables.items():
        got = fsql.server_rows(table, server.q(fsql.snapshot_query(table)))
        want = fsql.expected_rows(fx, key)
        assert got == want, (key, [(c.name, g, w) for row_g, row_w in zip(got, want)
                                   for c, g, w in zip(table.columns, row_g, row_w) if g != w][:5])
        checked += len(want)
    return checked


# ---------------------------------------------------------------- (b) replay


VARIANTS = [{}, {"binlog_row_image": "MINIMAL"}, {"binlog_row_image": "NOBLOB"},
            {"compression": True, "compression_min_length": 16}, {"checksum": "NONE"},
            {"binlog_row_metadata": "NO_LOG", "annotate_rows": False}]


@pytest.mark.parametrize("settings", VARIANTS, ids=lambda s: ",".join(
    f"{k}={v}" for k, v in s.items()) or "default")
def test_replay_of_the_example_leaves_the_spec_final_state(server, tmp_path, settings):
    spec = _spec()
    spec["settings"].update(settings)
    fx = load_spec(spec)
    path = tmp_path / "fixture.bin"
    generate(fx, path)
    _fresh(server, fx)
    _schema(server, fx)
    rc, err = server.replay(path)
    assert rc == 0, err[-3000:]
    assert _compare_tables(server, fx) > 25


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_replay_of_random_fixtures(server, tmp_path, seed):
    spec = random_spec(seed, tables=4, transactions=40, flavor="mariadb-10.11", rows=4)
    spec["database"] = f"fx_random_{seed}"
    fx = load_spec(spec)
    path = tmp_path / "random.bin"
    generate(fx, path)
    _fresh(server, fx)
    _schema(server, fx)
    rc, err = server.replay(path)
    assert rc == 0, err[-3000:]
    assert _compare_tables(server, fx) > 20


def test_replay_detects_a_wrong_value(server, tmp_path):
    """The comparison can fail: a fixture whose spec says one thing and whose file holds
    another (an edited value) leaves tables that differ from the spec."""
    spec = _spec()
    fx = load_spec(spec)
    bad = copy.deepcopy(spec)
    bad["transactions"][0]["changes"][0]["rows"][0][1] = -127     # t_int.ti of row 1
    generate(load_spec(bad), tmp_path / "bad.bin")
    _fresh(server, fx)
    _schema(server, fx)
    rc, err = server.replay(tmp_path / "bad.bin")
    assert rc == 0, err
    with pytest.raises(AssertionError, match="t_int"):
        _compare_tables(server, fx)


# ---------------------------------------------------------------- (a) mariadb-binlog --verbose


def verbose_rows(text):
    """[(op, table, {column number: printed value})] from ``mariadb-binlog --verbose``: one
    entry per row image (an UPDATE prints its WHERE image, then its SET image)."""
    out = []
    op = table = None
    for line in text.splitlines():
        if not line.startswith("###"):
            continue
        body = line[3:].strip()
        m = re.match(r"(INSERT INTO|UPDATE|DELETE FROM) `([^`]*)`\.`([^`]*)`$", body)
        if m:
            op, table = m.group(1).split()[0], m.group(3)
            continue
        if body in ("SET", "WHERE"):
            out.append((op, table, {}))
            continue
        m = re.match(r"@(\d+)=(.*)$", body)
        if m:
            out[-1][2][int(m.group(1))] = m.group(2).rstrip()
    return out


def _int_text(v, bits):
    u = v % (1 << bits)
    s = u - (1 << bits) if u >> (bits - 1) else u
    return f"{s} ({u})" if s < 0 else str(s)


def expected_print(col, v):
    """What mariadb-binlog --verbose prints for a value, for the types whose form is plain
    (None: not checked here; those are compared with the server's own binlog in (c))."""
    if v is None:
        return "NULL"
    k = col.kind
    if k == "int":
        return _int_text(v, {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32,
                             "BIGINT": 64}[col.base])
    if k == "year":      # mariadb-binlog prints 1900 + the stored byte: YEAR 0 as 1900
        return str(v or 1900)
    if k == "decimal":
        return format(v, "f")
    if k == "date":
        return f"'{v.year:04d}:{v.month:02d}:{v.day:02d}'"
    if k == "datetime":
        return f"'{fsql._temporal_text(v, col.fsp)}'"
    if k == "time":
        return f"'{fsql._temporal_text(v, col.fsp)}'"
    if k == "timestamp":
        frac = f".{v.microsecond:06d}"[:col.fsp + 1] if col.fsp else ""
        return f"{v.seconds}{frac}"
    if k == "enum":
        return str(v.index)
    if k == "set":       # the stored (little-endian) bytes, each printed MSB first
        stored = v.bits.to_bytes(col.binlog.pack_length, "little")
        return "b'" + "".join(format(b, "08b") for b in stored) + "'"
    if k == "bit":
        return "b'" + format(v, f"0{col.args[0]}b") + "'"
    if col.compressed:   # the stored form: 0x00 + the value when under the threshold
        stored = col.image(v).stored
        return "'\\x00" + stored[1:].decode() + "'" if stored[:1] == b"\0" and \
            stored[1:].isascii() and stored[1:].decode().isprintable() else None
    if k in ("varchar", "char") and col.charset in ("latin1", "utf8mb3", "utf8mb4") and \
            isinstance(v, str) and v.isascii() and v.isprintable() and "'" not in v and \
            "\\" not in v:   # ASCII text in an ASCII-compatible charset prints as it is
        return "'" + (v.rstrip(" ") if k == "char" else v) + "'"
    return None


def test_mariadb_binlog_verbose_reads_every_column_type_and_prints_the_spec_values(tmp_path):
    if not _tool("mariadb-binlog"):
        msg = "mariadb-binlog not installed (apt-get install mariadb-client)"
        unavailable(msg)
    fx = load_spec(EXAMPLE)
    path = tmp_path / "fixture.bin"
    generate(fx, path)
    run = subprocess.run([_tool("mariadb-binlog"), "--verbose", "--base64-output=decode-rows",
                          str(path)], capture_output=True, timeout=300)
    err = run.stderr.decode(errors="replace")
    assert run.returncode == 0 and "ERROR" not in err.upper(), err
    text = run.stdout.decode("utf-8", errors="replace")
    printed = verbose_rows(text)
    # what the spec asked for, image by image, in file order
    want = []
    for tx in fx.transactions:
        for ch in tx.changes:
            op = {"insert": "INSERT", "update": "UPDATE", "delete": "DELETE"}[ch.kind]
            for r in ch.rows:
                for img in (r if ch.kind == "update" else (r,)):
                    want.append((op, ch.table, img))
    assert [(op, t.name) for op, t, _ in want] == [(op, t) for op, t, _ in printed]
    checked = 0
    types = set()
    for (_op, table, img), (_, _, got) in zip(want, printed):
        assert set(got) == {c.index + 1 for c in table.columns}, table.name
        for col in table.columns:
            exp = expected_print(col, img.get(col.index))
            if exp is None:
                continue
            assert got[col.index + 1] == exp, (table.name, col.name, got[col.index + 1])
            checked += 1
            types.add(col.base)
    assert checked > 200
    assert {"TINYINT", "BIGINT", "DECIMAL", "DATE", "DATETIME", "TIME", "TIMESTAMP", "YEAR",
            "ENUM", "SET", "BIT", "VARCHAR", "CHAR"} <= types
    every = {c.binlog.type for t in fx.tables.values() for c in t.columns}
    assert {"LONGLONG", "NEWDECIMAL", "FLOAT", "DOUBLE", "BIT", "YEAR", "DATE", "TIME2",
            "DATETIME2", "TIMESTAMP2", "STRING", "VARCHAR", "BLOB", "GEOMETRY",
            "VARCHAR_COMPRESSED", "BLOB_COMPRESSED", "INT24", "SHORT", "TINY", "LONG"} <= every


# ---------------------------------------------------------------- (c) the server's own bytes


def _groups(records, tables):
    """Per transaction (GTID event), the row images per (table, kind, bitmaps), data joined:
    one statement per row (the server) and one event per change (the fixture) compare."""
    out, cur, names = [], None, {}
    for rec in records:
        if rec.kind == 162:
            cur = []
            out.append(cur)
        elif rec.kind == 19:
            names[rec.value["body"]["table_id"]] = rec.value["body"]["table"]
        elif rec.kind in ROWS_KINDS:
            b = rec.value["body"]
            table = names[b["table_id"]]
            if table not in tables:
                continue
            key = (table, rec.type_name.replace("_COMPRESSED", ""),
                   tuple(b["columns_present"]), tuple(b.get("columns_after") or ()))
            data = bytes(b["rows"]["data"] if isinstance(b["rows"], dict) else b["rows"])
            if cur and cur[-1][0] == key:
                cur[-1][1] += data
            else:
                cur.append([key, data])
    return [g for g in out if g]


def _pattern(records):
    """Per transaction: GTID, then its statements' event kinds (ANNOTATE_ROWS, TABLE_MAP,
    rows; repeats inside a statement collapsed, then repeated statements collapsed: the
    server writes one statement per row where the spec had one change), then XID/QUERY."""
    out, tx = set(), None

    def close():
        if tx is None:
            return
        units = []
        for unit in tx[1:]:
            if not units or units[-1] != unit:
                units.append(unit)
        out.add((tx[0],) + tuple(units))
    for rec in records:
        name = rec.type_name
        if name == "GTID_EVENT":
            close()
            tx = [name]
        elif tx is None or name in ("ROTATE_EVENT", "STOP_EVENT", "BINLOG_CHECKPOINT_EVENT"):
            continue
        elif name in ("ANNOTATE_ROWS_EVENT", "XID_EVENT", "QUERY_EVENT") or (
                name == "TABLE_MAP_EVENT" and (len(tx) == 1
                                               or tx[-1][-1] != "ANNOTATE_ROWS_EVENT")):
            tx.append((name,))
        elif tx[-1][-1] != name:
            tx[-1] = tx[-1] + (name,)
    close()
    return out


def test_table_maps_and_row_images_are_what_the_server_writes(server, tmp_path):
    spec = _spec()
    fx = load_spec(spec)
    _fresh(server, fx)
    server.q("FLUSH BINARY LOGS")
    first = server.q("SHOW MASTER STATUS")[0][0]
    server.q("SET time_zone = '+00:00'")
    server.q("SET sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'")
    version = server.q("SELECT VERSION()")[0][0]
    _schema(server, fx)
    for tx in fx.transactions:
        for stmt in fsql.transaction_sql(fx, tx):
            server.q(stmt)
    server.q("FLUSH BINARY LOGS")
    server_recs = [r for p in server.binlogs_since(first) for r in BinlogReader(p)]
    maps = {}
    for r in server_recs:
        if r.kind == 19 and r.value["body"]["database"] == fx.database:
            maps.setdefault(r.value["body"]["table"], []).append(r)
    assert set(maps) == {t.name for t in fx.tables.values()}

    # the same spec, told the server's version string and table ids
    spec["server"] = {"server": "mariadb-10.11", "version": version}
    spec["settings"]["table_ids"] = {t: rs[0].value["body"]["table_id"] for t, rs in maps.items()}
    data = generate(spec, tmp_path / "same.bin")
    mine = [r for r in BinlogReader(data)]
    compared = 0
    for r in mine:
        if r.kind != 19:
            continue
        table = r.value["body"]["table"]
        theirs = maps[table]
        body = r.raw[19:-4]
        assert body in {s.raw[19:-4] for s in theirs}, (table, body.hex(),
                                                        theirs[0].raw[19:-4].hex())
        h = r.value["header"]
        assert (h["timestamp"], h["server_id"], list(h["flags"])) in [
            (s.value["header"]["timestamp"], s.value["header"]["server_id"],
             list(s.value["header"]["flags"])) for s in theirs]
        compared += 1
    assert compared >= 20
    # a changed column would be noticed: the comparison is of the bytes
    tm_rec = next(r for r in mine if r.kind == 19)
    flipped = bytearray(tm_rec.raw[19:-4])
    flipped[-1] ^= 1
    assert bytes(flipped) not in {s.raw[19:-4] for s in maps[tm_rec.value["body"]["table"]]}

    # the rows: the same images, bitmaps and spare bits
    names = {t.name for t in fx.tables.values()}
    theirs, ours = _groups(server_recs, names), _groups(mine, names)
    assert len(theirs) == len(ours) == sum(1 for t in fx.transactions if t.changes)
    for a, b in zip(theirs, ours):
        assert [x[0] for x in a] == [y[0] for y in b]
        for x, y in zip(a, b):
            assert x[1] == y[1], (x[0], x[1].hex()[:120], y[1].hex()[:120])

    # the FDE and the transaction layouts of the server's file
    fde = server_recs[0].value["body"]
    assert fde["server_version"] == version
    assert fde["post_header_lengths"] == list(SERVERS["mariadb-10.11"].post_header_lengths)
    assert _pattern(mine) <= _pattern(server_recs), _pattern(mine) - _pattern(server_recs)
    # GTID flags and the DDL statement's QUERY event: as the server writes them
    def gtids(recs):
        return {(tuple(r.value["body"]["flags2"]), tuple(r.value["body"]["flags_extra"]),
                 tuple(r.value["header"]["flags"])) for r in recs if r.kind == 162}
    assert gtids(mine) == gtids(server_recs)
    ddl = next(t.ddl for t in fx.transactions if t.ddl)

    def ddl_query(recs):
        (q,) = [r for r in recs if r.kind == 2 and r.value["body"]["query"] == ddl]
        return ([v["code"] for v in q.value["body"]["status_vars"]], list(
            q.value["header"]["flags"]), q.value["body"]["database"])
    assert ddl_query(mine) == ddl_query(server_recs)
    kinds_seen = {r.type_name for r in server_recs}
    assert {"GTID_LIST_EVENT", "BINLOG_CHECKPOINT_EVENT", "ANNOTATE_ROWS_EVENT"} <= kinds_seen

    # mariadb-binlog prints the same row values for both files
    def verbose(path):
        run = subprocess.run([_tool("mariadb-binlog"), "--verbose",
                              "--base64-output=decode-rows", str(path)], capture_output=True,
                             timeout=300)
        assert run.returncode == 0
        return [(op, t, img) for op, t, img in verbose_rows(
            run.stdout.decode("utf-8", "replace")) if t in names]
    ours_v = verbose(tmp_path / "same.bin")
    theirs_v = [v for p in server.binlogs_since(first) for v in verbose(p)]
    assert ours_v == theirs_v and len(ours_v) > 40


def test_ddl_parser_reads_the_servers_show_create_table(server):
    """SHOW CREATE TABLE of every example table, read back by --from-ddl's parser, gives the
    same TABLE_MAP columns and primary key."""
    from binlog_schema.synthetic import tables_from_ddl
    fx = load_spec(EXAMPLE)
    _fresh(server, fx)
    _schema(server, fx)
    checked = 0
    for key, table in fx.tables.items():
        if key not in fx.initial:          # created by a DDL transaction of the spec
            continue
        ddl = server.q(f"SHOW CREATE TABLE {fsql.table_name(table)}")[0][1]
        (again,) = tables_from_ddl(ddl, table.database)
        back = load_spec({"server": "mariadb-10.11", "database": table.database,
                          "tables": [again]}).tables[key]
        assert [c.binlog for c in back.columns] == [c.binlog for c in table.columns], ddl
        assert back.key_tlv() == table.key_tlv(), ddl
        checked += 1
    assert checked == 11

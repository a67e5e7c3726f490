"""Server tier, row values: a private, real MariaDB server (scripts/make_rows_binlogs.sh) runs
scripts/workloads/rows.sql -- every column type, edge values, UPDATEs and DELETEs -- under
binlog_row_image FULL, MINIMAL, NOBLOB x binlog_row_metadata FULL, MINIMAL, and records the final
SELECT of every table (scripts/rows_snapshot.py). Checked here:

(a) every rows event decodes and its row bytes rebuild from the typed values;
(b) replaying the decoded row changes in order rebuilds every table exactly as the server has it;
(c) our values agree with what ``mariadb-binlog --verbose`` prints for the same events;
(d) with MINIMAL/NOBLOB images, absent columns are absent from our rows (not None).
"""

from __future__ import annotations

import collections
import decimal
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys

import pytest

from binlog_schema.output.roundtrip import roundtrip_file
from binlog_schema.format.event_codec import parse_event
from binlog_schema.format.facts.codes import ROWS_KINDS
from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.format.stream import BinlogReader
from binlog_schema.format.values import temporal
from binlog_schema.format.facts.charsets import encode_text, text_codec
from binlog_schema.format.values.codecs import Compressed, EnumValue, Geometry, SetValue
from binlog_schema.synthetic.vector_checks import context_of, hex_bytes, iter_vectors

from ..conftest import ROOT, unavailable

pytestmark = pytest.mark.server

DB = "bs_rows"
PASSES = {f"rows-{image}-{meta}" for image in ("full", "minimal", "noblob")
          for meta in ("full", "minimal")}


def _have_server():
    return shutil.which("mariadbd") or os.path.exists("/usr/sbin/mariadbd")


@pytest.fixture(scope="session")
def passes(tmp_path_factory):
    if not _have_server():
        msg = "mariadbd not installed (apt-get install mariadb-server): row-value server tier " \
              "not run"
        unavailable(msg)
    # a server and an output directory of this session's own (other runs may be going on)
    out_dir = tmp_path_factory.mktemp("binlogs-rows")
    env = dict(os.environ, ROWS_SERVER_NAME=f"rows-test-{os.getpid()}")
    out = subprocess.run(["bash", str(ROOT / "scripts" / "make_rows_binlogs.sh"), str(out_dir)],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    found = {}
    for path in sorted(out_dir.glob("rows-*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["files"] = [out_dir / f for f in doc["binlogs"].split(",")]
        found[doc["pass"]] = doc
    assert set(found) == PASSES
    return found


# ------------------------------------------------------------------------ decoding


class Change:
    """One decoded row change, images keyed by column index, with the table map in force."""

    def __init__(self, ch, tm, rec):
        self.table, self.op, self.tm, self.rec = ch.table, ch.operation, tm, rec
        index = {name: i for i, name in enumerate(ch.columns)}
        self.before = None if ch.before is None else {index[k]: v for k, v in ch.before.items()}
        self.after = None if ch.after is None else {index[k]: v for k, v in ch.after.items()}


def decoded(files):
    """Every row change of the workload's database, in binlog order (RowDecoder.feed)."""
    out = []
    for path in files:
        dec = RowDecoder(str(path))
        for rec in BinlogReader(path):
            for ch in dec.feed(rec):
                if ch.database == DB:
                    tm = dec.table_maps[rec.value["body"]["table_id"]]
                    out.append(Change(ch, tm, rec))
    return out


_decoded_cache: dict = {}


def changes_of(doc):
    key = doc["pass"]
    if key not in _decoded_cache:
        _decoded_cache[key] = decoded(doc["files"])
    return _decoded_cache[key]


# ------------------------------------------------------------------------ (a) round trip


ROW_EVENT_TYPES = ("TABLE_MAP", "WRITE_ROWS", "UPDATE_ROWS", "DELETE_ROWS")


def test_every_rows_event_decodes_and_rebuilds(passes):
    """Every rows event decodes through its TABLE_MAP and its row bytes rebuild from the typed
    values; the TABLE_MAP and rows events themselves rebuild byte for byte. (Other event types
    are the business of test_mariadb_server.py.)"""
    total = 0
    for _name, doc in sorted(passes.items()):
        for path in doc["files"]:
            r = roundtrip_file(str(path))
            assert not r["rows_failed"] and not r["failed"], (path.name, r["rows_failed"][:1],
                                                              r["failed"][:1])
            rows_differ = [d for d in r["differ"] if d["path"].startswith("body.rows")
                           or d["type"].startswith(ROW_EVENT_TYPES)]
            assert not rows_differ, (path.name, rows_differ[:3])
            assert r["rows"] > 150 and r["rows_identical"] == r["rows"], (path.name, r)
            total += r["rows"]
    assert total > 6 * 150


def test_cli_roundtrip_reports_every_row_identical(passes):
    files = [str(f) for doc in passes.values() for f in doc["files"]]
    out = subprocess.run([sys.executable, "-m", "binlog_schema", "roundtrip", *files],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.stdout.count("\n") == len(files) + 1, out.stdout[-2000:] + out.stderr[-2000:]
    for line in out.stdout.splitlines()[:-1]:
        m = re.search(r"events (\d+), identical (\d+), rows (\d+), rows identical (\d+)", line)
        assert m, line
        events, identical, rows, rows_identical = map(int, m.groups())
        assert rows == rows_identical > 150, line
        assert "rows not decodable" not in line and "FAILED" not in line, line
    assert re.search(r"rows not decodable in 0 events$", out.stdout.splitlines()[-1])


# ------------------------------------------------------------------------ normal forms
#
# Our typed values and the server's exact SELECT forms (scripts/rows_snapshot.py) are both
# brought to one comparable form per column:
#   integers, YEAR, BIT             int
#   DECIMAL                         the decimal text with the column's scale ("-0.00100")
#   FLOAT, DOUBLE                   the IEEE bits (struct, little-endian hex): -0 and +0 differ
#   DATE                            "YYYY-MM-DD" (zero dates and zero parts kept)
#   TIME                            (negative, hours, minutes, seconds, microseconds)
#   DATETIME                        (year, month, day, hour, minute, second, microsecond)
#   TIMESTAMP                       (seconds since the epoch, microseconds)
#   character strings               the bytes in the column's charset (ours: str encoded in it)
#   binary strings, BLOB            the bytes; BINARY(n) (and INET4/INET6/UUID) padded with
#                                   0x00 to n: the server logs them without trailing 0x00
#   compressed columns              the decompressed bytes
#   ENUM / SET                      (index or bits, member bytes); the member names only when
#                                   the table map logged them (binlog_row_metadata=FULL)
#   geometry                        (SRID, WKB) against ST_SRID / ST_AsWKB


def _time_tuple(text):
    m = re.fullmatch(r"(-?)(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?", text)
    assert m, text
    neg, h, mi, s, frac = m.groups()
    return (bool(neg), int(h), int(mi), int(s), int((frac or "").ljust(6, "0")))


def _datetime_tuple(text):
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?", text)
    assert m, text
    *ymdhms, frac = m.groups()
    return tuple(int(x) for x in ymdhms) + (int((frac or "").ljust(6, "0")),)


def _seconds_tuple(text):
    whole, _, frac = text.partition(".")
    return (int(whole), int(frac.ljust(6, "0")))


def _fixed_length(column_type):
    m = re.match(r"(binary|char)\((\d+)\)", column_type)
    return int(m.group(2)) if m else None


FIXED_BINARY = {"inet4": 4, "inet6": 16, "uuid": 16}
GEOMETRY = {"geometry", "point", "linestring", "polygon", "multipoint", "multilinestring",
            "multipolygon", "geometrycollection"}
INTEGERS = {"tinyint", "smallint", "mediumint", "int", "bigint"}


def _raw_bytes(col, value):
    """The bytes a string value stands for, in its column's charset."""
    if isinstance(value, Compressed):
        value = value.data
    assert isinstance(value, (str, bytes, bytearray)), value
    return text_codec(col.collation_id)[1](value)


def _member_bytes(col, names):
    """ENUM/SET member names (decoded from the table map's ENUM_STR/SET_STR_VALUE) as the
    server shows the value: the members' bytes joined by commas."""
    return b",".join(encode_text(n, col.collation_id) for n in names)


def family(scol):
    ty = scol["data_type"]
    if ty in INTEGERS or ty in ("year", "bit"):
        return "integer"
    if ty in ("float", "double", "decimal", "date", "time", "datetime", "timestamp", "enum",
              "set"):
        return ty
    if ty in GEOMETRY:
        return "geometry"
    if ty in FIXED_BINARY:
        return "fixed_binary"
    return "text" if scol["charset"] else "binary"


def norm_ours(col, scol, v):
    """Our decoded value of a column (col: table-map column, scol: the server's) -> normal."""
    if v is None:
        return None
    f = family(scol)
    if f == "integer":
        assert isinstance(v, int) and not isinstance(v, bool), v
        return v
    if f == "decimal":
        assert isinstance(v, decimal.Decimal), v
        return format(v, "f")
    if f in ("float", "double"):
        return struct.pack("<f" if f == "float" else "<d", v).hex()
    if f == "date":
        assert isinstance(v, temporal.Date), v
        return v.isoformat()
    if f == "time":
        assert isinstance(v, temporal.Time), v
        return (v.negative, v.hour, v.minute, v.second, v.microsecond)
    if f == "datetime":
        assert isinstance(v, temporal.DateTime), v
        return (v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond)
    if f == "timestamp":
        assert isinstance(v, temporal.Timestamp), v
        return (v.seconds, v.microsecond)
    if f == "enum":
        assert isinstance(v, EnumValue), v
        return (v.index, None if v.name is None else _member_bytes(col, [v.name]))
    if f == "set":
        assert isinstance(v, SetValue), v
        return (v.bits, None if v.names is None else _member_bytes(col, v.names))
    if f == "geometry":
        assert isinstance(v, Geometry), v
        return (v.srid, v.wkb)
    raw = _raw_bytes(col, v)
    n = FIXED_BINARY.get(scol["data_type"]) or (
        _fixed_length(scol["column_type"]) if f == "binary" else None)
    return raw.ljust(n, b"\0") if n else raw


def norm_server(col, scol, raw):
    """The server's exact SELECT form of a column (rows_snapshot.py) -> normal; ENUM/SET names
    only when our table map has them to compare with."""
    if raw is None:
        return None
    f = family(scol)
    if f == "integer":
        return int(raw)
    if f == "decimal":
        return raw
    if f in ("float", "double"):
        text, negative = raw
        v = math.copysign(float(text), -1.0 if negative == "1" else 1.0)
        return struct.pack("<f" if f == "float" else "<d", v).hex()
    if f == "date":
        return raw
    if f == "time":
        return _time_tuple(raw)
    if f == "datetime":
        return _datetime_tuple(raw)
    if f == "timestamp":
        return _seconds_tuple(raw)
    if f == "enum":
        names = col.enum_values
        return (int(raw[0]), None if names is None else bytes.fromhex(raw[1]))
    if f == "set":
        names = col.set_values
        return (int(raw[0]), None if names is None else bytes.fromhex(raw[1]))
    if f == "geometry":
        return (int(raw[0]), bytes.fromhex(raw[1]))
    if f == "fixed_binary":
        return bytes.fromhex(raw[0])
    return bytes.fromhex(raw[0] if f == "text" else raw)


# ------------------------------------------------------------------------ (b) replay


def _matches(row, image):
    return all(row.get(k) == v for k, v in image.items())


def replay(doc):
    """Apply the decoded changes in order; per table, the rows (dicts by column index). Updates
    and deletes find their row by the before image (with MINIMAL: the primary key). A MINIMAL
    or NOBLOB insert leaves out the columns the statement did not set; they get their DEFAULT,
    which the workload keeps NULL (the comparison with the server checks that it was)."""
    tables = doc["tables"]
    state = collections.defaultdict(list)
    counts = collections.Counter()
    full = doc["binlog_row_image"] == "FULL"
    for ch in changes_of(doc):
        rows = state[ch.table]
        ncols = len(tables[ch.table]["columns"])
        counts[ch.op] += 1
        if ch.op == "insert":
            row = dict(ch.after)
            for i in range(ncols):
                if i not in row:
                    assert not full, (ch.table, i, "absent from a FULL image")
                    row[i] = None
            assert len(row) == ncols
            rows.append(row)
            continue
        hits = [r for r in rows if _matches(r, ch.before)]
        assert hits, (doc["pass"], ch.op, ch.table, ch.before, "matches no row")
        if any(s["key"] == "PRI" for s in tables[ch.table]["columns"]):
            assert len(hits) == 1, (ch.op, ch.table, ch.before, "matches several rows")
        if ch.op == "update":
            hits[0].update(ch.after)
        else:
            rows.remove(hits[0])
    return state, counts


@pytest.mark.parametrize("name", sorted(PASSES))
def test_replayed_changes_are_the_servers_tables(passes, name):
    doc = passes[name]
    state, counts = replay(doc)
    assert counts["insert"] > 80 and counts["update"] > 30 and counts["delete"] > 20, counts
    checked = collections.Counter()
    problems = []
    for table, t in sorted(doc["tables"].items()):
        cols = t["columns"]
        tm = next(c.tm for c in changes_of(doc) if c.table == table)
        assert [c.name for c in tm.columns if c.name] in ([], [s["name"] for s in cols])
        ours = sorted((tuple(norm_ours(tm.columns[i], s, row.get(i)) for i, s in enumerate(cols))
                       for row in state[table]), key=repr)
        server = sorted((tuple(norm_server(tm.columns[i], s, v) for i, (s, v) in
                               enumerate(zip(cols, row))) for row in t["rows"]), key=repr)
        if ours != server:
            extra = [r for r in ours if r not in server][:1]
            missing = [r for r in server if r not in ours][:1]
            problems.append(f"{table}: ours-only {extra!r:.600} server-only {missing!r:.600}")
        for s in cols:
            checked[family(s)] += len(t["rows"])
    assert not problems, "\n".join(problems)
    # every family of values was compared on rows that are there at the end
    for f in ("integer", "decimal", "float", "double", "date", "time", "datetime", "timestamp",
              "text", "binary", "fixed_binary", "enum", "set", "geometry"):
        assert checked[f] > 0, f


def test_text_is_what_the_server_reads(passes):
    """Character columns: where we decode the bytes to text, it is the text the server reads
    (CONVERT(c USING utf8mb4)); bytes that do not decode stay bytes (lossless)."""
    doc = passes["rows-full-full"]
    state, _ = replay(doc)
    compared, problems = 0, []
    for table, t in doc["tables"].items():
        cols = t["columns"]
        tm = next(c.tm for c in changes_of(doc) if c.table == table)
        by_key = {}
        for row in t["rows"]:
            key = tuple(norm_server(tm.columns[i], s, v) for i, (s, v) in
                        enumerate(zip(cols, row)))
            by_key[key] = row
        for row in state[table]:
            key = tuple(norm_ours(tm.columns[i], s, row.get(i)) for i, s in enumerate(cols))
            srow = by_key[key]
            for i, s in enumerate(cols):
                v = row.get(i)
                v = v.data if isinstance(v, Compressed) else v
                if family(s) != "text" or not isinstance(v, str):
                    continue
                server_text = bytes.fromhex(srow[i][1]).decode("utf-8")
                compared += 1
                if v != server_text:
                    problems.append(f"{table}.{s['name']} ({s['collation']}): ours {v!r:.60}, "
                                    f"server {server_text!r:.60}")
    assert compared > 100
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------------ (c) mariadb-binlog


def mariadb_binlog_rows(path):
    """(operation, table, [images]) per row of ``mariadb-binlog --verbose`` output; an image
    is {column number (1-based): the printed value as bytes}."""
    out = subprocess.run(["mariadb-binlog", "--no-defaults", "--verbose",
                          "--base64-output=decode-rows", str(path)],
                         capture_output=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    rows, image = [], None
    for line in out.stdout.split(b"\n"):
        if not line.startswith(b"### "):
            continue
        m = re.match(rb"### (INSERT INTO|UPDATE|DELETE FROM) `([^`]*)`\.`([^`]*)`$", line)
        if m:
            op = {b"INSERT INTO": "insert", b"UPDATE": "update", b"DELETE FROM": "delete"}[
                m.group(1)]
            rows.append((op, m.group(2).decode(), m.group(3).decode(), []))
            continue
        if line in (b"### SET", b"### WHERE"):
            image = {}
            rows[-1][3].append(image)
            continue
        m = re.match(rb"###   @(\d+)=(.*)$", line, re.S)
        assert m, line[:200]
        image[int(m.group(1))] = m.group(2)
    return rows


def _quoted(raw: bytes) -> bytes:
    """A string value the way mariadb-binlog prints it: quoted, bytes below 0x20 as \\xNN,
    everything else (quotes and backslashes included) as is."""
    return b"'" + b"".join(b"\\x%02x" % b if b < 0x20 else bytes([b]) for b in raw) + b"'"


def printed_form(col, v, printed):
    """(family, our value in mariadb-binlog's form, its printed value normalised) for one
    column value. Where mariadb-binlog prints differently, the printed text is normalised:
    DATE 'YYYY:MM:DD', TIMESTAMP as Unix seconds, ENUM as its index, SET as b'bits', unsigned
    integers as 'signed (unsigned)', YEAR 0000 as 1900, FLOAT with %g, DOUBLE with %.20g, a SET
    of more than 8 members as its stored bytes in little-endian order."""
    ty = col.type
    kind = col.real_type if col.real_type in ("ENUM", "SET") else ty
    text = printed.decode("latin-1")
    if v is None:
        return "null", "NULL", text
    if kind in ("TINY", "SHORT", "INT24", "LONG", "LONGLONG"):
        m = re.fullmatch(r"(-?\d+)(?: \((\d+)\))?", text)
        return "integer", v, int(m.group(2)) if col.unsigned and m.group(2) else int(m.group(1))
    if kind == "YEAR":
        # mariadb-binlog prints 1900 + the stored byte: the zero year 0000 comes out as 1900
        return "integer", v, 0 if text == "1900" else int(text)
    if kind == "NEWDECIMAL":
        return "decimal", format(v, "f"), text
    if kind == "FLOAT":
        return "float", "%g" % v, text.rstrip()
    if kind == "DOUBLE":
        return "float", "%.20g" % v, text
    if kind == "BIT":
        return "bit", v, int(text[2:-1], 2)
    if kind in ("DATE", "NEWDATE"):
        return "temporal", v.isoformat(), text.strip("'").replace(":", "-")
    if kind in ("TIME", "TIME2"):
        return "temporal", (v.negative, v.hour, v.minute, v.second, v.microsecond), \
            _time_tuple(text.strip("'"))
    if kind in ("DATETIME", "DATETIME2"):
        return "temporal", (v.year, v.month, v.day, v.hour, v.minute, v.second,
                            v.microsecond), _datetime_tuple(text.strip("'"))
    if kind in ("TIMESTAMP", "TIMESTAMP2"):
        return "temporal", (v.seconds, v.microsecond), _seconds_tuple(text)
    if kind == "ENUM":
        return "enum_set", v.index, int(text)
    if kind == "SET":
        # the stored bytes in storage (little-endian) order, each as 8 bits
        bits = text[2:-1]
        return "enum_set", v.bits, int.from_bytes(int(bits, 2).to_bytes(len(bits) // 8, "big"),
                                                  "little")
    if kind == "GEOMETRY":
        raw = v.srid.to_bytes(4, "little") + v.wkb
    elif isinstance(v, Compressed):
        raw = v.stored  # mariadb-binlog prints the stored (compressed) bytes
    else:
        raw = _raw_bytes(col, v)
    return "string", _quoted(raw), printed


@pytest.mark.parametrize("name", sorted(PASSES))
def test_values_agree_with_mariadb_binlog(passes, name):
    if not shutil.which("mariadb-binlog"):
        msg = "mariadb-binlog not installed: comparison with it not run"
        unavailable(msg)
    doc = passes[name]
    theirs = [r for path in doc["files"] for r in mariadb_binlog_rows(path) if r[1] == DB]
    ours = changes_of(doc)
    assert len(theirs) == len(ours) > 150
    compared = collections.Counter()
    problems = []
    for ch, (op, _, table, images) in zip(ours, theirs):
        assert (ch.op, ch.table) == (op, table)
        mine = [ch.before, ch.after] if op == "update" else [ch.after or ch.before]
        assert len(images) == len(mine)
        for img, printed in zip(mine, images):
            assert {i + 1 for i in img} == set(printed), (table, sorted(img), sorted(printed))
            for i, v in img.items():
                fam, want, got = printed_form(ch.tm.columns[i], v, printed[i + 1])
                compared[fam] += 1
                if want != got:
                    problems.append(f"{table} @{i + 1} ({ch.tm.columns[i].type}): ours "
                                    f"{want!r:.80}, mariadb-binlog {got!r:.80}")
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems[:20])
    for fam in ("integer", "decimal", "float", "bit", "temporal", "enum_set", "string", "null"):
        assert compared[fam] > 10, (fam, compared)


# ------------------------------------------------------------------------ (d) absent columns


def _present(rec, key):
    body = rec.value["body"]
    bits = body[key][:body["column_count"]]
    return {i for i, b in enumerate(bits) if b}


@pytest.mark.parametrize("image", ["minimal", "noblob"])
def test_absent_columns_are_absent_not_null(passes, image):
    full = changes_of(passes["rows-full-full"])
    part = changes_of(passes[f"rows-{image}-full"])
    assert [(c.op, c.table) for c in full] == [(c.op, c.table) for c in part]
    absent = 0
    for f, p in zip(full, part):
        before_bits = _present(p.rec, "columns_present")
        after_bits = _present(p.rec, "columns_after") if p.op == "update" else before_bits
        if p.before is not None:
            assert set(p.before) == before_bits
        if p.after is not None:
            assert set(p.after) == after_bits
        for fi, pi in ((f.before, p.before), (f.after, p.after)):
            if fi is None:
                continue
            assert set(pi) <= set(fi) == set(range(len(f.tm.columns)))
            for k in pi:                      # what is there is what FULL has
                assert pi[k] == fi[k], (p.table, k)
            absent += len(set(fi) - set(pi))
    assert absent > 100
    # the statement-level facts behind it
    by = collections.defaultdict(list)
    for c in part:
        by[(c.table, c.op)].append(c)
    nulls_insert = by[("t_nulls", "insert")][0]      # INSERT INTO t_nulls (id) VALUES (1)
    blob_update = by[("t_blob", "update")][0]        # UPDATE t_blob SET tag = ... (blobs same)
    blob_cols = {i for i, c in enumerate(blob_update.tm.columns) if c.type == "BLOB"}
    assert blob_cols and not blob_cols & set(blob_update.after)
    if image == "minimal":
        assert nulls_insert.after == {0: 1}
        assert set(by[("t_int", "update")][0].before) == {0}   # the primary key only
    else:
        assert 1 in nulls_insert.after and nulls_insert.after[1] is None
        assert not blob_cols & set(blob_update.before)
        assert len(nulls_insert.after) == len(nulls_insert.tm.columns) - 2   # e BLOB, i JSON


def test_rows_event_kinds(passes):
    kinds = collections.Counter(c.rec.kind for doc in passes.values() for c in changes_of(doc))
    assert set(kinds) <= set(ROWS_KINDS) and len(kinds) == 3, kinds


# ------------------------------------------------------------------------ committed vectors


def test_committed_rows_vectors_are_what_the_server_writes(passes):
    """specs/rows/mariadb.yaml (scripts/make_rows_vectors.py): the row bytes of every vector
    are written again by this server, for the same table and event type in the same pass."""
    written = collections.defaultdict(set)
    for name, doc in passes.items():
        for ch in changes_of(doc):
            body = ch.rec.value["body"]
            rows = body["rows"]["data"] if isinstance(body["rows"], dict) else body["rows"]
            written[(name, ch.table, ch.rec.kind)].add(bytes(rows))
    checked = 0
    for _, _, vec in iter_vectors(ROOT / "specs" / "rows" / "mariadb.yaml"):
        ctx = context_of(vec)
        event = parse_event(hex_bytes(vec["hex"]), ctx)
        table = parse_event(hex_bytes(vec["table_map_hex"]), ctx)["body"]["table"]
        s = vec["settings"]
        name = f"rows-{s['binlog_row_image'].lower()}-{s['binlog_row_metadata'].lower()}"
        body = event["body"]
        rows = body["rows"]["data"] if isinstance(body["rows"], dict) else body["rows"]
        kind = ctx.kind(hex_bytes(vec["hex"])[4])
        assert bytes(rows) in written[(name, table, kind)], vec["name"]
        checked += 1
    assert checked >= 30

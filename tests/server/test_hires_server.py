"""Server tier, MariaDB's hi-res temporal formats: a private MariaDB with
``mysql56_temporal_format=OFF`` stores TIME(n), DATETIME(n), TIMESTAMP(n) (n 1-6) in its old
hi-res layouts, which the binlog logs with the old type codes 11, 12, 7 and no metadata: the
precision is only in the schema (mariadb-binlog cannot decode them). For FULL and MINIMAL
``binlog_row_metadata`` a table of every precision (and the old fsp-0 formats) gets a spread of
values (negative TIME with fractions, TIME beyond 24 h, zero dates and zero parts, minimum and
maximum, NULL), then updates and deletes. Its CREATE TABLE is in a file of its own, before the
rows' file.

Checked against the server's SELECT (in UTC), value by value, every row change replayed in
order (each insert's image is the row after the inserts, each before image the row as the
changes so far left it, the end the final table): ``decode --rows`` (JSON Lines and text) of
both files (the CREATE TABLE in them: the schema history, on by default) and of the rows' file
alone with ``--schema`` (without it the rows stay undecoded, and say why); Maxwell and
Debezium records; ``stream --rows`` from the server; ``sql`` of the files replayed into the
emptied table gives the final table.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys

import pytest

from . import flashback_workload as fw
from ..conftest import ROOT, unavailable

pytestmark = pytest.mark.server

CLI = [sys.executable, "-m", "binlog_schema"]
USER, PASSWORD = "hires", "pw hires"
KINDS = {"t": "TIME", "d": "DATETIME", "s": "TIMESTAMP"}
COLUMNS = [(f"{k}{n}", KINDS[k], n) for k in "tds" for n in range(7)]
NAMES = [name for name, _, _ in COLUMNS]


def _frac(digits: str, n: int) -> str:
    return "." + (digits * 6)[:n] if n else ""


def _value(kind, n, row):
    """Row ``row``'s value of a column of ``kind`` and precision ``n`` (SQL literal)."""
    one = "0" * (n - 1) + "1" if n else ""
    table = {
        "TIME": ["-838:59:59" + _frac("9", n), "838:59:59" + _frac("9", n),
                 "00:00:00" + _frac("0", n), "-00:00:00" + ("." + one if n else ""),
                 "100:00:00" + _frac("5", n), "-25:30:01" + _frac("123456", n)],
        "DATETIME": ["1000-01-01 00:00:00" + ("." + one if n else ""),
                     "9999-12-31 23:59:59" + _frac("9", n), "0000-00-00 00:00:00" + _frac("0", n),
                     "2024-00-15 12:34:56" + _frac("789", n),
                     "2024-02-29 23:59:59" + _frac("5", n), "1969-12-31 23:59:59" + _frac("4", n)],
        "TIMESTAMP": ["1970-01-01 00:00:01" + ("." + one if n else ""),
                      "2038-01-19 03:14:07" + _frac("9", n), "0000-00-00 00:00:00" + _frac("0", n),
                      "2023-11-14 22:13:20" + _frac("123456", n),
                      "2000-02-29 12:00:00" + _frac("5", n),
                      "1999-12-31 23:59:59" + _frac("98", n)],
    }[kind]
    if kind == "TIME" and row == 3 and not n:
        return "NULL"    # (no negative zero at fsp 0)
    return "NULL" if row >= len(table) else f"'{table[row]}'"


def _create(db):
    cols = ", ".join(f"{name} {kind}" + (f"({n})" if n else "") +
                     (" NULL DEFAULT NULL" if kind == "TIMESTAMP" else "")
                     for name, kind, n in COLUMNS)
    return f"CREATE TABLE {db}.t (id INT NOT NULL PRIMARY KEY, {cols}) ENGINE=InnoDB"


def _workload(server, db):
    for row in range(7):
        server.q(f"INSERT INTO {db}.t VALUES ({row + 1}, " + ", ".join(
            _value(kind, n, row) for _, kind, n in COLUMNS) + ")")
    first = _select(server, db)
    # updates: fractions changed in every column, a row set to NULL, a NULL row filled
    server.q(f"UPDATE {db}.t SET " + ", ".join(f"{name} = {_value(kind, n, 5)}"
                                               for name, kind, n in COLUMNS) + " WHERE id = 1")
    server.q(f"UPDATE {db}.t SET " + ", ".join(f"{name} = NULL" for name in NAMES) +
             " WHERE id = 2")
    server.q(f"UPDATE {db}.t SET " + ", ".join(f"{name} = {_value(kind, n, 1)}"
                                               for name, kind, n in COLUMNS) + " WHERE id = 7")
    server.q(f"DELETE FROM {db}.t WHERE id IN (3, 5)")
    return first, _select(server, db)


def _select(server, db):
    """{id: {column: the server's text (UTC) or None}}."""
    rows = server.q("SELECT id, " + ", ".join(f"CAST({n} AS CHAR)" for n in NAMES) +
                    f" FROM {db}.t ORDER BY id")
    return {r[0]: dict(zip(NAMES, r[1:])) for r in rows}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if fw.tool("mariadbd") is None:
        unavailable("mariadbd not installed: hi-res temporal server tier not run")
    try:
        s = fw.Server(f"hires-{os.getpid()}", "--mysql56-temporal-format=OFF",
                      "--binlog-checksum=CRC32")
    except RuntimeError as e:
        unavailable(f"the private MariaDB did not start: hi-res tier not run: {e}")
    env = (ROOT / ".work" / "mariadb" / s.name / "env").read_text().split()
    s.port = int(dict(line.split("=", 1) for line in env if "=" in line)["port"])
    s.q(f"CREATE USER IF NOT EXISTS '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'")
    s.q(f"GRANT ALL ON *.* TO '{USER}'@'%'")
    assert s.q("SELECT @@GLOBAL.mysql56_temporal_format")[0][0] == 0
    out = tmp_path_factory.mktemp("hires")
    s.passes = {}
    for meta in ("FULL", "MINIMAL"):
        db = f"hr_{meta.lower()}"
        s.q(f"SET GLOBAL binlog_row_metadata = {meta}")
        s.q("FLUSH BINARY LOGS")
        ddl_file = s.master_status()[0]
        s.q(f"CREATE DATABASE {db}")
        s.q(_create(db))
        s.q("FLUSH BINARY LOGS")
        rows_file = s.master_status()[0]
        first, last = _workload(s, db)
        s.q("FLUSH BINARY LOGS")
        schema = out / f"{db}.sql"
        schema.write_text(f"CREATE DATABASE {db};\nUSE {db};\n"
                          + s.q(f"SHOW CREATE TABLE {db}.t")[0][1] + ";\n", encoding="utf-8")
        files = []
        for name in (ddl_file, rows_file):
            files.append(out / name)
            files[-1].write_bytes((s.binlog_dir / name).read_bytes())
        s.passes[meta] = dict(db=db, files=files, first=first, last=last, schema=schema,
                              start=ddl_file)
    yield s
    s.destroy()


def _cli(*args):
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env=fw.ENV)


# ------------------------------------------------------------------------ value forms


def _fields(text):
    """(negative, the digits' fields, microseconds) of the server's text of a value."""
    neg = text.startswith("-")
    main, _, frac = text.lstrip("-").partition(".")
    us = int((frac + "000000")[:6]) if frac else 0
    parts = [int(x) for x in main.replace("-", " ").replace(":", " ").split()]
    return neg, parts, us


def _six(us):
    return f".{us:06d}" if us else ""


def jsonl_form(kind, n, text):
    """The JSON Lines (and text) form of the server's value: six fraction digits when there
    is a fraction, TIMESTAMP in UTC with a Z (the zero timestamp without)."""
    if text is None:
        return None
    neg, parts, us = _fields(text)
    main = text.split(".")[0]
    if kind == "TIMESTAMP" and not any(parts) and not us:
        return "0000-00-00 00:00:00"
    return main + _six(us) + ("Z" if kind == "TIMESTAMP" else "")


def maxwell_form(kind, n, text):
    return text   # (as the server shows it: fsp digits, UTC)


def debezium_form(kind, n, text):
    """Debezium's: MicroTime; Timestamp (ms, fsp <= 3) or MicroTimestamp; ZonedTimestamp;
    a zero or invalid date null (the columns are nullable)."""
    if text is None:
        return None
    neg, parts, us = _fields(text)
    if kind == "TIME":
        h, m, s = parts
        v = (h * 3600 + m * 60 + s) * 1_000_000 + us
        return -v if neg else v
    try:
        when = dt.datetime(*parts, tzinfo=dt.timezone.utc)
    except ValueError:
        return None   # (zero date, zero parts)
    if kind == "DATETIME":
        epoch = int((when - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)).total_seconds())
        total = epoch * 1_000_000 + us
        return total // 1000 if n <= 3 else total
    return when.strftime("%Y-%m-%dT%H:%M:%S") + (("." + f"{us:06d}"[:n]) if n else "") + "Z"


def _expected(form, row):
    out = {}
    for name, kind, n in COLUMNS:
        out[name] = form(kind, n, row[name])
    return out


def _check(changes, p, form):
    """Replay ``changes`` ([(op, before, after)], images by column name) in order: each
    image is the server's row at that point, in ``form``; the end is the final table."""
    assert changes, "no row changes decoded"
    state = {}
    first = {i: _expected(form, r) for i, r in p["first"].items()}
    for op, before, after in changes:
        for image in (before, after):
            if image is not None:
                assert set(image) == {"id", *NAMES}, image
        if op == "insert":
            assert {k: v for k, v in after.items() if k != "id"} == first[after["id"]], after
            state[after["id"]] = after
        else:
            assert before == state[before["id"]], (op, before)
            if op == "update":
                state[after["id"]] = after
            else:
                del state[before["id"]]
    last = {i: {"id": i, **_expected(form, r)} for i, r in p["last"].items()}
    assert state == last


def _ops(records):
    """[(op, before, after)] of decode --rows JSON Lines records of the workload's table."""
    out = []
    for d in records:
        if "rows" not in d or d.get("type", "").startswith("TABLE_MAP"):
            continue
        op = {"W": "insert", "U": "update", "D": "delete"}[d["type"][0]]
        for r in d["rows"]:
            if op == "update":
                out.append((op, r["before"], r["after"]))
            else:
                out.append((op, r if op == "delete" else None, r if op == "insert" else None))
    return out


@pytest.fixture(params=["FULL", "MINIMAL"])
def hires(server, request):
    return server.passes[request.param]


def test_decode_rows_with_the_create_table_in_the_files(hires):
    run = _cli("decode", "--rows", *hires["files"])
    assert run.returncode == 0, run.stderr
    _check(_ops(map(json.loads, run.stdout.splitlines())), hires, jsonl_form)


def test_decode_rows_of_the_rows_file_alone(hires):
    """Without its CREATE TABLE the precision is unknown: the rows stay undecoded and say
    why; with --schema they decode."""
    rows_file = hires["files"][1]
    bare = _cli("decode", "--rows", rows_file)
    errors = [json.loads(x)["rows_error"] for x in bare.stdout.splitlines()
              if '"rows_error"' in x]
    assert errors and all("hi-res" in e["message"] for e in errors)
    run = _cli("decode", "--rows", "--schema", hires["schema"], rows_file)
    assert run.returncode == 0, run.stderr
    _check(_ops(map(json.loads, run.stdout.splitlines())), hires, jsonl_form)


def test_text_format(hires):
    run = _cli("decode", "--rows", "--format", "text", *hires["files"])
    assert run.returncode == 0, run.stderr
    changes, op, before = [], None, None
    for line in run.stdout.splitlines():
        if line.startswith("#") and not line.startswith("###"):
            op = next((o for w, o in (("Write_rows:", "insert"), ("Update_rows:", "update"),
                                      ("Delete_rows:", "delete")) if w in line), op)
        elif line.startswith("###   WHERE "):
            before = json.loads(line[len("###   WHERE "):])
        elif line.startswith("###   SET   "):
            changes.append(("update", before, json.loads(line[len("###   SET   "):])))
        elif line.startswith("###   {"):
            image = json.loads(line[len("###   "):])
            changes.append((op, None, image) if op == "insert" else (op, image, None))
    _check(changes, hires, jsonl_form)


def test_maxwell(hires):
    run = _cli("decode", "--format", "maxwell", *hires["files"])
    assert run.returncode == 0, run.stderr
    changes = []
    for d in map(json.loads, run.stdout.splitlines()):
        if d["database"] != hires["db"]:
            continue
        data = d["data"]
        if d["type"] == "update":
            changes.append(("update", {**data, **d["old"]}, data))
        elif d["type"] == "insert":
            changes.append(("insert", None, data))
        else:
            changes.append(("delete", data, None))
    _check(changes, hires, maxwell_form)


def test_debezium(hires):
    run = _cli("decode", "--format", "debezium", *hires["files"])
    assert run.returncode == 0, run.stderr
    ops = {"c": "insert", "u": "update", "d": "delete"}
    changes = [(ops[d["op"]], d["before"], d["after"])
               for d in map(json.loads, run.stdout.splitlines())
               if d["source"]["db"] == hires["db"]]
    _check(changes, hires, debezium_form)


def test_stream(server, hires, tmp_path):
    pw = tmp_path / "pw"
    pw.write_text(PASSWORD + "\n")
    run = _cli("stream", "--port", server.port, "--user", USER, "--password-file", pw,
               "--server-id", "4343", "--file", hires["start"], "--rows",
               "--database", hires["db"])
    assert run.returncode == 0, run.stderr
    _check(_ops(map(json.loads, run.stdout.splitlines())), hires, jsonl_form)


def test_sql_replayed_gives_the_same_table(server, hires):
    run = subprocess.run([*CLI, "sql", *map(str, hires["files"])], capture_output=True,
                         cwd=ROOT, timeout=300, env=fw.ENV)
    assert run.returncode == 0, run.stderr
    db = hires["db"]
    server.q("SET SESSION sql_log_bin = 0")
    try:
        server.q(f"DROP DATABASE {db}")
        server.q(f"CREATE DATABASE {db}")
        server.q(_create(db))
        code, err = server.apply_sql(b"SET sql_log_bin = 0;\n" + run.stdout)
        assert code == 0, err
        assert _select(server, db) == hires["last"]
    finally:
        server.q("SET SESSION sql_log_bin = 1")


def _spark_form(kind, value):
    """A row_changes value (the VALUE struct read back by pyarrow) as the JSON Lines form."""
    if value is None:
        return None
    if value.get("text") is not None:   # (what Spark's types cannot hold: zero dates)
        return value["text"]
    if kind == "TIME":
        t = value["time"]
        us = t.days * 86_400_000_000 + t.seconds * 1_000_000 + t.microseconds
        neg, us = us < 0, abs(us)
        secs, frac = divmod(us, 1_000_000)
        return f"{'-' if neg else ''}{secs // 3600:02d}:{secs // 60 % 60:02d}:{secs % 60:02d}" \
            + _six(frac)
    when = value["datetime" if kind == "DATETIME" else "timestamp"]
    return when.strftime("%Y-%m-%d %H:%M:%S").rjust(19, "0") + _six(when.microsecond) + \
        ("Z" if kind == "TIMESTAMP" else "")


def test_spark_decode_row_tables(server, tmp_path):
    """spark decode of the two files of MINIMAL metadata (names and precisions both from the
    history; one Spark run, for CI's time): its row_changes, replayed, are the server's
    rows."""
    hires = server.passes["MINIMAL"]
    from ..spark.pipeline_support import spark_missing
    why = spark_missing()
    if why is not None:
        unavailable(f"Spark tier of the hi-res test not run: {why}")
    import pyarrow.parquet as pq
    inputs = tmp_path / "in"
    inputs.mkdir()
    for f in hires["files"]:
        (inputs / f.name).write_bytes(f.read_bytes())
    out = tmp_path / "out"
    run = _cli("spark", "decode", inputs, "--out", out, "--quiet")
    assert run.returncode == 0, run.stderr[-3000:]
    kinds = {name: kind for name, kind, _ in COLUMNS}
    rows = sorted((r for r in pq.read_table(out / "row_changes").to_pylist()
                   if r["database"] == hires["db"]),
                  key=lambda r: (r["file"], r["offset"], r["row_index"]))

    def image(pairs):
        if pairs is None:
            return None
        d = dict(pairs)
        return {k: (d[k]["long"] if k == "id" else _spark_form(kinds[k], d[k])) for k in d}
    changes = [(r["operation"], image(r["before"]), image(r["after"])) for r in rows]
    _check(changes, hires, jsonl_form)

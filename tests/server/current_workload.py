"""Support of the current-state server tier (tests/server/test_current_server.py): the binlogs
and snapshots of scripts/make_current_binlogs.sh, ``spark current`` run as a user runs it,
its tables read back (Parquet with pyarrow or Spark; Delta with deltalake or DuckDB), and the
comparison of a table with the server's SELECT, typed, as a multiset of rows.

The truth is the server: scripts/current_snapshot.py writes each table's columns
(information_schema's DATA_TYPE and COLUMN_TYPE, ``json`` for a JSON column) and rows, typed
losslessly. A value read back from our output is compared in one canonical form per column
type (integers as int, DECIMAL as Decimal, FLOAT as the float32 value, strings as str, binary
strings as bytes, DATE/DATETIME as date/naive datetime, TIMESTAMP as a UTC datetime, TIME as
microseconds, JSON parsed), and each column's Arrow type is checked against the type the
command promises.
"""

from __future__ import annotations

import collections
import datetime as dt
import decimal
import json
import os
import pathlib
import re
import struct
import subprocess
import sys
import warnings

from .flashback_workload import ROOT, tool

UTC = dt.timezone.utc
DAY_US = 86_400 * 1_000_000
PASSES = ("full", "minimal")
# tables the workload makes with a statement the schema history refuses: reported (exit
# status 3, a stderr line naming the file, offset, statement and reason), never written
REFUSED = {"bs_current.t_period": "PERIOD FOR"}
INTEGERS = {"tinyint", "smallint", "mediumint", "int", "bigint", "year", "bit"}
STRINGS = {"char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set"}
BINARIES = {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"}


def have_server() -> bool:
    return tool("mariadbd") is not None


# ------------------------------------------------------------------ the workload's files


def workload_binlogs(tmp_path_factory, tier: str, folder: str) -> dict:
    """A server tier's module fixture over the workload: :func:`make_binlogs` in a folder of
    its own; the tier (``tier``: its name in the skip line) skipped loudly where the MariaDB
    server or Spark is missing."""
    from ..conftest import unavailable
    from ..spark.pipeline_support import spark_missing
    if not have_server():
        unavailable(f"mariadbd not installed (apt-get install mariadb-server): {tier} "
                    "server tier not run")
    missing = spark_missing()
    if missing:
        unavailable(f"{tier} server tier not run: {missing}")
    return make_binlogs(tmp_path_factory.mktemp(folder))


def make_binlogs(out_dir) -> dict:
    """Run scripts/make_current_binlogs.sh into ``out_dir``; {pass: {"parts": {"a": [paths],
    "b": [paths]}, "folder": the pass's folder (its files, a and b), "after-a": snapshot,
    "after-b": snapshot, "seconds": s}}."""
    import time
    out_dir = pathlib.Path(out_dir)
    env = dict(os.environ, CURRENT_SERVER_NAME=f"current-test-{os.getpid()}")
    t = time.perf_counter()
    run = subprocess.run(["bash", str(ROOT / "scripts" / "make_current_binlogs.sh"),
                          str(out_dir)], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    seconds = time.perf_counter() - t
    assert run.returncode == 0, run.stderr[-3000:]
    found = {}
    for name in PASSES:
        doc = json.loads((out_dir / f"current-{name}.json").read_text(encoding="utf-8"))
        found[name] = {
            "parts": {p: [out_dir / f for f in files] for p, files in doc["parts"].items()},
            "folder": out_dir / doc["folder"], "databases": doc["databases"],
            "seconds": seconds}
        for state in ("after-a", "after-b"):
            found[name][state] = json.loads(
                (out_dir / f"current-{name}-{state}.json").read_text(encoding="utf-8"))
    return found


def spark_current(inputs, out, *options, env=None, timeout=900, command="current"):
    """``python -m binlog_schema spark current INPUTS --out OUT OPTIONS --master local[2]``
    (or another ``command``: history, changes), run in the repository, output captured."""
    argv = [sys.executable, "-m", "binlog_schema", "spark", command, *map(str, inputs),
            "--out", str(out), *map(str, options), "--master", "local[2]"]
    return subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def stderr_summary(stderr: str, limit: int = 40) -> str:
    """What a command said that matters: its own lines ("binlog-schema ..."), error and
    exception lines (not Java's stack frames, not Spark's start-up chatter), then its last
    lines."""
    lines = [x.rstrip() for x in stderr.splitlines() if x.strip()]
    said = [x for x in lines if x.startswith("binlog-schema") or re.search(
        r"(Error|Exception|Traceback|exit status)", x) and not x.lstrip().startswith("at ")]
    tail = [x for x in lines[-8:] if not x.lstrip().startswith("at ") and x not in said]
    return "\n".join(f"    {x[:600]}" for x in (said[:limit] + tail))


def status_problems(rc: int, stderr: str, what: str, command: str = "current") -> list:
    """What is wrong with a run's exit: the workload's refused statement makes it 3, with
    one stderr line per refused table (file, offset, the statement, the reason), and the
    changes of its rows said as changes of a table not known; any other problem line, or
    another status, is wrong."""
    from binlog_schema.output.statuses import DAMAGED
    lines = [x for x in stderr.splitlines()
             if x.startswith(f"binlog-schema spark {command}:")]
    problems = []
    for table, words in REFUSED.items():
        said = [x for x in lines if f" {table}: " in x and "schema statement refused" in x
                and words in x and re.search(r"mariadb-bin\.\d+: at \d+: ", x)]
        if len(said) != 1:
            problems.append(f"{what}: the refusal of {table} ({words}) said {len(said)} "
                            "times, not once, as file: at offset: statement, reason")
        lines = [x for x in lines if x not in said]
    if rc != DAMAGED:
        problems.append(f"{what}: exit status {rc}, not {DAMAGED}")
    # (row changes of a refused table: said too, as changes of a table not known there)
    problems += [f"{what}: {x}" for x in lines if not any(f" {t}: " in x for t in REFUSED)]
    return problems


def output_tables(out) -> list:
    """The "db.table" names of a run's output: the folders DIR/<database>/<table>/ (names
    starting with "_" or "." are the command's own)."""
    out = pathlib.Path(out)
    found = []
    for db in sorted(out.iterdir()):
        if not db.is_dir() or db.name.startswith(("_", ".")):
            continue
        for table in sorted(db.iterdir()):
            if table.is_dir() and not table.name.startswith(("_", ".")):
                found.append(f"{db.name}.{table.name}")
    return found


def table_dir(out, name) -> str:
    db, table = name.split(".", 1)
    return str(pathlib.Path(out) / db / table)


def state_doc(out) -> dict:
    """A run's state.json (an assertion error when it wrote none)."""
    path = pathlib.Path(out) / "_binlog_schema" / "state.json"
    assert path.exists(), f"{out}: no _binlog_schema/state.json"
    return json.loads(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ reading our tables


def read_parquet(path):
    """(Arrow schema, rows as dicts) of a Parquet table folder, with pyarrow.dataset."""
    import pyarrow.dataset as ds
    t = ds.dataset(path, format="parquet").to_table()
    return t.schema, t.to_pylist()


def read_delta(path):
    """(Arrow schema, rows) of a Delta table, with deltalake."""
    from deltalake import DeltaTable
    t = DeltaTable(path).to_pyarrow_table()
    return t.schema, t.to_pylist()


_DUCKDB_HOW = {}


def duckdb_delta_files(path) -> tuple:
    """(the data files of a Delta table's current version, its partition columns), by
    replaying its ``_delta_log`` (a checkpoint, then the JSON commits after it)."""
    log = pathlib.Path(path) / "_delta_log"
    live, partitions, start = {}, [], -1
    last = log / "_last_checkpoint"
    if last.exists():
        import pyarrow.parquet as pq
        cp = json.loads(last.read_text())
        start = int(cp["version"])
        parts = sorted(log.glob(f"{start:020d}.checkpoint*.parquet"))
        for part in parts:
            for row in pq.read_table(part).to_pylist():
                if row.get("add"):
                    live[row["add"]["path"]] = True
                if row.get("metaData"):
                    partitions = list(row["metaData"].get("partitionColumns") or [])
    for commit in sorted(log.glob("*.json")):
        if int(commit.stem) <= start:
            continue
        for line in commit.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            action = json.loads(line)
            if "add" in action:
                live[action["add"]["path"]] = True
            elif "remove" in action:
                live.pop(action["remove"]["path"], None)
            elif "metaData" in action:
                partitions = list(action["metaData"].get("partitionColumns") or [])
    from urllib.parse import unquote
    return [os.path.join(path, unquote(p)) for p in live], partitions


def read_delta_duckdb(path):
    """(Arrow schema, rows) of a Delta table read by DuckDB: ``delta_scan`` when DuckDB's
    delta extension loads without a download, else the Parquet files the Delta log lists
    (said in a warning, once)."""
    import duckdb
    con = duckdb.connect()
    con.execute("SET autoinstall_known_extensions = false")
    con.execute("SET TimeZone = 'UTC'")
    if "how" not in _DUCKDB_HOW:
        try:
            con.execute("LOAD delta")
            _DUCKDB_HOW["how"] = "delta_scan"
        except duckdb.Error as e:
            _DUCKDB_HOW["how"] = "log"
            warnings.warn("DuckDB's delta extension is not available offline "
                          f"({str(e).splitlines()[0]}): DuckDB reads the Parquet files that "
                          "the Delta log lists (read_parquet), not delta_scan")
    elif _DUCKDB_HOW["how"] == "delta_scan":
        con.execute("LOAD delta")
    if _DUCKDB_HOW["how"] == "delta_scan":
        res = con.execute("SELECT * FROM delta_scan(?)", [str(path)])
    else:
        files, partitions = duckdb_delta_files(path)
        if not files:
            return None, []
        res = con.execute("SELECT * FROM read_parquet(?, hive_partitioning = ?)",
                          [files, bool(partitions)])
    t = res.to_arrow_table() if hasattr(res, "to_arrow_table") else res.fetch_arrow_table()
    con.close()
    return t.schema, t.to_pylist()


def read_iceberg(path, snapshot_id=None):
    """(Arrow schema, rows) of an Iceberg table of a run's output (``OUT/<db>/<table>``, its
    catalog in OUT), with pyiceberg: the current snapshot, or ``snapshot_id``."""
    from binlog_schema.pipeline.tables import iceberg
    p = pathlib.Path(path)
    t = iceberg.read_arrow(str(p.parent.parent), (p.parent.name, p.name), snapshot_id)
    return t.schema, t.to_pylist()


def read_iceberg_duckdb(path):
    """(Arrow schema, rows) of an Iceberg table read by DuckDB through pyiceberg's scan plan
    (``scan().to_duckdb``): DuckDB's own iceberg extension is downloaded on first use, which
    this tier does not do."""
    from binlog_schema.pipeline.tables import iceberg
    p = pathlib.Path(path)
    table = iceberg.load(str(p.parent.parent), (p.parent.name, p.name))
    con = table.scan().to_duckdb("t")
    con.execute("SET TimeZone = 'UTC'")
    res = con.execute("SELECT * FROM t")
    t = res.to_arrow_table() if hasattr(res, "to_arrow_table") else res.fetch_arrow_table()
    con.close()
    return t.schema, t.to_pylist()


def duckdb_how() -> str:
    return _DUCKDB_HOW.get("how", "not used")


# ------------------------------------------------------------------ canonical values


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def canonical_json(text: str) -> str:
    return json.dumps(json.loads(text), sort_keys=True, ensure_ascii=False)


def want_value(v, col):
    """A server value (current_snapshot.py's JSON) in its canonical form."""
    ty = col["type"]
    if v is None:
        return None
    if ty in INTEGERS or ty == "time":
        return int(v)
    if ty == "decimal":
        return decimal.Decimal(v)
    if ty == "float":
        return f32(v)
    if ty == "double":
        return float(v)
    if ty == "json":
        return canonical_json(v)
    if ty in BINARIES:
        return bytes.fromhex(v)
    if ty == "date":
        return dt.date.fromisoformat(v)
    if ty in ("datetime", "timestamp"):
        return dt.datetime.fromisoformat(v)
    return v


def _micros(v):
    if isinstance(v, dt.timedelta):
        return (v.days * 86_400 + v.seconds) * 1_000_000 + v.microseconds
    if isinstance(v, dt.time):
        return ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    return ("not a TIME value", repr(v))


def got_value(v, col):
    """A value read back from our output in the same canonical form (a value of the wrong
    kind stays itself, so that it compares unequal)."""
    ty = col["type"]
    if v is None:
        return None
    if ty in INTEGERS:
        if isinstance(v, decimal.Decimal) and v == v.to_integral_value():
            return int(v)
        return v
    if ty == "time":
        return _micros(v)
    if ty == "json":
        try:
            return canonical_json(v)
        except (TypeError, ValueError):
            return ("not JSON", v)
    if ty in BINARIES and isinstance(v, (bytearray, memoryview)):
        return bytes(v)
    if ty == "timestamp" and isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(UTC)
    return v


# ------------------------------------------------------------------ types


def _decimal_of(column_type):
    m = re.match(r"decimal\((\d+),(\d+)\)", column_type)
    return (int(m.group(1)), int(m.group(2))) if m else None


def type_problem(arrow_type, col, rows, index, time_forms):
    """Why an output column's Arrow type is not the promised one (None: it is). ``time_forms``:
    the forms a TIME column may take ("parquet": time64('us') when every value of the column
    lies within one day, else Spark's day-time interval, which its Parquet writer stores as
    int64 microseconds (or duration('us')); "any": int64 microseconds, time64 or
    duration)."""
    import pyarrow as pa
    ty, ctype = col["type"], col["column_type"].lower()
    if ty == "bigint" and "unsigned" in ctype:
        want = "decimal(20,0)"
        ok = pa.types.is_decimal(arrow_type) and (arrow_type.precision, arrow_type.scale) == (
            20, 0)
    elif ty in INTEGERS:
        want, ok = "int64", arrow_type == pa.int64()
    elif ty == "decimal":
        p, s = _decimal_of(ctype)
        want = f"decimal({p},{s})"
        ok = pa.types.is_decimal(arrow_type) and (arrow_type.precision, arrow_type.scale) == (
            p, s)
    elif ty in ("float", "double"):
        want, ok = "double", arrow_type == pa.float64()
    elif ty in STRINGS or ty == "json":
        want = "string"
        ok = (pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)
              or getattr(pa.types, "is_string_view", lambda _: False)(arrow_type))
    elif ty in BINARIES:
        want = "binary"
        ok = (pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type)
              or getattr(pa.types, "is_binary_view", lambda _: False)(arrow_type))
    elif ty == "date":
        want, ok = "date32", arrow_type == pa.date32()
    elif ty == "datetime":
        want, ok = "timestamp('us') without time zone", arrow_type == pa.timestamp("us")
    elif ty == "timestamp":
        want = "timestamp with time zone UTC"
        ok = pa.types.is_timestamp(arrow_type) and arrow_type.tz in ("UTC", "+00:00",
                                                                      "Etc/UTC")
    elif ty == "time":
        values = [r[index] for r in rows if r[index] is not None]
        in_day = all(0 <= v < DAY_US for v in values)
        if time_forms == "parquet":   # (Spark writes its day-time interval as INT64)
            want = "time64('us')" if in_day else "a day-time interval (int64 or duration)"
            ok = arrow_type == pa.time64("us") if in_day else \
                arrow_type in (pa.int64(), pa.duration("us"))
        else:
            want = "int64 microseconds, time64('us') or duration('us')"
            ok = arrow_type in (pa.int64(), pa.duration("us")) or (
                arrow_type == pa.time64("us") and in_day)
    else:
        return f"no promised type for {ty}"
    return None if ok else f"{arrow_type} (promised: {want})"


# ------------------------------------------------------------------ the comparison


def _show(v):
    if isinstance(v, bytes):
        return "0x" + v.hex()
    return repr(v)


def _row(names, values):
    return "{" + ", ".join(f"{n}={_show(v)}" for n, v in zip(names, values)) + "}"


def compare_table(name, schema, rows, want, *, time_forms="parquet", check_types=True):
    """Problems (strings) between a table read back (Arrow schema and dict rows) and the
    server's table ``want`` (current_snapshot.py's entry): the columns (ours: the source
    table's in order, then "_" columns), their types, and the rows as multisets, every
    column (a keyed table's differences named by key and column)."""
    cols = want["columns"]
    names = [c["name"] for c in cols]
    problems = []
    if schema is None:
        got_names = []
    else:
        got_names = list(schema.names)
    data = [n for n in got_names if not n.startswith("_")]
    if data != names:
        problems.append(f"{name}: columns {data} (server: {names})")
    if got_names != data + [n for n in got_names if n.startswith("_")]:
        problems.append(f"{name}: the '_' columns are not after the table's: {got_names}")
    if schema is not None and "_order_key" not in got_names:
        problems.append(f"{name}: no _order_key column (columns {got_names})")
    present = [c for c in cols if c["name"] in got_names]
    want_rows = [[want_value(v, c) for v, c in zip(r, cols)] for r in want["rows"]]
    if check_types and schema is not None:
        import pyarrow as pa
        if "_order_key" in got_names:
            t = schema.field("_order_key").type
            if not (pa.types.is_string(t) or pa.types.is_large_string(t)):
                problems.append(f"{name}._order_key: {t}, not a string")
        for i, c in enumerate(cols):
            if c["name"] in got_names:
                p = type_problem(schema.field(c["name"]).type, c, want_rows, i, time_forms)
                if p:
                    problems.append(f"{name}.{c['name']} ({c['column_type']}): type {p}")
    idx = [names.index(c["name"]) for c in present]
    want_t = [tuple(r[i] for i in idx) for r in want_rows]
    got_t = [tuple(got_value(r[c["name"]], c) for c in present) for r in rows]
    if collections.Counter(want_t) == collections.Counter(got_t):
        return problems
    problems.append(f"{name}: rows differ ({len(got_t)} rows, server {len(want_t)})")
    pk = [names.index(k) for k in want["primary_key"] if k in [c["name"] for c in present]]
    shown = [c["name"] for c in present]
    if pk and len(pk) == len(want["primary_key"]):
        key = [idx.index(i) for i in pk]
        mine = collections.defaultdict(list)
        for r in got_t:
            mine[tuple(r[k] for k in key)].append(r)
        theirs = {tuple(r[k] for k in key): r for r in want_t}
        n = 0
        for k, w in theirs.items():
            g = mine.get(k, [])
            if len(g) == 1 and g[0] == w:
                continue
            n += 1
            if n > 12:
                continue
            if not g:
                problems.append(f"  key {k}: missing from ours; server row {_row(shown, w)}")
            elif len(g) > 1:
                problems.append(f"  key {k}: {len(g)} rows in ours")
            else:
                diff = {c: f"ours {_show(a)} != server {_show(b)}"
                        for c, a, b in zip(shown, g[0], w) if a != b}
                problems.append(f"  key {k}: {diff}")
        for k, g in mine.items():
            if k not in theirs:
                n += 1
                if n <= 12:
                    problems.append(f"  key {k}: only in ours: {_row(shown, g[0])}")
        if n > 12:
            problems.append(f"  ... {n - 12} more keys differ")
    else:
        extra = collections.Counter(got_t) - collections.Counter(want_t)
        lack = collections.Counter(want_t) - collections.Counter(got_t)
        for label, diff in (("only in ours", extra), ("only on the server", lack)):
            for r, times in list(diff.items())[:8]:
                problems.append(f"  {label} (x{times}): {_row(shown, r)}")
    return problems


def compare_output(out, snapshot, reader=read_parquet, **kw):
    """Problems between a whole run's output and a server snapshot: the set of tables (but
    those of :data:`REFUSED`, which are never written), then every table."""
    problems = []
    got = set(output_tables(out))
    want = set(snapshot["tables"]) - set(REFUSED)
    if got != want:
        problems.append(f"tables: only in ours {sorted(got - want)}, only on the server "
                        f"{sorted(want - got)}")
    for name in sorted(want & got):
        schema, rows = reader(table_dir(out, name))
        problems += compare_table(name, schema, rows, snapshot["tables"][name], **kw)
    return problems


def versions_at(at: int, reader=read_parquet):
    """A reader of ``spark history`` tables: (schema, the versions held at second ``at``:
    ``_valid_from <= at < _valid_to``, or ``_valid_to`` null)."""
    import datetime as dt
    t = dt.datetime.fromtimestamp(int(at), dt.timezone.utc)

    def read(path):
        schema, rows = reader(path)
        return schema, [r for r in rows if r["_valid_from"] <= t and
                        (r["_valid_to"] is None or t < r["_valid_to"])]
    return read


def data_rows(out, name, reader=read_parquet, keep=("_order_key",)):
    """A table's rows as a sorted list of tuples: its columns and the ``keep`` ones (for
    comparing two runs' outputs exactly)."""
    schema, rows = reader(table_dir(out, name))
    cols = [n for n in schema.names if not n.startswith("_") or n in keep]
    return cols, sorted(tuple(repr(r[c]) for c in cols) for r in rows)

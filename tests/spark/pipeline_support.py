"""Single-process references for the pipeline tests, and the comparison of a pipeline row
(a dict read from Arrow/Parquet, a Row collected from Spark, or a tuple of the spark engine
in Spark's internal form) with a RowChange."""

from __future__ import annotations

import datetime as dt
import decimal
import json

from binlog_schema.format.errors import BinlogError
from binlog_schema.changes.row_change import RowDecoder, column_names
from binlog_schema.format.forms.json_safe import jsonable
from binlog_schema.format.stream import BinlogReader
from binlog_schema.format.values import temporal
from binlog_schema.format.values.codecs import Compressed, EnumValue, Geometry, SetValue

UTC = dt.timezone.utc
EPOCH = dt.datetime(1970, 1, 1)
FIELDS = ("long", "decimal", "double", "string", "binary", "date", "datetime", "timestamp",
          "time", "vector", "json", "text")


def spark_missing():
    """Why the Spark tier cannot run here (None: it can): pyspark, pyarrow and Java 17+."""
    try:
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError as e:
        return f"{e.name} is not installed (scripts/setup.sh installs .[spark])"
    from binlog_schema.pipeline.driver.session import find_java
    if not find_java():
        return "no java on PATH or JAVA_HOME (Spark needs Java 17+; scripts/setup.sh finds one)"
    return None


def reference_rows(path, schema=None, file_index: int = 0, problems=None):
    """[(RowChange, JSON column names)] of a file: RowDecoder over BinlogReader, the way a
    single process decodes it (reading with recovery, as the pipeline's splits do: skipped
    ranges and events with an error skipped, a rows event that cannot be decoded skipped).
    ``schema``: the schema history in force at the file's start (``file_index``: its place
    among the files it follows), as ``decode --rows`` and the pipeline follow it;
    ``problems``: a list the schema problems (a table map the history disagrees with) are
    appended to, as (path, offset)."""
    dec = RowDecoder(path, schema=schema, file_index=file_index, on_problem=None if problems is None
                     else lambda e: problems.append((str(path), e.offset)))
    out = []
    reader = BinlogReader(path, skip_errors=True, decode="lazy")
    try:
        for rec in reader:
            for r in [rec] + list(rec.inner or ()):
                if r.inner is not None or r.gap is not None or r.error is not None:
                    continue
                try:
                    changes = dec.feed(r)
                except BinlogError:
                    continue
                if changes:
                    tm = dec.table_maps[r.value["body"]["table_id"]]
                    js = set() if tm.flavor == "mariadb" else {
                        name for name, c in zip(column_names(tm), tm.columns)
                        if c.type == "JSON"}
                    out += [(ch, js) for ch in changes]
    except BinlogError:
        pass
    return out


def reference_counts(path):
    """(events read, decoded, quarantined, file refused) of a file, single process, as the
    pipeline counts them: every record of the recovering reader is read (an event, each
    event inside a payload that decoded, a skipped range: a truncated last event among
    them); quarantined: a skipped range, an event with an error (one inside a payload too);
    refused: not a binlog (no magic number)."""
    read = decoded = quarantined = 0
    refused = False
    reader = BinlogReader(path, skip_errors=True)
    try:
        for rec in reader:
            read += 1
            if rec.error is not None:
                quarantined += 1
                continue
            decoded += 1
            for r in rec.inner or ():
                read += 1
                if r.error is not None:
                    quarantined += 1
                else:
                    decoded += 1
    except BinlogError:
        refused = True
    if reader.tail is not None and reader.tail.offset == 0:
        refused = True   # (an empty file, a magic number cut short)
    return read, decoded, quarantined, refused


def reference_records(path):
    """The single-process account of a file (``BinlogReader(path, skip_errors=True)``, with
    recovery): ``events``, [(offset, type name)] of the events decoded (file level);
    ``problems``, [(offset, size)] of the quarantined events and skipped ranges; ``inner``,
    [(payload offset, offset, type name)] of the events decoded inside payloads."""
    events, problems, inner = [], [], []
    for rec in BinlogReader(path, skip_errors=True):
        if rec.gap is not None:
            problems.append((rec.gap[0], rec.gap[1] - rec.gap[0]))
        elif rec.error is not None:
            problems.append((rec.offset, len(rec.raw)))
        else:
            events.append((rec.offset, rec.type_name))
            inner += [(rec.offset, r.offset, r.type_name) for r in rec.inner or ()
                      if r.error is None]
    return {"events": events, "problems": problems, "inner": inner}


def _fits(d: decimal.Decimal) -> bool:
    with decimal.localcontext() as c:
        c.prec = 100
        return abs(d) < 10 ** 20 and d == d.quantize(decimal.Decimal(1).scaleb(-18))


def expected(v, json_column=False):
    """The non-null fields of the Value struct a column value must give (Python objects)."""
    if v is None:
        return None
    if json_column:
        return {"json": json.dumps(jsonable(v), ensure_ascii=False, separators=(",", ":"),
                                   default=str)}
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, float) and type(v) is not float:  # a NaN that keeps its stored bits
        v = float(v)
    if type(v) is int:
        if -(1 << 63) <= v < (1 << 63):
            return {"long": v}
        return {"decimal": decimal.Decimal(v)} if _fits(decimal.Decimal(v)) else {"text": str(v)}
    if type(v) is float:
        return {"double": v}
    if type(v) is decimal.Decimal:
        return {"decimal": v} if _fits(v) else {"text": str(v)}
    if type(v) is str:
        return {"string": v}
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"binary": bytes(v)}
    if isinstance(v, temporal.Date):
        p = v.to_python()
        return {"date": p} if p else {"text": v.isoformat()}
    if isinstance(v, temporal.DateTime):
        p = v.to_python()
        return {"datetime": p} if p else {"text": v.isoformat()}
    if isinstance(v, temporal.Timestamp):
        p = v.to_python()
        return {"timestamp": p} if p else {"text": "0000-00-00 00:00:00"}
    if isinstance(v, temporal.Time):
        return {"time": v.to_python()}
    if isinstance(v, EnumValue):
        return {k: x for k, x in (("long", v.index), ("string", v.name)) if x is not None}
    if isinstance(v, SetValue):
        out = {"long": v.bits} if v.bits < (1 << 63) else {"decimal": decimal.Decimal(v.bits)}
        if v.names is not None:
            out["string"] = ",".join(v.names)
        return out
    if isinstance(v, Geometry):
        return {"long": v.srid, "binary": bytes(v.wkb)}
    if isinstance(v, Compressed):
        return expected(v.data)
    if isinstance(v, list) and all(isinstance(x, (int, float)) for x in v):
        return {"vector": [float(x) for x in v]}
    return {"json": json.dumps(jsonable(v), ensure_ascii=False, separators=(",", ":"),
                               default=str)}


def got_fields(value, internal: bool = False):
    """The non-null fields of a Value struct as Python objects."""
    if value is None:
        return None
    if internal:
        d = dict(zip(FIELDS, value))
        conv = {"date": lambda x: dt.date(1970, 1, 1) + dt.timedelta(days=x),
                "datetime": lambda x: EPOCH + dt.timedelta(microseconds=x),
                "timestamp": lambda x: (EPOCH + dt.timedelta(microseconds=x)).replace(
                    tzinfo=UTC),
                "time": lambda x: dt.timedelta(microseconds=x)}
    else:  # a Row from Spark, or a dict from pyarrow
        d = value.asDict() if hasattr(value, "asDict") else dict(value)
        conv = {"timestamp": lambda x: x.astimezone(UTC)}  # Spark gives local naive times
    return {k: conv.get(k, lambda x: x)(x) for k, x in d.items() if x is not None}


def _name(x):
    return x if isinstance(x, str) or x is None else bytes(x).decode("utf-8", "backslashreplace")


def same_row(got, want, internal: bool = False):
    """Assert that a pipeline row_changes row equals a single-process RowChange."""
    ch, json_cols = want
    if internal:
        (file, offset, _inner, gtid, ts, database, table, op, idx, before, after, signed,
         _etype) = got[:13]
        ts = None if ts is None else ts // 1_000_000
    else:
        file, offset, gtid, database, table = (got["file"], got["offset"], got["gtid"],
                                               got["database"], got["table"])
        op, idx, before, after, signed = (got["operation"], got["row_index"], got["before"],
                                          got["after"], got["signedness_known"])
        ts = None if got["timestamp"] is None else int(got["timestamp"].timestamp())
    where = f"{file}@{offset}#{idx}"
    assert (offset, gtid, ts, database, table, op, idx, signed) == (
        ch.offset, ch.gtid, ch.timestamp, _name(ch.database), _name(ch.table), ch.operation,
        ch.row_index, ch.signedness_known), where
    for side, img in (("before", ch.before), ("after", ch.after)):
        g = before if side == "before" else after
        if img is None:
            assert g is None, where
            continue
        g = dict(g)
        assert set(g) == {k for k in img}, (where, side)
        for k, v in img.items():
            assert _nan(got_fields(g[k], internal)) == _nan(expected(v, k in json_cols)), (
                where, side, k)


def _nan(fields):
    """NaN compares unequal to itself: give it a stand-in for the comparison."""
    if not fields:
        return fields
    return {k: "NaN" if isinstance(x, float) and x != x else x for k, x in fields.items()}


# ---------------------------------------------------------------------------------------
# the shop: a known schema for the pipeline tests, written by binlog_schema.synthetic

SHOP_SERVERS = {"mysql": "mysql-8.0", "mariadb": "mariadb-10.11"}
BASE_TS = 1_700_000_000


ORDERS = [  # (the DDL half-way adds ``note VARCHAR(32)``)
    {"name": "id", "type": "BIGINT", "unsigned": True, "nullable": False},
    {"name": "qty", "type": "INT", "nullable": False},
    {"name": "price", "type": "DECIMAL(12,2)", "nullable": False},
    {"name": "name", "type": "VARCHAR(64)", "charset": "utf8mb4"},
    {"name": "created", "type": "DATETIME(6)", "nullable": False},
    {"name": "paid", "type": "TIMESTAMP(3)", "nullable": True},
    {"name": "day", "type": "DATE"},
    {"name": "score", "type": "DOUBLE"},
    {"name": "data", "type": "BLOB"}]


def shop_spec(seed: int = 0, flavor: str = "mysql", transactions: int = 200,
              table_maps: str = "per_transaction", index: int = 0) -> dict:
    """A synthetic spec of database ``shop``: tables ``orders`` (unsigned BIGINT ids, some
    beyond 2^63; DECIMAL(12,2), utf8mb4 text, DATETIME(6), TIMESTAMP(3) with zero values,
    DATE with zero dates, DOUBLE, BLOB) and ``notes`` (TIME, long text), ``transactions``
    GTIDs in all: inserts, updates and deletes of 1 to 5 rows, 1 to 3 statements each, and
    half-way one DDL, ``ALTER TABLE orders ADD COLUMN note`` (a new table id, a new shape).
    Deterministic per (seed, flavor, index)."""
    import random
    r = random.Random(f"binlog-schema shop {seed} {flavor} {index}")
    live = {"orders": {}, "notes": {}}
    next_id = {"orders": 1, "notes": 1}
    state = {"note": False}

    def ts_text(seconds, frac=""):
        return dt.datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S") + frac

    def orders_row(rid):
        row = {"qty": r.randint(-1000, 100000),
               "price": str(decimal.Decimal(r.randint(-10**9, 10**10)).scaleb(-2)),
               "name": None if r.random() < 0.1 else r.choice(
                   ["widget", "gadget ✓", "Ω-ring", "naïve café", "日本語", ""]) + f" {rid}",
               "created": f"{2020 + r.randint(0, 5)}-{r.randint(1, 12):02d}-"
                          f"{r.randint(1, 28):02d} {r.randint(0, 23):02d}:"
                          f"{r.randint(0, 59):02d}:{r.randint(0, 59):02d}."
                          f"{r.randint(0, 999999):06d}",
               "paid": (None if r.random() < 0.2 else 0 if r.random() < 0.05 else
                        ts_text(BASE_TS + r.randint(0, 10**8), f".{r.randint(0, 999):03d}")),
               "day": (None if r.random() < 0.1 else "0000-00-00" if r.random() < 0.05 else
                       f"{1990 + r.randint(0, 40)}-{r.randint(1, 12):02d}-"
                       f"{r.randint(1, 28):02d}"),
               "score": None if r.random() < 0.1 else r.uniform(-1e6, 1e6),
               "data": None if r.random() < 0.3 else {"hex": bytes(
                   r.getrandbits(8) for _ in range(r.randint(0, 40))).hex()}}
        if state["note"]:
            row["note"] = None if r.random() < 0.5 else f"note {rid}"
        return row

    def notes_row(rid):
        secs = r.randint(0, 837 * 3600)
        return {"span": None if r.random() < 0.2 else
                f"{'-' if r.random() < 0.3 else ''}{secs // 3600:02d}:{secs // 60 % 60:02d}:"
                f"{secs % 60:02d}",
                "body": "x" * r.randint(0, 300) if r.random() < 0.9 else None}

    def statement(table):
        rows_of = live[table]
        op = r.choices(["insert", "update", "delete"], [6, 3, 1])[0] if rows_of else "insert"
        n = r.randint(1, 5)
        make = orders_row if table == "orders" else notes_row
        if op == "insert":
            out = []
            for _ in range(n):
                rid = next_id[table]
                next_id[table] += 1
                key = (1 << 64) - rid if table == "orders" and r.random() < 0.05 else rid
                rows_of[rid] = key
                out.append({"id": key, **make(rid)})
            return {"insert": table, "rows": out}
        chosen = r.sample(sorted(rows_of), min(n, len(rows_of)))
        if op == "update":
            return {"update": table, "rows": [{"where": {"id": rows_of[rid]},
                                                "set": make(rid)} for rid in chosen]}
        out = [{"id": rows_of.pop(rid)} for rid in chosen]
        return {"delete": table, "rows": out}

    txs = []
    for t in range(transactions):
        if t == transactions // 2:
            txs.append({"ddl": "ALTER TABLE orders ADD COLUMN note VARCHAR(32)"})
            state["note"] = True
            continue
        txs.append({"changes": [statement(r.choice(["orders", "orders", "notes"]))
                                for _ in range(r.randint(1, 3))]})
    return {"name": f"shop-{seed}-{flavor}-{index}", "server": SHOP_SERVERS[flavor],
            "database": "shop",
            "settings": {"binlog_row_metadata": "FULL", "table_maps": table_maps,
                         "server_id": 1 + index, "timestamp": BASE_TS + index * 86400,
                         **({"gtid_mode": "ON"} if flavor == "mysql" else {})},
            "tables": [{"name": "orders", "columns": ORDERS, "primary_key": ["id"]},
                       {"name": "notes", "primary_key": ["id"], "columns": [
                           {"name": "id", "type": "INT", "nullable": False},
                           {"name": "span", "type": "TIME"},
                           {"name": "body", "type": "VARCHAR(300)", "charset": "utf8mb4"}]}],
            "transactions": txs}


def write_shop(path, seed: int = 0, flavor: str = "mysql", transactions: int = 200,
               table_maps: str = "per_transaction", index: int = 0) -> str:
    """The file of :func:`shop_spec` at ``path`` (folders made); returns the path."""
    import os
    from binlog_schema.synthetic import generate
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    generate(shop_spec(seed, flavor, transactions, table_maps, index), str(path))
    return str(path)


# the order of an update's two rows (one order key): the preimage first
CHANGE_ORDER = {"insert": 0, "delete": 0, "update_preimage": 0, "update_postimage": 1}


class _Absent:
    def __repr__(self):
        return "ABSENT"


ABSENT = _Absent()   # (a column no change row of a replayed row held)


def replay_changes(rows, truncates=()):
    """The rows a ``spark changes`` table leaves when replayed as its documentation says
    (docs/spark.md, "spark changes"): in (_commit_version, _order_key, preimage first)
    order, an insert adds its row; a delete removes one row held that equals it in every
    column it holds (``_columns_present``: a MINIMAL image holds the primary key in force
    then, a FULL one the whole row; a multiset's copies are alike), an update_preimage
    likewise, and the update_postimage that follows adds that row with the columns it holds
    set; a TRUNCATE (``truncates``: the commit versions of changes.json) removes every row
    held. No primary key is needed (the key in force may change in a table's life).
    ``rows``: dicts with the table's columns and the ``_`` columns; returns the rows held
    (dicts of the table's columns; a column no image of the row held: :data:`ABSENT`, which
    an image's value matches)."""
    names = [n for n in rows[0] if not n.startswith("_")] if rows else []
    held = []   # [row dict]
    cut = sorted(truncates)
    taken = None

    def find(image):
        for i, r in enumerate(held):
            if all(r[k] is ABSENT or r[k] == v for k, v in image.items()):
                return i
        return None
    for r in sorted(rows, key=lambda r: (r["_commit_version"], r["_order_key"],
                                         CHANGE_ORDER[r["_change_type"]])):
        while cut and cut[0] < r["_commit_version"]:
            held.clear()
            cut.pop(0)
        image = {c: r[c] for c in r["_columns_present"]}
        kind = r["_change_type"]
        if kind == "insert":
            held.append({**dict.fromkeys(names, ABSENT), **image})
        elif kind in ("delete", "update_preimage"):
            i = find(image)
            assert i is not None, f"{kind} of a row not held: {r}"
            taken = held.pop(i)
        else:
            assert taken is not None, f"a postimage without its preimage: {r}"
            held.append({**taken, **image})
            taken = None
    if cut:
        held.clear()
    return held

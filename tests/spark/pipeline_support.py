"""Single-process references for the pipeline tests, and the comparison of a pipeline row
(a dict read from Arrow/Parquet, a Row collected from Spark, or a tuple of the spark engine
in Spark's internal form) with a RowChange."""

from __future__ import annotations

import datetime as dt
import decimal
import json

from binlog_schema.errors import BinlogError
from binlog_schema.model.row_change import RowDecoder, column_names
from binlog_schema.serial.value_forms import jsonable
from binlog_schema.stream import BinlogReader
from binlog_schema.values import temporal
from binlog_schema.values.codecs import Compressed, EnumValue, Geometry, SetValue

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
    from binlog_schema.pipeline.job import find_java
    if not find_java():
        return "no java on PATH or JAVA_HOME (Spark needs Java 17+; scripts/setup.sh finds one)"
    return None


def reference_rows(path):
    """[(RowChange, JSON column names)] of a file: RowDecoder over BinlogReader, the way a
    single process decodes it (reading with recovery, as the pipeline's splits do: skipped
    ranges and events with an error skipped, a rows event that cannot be decoded skipped)."""
    dec = RowDecoder(path)
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
         _etype) = got
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

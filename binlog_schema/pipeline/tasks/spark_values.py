"""Column values in the form Spark keeps internally and Arrow takes: the fields of the Value
struct that hold one (see :data:`binlog_schema.pipeline.tables.schema.VALUE`), decided in one
place (:func:`value_fields`), and the names and texts of the output as ``str``. Both sinks
take them from here (:class:`~.tuple_sink.TupleSink`, :class:`~.arrow_sink.ArrowSink`)."""

from __future__ import annotations

import datetime as _dt
import decimal
import json

from ...format.facts.flavor import json_is_binary
from ...changes.row_change import column_names
from ...format.values.forms import jsonable
from ...format.values import temporal
from ...format.values.codecs import Compressed, EnumValue, Geometry, SetValue

FIELDS = ("long", "decimal", "double", "string", "binary", "date", "datetime", "timestamp",
          "time", "vector", "json", "text")
(LONG, DECIMAL, DOUBLE, STRING, BINARY, DATE, DATETIME, TIMESTAMP, TIME, VECTOR, JSON,
 TEXT) = range(len(FIELDS))
NVALUE = len(FIELDS)

_EPOCH_DAYS = _dt.date(1970, 1, 1).toordinal()
_DAY_US = 86_400_000_000
_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1
_DEC_CTX = decimal.Context(prec=100)
_DEC_Q = decimal.Decimal(1).scaleb(-18)
_date = _dt.date


class JsonDoc:
    """A value of a MySQL JSON column: written as JSON text, whatever its Python type."""

    __slots__ = ("doc",)

    def __init__(self, doc):
        self.doc = doc


def fit_decimal(d: decimal.Decimal):
    """``d`` when it fits DECIMAL(38,18) exactly (trailing zeros beyond 18 places allowed),
    else None."""
    if not d.is_finite():
        return None
    sign, digits, exp = d.as_tuple()
    whole = len(digits) + exp
    if whole > 20:
        return None
    if exp < -18:
        q = d.quantize(_DEC_Q, context=_DEC_CTX)
        return q if q == d else None
    return d


def day_number(y: int, m: int, d: int):
    """Days since 1970-01-01 (proleptic Gregorian, as Spark counts), None for a zero or
    invalid date."""
    try:
        return _date(y, m, d).toordinal() - _EPOCH_DAYS
    except ValueError:
        return None


def datetime_us(v):
    """A DATETIME as microseconds since 1970-01-01 00:00 (no zone), None for a zero or invalid
    date."""
    days = day_number(v.year, v.month, v.day)
    if days is None:
        return None
    return (days * _DAY_US + ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000
            + v.microsecond)


def time_us(v) -> int:
    us = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    return -us if v.negative else us


def as_text(v) -> str | None:
    """A name or other text of the output as ``str`` (bytes decoded as UTF-8, undecodable bytes
    as backslash escapes); None stays None."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).decode("utf-8", "backslashreplace")
    return str(v)


def set_names(v) -> str | None:
    return None if v.names is None else ",".join(as_text(n) for n in v.names)


def json_text(v) -> str:
    return json.dumps(jsonable(v), ensure_ascii=False, separators=(",", ":"), default=str)


def _int_fields(v):
    if _LONG_MIN <= v <= _LONG_MAX:
        return ((LONG, v),)
    d = fit_decimal(decimal.Decimal(v))
    return ((DECIMAL, d),) if d is not None else ((TEXT, str(v)),)


def _decimal_fields(v):
    d = fit_decimal(v)
    return ((DECIMAL, d),) if d is not None else ((TEXT, str(v)),)


def _date_fields(v):
    days = day_number(v.year, v.month, v.day)
    # zero or invalid dates: no Spark value, the lossless text
    return ((DATE, days),) if days is not None else ((TEXT, v.isoformat()),)


def _datetime_fields(v):
    us = datetime_us(v)
    return ((DATETIME, us),) if us is not None else ((TEXT, v.isoformat()),)


def _timestamp_fields(v):
    if v.seconds == 0 and v.microsecond == 0:
        return ((TEXT, v.isoformat()),)
    return ((TIMESTAMP, v.seconds * 1_000_000 + v.microsecond),)


def _set_fields(v):
    names = set_names(v)
    bits = (LONG, v.bits) if v.bits <= _LONG_MAX else (DECIMAL, decimal.Decimal(v.bits))
    return (bits,) if names is None else (bits, (STRING, names))


def _enum_fields(v):
    name = as_text(v.name)
    return ((LONG, v.index),) if name is None else ((LONG, v.index), (STRING, name))


_FIELDS_OF = {
    int: _int_fields,
    bool: lambda v: _int_fields(int(v)),
    float: lambda v: ((DOUBLE, v),),
    str: lambda v: ((STRING, v),),
    bytes: lambda v: ((BINARY, v),),
    bytearray: lambda v: ((BINARY, bytes(v)),),
    memoryview: lambda v: ((BINARY, bytes(v)),),
    decimal.Decimal: _decimal_fields,
    temporal.Date: _date_fields,
    temporal.DateTime: _datetime_fields,
    temporal.Timestamp: _timestamp_fields,
    temporal.Time: lambda v: ((TIME, time_us(v)),),
    EnumValue: _enum_fields,
    SetValue: _set_fields,
    Geometry: lambda v: ((LONG, v.srid), (BINARY, bytes(v.wkb))),
    Compressed: lambda v: value_fields(v.data),
    JsonDoc: lambda v: ((JSON, json_text(v.doc)),),
}


def value_fields(v) -> tuple:
    """The ``(field, value)`` pairs of the Value struct that hold one (non-NULL) column value,
    in the form Spark keeps internally and Arrow takes (dates as days, timestamps and
    times as microseconds): the typed field(s) that hold it exactly, and ``text`` (MySQL's
    lossless text) when no Spark type does (zero dates, decimals beyond DECIMAL(38,18),
    integers beyond 64 bits). JSON documents (:class:`JsonDoc`) are JSON text."""
    f = _FIELDS_OF.get(type(v))
    if f is not None:
        return f(v)
    for base in (bool, int, float, str, bytes):  # subclasses (a NaN that keeps its bits)
        if isinstance(v, base):
            return _FIELDS_OF[base](base(v))
    if isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) for x in v):
        return ((VECTOR, [float(x) for x in v]),)
    return ((JSON, json_text(v)),)


def to_value(v, json_column: bool = False):
    """One column value as the Value struct in Spark's internal form (a tuple of
    :data:`FIELDS`; None for NULL): the tuples of the ``spark`` engine."""
    if v is None:
        return None
    out = [None] * NVALUE
    for k, x in value_fields(JsonDoc(v) if json_column else v):
        out[k] = x
    return tuple(out)


def json_columns(tm) -> frozenset:
    """The MySQL JSON columns of a table (MariaDB's JSON is a text column)."""
    cached = getattr(tm, "_pipeline_json", None)
    if cached is None:
        cached = frozenset() if not json_is_binary(tm.flavor) else frozenset(
            name for name, col in zip(column_names(tm), tm.columns) if col.type == "JSON")
        tm._pipeline_json = cached
    return cached


def json_marked(values: dict | None, json_cols: frozenset):
    """An image with the values of JSON columns marked as :class:`JsonDoc`."""
    if values is None or not json_cols:
        return values
    return {k: JsonDoc(x) if k in json_cols and x is not None else x
            for k, x in values.items()}


def image(values: dict | None, json_cols: frozenset):
    """A row image as ``{column: Value tuple}`` (Spark's internal form)."""
    if values is None:
        return None
    return {k: to_value(x) for k, x in json_marked(values, json_cols).items()}

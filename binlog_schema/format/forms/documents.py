"""JSON (MySQL's binary JSON documents; MariaDB's JSON is a text column, see :mod:`.strings`):
every form of its values.

The row decoder gives the document's value (dicts, lists, str, int, float and the typed values
of :mod:`..values.json_binary`: ``JsonUInt``, ``JsonDecimal``, dates, times, opaque values), a
``JsonDocument`` when it was not stored in the canonical bytes, and a ``JsonDiff`` (the
operations of a partial update).

* JSON Lines: lossless JSON data, tagged where a type would be lost (:func:`to_typed_json`,
  inverse :func:`from_typed_json`); plain JSON data in :func:`to_jsonable`
* SQL: ``CAST(_utf8mb4'<json text>' AS JSON)`` when the text parser gives back every type,
  else ``JSON_OBJECT``/``JSON_ARRAY`` around typed casts (:func:`sql_literal`;
  :mod:`binlog_schema.output.sql_text` has the rules in full)
* Maxwell: the document itself; Debezium: its text as a string (``io.debezium.data.Json``)
* Spark: ``json``, the document's text
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import math

from ...construct_ext.jsontext import dumps, quote
from ..values import temporal
from ..values.image import JsonDiff
from ..values.json_binary import (JsonDate, JsonDateTime, JsonDecimal, JsonDiffOp,
                                  JsonDocument, JsonOpaque, JsonTimestamp, JsonUInt,
                                  JsonZeroTimestamp)
from .shared import double_literal, fail, qs
from .strings import text_or_base64

# the classes of a decoded document's values that only this family's forms hold
DOCUMENT_CLASSES = (JsonDocument, JsonDiffOp, JsonOpaque, JsonTimestamp, JsonDate,
                    JsonDateTime, JsonZeroTimestamp)


def _time_text(v: _dt.timedelta) -> str:
    negative, h, m, sec, us = temporal.time_parts(v)
    text = f"{'-' if negative else ''}{h:02d}:{m:02d}:{sec:02d}"
    return text + (f".{us:06d}" if us else "")


def to_jsonable(value):
    """Plain JSON data for a decoded value: decimals as strings, dates and datetimes in ISO
    8601, TIME as ``[-]HH:MM:SS[.ffffff]``, opaque values as ``{"opaque_type", "hex"}``,
    non-finite doubles as strings; diff lists as ``{"op", "path"[, "value"]}``."""
    v = value
    if isinstance(v, JsonDocument):
        return to_jsonable(v.value)
    if isinstance(v, JsonDiffOp):
        out = {"op": v.op, "path": v.path}
        if v.op != "REMOVE":
            out["value"] = to_jsonable(v.value)
        return out
    if isinstance(v, dict):
        return {k: to_jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [to_jsonable(x) for x in v]
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        if math.isfinite(v):
            return v
        return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    if isinstance(v, _decimal.Decimal):
        return format(v, "f")
    if isinstance(v, (_dt.date, _dt.datetime)):
        return v.isoformat()
    if isinstance(v, _dt.timedelta):
        return _time_text(v)
    if isinstance(v, JsonOpaque):
        return {"opaque_type": v.field_type, "hex": bytes(v.data).hex()}
    if type(v) in JSON_TEMPORAL:
        return v.isoformat()   # (MySQL's text: 0000-00-00, 0000-00-00 00:00:00.000000)
    raise TypeError(f"not a decoded JSON value: {type(v).__name__}")


# the dates Python cannot hold, inside MySQL JSON: the column decoder's temporal values, with
# MySQL's text of them in JSON (JsonDate 0000-00-00, JsonDateTime and JsonZeroTimestamp
# 0000-00-00 00:00:00.000000)
JSON_TEMPORAL = {JsonDate: "$date", JsonDateTime: "$datetime", JsonZeroTimestamp: "$timestamp"}

_TAGS = ("$uint", "$decimal", "$timestamp", "$datetime", "$date", "$time", "$opaque",
         "$double", "$document", "$object")


def to_typed_json(value):
    """Lossless JSON data for a decoded value: plain JSON where that is exact, and a one-key
    tagged object where a type would be lost (``{"$uint": n}``, ``{"$decimal": text,
    "precision": p}``, ``{"$date"|"$datetime"|"$timestamp"|"$time": text}``, ``{"$opaque":
    type, "hex": ...}``, ``{"$double": "NaN"}``, ``{"$document": ..., "hex": raw}``; an object
    with a key starting with "$" is wrapped as ``{"$object": {...}}``).
    :func:`from_typed_json` is its inverse."""
    v = value
    if isinstance(v, JsonDocument):
        return {"$document": to_typed_json(v.value), "hex": bytes(v.raw).hex()}
    if isinstance(v, JsonDiffOp):
        out = {"op": v.op, "path": v.path}
        if v.op != "REMOVE":
            out["value"] = to_typed_json(v.value)
        return out
    if isinstance(v, dict):
        items = {k: to_typed_json(x) for k, x in v.items()}
        return {"$object": items} if any(k.startswith("$") for k in v) else items
    if isinstance(v, (list, tuple)):
        return [to_typed_json(x) for x in v]
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, JsonUInt):
        return {"$uint": int(v)}
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return v if math.isfinite(v) else {"$double": to_jsonable(v)}
    if isinstance(v, JsonDecimal):
        return {"$decimal": format(v, "f"), "precision": v.precision}
    if isinstance(v, JsonTimestamp):
        return {"$timestamp": v.isoformat()}
    if isinstance(v, _dt.datetime):
        return {"$datetime": v.isoformat()}
    if isinstance(v, _dt.date):
        return {"$date": v.isoformat()}
    if isinstance(v, _dt.timedelta):
        return {"$time": _time_text(v)}
    if isinstance(v, JsonOpaque):
        return {"$opaque": v.field_type, "hex": bytes(v.data).hex()}
    if isinstance(v, _decimal.Decimal):
        return {"$decimal": format(v, "f"), "precision": None}
    tag = JSON_TEMPORAL.get(type(v))
    if tag is not None:
        return {tag: v.isoformat()}
    raise TypeError(f"not a decoded JSON value: {type(v).__name__}")


def _time_parse(text: str) -> _dt.timedelta:
    neg = text.startswith("-")
    h, m, rest = text.lstrip("-").split(":")
    sec, _, us = rest.partition(".")
    d = _dt.timedelta(hours=int(h), minutes=int(m), seconds=int(sec),
                      microseconds=int(us.ljust(6, "0")) if us else 0)
    return -d if neg else d


_FROM_ISO = {"$timestamp": JsonTimestamp.fromisoformat, "$datetime": _dt.datetime.fromisoformat,
             "$date": _dt.date.fromisoformat}


def _json_mysql_date(tag, text):
    """The value of a ``$date``/``$datetime``/``$timestamp`` text Python cannot hold."""
    import re
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?)?",
                     text)
    if m is None:
        raise ValueError(f"{tag} {text!r} is not a MySQL date")
    y, mo, d, h, mi, s, us = m.groups()
    if tag == "$date":
        return JsonDate(int(y), int(mo), int(d))
    fields = (int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0),
              int((us or "0").ljust(6, "0")))
    if tag == "$timestamp":
        if any(fields):
            raise ValueError(f"$timestamp {text!r}: only the zero TIMESTAMP has no Python value")
        return JsonZeroTimestamp(0, 0)
    return JsonDateTime(*fields)


def from_typed_json(data):
    """The decoded value for :func:`to_typed_json`'s output."""
    if isinstance(data, list):
        return [from_typed_json(x) for x in data]
    if not isinstance(data, dict):
        return data
    tag = next((k for k in data if k in _TAGS), None)
    if tag is None:
        if set(data) >= {"op", "path"} and set(data) <= {"op", "path", "value"}:
            return JsonDiffOp(data["op"], data["path"], from_typed_json(data.get("value")))
        return {k: from_typed_json(x) for k, x in data.items()}
    v = data[tag]
    if tag == "$object":
        return {k: from_typed_json(x) for k, x in v.items()}
    if tag == "$uint":
        return JsonUInt(v)
    if tag == "$decimal":
        return JsonDecimal(v, data.get("precision"))
    if tag in ("$timestamp", "$datetime", "$date"):
        if v.startswith("0000") or "-00" in v[4:10]:  # Python has no such date: MySQL's
            return _json_mysql_date(tag, v)
        try:
            return _FROM_ISO[tag](v)
        except ValueError:  # (a day past its month's end)
            return _json_mysql_date(tag, v)
    if tag == "$time":
        return _time_parse(v)
    if tag == "$opaque":
        return JsonOpaque(v, bytes.fromhex(data["hex"]))
    if tag == "$double":
        return float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}[v])
    return JsonDocument(from_typed_json(v), bytes.fromhex(data["hex"]))  # $document


# ---------------------------------------------------------------------------- SQL expressions

_INT64 = (-(1 << 63), (1 << 64) - 1)   # plain ints the JSON text parser reads back as such


def _exact_double_text(v: float) -> bool:
    """The JSON text parser (rapidjson without full precision) reads ``repr(v)`` back as
    ``v``: a significand below 2**53 and a power of ten within +-22 (one exact operation)."""
    _, digits, exp = _decimal.Decimal(repr(v)).as_tuple()
    return int("".join(map(str, digits))) < 1 << 53 and -22 <= exp <= 22


def _is_utf8(s: str) -> bool:
    try:
        s.encode("utf-8")
        return True
    except UnicodeEncodeError:   # (surrogate-escaped bytes that are not UTF-8)
        return False


def _textual(v) -> bool:
    """``v`` (a decoded JSON value) comes back from its JSON text with every type kept."""
    if v is None or isinstance(v, bool):
        return True
    if isinstance(v, str):
        return _is_utf8(v)
    if isinstance(v, JsonUInt):
        return False
    if isinstance(v, int):
        return _INT64[0] <= v <= _INT64[1]
    if isinstance(v, float):
        return math.isfinite(v) and _exact_double_text(v)
    if isinstance(v, dict):
        return all(_is_utf8(k) and _textual(x) for k, x in v.items())
    if isinstance(v, list):
        return all(_textual(x) for x in v)
    return False


def _utf8mb4(text: str) -> str:
    return "_utf8mb4" + qs(text)


def _json_expr(col, v) -> str:
    if isinstance(v, JsonDocument):
        v = v.value
    if _textual(v):
        return f"CAST({_utf8mb4(dumps(v))} AS JSON)"
    if isinstance(v, dict):
        items = []
        for k, x in v.items():
            if not _is_utf8(k):
                fail(col, "a JSON key that is not UTF-8 has no SQL literal")
            items.append(f"{_utf8mb4(k)}, {_json_expr(col, x)}")
        return "JSON_OBJECT(" + ", ".join(items) + ")"
    if isinstance(v, (list, tuple)):
        return "JSON_ARRAY(" + ", ".join(_json_expr(col, x) for x in v) + ")"
    if isinstance(v, str):
        fail(col, "a JSON string that is not UTF-8 has no SQL literal")
    if isinstance(v, JsonUInt) or (isinstance(v, int) and not isinstance(v, bool)):
        if not 0 <= v < 1 << 64:
            fail(col, f"JSON integer {int(v)} is out of range")
        return f"CAST(CAST({int(v)} AS UNSIGNED) AS JSON)"
    if isinstance(v, float):
        return f"CAST({double_literal(col, v)} AS JSON)"
    if isinstance(v, _decimal.Decimal):
        return f"CAST({_json_decimal(col, v)} AS JSON)"
    if isinstance(v, (JsonTimestamp, JsonZeroTimestamp)):
        fail(col, "a JSON TIMESTAMP value has no SQL form (only a TIMESTAMP column gives "
                   "one)")
    if isinstance(v, JsonDateTime) or isinstance(v, _dt.datetime):
        text = (temporal.datetime_text(v.year, v.month, v.day, v.hour, v.minute, v.second, 0)
                + f".{v.microsecond:06d}")
        return f"CAST(CAST('{text}' AS DATETIME(6)) AS JSON)"
    if isinstance(v, JsonDate) or isinstance(v, _dt.date):
        return f"CAST(CAST('{temporal.date_text(v.year, v.month, v.day)}' AS DATE) AS JSON)"
    if isinstance(v, _dt.timedelta):
        negative, h, m, s, us = temporal.time_parts(v)
        text = temporal.time_text(negative, h, m, s, 0) + f".{us:06d}"
        return f"CAST(CAST('{text}' AS TIME(6)) AS JSON)"
    if isinstance(v, JsonOpaque):
        fail(col, f"a JSON opaque value of field type {v.field_type} has no SQL form")
    fail(col, f"{type(v).__name__} is not a JSON value")


def _json_decimal(col, v) -> str:
    """A DECIMAL expression of a JSON decimal with its stored precision (``JsonDecimal``),
    else that of its digits (integer digits, at least one, plus the scale)."""
    if not v.is_finite():
        fail(col, f"JSON decimal {v} is not a number")
    scale = max(-v.as_tuple().exponent, 0)
    whole = max(v.adjusted() + 1, 0) if v else 0     # integer digits
    precision = getattr(v, "precision", None) or max(whole, 1) + scale
    if scale > 30 or precision > 65 or precision - scale < whole:
        fail(col, f"JSON decimal {v} of precision {precision} has no DECIMAL type")
    return f"CAST('{format(v, 'f')}' AS DECIMAL({precision},{scale}))"


def json_literal(col, value) -> str:
    """A MySQL JSON column's value as ``CAST(_utf8mb4'...' AS JSON)``, or a JSON_OBJECT /
    JSON_ARRAY expression where a value needs a typed cast (see the module's rules)."""
    if isinstance(value, JsonDiff):
        fail(col, "partial JSON update: a JSON diff list needs the before image "
                   "(apply_json_diffs) to become a document")
    return _json_expr(col, value)


# ---------------------------------------------------------------------------- JSON Lines


def json_safe(v, binary: str = "hex"):
    return to_typed_json(v)


def diff_json_safe(v, binary: str = "hex"):
    return {"json_diff": to_typed_json(v.ops)}  # a list of operations, or a document
    # holding them with the raw bytes when those are not in the canonical encoding


def from_json_safe(col, v):
    if isinstance(v, dict) and set(v) == {"json_diff"}:
        return JsonDiff(from_typed_json(v["json_diff"]))
    return from_typed_json(v)


def json_converter(codec, generic):
    return generic


# ---------------------------------------------------------------------------- SQL


def sql_literal(col, flavor: str):
    """A MySQL JSON column's SQL literal writer (MariaDB's JSON is text: the caller writes it
    so)."""
    def document_literal(value):
        return json_literal(col, value)
    return document_literal


# ---------------------------------------------------------------------------- change records


def json_text(value) -> str:
    """A MySQL JSON document as compact JSON text."""
    return dumps(to_jsonable(value))


def _document(text, wrap, generic):
    def json_json(v):  # the document itself (MySQL's binary JSON; MariaDB's is text)
        if type(v) is str or isinstance(v, (bytes, bytearray)):
            return text(v)
        try:
            return wrap(json_text(v))
        except TypeError:
            return generic(v)
    return json_json


def maxwell(col, codec, generic):
    return _document(text_or_base64(generic), str, generic)


def debezium(col, codec, generic):  # io.debezium.data.Json: the document's text
    return _document(text_or_base64(generic), quote, generic)


# ---------------------------------------------------------------------------- Spark


class JsonDoc:
    """A value of a MySQL JSON column: written as JSON text, whatever its Python type."""

    __slots__ = ("doc",)

    def __init__(self, doc):
        self.doc = doc



"""JSON-safe forms of row values and of MySQL JSON documents, both ways.

* row values: :func:`jsonable` (decimals as positional strings, bytes as hex or base64,
  temporal values in MySQL's text forms, zero dates kept, ENUM/SET by name when known) and
  :func:`from_jsonable` (the typed value of a column from that form)
* MySQL JSON documents: :func:`to_typed_json` (lossless, tagged where a type would be lost)
  and :func:`from_typed_json`; :func:`to_jsonable` (plain JSON data)
"""

from __future__ import annotations

import base64
import datetime as _dt
import decimal as _decimal
import math
import struct

from . import temporal
from .codecs import Compressed, EnumValue, Geometry, SetValue
from .json_binary import (JsonDate, JsonDateTime, JsonDecimal, JsonDiffOp,
                                  JsonDocument, JsonOpaque, JsonTimestamp, JsonUInt,
                                  JsonZeroTimestamp)
from .image import JsonDiff



def _float_json(v) -> dict:
    """A NaN or an infinity as JSON: the bytes it was stored with when it keeps them (a NaN's
    payload matters), else the double's, little-endian, in hex."""
    raw = getattr(v, "raw", None)
    return {"float": (bytes(raw) if raw is not None else struct.pack("<d", v)).hex()}


def _float_of(text: str) -> float:
    raw = bytes.fromhex(text)
    v = struct.unpack("<f" if len(raw) == 4 else "<d", raw)[0]
    if v != v:
        from .codecs import NaNFloat  # keeps the stored bits
        return NaNFloat(v, raw)
    return v


def jsonable(v, binary: str = "hex"):
    """A JSON-safe rendering of a row value: decimals as positional strings, bytes as hex (or
    base64), temporal values in ISO form (zero dates as MySQL prints them: lossless)."""
    if isinstance(v, float) and not math.isfinite(v):  # JSON has no NaN nor infinities
        return _float_json(v)
    if isinstance(v, list) and v and all(isinstance(x, float) for x in v) and not all(
            math.isfinite(x) for x in v):  # a VECTOR with a NaN or an infinity
        return [jsonable(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, _decimal.Decimal):
        # positional, every digit of the scale kept, as the server prints it (str() would
        # give "0E-30" or "-1E-9" for small values)
        return format(v, "f")
    if isinstance(v, (bytes, bytearray, memoryview)):
        raw = bytes(v)
        return {"base64": base64.b64encode(raw).decode()} if binary == "base64" \
            else {"hex": raw.hex()}
    if isinstance(v, (temporal.Date, temporal.DateTime, temporal.Time, temporal.Timestamp)):
        if type(v) in _JSON_TEMPORAL:  # a JSON document that is a zero date: tagged
            return to_typed_json(v)
        return v.isoformat()
    if isinstance(v, EnumValue):
        # the error value (index 0, shown as '') is the number 0: an ENUM may have '' as a
        # member too, and the two must build back to different bytes
        return v.name if v.name is not None and v.index else v.index
    if isinstance(v, SetValue):
        # names only when every set bit has one (a bit past the members is kept as a number)
        return list(v.names) if v.names is not None and len(v.names) == bin(
            v.bits).count("1") else v.bits
    if isinstance(v, Geometry):
        return {"srid": v.srid, "wkb": v.wkb.hex()}
    if isinstance(v, Compressed):
        return {"compressed": v.stored.hex(), "data": jsonable(v.data, binary)}
    if isinstance(v, JsonDiff):
        return {"json_diff": to_typed_json(v.ops)}  # a list of operations, or a document
        # holding them with the raw bytes when those are not in the canonical encoding
    if isinstance(v, (dict, list, tuple, _dt.date, _dt.timedelta)) or type(v).__module__.endswith(
            "json_binary"):
        return to_typed_json(v)  # a JSON document (or VECTOR's list of floats)
    to_jsonable = getattr(v, "to_jsonable", None)
    if callable(to_jsonable):
        return to_jsonable()
    try:
        return to_jsonable(v)
    except (TypeError, ValueError):
        return str(v)


def _parse_iso(col_type, text):
    """The temporal value of a column type from its ISO text (the inverse of isoformat)."""
    import re
    if col_type in ("DATE", "NEWDATE"):
        y, m, d = (int(x) for x in text.split("-"))
        return temporal.Date(y, m, d)
    if col_type in ("DATETIME", "DATETIME2"):
        m = re.fullmatch(r"(-?\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+)(?:\.(\d{6,}))?", text)
        y, mo, d, h, mi, s, us = m.groups()
        return temporal.DateTime(int(y), int(mo), int(d), int(h), int(mi), int(s),
                                 int(us or 0))
    if col_type in ("TIME", "TIME2"):
        m = re.fullmatch(r"(-?)(\d+):(\d+):(\d+)(?:\.(\d{6,}))?", text)
        neg, h, mi, s, us = m.groups()
        return temporal.Time(bool(neg), int(h), int(mi), int(s), int(us or 0))
    if col_type in ("TIMESTAMP", "TIMESTAMP2"):
        if text.startswith("0000-00-00"):
            return temporal.Timestamp(0, 0)
        m = re.fullmatch(r"(\d+-\d+-\d+ \d+:\d+:\d+)(?:\.(\d{6,}))?Z", text)
        t = _dt.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S").replace(
            tzinfo=_dt.timezone.utc)
        return temporal.Timestamp(int(t.timestamp()), int(m.group(2) or 0))
    raise ValueError(f"{col_type} is not temporal")


def from_jsonable(col, v):
    """The typed value of a column from its JSON-safe form (the inverse of :func:`jsonable`
    for that column's type), so that JSON rows build back to the same bytes."""
    if v is None:
        return None
    ty = col.type
    real = col.real_type or ty
    if ty.endswith("_COMPRESSED"):
        data = v["data"]
        data = bytes.fromhex(data["hex"]) if isinstance(data, dict) else data
        return Compressed(bytes.fromhex(v["compressed"]), data)
    if isinstance(v, dict) and set(v) == {"hex"}:
        return bytes.fromhex(v["hex"])
    if isinstance(v, dict) and set(v) == {"float"}:
        return _float_of(v["float"])
    if ty == "VECTOR" and isinstance(v, list):
        return [_float_of(x["float"]) if isinstance(x, dict) and set(x) == {"float"} else x
                for x in v]
    if isinstance(v, dict) and set(v) == {"base64"}:
        return base64.b64decode(v["base64"])
    if ty == "NEWDECIMAL":
        return _decimal.Decimal(v)
    if ty in ("DATE", "NEWDATE", "DATETIME", "DATETIME2", "TIME", "TIME2", "TIMESTAMP",
              "TIMESTAMP2"):
        return _parse_iso(ty, v)
    if real == "ENUM":
        if isinstance(v, int):  # no member names logged, or the error value 0 ('')
            return EnumValue(v, "" if v == 0 and col.enum_values else None)
        names = col.enum_values or []
        return EnumValue(names.index(v) + 1 if v in names else 0, v)
    if real == "SET":
        if isinstance(v, int):
            return SetValue(v)
        names = col.set_values or []
        return SetValue(sum(1 << names.index(n) for n in v), tuple(v))
    if ty == "GEOMETRY":
        return Geometry(v["srid"], bytes.fromhex(v["wkb"]))
    if ty == "JSON":  # MySQL's binary JSON (MariaDB logs JSON as a BLOB)
        if isinstance(v, dict) and set(v) == {"json_diff"}:
            return JsonDiff(from_typed_json(v["json_diff"]))
        return from_typed_json(v)
    return v


# ----------------------------------------------------------------------------- MySQL JSON documents



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
    if type(v) in _JSON_TEMPORAL:
        return v.isoformat()   # (MySQL's text: 0000-00-00, 0000-00-00 00:00:00.000000)
    raise TypeError(f"not a decoded JSON value: {type(v).__name__}")


# the dates Python cannot hold, inside MySQL JSON: the column decoder's temporal values, with
# MySQL's text of them in JSON (JsonDate 0000-00-00, JsonDateTime and JsonZeroTimestamp
# 0000-00-00 00:00:00.000000)
_JSON_TEMPORAL = {JsonDate: "$date", JsonDateTime: "$datetime", JsonZeroTimestamp: "$timestamp"}

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
    tag = _JSON_TEMPORAL.get(type(v))
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

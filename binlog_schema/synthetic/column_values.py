"""Spec values checked and converted, per column type, into the typed row values of
:mod:`binlog_schema.format.values`: integers, DECIMAL, FLOAT/DOUBLE, BIT, YEAR, the temporal
types, strings and BLOBs (checked against the column's character set and length), ENUM, SET,
JSON, INET4/INET6/UUID and VECTOR (geometry: :mod:`.geometry`).

Each converter takes the :class:`~.columns.FixtureColumn` and the spec value; a value the
column cannot hold (out of range, an undeclared ENUM member, a string longer than the column,
a date that does not exist...) raises :class:`ValueProblem`. :data:`VALUE_CONVERTERS` maps a
column's kind (:attr:`~.columns.FixtureColumn.kind`) to its converter.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import ipaddress
import json
import math
import re
import struct
import uuid

from ..format.values import temporal
from ..format.facts import charsets as coll
from ..format.facts.charsets import text_codec
from ..format.facts.flavor import json_is_binary
from ..format.values.codecs import EnumValue, SetValue
from ..changes.schema.model import BLOB_TYPES, FIXED_BINARY, TEXT_TYPES


class ValueProblem(ValueError):
    """A value the column cannot hold."""


INT_RANGES = {"TINYINT": 8, "SMALLINT": 16, "MEDIUMINT": 24, "INT": 32, "BIGINT": 64}
FLT_MAX = 3.4028234663852886e38


# ================================================================== values

def _int(col, v):
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, str) and re.fullmatch(r"\s*-?\d+\s*", v):
        v = int(v)
    if not isinstance(v, int):
        raise ValueProblem(f"{v!r} is not an integer")
    bits = INT_RANGES[col.base]
    lo, hi = (0, (1 << bits) - 1) if col.unsigned else (-(1 << bits - 1), (1 << bits - 1) - 1)
    if not lo <= v <= hi:
        raise ValueProblem(f"{v} is out of range for {col.base}{' UNSIGNED' * col.unsigned} "
                           f"({lo}..{hi})")
    return v


def _decimal(col, v):
    p, s = col.args
    if isinstance(v, float):
        v = repr(v)
    try:
        d = decimal.Decimal(str(v).strip())
    except decimal.InvalidOperation:
        raise ValueProblem(f"{v!r} is not a decimal number") from None
    if not d.is_finite():
        raise ValueProblem(f"{v!r} is not finite")
    q = d.quantize(decimal.Decimal(1).scaleb(-s), context=decimal.Context(prec=200))
    if q != d:
        raise ValueProblem(f"{v} has more than {s} digits after the point (DECIMAL({p},{s}))")
    digits = q.adjusted() + 1 if abs(q) >= 1 else 0
    if digits > p - s:
        raise ValueProblem(f"{v} is out of range for DECIMAL({p},{s}): at most {p - s} "
                           "digits before the point")
    if col.unsigned and q < 0:
        raise ValueProblem(f"{v} is negative in an UNSIGNED column")
    return decimal.Decimal(0).quantize(q) if q == 0 else q


def _float(col, v):
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise ValueProblem(f"{v!r} is not a number")
    try:
        f = float(v)
    except ValueError:
        raise ValueProblem(f"{v!r} is not a number") from None
    if not math.isfinite(f):
        raise ValueProblem(f"{v!r}: MySQL and MariaDB store no NaN or infinity")
    if col.base == "FLOAT" and abs(f) > FLT_MAX:
        raise ValueProblem(f"{v!r} is out of range for FLOAT")
    if col.unsigned and f < 0:
        raise ValueProblem(f"{v!r} is negative in an UNSIGNED column")
    if len(col.args) == 2:
        m, dd = col.args
        if round(f, dd) != f or abs(f) >= 10.0 ** (m - dd):
            raise ValueProblem(f"{v!r} does not fit {col.base}({m},{dd})")
    if f == 0:
        f = 0.0       # the servers store -0 as +0
    if col.base == "FLOAT":
        f = struct.unpack("<f", struct.pack("<f", f))[0]
    return f


def _bit(col, v):
    n = col.args[0]
    if isinstance(v, str):
        m = re.fullmatch(r"b'([01]*)'|0b([01]+)|([01]+)", v.strip())
        if not m:
            raise ValueProblem(f"{v!r} is not a bit string (b'0101')")
        v = int(next(g for g in m.groups() if g is not None) or "0", 2)
    if isinstance(v, bool):
        v = int(v)
    if not isinstance(v, int) or not 0 <= v < 1 << n:
        raise ValueProblem(f"{v!r} is out of range for BIT({n})")
    return v


def _year(col, v):
    if isinstance(v, str) and v.strip().isdigit():
        v = int(v)
    if not isinstance(v, int) or isinstance(v, bool) or not (v == 0 or 1901 <= v <= 2155):
        raise ValueProblem(f"{v!r} is out of range for YEAR (1901..2155 or 0)")
    return v


_DATE = re.compile(r"(\d{1,4})-(\d{1,2})-(\d{1,2})")
_TIME = re.compile(r"(-)?(\d{1,3}):(\d{1,2}):(\d{1,2})(?:\.(\d{1,6}))?")
_DATETIME = re.compile(r"(\d{1,4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{1,2}):(\d{1,2})"
                       r"(?:\.(\d{1,6}))?")


def _check_date(y, m, d):
    if not (0 <= y <= 9999 and 0 <= m <= 12 and 0 <= d <= 31):
        raise ValueProblem(f"{y:04d}-{m:02d}-{d:02d} is not a date")
    if y and m and d:
        try:
            _dt.date(y, m, d)
        except ValueError:
            raise ValueProblem(f"{y:04d}-{m:02d}-{d:02d} does not exist") from None


def _frac(col, text):
    us = int((text or "").ljust(6, "0"))
    unit = 10 ** (6 - col.fsp)
    if us % unit:
        raise ValueProblem(f"fraction .{text} needs more than {col.fsp} digits "
                           f"({col.base}({col.fsp}))")
    return us


def _date(col, v):
    if isinstance(v, _dt.date) and not isinstance(v, _dt.datetime):
        v = v.isoformat()
    m = _DATE.fullmatch(str(v).strip())
    if not m:
        raise ValueProblem(f"{v!r} is not a date (YYYY-MM-DD)")
    y, mo, d = (int(x) for x in m.groups())
    _check_date(y, mo, d)
    return temporal.Date(y, mo, d)


def _time(col, v):
    if isinstance(v, int) and not isinstance(v, bool):
        v = f"{'-' if v < 0 else ''}{abs(v) // 3600}:{abs(v) // 60 % 60}:{abs(v) % 60}"
    m = _TIME.fullmatch(str(v).strip())
    if not m:
        raise ValueProblem(f"{v!r} is not a time ([-]HH:MM:SS[.ffffff])")
    neg, h, mi, s, frac = m.groups()
    h, mi, s = int(h), int(mi), int(s)
    us = _frac(col, frac)
    if mi > 59 or s > 59:
        raise ValueProblem(f"{v!r} is not a time")
    if (h, mi, s, us) > (838, 59, 59, 0):
        raise ValueProblem(f"{v!r} is out of range for TIME (-838:59:59..838:59:59)")
    negative = bool(neg) and (h, mi, s, us) != (0, 0, 0, 0)
    return temporal.Time(negative, h, mi, s, us)


def _datetime_parts(col, v):
    if isinstance(v, _dt.datetime):
        v = v.strftime("%Y-%m-%d %H:%M:%S.%f")
    m = _DATETIME.fullmatch(str(v).strip())
    if not m:
        if _DATE.fullmatch(str(v).strip()):
            m = _DATETIME.fullmatch(str(v).strip() + " 00:00:00")
        else:
            raise ValueProblem(f"{v!r} is not a datetime (YYYY-MM-DD HH:MM:SS[.ffffff])")
    y, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
    us = _frac(col, m.group(7))
    _check_date(y, mo, d)
    if h > 23 or mi > 59 or s > 59:
        raise ValueProblem(f"{v!r}: the time of day is out of range")
    return y, mo, d, h, mi, s, us


def _datetime(col, v):
    return temporal.DateTime(*_datetime_parts(col, v))


TS_MIN, TS_MAX = 1, (1 << 31) - 1


def _timestamp(col, v):
    """TIMESTAMP: UTC text, or seconds since the epoch (int, or float/str with fraction)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) or (
            isinstance(v, str) and re.fullmatch(r"\d+(\.\d{1,6})?", v.strip())):
        text = f"{v:.6f}" if isinstance(v, float) else str(v).strip()
        whole, _, frac = text.partition(".")
        seconds, us = int(whole), _frac(col, frac.rstrip("0"))
    else:
        y, mo, d, h, mi, s, us = _datetime_parts(col, v)
        if (y, mo, d, h, mi, s, us) == (0, 0, 0, 0, 0, 0, 0):
            return temporal.Timestamp(0, 0)
        if not (y and mo and d):
            raise ValueProblem(f"{v!r} is not a TIMESTAMP (no zero parts)")
        seconds = int(_dt.datetime(y, mo, d, h, mi, s, tzinfo=_dt.timezone.utc).timestamp())
        if seconds < TS_MIN:
            raise ValueProblem(f"{v!r} is out of range for TIMESTAMP (1970-01-01 00:00:01 .. "
                               "2038-01-19 03:14:07 UTC)")
    if seconds == 0 and us == 0:
        return temporal.Timestamp(0, 0)
    if not TS_MIN <= seconds <= TS_MAX:
        raise ValueProblem(f"{v!r} is out of range for TIMESTAMP (1970-01-01 00:00:01 .. "
                           "2038-01-19 03:14:07 UTC)")
    return temporal.Timestamp(seconds, us)


def _bytes_of(v) -> bytes | None:
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    if isinstance(v, dict) and set(v) == {"hex"}:
        try:
            return bytes.fromhex(v["hex"])
        except ValueError:
            raise ValueProblem(f"{v['hex']!r} is not hex") from None
    return None


def _text_value(col, v):
    """A character value: str (checked against the charset) or {hex} bytes."""
    raw = _bytes_of(v)
    if raw is not None:
        if col.charset == "binary":
            return raw
        dec, _ = text_codec(col.collation_id)
        return dec(raw)
    if isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool):
        v = str(v)
    if not isinstance(v, str):
        raise ValueProblem(f"{v!r} is not a string")
    if col.charset == "binary":
        return v.encode("utf-8")
    if col.charset in coll.BMP_ONLY and any(ord(ch) > 0xFFFF for ch in v):
        raise ValueProblem(f"{v[:20]!r}... has characters outside the BMP, which "
                           f"{col.charset} cannot store")
    try:
        col.encode_text(v)
    except Exception:  # noqa: BLE001 - the codec's error is a construct error
        raise ValueProblem(f"{v[:20]!r} cannot be written in {col.charset}") from None
    return v


def _nchars(col, v) -> int:
    if isinstance(v, str):
        return len(v)
    return len(v) // max(col.maxlen, 1) if col.charset != "binary" else len(v)


def _char(col, v):
    v = _text_value(col, v)
    n = col.args[0]
    size = len(v) if isinstance(v, bytes) else len(v)
    if col.base == "CHAR" and isinstance(v, str):
        size = len(v.rstrip(" "))
    if size > n:
        raise ValueProblem(f"{size} characters do not fit {col.base}({n})")
    return v


def _varchar(col, v):
    v = _text_value(col, v)
    n = col.args[0]
    size = len(v)
    if size > n:
        raise ValueProblem(f"{size} {'bytes' if isinstance(v, bytes) else 'characters'} do "
                           f"not fit {col.base}({n})")
    return v


def _blob(col, v):
    v = _text_value(col, v)
    nbytes = TEXT_TYPES.get(col.base) or BLOB_TYPES[col.base]
    size = len(v if isinstance(v, bytes) else col.encode_text(v))
    if size >= 1 << (8 * nbytes):
        raise ValueProblem(f"{size} bytes do not fit {col.base} (at most "
                           f"{(1 << 8 * nbytes) - 1})")
    return v


def _enum(col, v):
    names = col.members
    if isinstance(v, int) and not isinstance(v, bool):
        if not 1 <= v <= len(names):
            raise ValueProblem(f"ENUM index {v} is not 1..{len(names)}")
        return EnumValue(v, names[v - 1])
    if not isinstance(v, str):
        raise ValueProblem(f"{v!r} is not an ENUM member")
    if v not in names:
        raise ValueProblem(f"{v!r} is not a member of ENUM({', '.join(map(repr, names))})")
    return EnumValue(names.index(v) + 1, v)


def _set(col, v):
    names = col.members
    if isinstance(v, int) and not isinstance(v, bool):
        if not 0 <= v < 1 << len(names):
            raise ValueProblem(f"SET bits {v} beyond the {len(names)} members")
        return SetValue(v, tuple(n for i, n in enumerate(names) if v >> i & 1))
    if isinstance(v, str):
        v = [] if v == "" else v.split(",")
    if not isinstance(v, (list, tuple)):
        raise ValueProblem(f"{v!r} is not a SET value (a list of members)")
    bits = 0
    for m in v:
        if m not in names:
            raise ValueProblem(f"{m!r} is not a member of SET({', '.join(map(repr, names))})")
        bits |= 1 << names.index(m)
    return SetValue(bits, tuple(n for i, n in enumerate(names) if bits >> i & 1))


def _json(col, v):
    if isinstance(v, dict) and set(v) == {"json"}:
        try:
            doc = json.loads(v["json"])
        except (TypeError, ValueError) as e:
            raise ValueProblem(f"not JSON: {e}") from None
        text = v["json"]
    else:
        doc = v
        try:
            text = json.dumps(v, ensure_ascii=False)
        except (TypeError, ValueError) as e:
            raise ValueProblem(f"{v!r} is not a JSON document: {e}") from None
    if not json_is_binary(col.flavor):
        return text
    if isinstance(doc, float) and not math.isfinite(doc):
        raise ValueProblem("JSON has no NaN or infinity")
    return doc


def _fixed_binary(col, v):
    raw = _bytes_of(v)
    if raw is None:
        try:
            if col.base == "INET4":
                raw = ipaddress.IPv4Address(str(v)).packed
            elif col.base == "INET6":
                raw = ipaddress.IPv6Address(str(v)).packed
            else:
                raw = uuid.UUID(str(v)).bytes
        except ValueError as e:
            raise ValueProblem(f"{v!r} is not an {col.base}: {e}") from None
    if len(raw) != FIXED_BINARY[col.base]:
        raise ValueProblem(f"{len(raw)} bytes in an {col.base} column")
    return raw


def _vector(col, v):
    if not isinstance(v, (list, tuple)):
        raise ValueProblem(f"{v!r} is not a vector (a list of numbers)")
    if len(v) > col.args[0]:
        raise ValueProblem(f"{len(v)} dimensions in a VECTOR({col.args[0]})")
    out = []
    for x in v:
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) \
                or abs(x) > FLT_MAX:
            raise ValueProblem(f"vector element {x!r} is not a finite float32")
        out.append(struct.unpack("<f", struct.pack("<f", float(x)))[0])
    return out


VALUE_CONVERTERS = {
    "int": _int, "decimal": _decimal, "float": _float, "double": _float, "bit": _bit,
    "year": _year, "date": _date, "time": _time, "datetime": _datetime,
    "timestamp": _timestamp, "char": _char, "binary": _char, "varchar": _varchar,
    "varbinary": _varchar, "blob": _blob, "enum": _enum, "set": _set, "json": _json,
    "inet4": _fixed_binary, "inet6": _fixed_binary, "uuid": _fixed_binary, "vector": _vector,
}

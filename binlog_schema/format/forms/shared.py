"""What the column-type families' forms share: the SQL error and quoting, the text of a
fraction, a double, a float32 and base64 in JSON, and the fields of
Spark's Value struct (:data:`SPARK_FIELDS`, the order of
:data:`binlog_schema.pipeline.tables.schema.VALUE`)."""

from __future__ import annotations

import base64
import datetime as _dt
import decimal
import math
import struct


class SqlValueError(ValueError):
    """A value that has no exact SQL literal; the message names the column."""


def qs(text: str) -> str:
    """A quoted string literal (backslash escapes, as both servers read them by default)."""
    out = (text.replace("\\", "\\\\").replace("'", "\\'").replace("\0", "\\0")
           .replace("\x1a", "\\Z").replace("\r", "\\r").replace("\n", "\\n"))
    return f"'{out}'"


def column_label(col) -> str:
    name = getattr(col, "name", None)
    return repr(name) if name is not None else f"#{getattr(col, 'index', '?')}"


def fail(col, what: str):
    """Raise :class:`SqlValueError` naming column ``col``."""
    raise SqlValueError(f"column {column_label(col)}: {what}")


def double_literal(col, value) -> str:
    """A double literal whose value is exactly ``value`` (a FLOAT's float32 or a DOUBLE)."""
    v = float(value)
    if not math.isfinite(v):
        fail(col, f"{value!r}: NaN and infinities have no SQL literal")
    text = repr(v)
    return text if "e" in text else text + "e0"


# ------------------------------------------------------------------------ JSON texts


def float32_text(v: float) -> str:
    """A FLOAT column's value as the shortest decimal text that reads back to the same
    single-precision number (what Java's ``Float.toString`` shows: ``4.2341``, not the
    double ``4.234099864959717``)."""
    if v - v != 0.0:
        return "null"
    for digits in range(6, 10):
        text = f"{v:.{digits}g}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == v:
            break
    if "e" in text or "E" in text:
        return repr(float(text))
    return text if "." in text or "inf" in text else text + ".0"


def double_text(v: float) -> str:
    return repr(v) if v - v == 0.0 else "null"


def base64_text(data) -> str:
    return '"' + base64.b64encode(bytes(data)).decode() + '"'


def fraction(microsecond: int, fsp: int) -> str:
    """The fractional seconds of a temporal value as a column of ``fsp`` digits shows them
    (nothing for fsp 0)."""
    if not fsp:
        return ""
    return "." + f"{microsecond:06d}"[:fsp]


# ------------------------------------------------------------------------ Spark's Value struct

SPARK_FIELDS = ("long", "decimal", "double", "string", "binary", "date", "datetime",
                "timestamp", "time", "vector", "json", "text")
(LONG, DECIMAL, DOUBLE, STRING, BINARY, DATE, DATETIME, TIMESTAMP, TIME, VECTOR, JSON,
 TEXT) = range(len(SPARK_FIELDS))
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
_EPOCH_DAYS = _dt.date(1970, 1, 1).toordinal()
DAY_US = 86_400_000_000
_DEC_CTX = decimal.Context(prec=100)
_DEC_Q = decimal.Decimal(1).scaleb(-18)
_date = _dt.date


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


def as_text(v) -> str | None:
    """A name or other text of the output as ``str`` (bytes decoded as UTF-8, undecodable bytes
    as backslash escapes); None stays None."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).decode("utf-8", "backslashreplace")
    return str(v)

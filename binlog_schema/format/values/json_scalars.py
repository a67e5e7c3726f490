"""The bytes of MySQL's binary JSON scalars that have an encoding of their own (the layout is
in :mod:`.json_binary`), each read and write side by side: the variable-length length of
strings and opaque values, UTF-8 text (``surrogateescape``: invalid bytes come back the same),
and the typed opaque values, DECIMAL (NEWDECIMAL), DATE, TIME, DATETIME and TIMESTAMP, with
:func:`opaque_value` (bytes -> value, :class:`~.json_binary.JsonOpaque` unless the typed value
rebuilds them exactly) and :func:`opaque_of` (value -> bytes). Used by :mod:`.json_document`
and :mod:`.json_diff`.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal

from ...construct_ext.errors import LayoutError, StreamError, ValidationError

from .decimal_bin import decimal_build, decimal_parse, decimal_size
from .json_binary import (JsonDate, JsonDateTime, JsonDecimal, JsonOpaque, JsonTimestamp,
                          JsonZeroTimestamp)
from .temporal import Date, DateTime, Timestamp, time_parts

# MySQL field types of the opaque values that get a typed Python value
MYSQL_TYPE_TIMESTAMP = 7
MYSQL_TYPE_DATE = 10
MYSQL_TYPE_TIME = 11
MYSQL_TYPE_DATETIME = 12
MYSQL_TYPE_NEWDECIMAL = 246


# ------------------------------------------------------------------------------ lengths, text


def need(have: int, n: int, what: str):
    """A ``StreamError`` unless ``n`` of the ``have`` bytes left are there for ``what``."""
    if n > have:
        raise StreamError(f"JSON {what} needs {n} bytes, {max(have, 0)} left")


def varlen_read(data: bytes, pos: int, end: int, what: str):
    """A variable-length length: 7 bits a byte, least significant first, at most 5 bytes."""
    value = 0
    for i in range(5):
        if pos + i >= end:
            raise StreamError(f"JSON {what} length runs past the data")
        b = data[pos + i]
        value |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            if value > 0xFFFFFFFF:
                raise ValidationError(f"JSON {what} length {value} exceeds 32 bits")
            return value, pos + i + 1
    raise ValidationError(f"JSON {what} length has more than 5 bytes")


def varlen_bytes(n: int) -> bytes:
    """The variable-length length ``n`` (the inverse of :func:`varlen_read`)."""
    if n > 0xFFFFFFFF:
        raise ValidationError(f"JSON value of {n} bytes exceeds 4 GiB")
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def text_of(raw: bytes) -> str:
    """Stored UTF-8 as text; bytes that are not UTF-8 as surrogates (:func:`utf8_of`)."""
    return raw.decode("utf-8", "surrogateescape")


def utf8_of(s: str, what: str) -> bytes:
    """The bytes of a string or key (the inverse of :func:`text_of`)."""
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as e:
        raise ValidationError(f"JSON {what} {s!r} cannot be encoded as UTF-8: {e}") from None


# ------------------------------------------------------------------------------ opaque codecs
# field type -> (Python class, value -> bytes, bytes -> value or None); the encoder takes the
# first entry whose class matches, so subclasses come before their bases.


def _decimal_to(v) -> bytes:
    sign, digits, exp = v.as_tuple()
    if not isinstance(exp, int):
        raise ValidationError(f"JSON DECIMAL {v} is not finite")
    scale = max(0, -exp)
    precision = getattr(v, "precision", None)
    if precision is None:
        precision = len(str(int(v.copy_abs()))) + scale
    if not (0 < precision <= 65 and 0 <= scale <= 30 and scale <= precision):
        raise ValidationError(f"JSON DECIMAL {v}: precision {precision}, scale {scale} "
                                "are not a valid DECIMAL(65,30) shape")
    out = bytearray((precision, scale))
    try:
        decimal_build(v, out, precision, scale)
    except LayoutError as e:
        raise ValidationError(f"JSON DECIMAL {v} does not fit precision {precision}: {e}") \
            from None
    return bytes(out)


def _decimal_from(b: bytes):
    if len(b) < 2:
        return None
    precision, scale = b[0], b[1]
    if not (0 < precision <= 65 and scale <= 30 and scale <= precision):
        return None
    if len(b) != 2 + decimal_size(precision, scale):
        return None
    try:
        value, _ = decimal_parse(b, 2, precision, scale)
    except LayoutError:
        return None
    return JsonDecimal(value, precision)


def _pack_datetime(y, mo, d, h, mi, s, us) -> bytes:
    ymd = ((y * 13 + mo) << 5) | d
    hms = (h << 12) | (mi << 6) | s
    return ((((ymd << 17) | hms) << 24) + us).to_bytes(8, "little", signed=True)


def _unpack_datetime(b: bytes):
    if len(b) != 8:
        return None
    n = int.from_bytes(b, "little", signed=True)
    if n < 0:
        return None
    us, n = n % (1 << 24), n >> 24
    ymd, hms = n >> 17, n % (1 << 17)
    ym, day = ymd >> 5, ymd % 32
    return ym // 13, ym % 13, day, hms >> 12, (hms >> 6) % 64, hms % 64, us


def _naive(v):
    if v.tzinfo is not None:
        raise ValidationError(f"JSON DATETIME/TIMESTAMP {v} has a time zone; MySQL's has not")
    return v


def _datetime_to(v) -> bytes:
    v = _naive(v)
    return _pack_datetime(v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond)


def _datetime_from(cls):
    def parse(b):
        f = _unpack_datetime(b)
        try:
            return None if f is None else cls(*f)
        except (ValueError, OverflowError):  # (only for dates Python cannot hold)
            return _mysql_datetime(cls, f)
    return parse


def _mysql_datetime(cls, f):
    """The value of the fields ``f`` of a DATETIME or TIMESTAMP that Python cannot hold, if
    MySQL can: :class:`JsonDateTime`, or the zero TIMESTAMP."""
    if cls is JsonTimestamp:
        return JsonZeroTimestamp(0, 0) if not any(f) else None
    y, mo, d, h, mi, s, us = f
    if y <= 9999 and h < 24 and mi < 60 and s < 60 and us < 1000000:
        return JsonDateTime(y, mo, d, h, mi, s, us)
    return None


def _date_to(v) -> bytes:
    return _pack_datetime(v.year, v.month, v.day, 0, 0, 0, 0)


def _date_from(b):
    f = _unpack_datetime(b)
    if f is None or any(f[3:]):
        return None
    try:
        return _dt.date(*f[:3])
    except ValueError:  # (only for dates Python cannot hold)
        return JsonDate(*f[:3]) if f[0] <= 9999 else None


def _mysql_fields(v, names, limits, what):
    values = [getattr(v, n, None) for n in names]
    for n, x, hi in zip(names, values, limits):
        if not isinstance(x, int) or isinstance(x, bool) or not 0 <= x <= hi:
            raise ValidationError(f"JSON {what} {v!r}: {n} {x!r} is not 0-{hi}")
    return values


_DATE_FIELDS = (("year", "month", "day"), (9999, 12, 31))
_DATETIME_FIELDS = (_DATE_FIELDS[0] + ("hour", "minute", "second", "microsecond"),
                    _DATE_FIELDS[1] + (23, 59, 59, 999999))


def _mysql_date_to(v) -> bytes:
    return _pack_datetime(*_mysql_fields(v, *_DATE_FIELDS, "DATE"), 0, 0, 0, 0)


def _mysql_datetime_to(v) -> bytes:
    return _pack_datetime(*_mysql_fields(v, *_DATETIME_FIELDS, "DATETIME"))


def _zero_timestamp_to(v) -> bytes:
    if v.seconds != 0 or v.microsecond != 0:
        raise ValidationError(f"JSON TIMESTAMP {v!r}: a Timestamp holds only the zero "
                              "TIMESTAMP here; give a JsonTimestamp (a datetime)")
    return bytes(8)


def _time_to(v: _dt.timedelta) -> bytes:
    negative, h, m, sec, us = time_parts(v)
    if h >= 1 << 10:
        raise ValidationError(f"JSON TIME {v}: {h} hours do not fit the packed format")
    packed = (((h << 12) | (m << 6) | sec) << 24) + us
    return (-packed if negative else packed).to_bytes(8, "little", signed=True)


def _time_from(b):
    if len(b) != 8:
        return None
    n = int.from_bytes(b, "little", signed=True)
    a = -n if n < 0 else n
    us, hms = a % (1 << 24), a >> 24
    v = _dt.timedelta(hours=(hms >> 12) % (1 << 10), minutes=(hms >> 6) % 64,
                      seconds=hms % 64, microseconds=us)
    return -v if n < 0 else v


# field type -> bytes -> value or None (a value of one of the classes below)
_OPAQUE_FROM = {
    MYSQL_TYPE_NEWDECIMAL: _decimal_from,
    MYSQL_TYPE_TIMESTAMP: _datetime_from(JsonTimestamp),
    MYSQL_TYPE_DATETIME: _datetime_from(_dt.datetime),
    MYSQL_TYPE_DATE: _date_from,
    MYSQL_TYPE_TIME: _time_from,
}
# (field type, Python class, value -> bytes): the encoder takes the first entry whose class
# matches, so subclasses come before their bases
_OPAQUE_TYPED = (
    (MYSQL_TYPE_NEWDECIMAL, _decimal.Decimal, _decimal_to),
    (MYSQL_TYPE_TIMESTAMP, JsonTimestamp, _datetime_to),
    (MYSQL_TYPE_DATETIME, _dt.datetime, _datetime_to),
    (MYSQL_TYPE_DATE, _dt.date, _date_to),
    (MYSQL_TYPE_TIME, _dt.timedelta, _time_to),
    (MYSQL_TYPE_DATE, Date, _mysql_date_to),            # JsonDate, the column's Date
    (MYSQL_TYPE_DATETIME, DateTime, _mysql_datetime_to),
    (MYSQL_TYPE_TIMESTAMP, Timestamp, _zero_timestamp_to),
)
# the class of a decoded value -> its bytes (the decoder's check that they rebuild)
_OPAQUE_TO = {JsonDecimal: _decimal_to, JsonTimestamp: _datetime_to,
              _dt.datetime: _datetime_to, _dt.date: _date_to, _dt.timedelta: _time_to,
              JsonDate: _mysql_date_to, JsonDateTime: _mysql_datetime_to,
              JsonZeroTimestamp: _zero_timestamp_to}


def opaque_value(field_type: int, data: bytes):
    """The value of an opaque value's bytes: typed when it rebuilds them exactly, else a
    :class:`~.json_binary.JsonOpaque`."""
    frm = _OPAQUE_FROM.get(field_type)
    if frm is not None:
        value = frm(data)
        if value is not None:
            try:
                if _OPAQUE_TO[type(value)](value) == data:
                    return value
            except LayoutError:
                pass
    return JsonOpaque(field_type, data)


def opaque_of(v):
    """(field type, bytes) of an opaque value, or None if ``v`` is no opaque value."""
    if isinstance(v, JsonOpaque):
        if not (isinstance(v.field_type, int) and 0 <= v.field_type <= 255):
            raise ValidationError(f"JSON opaque field type {v.field_type!r} is not a byte")
        return v.field_type, bytes(v.data)
    for ft, cls, to in _OPAQUE_TYPED:
        if isinstance(v, cls):
            return ft, to(v)
    return None

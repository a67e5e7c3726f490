"""DATE, TIME, DATETIME and TIMESTAMP (every storage format): every form of their values.

The row decoder gives :mod:`..values.temporal`'s lossless values (``Date``, ``Time``,
``DateTime``, ``Timestamp``: zero dates, TIME beyond 24 hours and negative kept), each with
``isoformat()``, MySQL's own text.

* JSON Lines: that text (TIMESTAMP in UTC with a ``Z``), straight from the row bytes where the
  codec reads fields (:func:`fields_json`)
* SQL: the quoted text with exactly the column's fsp fraction digits, TIMESTAMP as UTC date
  and time, the zero TIMESTAMP ``'0000-00-00 00:00:00'`` (:func:`sql_text`)
* Maxwell: ``"YYYY-MM-DD hh:mm:ss[.f]"`` with the column's fsp digits, TIMESTAMP in UTC
* Debezium: DATE days since the epoch, DATETIME milliseconds (fsp <= 3) or microseconds since
  it, TIMESTAMP ISO 8601 in UTC, TIME microseconds; a zero date null (nullable) or the epoch
* Spark: ``date`` (days), ``datetime`` and ``timestamp`` (microseconds), ``time``
  (microseconds); zero and invalid dates as ``text``
"""

from __future__ import annotations

import datetime as _dt

from ..values import temporal
from ..values.temporal import date_text, datetime_text, time_text, timestamp_text
from .shared import (DATE, DATETIME, DAY_US, TEXT, TIME, TIMESTAMP, day_number, fail,
                     fraction)

_EPOCH_DAY = _dt.date(1970, 1, 1).toordinal()


def json_safe(v, binary: str = "hex"):
    return v.isoformat()


def from_json_safe(col, text):
    """The temporal value of a column type from its ISO text (the inverse of isoformat)."""
    import re
    col_type = col.type
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


def json_converter(codec, generic):
    return lambda v: '"' + v.isoformat() + '"'


def fields_json(codec, dumps):
    """From the codec's fields (the stored parts, without the typed value)."""
    ty = codec.type_name
    if ty in ("DATE", "NEWDATE"):
        return lambda f: '"' + date_text(*f) + '"'
    if ty in ("DATETIME", "DATETIME2"):
        return lambda f: '"' + datetime_text(*f) + '"'
    if ty in ("TIME", "TIME2"):
        return lambda f: '"' + time_text(*f) + '"'
    return lambda f: '"' + timestamp_text(*f) + '"'


# ---------------------------------------------------------------------------- SQL


def _fraction(col, microsecond: int, fsp: int) -> str:
    if not 0 <= microsecond < 1_000_000 or microsecond % 10 ** (6 - fsp):
        fail(col, f"a fraction of {microsecond} microseconds does not fit fsp {fsp}")
    return "." + f"{microsecond:06d}"[:fsp] if fsp else ""


def sql_text(col, v) -> str:
    """The text (unquoted) of a DATE, TIME, DATETIME or TIMESTAMP value: fraction digits per
    the column's fsp, TIMESTAMP in UTC."""
    fsp = col.fsp or 0
    if isinstance(v, temporal.Date):
        return v.isoformat()
    if isinstance(v, temporal.DateTime):
        return temporal.datetime_text(v.year, v.month, v.day, v.hour, v.minute, v.second,
                                      0) + _fraction(col, v.microsecond, fsp)
    if isinstance(v, temporal.Time):
        return temporal.time_text(v.negative, v.hour, v.minute, v.second, 0) + _fraction(
            col, v.microsecond, fsp)
    if isinstance(v, temporal.Timestamp):
        frac = _fraction(col, v.microsecond, fsp)
        if v.seconds == 0 and v.microsecond == 0:
            return "0000-00-00 00:00:00" + frac
        return temporal.timestamp_text(v.seconds, 0).rstrip("Z") + frac
    fail(col, f"{v!r} is not a temporal value")


def sql_literal(col, flavor: str):
    """The column's SQL literal writer (a function of a non-NULL value): :func:`sql_text`
    quoted (digits, ``-``, ``:``, ``.`` and a space: nothing to escape)."""
    def temporal_literal(value):
        return "'" + sql_text(col, value) + "'"
    return temporal_literal


# ---------------------------------------------------------------------------- change records


def maxwell(col, codec, generic):
    ty = codec.type_name
    fsp = col.fsp or 0
    if ty in ("DATE", "NEWDATE"):
        return lambda v: '"' + date_text(v.year, v.month, v.day) + '"'
    if ty in ("DATETIME", "DATETIME2"):
        return lambda v: '"' + datetime_text(v.year, v.month, v.day, v.hour, v.minute,
                                             v.second, 0) + fraction(v.microsecond, fsp) + '"'
    if ty in ("TIMESTAMP", "TIMESTAMP2"):
        def timestamp_json(v):  # UTC; the zero timestamp as MySQL shows it
            if not v.seconds and not v.microsecond:
                return '"0000-00-00 00:00:00' + fraction(0, fsp) + '"'
            return '"' + timestamp_text(v.seconds, 0)[:-1] + fraction(v.microsecond, fsp) + '"'
        return timestamp_json
    return lambda v: '"' + time_text(v.negative, v.hour, v.minute, v.second, 0) + \
        fraction(v.microsecond, fsp) + '"'


def is_zero_date(year, month, day) -> bool:
    """A date no calendar holds: MySQL's zero date, or one with a zero month or day."""
    return not year or not month or not day


def _days(v) -> int | None:
    """Days since 1970-01-01 of a date; None for a date no calendar holds."""
    if is_zero_date(v.year, v.month, v.day):
        return None
    try:
        return _dt.date(v.year, v.month, v.day).toordinal() - _EPOCH_DAY
    except ValueError:
        return None


def debezium(col, codec, generic):
    """A zero (or invalid) date: null when the column is nullable, else the epoch (as the
    connector does)."""
    ty = codec.type_name
    fsp = col.fsp or 0
    nullable = col.nullable is not False
    zero = "null" if nullable else "0"
    if ty in ("DATE", "NEWDATE"):
        def date_json(v):  # io.debezium.time.Date: days since the epoch
            days = _days(v)
            return zero if days is None else int.__repr__(days)
        return date_json
    if ty in ("DATETIME", "DATETIME2"):
        divisor = 1000 if fsp <= 3 else 1  # Timestamp (ms) or MicroTimestamp (us)

        def datetime_json(v):
            days = _days(v)
            if days is None:
                return zero
            us = ((days * 86400 + v.hour * 3600 + v.minute * 60 + v.second) * 1000000 +
                  v.microsecond)
            return int.__repr__(us // divisor)
        return datetime_json
    if ty in ("TIMESTAMP", "TIMESTAMP2"):
        epoch = '"1970-01-01T00:00:00' + fraction(0, fsp) + 'Z"'

        def timestamp_json(v):  # io.debezium.time.ZonedTimestamp: ISO 8601 in UTC
            if not v.seconds and not v.microsecond:
                return "null" if nullable else epoch
            text = timestamp_text(v.seconds, 0)
            return '"' + text[:10] + "T" + text[11:-1] + fraction(v.microsecond, fsp) + 'Z"'
        return timestamp_json

    def time_json(v):  # io.debezium.time.MicroTime
        us = (v.hour * 3600 + v.minute * 60 + v.second) * 1000000 + v.microsecond
        return int.__repr__(-us if v.negative else us)
    return time_json


# ---------------------------------------------------------------------------- Spark


def datetime_us(v):
    """A DATETIME as microseconds since 1970-01-01 00:00 (no zone), None for a zero or invalid
    date."""
    days = day_number(v.year, v.month, v.day)
    if days is None:
        return None
    return (days * DAY_US + ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000
            + v.microsecond)


def time_us(v) -> int:
    us = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    return -us if v.negative else us


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


SPARK = {
    temporal.Date: _date_fields,
    temporal.DateTime: _datetime_fields,
    temporal.Timestamp: _timestamp_fields,
    temporal.Time: lambda v: ((TIME, time_us(v)),),
}

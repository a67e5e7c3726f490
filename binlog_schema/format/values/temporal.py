"""Temporal values of row images, in every storage format, losslessly.

MySQL can store dates Python cannot hold (``0000-00-00``, ``2024-00-15``, TIME up to 838
hours, negative times), so values are small frozen dataclasses holding the stored fields; each
has ``isoformat()`` (MySQL's own text form) and ``to_python()`` (a ``datetime`` object, or None
where Python has no such value).

Formats (MySQL ``my_time.cc``; MariaDB writes the same for the "2" types):

* DATE (10): 3 bytes LE, ``day | month << 5 | year << 9``
* TIME (11, old): 3 bytes LE signed, ``HHMMSS`` as a decimal number
* DATETIME (12, old): 8 bytes LE, ``YYYYMMDDhhmmss`` as a decimal number
* TIMESTAMP (7, old): 4 bytes LE seconds since the epoch
* TIMESTAMP2 (17): 4 bytes BE seconds, then (fsp + 1) // 2 bytes BE of fraction
* DATETIME2 (18): 5 bytes BE ``0x8000000000 + packed`` then the fraction
* TIME2 (19): 3 bytes BE ``0x800000 + packed`` then the fraction (6 bytes for fsp 5-6)

MariaDB's hi-res formats (5.3 on; written for TIME(n), DATETIME(n), TIMESTAMP(n), n 1-6, when
``mysql56_temporal_format=OFF`` or the table was made so; MariaDB ``sql/field.cc``
``Field_time_hires``, ``Field_datetime_hires``, ``Field_timestamp_hires``) are logged with the
OLD type codes and no metadata: their precision is the schema's, never in the binlog. A column
of an old type code with an fsp of 1-6 (given by the schema history) is one of these:

* TIME(n) (11): ``HIRES_TIME_BYTES[n]`` bytes BE, ``packed / 10^(6-n) + zero point`` where
  ``packed`` is MariaDB's ``pack_time`` (signed microseconds) and the zero point is
  838:59:59 + 1 second at that precision (so that every value is positive)
* DATETIME(n) (12): ``HIRES_DATETIME_BYTES[n]`` bytes BE, ``pack_time / 10^(6-n)``
  (``pack_time``: ((((year * 13 + month) * 32 + day) * 24 + hour) * 60 + minute) * 60 +
  second, in microseconds)
* TIMESTAMP(n) (7): 4 bytes BE seconds, then ``FRAC_BYTES[n]`` bytes BE of the fraction in
  units of 10^-n seconds (not TIMESTAMP2's units)

Each format is a hand-written primitive, for speed (:mod:`.codecs` uses them per value): its
``*_fields``/``*_parse`` and ``*_build`` functions, both directions, stand together below.
"""

from __future__ import annotations

import datetime as _dt
from ..records import record

from ...construct_ext.errors import IntegerError, StreamError, ValidationError

FRAC_BYTES = (0, 1, 1, 2, 2, 3, 3)
FRAC_SCALE = {1: 10000, 2: 100, 3: 1}  # stored unit per byte count, in microseconds


# two-digit fields: their text, kept (a format per field costs more than the rest)
_D2 = {i: f"{i:02d}" for i in range(100)}


def date_text(year, month, day) -> str:
    try:
        return f"{year:04d}-{_D2[month]}-{_D2[day]}"
    except KeyError:  # a field of three digits (or a value no server writes)
        return f"{year:04d}-{month:02d}-{day:02d}"


def datetime_text(year, month, day, hour, minute, second, microsecond) -> str:
    try:
        text = f"{year:04d}-{_D2[month]}-{_D2[day]} {_D2[hour]}:{_D2[minute]}:{_D2[second]}"
    except KeyError:
        text = f"{year:04d}-{month:02d}-{day:02d} {hour:02d}:{minute:02d}:{second:02d}"
    return text + f".{microsecond:06d}" if microsecond else text


def time_text(negative, hour, minute, second, microsecond) -> str:
    try:
        text = f"{'-' if negative else ''}{_D2[hour]}:{_D2[minute]}:{_D2[second]}"
    except KeyError:  # (TIME's hours go to 838)
        text = f"{'-' if negative else ''}{hour:02d}:{minute:02d}:{second:02d}"
    return text + f".{microsecond:06d}" if microsecond else text


def timestamp_text(seconds, microsecond) -> str:
    if seconds == 0 and microsecond == 0:
        return "0000-00-00 00:00:00"
    # UTC: the day's date (kept per day) and the time of day; the fraction as stored (a
    # 1-byte fraction of 255 hundredths is 2550000 us)
    days, rest = divmod(seconds, 86400)
    day = _DAYS.get(days)
    if day is None:
        day = _day_text(days)
    hours, rest = divmod(rest, 3600)
    return f"{day} {_D2[hours]}:{_D2[rest // 60]}:{_D2[rest % 60]}" + (
        f".{microsecond:06d}" if microsecond else "") + "Z"


@record(frozen=True)
class Date:
    year: int
    month: int
    day: int

    def isoformat(self) -> str:
        return date_text(self.year, self.month, self.day)

    def to_python(self):
        try:
            return _dt.date(self.year, self.month, self.day)
        except ValueError:
            return None


@record(frozen=True)
class DateTime:
    year: int
    month: int
    day: int
    hour: int = 0
    minute: int = 0
    second: int = 0
    microsecond: int = 0

    def isoformat(self) -> str:
        return datetime_text(self.year, self.month, self.day, self.hour, self.minute,
                             self.second, self.microsecond)

    def to_python(self):
        try:
            return _dt.datetime(self.year, self.month, self.day, self.hour, self.minute,
                                self.second, self.microsecond)
        except ValueError:
            return None


@record(frozen=True)
class Time:
    negative: bool
    hour: int
    minute: int
    second: int
    microsecond: int = 0

    def isoformat(self) -> str:
        return time_text(self.negative, self.hour, self.minute, self.second,
                         self.microsecond)

    def to_python(self):
        delta = _dt.timedelta(hours=self.hour, minutes=self.minute, seconds=self.second,
                              microseconds=self.microsecond)
        return -delta if self.negative else delta


@record(frozen=True)
class Timestamp:
    seconds: int
    microsecond: int = 0

    def isoformat(self) -> str:
        return timestamp_text(self.seconds, self.microsecond)

    def to_python(self):
        if self.seconds == 0 and self.microsecond == 0:
            return None
        return _dt.datetime.fromtimestamp(self.seconds, _dt.timezone.utc) + _dt.timedelta(
            microseconds=self.microsecond)


_DAYS: dict = {}  # days since 1970-01-01 -> "YYYY-MM-DD"
_EPOCH = _dt.date(1970, 1, 1)


def _day_text(days: int) -> str:
    d = _EPOCH + _dt.timedelta(days=days)
    text = f"{d.year:04d}-{d.month:02d}-{d.day:02d}"
    if len(_DAYS) >= 4096:
        _DAYS.clear()
    _DAYS[days] = text
    return text


def _need(data, pos, n):
    if pos + n > len(data):
        raise StreamError(f"value needs {n} bytes, {len(data) - pos} left")


def _frac_bytes(frac_units: int, fsp: int) -> bytes:
    n = FRAC_BYTES[fsp]
    return (frac_units % (1 << (8 * n))).to_bytes(n, "big") if n else b""


def _check(ok: bool, what, v):
    """Builders refuse (IntegerError) a value the format cannot hold or would
    read back as another value, instead of wrapping it or failing untyped."""
    if not ok:
        raise IntegerError(f"{what} {v!r} cannot be stored")


def _ints(v, *names) -> bool:
    return all(isinstance(getattr(v, n, None), int) for n in names)


def _frac_units(v, fsp) -> int:
    """The stored fraction of ``v.microsecond`` at ``fsp``: a whole number of the stored
    unit that fits its bytes (anything else would read back as another value)."""
    n = FRAC_BYTES[fsp]
    if not n:
        _check(v.microsecond == 0, f"a fraction at fsp {fsp} in", v)
        return 0
    units, rest = divmod(v.microsecond, FRAC_SCALE[n])
    _check(rest == 0 and 0 <= units < 1 << (8 * n), f"the fraction at fsp {fsp} of", v)
    return units


def check_fsp(fsp):
    """Refuse a fractional-seconds precision outside 0-6 (a TIME2/DATETIME2/TIMESTAMP2
    column's metadata), before a codec is made for it."""
    if not isinstance(fsp, int) or not 0 <= fsp <= 6:
        raise ValidationError(f"fractional-seconds precision {fsp!r} is not 0-6")


# --------------------------------------------------------------------------- DATE / old types


# Each layout is read once, into its fields (``*_fields(data, pos) -> (fields, pos)``): the
# typed value is made from them (``*_parse``), and so is its text (the JSON writer's).


def date_fields(data, pos):
    _need(data, pos, 3)
    v = int.from_bytes(data[pos:pos + 3], "little")
    return (v >> 9, (v >> 5) & 15, v & 31), pos + 3


def date_parse(data, pos):
    f, pos = date_fields(data, pos)
    return Date(*f), pos


def date_build(v: Date, out: bytearray):
    _check(_ints(v, "year", "month", "day"), "DATE", v)
    if not (0 <= v.day < 32 and 0 <= v.month < 16 and 0 <= v.year < 1 << 15):
        raise IntegerError(f"DATE {v} cannot be stored")
    out += (v.day | v.month << 5 | v.year << 9).to_bytes(3, "little")


def time_old_fields(data, pos):
    _need(data, pos, 3)
    v = int.from_bytes(data[pos:pos + 3], "little", signed=True)
    a = abs(v)
    return (v < 0, a // 10000, a // 100 % 100, a % 100, 0), pos + 3


def time_old_parse(data, pos):
    f, pos = time_old_fields(data, pos)
    return Time(*f), pos


def time_old_build(v: Time, out: bytearray):
    _check(_ints(v, "hour", "minute", "second", "microsecond") and v.microsecond == 0
           and v.hour >= 0 and 0 <= v.minute < 100 and 0 <= v.second < 100, "TIME", v)
    n = v.hour * 10000 + v.minute * 100 + v.second
    # three signed bytes: -2^23 (negative) down to 2^23 - 1; no negative zero
    _check((n < 1 << 23 or (v.negative and n == 1 << 23)) and not (v.negative and n == 0),
           "TIME", v)
    out += (-n if v.negative else n).to_bytes(3, "little", signed=True)


def datetime_old_fields(data, pos):
    _need(data, pos, 8)
    v = int.from_bytes(data[pos:pos + 8], "little")
    d, t = divmod(v, 1000000)
    return (d // 10000, d // 100 % 100, d % 100, t // 10000, t // 100 % 100, t % 100,
            0), pos + 8


def datetime_old_parse(data, pos):
    f, pos = datetime_old_fields(data, pos)
    return DateTime(*f), pos


def datetime_old_build(v: DateTime, out: bytearray):
    _check(_ints(v, "year", "month", "day", "hour", "minute", "second", "microsecond")
           and v.microsecond == 0 and v.year >= 0
           and all(0 <= x < 100 for x in (v.month, v.day, v.hour, v.minute, v.second)),
           "DATETIME", v)
    n = ((v.year * 10000 + v.month * 100 + v.day) * 1000000
         + v.hour * 10000 + v.minute * 100 + v.second)
    _check(n < 1 << 64, "DATETIME", v)
    out += n.to_bytes(8, "little")


def timestamp_old_fields(data, pos):
    _need(data, pos, 4)
    return (int.from_bytes(data[pos:pos + 4], "little"), 0), pos + 4


def timestamp_old_parse(data, pos):
    f, pos = timestamp_old_fields(data, pos)
    return Timestamp(*f), pos


def timestamp_old_build(v: Timestamp, out: bytearray):
    _check(_ints(v, "seconds", "microsecond") and 0 <= v.seconds < 1 << 32
           and v.microsecond == 0, "TIMESTAMP", v)
    out += v.seconds.to_bytes(4, "little")


# --------------------------------------------------------------------------- the "2" types


def _fsp_reader(make):
    """``fields(data, pos, fsp)`` from ``make(nfrac, scale)``, the reader of one precision
    (its fraction's byte count and unit made constants once)."""
    readers = [make(FRAC_BYTES[fsp], FRAC_SCALE.get(FRAC_BYTES[fsp], 0)) for fsp in range(7)]

    def fields(data, pos, fsp):
        return readers[fsp](data, pos)
    fields.readers = readers
    return fields


def time_parts(v: _dt.timedelta):
    """A TIME value's (negative, hours, minutes, seconds, microseconds), hours unbounded."""
    negative = v < _dt.timedelta(0)
    a = -v if negative else v
    secs, us = divmod((a.days * 86400 + a.seconds) * 1_000_000 + a.microseconds, 1_000_000)
    h, rest = divmod(secs, 3600)
    return negative, h, rest // 60, rest % 60, us


def _timestamp2(nfrac, scale):
    size = 4 + nfrac

    def read(data, pos):
        end = pos + size
        if end > len(data):
            raise StreamError(f"value needs {size} bytes, {len(data) - pos} left")
        return (int.from_bytes(data[pos:pos + 4], "big"),
                int.from_bytes(data[pos + 4:end], "big") * scale), end
    return read


def _datetime2(nfrac, scale):
    size = 5 + nfrac

    def read(data, pos):
        end = pos + size
        if end > len(data):
            raise StreamError(f"value needs {size} bytes, {len(data) - pos} left")
        packed = int.from_bytes(data[pos:pos + 5], "big") - 0x8000000000
        ymd, hms = packed >> 17, packed % (1 << 17)
        ym = ymd >> 5
        return (ym // 13, ym % 13, ymd % 32, hms >> 12, (hms >> 6) % 64, hms % 64,
                int.from_bytes(data[pos + 5:end], "big") * scale), end
    return read


timestamp2_fields = _fsp_reader(_timestamp2)
datetime2_fields = _fsp_reader(_datetime2)


def timestamp2_parse(data, pos, fsp):
    f, pos = timestamp2_fields(data, pos, fsp)
    return Timestamp(*f), pos


def timestamp2_build(v: Timestamp, out: bytearray, fsp):
    _check(_ints(v, "seconds", "microsecond") and 0 <= v.seconds < 1 << 32, "TIMESTAMP2", v)
    units = _frac_units(v, fsp)
    out += v.seconds.to_bytes(4, "big")
    if FRAC_BYTES[fsp]:
        out += _frac_bytes(units, fsp)


def datetime2_parse(data, pos, fsp):
    f, pos = datetime2_fields(data, pos, fsp)
    return DateTime(*f), pos


def datetime2_build(v: DateTime, out: bytearray, fsp):
    _check(_ints(v, "year", "month", "day", "hour", "minute", "second", "microsecond")
           and 0 <= v.month < 13 and 0 <= v.day < 32 and 0 <= v.hour < 32
           and 0 <= v.minute < 64 and 0 <= v.second < 64, "DATETIME2", v)
    units = _frac_units(v, fsp)
    ymd = ((v.year * 13 + v.month) << 5) | v.day
    hms = (v.hour << 12) | (v.minute << 6) | v.second
    packed = (ymd << 17) | hms
    _check(0 <= packed + 0x8000000000 < 1 << 40, "DATETIME2", v)
    out += (packed + 0x8000000000).to_bytes(5, "big")
    if FRAC_BYTES[fsp]:
        out += _frac_bytes(units, fsp)


def _c_div(a, b):  # C's truncating division
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def time2_parse(data, pos, fsp):
    f, pos = time2_fields(data, pos, fsp)
    return Time(*f), pos


def time2_fields(data, pos, fsp):
    """MySQL ``my_time_packed_from_binary`` then ``TIME_from_longlong_time_packed``."""
    n = 6 if fsp >= 5 else 3 + FRAC_BYTES[fsp]
    _need(data, pos, n)
    raw = data[pos:pos + n]
    if fsp >= 5:
        packed = int.from_bytes(raw, "big") - 0x800000000000
    else:
        intpart = int.from_bytes(raw[:3], "big") - 0x800000
        frac = int.from_bytes(raw[3:], "big") if fsp else 0
        width = 1 << (8 * (n - 3))
        if intpart < 0 and frac:
            intpart += 1
            frac -= width
        packed = intpart * (1 << 24) + frac * FRAC_SCALE.get(n - 3, 0)
    negative = packed < 0
    a = -packed if negative else packed
    hms, us = a >> 24, a % (1 << 24)
    return (negative, hms >> 12, (hms >> 6) % 64, hms % 64, us), pos + n


def time2_build(v: Time, out: bytearray, fsp):
    """MySQL ``TIME_to_longlong_time_packed`` then ``my_time_packed_to_binary``: the integer
    part is an arithmetic shift, the fraction C's truncating remainder."""
    _check(_ints(v, "hour", "minute", "second", "microsecond") and v.hour >= 0
           and 0 <= v.minute < 64 and 0 <= v.second < 64 and 0 <= v.microsecond < 1 << 24,
           "TIME2", v)
    if fsp < 5:
        _frac_units(v, fsp)
    hms = (v.hour << 12) | (v.minute << 6) | v.second
    packed = (hms << 24) + v.microsecond
    _check(not (v.negative and packed == 0), "TIME2 (negative zero)", v)
    _check(packed <= 1 << 47 if v.negative else packed < 1 << 47, "TIME2", v)
    if v.negative:
        packed = -packed
    if fsp >= 5:
        out += (packed + 0x800000000000).to_bytes(6, "big")
        return
    out += ((packed >> 24) + 0x800000).to_bytes(3, "big")
    nb = FRAC_BYTES[fsp]
    if nb:
        frac = packed - _c_div(packed, 1 << 24) * (1 << 24)
        out += (_c_div(frac, FRAC_SCALE[nb]) % (1 << (8 * nb))).to_bytes(nb, "big")


# --------------------------------------------------------------------------- MariaDB hi-res

HIRES_TIME_BYTES = (3, 4, 4, 5, 5, 5, 6)        # MariaDB Type_handler_time::m_hires_bytes
HIRES_DATETIME_BYTES = (5, 6, 6, 7, 7, 7, 8)    # Type_handler_datetime::m_hires_bytes
_TIME_MAX_US = (838 * 3600 + 59 * 60 + 59 + 1) * 1_000_000  # the hi-res TIME's zero point


def _unit(fsp) -> int:
    """The stored unit of a hi-res value of precision ``fsp``, in microseconds."""
    return 10 ** (6 - fsp)


def _hires_reader(make):
    """``fields(data, pos, fsp)`` of a hi-res layout from ``make(fsp)``, one reader per
    precision 1-6 (none for 0: that precision is the old format's)."""
    readers = [None] + [make(fsp) for fsp in range(1, 7)]

    def fields(data, pos, fsp):
        return readers[fsp](data, pos)
    fields.readers = readers
    return fields


def _time_hires(fsp):
    size, unit = HIRES_TIME_BYTES[fsp], _unit(fsp)
    zero = _TIME_MAX_US // unit

    def read(data, pos):
        end = pos + size
        if end > len(data):
            raise StreamError(f"value needs {size} bytes, {len(data) - pos} left")
        packed = (int.from_bytes(data[pos:end], "big") - zero) * unit
        negative = packed < 0
        secs, us = divmod(-packed if negative else packed, 1_000_000)
        minutes, second = divmod(secs, 60)
        hour, minute = divmod(minutes, 60)
        return (negative, hour, minute, second, us), end
    return read


def _datetime_hires(fsp):
    size, unit = HIRES_DATETIME_BYTES[fsp], _unit(fsp)

    def read(data, pos):
        end = pos + size
        if end > len(data):
            raise StreamError(f"value needs {size} bytes, {len(data) - pos} left")
        secs, us = divmod(int.from_bytes(data[pos:end], "big") * unit, 1_000_000)
        minutes, second = divmod(secs, 60)
        hours, minute = divmod(minutes, 60)
        days, hour = divmod(hours, 24)
        months, day = divmod(days, 32)
        year, month = divmod(months, 13)
        return (year, month, day, hour, minute, second, us), end
    return read


def _timestamp_hires(fsp):
    size, unit = 4 + FRAC_BYTES[fsp], _unit(fsp)

    def read(data, pos):
        end = pos + size
        if end > len(data):
            raise StreamError(f"value needs {size} bytes, {len(data) - pos} left")
        return (int.from_bytes(data[pos:pos + 4], "big"),
                int.from_bytes(data[pos + 4:end], "big") * unit), end
    return read


time_hires_fields = _hires_reader(_time_hires)
datetime_hires_fields = _hires_reader(_datetime_hires)
timestamp_hires_fields = _hires_reader(_timestamp_hires)


def _hires_units(v, fsp, what) -> int:
    """``v.microsecond`` in the stored unit of precision ``fsp`` (a whole number of it)."""
    units, rest = divmod(v.microsecond, _unit(fsp))
    _check(rest == 0 and units >= 0, f"the fraction at fsp {fsp} of {what}", v)
    return units


def time_hires_parse(data, pos, fsp):
    f, pos = time_hires_fields(data, pos, fsp)
    return Time(*f), pos


def time_hires_build(v: Time, out: bytearray, fsp):
    _check(_ints(v, "hour", "minute", "second", "microsecond") and v.hour >= 0
           and 0 <= v.minute < 60 and 0 <= v.second < 60, "TIME (hi-res)", v)
    units = ((v.hour * 60 + v.minute) * 60 + v.second) * 10 ** fsp + _hires_units(
        v, fsp, "TIME")
    _check(not (v.negative and units == 0), "TIME (hi-res, negative zero)", v)
    size = HIRES_TIME_BYTES[fsp]
    stored = (-units if v.negative else units) + _TIME_MAX_US // _unit(fsp)
    _check(0 <= stored < 1 << (8 * size), "TIME (hi-res)", v)
    out += stored.to_bytes(size, "big")


def datetime_hires_parse(data, pos, fsp):
    f, pos = datetime_hires_fields(data, pos, fsp)
    return DateTime(*f), pos


def datetime_hires_build(v: DateTime, out: bytearray, fsp):
    _check(_ints(v, "year", "month", "day", "hour", "minute", "second", "microsecond")
           and v.year >= 0 and 0 <= v.month < 13 and 0 <= v.day < 32 and 0 <= v.hour < 24
           and 0 <= v.minute < 60 and 0 <= v.second < 60, "DATETIME (hi-res)", v)
    secs = ((((v.year * 13 + v.month) * 32 + v.day) * 24 + v.hour) * 60 + v.minute) * 60 \
        + v.second
    stored = secs * 10 ** fsp + _hires_units(v, fsp, "DATETIME")
    size = HIRES_DATETIME_BYTES[fsp]
    _check(stored < 1 << (8 * size), "DATETIME (hi-res)", v)
    out += stored.to_bytes(size, "big")


def timestamp_hires_parse(data, pos, fsp):
    f, pos = timestamp_hires_fields(data, pos, fsp)
    return Timestamp(*f), pos


def timestamp_hires_build(v: Timestamp, out: bytearray, fsp):
    _check(_ints(v, "seconds", "microsecond") and 0 <= v.seconds < 1 << 32,
           "TIMESTAMP (hi-res)", v)
    units, nfrac = _hires_units(v, fsp, "TIMESTAMP"), FRAC_BYTES[fsp]
    _check(units < 1 << (8 * nfrac), "TIMESTAMP (hi-res)", v)
    out += v.seconds.to_bytes(4, "big") + units.to_bytes(nfrac, "big")

"""MySQL's binary JSON: the value of a JSON column in row events, and the JSON diff lists of
PARTIAL_UPDATE_ROWS_EVENT after images. Written from the layout of MySQL's
``sql-common/json_binary.cc`` (``sql/json_binary.cc`` before 8.0.31), ``json_dom.cc`` and
``sql/json_diff.cc``; no MySQL code is copied.

Layout
------
A document is one type byte then the value. Arrays and objects come in a *small* format
(2-byte counts, sizes and offsets) and a *large* one (4 bytes)::

    count, size, [key entry: key offset, uint16 key length] * count (objects only),
    [value entry: type byte, offset or inlined value] * count, keys, values

Offsets are relative to the start of the container (after its type byte); ``size`` covers the
whole container. Scalars: literals (null/true/false), int16/32/64, uint16/32/64 and double
(little-endian), strings (variable-length length: 7 bits a byte, least significant first, high
bit = more, then UTF-8 bytes) and opaque values (a MySQL field type byte, a variable-length
length, the bytes).

The serializer's choices, which :func:`encode` repeats so that server-written documents
rebuild byte for byte:

* a container is written small, unless its count, size or an offset exceeds 65535 with all its
  descendants small; then it is written large. Inside a large container each child makes the
  same choice again (a small container only holds small containers).
* object keys are sorted by byte length, then by bytes (``memcmp``), without duplicates.
* literals, int16 and uint16 are inlined in the value entry; int32 and uint32 only in the
  large format (4-byte entry: an int16 is stored sign-extended to 32 bits there).
* integers take the smallest of 16/32/64 bits that holds them, within their signedness.
* doubles are stored as 8 bytes IEEE little-endian.
* DECIMAL values are opaque NEWDECIMAL (246): precision byte, scale byte, ``decimal2bin``.
* DATE (10), TIME (11), DATETIME (12) and TIMESTAMP (7) are opaque with an 8-byte
  little-endian packed int64 (``TIME_to_longlong_packed``: ``((year * 13 + month) << 5 |
  day) << 17 | hour << 12 | minute << 6 | second``, shifted left 24, plus the microseconds).
  Zero dates are packed by the same formula, so the zero DATE, DATETIME and TIMESTAMP are
  eight zero bytes (``CAST(CAST('0000-00-00' AS DATE) AS JSON)``), and a zero in a date only
  zeroes its field (``2020-00-00``).
* containers nest at most 100 deep (``JSON_DOCUMENT_MAX_DEPTH``).

Python values
-------------
dict (str keys, stored order), list, str, int (INT types), :class:`JsonUInt` (UINT types),
float, bool, None; opaque values: :class:`JsonDecimal` (a ``decimal.Decimal`` remembering the
stored precision), ``datetime.date``, ``datetime.datetime``, :class:`JsonTimestamp`,
``datetime.timedelta`` (TIME), and :class:`JsonOpaque` for every other field type and for any
typed opaque value whose bytes the typed value would not rebuild exactly. A date Python cannot
hold (the zero date, a zero month or day, year 0, a day past its month's end) is the column
decoder's value (:mod:`.temporal`) as a JSON value: :class:`JsonDate` (a ``temporal.Date``),
:class:`JsonDateTime` (a ``temporal.DateTime``) and, for the zero TIMESTAMP,
:class:`JsonZeroTimestamp` (a ``temporal.Timestamp``); their ``isoformat()`` is MySQL's text of
them inside JSON (``json_dom.cc`` ``wrapper_to_string``: ``my_TIME_to_str`` with 6 fraction
digits, so ``0000-00-00`` and ``0000-00-00 00:00:00.000000``). The encoder also takes the
column decoder's ``temporal.Date``/``DateTime`` and the zero ``temporal.Timestamp``. Strings and
keys that
are not valid UTF-8 decode with ``surrogateescape`` and encode back to the same bytes. A plain
int beyond int64 encodes as uint64 (as MySQL's JSON parser makes it); a plain Decimal gets the
precision of its digits (integer digits, at least one, plus the scale).

Lossless rule: :func:`decode` returns the plain value when :func:`encode` of it gives back the
input bytes; otherwise (a document the serializer would not have written: large format where
small fits, unsorted keys, wide integers, gaps left by in-place updates, trailing bytes, the
empty value MySQL reads as null) it returns ``JsonDocument(value, raw)``, whose ``encode`` is
``raw``. The same holds for :func:`decode_diff` / :func:`encode_diff`.

Errors: malformed input raises ``StreamError`` (runs past the data) or ``ValidationError``
(anything else), from :mod:`binlog_schema.construct_ext.errors`; so does a value
:func:`encode` cannot write.

A hand-written primitive (a recursive format with offsets: no construct declaration would be
fast or simple), both directions in this module: :func:`decode`/:func:`encode` for documents,
:func:`decode_diff`/:func:`encode_diff` for diff lists, each pair written from the one layout
above and checked against each other (the lossless rule).
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import struct
from ..records import record

from ...construct_ext.errors import LayoutError, StreamError, ValidationError

from .decimal_bin import decimal_build, decimal_parse, decimal_size
from .temporal import Date, DateTime, Timestamp, datetime_text, time_parts

# ------------------------------------------------------------------------------ type table
# One table of codes, read by both directions.

SMALL_OBJECT = 0x00
LARGE_OBJECT = 0x01
SMALL_ARRAY = 0x02
LARGE_ARRAY = 0x03
LITERAL = 0x04
INT16 = 0x05
UINT16 = 0x06
INT32 = 0x07
UINT32 = 0x08
INT64 = 0x09
UINT64 = 0x0A
DOUBLE = 0x0B
STRING = 0x0C
OPAQUE = 0x0F

TYPE_NAMES = {
    SMALL_OBJECT: "SMALL_OBJECT", LARGE_OBJECT: "LARGE_OBJECT", SMALL_ARRAY: "SMALL_ARRAY",
    LARGE_ARRAY: "LARGE_ARRAY", LITERAL: "LITERAL", INT16: "INT16", UINT16: "UINT16",
    INT32: "INT32", UINT32: "UINT32", INT64: "INT64", UINT64: "UINT64", DOUBLE: "DOUBLE",
    STRING: "STRING", OPAQUE: "OPAQUE",
}

# container code -> (is object, large format)
_CONTAINERS = {SMALL_OBJECT: (True, False), LARGE_OBJECT: (True, True),
               SMALL_ARRAY: (False, False), LARGE_ARRAY: (False, True)}
_CONTAINER_CODES = {shape: code for code, shape in _CONTAINERS.items()}

# literal byte <-> value
_LITERALS = {0x00: None, 0x01: True, 0x02: False}
_LITERAL_BYTES = {None: 0x00, True: 0x01, False: 0x02}

# integer code -> (bytes, signed); per signedness in the serializer's order of preference
_INTS = {INT16: (2, True), INT32: (4, True), INT64: (8, True),
         UINT16: (2, False), UINT32: (4, False), UINT64: (8, False)}

# inlined in a value entry: always, or in the large format only
_INLINED_ALWAYS = frozenset({LITERAL, INT16, UINT16})
_INLINED_LARGE = frozenset({INT32, UINT32})

MAX_DEPTH = 100          # JSON_DOCUMENT_MAX_DEPTH: nesting of arrays/objects
MAX_OFFSET_SMALL = 0xFFFF
MAX_OFFSET_LARGE = 0xFFFFFFFF
MAX_KEY_LENGTH = 0xFFFF

# MySQL field types of the opaque values that get a typed Python value
MYSQL_TYPE_TIMESTAMP = 7
MYSQL_TYPE_DATE = 10
MYSQL_TYPE_TIME = 11
MYSQL_TYPE_DATETIME = 12
MYSQL_TYPE_NEWDECIMAL = 246

DIFF_OPERATIONS = {0: "REPLACE", 1: "INSERT", 2: "REMOVE"}   # enum_json_diff_operation
_DIFF_CODES = {name: code for code, name in DIFF_OPERATIONS.items()}


# ------------------------------------------------------------------------------ value types


class JsonUInt(int):
    """An integer stored with an unsigned JSON type (UINT16/32/64)."""

    __slots__ = ()

    def __repr__(self):
        return f"JsonUInt({int(self)})"


class JsonDecimal(_decimal.Decimal):
    """A DECIMAL value (opaque NEWDECIMAL) with the precision MySQL stored for it; the scale is
    the number of fraction digits (``-exponent``). ``precision=None``: that of the digits."""

    __slots__ = ("precision",)

    def __new__(cls, value="0", precision: int | None = None):
        self = super().__new__(cls, value)
        self.precision = precision
        return self

    def __repr__(self):
        return f"JsonDecimal({str(self)!r}, precision={self.precision!r})"

    def __reduce__(self):
        return (type(self), (str(self), self.precision))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class JsonTimestamp(_dt.datetime):
    """A TIMESTAMP value (opaque field type 7); a plain ``datetime`` is a DATETIME (12)."""

    __slots__ = ()


class JsonDate(Date):
    """A DATE (opaque field type 10) that Python's ``date`` cannot hold: the zero date
    ``0000-00-00``, a zero month or day (``2020-00-00``), year 0, or a day past its month's
    end; the column decoder's :class:`~.temporal.Date`, as a JSON value."""

    __slots__ = ()


class JsonDateTime(DateTime):
    """A DATETIME (opaque field type 12) that Python's ``datetime`` cannot hold (its date as
    :class:`JsonDate`'s); ``isoformat()`` as MySQL writes it inside JSON, always with 6
    fraction digits (``0000-00-00 00:00:00.000000``)."""

    __slots__ = ()

    def isoformat(self) -> str:
        return datetime_text(self.year, self.month, self.day, self.hour, self.minute,
                             self.second, 0) + f".{self.microsecond:06d}"


class JsonZeroTimestamp(Timestamp):
    """The zero TIMESTAMP (opaque field type 7, eight zero bytes): the column decoder's zero
    :class:`~.temporal.Timestamp` (``seconds`` and ``microsecond`` 0, the only value it may
    hold here), as a JSON value; ``isoformat()`` is ``0000-00-00 00:00:00.000000``."""

    __slots__ = ()

    def isoformat(self) -> str:
        return "0000-00-00 00:00:00.000000"


@record(frozen=True)
class JsonOpaque:
    """An opaque value: a MySQL field type and its bytes, as stored."""

    field_type: int
    data: bytes


@record
class JsonDocument:
    """A document (or diff list) not written the way MySQL's serializer writes it: ``value``
    is what it holds, ``raw`` the bytes, which :func:`encode` returns unchanged."""

    value: object
    raw: bytes


@record
class JsonDiffOp:
    """One entry of a PARTIAL_UPDATE_ROWS JSON diff list: ``op`` REPLACE, INSERT or REMOVE,
    the JSON path as MySQL printed it, and the value (None, and not stored, for REMOVE)."""

    op: str
    path: str
    value: object = None


# ------------------------------------------------------------------------------ helpers


def _need(have: int, n: int, what: str):
    if n > have:
        raise StreamError(f"JSON {what} needs {n} bytes, {max(have, 0)} left")


def _varlen_read(data: bytes, pos: int, end: int, what: str):
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


def _varlen_bytes(n: int) -> bytes:
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


def _net_read(data: bytes, pos: int, what: str):
    """MySQL's length-encoded integer (``net_field_length``)."""
    _need(len(data) - pos, 1, what)
    b = data[pos]
    if b < 251:
        return b, pos + 1
    width = {252: 2, 253: 3, 254: 8}.get(b)
    if width is None:
        raise ValidationError(f"JSON diff {what}: 0x{b:02x} is not a length prefix")
    _need(len(data) - pos - 1, width, what)
    return int.from_bytes(data[pos + 1:pos + 1 + width], "little"), pos + 1 + width


def _net_bytes(n: int) -> bytes:
    if n < 251:
        return bytes((n,))
    if n < 0x10000:
        return b"\xfc" + n.to_bytes(2, "little")
    if n < 0x1000000:
        return b"\xfd" + n.to_bytes(3, "little")
    return b"\xfe" + n.to_bytes(8, "little")


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _utf8(s: str, what: str) -> bytes:
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


def _opaque_value(field_type: int, data: bytes):
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


def _opaque_of(v):
    """(field type, bytes) of an opaque value, or None if ``v`` is no opaque value."""
    if isinstance(v, JsonOpaque):
        if not (isinstance(v.field_type, int) and 0 <= v.field_type <= 255):
            raise ValidationError(f"JSON opaque field type {v.field_type!r} is not a byte")
        return v.field_type, bytes(v.data)
    for ft, cls, to in _OPAQUE_TYPED:
        if isinstance(v, cls):
            return ft, to(v)
    return None


# ------------------------------------------------------------------------------ decoding


class _Reader:
    """Reads one document. ``budget`` bounds the bytes visited: values sharing bytes (offsets
    pointing at the same place) cannot make the result larger than a few times the input."""

    __slots__ = ("data", "budget")

    def __init__(self, data: bytes):
        self.data = data
        self.budget = 2 * len(data) + 64

    def _charge(self, n: int):
        self.budget -= n
        if self.budget < 0:
            raise ValidationError("JSON document visits more bytes than it holds "
                                    "(values share their bytes)")

    def value(self, code: int, start: int, end: int, depth: int):
        shape = _CONTAINERS.get(code)
        if shape is not None:
            return self.container(shape[0], shape[1], start, end, depth + 1)
        return self.scalar(code, start, end)

    def scalar(self, code: int, start: int, end: int):
        data = self.data
        have = end - start
        if code == LITERAL:
            _need(have, 1, "literal")
            self._charge(1)
            return self._literal(data[start])
        spec = _INTS.get(code)
        if spec is not None:
            width, signed = spec
            _need(have, width, TYPE_NAMES[code])
            self._charge(width)
            v = int.from_bytes(data[start:start + width], "little", signed=signed)
            return v if signed else JsonUInt(v)
        if code == DOUBLE:
            _need(have, 8, "double")
            self._charge(8)
            return struct.unpack_from("<d", data, start)[0]
        if code == STRING:
            n, pos = _varlen_read(data, start, end, "string")
            _need(end - pos, n, "string")
            self._charge(pos - start + n)
            return _text(data[pos:pos + n])
        if code == OPAQUE:
            _need(have, 1, "opaque field type")
            n, pos = _varlen_read(data, start + 1, end, "opaque")
            _need(end - pos, n, "opaque value")
            self._charge(pos - start + n)
            return _opaque_value(data[start], data[pos:pos + n])
        raise ValidationError(f"unknown JSON value type 0x{code:02x}")

    @staticmethod
    def _literal(b: int):
        if b not in _LITERALS:
            raise ValidationError(f"unknown JSON literal 0x{b:02x}")
        return _LITERALS[b]

    def _inlined(self, code: int, pos: int):
        data = self.data
        if code == LITERAL:
            return self._literal(data[pos])
        width, signed = _INTS[code]
        v = int.from_bytes(data[pos:pos + width], "little", signed=signed)
        return v if signed else JsonUInt(v)

    def container(self, is_object: bool, large: bool, start: int, end: int, depth: int):
        if depth > MAX_DEPTH:
            raise ValidationError(f"JSON document nests deeper than {MAX_DEPTH}")
        data = self.data
        what = "object" if is_object else "array"
        osz = 4 if large else 2
        _need(end - start, 2 * osz, f"{what} header")
        count = int.from_bytes(data[start:start + osz], "little")
        size = int.from_bytes(data[start + osz:start + 2 * osz], "little")
        _need(end - start, size, f"{what} of {size} bytes")
        ksz = osz + 2 if is_object else 0
        vsz = 1 + osz
        header = 2 * osz + count * (ksz + vsz)
        if header > size:
            raise ValidationError(f"JSON {what} of {count} members does not fit its "
                                    f"{size} bytes")
        self._charge(header)
        inlined = _INLINED_ALWAYS | _INLINED_LARGE if large else _INLINED_ALWAYS
        keys = []
        pos = start + 2 * osz
        for _ in range(count * bool(is_object)):
            koff = int.from_bytes(data[pos:pos + osz], "little")
            klen = int.from_bytes(data[pos + osz:pos + osz + 2], "little")
            if koff < header or koff + klen > size:
                raise ValidationError(f"JSON object key at {koff} (+{klen}) lies outside "
                                        f"{header}..{size}")
            self._charge(klen)
            keys.append(_text(data[start + koff:start + koff + klen]))
            pos += ksz
        values = []
        cend = start + size
        for _ in range(count):
            code = data[pos]
            if code in inlined:
                values.append(self._inlined(code, pos + 1))
            else:
                off = int.from_bytes(data[pos + 1:pos + 1 + osz], "little")
                if off < header or off >= size:
                    raise ValidationError(f"JSON {what} value at {off} lies outside "
                                            f"{header}..{size}")
                values.append(self.value(code, start + off, cend, depth))
            pos += vsz
        return dict(zip(keys, values)) if is_object else values


def decode(data) -> object:
    """The value of one binary JSON document (a JSON column's bytes after their length).

    Returns ``JsonDocument(value, raw)`` when :func:`encode` of the value would not give back
    ``data`` (see the module's lossless rule)."""
    data = bytes(data)
    if not data:   # MySQL reads an empty value (IGNORE / non-strict inserts) as null
        return JsonDocument(None, data)
    value = _Reader(data).value(data[0], 1, len(data), 0)
    try:
        canonical = encode(value)
    except LayoutError:
        canonical = None
    return value if canonical == data else JsonDocument(value, data)


# ------------------------------------------------------------------------------ encoding


class _TooBig(Exception):
    """A small-format container overflowed its 16-bit sizes: the caller retries large."""


def _int_spec(v: int):
    signed = not isinstance(v, JsonUInt)
    if signed and not -(1 << 63) <= v < 1 << 63:
        signed = False      # beyond int64: uint64, as MySQL's JSON parser makes it
    if not signed and not 0 <= v < 1 << 64:
        raise ValidationError(f"JSON integer {v} fits neither int64 nor uint64")
    for code, (width, s) in _INTS.items():
        if s == signed:
            bits = 8 * width
            lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if s else (0, 1 << bits)
            if lo <= v < hi:
                return code, width, signed
    raise AssertionError("unreachable")  # pragma: no cover


def _plain(v):
    while isinstance(v, JsonDocument):   # nested: its value (raw bytes only at the top)
        v = v.value
    return v


def _inline_entry(v, large: bool):
    """(code, entry integer) when the serializer inlines ``v`` in its value entry."""
    if v is None or isinstance(v, bool):
        return LITERAL, _LITERAL_BYTES[v]
    if isinstance(v, int):
        code, _, _ = _int_spec(v)
        if code in _INLINED_ALWAYS or (large and code in _INLINED_LARGE):
            return code, v
    return None


def _scalar(v):
    if v is None or isinstance(v, bool):
        return LITERAL, bytes((_LITERAL_BYTES[v],))
    if isinstance(v, int):
        code, width, signed = _int_spec(v)
        return code, int(v).to_bytes(width, "little", signed=signed)
    if isinstance(v, float):
        return DOUBLE, struct.pack("<d", v)
    if isinstance(v, str):
        b = _utf8(v, "string")
        return STRING, _varlen_bytes(len(b)) + b
    opaque = _opaque_of(v)
    if opaque is not None:
        ft, b = opaque
        return OPAQUE, bytes((ft,)) + _varlen_bytes(len(b)) + b
    raise ValidationError(f"cannot encode a {type(v).__name__} as binary JSON")


def _object_items(d: dict):
    items = []
    for k, v in d.items():
        if not isinstance(k, str):
            raise ValidationError(f"JSON object key {k!r} is not a str")
        kb = _utf8(k, "key")
        if len(kb) > MAX_KEY_LENGTH:
            raise ValidationError(f"JSON object key of {len(kb)} bytes exceeds 65535")
        items.append((kb, v))
    items.sort(key=lambda kv: (len(kv[0]), kv[0]))
    for a, b in zip(items, items[1:]):
        if a[0] == b[0]:
            raise ValidationError(f"JSON object has the key {a[0]!r} twice")
    return items


def _container(items, is_object: bool, large: bool, depth: int) -> bytes:
    osz = 4 if large else 2
    limit = MAX_OFFSET_LARGE if large else MAX_OFFSET_SMALL

    def check(n):
        if n > limit:
            if not large:
                raise _TooBig
            raise ValidationError(f"JSON value of {n} bytes exceeds 4 GiB")

    n = len(items)
    check(n)
    ksz = osz + 2 if is_object else 0
    vsz = 1 + osz
    header = 2 * osz + n * (ksz + vsz)
    out = bytearray(header)
    if is_object:
        off = header
        pos = 2 * osz
        for kb, _ in items:
            check(off)
            out[pos:pos + osz] = off.to_bytes(osz, "little")
            out[pos + osz:pos + ksz] = len(kb).to_bytes(2, "little")
            off += len(kb)
            pos += ksz
        for kb, _ in items:
            out += kb
        values = [v for _, v in items]
    else:
        values = items
    mask = (1 << (8 * osz)) - 1
    pos = 2 * osz + n * ksz
    for v in values:
        v = _plain(v)
        inl = _inline_entry(v, large)
        if inl is not None:
            out[pos] = inl[0]
            out[pos + 1:pos + vsz] = (inl[1] & mask).to_bytes(osz, "little")
        else:
            off = len(out)
            check(off)
            code, payload = _value(v, depth, small_parent=not large)
            out[pos] = code
            out[pos + 1:pos + vsz] = off.to_bytes(osz, "little")
            out += payload
        pos += vsz
    check(len(out))
    out[0:osz] = n.to_bytes(osz, "little")
    out[osz:2 * osz] = len(out).to_bytes(osz, "little")
    return bytes(out)


def _value(v, depth: int, small_parent: bool):
    """(type code, bytes) of ``v`` as the serializer writes it at nesting ``depth``."""
    v = _plain(v)
    if isinstance(v, (dict, list, tuple)):
        is_object = isinstance(v, dict)
        if depth + 1 > MAX_DEPTH:
            raise ValidationError(f"JSON value nests deeper than {MAX_DEPTH}")
        items = _object_items(v) if is_object else list(v)
        try:
            return (_CONTAINER_CODES[is_object, False],
                    _container(items, is_object, False, depth + 1))
        except _TooBig:
            if small_parent:
                raise
        return _CONTAINER_CODES[is_object, True], _container(items, is_object, True, depth + 1)
    return _scalar(v)


def encode(value) -> bytes:
    """The binary JSON MySQL's serializer writes for ``value`` (a :class:`JsonDocument`: its
    raw bytes)."""
    if isinstance(value, JsonDocument):
        return bytes(value.raw)
    code, payload = _value(value, 0, small_parent=False)
    return bytes((code,)) + payload


# ------------------------------------------------------------------------------ diffs


def decode_diff(data):
    """The diff list of a PARTIAL_UPDATE_ROWS JSON column: the bytes after the column's 4-byte
    length. Each diff: operation byte, length-encoded path length, path, and unless REMOVE a
    length-encoded value length and the binary JSON value. Returns a list of
    :class:`JsonDiffOp`, or ``JsonDocument(list, raw)`` when :func:`encode_diff` would not give
    back ``data`` (e.g. a length in a longer encoding than needed)."""
    data = bytes(data)
    ops = []
    pos = 0
    while pos < len(data):
        op = DIFF_OPERATIONS.get(data[pos])
        if op is None:
            raise ValidationError(f"unknown JSON diff operation {data[pos]}")
        n, pos = _net_read(data, pos + 1, "path length")
        _need(len(data) - pos, n, "diff path")
        path = _text(data[pos:pos + n])
        pos += n
        if op == "REMOVE":
            ops.append(JsonDiffOp(op, path))
            continue
        n, pos = _net_read(data, pos, "value length")
        _need(len(data) - pos, n, "diff value")
        ops.append(JsonDiffOp(op, path, decode(data[pos:pos + n])))
        pos += n
    try:
        canonical = encode_diff(ops)
    except LayoutError:
        canonical = None
    return ops if canonical == data else JsonDocument(ops, data)


def encode_diff(ops) -> bytes:
    """The bytes of a diff list (without the 4-byte length): the inverse of
    :func:`decode_diff`. ``ops``: :class:`JsonDiffOp` items (or (op, path[, value]) tuples)."""
    if isinstance(ops, JsonDocument):
        return bytes(ops.raw)
    out = bytearray()
    for d in ops:
        if not isinstance(d, JsonDiffOp):
            d = JsonDiffOp(*d)
        code = _DIFF_CODES.get(d.op)
        if code is None:
            raise ValidationError(f"unknown JSON diff operation {d.op!r}")
        path = _utf8(d.path, "path")
        out.append(code)
        out += _net_bytes(len(path))
        out += path
        if d.op == "REMOVE":
            if d.value is not None:
                raise ValidationError("a REMOVE JSON diff has no value")
            continue
        b = encode(d.value)
        out += _net_bytes(len(b))
        out += b
    return bytes(out)


__all__ = [
    "decode", "encode", "decode_diff", "encode_diff",
    "JsonUInt", "JsonDecimal", "JsonTimestamp", "JsonOpaque", "JsonDocument", "JsonDiffOp",
    "JsonDate", "JsonDateTime", "JsonZeroTimestamp",
    "TYPE_NAMES", "DIFF_OPERATIONS", "MAX_DEPTH",
]

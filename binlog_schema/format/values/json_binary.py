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

This module holds the format's vocabulary, read by both directions: the type codes and limits
of the layout above, and the Python value classes. The codec is a hand-written primitive (a
recursive format with offsets: no construct declaration would be fast or simple), each part's
two directions side by side in one module, written from the one layout above and checked
against each other (the lossless rule):

* :mod:`.json_scalars`: the bytes of the scalars with an encoding of their own (variable-length
  lengths, UTF-8 text, the typed opaque values: DECIMAL, DATE, TIME, DATETIME, TIMESTAMP);
* :mod:`.json_document`: :func:`decode` / :func:`encode` of a document;
* :mod:`.json_diff`: :func:`decode_diff` / :func:`encode_diff` of a diff list.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
from ..records import record

from .temporal import Date, DateTime, Timestamp, datetime_text

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
CONTAINERS = {SMALL_OBJECT: (True, False), LARGE_OBJECT: (True, True),
              SMALL_ARRAY: (False, False), LARGE_ARRAY: (False, True)}
CONTAINER_CODES = {shape: code for code, shape in CONTAINERS.items()}

# literal byte <-> value
LITERALS = {0x00: None, 0x01: True, 0x02: False}
LITERAL_BYTES = {None: 0x00, True: 0x01, False: 0x02}

# integer code -> (bytes, signed); per signedness in the serializer's order of preference
INTS = {INT16: (2, True), INT32: (4, True), INT64: (8, True),
        UINT16: (2, False), UINT32: (4, False), UINT64: (8, False)}

# inlined in a value entry: always, or in the large format only
INLINED_ALWAYS = frozenset({LITERAL, INT16, UINT16})
INLINED_LARGE = frozenset({INT32, UINT32})

MAX_DEPTH = 100          # JSON_DOCUMENT_MAX_DEPTH: nesting of arrays/objects
MAX_OFFSET_SMALL = 0xFFFF
MAX_OFFSET_LARGE = 0xFFFFFFFF
MAX_KEY_LENGTH = 0xFFFF


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


__all__ = [
    "JsonUInt", "JsonDecimal", "JsonTimestamp", "JsonOpaque", "JsonDocument", "JsonDiffOp",
    "JsonDate", "JsonDateTime", "JsonZeroTimestamp",
    "TYPE_NAMES", "MAX_DEPTH",
]

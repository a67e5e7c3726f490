"""Exact SQL literals of decoded row values: the one place where a value of a column becomes
SQL text (``binlog-schema sql``, its flashback, and the synthetic fixtures' statements).

Exact means: a server running :data:`SESSION_SQL` and reading :func:`literal`'s text stores
exactly the value the binlog holds, and a WHERE term of :func:`condition` matches exactly the
rows holding it. What has no such text raises :class:`SqlValueError` (naming the column)
instead of writing something close.

The rules, per value (``value`` as :func:`binlog_schema.format.values.codecs.codec_for` parses it):

* ``None``: ``NULL``. Integers and YEAR: decimal digits (YEAR 0 is the number 0, stored as
  0000). BIT: ``b'101'`` (0: ``b'0'``). DECIMAL: ``format(v, "f")``, every digit.
* FLOAT / DOUBLE: a double literal with an exponent, ``repr(float(v))`` plus ``e0`` when it
  has none (``1.100000023841858e0``): the server reads it as the double nearest that text,
  which is exactly the stored value (a FLOAT's float32 widened to a double: storing it rounds
  back to the same float32, and ``float_col = 1.100000023841858e0`` compares the widened
  float32 with it, equal). -0.0 keeps its sign. NaN and infinities: SqlValueError.
* DATE, DATETIME, TIME: quoted text with exactly the column's fsp fraction digits; zero dates
  and zero parts (``'0000-00-00'``, ``'2024-00-15'``), TIME beyond 24 hours and negative
  (``'-838:59:59.000000'``, ``'-00:00:00.000001'``). A fraction the column cannot hold (more
  digits than its fsp, or a stored fraction of a second or more): SqlValueError. TIMESTAMP:
  the UTC date and time (the session's time zone is +00:00), the zero TIMESTAMP as
  ``'0000-00-00 00:00:00'``.
* Text (a column whose collation is not binary): ``_<charset>'...'`` with backslash escapes
  (:func:`qs`) when the statement's own text (UTF-8, ``SET NAMES utf8mb4``) is the stored
  bytes: always for utf8mb4 and utf8mb3 (utf8mb3 only within the BMP), for the other
  ASCII-based character sets when the stored bytes are ASCII (the quoted text is those
  bytes). Otherwise, and for a ``bytes`` value (bytes that are not text in the column's
  character set), ``_<charset> X'<hex>' COLLATE <collation>``: the stored bytes themselves.
  ucs2, utf16, utf16le and utf32 are always hex (their ASCII is not one byte). The empty
  string is ``_<charset>''``. A column whose collation the table map does not give (MariaDB's
  default ``binlog_row_metadata=NO_LOG``): ``X'<hex>'`` of the stored bytes (``''`` empty),
  which a text column stores unchanged whatever its character set, and which compares with
  it as bytes.
* Binary strings (collation 63): ``X'<hex>'`` (``X''`` empty). BINARY(n) (a STRING column of
  the binary collation: the binlog drops its trailing zero bytes) is padded back to its n
  bytes with zeros, so that the literal compares equal to the stored value; MariaDB's INET4,
  INET6 and UUID are logged as BINARY(4/16) and get the same padding (this module cannot tell
  them from BINARY(n); their 4/16 bytes are what both accept).
* ENUM: the member name as text (the column's character set rules above) when the table map
  logged the names, else the index as a number. The index 0 (the error value ``''``) is the
  number ``0`` whether or not names are known: ``''`` would mean a member named ``''`` when
  there is one, while the number 0 stores the error value (a warning, not an error, outside
  strict mode). SET: the members' names joined by ``,`` when every set bit has a name, else
  the bits as a number. (In :func:`condition` ENUM and SET always compare by number: exact
  whatever the collation.)
* JSON, MySQL (binary JSON): ``CAST(_utf8mb4'<json text>' AS JSON)`` when the JSON text
  parser gives back every value with its type: strings, int64 integers, literals and the
  doubles its default (not full-precision) number parser reads exactly (at most 2**53 - 1 as
  a decimal significand and a power of ten within +-22, where one IEEE operation is exact).
  Otherwise the document is built with ``JSON_OBJECT`` / ``JSON_ARRAY`` around the values
  that need a typed expression: ``CAST(<double literal> AS JSON)``, unsigned integers
  ``CAST(CAST(n AS UNSIGNED) AS JSON)``, decimals ``CAST(CAST('t' AS DECIMAL(p,s)) AS
  JSON)``, DATE / DATETIME(6) / TIME(6) casts of their text (zero dates included). TIMESTAMP
  and other opaque values, strings that are not UTF-8, and non-finite doubles have no SQL
  form: SqlValueError. A document that was not stored in the serializer's canonical bytes
  (``JsonDocument``) is written by value: the server stores the same value, canonically.
* JSON, MariaDB: a LONGTEXT in utf8mb4_bin: a utf8mb4 text literal.
* Partial JSON (``JsonDiff`` of a PARTIAL_UPDATE_ROWS after image): SqlValueError; with the
  row's before image, :func:`apply_json_diffs` gives the document.
* GEOMETRY: ``ST_GeomFromWKB(X'<wkb>', srid)``; on MySQL with srid != 0 a third argument
  ``'axis-order=long-lat'`` (MySQL 8.0+ reads a geographic SRS's WKB in its own axis order,
  lat-long for 4326, unless told; the binlog holds the internal long-lat order).
* VECTOR: MySQL ``STRING_TO_VECTOR('[...]')``, MariaDB ``VEC_FromText('[...]')``, each float32
  written as the shortest text of the *double* it widens to (``repr``), not the shortest
  float32 text: that text's nearest double is exactly the float32, so it is exact whether
  the server parses to float32 directly or through a double (the shortest float32 text
  could round twice the other way). MySQL compares a VECTOR only with a VECTOR, hence the
  functions and not a binary string. NaN and infinities: SqlValueError.
* ``Compressed`` (MariaDB compressed columns): the literal of its ``.data``.
"""

from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import math

from ..construct_ext.jsontext import dumps as _json_dumps
from ..format.facts.charsets import (BINARY_ID, BMP_ONLY, UTF8MB4_BIN_ID, CollationError,
                              bin_collation, charset_of_id, collation_name, text_codec)
from ..format.facts.flavor import json_is_binary
from ..format.values import temporal
from ..format.values.codecs import Compressed, EnumValue, Geometry, SetValue
from ..format.values.image import JsonDiff
from ..format.values.json_binary import (JsonDate, JsonDateTime, JsonDiffOp, JsonDocument,
                                  JsonOpaque, JsonTimestamp, JsonUInt, JsonZeroTimestamp)

# The statements an output file starts with, so that its literals mean what they say:
SESSION_SQL = (
    # the statement text is UTF-8: a quoted utf8mb4 literal is the stored bytes, and the
    # ASCII of every other character set's quoted literals is read as those bytes
    "SET NAMES utf8mb4",
    # TIMESTAMP literals are UTC date and time text (and WHERE terms compare in UTC)
    "SET SESSION time_zone = '+00:00'",
    # no strict mode (the ENUM error value 0 is stored, not refused), no NO_ZERO_DATE /
    # NO_ZERO_IN_DATE (zero dates and zero parts are stored as logged), no
    # NO_BACKSLASH_ESCAPES (the quoted literals use backslash escapes); NO_AUTO_VALUE_ON_ZERO
    # so that an AUTO_INCREMENT column's logged 0 is stored as 0, not as the next value
    "SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO'",
)


class SqlValueError(ValueError):
    """A value that has no exact SQL literal; the message names the column."""


def qi(name: str) -> str:
    """A quoted identifier."""
    return "`" + str(name).replace("`", "``") + "`"


def qs(text: str) -> str:
    """A quoted string literal (backslash escapes, as both servers read them by default)."""
    out = (text.replace("\\", "\\\\").replace("'", "\\'").replace("\0", "\\0")
           .replace("\x1a", "\\Z").replace("\r", "\\r").replace("\n", "\\n"))
    return f"'{out}'"


def _name(col) -> str:
    name = getattr(col, "name", None)
    return repr(name) if name is not None else f"#{getattr(col, 'index', '?')}"


def _fail(col, what: str):
    raise SqlValueError(f"column {_name(col)}: {what}")


# ---------------------------------------------------------------------------- dispatch

_INTEGERS = frozenset({"TINY", "SHORT", "INT24", "LONG", "LONGLONG", "YEAR"})
_TEXT_TYPES = frozenset({"VARCHAR", "VAR_STRING", "STRING", "TINY_BLOB", "MEDIUM_BLOB",
                         "LONG_BLOB", "BLOB", "VARCHAR_COMPRESSED", "BLOB_COMPRESSED"})
# character sets whose ASCII is not one byte a character: never quoted text
_WIDE = frozenset({"ucs2", "utf16", "utf16le", "utf32"})
_UTF8 = frozenset({"utf8mb3", "utf8mb4"})


def literal(col, value, flavor: str) -> str:
    """The exact SQL literal of ``value`` (as the row decoder gives it) in table-map column
    ``col`` of a ``flavor`` ("mysql" or "mariadb") server; SqlValueError when it has none."""
    if value is None:
        return "NULL"
    if isinstance(value, Compressed):
        value = value.data
    if isinstance(value, JsonDiff):
        _fail(col, "partial JSON update: a JSON diff list needs the before image "
                   "(apply_json_diffs) to become a document")
    ty = col.type
    kind = col.real_type if col.real_type in ("ENUM", "SET") else ty
    if kind in _INTEGERS:
        return str(int(value))
    if kind == "BIT":
        return f"b'{int(value):b}'"
    if kind in ("NEWDECIMAL", "DECIMAL"):
        return _decimal_text(col, value)
    if kind in ("FLOAT", "DOUBLE"):
        return double_literal(col, value)
    if kind in ("DATE", "NEWDATE", "TIME", "TIME2", "DATETIME", "DATETIME2", "TIMESTAMP",
                "TIMESTAMP2"):
        return qs(temporal_text(col, value))
    if kind == "ENUM":
        return _enum_literal(col, value, flavor)
    if kind == "SET":
        return _set_literal(col, value, flavor)
    if kind == "JSON":
        if json_is_binary(flavor):
            return json_literal(col, value)
        return _text_literal(col, value, UTF8MB4_BIN_ID, flavor)
    if kind == "GEOMETRY":
        return _geometry_literal(col, value, flavor)
    if kind == "VECTOR":
        return _vector_literal(col, value, flavor)
    if kind == "NULL":
        return "NULL"
    if kind in _TEXT_TYPES:
        return _string_literal(col, value, flavor)
    _fail(col, f"no SQL literal for column type {ty!r}")


def condition(col, name: str, value, flavor: str, exact: bool) -> str:
    """One WHERE term: column ``name`` (already quoted) holds ``value``. ``exact`` False (a key
    lookup): ``name = lit``. ``exact`` True (a table without a key, where every column must
    match one row exactly): ``name <=> lit``, text compared in its character set's binary
    collation and, for VARCHAR/TEXT (PAD SPACE collations ignore trailing spaces), its byte
    length too. ENUM and SET compare by number; MySQL JSON with ``=`` (JSON equality).
    NULL: ``name IS NULL``."""
    if value is None:
        return f"{name} IS NULL"
    if isinstance(value, Compressed):
        value = value.data
    op = "<=>" if exact else "="
    kind = col.real_type if col.real_type in ("ENUM", "SET") else col.type
    if kind == "ENUM":
        return f"{name} {op} {value.index if isinstance(value, EnumValue) else int(value)}"
    if kind == "SET":
        return f"{name} {op} {value.bits if isinstance(value, SetValue) else int(value)}"
    if kind == "JSON" and json_is_binary(flavor):
        return f"{name} = {json_literal(col, value)}"
    if exact and (kind in _TEXT_TYPES or kind == "JSON"):
        cid = UTF8MB4_BIN_ID if kind == "JSON" else col.collation_id
        if cid is not None and cid != BINARY_ID:
            charset = _charset(col, cid)
            lit = _text_literal(col, value, cid, flavor, bin_collation(charset, flavor))
            term = f"{name} <=> {lit}"
            if kind != "STRING":   # CHAR values are stored without their trailing spaces
                term = f"({term} AND LENGTH({name}) = {len(_text_bytes(col, value, cid))})"
            return term
    return f"{name} {op} {literal(col, value, flavor)}"


# ---------------------------------------------------------------------------- numbers


def _decimal_text(col, value) -> str:
    if not isinstance(value, _decimal.Decimal):
        value = _decimal.Decimal(value)
    if not value.is_finite():
        _fail(col, f"DECIMAL {value} is not a number")
    return format(value, "f")


def double_literal(col, value) -> str:
    """A double literal whose value is exactly ``value`` (a FLOAT's float32 or a DOUBLE)."""
    v = float(value)
    if not math.isfinite(v):
        _fail(col, f"{value!r}: NaN and infinities have no SQL literal")
    text = repr(v)
    return text if "e" in text else text + "e0"


# ---------------------------------------------------------------------------- temporal


def _fraction(col, microsecond: int, fsp: int) -> str:
    if not 0 <= microsecond < 1_000_000 or microsecond % 10 ** (6 - fsp):
        _fail(col, f"a fraction of {microsecond} microseconds does not fit fsp {fsp}")
    return "." + f"{microsecond:06d}"[:fsp] if fsp else ""


def temporal_text(col, v) -> str:
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
    _fail(col, f"{v!r} is not a temporal value")


# ---------------------------------------------------------------------------- strings


def _charset(col, cid: int) -> str:
    try:
        return charset_of_id(cid)
    except CollationError:
        if cid >= 1024:            # a NOPAD id: 1024 + its PAD id's
            try:
                return charset_of_id(cid - 1024)
            except CollationError:
                pass
    _fail(col, f"unknown collation id {cid}")


def _text_bytes(col, value, cid) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    try:
        return text_codec(cid)[1](value)
    except Exception as e:  # noqa: BLE001 - a StringError: text the character set cannot hold
        _fail(col, str(e))


def _text_literal(col, value, cid, flavor, collate: str | None = None) -> str:
    """A text literal of character set ``cid``'s: quoted when the statement's UTF-8 text is
    the stored bytes, else hex with the collation (``collate``, else the column's)."""
    charset = _charset(col, cid)
    raw = _text_bytes(col, value, cid)
    tail = f" COLLATE {collate}" if collate else ""
    if isinstance(value, str):
        if charset in _UTF8:
            if charset not in BMP_ONLY or all(ord(c) <= 0xFFFF for c in value):
                return f"_{charset}{qs(value)}{tail}"
        elif charset not in _WIDE and raw.isascii():
            return f"_{charset}{qs(raw.decode('ascii'))}{tail}"
    if not raw:
        return f"_{charset}''{tail}"
    if collate is None:
        try:
            tail = f" COLLATE {collation_name(cid, flavor)}"
        except CollationError:
            tail = ""          # (the character set's default collation: same bytes)
    return f"_{charset} X'{raw.hex()}'{tail}"


def _binary_literal(raw: bytes) -> str:
    return f"X'{raw.hex()}'"


def _string_literal(col, value, flavor) -> str:
    cid = col.collation_id
    if cid == BINARY_ID:
        raw = bytes(value) if not isinstance(value, str) else value.encode("utf-8")
        if col.type == "STRING" and col.max_length:     # BINARY(n): its trailing zeros
            raw = raw.ljust(col.max_length, b"\0")
        return _binary_literal(raw)
    if cid is None:             # no collation logged: the stored bytes, as they are
        raw = _text_bytes(col, value, None)
        return _binary_literal(raw)
    return _text_literal(col, value, cid, flavor)


def _member_literal(col, name, flavor):
    """An ENUM/SET member name (str, or ``{"hex": ...}`` when not text) as a literal; None
    when the column's character set is not known."""
    cid = col.collation_id
    if cid is None or cid == BINARY_ID:
        return None
    if isinstance(name, dict):
        name = bytes.fromhex(name["hex"])
    return _text_literal(col, name, cid, flavor)


def _enum_literal(col, value, flavor) -> str:
    if not isinstance(value, EnumValue):
        return str(int(value))
    if value.index and value.name is not None:
        lit = _member_literal(col, value.name, flavor)
        if lit is not None:
            return lit
    return str(value.index)


def _set_literal(col, value, flavor) -> str:
    if not isinstance(value, SetValue):
        return str(int(value))
    names = value.names
    if names is not None and len(names) == bin(value.bits).count("1") and not any(
            isinstance(n, dict) for n in names):
        lit = _member_literal(col, ",".join(names), flavor)
        if lit is not None:
            return lit
    return str(value.bits)


# ---------------------------------------------------------------------------- geometry, vector


def _geometry_literal(col, value, flavor) -> str:
    if not isinstance(value, Geometry):
        _fail(col, f"{value!r:.60} is not a geometry")
    wkb = f"X'{bytes(value.wkb).hex()}'"
    if value.srid and flavor == "mysql":
        return f"ST_GeomFromWKB({wkb}, {value.srid}, 'axis-order=long-lat')"
    return f"ST_GeomFromWKB({wkb}, {value.srid})"


def _vector_literal(col, value, flavor) -> str:
    parts = []
    for x in value:
        x = float(x)
        if not math.isfinite(x):
            _fail(col, "a VECTOR with a NaN or an infinity has no SQL literal")
        parts.append(repr(x))
    text = qs("[" + ",".join(parts) + "]")
    return f"VEC_FromText({text})" if flavor == "mariadb" else f"STRING_TO_VECTOR({text})"


# ---------------------------------------------------------------------------- JSON

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
        return f"CAST({_utf8mb4(_json_dumps(v))} AS JSON)"
    if isinstance(v, dict):
        items = []
        for k, x in v.items():
            if not _is_utf8(k):
                _fail(col, "a JSON key that is not UTF-8 has no SQL literal")
            items.append(f"{_utf8mb4(k)}, {_json_expr(col, x)}")
        return "JSON_OBJECT(" + ", ".join(items) + ")"
    if isinstance(v, (list, tuple)):
        return "JSON_ARRAY(" + ", ".join(_json_expr(col, x) for x in v) + ")"
    if isinstance(v, str):
        _fail(col, "a JSON string that is not UTF-8 has no SQL literal")
    if isinstance(v, JsonUInt) or (isinstance(v, int) and not isinstance(v, bool)):
        if not 0 <= v < 1 << 64:
            _fail(col, f"JSON integer {int(v)} is out of range")
        return f"CAST(CAST({int(v)} AS UNSIGNED) AS JSON)"
    if isinstance(v, float):
        return f"CAST({double_literal(col, v)} AS JSON)"
    if isinstance(v, _decimal.Decimal):
        return f"CAST({_json_decimal(col, v)} AS JSON)"
    if isinstance(v, (JsonTimestamp, JsonZeroTimestamp)):
        _fail(col, "a JSON TIMESTAMP value has no SQL form (only a TIMESTAMP column gives "
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
        _fail(col, f"a JSON opaque value of field type {v.field_type} has no SQL form")
    _fail(col, f"{type(v).__name__} is not a JSON value")


def _json_decimal(col, v) -> str:
    """A DECIMAL expression of a JSON decimal with its stored precision (``JsonDecimal``),
    else that of its digits (integer digits, at least one, plus the scale)."""
    if not v.is_finite():
        _fail(col, f"JSON decimal {v} is not a number")
    scale = max(-v.as_tuple().exponent, 0)
    whole = max(v.adjusted() + 1, 0) if v else 0     # integer digits
    precision = getattr(v, "precision", None) or max(whole, 1) + scale
    if scale > 30 or precision > 65 or precision - scale < whole:
        _fail(col, f"JSON decimal {v} of precision {precision} has no DECIMAL type")
    return f"CAST('{format(v, 'f')}' AS DECIMAL({precision},{scale}))"


def json_literal(col, value) -> str:
    """A MySQL JSON column's value as ``CAST(_utf8mb4'...' AS JSON)``, or a JSON_OBJECT /
    JSON_ARRAY expression where a value needs a typed cast (see the module's rules)."""
    if isinstance(value, JsonDiff):
        _fail(col, "partial JSON update: a JSON diff list needs the before image "
                   "(apply_json_diffs) to become a document")
    return _json_expr(col, value)


# ---------------------------------------------------------------------------- partial JSON


def _parse_path(path: str) -> list:
    """A JSON path as MySQL prints it in a diff (``$``, ``.member``, ``."quoted member"``,
    ``[n]``, ``[last]``, ``[last-n]``) as legs: ("member", name) / ("cell", n, from_end)."""
    import json as _json
    if not path.startswith("$"):
        raise SqlValueError(f"JSON path {path!r} does not start with $")
    legs, i, n = [], 1, len(path)
    while i < n:
        c = path[i]
        if c.isspace():
            i += 1
        elif c == ".":
            i += 1
            while i < n and path[i].isspace():
                i += 1
            if i < n and path[i] == '"':
                try:
                    name, i = _json.decoder.scanstring(path, i + 1)
                except ValueError as e:
                    raise SqlValueError(f"JSON path {path!r}: {e}") from None
            else:
                start = i
                while i < n and path[i] not in ".[" and not path[i].isspace():
                    i += 1
                name = path[start:i]
                if not name or name == "*":
                    raise SqlValueError(f"JSON path {path!r}: a wildcard or empty member")
            legs.append(("member", name))
        elif c == "[":
            end = path.find("]", i)
            if end < 0:
                raise SqlValueError(f"JSON path {path!r}: unterminated [")
            inner = path[i + 1:end].replace(" ", "")
            i = end + 1
            if inner.isdigit():
                legs.append(("cell", int(inner), False))
            elif inner == "last":
                legs.append(("cell", 0, True))
            elif inner.startswith("last-") and inner[5:].isdigit():
                legs.append(("cell", int(inner[5:]), True))
            else:
                raise SqlValueError(f"JSON path {path!r}: [{inner}] is not one array cell")
        else:
            raise SqlValueError(f"JSON path {path!r}: unexpected {c!r} (wildcards and "
                                "ellipses are not diff paths)")
    return legs


def _position(leg, size: int) -> tuple:
    """(position, within bounds) of an array cell leg in an array of ``size`` (MySQL's
    Json_array_index: a position past the end is the end; last-n before the start is 0)."""
    _, index, from_end = leg
    if from_end:
        return (size - 1 - index if index < size else 0), index < size
    return min(index, size), index < size


def _seek(doc, legs):
    """The value at ``legs`` (no auto-wrapping, no wildcards), or raise KeyError."""
    for leg in legs:
        if isinstance(doc, list) and leg[0] == "cell":
            pos, inside = _position(leg, len(doc))
            if not inside:
                raise KeyError(leg)
            doc = doc[pos]
        elif isinstance(doc, dict) and leg[0] == "member":
            doc = doc[leg[1]]
        else:
            raise KeyError(leg)
    return doc


def _copy(doc):
    if isinstance(doc, JsonDocument):
        doc = doc.value
    if isinstance(doc, dict):
        return {k: _copy(v) for k, v in doc.items()}
    if isinstance(doc, (list, tuple)):
        return [_copy(v) for v in doc]
    return doc


def apply_json_diffs(before_document, diffs):
    """The document a PARTIAL_UPDATE_ROWS JSON diff list makes of the before image's
    ``before_document``: MySQL's ``apply_json_diff`` (json_diff.cc) per operation, in order.
    REPLACE: the value at the path must exist and is replaced; INSERT: an object member that
    must not exist yet, or an array cell (inserted before that position, appended past the
    end); REMOVE: an existing member or cell. ``diffs``: a ``JsonDiff``, a list of
    ``JsonDiffOp`` or a ``JsonDocument`` holding one. Anything MySQL would reject raises
    SqlValueError. The before document is not changed."""
    if isinstance(diffs, JsonDiff):
        diffs = diffs.ops
    if isinstance(diffs, JsonDocument):
        diffs = diffs.value
    if before_document is None:
        raise SqlValueError("partial JSON update of a NULL document")
    doc = _copy(before_document)
    for d in diffs:
        if not isinstance(d, JsonDiffOp):
            d = JsonDiffOp(*d)
        legs = _parse_path(d.path)
        value = _copy(d.value)
        where = f"JSON diff {d.op} {d.path!r}"
        if not legs:
            if d.op != "REPLACE":
                raise SqlValueError(f"{where}: the path names the whole document")
            doc = value
            continue
        try:
            parent = _seek(doc, legs[:-1])
        except KeyError:
            raise SqlValueError(f"{where}: the path's parent is not in the document") from None
        last = legs[-1]
        if d.op == "REPLACE":
            try:
                _seek(parent, [last])
            except KeyError:
                raise SqlValueError(f"{where}: no value at the path") from None
            if last[0] == "member":
                parent[last[1]] = value
            else:
                parent[_position(last, len(parent))[0]] = value
        elif d.op == "INSERT":
            if isinstance(parent, dict) and last[0] == "member":
                if last[1] in parent:
                    raise SqlValueError(f"{where}: the member exists already")
                parent[last[1]] = value
            elif isinstance(parent, list) and last[0] == "cell":
                parent.insert(_position(last, len(parent))[0], value)
            else:
                raise SqlValueError(f"{where}: the parent is not an object or array of that "
                                    "kind")
        elif d.op == "REMOVE":
            if isinstance(parent, dict) and last[0] == "member" and last[1] in parent:
                del parent[last[1]]
            elif isinstance(parent, list) and last[0] == "cell" and _position(
                    last, len(parent))[1]:
                del parent[_position(last, len(parent))[0]]
            else:
                raise SqlValueError(f"{where}: nothing to remove at the path")
        else:
            raise SqlValueError(f"{where}: unknown operation")
    return doc


__all__ = ["SqlValueError", "SESSION_SQL", "literal", "condition", "qi", "qs",
           "apply_json_diffs", "double_literal", "temporal_text", "json_literal"]

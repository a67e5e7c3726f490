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

from ..format.facts.charsets import BINARY_ID, UTF8MB4_BIN_ID, bin_collation
from ..format.facts.flavor import json_is_binary
from ..format.forms import FAMILY_OF, family
from ..format.forms.datetimes import sql_text as temporal_text
from ..format.forms.documents import json_literal
from ..format.forms.members import sql_number
from ..format.forms.shared import SqlValueError, double_literal, fail, qs
from ..format.forms.strings import charset_of, text_bytes, text_literal, text_literal_of
from ..format.values.codecs import Compressed
from ..format.values.image import JsonDiff
from ..format.values.json_binary import JsonDiffOp, JsonDocument

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


def qi(name: str) -> str:
    """A quoted identifier."""
    return "`" + str(name).replace("`", "``") + "`"


# ---------------------------------------------------------------------------- dispatch

def literal(col, value, flavor: str) -> str:
    """The exact SQL literal of ``value`` (as the row decoder gives it) in table-map column
    ``col`` of a ``flavor`` ("mysql" or "mariadb") server; SqlValueError when it has none
    (:func:`literal_of`)."""
    return literal_of(col, flavor)(value)


# families whose values are never a Compressed column's or a partial JSON update
_PLAIN = frozenset({"integers", "reals", "decimals", "datetimes"})


def literal_of(col, flavor: str):
    """The writer of column ``col``'s exact SQL literals (a function of a value), its column
    type's family chosen once: a statement writer makes one per column. Each column-type family
    writes its own (:mod:`binlog_schema.format.forms`)."""
    ty = col.type
    kind = col.real_type if col.real_type in ("ENUM", "SET") else ty
    if kind == "JSON" and not json_is_binary(flavor):  # MariaDB's JSON: utf8mb4_bin text
        write = text_literal_of(col, UTF8MB4_BIN_ID, flavor)
    elif kind == "NULL":
        def write(value):
            return "NULL"
    else:
        fam = family(kind)
        if fam is None:
            def write(value):
                fail(col, f"no SQL literal for column type {ty!r}")
        else:
            write = fam.sql_literal(col, flavor)
            if FAMILY_OF[kind] in _PLAIN:
                def plain(value):
                    return "NULL" if value is None else write(value)
                return plain

    def any_literal(value):
        if value is None:
            return "NULL"
        if isinstance(value, Compressed):
            value = value.data
        if isinstance(value, JsonDiff):
            fail(col, "partial JSON update: a JSON diff list needs the before image "
                      "(apply_json_diffs) to become a document")
        return write(value)
    return any_literal


def condition(col, name: str, value, flavor: str, exact: bool) -> str:
    """One WHERE term: column ``name`` (already quoted) holds ``value`` (:func:`condition_of`)."""
    return condition_of(col, name, flavor, exact)(value)


def condition_of(col, name: str, flavor: str, exact: bool):
    """The writer of one column's WHERE terms (a function of a value): column ``name``
    (already quoted) holds the value. ``exact`` False (a key lookup): ``name = lit``. ``exact``
    True (a table without a key, where every column must match one row exactly): ``name <=>
    lit``, text compared in its character set's binary collation and, for VARCHAR/TEXT (PAD
    SPACE collations ignore trailing spaces), its byte length too. ENUM and SET compare by
    number; MySQL JSON with ``=`` (JSON equality). NULL: ``name IS NULL``."""
    op = "<=>" if exact else "="
    kind = col.real_type if col.real_type in ("ENUM", "SET") else col.type
    if kind in ("ENUM", "SET"):
        def term(value):
            return f"{name} {op} {sql_number(value)}"
    elif kind == "JSON" and json_is_binary(flavor):
        def term(value):
            return f"{name} = {json_literal(col, value)}"
    elif exact and (FAMILY_OF.get(kind) == "strings" or kind == "JSON") and (
            UTF8MB4_BIN_ID if kind == "JSON" else col.collation_id) not in (None, BINARY_ID):
        cid = UTF8MB4_BIN_ID if kind == "JSON" else col.collation_id
        try:
            text = text_literal_of(col, cid, flavor,
                                   bin_collation(charset_of(col, cid), flavor))
        except Exception:  # noqa: BLE001 - said for each value, by the same calls
            def text(value):
                return text_literal(col, value, cid, flavor,
                                    bin_collation(charset_of(col, cid), flavor))

        def term(value):
            lit = text(value)
            term = f"{name} <=> {lit}"
            if kind != "STRING":   # CHAR values are stored without their trailing spaces
                term = f"({term} AND LENGTH({name}) = {len(text_bytes(col, value, cid))})"
            return term
    else:
        lit = literal_of(col, flavor)

        def term(value):
            return f"{name} {op} {lit(value)}"

    def where(value):
        if value is None:
            return f"{name} IS NULL"
        if isinstance(value, Compressed):
            value = value.data
        return term(value)
    return where


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


__all__ = ["SqlValueError", "SESSION_SQL", "literal", "literal_of", "condition", "condition_of",
           "qi", "qs",
           "apply_json_diffs", "double_literal", "temporal_text", "json_literal"]

"""ENUM and SET: every form of their values.

The row decoder gives ``EnumValue`` (the index, and the member's name when the table map or
the schema gave the names) and ``SetValue`` (the bits, and the names of the set members).

* JSON Lines: ENUM the name, or the index for the error value 0 (``''``) and when no names
  are known; SET the list of names when every set bit has one, else the bits
  (:func:`json_safe`, :func:`from_json_safe`, straight from the index or bits in
  :func:`fields_json`)
* SQL: the member name(s) as text in the column's character set, else the number
  (:func:`sql_literal`)
* Maxwell: ENUM the name (``""`` for the error value), SET an array of names; Debezium: ENUM
  the name, SET the names joined by ``,`` (``io.debezium.data.Enum``/``EnumSet``)
* Spark: ``long`` (the index or bits) and ``string`` (the name or names)
"""

from __future__ import annotations

import decimal

from ...construct_ext.jsontext import dumps, quote
from ..facts.charsets import BINARY_ID
from ..values.codecs import EnumValue, SetValue
from .shared import DECIMAL, LONG, LONG_MAX, STRING, as_text
from .strings import text_literal_of



def name_json(v) -> str:
    """A name (of a member, a database, a table) as a JSON string; bytes that are not UTF-8
    with replacement characters."""
    return quote(v if isinstance(v, str) else bytes(v).decode("utf-8", "replace"))


# ---------------------------------------------------------------------------- JSON Lines


def enum_json_safe(v, binary: str = "hex"):
    # the error value (index 0, shown as '') is the number 0: an ENUM may have '' as a
    # member too, and the two must build back to different bytes
    return v.name if v.name is not None and v.index else v.index


def set_json_safe(v, binary: str = "hex"):
    # names only when every set bit has one (a bit past the members is kept as a number)
    return list(v.names) if v.names is not None and len(v.names) == bin(
        v.bits).count("1") else v.bits


def from_json_safe(col, v):
    if (col.real_type or col.type) == "ENUM":
        if isinstance(v, int):  # no member names logged, or the error value 0 ('')
            return EnumValue(v, "" if v == 0 and col.enum_values else None)
        names = col.enum_values or []
        return EnumValue(names.index(v) + 1 if v in names else 0, v)
    if isinstance(v, int):
        return SetValue(v)
    names = col.set_values or []
    return SetValue(sum(1 << names.index(n) for n in v), tuple(v))


def json_converter(codec, generic):
    if codec.type_name != "ENUM":
        return generic

    def enum_json(v):  # (as json_safe: the name, or the index for the error value or when
        name = v.name  # no names were logged)
        if name is not None and v.index:
            return quote(name) if type(name) is str else generic(v)
        return int.__repr__(v.index)
    return enum_json


def fields_json(codec, dumps):
    """From the index (ENUM) or the bits (SET), with the codec's member names."""
    members = codec.members
    if codec.type_name == "ENUM":  # json_safe's rule: the member's name, else the index
        known: dict = {}

        def enum_json(i):
            text = known.get(i)
            if text is None:
                name = members[i - 1] if members and 0 < i <= len(members) else None
                text = int.__repr__(i) if name is None else (
                    quote(name) if type(name) is str else dumps(name))
                if len(known) < 4096:
                    known[i] = text
            return text
        return enum_json
    known = {}  # SET: the names when every set bit has one, else the bits

    def set_json(bits):
        text = known.get(bits)
        if text is None:
            names = [n for i, n in enumerate(members) if bits >> i & 1] if members \
                else None
            text = dumps(names) if names is not None and len(names) == bin(
                bits).count("1") else int.__repr__(bits)
            if len(known) < 4096:
                known[bits] = text
        return text
    return set_json


# ---------------------------------------------------------------------------- SQL


def _enum_literal(text, value) -> str:
    if not isinstance(value, EnumValue):
        return str(int(value))
    if value.index and value.name is not None and text is not None:
        name = value.name
        return text(bytes.fromhex(name["hex"]) if isinstance(name, dict) else name)
    return str(value.index)


def _set_literal(text, value) -> str:
    if not isinstance(value, SetValue):
        return str(int(value))
    names = value.names
    if names is not None and text is not None and len(names) == bin(
            value.bits).count("1") and not any(isinstance(n, dict) for n in names):
        return text(",".join(names))
    return str(value.bits)


def sql_literal(col, flavor: str):
    """The column's SQL literal writer (a function of a non-NULL value): a member name
    (str, or ``{"hex": ...}`` when not text) as text in the column's character set, None
    when that is not known."""
    member = _enum_literal if (col.real_type if col.real_type in ("ENUM", "SET")
                               else col.type) == "ENUM" else _set_literal
    cid = col.collation_id
    text = None if cid is None or cid == BINARY_ID else text_literal_of(col, cid, flavor)

    def member_literal(value):
        return member(text, value)
    return member_literal


def sql_number(value) -> int:
    """The index (ENUM) or bits (SET) a WHERE term compares by: exact whatever the
    collation."""
    if isinstance(value, EnumValue):
        return value.index
    if isinstance(value, SetValue):
        return value.bits
    return int(value)


# ---------------------------------------------------------------------------- change records


def maxwell(col, codec, generic):
    if codec.type_name == "ENUM":
        def enum_json(v):
            if not v.index:
                return '""'
            return name_json(v.name) if v.name is not None else int.__repr__(v.index)
        return enum_json
    # SET: a JSON array of the members
    return lambda v: dumps(list(v.names)) if v.names is not None else int.__repr__(v.bits)


def debezium(col, codec, generic):
    if codec.type_name == "ENUM":  # io.debezium.data.Enum
        def enum_json(v):
            if not v.index:
                return '""'
            return quote(str(v.name)) if v.name is not None else quote(str(v.index))
        return enum_json
    # io.debezium.data.EnumSet: the members, comma-separated
    return lambda v: quote(",".join(str(n) for n in v.names)) if v.names is not None \
        else quote(str(v.bits))


# ---------------------------------------------------------------------------- Spark


def set_names(v) -> str | None:
    return None if v.names is None else ",".join(as_text(n) for n in v.names)


def _set_fields(v):
    names = set_names(v)
    bits = (LONG, v.bits) if v.bits <= LONG_MAX else (DECIMAL, decimal.Decimal(v.bits))
    return (bits,) if names is None else (bits, (STRING, names))


def _enum_fields(v):
    name = as_text(v.name)
    return ((LONG, v.index),) if name is None else ((LONG, v.index), (STRING, name))


SPARK = {EnumValue: _enum_fields, SetValue: _set_fields}

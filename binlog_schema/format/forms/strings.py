"""Character and binary strings (CHAR, VARCHAR, BINARY, VARBINARY, the TEXT and BLOB types,
MariaDB's compressed columns): every form of their values.

The row decoder gives ``str`` for text in the column's character set, ``bytes`` for binary
strings and for text that is not valid in its character set, and ``Compressed`` (the stored
bytes and the data) for MariaDB's compressed columns.

* JSON Lines: text as a JSON string, bytes as ``{"hex": ...}`` (or ``{"base64": ...}``),
  compressed ``{"compressed": hex, "data": ...}`` (:func:`json_safe`, :func:`from_json_safe`)
* SQL: ``_<charset>'...'`` where the statement's UTF-8 is the stored bytes, else ``_<charset>
  X'..' COLLATE ..``; binary strings ``X'..'``, BINARY(n) padded back to n bytes
  (:func:`sql_literal`; :mod:`binlog_schema.output.sql_text` has the rules in full)
* Maxwell and Debezium: text as a string, bytes in base64, compressed columns their data
* Spark: ``string`` or ``binary`` (a compressed column's data's)
"""

from __future__ import annotations

import base64

from ...construct_ext.jsontext import quote
from ..facts.coltypes import COMPRESSED_TYPES
from ..facts.charsets import (BINARY_ID, BMP_ONLY, CollationError, charset_of_id,
                              collation_name, text_codec)
from ..values.codecs import Compressed
from .shared import BINARY, STRING, SqlValueError, base64_text, fail, qs

# character sets whose ASCII is not one byte a character: never quoted text
_WIDE = frozenset({"ucs2", "utf16", "utf16le", "utf32"})
_UTF8 = frozenset({"utf8mb3", "utf8mb4"})


# ---------------------------------------------------------------------------- JSON Lines


def bytes_json_safe(v, binary: str = "hex"):
    raw = bytes(v)
    return {"base64": base64.b64encode(raw).decode()} if binary == "base64" \
        else {"hex": raw.hex()}


def from_json_safe(col, v):
    if col.type in COMPRESSED_TYPES:
        data = v["data"]
        data = bytes.fromhex(data["hex"]) if isinstance(data, dict) else data
        return Compressed(bytes.fromhex(v["compressed"]), data)
    return v


def json_converter(codec, generic):
    """A length-prefixed value's JSON text (a text column's ``str`` quoted)."""
    def text_json(v):
        if type(v) is str:
            return quote(v)
        return generic(v)
    return text_json


def prefixed_json_code(s: str) -> str:
    """The compiled image writer's expression for the JSON text of the length-prefixed value
    in variable ``s`` (text quoted, bytes as ``{"hex": ...}``), in :data:`CODE_NAMES`'
    terms."""
    return f"quote({s}) if type({s}) is str else '{{\"hex\":\"' + {s}.hex() + '\"}}'"


CODE_NAMES = {"quote": quote}


# ---------------------------------------------------------------------------- SQL


def charset_of(col, cid: int) -> str:
    try:
        return charset_of_id(cid)
    except CollationError:
        if cid >= 1024:            # a NOPAD id: 1024 + its PAD id's
            try:
                return charset_of_id(cid - 1024)
            except CollationError:
                pass
    fail(col, f"unknown collation id {cid}")


def text_bytes(col, value, cid) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    try:
        return text_codec(cid)[1](value)
    except Exception as e:  # noqa: BLE001 - a StringError: text the character set cannot hold
        fail(col, str(e))


def text_literal(col, value, cid, flavor, collate: str | None = None) -> str:
    """A text literal of character set ``cid``'s (:func:`text_literal_of`)."""
    return text_literal_of(col, cid, flavor, collate)(value)


def text_literal_of(col, cid, flavor, collate: str | None = None):
    """The writer of text literals of character set ``cid``'s: quoted when the statement's
    UTF-8 text is the stored bytes, else hex with the collation (``collate``, else the
    column's). What can fail (an unknown collation, text the character set cannot hold) fails
    for each value it is asked to write, naming the column."""
    try:
        charset = charset_of(col, cid)
    except SqlValueError:
        def unknown(value):
            return charset_of(col, cid)
        return unknown
    try:
        encode = text_codec(cid)[1]
    except Exception:  # noqa: BLE001 - said for each text value, as text_bytes says it
        def encode(value):
            return text_codec(cid)[1](value)
    tail = f" COLLATE {collate}" if collate else ""
    if collate is None:
        try:
            hex_tail = f" COLLATE {collation_name(cid, flavor)}"
        except CollationError:
            hex_tail = ""          # (the character set's default collation: same bytes)
    else:
        hex_tail = tail
    quoted = charset in _UTF8 and charset not in BMP_ONLY
    bmp = charset in _UTF8 and charset in BMP_ONLY
    ascii_quoted = charset not in _UTF8 and charset not in _WIDE
    head, empty = f"_{charset}", f"_{charset}''{tail}"

    def text(value):
        if isinstance(value, (bytes, bytearray, memoryview)):
            raw = bytes(value)
        else:
            try:
                raw = encode(value)
            except Exception as e:  # noqa: BLE001 - a StringError: text it cannot hold
                fail(col, str(e))
            if isinstance(value, str):
                if quoted or (bmp and all(ord(c) <= 0xFFFF for c in value)):
                    return head + qs(value) + tail
                if ascii_quoted and raw.isascii():
                    return head + qs(raw.decode("ascii")) + tail
        if not raw:
            return empty
        return f"{head} X'{raw.hex()}'{hex_tail}"
    return text


def _binary_literal(raw: bytes) -> str:
    return f"X'{raw.hex()}'"


def sql_literal(col, flavor: str):
    """The column's SQL literal writer (a function of a non-NULL value)."""
    cid = col.collation_id
    if cid == BINARY_ID:
        pad = col.max_length if col.type == "STRING" and col.max_length else 0

        def binary_literal(value):
            raw = bytes(value) if not isinstance(value, str) else value.encode("utf-8")
            if pad:     # BINARY(n): its trailing zeros
                raw = raw.ljust(pad, b"\0")
            return _binary_literal(raw)
        return binary_literal
    if cid is None:             # no collation logged: the stored bytes, as they are
        def stored_literal(value):
            return _binary_literal(text_bytes(col, value, None))
        return stored_literal
    return text_literal_of(col, cid, flavor)


# ---------------------------------------------------------------------------- change records


def text_or_base64(generic):
    """value -> text as a JSON string; binary values (and text that does not decode) in
    base64; any other value as ``generic`` writes it."""
    def text_json(v):
        if type(v) is str:
            return quote(v)
        if isinstance(v, (bytes, bytearray, memoryview)):
            return base64_text(v)
        return generic(v)
    return text_json


def maxwell(col, codec, generic):
    text = text_or_base64(generic)
    if codec.type_name in COMPRESSED_TYPES:
        return lambda v: text(v.data)
    return text


debezium = maxwell  # text; binary values as base64 (what the JSON converter writes)


# ---------------------------------------------------------------------------- Spark


SPARK = {
    str: lambda v: ((STRING, v),),
    bytes: lambda v: ((BINARY, v),),
    bytearray: lambda v: ((BINARY, bytes(v)),),
    memoryview: lambda v: ((BINARY, bytes(v)),),
}

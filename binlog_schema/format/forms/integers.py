"""Integers (TINYINT to BIGINT, MEDIUMINT, YEAR, BIT): every form of their values.

The row decoder gives an ``int`` (YEAR: the year, 0 for 0000; BIT: the bits as a number).

* JSON Lines: the number (:func:`json_converter`, :func:`fields_json`)
* SQL: decimal digits; BIT ``b'101'`` (:func:`sql_literal`)
* Maxwell: the number; Debezium: the number, BIGINT UNSIGNED as a signed long
  (``bigint.unsigned.handling.mode=long``), BIT(1) a boolean and wider BITs their bytes in
  base64 (``io.debezium.data.Bits``)
* Spark: ``long``, beyond 64 bits ``decimal`` (or ``text`` beyond DECIMAL(38,18))
"""

from __future__ import annotations

import decimal

from .shared import DECIMAL, LONG, LONG_MAX, LONG_MIN, TEXT, base64_text, fit_decimal



def json_converter(codec, generic):
    return int.__repr__


def fixed_json_code(codec, v: str) -> str:
    """The compiled image writer's expression for the JSON text of the fixed-width integer
    in variable ``v`` (YEAR: its stored byte, 0 for 0000), in :data:`CODE_NAMES`' terms."""
    if codec.fixed[1] == "year":
        return f"repr_int(1900 + {v} if {v} else 0)"
    return f"repr_int({v})"


CODE_NAMES = {"repr_int": int.__repr__}


def fields_json(codec, dumps):
    """From the codec's fields (INT24 and BIT read their number as fields)."""
    return int.__repr__ if codec.type_name in ("INT24", "BIT") else None


def sql_literal(col, flavor: str):
    """The column's SQL literal writer (a function of a non-NULL value)."""
    if col.type == "BIT":
        return _bits_literal
    return _digits


def _bits_literal(value) -> str:
    return f"b'{int(value):b}'"


def _digits(value) -> str:
    return str(int(value))


def maxwell(col, codec, generic):
    return int.__repr__


def debezium(col, codec, generic):
    ty = codec.type_name
    if ty == "BIT":
        bits = col.bits or 0
        if bits == 1:
            return lambda v: "true" if v else "false"
        size = (bits + 7) // 8
        return lambda v: base64_text(v.to_bytes(size, "little"))  # io.debezium.data.Bits
    if codec.fixed is not None and ty == "LONGLONG" and col.unsigned:
        return lambda v: int.__repr__(v - (1 << 64) if v >= 1 << 63 else v)
    return int.__repr__


def spark_fields(v):
    if LONG_MIN <= v <= LONG_MAX:
        return ((LONG, v),)
    d = fit_decimal(decimal.Decimal(v))
    return ((DECIMAL, d),) if d is not None else ((TEXT, str(v)),)


SPARK = {int: spark_fields, bool: lambda v: spark_fields(int(v))}

"""DECIMAL: every form of its values.

The row decoder gives a ``decimal.Decimal`` with every digit of the column's scale.

* JSON Lines: positional text, every digit of the scale (``"0.000000001"``, never ``1E-9``)
* SQL: that text, unquoted (:func:`sql_literal`)
* Maxwell: a JSON number of that text; Debezium: a string (``decimal.handling.mode=string``)
* Spark: ``decimal`` (38,18) when it fits exactly, else ``text``
"""

from __future__ import annotations

import decimal

from .shared import DECIMAL, TEXT, fail, fit_decimal



def json_safe(v, binary: str = "hex"):
    # positional, every digit of the scale kept, as the server prints it (str() would give
    # "0E-30" or "-1E-9" for small values)
    return format(v, "f")


def from_json_safe(col, v):
    return decimal.Decimal(v) if col.type == "NEWDECIMAL" else v


def json_converter(codec, generic):
    return lambda v: '"' + format(v, "f") + '"'


def fields_json(codec, dumps):
    """From the codec's fields (the decimal's text)."""
    return lambda f: '"' + f + '"'


def sql_literal(col, flavor: str):
    """The column's SQL literal writer (a function of a non-NULL value)."""
    def decimal_literal(value):
        if not isinstance(value, decimal.Decimal):
            value = decimal.Decimal(value)
        if not value.is_finite():
            fail(col, f"DECIMAL {value} is not a number")
        return format(value, "f")
    return decimal_literal


def maxwell(col, codec, generic):
    return lambda v: format(v, "f")  # a JSON number, every digit of the scale


def debezium(col, codec, generic):  # decimal.handling.mode=string
    return lambda v: '"' + format(v, "f") + '"'


def spark_fields(v):
    d = fit_decimal(v)
    return ((DECIMAL, d),) if d is not None else ((TEXT, str(v)),)


SPARK = {decimal.Decimal: spark_fields}

"""FLOAT and DOUBLE: every form of their values.

The row decoder gives a ``float`` (a FLOAT's float32 widened; a NaN keeps its stored bits in
a ``NaNFloat``).

* JSON Lines: the number; a NaN or an infinity (JSON has none) as ``{"float": hex}``, the
  stored bytes (:func:`json_safe`, :func:`from_json_safe`)
* SQL: a double literal with an exponent (:func:`~.shared.double_literal`); NaN and
  infinities have none
* Maxwell and Debezium: a FLOAT as the shortest text of its float32 (Java's
  ``Float.toString``), a DOUBLE as ``repr``; NaN and infinities ``null``
* Spark: ``double``
"""

from __future__ import annotations

import math
import struct

from .shared import DOUBLE, double_literal, double_text, float32_text



def json_safe(v, binary: str = "hex"):
    if not math.isfinite(v):  # JSON has no NaN nor infinities: the stored bytes (a NaN's
        raw = getattr(v, "raw", None)  # payload matters), else the double's, little-endian
        return {"float": (bytes(raw) if raw is not None else struct.pack("<d", v)).hex()}
    return v


def float_of(text: str) -> float:
    """The value of :func:`json_safe`'s ``{"float": hex}``."""
    raw = bytes.fromhex(text)
    v = struct.unpack("<f" if len(raw) == 4 else "<d", raw)[0]
    if v != v:
        from ..values.codecs import NaNFloat  # keeps the stored bits
        return NaNFloat(v, raw)
    return v


def json_converter(codec, generic):
    finite = float.__repr__

    def float_json(v):
        if v - v == 0.0:  # finite (a NaN or an infinity gives NaN)
            return finite(v)
        return generic(v)
    return float_json


def float_value(v):
    """A NaN or an infinity as the typed path has it (json_safe keeps the stored bits of a
    NaN: the compiled path leaves those to the codecs, so it refuses them here)."""
    if v != v:
        raise ValueError("a NaN: decoded through the codecs")
    return v


def fixed_json_code(codec, v: str) -> str:
    """The compiled image writer's expression for the JSON text of the double in variable
    ``v``, in :data:`CODE_NAMES`' terms and the writer's ``dumps`` and ``jsonable``."""
    return (f"(repr_float({v}) if {v} - {v} == 0.0 else "
            f"dumps(jsonable(float_value({v}), 'hex')))")


CODE_NAMES = {"repr_float": float.__repr__, "float_value": float_value}


def sql_literal(col, flavor: str):
    """The column's SQL literal writer (a function of a non-NULL value)."""
    def real_literal(value):
        return double_literal(col, value)
    return real_literal


def maxwell(col, codec, generic):
    return float32_text if codec.type_name == "FLOAT" else double_text


debezium = maxwell


SPARK = {float: lambda v: ((DOUBLE, v),)}

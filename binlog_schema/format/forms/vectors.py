"""VECTOR (MySQL 9, MariaDB 11.7): every form of its values.

The row decoder gives a list of floats (float32 widened to doubles).

* JSON Lines: a list of numbers; a NaN or an infinity as ``{"float": hex}`` (:mod:`.reals`)
* SQL: MySQL ``STRING_TO_VECTOR('[...]')``, MariaDB ``VEC_FromText('[...]')``, each float32
  as the shortest text of the double it widens to (exact whichever way the server parses it)
* Maxwell and Debezium: an array of the float32s' shortest texts
  (``io.debezium.data.FloatVector``)
* Spark: ``vector`` (an array of doubles)
"""

from __future__ import annotations

import math

from . import documents, reals
from .reals import float_of
from .shared import VECTOR, fail, float32_text, qs



def json_safe(v, binary: str = "hex"):
    """A list: a VECTOR's floats when one is a NaN or an infinity, each as
    :func:`.reals.json_safe` gives it; any other list is a JSON document's."""
    if v and all(isinstance(x, float) for x in v) and not all(math.isfinite(x) for x in v):
        return [reals.json_safe(x) for x in v]
    return documents.to_typed_json(v)


def from_json_safe(col, v):
    if isinstance(v, list):
        return [float_of(x["float"]) if isinstance(x, dict) and set(x) == {"float"} else x
                for x in v]
    return v


def json_converter(codec, generic):
    return generic


def sql_literal(col, flavor: str):
    """The column's SQL literal writer (a function of a non-NULL value)."""
    def vector_literal(value):
        return _vector_literal(col, value, flavor)
    return vector_literal


def _vector_literal(col, value, flavor: str) -> str:
    parts = []
    for x in value:
        x = float(x)
        if not math.isfinite(x):
            fail(col, "a VECTOR with a NaN or an infinity has no SQL literal")
        parts.append(repr(x))
    text = qs("[" + ",".join(parts) + "]")
    return f"VEC_FromText({text})" if flavor == "mariadb" else f"STRING_TO_VECTOR({text})"


def maxwell(col, codec, generic):
    return lambda v: "[" + ",".join(float32_text(x) for x in v) + "]"


debezium = maxwell  # io.debezium.data.FloatVector


def spark_fields(v):
    return ((VECTOR, [float(x) for x in v]),)

"""Column values in the form Spark keeps internally and Arrow takes: the fields of the Value
struct (:data:`.shared.SPARK_FIELDS`) that hold one, by the value's class, through its
family's ``SPARK`` table (:func:`value_fields`, :func:`to_value`)."""

from __future__ import annotations

from . import families
from ..values.codecs import Compressed
from .documents import JsonDoc
from .json_safe import jsonable
from .shared import JSON, SPARK_FIELDS
from .vectors import spark_fields as vector_fields

NVALUE = len(SPARK_FIELDS)


def json_text(v) -> str:
    """A MySQL JSON column's document (or a value no field holds) as JSON text."""
    import json
    return json.dumps(jsonable(v), ensure_ascii=False, separators=(",", ":"), default=str)


_FIELDS_OF = {cls: fields for fam in families() for cls, fields in
              getattr(fam, "SPARK", {}).items()}
_FIELDS_OF[Compressed] = lambda v: value_fields(v.data)  # a compressed column: its data's
_FIELDS_OF[JsonDoc] = lambda v: ((JSON, json_text(v.doc)),)


def value_fields(v) -> tuple:
    """The ``(field, value)`` pairs of the Value struct that hold one (non-NULL) column value,
    in the form Spark keeps internally and Arrow takes (dates as days, timestamps and
    times as microseconds): the typed field(s) that hold it exactly, and ``text`` (MySQL's
    lossless text) when no Spark type does (zero dates, decimals beyond DECIMAL(38,18),
    integers beyond 64 bits). JSON documents (:class:`~.documents.JsonDoc`) are JSON text."""
    f = _FIELDS_OF.get(type(v))
    if f is not None:
        return f(v)
    for base in (bool, int, float, str, bytes):  # subclasses (a NaN that keeps its bits)
        if isinstance(v, base):
            return _FIELDS_OF[base](base(v))
    if isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) for x in v):
        return vector_fields(v)
    return ((JSON, json_text(v)),)


def to_value(v, json_column: bool = False):
    """One column value as the Value struct in Spark's internal form (a tuple of
    :data:`.shared.SPARK_FIELDS`; None for NULL): the tuples of the ``spark`` engine."""
    if v is None:
        return None
    out = [None] * NVALUE
    for k, x in value_fields(JsonDoc(v) if json_column else v):
        out[k] = x
    return tuple(out)

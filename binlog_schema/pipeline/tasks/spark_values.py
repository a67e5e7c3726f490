"""Column values in the form Spark keeps internally and Arrow takes, for the sinks
(:class:`~.tuple_sink.TupleSink`, :class:`~.arrow_sink.ArrowSink`): the fields of the Value
struct (see :data:`binlog_schema.pipeline.tables.schema.VALUE`) that hold a value, decided by
the value's column-type family (:mod:`binlog_schema.format.forms`, through
:func:`~binlog_schema.format.forms.spark.value_fields`), which columns of a table are MySQL
JSON documents, and the names and texts of the output as ``str``."""

from __future__ import annotations

from ...changes.row_change import column_names
from ...format.facts.flavor import json_is_binary
from ...format.forms.datetimes import datetime_us, time_us
from ...format.forms.documents import JsonDoc
from ...format.forms.members import set_names
from ...format.forms.shared import (BINARY, DATE, DATETIME, DECIMAL, DOUBLE, JSON, LONG,
                                    STRING, TEXT, TIME, TIMESTAMP, VECTOR, as_text,
                                    day_number, fit_decimal)
from ...format.forms.shared import SPARK_FIELDS as FIELDS
from ...format.forms.spark import NVALUE, json_text, to_value, value_fields

__all__ = ["FIELDS", "NVALUE", "BINARY", "DATE", "DATETIME", "DECIMAL", "DOUBLE", "JSON",
           "LONG", "STRING", "TEXT", "TIME", "TIMESTAMP", "VECTOR", "JsonDoc", "as_text",
           "datetime_us", "day_number", "fit_decimal", "json_text", "set_names", "time_us",
           "to_value", "value_fields", "json_columns", "json_marked", "image"]


def json_columns(tm) -> frozenset:
    """The MySQL JSON columns of a table (MariaDB's JSON is a text column)."""
    cached = getattr(tm, "_pipeline_json", None)
    if cached is None:
        cached = frozenset() if not json_is_binary(tm.flavor) else frozenset(
            name for name, col in zip(column_names(tm), tm.columns) if col.type == "JSON")
        tm._pipeline_json = cached
    return cached


def json_marked(values: dict | None, json_cols: frozenset):
    """An image with the values of JSON columns marked as :class:`JsonDoc`."""
    if values is None or not json_cols:
        return values
    return {k: JsonDoc(x) if k in json_cols and x is not None else x
            for k, x in values.items()}


def image(values: dict | None, json_cols: frozenset):
    """A row image as ``{column: Value tuple}`` (Spark's internal form)."""
    if values is None:
        return None
    return {k: to_value(x) for k, x in json_marked(values, json_cols).items()}

"""The typed columns of current-state tables, both ways: a column's ``Value`` (the pipeline's
lossless struct) as its Spark type (:func:`typed_column`, on
:func:`~binlog_schema.pipeline.tables.schema.spark_type_of`), and a typed value read back from a
previous run's table as the value the decoder gives (:func:`decoded_value`), so that rows
of ``--base`` and rows of the binlogs compare and fold alike.

TIME: Spark's TIME type (``spark.sql.timeType.enabled``) when the Spark version has one and
every value of the column lies within a day, else the pipeline's day-time interval; in Delta
tables (which hold neither) microseconds as a long. BINARY(n) is padded back to its n bytes
(the binlog drops its trailing zero bytes) and stripped again when read back.
"""

from __future__ import annotations

import datetime
import decimal
import json

from ...format.facts.charsets import BINARY_ID
from ...format.values import temporal
from ...format.values.codecs import EnumValue, SetValue

DAY_US = 86_400_000_000
TIME_MODES = ("time", "interval", "micros")


def has_time_type() -> bool:
    from pyspark.sql import types as T
    return hasattr(T, "TimeType")


def is_time(col: dict) -> bool:
    return col["type"] in ("TIME", "TIME2")


def fixed_binary(col: dict) -> int:
    """n of a BINARY(n) column (0 for any other)."""
    if col["type"] == "STRING" and col.get("collation_id") == BINARY_ID and \
            col.get("real_type") not in ("ENUM", "SET"):
        return col.get("max_length") or 0
    return 0


def micros(interval):
    """A day-time interval column as microseconds (a long)."""
    from pyspark.sql import functions as F
    return F.unix_micros(F.timestamp_seconds(F.lit(0)) + interval)


def typed_column(col: dict, value, time_mode: str = "interval"):
    """The Spark column of ``value`` (a ``Value`` struct column) typed as ``col`` says
    (a table-map column dict), named ``col["name"]``."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.tables.schema import spark_type_of
    expr, dtype = spark_type_of(col)(value)
    expr = expr.cast(dtype)
    n = fixed_binary(col)
    if n:
        expr = F.rpad(expr, n, F.lit(b"\x00"))
    if is_time(col) and time_mode != "interval":
        expr = micros(expr)
        if time_mode == "time":
            expr = F.time_from_micros(expr)
    return expr.alias(col["name"])


def decoded_value(col: dict, x):
    """A value read from a typed column (pyarrow's Python form) as the decoder gives it."""
    if x is None:
        return None
    real = col.get("real_type")
    if real == "ENUM":
        members = col.get("enum_values") or []
        return EnumValue(members.index(x) + 1, x) if x in members else EnumValue(0, x)
    if real == "SET":
        members = col.get("set_values") or []
        names = tuple(m for m in x.split(",") if m)
        return SetValue(sum(1 << members.index(m) for m in names if m in members), names)
    t = col["type"]
    if isinstance(x, decimal.Decimal) and t in ("LONGLONG", "BIT"):
        return int(x)
    if t in ("DATE", "NEWDATE"):
        return temporal.Date(x.year, x.month, x.day)
    if t in ("DATETIME", "DATETIME2"):
        return temporal.DateTime(x.year, x.month, x.day, x.hour, x.minute, x.second,
                                 x.microsecond)
    if t in ("TIMESTAMP", "TIMESTAMP2"):
        if x.tzinfo is None:
            x = x.replace(tzinfo=datetime.timezone.utc)
        us = (x - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) // \
            datetime.timedelta(microseconds=1)
        return temporal.Timestamp(us // 1_000_000, us % 1_000_000)
    if is_time(col):
        if isinstance(x, datetime.time):
            us = ((x.hour * 60 + x.minute) * 60 + x.second) * 1_000_000 + x.microsecond
        elif isinstance(x, datetime.timedelta):
            us = x // datetime.timedelta(microseconds=1)
        else:
            us = int(x)
        neg, us = us < 0, abs(us)
        s, f = divmod(us, 1_000_000)
        return temporal.Time(neg, s // 3600, s // 60 % 60, s % 60, f)
    if t == "JSON" and isinstance(x, str) and col.get("flavor") == "mysql":
        from binlog_schema.pipeline.tasks.spark_values import JsonDoc
        return JsonDoc(json.loads(x))
    if isinstance(x, bytes) and fixed_binary(col):
        return x.rstrip(b"\x00")
    return x

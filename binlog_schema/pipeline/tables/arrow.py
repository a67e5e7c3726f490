"""Arrow schemas for the tasks' output: the Spark schemas of :mod:`schema` mapped once on the
driver (as Spark maps them), so the tasks' Parquet parts read back with Spark's types."""

from __future__ import annotations


def arrow_type(dt, tz: str = "UTC"):
    """The Arrow type Spark exchanges with Python for a Spark type."""
    import pyarrow as pa
    from pyspark.sql import types as T
    if isinstance(dt, T.StructType):
        return pa.struct([pa.field(f.name, arrow_type(f.dataType, tz), f.nullable)
                          for f in dt.fields])
    if isinstance(dt, T.ArrayType):
        return pa.list_(pa.field("element", arrow_type(dt.elementType, tz), dt.containsNull))
    if isinstance(dt, T.MapType):
        return pa.map_(arrow_type(dt.keyType, tz),
                       pa.field("value", arrow_type(dt.valueType, tz), dt.valueContainsNull))
    simple = {
        T.LongType: pa.int64(), T.IntegerType: pa.int32(), T.StringType: pa.string(),
        T.BinaryType: pa.binary(), T.BooleanType: pa.bool_(), T.DoubleType: pa.float64(),
        T.DateType: pa.date32(), T.TimestampType: pa.timestamp("us", tz=tz),
        T.TimestampNTZType: pa.timestamp("us"), T.DayTimeIntervalType: pa.duration("us"),
    }
    if isinstance(dt, T.DecimalType):
        return pa.decimal128(dt.precision, dt.scale)
    for cls, t in simple.items():
        if isinstance(dt, cls):
            return t
    raise TypeError(f"no Arrow type for {dt}")


def arrow_schema(struct, tz: str = "UTC"):
    import pyarrow as pa
    return pa.schema([pa.field(f.name, arrow_type(f.dataType, tz), f.nullable)
                      for f in struct.fields])


def task_schemas(tz: str = "UTC") -> dict:
    """The Arrow schemas of the tables the tasks write (``events``, ``row_changes``,
    ``errors``), in the session time zone ``tz``."""
    from binlog_schema.pipeline.tables import schema
    return {"events": arrow_schema(schema.EVENTS, tz),
            "row_changes": arrow_schema(schema.ROW_CHANGES, tz),
            "errors": arrow_schema(schema.ERRORS, tz)}

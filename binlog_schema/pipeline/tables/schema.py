"""The Spark schemas of the output tables (field order = the tuples of :mod:`..tasks`).

``events``      one row per decoded event (events inside a TRANSACTION_PAYLOAD included:
                ``offset`` is then the position inside the payload, ``in_payload_at`` the
                payload event's file offset, as ``binlog-schema decode`` shows them); ``gtid``
                and ``transaction_offset`` (the offset of the GTID or BEGIN that opened it)
                name the transaction an event belongs to
``table_maps``  one row per distinct table-map shape (columns, names, types, metadata,
                primary key) with the file/offset/time it was first seen and how often
``row_changes`` one row per row of a rows event, before/after images as
                ``map<column name, Value>``; its order key, its transaction's XID and
                commit time, the table's schema version
``errors``      quarantined events, skipped byte ranges and file problems (stage: input,
                file, event, skipped, tail, rows, split); ``offset`` and ``size`` say which
                bytes (a quarantined event's, a skipped range's)
``files``       per file: events read = decoded + quarantined, and its bytes = 4 (the magic
                number) + bytes decoded (events) + bytes skipped (quarantined events,
                skipped ranges): ``reconciled``; rows, timings

``Value`` holds one column value in the field of its Spark type, so nothing is a JSON string
where a type exists: ``long`` (integers, YEAR, BIT, ENUM index, SET bits, GEOMETRY SRID),
``decimal`` (DECIMAL(38,18): NEWDECIMAL values that fit exactly, unsigned BIGINTs beyond 2^63),
``double`` (FLOAT, DOUBLE), ``string`` (text columns in their charset, ENUM name, SET members
comma-joined), ``binary`` (binary strings and blobs, GEOMETRY WKB), ``date``, ``datetime``
(DATETIME, timestamp_ntz), ``timestamp`` (TIMESTAMP, an instant), ``time`` (TIME, a day-time
interval: MySQL TIME spans +-838 hours), ``vector`` (VECTOR), ``json`` (JSON documents as JSON
text), and ``text``: MySQL's own lossless text when no typed field holds the value (zero or
invalid dates, ``0000-00-00 00:00:00`` TIMESTAMPs, decimals beyond DECIMAL(38,18)).
:func:`binlog_schema.pipeline.tables.result.table_view` turns one table's maps into a struct
with the exact types of its columns (DECIMAL(p,s) per column: :func:`spark_type_of`).
"""

from __future__ import annotations

from pyspark.sql import types as T

from binlog_schema.format.facts.charsets import BINARY_ID

VALUE = T.StructType([
    T.StructField("long", T.LongType()),
    T.StructField("decimal", T.DecimalType(38, 18)),
    T.StructField("double", T.DoubleType()),
    T.StructField("string", T.StringType()),
    T.StructField("binary", T.BinaryType()),
    T.StructField("date", T.DateType()),
    T.StructField("datetime", T.TimestampNTZType()),
    T.StructField("timestamp", T.TimestampType()),
    T.StructField("time", T.DayTimeIntervalType(T.DayTimeIntervalType.DAY,
                                                T.DayTimeIntervalType.SECOND)),
    T.StructField("vector", T.ArrayType(T.DoubleType())),
    T.StructField("json", T.StringType()),
    T.StructField("text", T.StringType()),
])

IMAGE = T.MapType(T.StringType(), VALUE, valueContainsNull=True)

EVENTS = T.StructType([
    T.StructField("file", T.StringType(), False),
    T.StructField("offset", T.LongType(), False),
    T.StructField("in_payload_at", T.LongType()),
    T.StructField("timestamp", T.TimestampType()),
    T.StructField("type", T.StringType()),
    T.StructField("type_code", T.IntegerType()),
    T.StructField("server_id", T.LongType()),
    T.StructField("size", T.LongType()),
    T.StructField("log_pos", T.LongType()),
    T.StructField("flags", T.ArrayType(T.StringType())),
    T.StructField("checksum", T.LongType()),
    T.StructField("gtid", T.StringType()),
    T.StructField("transaction_offset", T.LongType()),
    T.StructField("xid", T.DecimalType(20, 0)),
    T.StructField("table_id", T.LongType()),
    T.StructField("database", T.StringType()),
    T.StructField("table", T.StringType()),
    T.StructField("query", T.StringType()),
    T.StructField("rows", T.IntegerType()),
])

COLUMN = T.StructType([
    T.StructField("index", T.IntegerType()),
    T.StructField("name", T.StringType()),
    T.StructField("type", T.StringType()),
    T.StructField("real_type", T.StringType()),
    T.StructField("nullable", T.BooleanType()),
    T.StructField("unsigned", T.BooleanType()),
    T.StructField("collation_id", T.IntegerType()),
    T.StructField("max_length", T.IntegerType()),
    T.StructField("precision", T.IntegerType()),
    T.StructField("scale", T.IntegerType()),
    T.StructField("fsp", T.IntegerType()),
    T.StructField("bits", T.IntegerType()),
    T.StructField("pack_length", T.IntegerType()),
    T.StructField("element_type", T.StringType()),
    T.StructField("enum_values", T.ArrayType(T.StringType())),
    T.StructField("set_values", T.ArrayType(T.StringType())),
    T.StructField("geometry_type", T.IntegerType()),
    T.StructField("visible", T.BooleanType()),
    T.StructField("vector_dimensions", T.IntegerType()),
    T.StructField("metadata_hex", T.StringType()),
])

TABLE_MAPS = T.StructType([
    T.StructField("database", T.StringType()),
    T.StructField("table", T.StringType()),
    T.StructField("shape_id", T.StringType(), False),
    T.StructField("table_id", T.LongType()),
    T.StructField("server_version", T.StringType()),
    T.StructField("flavor", T.StringType()),
    T.StructField("row_metadata", T.StringType()),
    T.StructField("flags", T.ArrayType(T.StringType())),
    T.StructField("primary_key", T.ArrayType(T.StructType([
        T.StructField("column", T.IntegerType()), T.StructField("prefix", T.IntegerType())]))),
    T.StructField("columns", T.ArrayType(COLUMN)),
    T.StructField("first_file", T.StringType()),
    T.StructField("first_offset", T.LongType()),
    T.StructField("first_timestamp", T.TimestampType()),
    T.StructField("occurrences", T.LongType()),
])

ROW_CHANGES = T.StructType([
    T.StructField("file", T.StringType(), False),
    T.StructField("offset", T.LongType(), False),
    T.StructField("inner_offset", T.LongType()),
    T.StructField("gtid", T.StringType()),
    T.StructField("timestamp", T.TimestampType()),
    T.StructField("database", T.StringType()),
    T.StructField("table", T.StringType()),
    T.StructField("operation", T.StringType()),
    T.StructField("row_index", T.IntegerType()),
    T.StructField("before", IMAGE),
    T.StructField("after", IMAGE),
    T.StructField("signedness_known", T.BooleanType()),
    T.StructField("event_type", T.StringType()),
    # the change's place (changes/transactions.py, as decode --format maxwell gives it): the
    # order key; its transaction's commit XID (past 2^63-1: wrapped negative) and commit
    # event's time, null when the split ends before the commit; the table's schema version
    # (with --schema)
    T.StructField("order_key", T.StringType()),
    T.StructField("xid", T.LongType()),
    T.StructField("commit_timestamp", T.TimestampType()),
    T.StructField("schema_version", T.IntegerType()),
])

ERRORS = T.StructType([
    T.StructField("file", T.StringType(), False),
    T.StructField("offset", T.LongType()),
    T.StructField("in_payload_at", T.LongType()),
    T.StructField("stage", T.StringType()),
    T.StructField("kind", T.StringType()),
    T.StructField("path", T.StringType()),
    T.StructField("message", T.StringType()),
    T.StructField("expected", T.StringType()),
    T.StructField("type", T.StringType()),
    T.StructField("type_code", T.IntegerType()),
    T.StructField("size", T.LongType()),
])

SPLIT_STATS = T.StructType([
    T.StructField("file", T.StringType(), False),
    T.StructField("file_size", T.LongType()),
    T.StructField("split", T.IntegerType()),
    T.StructField("start", T.LongType()),
    T.StructField("end", T.LongType()),
    T.StructField("events_read", T.LongType()),
    T.StructField("events_decoded", T.LongType()),
    T.StructField("events_quarantined", T.LongType()),
    T.StructField("rows", T.LongType()),
    T.StructField("rows_failed", T.LongType()),
    T.StructField("table_map_shapes", T.LongType()),
    T.StructField("carried_table_maps", T.LongType()),
    T.StructField("errors", T.LongType()),
    T.StructField("seconds", T.DoubleType()),
    T.StructField("cpu_seconds", T.DoubleType()),
    T.StructField("max_rss_kib", T.LongType()),
    T.StructField("bytes_decoded", T.LongType()),
    T.StructField("bytes_skipped", T.LongType()),
    T.StructField("statements", T.LongType()),   # statement-based changes (not rows)
])

# table_maps tuples from a task: the shape fields, then first file/offset/time and count
UNIFIED = T.StructType([
    T.StructField("kind", T.StringType(), False),
    T.StructField("file", T.StringType(), False),
    T.StructField("event", EVENTS),
    T.StructField("table_map", TABLE_MAPS),
    T.StructField("row", ROW_CHANGES),
    T.StructField("error", ERRORS),
    T.StructField("stat", SPLIT_STATS),
])

FILES = T.StructType([
    T.StructField("file", T.StringType(), False),
    T.StructField("size", T.LongType()),
    T.StructField("splits", T.LongType()),
    T.StructField("events_read", T.LongType()),
    T.StructField("events_decoded", T.LongType()),
    T.StructField("events_quarantined", T.LongType()),
    T.StructField("bytes", T.LongType()),
    T.StructField("bytes_decoded", T.LongType()),
    T.StructField("bytes_skipped", T.LongType()),
    T.StructField("reconciled", T.BooleanType()),
    T.StructField("rows", T.LongType()),
    T.StructField("rows_failed", T.LongType()),
    T.StructField("table_map_shapes", T.LongType()),
    T.StructField("carried_table_maps", T.LongType()),
    T.StructField("errors", T.LongType()),
    T.StructField("task_seconds", T.DoubleType()),
    T.StructField("task_cpu_seconds", T.DoubleType()),
    T.StructField("max_rss_kib", T.LongType()),
    T.StructField("statements", T.LongType()),   # statement-based changes (not rows)
])


def spark_type_of(col: dict):
    """The exact Spark type of a column from its table-map description, and how to take it
    from a ``Value`` struct."""
    from pyspark.sql import functions as F
    t = col["type"]
    real = col.get("real_type")

    def expr(v):
        if real == "ENUM" or real == "SET":
            return F.coalesce(v["string"], v["long"].cast("string")), T.StringType()
        if t in ("TINY", "SHORT", "INT24", "LONG", "YEAR"):
            return v["long"], T.LongType()
        if t == "LONGLONG" or (t == "BIT" and (col.get("bits") or 0) > 63):
            if col.get("unsigned") or t == "BIT":
                d = T.DecimalType(20, 0)
                return F.coalesce(v["long"].cast(d), v["decimal"].cast(d)), d
            return v["long"], T.LongType()
        if t == "BIT":
            return v["long"], T.LongType()
        if t == "NEWDECIMAL" and col.get("precision") and col["precision"] <= 38:
            d = T.DecimalType(col["precision"], col.get("scale") or 0)
            return F.coalesce(v["decimal"].cast(d), v["text"].cast(d)), d
        if t in ("FLOAT", "DOUBLE"):
            return v["double"], T.DoubleType()
        if t in ("DATE", "NEWDATE"):
            return v["date"], T.DateType()
        if t in ("DATETIME", "DATETIME2"):
            return v["datetime"], T.TimestampNTZType()
        if t in ("TIMESTAMP", "TIMESTAMP2"):
            return v["timestamp"], T.TimestampType()
        if t in ("TIME", "TIME2"):
            return v["time"], T.DayTimeIntervalType(0, 3)
        if t == "JSON":
            return F.coalesce(v["json"], v["string"]), T.StringType()
        if t == "GEOMETRY":
            return v["binary"], T.BinaryType()
        if t == "VECTOR":
            return v["vector"], T.ArrayType(T.DoubleType())
        if t in ("VARCHAR", "VAR_STRING", "STRING", "BLOB", "TINY_BLOB", "MEDIUM_BLOB",
                 "LONG_BLOB"):
            if col.get("collation_id") == BINARY_ID:
                return v["binary"], T.BinaryType()
            return F.coalesce(v["string"], v["binary"].cast("string")), T.StringType()
        return F.coalesce(v["text"], v["string"], v["json"],
                          v["decimal"].cast("string"), v["long"].cast("string")), T.StringType()
    return expr

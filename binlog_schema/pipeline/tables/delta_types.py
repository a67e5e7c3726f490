"""The Delta Lake schema and file statistics of Parquet part files, for
:mod:`.delta`'s commits: :func:`schema_of` (a file's footer), :func:`delta_type` (a Spark
type), :func:`arrow_field`, :func:`type_names`, :func:`file_stats`, :func:`bare_type`.

Types: the Delta schema is the Spark schema every part file carries in its key-value
metadata (``org.apache.spark.sql.parquet.row.metadata``: the tasks' files and Spark's alike;
without it, the file's Arrow schema). Delta Lake has no interval type: a day-time interval
(Spark's type for MySQL TIME, ``Value.time`` of ``row_changes``) is a ``long`` of
microseconds in the Delta schema, which is the INT64 the Parquet file already holds (a
year-month interval an ``integer`` of months; Spark 4.1's TIME type a ``long`` of microseconds
since midnight; an Arrow duration or time of day an integer of its unit), and the field gets a
``comment`` saying so. Nothing else changes.
"""

from __future__ import annotations

import json

from binlog_schema.pipeline.tasks.parts import SPARK_METADATA

NOTE = "{} as {} (a type Delta Lake does not have)"


def schema_of(meta) -> str:
    """The Delta schema (JSON) of a Parquet file: its Spark schema with intervals as integers,
    else its Arrow schema with durations as integers."""
    spark = (meta.metadata or {}).get(SPARK_METADATA)
    if spark is not None:
        return json.dumps(delta_type(json.loads(spark))[0])
    import pyarrow as pa
    from deltalake import Schema
    arrow = meta.schema.to_arrow_schema()
    fields = [arrow_field(f) for f in arrow]
    return Schema.from_arrow(pa.schema(fields)).to_json()


def delta_type(t) -> tuple:
    """(Delta type, comment or None) of a Spark type in its JSON form: the same but
    intervals."""
    if isinstance(t, str):
        if t.startswith("interval"):
            months = "year" in t or "month" in t
            return (("integer", NOTE.format(t, "months")) if months else
                    ("long", NOTE.format(t, "microseconds")))
        if t == "time" or t.startswith("time("):     # (Spark 4.1's TIME: INT64 micros)
            return "long", NOTE.format(t, "microseconds since midnight")
        return t, None
    kind = t.get("type")
    if kind == "struct":
        fields = []
        for f in t["fields"]:
            inner, note = delta_type(f["type"])
            meta = dict(f.get("metadata") or {})
            if note and "comment" not in meta:
                meta["comment"] = note
            fields.append({**f, "type": inner, "metadata": meta})
        return {**t, "fields": fields}, None
    if kind == "array":
        return {**t, "elementType": delta_type(t["elementType"])[0]}, None
    if kind == "map":
        return {**t, "keyType": delta_type(t["keyType"])[0],
                "valueType": delta_type(t["valueType"])[0]}, None
    return t, None


def arrow_field(f):
    """An Arrow field with durations and times of day (at any depth) as integers of their
    unit (int64; int32 for time32, as Parquet stores it)."""
    import pyarrow as pa
    t = f.type
    if pa.types.is_duration(t) or pa.types.is_time(t):
        meta = dict(f.metadata or {})
        unit = {"s": "seconds", "ms": "milliseconds", "us": "microseconds"}.get(t.unit,
                                                                                "nanoseconds")
        if pa.types.is_time(t):
            unit += " since midnight"
        meta.setdefault(b"comment", NOTE.format(str(t), unit).encode())
        whole = pa.int32() if pa.types.is_time32(t) else pa.int64()
        return pa.field(f.name, whole, f.nullable, meta)
    if pa.types.is_struct(t):
        return f.with_type(pa.struct([arrow_field(c) for c in t]))
    if pa.types.is_map(t):
        return f.with_type(pa.map_(arrow_field(t.key_field), arrow_field(t.item_field)))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        inner = arrow_field(t.value_field)
        return f.with_type(pa.list_(inner) if pa.types.is_list(t) else pa.large_list(inner))
    return f


def type_names(t, in_map: bool = False):
    """(primitive type name, whether inside a map) of every type in a Delta schema."""
    if isinstance(t, str):
        yield t, in_map
        return
    kind = t.get("type")
    if kind == "struct":
        for f in t["fields"]:
            yield from type_names(f["type"], in_map)
    elif kind == "array":
        yield from type_names(t["elementType"], in_map)
    elif kind == "map":
        yield from type_names(t["keyType"], True)
        yield from type_names(t["valueType"], True)


def file_stats(meta) -> str:
    """Delta file statistics from a Parquet footer: the row count; null counts of the
    top-level primitive columns and minimum and maximum of the integer, string and date ones
    (where every row group has exact statistics), which readers use to skip files."""
    import pyarrow as pa
    out = {"numRecords": meta.num_rows}
    columns = {meta.schema.column(i).path: i for i in range(meta.num_columns)}
    nulls, low, high = {}, {}, {}
    for field in meta.schema.to_arrow_schema():
        i = columns.get(field.name)
        if i is None:     # a nested column
            continue
        chunks = [meta.row_group(r).column(i) for r in range(meta.num_row_groups)]
        stats = [c.statistics for c in chunks]
        if not all(s is not None and s.has_null_count for s in stats):
            continue
        nulls[field.name] = sum(s.null_count for s in stats)
        t = field.type
        if not (pa.types.is_integer(t) or pa.types.is_string(t) or pa.types.is_date32(t)):
            continue
        valued = [s for s, c in zip(stats, chunks) if s.null_count < c.num_values]
        if not valued or not all(s.has_min_max and getattr(s, "is_min_value_exact", True)
                                 and getattr(s, "is_max_value_exact", True) for s in valued):
            continue
        lo, hi = min(s.min for s in valued), max(s.max for s in valued)
        if pa.types.is_date32(t):
            lo, hi = lo.isoformat(), hi.isoformat()
        low[field.name], high[field.name] = lo, hi
    if low:
        out["minValues"], out["maxValues"] = low, high
    if nulls:
        out["nullCount"] = nulls
    return json.dumps(out, separators=(",", ":"))


def bare_type(t):
    """A Delta type in its JSON form without nullability and field metadata."""
    if isinstance(t, dict):
        return {k: bare_type(v) for k, v in t.items()
                if k not in ("nullable", "metadata", "containsNull", "valueContainsNull")}
    if isinstance(t, list):
        return [bare_type(x) for x in t]
    return t

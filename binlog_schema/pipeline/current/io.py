"""The tables ``spark current`` reads and writes: the schemas of its keyed and folded rows,
a previous run's table read back as folded rows (:func:`base_rows`), and the typed tables written
as Parquet or Delta (:func:`write_tables`)."""

from __future__ import annotations

from binlog_schema.pipeline.current.fold import KEYED_FIELDS, UNKNOWN, TableFold
from binlog_schema.pipeline.current.plan import column_facts
from binlog_schema.pipeline.current.types import (DAY_US, decoded_value, has_time_type, is_time,
                                                 micros, typed_column)


def keyed_schema():
    from pyspark.sql import types as T
    types = {"origin": T.LongType(), "gkey": T.BinaryType(), "okey": T.StringType(),
             "sub": T.IntegerType(), "op": T.StringType(), "operation": T.StringType(),
             "key": T.BinaryType(), "old": T.BinaryType(), "image": T.BinaryType(),
             "problem": T.StringType()}
    return T.StructType([T.StructField(n, types[n]) for n in KEYED_FIELDS])


def folded_schema():
    from pyspark.sql import types as T
    from binlog_schema.pipeline.tables.schema import IMAGE
    return T.StructType([T.StructField("origin", T.LongType()),
                         T.StructField("okey", T.StringType()),
                         T.StructField("problem", T.StringType()),
                         T.StructField("image", IMAGE)])


def table_path(root: str, name: tuple) -> str:
    return f"{root}/{name[0]}/{name[1]}"


def _columns(table, flavor) -> list:
    return [(column_facts(c, i, flavor), c.origin) for i, c in enumerate(table.columns)]


def read_table(spark, path: str, fmt: str, version=None):
    """A table written by a run (None when it holds no rows)."""
    if fmt == "delta":
        from deltalake import DeltaTable
        files = DeltaTable(path, version=version).file_uris()
        return spark.read.parquet(*files) if files else None
    return spark.read.parquet(path)


def base_rows(spark, base, state, name, info, t: TableFold, lives, tz):
    """The rows of the base's table ``name`` as folded rows (:func:`folded_schema`) of table
    ``t`` at their ``_order_key`` (before every change this run applies: the fold puts them
    first), with the columns added since (by this run's ALTERs) as the server filled the
    rows it held then: the column's DEFAULT when added, NULL, or its type's implicit
    default."""
    from binlog_schema.pipeline.tables.arrow import arrow_type
    from binlog_schema.pipeline.tables.schema import VALUE
    life = lives.lives[t.origin]
    table = life.version_at("")
    cols = _columns(table, lives.history.flavor)
    df = read_table(spark, table_path(base, tuple(name.split(".", 1))),
                    state.get("format", "parquet"), info.get("version"))
    if df is None:
        return spark.createDataFrame([], folded_schema())
    df = df.select(*[c["name"] for c, _ in cols], "_order_key")
    vtype = arrow_type(VALUE, tz)
    final = t.final_origins
    held = {o for _, o in cols}
    added = {o: t.added.get(o, UNKNOWN) for _, o in t.final if o not in held}
    unknown = sorted(n for n, o in t.final if added.get(o, None) is UNKNOWN)
    problem = (f"the value of column(s) {', '.join(unknown)} in the rows of --base is not "
               "known (their DEFAULT is an expression): NULL") if unknown else None
    fills = {str(o): (None if v is UNKNOWN else v) for o, v in added.items()}

    def rows(batches):
        import pyarrow as pa
        from binlog_schema.pipeline.tables.arrow import arrow_schema
        arrow = arrow_schema(folded_schema(), tz)
        from binlog_schema.pipeline.tasks.value_structs import value_struct
        for b in batches:
            data = b.to_pydict()
            images = [dict(fills) for _ in range(b.num_rows)]
            for c, o in cols:
                if o not in final:
                    continue
                values = [decoded_value(c, x) for x in data[c["name"]]]
                for img, v in zip(images, value_struct(values, vtype).to_pylist()):
                    img[str(o)] = v
            out = [{"origin": t.origin, "okey": okey or "", "problem": problem,
                    "image": list(img.items())}
                   for img, okey in zip(images, data["_order_key"])]
            if out:
                yield pa.RecordBatch.from_pylist(out, schema=arrow)
    return df.mapInArrow(rows, folded_schema())


def _time_modes(spark, df, cols, fmt) -> dict:
    """origin -> how each TIME column is stored (see :mod:`.types`)."""
    from pyspark.sql import functions as F
    times = [(c, o) for c, o in cols if is_time(c)]
    if not times:
        return {}
    if fmt == "delta":
        return {o: "micros" for _, o in times}
    if not has_time_type():
        return {o: "interval" for _, o in times}
    aggs = []
    for _, o in times:
        us = micros(F.col("image")[str(o)]["time"])
        aggs += [F.min(us).alias(f"lo{o}"), F.max(us).alias(f"hi{o}")]
    r = df.agg(*aggs).first()
    return {o: "time" if (r[f"lo{o}"] is None or r[f"lo{o}"] >= 0) and
            (r[f"hi{o}"] is None or r[f"hi{o}"] < DAY_US) else "interval" for _, o in times}


WRITERS = 4   # tables written at once (small tables: Spark's per-job overhead overlaps)


def write_tables(spark, folded, live: dict, out, fmt, flavor, counts, state, base,
                 same=frozenset(), extra=()) -> dict:
    """Each live table (origin -> Life) typed and written under ``out`` (those of ``same``,
    Delta tables this run leaves as they are, kept as they are), :data:`WRITERS` at once;
    returns the state's ``tables`` entries ("db.table" -> rows, inserted, updated, deleted,
    version). ``extra``: columns of ``folded`` written after ``_order_key`` as they are."""
    from concurrent.futures import ThreadPoolExecutor
    from pyspark.sql import functions as F
    sizes = {r["origin"]: r["count"] for r in folded.groupBy("origin").count().collect()}
    written = {}

    def write(o, life):
        name = ".".join(life.name)
        cols = _columns(life.final, flavor)
        df = folded.where(F.col("origin") == o)
        spark.sparkContext.setJobDescription(f"write {name}")
        modes = _time_modes(spark, df, cols, fmt)
        typed = df.select(*[typed_column(c, F.col("image")[str(oc)], modes.get(oc, "interval"))
                            for c, oc in cols], F.col("okey").alias("_order_key"), *extra)
        path = table_path(out, life.name)
        entry = {"rows": sizes.get(o, 0), "inserted": counts.get(o, {}).get("insert", 0),
                 "updated": counts.get(o, {}).get("update", 0),
                 "deleted": counts.get(o, {}).get("delete", 0)}
        if fmt == "delta":
            from binlog_schema.pipeline.tables import delta
            staged = f"{out}/_binlog_schema/work/staged/{life.name[0]}/{life.name[1]}"
            typed.write.mode("overwrite").parquet(staged)
            entry["version"] = delta.replace_table(path, staged, {"binlog_schema": name})
        else:
            typed.write.mode("overwrite").parquet(path)
        return name, entry

    todo = []
    for o, life in sorted(live.items(), key=lambda x: x[1].name):
        name = ".".join(life.name)
        if o in same:
            written[name] = dict(state["tables"][name], inserted=0, updated=0, deleted=0)
        else:
            todo.append((o, life))
    with ThreadPoolExecutor(max_workers=max(1, min(WRITERS, len(todo)))) as pool:
        for name, entry in pool.map(lambda ol: write(*ol), todo):
            written[name] = entry
    written = dict(sorted(written.items()))
    if fmt == "delta" and base == out:   # (tables dropped or renamed since: gone)
        from binlog_schema.pipeline.tables.result import hadoop_fs
        for name in (state or {}).get("tables", {}):
            if name not in written:
                fs, p = hadoop_fs(spark, table_path(out, tuple(name.split(".", 1))))
                fs.delete(p, True)
    return written

"""The tables ``spark current`` reads and writes: the schemas of its keyed and folded rows,
a previous run's table read back as folded rows (:func:`base_rows`), and the typed tables
written as Parquet, Delta or Iceberg (:func:`write_tables`, :func:`write_whole`; a Delta or
Iceberg run over its own output commits the keys it changed: :mod:`.commit`)."""

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


def read_table(spark, path: str, fmt: str, version=None, root=None):
    """A table written by a run (None when it holds no rows); ``root``: the run's ``out``
    (Iceberg's catalog is there)."""
    if fmt == "delta":
        from deltalake import DeltaTable
        files = DeltaTable(path, version=version).file_uris()
        return spark.read.parquet(*files) if files else None
    if fmt == "iceberg":
        from binlog_schema.pipeline.tables import iceberg
        files = iceberg.data_files(root, _ident(root, path), version)
        return spark.read.parquet(*files) if files else None
    return spark.read.parquet(path)


def _ident(root: str, path: str) -> tuple:
    """(database, table) of a table's path under ``root``."""
    return tuple(path[len(root.rstrip("/")) + 1:].split("/", 1))


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
                    state.get("format", "parquet"), info.get("version"), base)
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


def time_modes(spark, df, cols, fmt) -> dict:
    """origin -> how each TIME column is stored (see :mod:`.types`)."""
    from pyspark.sql import functions as F
    times = [(c, o) for c, o in cols if is_time(c)]
    if not times:
        return {}
    if fmt == "delta":
        return {o: "micros" for _, o in times}
    beyond = "micros" if fmt == "iceberg" else "interval"   # (Iceberg: no interval type)
    if not has_time_type():
        return {o: beyond for _, o in times}
    aggs = []
    for _, o in times:
        us = micros(F.col("image")[str(o)]["time"])
        aggs += [F.min(us).alias(f"lo{o}"), F.max(us).alias(f"hi{o}")]
    r = df.agg(*aggs).first()
    return {o: "time" if (r[f"lo{o}"] is None or r[f"lo{o}"] >= 0) and
            (r[f"hi{o}"] is None or r[f"hi{o}"] < DAY_US) else beyond for _, o in times}


def staged_path(root: str, name: tuple) -> str:
    """Where a table's rows are staged as Parquet before a Delta or Iceberg commit."""
    return f"{root}/_binlog_schema/work/staged/{name[0]}/{name[1]}"


def write_whole(spark, typed, root: str, name: tuple, fmt: str, metadata: dict,
                properties: dict | None = None):
    """The DataFrame ``typed`` as the whole content of the table ``name`` (database, table)
    under ``root`` in ``fmt``: Parquet files, a Delta table's next version (``properties``:
    its table properties), or an Iceberg table's next snapshot. Returns the Delta version
    or Iceberg snapshot id (None for Parquet)."""
    path = table_path(root, name)
    staged = staged_path(root, name)
    if fmt == "delta":
        from binlog_schema.pipeline.tables import delta
        typed.write.mode("overwrite").parquet(staged)
        return delta.replace_table(path, staged, metadata, properties)
    if fmt == "iceberg":
        from binlog_schema.pipeline.tables import iceberg
        return iceberg.write_frame(spark, typed, root, tuple(name), path, staged, metadata)
    typed.write.mode("overwrite").parquet(path)
    return None


WRITERS = 4   # tables written at once (small tables: Spark's per-job overhead overlaps)


def write_tables(spark, folded, live: dict, out, fmt, flavor, counts, state, base,
                 same=frozenset(), extra=()) -> dict:
    """Each live table (origin -> Life) typed and written under ``out`` (those of ``same``,
    Delta tables this run leaves as they are, kept as they are), :data:`WRITERS` at once;
    returns the state's ``tables`` entries ("db.table" -> rows, inserted, updated, deleted,
    version). ``extra``: columns of ``folded`` written after ``_order_key`` as they are. The
    tables of ``state`` not written are left (:func:`drop_gone`)."""
    from concurrent.futures import ThreadPoolExecutor
    from pyspark.sql import functions as F
    sizes = {r["origin"]: r["count"] for r in folded.groupBy("origin").count().collect()}
    written = {}

    def write(o, life):
        name = ".".join(life.name)
        cols = _columns(life.final, flavor)
        df = folded.where(F.col("origin") == o)
        spark.sparkContext.setJobDescription(f"write {name}")
        modes = time_modes(spark, df, cols, fmt)
        typed = df.select(*[typed_column(c, F.col("image")[str(oc)], modes.get(oc, "interval"))
                            for c, oc in cols], F.col("okey").alias("_order_key"), *extra)
        path = table_path(out, life.name)
        entry = {"rows": sizes.get(o, 0), "inserted": counts.get(o, {}).get("insert", 0),
                 "updated": counts.get(o, {}).get("update", 0),
                 "deleted": counts.get(o, {}).get("delete", 0)}
        if fmt == "delta":   # (by MERGE where it can: see commit.py)
            from binlog_schema.pipeline.current.commit import merge_changes, merge_keys
            from binlog_schema.pipeline.tables import delta
            meta, props = {"binlog_schema": name}, delta.CHANGE_DATA_FEED
            keys = merge_keys(life, cols, state) if base == out and delta.is_delta(path) \
                else None
            version = None if keys is None else merge_changes(
                spark, typed, read_table(spark, path, fmt), path, keys,
                (state or {}).get("applied", {}).get("okey", ""),
                staged_path(out, life.name), meta, props)
            entry["version"] = version if version is not None else write_whole(
                spark, typed, out, life.name, fmt, meta, props)
        elif fmt == "iceberg":
            entry["version"] = _write_iceberg(spark, typed, life, cols, name, out, path,
                                              state, base)
        else:
            write_whole(spark, typed, out, life.name, fmt, {})
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
    return dict(sorted(written.items()))


def drop_gone(spark, out: str, names, fmt: str) -> None:
    """The tables ``names`` ("db.table") under ``out`` removed (their folders; an Iceberg
    table from its catalog too): tables a run over its own output (Delta, Iceberg) dropped
    or renamed (after its state is written: until then the previous state's tables are all
    there)."""
    from binlog_schema.pipeline.tables.result import hadoop_fs
    for name in names:
        ident = tuple(name.split(".", 1))
        if fmt == "iceberg":
            from binlog_schema.pipeline.tables import iceberg
            iceberg.forget(out, ident)
        fs, p = hadoop_fs(spark, table_path(out, ident))
        fs.delete(p, True)


def _write_iceberg(spark, typed, life, cols, name, out, path, state, base):
    """The Iceberg table of one live table: an upsert of the keys this run changed where
    :func:`~.commit.merge_keys` allows it (the rows of :func:`~.commit.changed_rows`), else
    its whole content, in one snapshot. Returns the snapshot id (the base's when nothing
    changed)."""
    from binlog_schema.pipeline.current.commit import changed_rows, merge_keys
    from binlog_schema.pipeline.tables import iceberg
    ident = tuple(life.name)
    staged = staged_path(out, life.name)
    metadata = {"binlog_schema": name, "commit": "replace"}
    info = (state or {}).get("tables", {}).get(name)
    keys = merge_keys(life, cols, state) if base == out and iceberg.is_iceberg(out, ident) \
        else None
    if keys:
        held = read_table(spark, path, "iceberg", info.get("version"), out)
        rows = changed_rows(typed, held, keys, (state.get("applied") or {}).get("okey", ""))
        iceberg.write_staged(spark, rows, staged)
        if iceberg.fits(out, ident, staged):
            done = iceberg.upsert_table(out, ident, path, staged, keys,
                                        dict(metadata, commit="upsert"))
            return info.get("version") if done is None else done
    return write_whole(spark, typed, out, ident, "iceberg", metadata)

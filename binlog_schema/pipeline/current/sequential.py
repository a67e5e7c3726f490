"""The tables ``spark current`` folds in Python, row change by row change (:mod:`.fold`'s
:func:`~.fold.key_rows` and :func:`~.fold.fold_rows` in Spark tasks), one group per table:
only those :mod:`.versions` cannot fold per key (a primary key that changes in the table's
life; an update with a partial image that moves a keyed row to another key)."""

from __future__ import annotations

from binlog_schema.pipeline.current.fold import fold_rows, key_of, key_rows


def sequential_fold(spark, changes, plan, origins, base=None):
    """The :func:`~.io.folded_schema` rows of the tables ``origins`` (a set) of ``changes``
    (``database``, ``table``, ``operation``, ``before``, ``after``, ``okey``), the rows of
    ``base`` (folded rows: a previous run's) put first."""
    import pickle
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.current.io import folded_schema, keyed_schema
    from binlog_schema.pipeline.driver.session import session_time_zone
    from binlog_schema.pipeline.tables.arrow import arrow_schema
    tz = session_time_zone(spark)
    wanted = frozenset(origins)

    def keyer(batches):
        import pyarrow as pa
        arrow = arrow_schema(keyed_schema(), tz)
        for b in batches:
            rows = [r for r in key_rows(b.to_pylist(), plan) if r["origin"] in wanted]
            if rows:
                yield pa.RecordBatch.from_pylist(rows, schema=arrow)

    def base_keyer(batches):
        import pyarrow as pa
        arrow = arrow_schema(keyed_schema(), tz)
        for b in batches:
            rows = []
            for r in b.to_pylist():
                t = plan.tables[r["origin"]]
                img = {int(k): v for k, v in r["image"]}
                k = key_of(img, t.key_at(r["okey"] or "")) or b""
                rows.append({"origin": t.origin, "gkey": b"", "okey": r["okey"] or "",
                             "sub": 0, "op": "put", "operation": None, "key": k, "old": None,
                             "image": pickle.dumps(img, protocol=5),
                             "problem": r["problem"]})
            if rows:
                yield pa.RecordBatch.from_pylist(rows, schema=arrow)

    def folder(batches):
        import pyarrow as pa
        arrow = arrow_schema(folded_schema(), tz)
        rows = (r for b in batches for r in b.to_pylist())
        buf = []
        for origin, img, ok, problem in fold_rows(rows, plan):
            buf.append({"origin": origin, "okey": ok, "problem": problem,
                        "image": None if img is None else
                        [(str(k), v) for k, v in img.items()]})
            if len(buf) >= 4096:
                yield pa.RecordBatch.from_pylist(buf, schema=arrow)
                buf = []
        if buf:
            yield pa.RecordBatch.from_pylist(buf, schema=arrow)

    keyed = changes.select("database", "table", "operation", "before", "after", "okey") \
        .mapInArrow(keyer, keyed_schema())
    if base is not None:
        keyed = keyed.unionByName(base.where(F.col("origin").isin(list(wanted)))
                                  .mapInArrow(base_keyer, keyed_schema()))
    keyed = keyed.where(F.col("op") != "problem").withColumn("gkey", F.lit(b""))
    parts = max(1, min(len(wanted), spark.sparkContext.defaultParallelism))
    return keyed.repartition(parts, "origin").sortWithinPartitions(
        "origin", "gkey", "okey", "sub").mapInArrow(folder, folded_schema())

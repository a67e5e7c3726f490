"""Row changes keyed, without a Python function per row: what :func:`~.fold.key_rows` does
row by row, in Arrow per batch (:func:`keyed_changes`, a ``mapInArrow`` of
:mod:`.arrow_keying`).

The driver gives the tasks the :class:`~.fold.FoldPlan` as spans, one per span of order keys
where one (database, table) name meant one version of one table (:func:`span_rows`): the
version's column names (lower case) and their origins, its fill values (what a final column
missing from a full image holds: :func:`~.fold.project`'s rule), the columns it is keyed by
and the table's truncations. Each change is found its span by name and order key; its
images are projected on the final columns by origin (maps ``origin -> Value``, the folded
rows' form), and it becomes one or two keyed events (a put, a delete, a partial image's
merge; an update that changes the key: a delete and a put).

A keyed event (:func:`keyed_schema`): ``origin``, ``okey``, ``sub`` (its rank in its change),
``op`` (``put``, ``del``, ``merge``; ``problem`` for a change of no known table),
``operation`` (the change's, on its first event), ``key`` (the key columns' values, an array;
null when one is missing), ``image``, ``problem``, ``keyed`` (the table has a primary key
there: else a multiset), ``move`` (an update with a partial image that changes the key: the
new row needs the old one's other columns), ``ep`` (truncations of the table at or before
it) and ``ts`` (the change's commit timestamp). :func:`key_of` and :func:`overlay` are the
same rules as column expressions, for the fold's steps (:mod:`.versions`).
"""

from __future__ import annotations

from binlog_schema.pipeline.current.fold import UNKNOWN, FoldPlan



def span_rows(plan: FoldPlan, origins=None) -> list:
    """The spans of ``plan`` (of the tables of ``origins``; None: every table) as dicts:
    ``database``, ``table``, ``lo``, ``hi`` (null: open), ``origin``, ``names`` (lower-case
    name -> origin), ``fnames`` (those of final columns), ``ncols``, ``fills`` (final origin
    -> Value dict, in the final columns' order), ``unknown`` (origins whose fill is not
    known), ``keycols``, ``keyed``, ``truncs``."""
    out = []
    for (db, tb), (okeys, owners) in plan.names.items():
        for i, o in enumerate(owners):
            t = plan.tables.get(o) if o is not None else None
            if t is None or (origins is not None and o not in origins):
                continue
            lo, hi = okeys[i], okeys[i + 1] if i + 1 < len(okeys) else None
            starts = [v[0] for v in t.versions]
            for j, (_, names, fills, key) in enumerate(t.versions):
                vlo = "" if j == 0 else starts[j]   # (before the first: the first)
                vhi = starts[j + 1] if j + 1 < len(starts) else None
                a = max(lo, vlo)
                b = hi if vhi is None else vhi if hi is None else min(hi, vhi)
                if b is not None and a >= b:
                    continue
                out.append(_span(db, tb, a, b, t, names, fills, key))
    return out


def _span(db, tb, lo, hi, t, names, fills, key) -> dict:
    final = t.final_origins
    fill, unknown = {}, []
    for _, o in t.final:
        v = fills[o] if o in fills else t.added.get(o, UNKNOWN)
        if v is UNKNOWN:
            unknown.append(str(o))
            v = None
        fill[str(o)] = v
    return {"database": db, "table": tb, "lo": lo, "hi": hi, "origin": t.origin,
            "names": {n: str(o) for n, o in names.items()},
            "fnames": {n: str(o) for n, o in names.items() if o in final},
            "ncols": len(names), "fills": fill, "unknown": unknown,
            "keycols": [str(o) for o in (key or [o for _, o in t.final])],
            "keyed": bool(key), "truncs": sorted(t.truncates)}


# ---------------------------------------------------------------------------------------
# the keyed events


def keyed_schema():
    """The Spark schema of the keyed events (see the module docstring)."""
    from pyspark.sql import types as T
    from binlog_schema.pipeline.tables.schema import IMAGE, VALUE
    s = T.StringType()
    return T.StructType([
        T.StructField("origin", T.LongType()), T.StructField("okey", s),
        T.StructField("sub", T.IntegerType()), T.StructField("op", s),
        T.StructField("operation", s), T.StructField("key", T.ArrayType(VALUE)),
        T.StructField("image", IMAGE), T.StructField("problem", s),
        T.StructField("keyed", T.BooleanType()), T.StructField("move", T.BooleanType()),
        T.StructField("ep", T.IntegerType()), T.StructField("ts", T.TimestampType())])


def keyed_changes(changes, spans: list, tz: str, ts=None):
    """The keyed events (see the module docstring) of ``changes`` (``database``, ``table``,
    ``operation``, ``before``, ``after``, ``okey``; ``ts``: a column of their commit
    timestamps, else null), ``spans`` being :func:`span_rows`' and ``tz`` the session's time
    zone: keyed in Arrow, batch by batch (:mod:`.arrow_keying`), no Python per row."""
    import functools
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.tables.arrow import arrow_schema, arrow_type
    from binlog_schema.pipeline.tables.schema import VALUE
    schema = keyed_schema()
    c = changes.select("database", "table", "operation", "before", "after", "okey",
                       (ts if ts is not None else F.lit(None).cast("timestamp")).alias("ts"))
    vtype = arrow_type(VALUE, tz)
    fn = functools.partial(_key_batches, spans=spans, vtype=vtype,
                           schema=arrow_schema(schema, tz))
    return c.mapInArrow(fn, schema)


def _key_batches(batches, spans, vtype, schema):
    from binlog_schema.pipeline.current.arrow_keying import key_batches, prepare
    return key_batches(batches, prepare(spans, vtype), vtype, schema)


def key_of(image, keycols):
    """The values of the key columns ``keycols`` (an array column of origins) of ``image``
    (an array), null when one is missing."""
    from pyspark.sql import functions as F
    return F.when(F.forall(keycols, lambda o: F.map_contains_key(image, o)),
                  F.transform(keycols, lambda o: image[o]))


def overlay(held, image):
    """``held`` with the columns of ``image`` replaced ({**held, **image})."""
    from pyspark.sql import functions as F
    return F.map_concat(F.map_filter(held, lambda k, v: ~F.map_contains_key(image, k)), image)

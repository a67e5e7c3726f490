"""Row changes keyed in Spark SQL, without a Python function per row: what
:func:`~.fold.key_rows` does row by row, as column expressions (:func:`keyed_changes`).

The driver writes the :class:`~.fold.FoldPlan` as a small table broadcast to the tasks, one
row per span of order keys where one (database, table) name meant one version of one table
(:func:`span_rows`): the version's column names (lower case) and their origins, its fill
values (what a final column missing from a full image holds: :func:`~.fold.project`'s
rule), the columns it is keyed by and the table's truncations. Each change is joined to its
span by name and order key; its images are projected on the final columns by origin (maps
``origin -> Value``, the folded rows' form), and it becomes one or two keyed events (a put,
a delete, a partial image's merge; an update that changes the key: a delete and a put).

A keyed event: ``origin``, ``okey``, ``sub`` (its rank in its change), ``op`` (``put``,
``del``, ``merge``; ``problem`` for a change of no known table), ``operation`` (the change's,
on its first event), ``key`` (the key columns' values, an array; null when one is missing),
``image``, ``problem``, ``keyed`` (the table has a primary key there: else a multiset),
``move`` (an update with a partial image that changes the key: the new row needs the old
one's other columns), ``ep`` (truncations of the table at or before it) and ``ts`` (the
change's commit timestamp).
"""

from __future__ import annotations

from binlog_schema.pipeline.current.fold import UNKNOWN, FoldPlan

UNNAMED = ("no table of that name is known there (it was not created in these binlogs, nor "
           "given by --schema or --base)")
NO_KEY = "the row's key columns are not in its image"


def span_rows(plan: FoldPlan, origins=None) -> list:
    """The spans of ``plan`` (of the tables of ``origins``; None: every table) as dicts of
    :func:`span_schema`'s fields."""
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


def span_schema():
    from pyspark.sql import types as T
    from binlog_schema.pipeline.tables.schema import IMAGE
    s, names = T.StringType(), T.MapType(T.StringType(), T.StringType())
    return T.StructType([
        T.StructField("database", s), T.StructField("table", s), T.StructField("lo", s),
        T.StructField("hi", s), T.StructField("origin", T.LongType()),
        T.StructField("names", names), T.StructField("fnames", names),
        T.StructField("ncols", T.IntegerType()), T.StructField("fills", IMAGE),
        T.StructField("unknown", T.ArrayType(s)), T.StructField("keycols", T.ArrayType(s)),
        T.StructField("keyed", T.BooleanType()), T.StructField("truncs", T.ArrayType(s))])


def spans_frame(spark, plan: FoldPlan, origins=None):
    return spark.createDataFrame(span_rows(plan, origins), span_schema())


# ---------------------------------------------------------------------------------------
# column expressions (``s``: the span's columns, prefixed ``s_``)


def _s(name):
    from pyspark.sql import functions as F
    return F.col(f"s_{name}")


def project(image, full):
    """An image (logged names) on the final columns (origins): :func:`~.fold.project`;
    ``full``: with the fill of every final column it lacks."""
    from pyspark.sql import functions as F
    fnames = _s("fnames")
    proj = F.transform_keys(F.map_filter(image, lambda k, v: F.map_contains_key(
        fnames, F.lower(k))), lambda k, v: fnames[F.lower(k)])
    filled = F.map_concat(proj, F.map_filter(_s("fills"), lambda k, v: ~F.map_contains_key(
        proj, k)))
    return F.when(full, filled).otherwise(proj)


def projection_problems(image, full):
    """The problems of projecting ``image`` (an array of strings)."""
    from pyspark.sql import functions as F
    names = _s("names")
    unnamed = F.transform(F.filter(F.map_keys(image), lambda k: ~F.map_contains_key(
        names, F.lower(k))), lambda k: F.concat(F.lit("column '"), k, F.lit(
            "' is not in the table's schema there")))
    proj = project(image, F.lit(False))
    unknown = F.transform(F.filter(_s("unknown"), lambda o: ~F.map_contains_key(proj, o)),
                          lambda o: F.concat(F.lit("the value of column origin "), o, F.lit(
                              " in rows already there is not known (its DEFAULT is an "
                              "expression)")))
    empty = F.array().cast("array<string>")
    return F.concat(F.coalesce(unnamed, empty),
                    F.when(full, F.coalesce(unknown, empty)).otherwise(empty))


def key_of(image, keycols=None):
    """The values of the key columns of ``image`` (an array), null when one is missing."""
    from pyspark.sql import functions as F
    keycols = _s("keycols") if keycols is None else keycols
    return F.when(F.forall(keycols, lambda o: F.map_contains_key(image, o)),
                  F.transform(keycols, lambda o: image[o]))


def overlay(held, image):
    """``held`` with the columns of ``image`` replaced ({**held, **image})."""
    from pyspark.sql import functions as F
    return F.map_concat(F.map_filter(held, lambda k, v: ~F.map_contains_key(image, k)), image)


def keyed_changes(changes, spans, ts=None):
    """The keyed events (see the module docstring) of ``changes`` (``database``, ``table``,
    ``operation``, ``before``, ``after``, ``okey``; ``ts``: a column of their commit
    timestamps, else null), ``spans`` being :func:`spans_frame`'s."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.tables.schema import IMAGE
    sp = spans.select(*[F.col(c).alias(f"s_{c}") for c in spans.columns])
    okey = F.col("okey")
    c = changes.withColumn("ts", ts if ts is not None else F.lit(None).cast("timestamp"))
    c = c.join(F.broadcast(sp), (c["database"] == sp["s_database"]) &
               (c["table"] == sp["s_table"]) & (okey >= sp["s_lo"]) &
               (sp["s_hi"].isNull() | (okey < sp["s_hi"])), "left")
    op = F.col("operation")
    before, after = F.col("before"), F.col("after")
    ncols = _s("ncols")
    empty = F.array().cast("array<string>")
    # (in steps: each expression made once, not inlined where it is used twice)
    full_b = F.coalesce(F.size(before) >= ncols, F.lit(False))
    full_a = F.coalesce(F.size(after) >= ncols, F.lit(False))
    full_i = (op == "insert") | full_a
    problems = F.concat(F.when(op == "insert", empty)
                        .otherwise(projection_problems(before, full_b)),
                        F.when(op == "delete", empty)
                        .otherwise(projection_problems(after, full_i)))
    unnamed = _s("origin").isNull()
    problems = F.when(unnamed, F.array(F.concat(F.col("database"), F.lit("."), F.col("table"),
                                                F.lit(": " + UNNAMED)))).otherwise(problems)
    step1 = c.select(
        F.coalesce(_s("origin"), F.lit(-1).cast("long")).alias("origin"), okey, "operation",
        "ts", F.coalesce(_s("keyed"), F.lit(False)).alias("keyed"),
        _s("keycols").alias("keycols"), full_a.alias("full_a"),
        project(before, full_b).alias("old_img"), project(after, full_i).alias("img"),
        problems.alias("problems"),
        F.size(F.filter(_s("truncs"), lambda t: t <= okey)).alias("ep"))
    kc = F.col("keycols")
    old_img, img, full_a = F.col("old_img"), F.col("img"), F.col("full_a")
    step2 = step1.select("*", key_of(old_img, kc).alias("old"),
                         overlay(old_img, img).alias("merged"))
    merged = F.col("merged")
    step3 = step2.select("*", key_of(F.when(full_a, img).otherwise(merged), kc).alias("new"))
    old, new = F.col("old"), F.col("new")
    null_img = F.lit(None).cast(IMAGE)

    def ev(kind, key, image):
        return F.struct(F.lit(kind).alias("op"), key.alias("key"), image.alias("image"))
    same = old.eqNullSafe(new)
    events = (F.when(F.col("origin") == -1, F.array(ev("problem", old, null_img)))
              .when(op == "insert", F.array(ev("put", key_of(img, kc), img)))
              .when(op == "delete", F.array(ev("del", old, null_img)))
              .when(same & full_a, F.array(ev("put", new, img)))
              .when(same, F.array(ev("merge", new, img)))
              .when(full_a, F.array(ev("del", old, null_img), ev("put", new, img)))
              .otherwise(F.array(ev("del", old, null_img), ev("put", new, merged))))
    move = (op == "update") & ~same & ~full_a
    exploded = step3.select("origin", "okey", "operation", "ts", "keyed", "problems", "ep",
                            move.alias("move"), F.posexplode(events).alias("sub", "e"))
    keyed = exploded.select(
        "origin", "okey", "sub", F.col("e.op").alias("op"),
        F.when(F.col("sub") == 0, F.col("operation")).alias("operation"),
        F.col("e.key").alias("key"), F.col("e.image").alias("image"),
        _joined(F.concat("problems", F.when(F.col("e.key").isNull() & (F.col("origin") >= 0),
                                            F.array(F.lit(NO_KEY))).otherwise(empty)))
        .alias("problem"),
        "keyed", "move", "ep", "ts")
    return keyed


def _joined(problems):
    from pyspark.sql import functions as F
    return F.when(F.size(problems) > 0, F.array_join(problems, "; "))

"""The fold of ``spark current`` and ``spark history`` in Spark SQL: the keyed events of
:mod:`.keying` grouped by (table, key) and folded in order by one higher-order SQL function
(``aggregate`` over the key's events sorted by order key): no Python runs per row.

The state of a key (:func:`step`, the rules of :class:`~.fold.Folder` for one key): the
copies held (0 or 1 for a table with a primary key; a multiset's count without one), the
row's image and order key, the truncation epoch, its problems; for history, also the
versions still open (start time and order key of each copy) and those ended (image, order
key, valid from, valid to). A put holds the row (a multiset: one more copy), a delete drops
it (a multiset: one copy; a delete of a row not held is a problem), a merge (a partial
image) replaces the columns it holds; a truncation of the table between two events (or
after the last) empties the key. :func:`current_rows` gives the rows held at the end as
:func:`~.io.folded_schema` rows; :func:`version_rows` every version, both from the one
:func:`fold_keys` so that they cannot disagree.

Tables the fold cannot take per key (a primary key that changes in the table's life, an
update with a partial image that moves a keyed row: the new row needs the old one's other
columns, held under another key) are folded whole in Python (:mod:`.sequential`).
"""

from __future__ import annotations

PROBLEMS_SHOWN = 5   # (as fold.py's Folder: the first problems of a key)


def tables_frame(spark, plan, trunc_ts=None):
    """Per table of ``plan``: its final key columns (origins, as text), whether it has a
    primary key, its truncations' count and commit timestamps (``trunc_ts``: okey -> time)."""
    from pyspark.sql import types as T
    s = T.StringType()
    schema = T.StructType([T.StructField("origin", T.LongType()),
                           T.StructField("t_keycols", T.ArrayType(s)),
                           T.StructField("t_keyed", T.BooleanType()),
                           T.StructField("t_ntr", T.IntegerType()),
                           T.StructField("t_trunc_ts", T.ArrayType(T.TimestampType()))])
    rows = [(o, [str(k) for k in (t.key or [x for _, x in t.final])], bool(t.key),
             len(t.truncates), [(trunc_ts or {}).get(k) for k in sorted(t.truncates)])
            for o, t in plan.tables.items()]
    return spark.createDataFrame(rows, schema)


def base_events(base, tables):
    """The rows of a previous run (:func:`~.io.folded_schema` rows) as puts before every
    change, keyed as ``tables`` (:func:`tables_frame`) says."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.current.keying import key_of
    b = base.join(F.broadcast(tables), "origin")
    return b.select(
        "origin", "okey", F.lit(0).alias("sub"), F.lit("put").alias("op"),
        F.lit(None).cast("string").alias("operation"),
        key_of(F.col("image"), F.col("t_keycols")).alias("key"), "image", "problem",
        F.col("t_keyed").alias("keyed"), F.lit(False).alias("move"), F.lit(0).alias("ep"),
        F.lit(None).cast("timestamp").alias("ts"))


def _state_type(versions: bool):
    from pyspark.sql import types as T
    from binlog_schema.pipeline.tables.schema import IMAGE
    s = T.StringType()
    fields = [T.StructField("n", T.IntegerType()), T.StructField("img", IMAGE),
              T.StructField("ok", s), T.StructField("last", s),
              T.StructField("ep", T.IntegerType()),
              T.StructField("probs", T.ArrayType(s))]
    if versions:
        fields += [T.StructField("open", T.ArrayType(_open_type())),
                   T.StructField("vers", T.ArrayType(_version_type()))]
    return T.StructType(fields)


def _open_type():
    from pyspark.sql import types as T
    return T.StructType([T.StructField("from", T.TimestampType()),
                         T.StructField("okey", T.StringType())])


def _version_type():
    from pyspark.sql import types as T
    from binlog_schema.pipeline.tables.schema import IMAGE
    return T.StructType([T.StructField("img", IMAGE), T.StructField("okey", T.StringType()),
                         T.StructField("from", T.TimestampType()),
                         T.StructField("to", T.TimestampType())])


def step(keyed, trunc_ts, versions: bool):
    """The function folding one event ``e`` into a key's state ``s`` (columns of the group:
    ``keyed``, whether the table has a primary key; ``trunc_ts``, its truncations' times)."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.current.fold import DELETE_NOT_HELD, UPDATE_NOT_HELD
    from binlog_schema.pipeline.current.keying import overlay
    from binlog_schema.pipeline.tables.schema import IMAGE

    def fn(s, e):
        fresh = s["ep"] != e["ep"]              # (a truncation since the last event)
        n0 = F.when(fresh, F.lit(0)).otherwise(s["n"])
        img0 = F.when(fresh, F.lit(None).cast(IMAGE)).otherwise(s["img"])
        op = e["op"]
        held = n0 > 0
        put, dele, merge = op == "put", op == "del", op == "merge"
        n = (F.when(put, F.when(keyed, F.lit(1)).otherwise(n0 + 1))
             .when(dele & held & ~keyed & (n0 > 1), n0 - 1)
             .when(dele, F.lit(0)).otherwise(n0))
        img = (F.when(put, e["image"])
               .when(dele & (n == 0), F.lit(None).cast(IMAGE))
               .when(merge & held, overlay(img0, e["image"])).otherwise(img0))
        ok = F.when(put | (merge & held), e["okey"]).otherwise(s["ok"])
        problem = (F.when(dele & ~held, F.concat(e["okey"], F.lit(f": {DELETE_NOT_HELD}")))
                   .when(merge & ~held, F.concat(e["okey"], F.lit(f": {UPDATE_NOT_HELD}"))))
        probs = F.when(problem.isNull(), s["probs"]).otherwise(
            F.concat(s["probs"], F.array(problem)))
        fields = [n.alias("n"), img.alias("img"), ok.alias("ok"), e["okey"].alias("last"),
                  e["ep"].alias("ep"), probs.alias("probs")]
        if versions:
            fields += _version_step(s, e, fresh, img0, keyed, trunc_ts, put, dele, merge,
                                    held)
        return F.struct(*fields)
    return fn


def _version_step(s, e, fresh, img0, keyed, trunc_ts, put, dele, merge, held):
    from pyspark.sql import functions as F
    empty_open = F.array().cast(_array(_open_type()))
    # a truncation since: every open version ends at the first truncation after the state
    cut = F.when(fresh, _close(s["open"], s["img"], F.element_at(trunc_ts, s["ep"] + 1))) \
        .otherwise(F.array().cast(_array(_version_type())))
    open0 = F.when(fresh, empty_open).otherwise(s["open"])
    start = F.array(F.struct(e["ts"].alias("from"), e["okey"].alias("okey")))
    ends_all = (keyed & (put | dele) & held) | (merge & held & keyed)
    ends_one = dele & held & ~keyed
    ended = (F.when(ends_all, _close(open0, img0, e["ts"]))
             .when(ends_one, _close(F.slice(open0, 1, 1), img0, e["ts"]))
             .otherwise(F.array().cast(_array(_version_type()))))
    opened = (F.when(put & keyed, start).when(put, F.concat(open0, start))
              .when(dele & held & keyed, empty_open)
              .when(ends_one, F.filter(open0, lambda x, i: i > 0))
              .when(merge & held & keyed, start).otherwise(open0))
    return [opened.alias("open"), F.concat(s["vers"], cut, ended).alias("vers")]


def _close(opened, img, to):
    from pyspark.sql import functions as F
    return F.transform(opened, lambda o: F.struct(img.alias("img"), o["okey"].alias("okey"),
                                                  o["from"].alias("from"), to.alias("to")))


def _array(t):
    from pyspark.sql import types as T
    return T.ArrayType(t)


def fold_keys(events, tables, versions: bool = False, parts: int | None = None):
    """Per (origin, key) of the keyed ``events``: the state after its last event, ``s``,
    beside ``origin``, ``t_ntr`` (the table's truncations) and ``t_trunc_ts``; ``parts``:
    the partitions the events are shuffled into by key (None: Spark's setting)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
    ev = F.struct("okey", "sub", "op", "ep", "ts", "image")
    if parts:
        events = events.repartition(parts, "origin", "key")
    g = events.groupBy("origin", "key").agg(F.collect_list(ev).alias("evs"),
                                            F.first("keyed").alias("keyed"))
    g = g.join(F.broadcast(tables.select("origin", "t_ntr", "t_trunc_ts")), "origin")

    def order(a, b):
        return (F.when(a["okey"] < b["okey"], -1).when(a["okey"] > b["okey"], 1)
                .when(a["sub"] < b["sub"], -1).when(a["sub"] > b["sub"], 1).otherwise(0))
    stype = _state_type(versions)
    zero = [F.lit(0).alias("n"), F.lit(None).cast(stype["img"].dataType).alias("img"),
            F.lit("").alias("ok"), F.lit("").alias("last"), F.lit(0).alias("ep"),
            F.array().cast(T.ArrayType(T.StringType())).alias("probs")]
    if versions:
        zero += [F.array().cast(_array(_open_type())).alias("open"),
                 F.array().cast(_array(_version_type())).alias("vers")]
    state = F.aggregate(F.array_sort("evs", order), F.struct(*zero).cast(stype),
                        step(F.col("keyed"), F.col("t_trunc_ts"), versions))
    return g.select("origin", "keyed", "t_ntr", "t_trunc_ts", state.alias("s"))


def current_rows(folded_keys):
    """The rows held at the end (:func:`~.io.folded_schema`): a key's copies, its first
    problems on its first row (a key holding none but with problems: one row without an
    image), as :func:`~.fold.fold_rows` gives them."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.tables.schema import IMAGE
    s = F.col("s")
    alive = s["ep"] >= F.col("t_ntr")      # (no truncation after its last event)
    n = F.when(alive, s["n"]).otherwise(0)
    row = F.struct(s["img"].alias("image"), s["ok"].alias("okey"))
    rows = (F.when(n > 0, F.array_repeat(row, n))
            .when(F.size(s["probs"]) > 0, F.array(F.struct(
                F.lit(None).cast(IMAGE).alias("image"), s["last"].alias("okey"))))
            .otherwise(F.array().cast(_array(_row_type()))))
    problems = F.when(F.size(s["probs"]) > 0,
                      F.array_join(F.slice(s["probs"], 1, PROBLEMS_SHOWN), "; "))
    x = folded_keys.select("origin", problems.alias("p"), F.posexplode(rows).alias("i", "r"))
    return x.select("origin", F.col("r.okey").alias("okey"),
                    F.when(F.col("i") == 0, F.col("p")).alias("problem"),
                    F.col("r.image").alias("image"))


def _row_type():
    from pyspark.sql import types as T
    from binlog_schema.pipeline.tables.schema import IMAGE
    return T.StructType([T.StructField("image", IMAGE), T.StructField("okey", T.StringType())])


def version_rows(folded_keys):
    """Every version of every row: ``origin``, ``image``, ``okey`` (the change that made
    it), ``valid_from``, ``valid_to`` (null: held at the end) and ``is_current``."""
    from pyspark.sql import functions as F
    s = F.col("s")
    alive = s["ep"] >= F.col("t_ntr")
    # versions open at the end: current, unless a truncation after the last event ended them
    tail = F.when(alive, _close(s["open"], s["img"], F.lit(None).cast("timestamp"))) \
        .otherwise(_close(s["open"], s["img"], F.element_at(F.col("t_trunc_ts"),
                                                             s["ep"] + 1)))
    x = folded_keys.select("origin", F.explode(F.concat(s["vers"], tail)).alias("v"))
    return x.select("origin", F.col("v.img").alias("image"), F.col("v.okey").alias("okey"),
                    F.col("v.from").alias("valid_from"), F.col("v.to").alias("valid_to"),
                    F.col("v.to").isNull().alias("is_current"))

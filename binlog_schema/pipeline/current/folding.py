"""A run's row changes folded into the rows each table holds (:func:`fold_changes`) or into
every version of every row (:func:`fold_versions`): the changes keyed in Spark SQL
(:mod:`.keying`, in Arrow), what they count and the problems they raise (:func:`change_stats`, one
Spark job), folded per key in Spark SQL (:mod:`.versions`); the few tables that need
sequential logic in Python (:mod:`.sequential`)."""

from __future__ import annotations

from dataclasses import dataclass, field

# Spark measures the Arrow batch it fills for Python after every row unless its byte limit is
# this "no limit" value; with nested columns (the images' maps of Value structs) that
# measuring is most of a mapInArrow's time. The batches stay cut at
# spark.sql.execution.arrow.maxRecordsPerBatch rows (10,000).
ARROW_BATCH_BYTES = str((1 << 31) - 1)
FOLD_BYTES = 32 << 20   # binlog bytes per partition of the fold (one task for small inputs)


def fold_parts(spark, input_bytes: int) -> int:
    """The partitions of the fold's shuffle for ``input_bytes`` of binlogs: one per
    :data:`FOLD_BYTES`, at most two per core (Spark's 200 would cost a task each, and a
    small input one task in all)."""
    cores = max(1, spark.sparkContext.defaultParallelism)
    return max(1, min(2 * cores, -(-input_bytes // FOLD_BYTES)))


@dataclass
class ChangeStats:
    counts: dict = field(default_factory=dict)     # origin -> {operation: changes}
    problems: list = field(default_factory=list)   # (origin (-1: no table), changes, problem)
    moves: set = field(default_factory=set)        # keyed tables with a partial image's move


def sequential_tables(plan, stats: ChangeStats) -> set:
    """The tables folded in Python: a primary key that changes in the table's life, or a
    keyed row moved by a partial image."""
    return {o for o, t in plan.tables.items() if t.key_changes} | (stats.moves &
                                                                  set(plan.tables))


def keyed_events(spark, changes, plan, ts=None):
    """The keyed events of ``changes`` (:func:`~.keying.keyed_changes`). The session's Arrow
    batches to Python are cut by rows only (:data:`ARROW_BATCH_BYTES`)."""
    from binlog_schema.pipeline.current.keying import keyed_changes, span_rows
    from binlog_schema.pipeline.driver.session import session_time_zone
    spark.conf.set("spark.sql.execution.arrow.maxBytesPerBatch", ARROW_BATCH_BYTES)
    return keyed_changes(changes, span_rows(plan), session_time_zone(spark), ts)


def change_stats(keyed) -> ChangeStats:
    """Per table of the keyed events: the changes per operation, the problems of keying them
    (their number and the first) and whether a partial image moved a keyed row."""
    from pyspark.sql import functions as F
    op = F.col("operation")
    rows = keyed.groupBy("origin").agg(
        *[F.count_if(op == k).alias(k) for k in ("insert", "update", "delete")],
        F.count_if(F.col("problem").isNotNull()).alias("n"),
        F.first("problem", ignorenulls=True).alias("p"),
        F.max(F.col("move") & F.col("keyed")).alias("moves")).collect()
    stats = ChangeStats()
    for r in rows:
        counts = {k: r[k] for k in ("insert", "update", "delete") if r[k]}
        if counts:
            stats.counts[r["origin"]] = counts
        if r["n"]:
            stats.problems.append((r["origin"], r["n"], r["p"]))
        if r["moves"]:
            stats.moves.add(r["origin"])
    return stats


def fold_changes(spark, changes, plan, lives=None, base=None, *, keyed=None,
                 sequential=None, parts=None):
    """The rows each table of ``plan`` holds after ``changes`` (the row changes of the run's
    range: ``database``, ``table``, ``operation``, ``before``, ``after`` and the order key
    as ``okey``), as :func:`~.io.folded_schema` rows; ``base``: a previous run's rows as
    folded rows (:func:`~.io.base_rows`), the state before. ``keyed``: the changes'
    :func:`keyed_events` when made already; ``sequential``: the tables to fold in Python
    (:func:`sequential_tables`; None: found by a :func:`change_stats` job); ``parts``: the
    fold's partitions (:func:`fold_parts`; None: Spark's setting). ``lives``:
    unused here (the tables' lives are in ``plan``), kept for callers that pass it."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.current.sequential import sequential_fold
    from binlog_schema.pipeline.current.versions import (base_events, current_rows,
                                                         fold_keys, tables_frame)
    keyed = keyed if keyed is not None else keyed_events(spark, changes, plan)
    if sequential is None:
        sequential = sequential_tables(plan, change_stats(keyed))
    tables = tables_frame(spark, plan)
    events = keyed.where(F.col("op") != "problem")
    if base is not None:
        events = events.unionByName(base_events(base, tables))
    if sequential:
        events = events.where(~F.col("origin").isin(list(sequential)))
    folded = current_rows(fold_keys(events, tables, parts=parts))
    if sequential:
        folded = folded.unionByName(sequential_fold(spark, changes, plan, sequential, base))
    return folded


def fold_versions(spark, changes, plan, ts, trunc_ts, *, keyed=None, sequential=(),
                  parts=None):
    """Every version of every row of the tables of ``plan`` but ``sequential`` (see
    :func:`~.versions.version_rows`); ``ts``: the changes' commit timestamps (a column),
    ``trunc_ts``: the truncations' (order key -> time)."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.current.versions import fold_keys, tables_frame, version_rows
    keyed = keyed if keyed is not None else keyed_events(spark, changes, plan, ts)
    events = keyed.where(F.col("op") != "problem")
    if sequential:
        events = events.where(~F.col("origin").isin(list(sequential)))
    return version_rows(fold_keys(events, tables_frame(spark, plan, trunc_ts),
                                  versions=True, parts=parts))


def input_bytes(result) -> int:
    """The bytes of the run's binlogs."""
    return sum(size or 0 for _, size in (result.inputs.files if result.inputs else []))


def pending_changes(rc, end_okey) -> int:
    """The row changes after the last complete transaction (left for the next run)."""
    from pyspark.sql import functions as F
    return rc.where(F.col("order_key") > F.lit(end_okey)).count()


def table_name(lives, origin) -> str:
    life = lives.lives.get(origin)
    return "" if life is None else ".".join(life.name)

"""``spark history``: every version of every row of every source table (slowly changing
dimension, type 2), one table per source table at ``OUT/<database>/<table>``: the source
columns typed as ``spark current`` types them (:mod:`.types`), ``_order_key`` (the change that
made the version), ``_valid_from`` and ``_valid_to`` (the commit timestamps of the
transactions that made and ended it; ``_valid_to`` null while it holds), ``_is_current``.

The versions are the fold of :mod:`.versions` (the one ``spark current`` runs, keeping the
versions it passes through): a put or a partial image's merge starts a version of its key
and ends the one before; a delete ends it; a truncation ends every version of the table at
its time. A table without a primary key is a multiset: each copy of a row is a version line
of its own (an insert starts one, a delete ends the oldest copy). The commit timestamp of a
change is its transaction's (``row_changes.commit_timestamp``: the XID or COMMIT event's
time; the change's own event time where the decode job did not see the commit), a
truncation's its statement's event time.

A table whose primary key changes in its life, or whose keyed rows an update with a partial
image moves to another key, needs the sequential fold (:mod:`.sequential`), which keeps no
versions: its history is not written, said on stderr (exit status 3).
"""

from __future__ import annotations

EXTRA = ("_valid_from", "_valid_to", "_is_current")
SEQUENTIAL = ("its history is not written: its primary key changes in its life, or an update "
              "with a partial image moves a row to another key (spark current folds it row "
              "by row; spark history does not)")


def history_and_write(spark, rc, events, fold, lives, base, base_origins, state, base_okey,
                      end_okey, out, fmt, result) -> dict:
    """The versions of the row changes ``rc`` (the decode job's ``row_changes``; ``events``:
    its ``events``) up to ``end_okey``, written per live table."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.current.folding import (change_stats, fold_parts,
                                                        fold_versions, input_bytes,
                                                        keyed_events, pending_changes,
                                                        sequential_tables, table_name)
    from binlog_schema.pipeline.current.io import write_tables
    okey = F.col("order_key")
    ts = F.coalesce(F.col("commit_timestamp"), F.col("timestamp"))
    changes = rc.where((okey > F.lit(base_okey)) & (okey <= F.lit(end_okey))).select(
        "database", "table", "operation", "before", "after", okey.alias("okey"),
        ts.alias("commit_ts"))
    keyed = keyed_events(spark, changes, fold, F.col("commit_ts")).persist()
    stats = change_stats(keyed)
    result.pending = pending_changes(rc, end_okey)
    for origin, n, p in stats.problems:
        result.problems.append((table_name(lives, origin), f"{n} row changes: {p}"))
    sequential = sequential_tables(fold, stats)
    live = {o: lives.lives[o] for o in fold.tables if lives.lives[o].end is None}
    for o in sorted(sequential):
        if o in live:
            result.problems.append((table_name(lives, o), SEQUENTIAL))
            live.pop(o)
    versions = fold_versions(spark, changes, fold, F.col("commit_ts"),
                             truncation_times(events, fold, end_okey), keyed=keyed,
                             sequential=sequential,
                             parts=fold_parts(spark, input_bytes(result)))
    rows = versions.select(
        "origin", "okey", F.lit(None).cast("string").alias("problem"), "image",
        F.col("valid_from").alias("_valid_from"), F.col("valid_to").alias("_valid_to"),
        F.col("is_current").alias("_is_current")).persist()
    try:
        return write_tables(spark, rows, live, out, fmt, lives.history.flavor, stats.counts,
                            state, base, extra=EXTRA)
    finally:
        rows.unpersist()
        keyed.unpersist()


def truncation_times(events, fold, end_okey) -> dict:
    """okey -> the event time of each truncation of ``fold``'s tables up to ``end_okey``
    (one small Spark job when there is one)."""
    from pyspark.sql import functions as F
    from ...changes.transactions import file_sequence, order_key_fields
    wanted = {order_key_fields(k)[:2]: k for t in fold.tables.values() for k in t.truncates
              if k <= end_okey}
    if not wanted:
        return {}
    offsets = sorted({offset for _, offset in wanted})
    out = {}
    for r in events.where(F.col("offset").isin(offsets) &
                                 F.col("in_payload_at").isNull()).select(
            "file", "offset", "timestamp").collect():
        k = wanted.get((file_sequence(r["file"]), r["offset"]))
        if k is not None:
            out[k] = r["timestamp"]
    return out

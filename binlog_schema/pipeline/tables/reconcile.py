"""The per-file reconciliation: events read = decoded + quarantined, and the file's bytes =
the magic number + bytes decoded + bytes skipped, counted from the tables the job wrote
(:func:`count_by_file` with Spark; :func:`binlog_schema.pipeline.tasks.parts.count_parts` from the
Parquet parts) into the rows of the ``files`` table (:func:`files_rows`)."""

from __future__ import annotations

from binlog_schema.format.stream import MAGIC

# the errors rows that stand for bytes not decoded: quarantined events, skipped ranges (a
# last event cut short: ``tail``)
EVENT_STAGES = ("event", "skipped", "tail")
# the errors rows that say a file was not read, or not all of it: it cannot reconcile
FAILURE_STAGES = ("input", "file", "split")
MAGIC_SIZE = len(MAGIC)   # the bytes before the first event


def count_by_file(events, errors, row_changes) -> dict:
    """file -> (events decoded, events quarantined, error rows, row changes, bytes decoded,
    bytes skipped, failures), counted from the tables themselves (one Spark job; as
    :func:`binlog_schema.pipeline.tasks.parts.count_parts`)."""
    from pyspark.sql import functions as F
    quarantined = F.col("stage").isin(*EVENT_STAGES).cast("int")
    failed = F.col("stage").isin(*FAILURE_STAGES).cast("int")
    top = F.col("in_payload_at").isNull()
    zero = F.lit(0).cast("long")
    u = (events.select("file", F.lit(1).alias("e"), F.lit(0).alias("q"), F.lit(0).alias("x"),
                       F.lit(0).alias("r"),
                       F.when(top, F.col("size")).otherwise(zero).alias("bd"),
                       zero.alias("bs"), F.lit(0).alias("ff"))
         .unionByName(errors.select(
             "file", F.lit(0).alias("e"), quarantined.alias("q"), F.lit(1).alias("x"),
             F.lit(0).alias("r"), zero.alias("bd"),
             F.when(top & (quarantined == 1), F.coalesce(F.col("size"), zero))
             .otherwise(zero).alias("bs"), failed.alias("ff")))
         .unionByName(row_changes.select("file", F.lit(0).alias("e"), F.lit(0).alias("q"),
                                         F.lit(0).alias("x"), F.lit(1).alias("r"),
                                         zero.alias("bd"), zero.alias("bs"),
                                         F.lit(0).alias("ff"))))
    cols = ("e", "q", "x", "r", "bd", "bs", "ff")
    rows = u.groupBy("file").agg(*[F.sum(c).alias(c) for c in cols]).collect()
    return {r["file"]: tuple(r[c] or 0 for c in cols) for r in rows}


def files_rows(stats, shapes, counts) -> list:
    """Per file (tuples in schema.FILES order): events read (framed by the tasks' readers)
    against events decoded (rows of ``events``) + quarantined (``errors`` of the stages
    event, skipped and tail: quarantined events and skipped ranges), and the file's bytes
    against the magic number + bytes decoded (the sizes of its ``events`` rows) + bytes
    skipped (the sizes of those ``errors`` rows), both counted from the written tables
    (``reconciled`` when both hold and no ``errors`` row says the file, or a split of it,
    could not be read); rows, table-map shapes, errors, task time and peak task memory, and
    the statement-based changes (QUERY events: counted, not rows)."""
    per = {}
    for st in stats:  # schema.SPLIT_STATS order
        f = per.setdefault(st[0], {"size": 0, "splits": 0, "read": 0, "rows_failed": 0,
                                   "carried": 0, "seconds": 0.0, "cpu": 0.0, "rss": None,
                                   "shapes": set(), "statements": 0})
        f["size"] = max(f["size"], st[1] or 0)
        f["splits"] += 1
        f["read"] += st[5]
        f["rows_failed"] += st[9]
        f["carried"] += st[11]
        f["seconds"] += st[13]
        f["cpu"] += st[14]
        if st[15] is not None:
            f["rss"] = max(f["rss"] or 0, st[15])
        if len(st) > 18:
            f["statements"] += st[18] or 0
    for file, shape in shapes:
        if file in per:
            per[file]["shapes"].add(shape)
    out = []
    for file in sorted(per):
        f = per[file]
        decoded, quarantined, errors, rows, bytes_decoded, bytes_skipped, failures = \
            counts.get(file, (0, 0, 0, 0, 0, 0, 0))
        size = f["size"]
        reconciled = f["read"] == decoded + quarantined and not failures and \
            bytes_decoded + bytes_skipped + MAGIC_SIZE == size
        out.append((file, size, f["splits"], f["read"], decoded, quarantined, size,
                    bytes_decoded, bytes_skipped, reconciled, rows, f["rows_failed"],
                    len(f["shapes"]), f["carried"], errors, f["seconds"], f["cpu"], f["rss"],
                    f["statements"]))
    return out


"""How ``spark current`` commits a Delta table a run continues (``--base`` is ``--out``): by a
MERGE of the keys the run changed (:func:`merge_changes`), or, when it cannot, whole; an
Iceberg table by an upsert of the same rows (:func:`changed_rows`; ``io.py``).

A table is merged (:func:`merge_keys`) when it has a primary key and the run leaves its
shape as the base holds it: no ALTER, RENAME or key change in the run (one version, one
name), and the Delta table's columns are the typed columns (names and types). The rows
merged are those the run changed: the fold keeps, with each row, the order key of the last
change it applied to it (a full image, a partial one, a key moved), so a row whose
``_order_key`` is past the base's last applied change is new or updated; a key the base's
table holds that the new state lacks (null-safe anti-join on the key columns) was deleted,
by a DELETE or a TRUNCATE. Nothing changed: no commit. Every other table is rewritten whole
(see :func:`~binlog_schema.pipeline.tables.delta.replace_table`).

The change data feed is on in the tables ``spark current`` writes
(:data:`~binlog_schema.pipeline.tables.delta.CHANGE_DATA_FEED`): a MERGE's changes are in
it row by row, a whole rewrite as a delete of every row and an insert of every row.
"""

from __future__ import annotations

from functools import reduce

from binlog_schema.pipeline.tables import DELETED


def merge_keys(life, cols, state: dict | None) -> list | None:
    """The names of the key columns by which the table of ``life`` (a table life) may be
    merged into the base's table (``cols``: its typed columns, (column dict, origin));
    None when it is rewritten whole: no primary key, not in the base's ``state`` by its
    name, or an ALTER or RENAME in the run."""
    name = ".".join(life.name)
    if len(life.versions) != 1 or len(life.names) != 1 or \
            name not in (state or {}).get("tables", {}):
        return None
    key = [n.lower() for n in life.final.effective_primary_key()[0]]
    names = {c["name"].lower(): c["name"] for c, _ in cols}
    if not key or any(k not in names for k in key):
        return None
    return [names[k] for k in key]


def merge_changes(spark, typed, base, path: str, keys: list, base_okey: str, staged: str,
                  metadata: dict, properties: dict) -> int | None:
    """Commit the changes of the typed rows ``typed`` (the table's whole new state, with
    ``_order_key``) to the Delta table at ``path`` (``base``: its rows as a DataFrame, None
    when it holds none) by one MERGE of the keys changed after ``base_okey``, staged as
    Parquet under ``staged``; returns the table's version (the current one when nothing
    changed: no commit), None when the table's columns are not ``typed``'s (rewrite it
    whole)."""
    from binlog_schema.pipeline.tables import delta
    if not delta.same_columns(path, typed.schema.jsonValue()):
        return None
    rows = changed_rows(typed, base, keys, base_okey).persist()
    try:
        if rows.isEmpty():
            return delta.version_of(path)
        rows.write.mode("overwrite").parquet(staged)
    finally:
        rows.unpersist()
    return delta.merge_table(path, staged, keys, DELETED, metadata, properties)


def changed_rows(typed, base, keys: list, base_okey: str):
    """What a MERGE (Delta) or an upsert (Iceberg) of a table's new state ``typed`` (with
    ``_order_key``) into its ``base`` rows (a DataFrame; None: it holds none) needs, each
    key at most once: the rows changed after ``base_okey`` (``DELETED`` false), and the
    keys ``base`` holds that ``typed`` lacks (``DELETED`` true; null-safe on ``keys``)."""
    from pyspark.sql import functions as F
    changed = typed.where(F.col("_order_key") > F.lit(base_okey)) \
        .withColumn(DELETED, F.lit(False))
    if base is None:
        return changed
    held = base.select(*[F.col(_quoted(k)) for k in keys]).alias("b")
    now = typed.select(*[F.col(_quoted(k)) for k in keys]).alias("n")
    same = reduce(lambda a, b: a & b, [F.col(f"b.{_quoted(k)}").eqNullSafe(
        F.col(f"n.{_quoted(k)}")) for k in keys])
    gone = held.join(now, same, "left_anti").withColumn(DELETED, F.lit(True))
    return changed.unionByName(gone, allowMissingColumns=True)


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"

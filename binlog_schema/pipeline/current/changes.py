"""The ``spark changes`` job: binlog files in, the row changes of every source table out in
the change-data contract's columns (Spark's change-data contract, the columns of Delta's
change data feed), one table per source table at ``OUT/<database>/<table>``
(:func:`changes`).

The front is ``spark current``'s (:func:`~.job.read_changes`: the schema history replayed
into table lives, the row changes decoded and named at event time, the last complete
transaction); then, in Spark SQL (no Python per row), each row change is placed in the life
of the table its name meant there and in the table's version in force there (a small table
of spans joined by name and order key), and written with its table's final columns:

* the source columns, typed as ``spark current`` types them (:func:`~.types.typed_column`
  of :func:`~.plan.column_facts`; TIME as :func:`~.io.time_modes` says). A value logged
  under an older name is found under the final one; a dropped column's values are gone; a
  column added later is null before it was added;
* ``_change_type``: ``insert`` (the row inserted), ``delete`` (the row deleted),
  ``update_preimage`` and ``update_postimage`` (an update is two rows with one order key,
  the preimage first);
* ``_commit_version`` (long): the transaction's place, :func:`commit_version`: the binlog
  file's sequence number times 10^12 plus the file offset of the event that began the
  transaction (its GTID or BEGIN; a compressed transaction: its payload's). Every change of
  one transaction has one, two transactions never share one, a later transaction (a later
  file, or later in its file) has a greater one;
* ``_commit_timestamp`` (timestamp): the time of the transaction's commit event (XID or
  COMMIT), as the decode job's ``row_changes.commit_timestamp``;
* ``_order_key``: the change's order key (file, event, payload, row: a total order);
* ``_columns_present``: the names of the final columns the image holds. FULL images hold
  every column the table had then; MINIMAL and NOBLOB images only those the server logged
  (a MINIMAL preimage: the primary key; a MINIMAL postimage: the columns the statement
  set): the others are null in that row and absent from ``_columns_present``, so a null
  that was logged and a value that was not are told apart row by row. An insert image
  without a column (MINIMAL: the columns the INSERT did not name) holds the value the
  server gave it, the column's DEFAULT (or its implicit one), as ``spark current`` fills
  it; present, but for a value the server computed (an expression DEFAULT,
  AUTO_INCREMENT, a generated column): null and absent.

What the feed does not hold, said in ``OUT/_binlog_schema/changes.json`` (per table): a
TRUNCATE (no row changes in the binlog: ``truncates``, the commit version of each, the
TRUNCATE statement's own place: a consumer removes every row it holds there), the columns
an ALTER added to the rows already there (``columns_added``: their DEFAULT is not a row
change; ``spark current`` fills it). Tables dropped by the end of the last binlog are left
out (``left_out``: their rows are gone, a table of the same name created again is another
table); a table renamed is one table under its final name.
"""

from __future__ import annotations

from binlog_schema.pipeline.current.job import (CurrentResult, read_changes, replay_statements,
                                               write_state)
from binlog_schema.pipeline.driver.plan import DEFAULT_SPLIT

VERSION_SCALE = 10 ** 12    # (file offsets stay below: a binlog file is at most 4 GiB)
CHANGE_TYPES = ("insert", "delete", "update_preimage", "update_postimage")
CHANGE_COLUMNS = ("_change_type", "_commit_version", "_commit_timestamp", "_order_key",
                  "_columns_present")
CHANGES_FILE = "changes.json"
_END = "\uffff"     # (after every order key)
# the change rows of each operation of row_changes: (change type, image)
_ROWS_OF = {"insert": (("insert", "after"),), "delete": (("delete", "before"),),
            "update": (("update_preimage", "before"), ("update_postimage", "after"))}


def commit_version(sequence: int, offset: int) -> int:
    """The ``_commit_version`` of a transaction that began at ``offset`` of the binlog file
    numbered ``sequence``."""
    return sequence * VERSION_SCALE + offset


def changes(inputs, spark=None, *, out: str, schema=None, fmt: str = "parquet",
            overwrite: bool = False, split_size=DEFAULT_SPLIT,
            progress=None) -> CurrentResult:
    """The row changes of every table of one server's binlog ``inputs`` (files, folders,
    globs; in name order) up to the last complete transaction, under ``out`` (see the
    module docstring). ``schema``: schema files (``mysqldump --no-data``) for tables created
    before the first binlog. Raises :class:`~.job.CurrentError`, and
    :class:`~.plan.NoInputError` when the inputs hold no binlog (nothing is written)."""
    from contextlib import nullcontext
    run = read_changes(inputs, spark, out=out, schema=schema, fmt=fmt, overwrite=overwrite,
                       split_size=split_size, progress=progress, command="changes")
    stage = progress.stage if progress else (lambda label: nullcontext())
    lives, _ = replay_statements(run.spark, run.plan, run.applied_statements,
                                 run.new_statements, run.result, run.state, run.files)
    with stage("changes"):
        written, left_out = _write_changes(run, lives, fmt)
    result = run.result
    result.applied = run.last or {}
    result.tables = written
    write_state(run.spark, run.out, {
        "format": fmt, "applied": result.applied,
        "files": sorted(u.rstrip("/").rsplit("/", 1)[-1] for u, _ in run.listing.files),
        "version_formula": f"sequence * {VERSION_SCALE} + transaction offset",
        "tables": written, "left_out": left_out, "pending": result.pending,
        "problems": [list(p) for p in result.problems]}, CHANGES_FILE)
    run.clean()
    return result


def _sequence_map(listing):
    """file (as the decode job names it) -> its sequence number, a Spark map literal."""
    from pyspark.sql import functions as F
    from ...changes.transactions import file_sequence
    from binlog_schema.pipeline.fsio import display_name
    pairs = {}
    for uri, _ in listing.files:
        for name in (uri, display_name(uri)):
            pairs[name] = file_sequence(uri)
    return F.create_map(*[F.lit(x) for k, v in sorted(pairs.items()) for x in (k, v)])


def _spans(lives):
    """Rows (database, table, lo, hi, origin, version, names): where each name meant each
    table life's each version (order keys lo <= okey < hi; names: the version's column
    names, lower case), as :meth:`~binlog_schema.changes.schema.lives.Lives.origin_at` and
    :meth:`~binlog_schema.changes.schema.lives.Life.version_at` place a change."""
    rows = []
    for key, (positions, origins) in lives.names().items():
        for i, origin in enumerate(origins):
            if origin is None:
                continue
            a, b = positions[i], positions[i + 1] if i + 1 < len(positions) else _END
            versions = lives.lives[origin].versions
            for j, (_, table) in enumerate(versions):
                c = "" if j == 0 else versions[j][0]
                d = versions[j + 1][0] if j + 1 < len(versions) else _END
                lo, hi = max(a, c), min(b, d)
                if lo < hi:
                    rows.append((key[0], key[1], lo, hi, origin, j,
                                 [col.name.lower() for col in table.columns]))
    return rows


def _placed(run, lives):
    """The row changes joined to their table life and version (null: no known table had
    that name there), with their commit version and whether they come after the last
    complete transaction (``pending``)."""
    from pyspark.sql import functions as F
    spark = run.spark
    spans = spark.createDataFrame(_spans(lives), "s_db string, s_tb string, lo string, "
                                  "hi string, origin long, version int, names array<string>")
    rc = run.tables.row_changes
    okey = F.col("order_key")
    if lives.history.lower_case_table_names:
        db, tb = F.lower("database"), F.lower("table")
    else:
        db, tb = F.col("database"), F.col("table")
    ev = run.tables.events.where(F.col("in_payload_at").isNull()).select(
        F.col("file").alias("ev_file"), F.col("offset").alias("ev_offset"),
        "transaction_offset")
    rc = rc.join(ev, (rc["file"] == ev["ev_file"]) & (rc["offset"] == ev["ev_offset"]),
                 "left")
    begin = F.coalesce("transaction_offset", "offset")
    version = (_sequence_map(run.listing)[F.col("file")].cast("long") * F.lit(VERSION_SCALE)
               + begin)
    placed = rc.join(F.broadcast(spans), (db == F.col("s_db")) & (tb == F.col("s_tb")) &
                     (okey >= F.col("lo")) & (okey < F.col("hi")), "left")
    lowered = {side: F.transform_keys(side, lambda k, v: F.lower(k))
               for side in ("before", "after")}
    unknown = F.lit(False)
    for side in ("before", "after"):
        unknown = unknown | F.coalesce(F.size(F.array_except(F.map_keys(lowered[side]),
                                                             F.col("names"))) > 0,
                                       F.lit(False))
    return placed.select(
        "database", "table", "operation", "origin", "version",
        lowered["before"].alias("before"), lowered["after"].alias("after"),
        okey.alias("okey"), version.alias("cv"), F.col("commit_timestamp").alias("cts"),
        (okey > F.lit(run.end_okey)).alias("pending"), unknown.alias("unknown"))


def _write_changes(run, lives, fmt):
    """Each live table's changes written; ``(tables, left_out)``: the changes file's
    entries ("db.table" -> counts, truncates, columns added) and the tables dropped."""
    from concurrent.futures import ThreadPoolExecutor
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.current.io import WRITERS
    spark, result = run.spark, run.result
    # (written once, by table: each table's job then reads its own folder; a cache of the
    # images would hold a whole partition's in memory)
    staged = f"{run.work}/placed"
    spark.sparkContext.setJobDescription("changes placed in their tables")
    _placed(run, lives).write.mode("overwrite").partitionBy("origin").parquet(staged)
    placed = spark.read.parquet(staged)
    counts, left_out = {}, set()
    problems = []
    for r in placed.groupBy("database", "table", "origin", "operation", "pending",
                            "unknown", F.col("cts").isNull().alias("no_time")).count() \
            .collect():
        n, o = r["count"], r["origin"]
        if r["pending"]:
            result.pending += n
            continue
        if o is None:
            problems.append(("", f"{n} row changes: {r['database']}.{r['table']}: no table "
                             "of that name is known there (it was not created in these "
                             "binlogs, nor given by --schema): not written"))
            continue
        life = lives.lives[o]
        name = ".".join(life.name)
        if life.end is not None:
            left_out.add(name)
            continue
        c = counts.setdefault(o, {})
        c[r["operation"]] = c.get(r["operation"], 0) + n
        if r["operation"] not in _ROWS_OF:
            problems.append((name, f"{n} row changes of operation {r['operation']!r}: not "
                             "written"))
        if r["unknown"]:
            problems.append((name, f"{n} row changes hold a column not in the table's "
                             "schema there (its values not written)"))
        if r["no_time"]:
            problems.append((name, f"{n} row changes: their transaction's commit time is "
                             "not known (_commit_timestamp null)"))
    result.problems += sorted(problems)
    live = {o: life for o, life in lives.lives.items() if life.end is None}
    ok = placed.where(~F.col("pending") & F.col("origin").isNotNull())

    def write(o, life):
        name = ".".join(life.name)
        spark.sparkContext.setJobDescription(f"write {name}")
        return name, _write_table(spark, ok.where(F.col("origin") == o), life, run, fmt,
                                  lives.history.flavor, counts.get(o, {}))

    written = {}
    with ThreadPoolExecutor(max_workers=max(1, min(WRITERS, len(live)))) as pool:
        for name, entry in pool.map(lambda ol: write(*ol), sorted(
                live.items(), key=lambda x: x[1].name)):
            written[name] = entry
    return dict(sorted(written.items())), sorted(left_out)


def _write_table(spark, df, life, run, fmt, flavor, counts) -> dict:
    """One table's change rows typed and written; its changes file entry."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.current.io import time_modes, write_whole
    from binlog_schema.pipeline.current.plan import column_facts
    from binlog_schema.pipeline.current.types import typed_column
    from binlog_schema.pipeline.tables.schema import VALUE
    cols = [(column_facts(c, i, flavor), c.origin) for i, c in enumerate(life.final.columns)]
    versions = [{c.origin: c.name.lower() for c in t.columns} for _, t in life.versions]
    rows = None     # (another operation: no change row; said as a problem)
    for op, made in _ROWS_OF.items():
        made = F.array(*[F.struct(F.lit(t).alias("_change_type"), F.col(side).alias("img"))
                         for t, side in made])
        at = F.col("operation") == op
        rows = F.when(at, made) if rows is None else rows.when(at, made)
    df = df.select("version", "okey", "cv", "cts", F.inline(rows))
    fills = _fills(life, spark)
    insert = F.col("_change_type") == "insert"
    image, present = [], []
    for c, oc in cols:
        value = has = None
        for j, names in enumerate(versions):
            if oc not in names:
                continue
            v, h = F.col("img")[names[oc]], F.map_contains_key("img", names[oc])
            fill = fills[j].get(oc)
            if fill is not None:   # (an insert image without it: the server filled it)
                v = F.when(insert & ~h, fill).otherwise(v)
                h = h | insert
            if len(versions) == 1:
                value, has = v, h
            else:
                at = F.col("version") == j
                value = F.when(at, v) if value is None else value.when(at, v)
                has = F.when(at, h) if has is None else has.when(at, h)
        image += [F.lit(str(oc)), F.lit(None).cast(VALUE) if value is None else value]
        present.append(F.when(F.coalesce(has, F.lit(False)), F.lit(c["name"])))
    df = df.select(F.create_map(*image).alias("image"), "_change_type", "cv", "cts", "okey",
                   F.filter(F.array(*present), lambda x: x.isNotNull()).alias("present"))
    modes = time_modes(spark, df, cols, fmt)
    typed = df.select(*[typed_column(c, F.col("image")[str(oc)], modes.get(oc, "interval"))
                        for c, oc in cols],
                      "_change_type", F.col("cv").alias("_commit_version"),
                      F.col("cts").alias("_commit_timestamp"),
                      F.col("okey").alias("_order_key"),
                      F.col("present").alias("_columns_present"))
    write_whole(spark, typed, run.out, life.name, fmt, {"binlog_schema": ".".join(life.name)})
    return {"inserted": counts.get("insert", 0), "updated": counts.get("update", 0),
            "deleted": counts.get("delete", 0),
            "rows": sum(counts.get(op, 0) * len(m) for op, m in _ROWS_OF.items()),
            "truncates": [_version_of(p) for p in life.truncates],
            "columns_added": _columns_added(life)}


def _fills(life, spark) -> list:
    """Per version of the table, {column origin: the value an insert image without that
    column gives the row (its DEFAULT, or the server's implicit one: :func:`~.plan.fill_value`),
    as a ``Value`` literal}; a column whose value the server computed (an expression
    DEFAULT, AUTO_INCREMENT...) has none: absent from ``_columns_present`` there."""
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.current.fold import UNKNOWN
    from binlog_schema.pipeline.current.plan import fill_value, value_dict
    from binlog_schema.pipeline.driver.session import session_time_zone
    from binlog_schema.pipeline.tables.arrow import arrow_type
    from binlog_schema.pipeline.tables.schema import VALUE
    vtype = arrow_type(VALUE, session_time_zone(spark))
    out = []
    for _, table in life.versions:
        fills = {}
        for col in table.columns:
            v = fill_value(col)
            if v is UNKNOWN:
                continue
            d = value_dict(v, vtype)
            fills[col.origin] = F.lit(None).cast(VALUE) if d is None else F.struct(*[
                (F.array(*[F.lit(x) for x in d[f.name]]) if isinstance(d[f.name], list)
                 else F.lit(d[f.name])).cast(f.dataType).alias(f.name) for f in VALUE.fields])
        out.append(fills)
    return out


def _version_of(okey: str) -> int:
    """The commit version of a statement at the order key ``okey`` (its own place)."""
    from ...changes.transactions import order_key_fields
    seq, offset = order_key_fields(okey)[:2]
    return commit_version(seq, offset)


def _columns_added(life) -> list:
    """The columns an ALTER added to the table after its first version: {column (its final
    name; null when dropped since), commit_version}."""
    final = {c.origin: c.name for c in life.final.columns}
    seen = {c.origin for c in life.versions[0][1].columns}
    out = []
    for position, table in life.versions[1:]:
        for c in table.columns:
            if c.origin not in seen:
                seen.add(c.origin)
                out.append({"column": final.get(c.origin), "commit_version":
                            _version_of(position)})
    return out

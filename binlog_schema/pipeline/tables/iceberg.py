"""Apache Iceberg tables from Parquet files, without a JVM: the ``pyiceberg`` package
(imported when first used) with a SQLite catalog in the output folder, on the driver.

The catalog: ``OUT/_binlog_schema/catalog.db`` (SQLite; catalog name ``binlog_schema``,
warehouse ``OUT``); a table ``(namespace, name)`` lives at the folder the caller gives
(``spark current``: ``OUT/<database>/<table>`` in namespace ``<database>``; ``spark
decode``: ``OUT/<table>`` in namespace :data:`DECODE_NAMESPACE`). Its data files are in that
folder, its metadata in ``<folder>/_iceberg`` (a hidden name, so that a Parquet reader of the
folder does not take it for data). Local output folders only (the catalog is a SQLite file).

* :func:`commit_parts`: the Parquet part files in a folder become a new table in place, in
  one snapshot, no byte copied (the files' statistics are read from their footers);
* :func:`replace_table`: staged Parquet files (moved into the table's folder) become the
  whole content of a table, created when absent, its schema evolved when it changed, in one
  snapshot;
* :func:`upsert_table`: staged rows replace the table's rows of the same key (null-safe),
  a row whose ``_deleted`` column is true deletes its key, in one snapshot (copy on write:
  a data file holding a key is rewritten without it; the other files stay);
* :func:`write_frame`: a Spark DataFrame staged and then :func:`replace_table` or
  :func:`upsert_table`: the one entry for a job that has a DataFrame;
* :func:`read_arrow`, :func:`data_files`, :func:`snapshots`, :func:`last_metadata`,
  :func:`is_iceberg`, :func:`forget`.

The Parquet files' side (listing, describing, moving, matching rows by key) is
:mod:`.iceberg_files`.

Commit metadata (a JSON-able dict) is stored in the snapshot summary as
``binlog-schema`` (JSON text); an upsert's summary also says how many rows it staged in
(:data:`UPSERTED`) and as deletes (:data:`DELETED_KEYS`). A commit that would change nothing
is not made: no snapshot.

Types: the Iceberg schema is the files' Arrow schema as their Parquet schema gives it (files
whose stored ``ARROW:schema`` has durations are refused: pyiceberg cannot read them), where
Iceberg has a type for each: Spark's timestamps written as ``TIMESTAMP_MICROS`` (instants:
``timestamptz``; timestamp_ntz: ``timestamp``), decimals, binary, dates, Spark 4.1's TIME
(``time``, microseconds of a day), structs, maps and lists (``row_changes``' ``map<string,
Value>``). A day-time interval (Spark's type for MySQL TIME beyond a day, ``Value.time``) is
a ``long`` of microseconds, as in Delta tables (Parquet stores it as INT64; Iceberg has no
interval type). Files without Iceberg field ids (Spark's, the tasks') are read through the
table's name mapping.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import uuid

from binlog_schema.pipeline.tables.iceberg_files import (arrow_schema_of, conform, data_file,
                                                        key_matches, listed, local_file,
                                                        local_folder, move_in, plain_schema,
                                                        write_rows)
from binlog_schema.pipeline.tables import DELETED
from binlog_schema.pipeline.tasks.parts import part_files

CATALOG = "_binlog_schema/catalog.db"     # under the output folder
CATALOG_NAME = "binlog_schema"
DECODE_NAMESPACE = "binlog"
METADATA_DIR = "_iceberg"
SUMMARY_KEY = "binlog-schema"
MAPPING = "schema.name-mapping.default"
# one catalog change at a time in this process (``spark current`` writes tables from several
# threads; SQLite and pyiceberg's namespace creation are not safe at once)
_LOCK = threading.RLock()


def _serialized(func):
    @functools.wraps(func)
    def run(*args, **kwargs):
        with _LOCK:
            return func(*args, **kwargs)
    return run
UPSERTED = "binlog-schema-upserted-rows"     # (an upsert's snapshot summary: rows in,
DELETED_KEYS = "binlog-schema-deleted-rows"  # rows staged as deleted)


# ---------------------------------------------------------------------------------------
# the catalog

@_serialized
def catalog(root: str):
    """The SQLite catalog of the output folder ``root`` (created when absent)."""
    from pyiceberg.catalog.sql import SqlCatalog
    local = local_folder(root)
    os.makedirs(os.path.dirname(os.path.join(local, CATALOG)), exist_ok=True)
    return SqlCatalog(CATALOG_NAME, uri=f"sqlite:///{os.path.join(local, CATALOG)}",
                      warehouse=f"file://{local}")


@_serialized
def is_iceberg(root: str, ident) -> bool:
    """Whether the catalog of ``root`` holds the table ``ident`` ((namespace, name))."""
    if not os.path.exists(os.path.join(local_folder(root), CATALOG)):
        return False
    return catalog(root).table_exists(tuple(ident))


@_serialized
def forget(root: str, ident) -> bool:
    """Drop the table ``ident`` from the catalog of ``root`` (its files stay; whether it was
    there), its metadata present or not (``--overwrite`` removed the folder already)."""
    from pyiceberg.exceptions import NoSuchTableError
    if not os.path.exists(os.path.join(local_folder(root), CATALOG)):
        return False
    try:
        catalog(root).drop_table(tuple(ident))
    except NoSuchTableError:
        return False
    return True


@_serialized
def load(root: str, ident):
    return catalog(root).load_table(tuple(ident))


def snapshots(root: str, ident) -> list:
    """The table's snapshots, oldest first (pyiceberg Snapshot objects)."""
    return list(load(root, ident).snapshots())


def last_metadata(root: str, ident) -> dict | None:
    """The commit metadata of the table's current snapshot ({} when it has none); None when
    the table or its snapshot is absent."""
    if not is_iceberg(root, ident):
        return None
    snap = load(root, ident).current_snapshot()
    if snap is None:
        return None
    text = (snap.summary.additional_properties or {}).get(SUMMARY_KEY)
    return json.loads(text) if text else {}


def read_arrow(root: str, ident, snapshot_id=None):
    """The table's rows (a pyarrow Table), at ``snapshot_id`` or the current snapshot: its
    data files (pyiceberg's scan plan) read by pyarrow, by column name, in the table's
    schema. (pyiceberg 0.12.0's own ``scan().to_arrow()`` turns a null list or map whose
    elements are structs, ``row_changes``' ``before``/``after`` and ``table_maps``'
    ``primary_key``, into an empty one: apache/iceberg-python issue 3833.) The tables
    written here have no delete files; a snapshot with some is refused (ValueError)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyiceberg.manifest import DataFileContent
    table = load(root, ident)
    schema = table.schema()
    if snapshot_id is not None:
        schema = table.schemas()[table.snapshot_by_id(snapshot_id).schema_id]
    target = plain_schema(schema.as_arrow())
    parts = []
    for f in _files(table, snapshot_id):
        if f.content != DataFileContent.DATA:
            raise ValueError(f"{'.'.join(ident)}: delete files in the snapshot (written by "
                             "another engine): read it with pyiceberg's scan")
        data = pq.read_table(local_file(f.file_path))
        data = data.cast(plain_schema(data.schema))
        parts.append(pa.Table.from_arrays(
            [data.column(f.name).cast(f.type) if f.name in data.column_names
             else pa.nulls(data.num_rows, f.type) for f in target], schema=target))
    return pa.concat_tables(parts) if parts else target.empty_table()


def data_files(root: str, ident, snapshot_id=None) -> list:
    """The paths of the data files of a snapshot (the current one by default)."""
    return [local_file(f.file_path) for f in _files(load(root, ident), snapshot_id)]


def _files(table, snapshot_id=None) -> list:
    """The live files (DataFile) of a snapshot, as its manifests list them (a scan plan
    leaves out files without rows)."""
    snap = table.current_snapshot() if snapshot_id is None else \
        table.snapshot_by_id(snapshot_id)
    if snap is None:
        return []
    return [e.data_file for m in snap.manifests(table.io)
            for e in m.fetch_manifest_entry(table.io, discard_deleted=True)]


# ---------------------------------------------------------------------------------------
# the public writers

@_serialized
def commit_parts(root: str, ident, path: str, metadata: dict | None = None) -> int:
    """The Parquet part files directly under the folder ``path`` become a new table
    ``ident`` there, in one snapshot, without copying them; returns the snapshot id.
    FileExistsError when the catalog holds the table already."""
    _checked(metadata)
    files = listed(path)
    cat = catalog(root)
    if cat.table_exists(tuple(ident)):
        raise FileExistsError(f"{path}: the Iceberg table {'.'.join(ident)} is there already")
    table = _create(cat, ident, path, arrow_schema_of(files[0]))
    return _commit(table, [data_file(table, f) for f in files], [], metadata)


@_serialized
def replace_table(root: str, ident, path: str, staged: str,
                  metadata: dict | None = None) -> int:
    """The Parquet files under ``staged`` (``part-*.parquet``, one schema) become the whole
    content of the table ``ident`` at ``path`` (created when absent; its schema evolved to
    theirs): moved into ``path``, then ONE snapshot replaces the table's files with them. A
    failure before the snapshot leaves the table as it was. Returns the snapshot id."""
    _checked(metadata)
    files = listed(staged)
    schema = arrow_schema_of(files[0])
    for f in files[1:]:
        if not arrow_schema_of(f).equals(schema):
            raise ValueError(f"{f}: not the schema of {files[0]}")
    cat = catalog(root)
    if cat.table_exists(tuple(ident)):
        table = cat.load_table(tuple(ident))
        if not _same_schema(table, schema):
            table = _evolve(cat, ident, path, table, schema)
    else:
        table = _create(cat, ident, path, schema)
    moved = move_in(files, path)
    held = _held(table)
    return _commit(table, [data_file(table, f) for f in moved], held, metadata)


@_serialized
def upsert_table(root: str, ident, path: str, staged: str, keys,
                 metadata: dict | None = None) -> int | None:
    """The rows of the Parquet files under ``staged`` (the table's columns, and optionally a
    boolean :data:`DELETED`) replace the rows of the same ``keys`` (null-safe: null matches
    null) in the table ``ident`` at ``path``, in ONE snapshot: every row of such a key goes;
    each staged row not deleted comes in. The table's data files holding none of the keys
    stay as they are; those holding some are rewritten without them. Nothing staged: no
    snapshot, None. Returns the snapshot id."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    keys = [keys] if isinstance(keys, str) else list(keys)
    _checked(metadata)
    try:
        files = part_files(staged)
    except FileNotFoundError:
        files = []
    cat = catalog(root)
    table = cat.load_table(tuple(ident))
    names = [f.name for f in table.schema().fields]
    missing = [k for k in keys if k not in names]
    if not keys or missing:
        raise ValueError(f"upsert keys {keys}: not all columns of {'.'.join(ident)}")
    rows = pa.concat_tables([pq.read_table(p, filesystem=fs) for fs, p in files]) \
        if files else None
    if rows is None or rows.num_rows == 0:
        return None
    target = table.schema().as_arrow()
    upserts = rows
    if DELETED in rows.column_names:
        upserts = rows.filter(pc.invert(pc.fill_null(rows.column(DELETED), False)))
    upserts = conform(upserts.select([n for n in names]), target)
    key_rows = rows.select(keys)
    gone, added = [], []
    run = uuid.uuid4().hex[:16]
    for n, held in enumerate(_held(table)):
        data = pq.read_table(held, columns=keys)
        hit = key_matches(data, key_rows, keys)
        if not pc.any(hit).as_py():
            continue
        whole = pq.read_table(held)
        keep = whole.filter(pc.invert(key_matches(whole.select(keys), key_rows, keys)))
        gone.append(held)
        if keep.num_rows:
            added.append(write_rows(conform(keep.select(names), target), path,
                                f"part-{run}-k{n:05d}.parquet"))
    if upserts.num_rows:
        added.append(write_rows(upserts, path, f"part-{run}-00000.parquet"))
    if not gone and not added:
        return None
    counts = {UPSERTED: str(upserts.num_rows), DELETED_KEYS: str(rows.num_rows -
                                                                 upserts.num_rows)}
    return _commit(table, [data_file(table, (None, p)) for p in added], gone, metadata,
                   counts)


@_serialized
def fits(root: str, ident, staged: str) -> bool:
    """Whether the staged part files (their columns but :data:`DELETED`) can be upserted
    into the table ``ident``: every column the table's, of its type or one Iceberg
    promotes to it (a TIME column the table holds as ``time`` and a run holds as
    microseconds does not fit: the table is then replaced)."""
    import pyarrow as pa
    from pyiceberg.io.pyarrow import _check_pyarrow_schema_compatible
    files = listed(staged)
    arrow = arrow_schema_of(files[0])
    arrow = pa.schema([f for f in arrow if f.name != DELETED])
    table = load(root, ident)
    try:
        _check_pyarrow_schema_compatible(table.schema(), arrow,
                                         format_version=table.metadata.format_version)
    except ValueError:
        return False
    return True


def write_frame(spark, df, root: str, ident, path: str, staged: str,
                metadata: dict | None = None, keys=None) -> int | None:
    """The one entry for a Spark job: ``df`` written as Parquet to the folder ``staged``
    (timestamps as ``TIMESTAMP_MICROS``, which Iceberg reads), then the table ``ident`` at
    ``path`` made of it: its whole content (:func:`replace_table`), or with ``keys`` an
    upsert of its rows (:func:`upsert_table`: a boolean :data:`DELETED` column deletes).
    Returns the snapshot id (None: nothing committed)."""
    write_staged(spark, df, staged)
    if keys is not None and is_iceberg(root, ident):
        return upsert_table(root, ident, path, staged, keys, metadata)
    if keys is not None and DELETED in df.columns:
        df = df.where(~df[DELETED]).drop(DELETED)    # (a new table: the rows not deleted)
        write_staged(spark, df, staged)
    return replace_table(root, ident, path, staged, metadata)


def write_staged(spark, df, staged: str, mode: str = "overwrite"):
    """``df`` as Parquet files in ``staged`` (replaced; Spark's save ``mode``), timestamps as
    ``TIMESTAMP_MICROS`` (Spark's default, INT96, has no Iceberg type)."""
    from binlog_schema.pipeline.tables import session_conf
    with session_conf(spark, "spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS"):
        df.write.mode(mode).parquet(staged)


# ---------------------------------------------------------------------------------------
# schemas

def _iceberg_schema(arrow):
    from pyiceberg.io.pyarrow import _pyarrow_to_schema_without_ids
    return _pyarrow_to_schema_without_ids(arrow)


def _same_schema(table, arrow) -> bool:
    """Whether the table's schema is that of ``arrow`` (names, types, order)."""
    mine = table.schema()
    theirs = _iceberg_schema(arrow)
    a = [(f.name, str(f.field_type), f.required) for f in mine.fields]
    b = [(f.name, str(f.field_type), f.required) for f in theirs.fields]
    return a == b


def _properties(path: str) -> dict:
    return {"write.metadata.path": f"{os.path.abspath(local_folder(path))}/{METADATA_DIR}",
            "write.data.path": os.path.abspath(local_folder(path))}


def _create(cat, ident, path: str, arrow):
    ident = tuple(ident)
    cat.create_namespace_if_not_exists(ident[:-1])
    schema = _iceberg_schema(arrow)
    table = cat.create_table(ident, schema=schema, location=os.path.abspath(local_folder(path)),
                             properties=_properties(path))
    with table.transaction() as tx:   # (the ids the catalog gave the fields)
        tx.set_properties({MAPPING: _mapping_after(tx)})
    return table


def _evolve(cat, ident, path, table, arrow):
    """The table with the schema of ``arrow``: columns dropped, added, widened and
    reordered in one schema change; when a column changes to a type Iceberg cannot evolve
    to (a string becomes a number...), the table is made anew (its snapshots are lost:
    ``spark current`` said so in its state)."""
    from pyiceberg.exceptions import ResolveError, ValidationError
    from pyiceberg.schema import promote
    new = _iceberg_schema(arrow)
    order = [f.name for f in new.fields]
    old = {f.name: f.field_type for f in table.schema().fields}
    try:
        for f in new.fields:
            if f.name in old and old[f.name] != f.field_type:
                promote(old[f.name], f.field_type)    # (ResolveError: no evolution)
        with table.transaction() as tx:
            with tx.update_schema(allow_incompatible_changes=True) as update:
                for f in table.schema().fields:
                    if f.name not in order:
                        update.delete_column(f.name)
                update.union_by_name(new)
                update.move_first(order[0])
                for before, name in zip(order, order[1:]):
                    update.move_after(name, before)
            tx.set_properties({MAPPING: _mapping_after(tx, table.properties.get(MAPPING))})
        return cat.load_table(tuple(ident))
    except (ResolveError, ValidationError, ValueError):   # (not an evolution)
        cat.drop_table(tuple(ident))
        return _create(cat, ident, path, arrow)


def _mapping_after(tx, before: str | None = None) -> str:
    """The name mapping of the transaction's schema, keeping the names of the columns it
    dropped (``before``: the mapping until then), which older snapshots' files hold."""
    from pyiceberg.table.name_mapping import NameMapping, create_mapping_from_schema
    mapping = create_mapping_from_schema(tx.table_metadata.schema())
    if before:
        ids = {f.field_id for f in mapping}
        kept = [f for f in NameMapping.model_validate_json(before) if f.field_id not in ids]
        mapping = NameMapping([*mapping, *kept])
    return mapping.model_dump_json()


# ---------------------------------------------------------------------------------------
# files and snapshots

def _held(table) -> list:
    """The paths of the data files of the table's current snapshot."""
    if table.current_snapshot() is None:
        return []
    return [local_file(f.file_path) for f in _files(table)]


def _checked(metadata):
    if metadata is not None:
        if not isinstance(metadata, dict):
            raise TypeError(f"commit metadata is a dict, not {type(metadata).__name__}")
        json.dumps(metadata)
    return metadata


def _commit(table, adds, removes, metadata, extra=None) -> int:
    """One snapshot: the data files ``adds`` (DataFiles) in, the files at ``removes``
    (paths) out; append when nothing goes, else overwrite; ``extra``: more summary
    properties. Returns its id."""
    props = {SUMMARY_KEY: json.dumps(metadata, sort_keys=True, separators=(",", ":"))} \
        if metadata is not None else {}
    props.update(extra or {})
    gone = set(removes)
    with table.transaction() as tx:
        update = tx.update_snapshot(snapshot_properties=props)
        if not gone:
            with update.fast_append() as append:
                for f in adds:
                    append.append_data_file(f)
        else:
            with update.overwrite() as over:
                for f in _files(table):
                    if local_file(f.file_path) in gone:
                        over.delete_data_file(f)
                for f in adds:
                    over.append_data_file(f)
    table.refresh()
    return table.current_snapshot().snapshot_id

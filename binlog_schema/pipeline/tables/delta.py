"""Delta Lake tables from Parquet files, without Spark's Delta jars: the ``deltalake`` package
(delta-rs, imported when first used) commits files that are already written, on the driver.

* :func:`commit_parts`: the Parquet part files in a directory (the tasks' or Spark's) become
  a Delta table in place: one commit of add actions for the files as they are (no byte
  copied: the commit of a 100k-row table takes milliseconds, see docs/spark.md);
* :func:`replace_table`: a directory of staged files becomes the whole content of a table
  (created when absent, its schema may change): the files are moved into the table's
  directory, then one commit removes the old files from the table and adds the new ones,
  so a run that fails before it leaves the last version whole (unreferenced files may stay
  in the directory; ``VACUUM`` removes them);
* :func:`merge_table`: a MERGE of staged rows by key (null-safe), deletes included;
* :func:`same_columns`: whether a table holds the columns of a Spark schema (a MERGE of rows
  of that schema changes none of its columns);
* :func:`last_metadata`, :func:`version_of`, :func:`is_delta`.

Table properties (``properties`` of :func:`replace_table` and :func:`merge_table`, e.g.
:data:`CHANGE_DATA_FEED`) are set when the table is created, and on an existing table that
lacks them before the commit (a commit of its own). With the change data feed on, deltalake's
MERGE writes ``_change_data`` files (insert, update_preimage, update_postimage, delete);
the commits written here (:func:`replace_table`, :func:`commit_parts`) add and remove whole
files, which change data readers read as a delete of every row removed and an insert of
every row added (the Delta protocol's rule for a version without ``cdc`` actions).

Commit metadata (a JSON-able dict) is stored as JSON text in the commit's ``userMetadata``
(Delta's field for it: Spark's ``DESCRIBE HISTORY`` shows it, :func:`last_metadata` reads it).

Where: local directories, plain paths or ``file:`` URIs (tested). ``s3://``/``s3a://``,
``gs://``, ``az://``/``abfss://`` and ``hdfs://`` locations are passed to deltalake as they
are (its object stores, credentials from the environment) and listed or moved with
``pyarrow.fs``: they work as far as both reach them, untested here; there the first commit
written here (see below) cannot be an atomic put-if-absent.

Types: the Delta schema of the part files is :mod:`.delta_types`'s.

deltalake 1.6.6 derives a new table's protocol from its schema but misses ``timestamp_ntz``
inside a map (``Value.datetime`` of ``row_changes``), then refuses the table: that first
commit is written here (protocol with the ``timestampNtz`` feature, metadata, add actions),
every later one by deltalake; before a commit brings ``timestamp_ntz`` into a table without
the feature, the feature is added (a commit of its own: deltalake would otherwise commit a
version no reader can load).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from urllib.parse import quote

from binlog_schema.pipeline.fsio import local_path
from binlog_schema.pipeline.tables.delta_types import (bare_type, delta_type, file_stats,
                                                      schema_of, type_names)
from binlog_schema.pipeline.tables import DELETED
from binlog_schema.pipeline.tasks.parts import part_files

NTZ_FEATURE = "timestampNtz"
CDF_FEATURE = "changeDataFeed"
CDF_PROPERTY = "delta.enableChangeDataFeed"
CHANGE_DATA_FEED = {CDF_PROPERTY: "true"}    # the table property of the change data feed


# ---------------------------------------------------------------------------------------
# the public functions

def is_delta(path: str) -> bool:
    """Whether a Delta table is at ``path``."""
    from deltalake import DeltaTable
    return DeltaTable.is_deltatable(_uri(path))


def version_of(path: str) -> int:
    """The latest version of the Delta table at ``path``."""
    return _table(path).version()


def last_metadata(path: str) -> dict | None:
    """The commit metadata of the table's latest commit (``{}`` when that commit has none;
    a ``userMetadata`` that is not a JSON object comes back as ``{"userMetadata": text}``);
    None when no Delta table is at ``path``."""
    if not is_delta(path):
        return None
    return _user_metadata(_table(path).history(1)[0])


def commit_parts(path: str, metadata: dict | None = None, mode: str = "overwrite") -> int:
    """Make the Parquet part files directly under the directory ``path`` (``part-*.parquet``)
    a Delta table in place, in one commit, without copying them; returns its version.

    No table there yet: version 0 holds every part file. A table there: ``mode`` "error"
    raises FileExistsError; "append" adds the part files the table does not hold yet;
    "overwrite" makes the table exactly the part files now in the directory (files it holds
    that are gone are removed from it; when none of its files is kept, the schema may
    change). Nothing new to commit: no commit, the current version is returned."""
    if mode not in ("error", "append", "overwrite"):
        raise ValueError(f"mode {mode!r}: error, append or overwrite")
    _checked(metadata)
    files = _listed(path)
    if not is_delta(path):
        return _create(path, *_describe(files), metadata)
    if mode == "error":
        raise FileExistsError(f"{path}: a Delta table is there already")
    table = _table(path)
    held = set(_held(table))
    names = {_name(p) for _, p in files}
    new = [f for f in files if _name(f[1]) not in held]
    gone = sorted(held - names) if mode == "overwrite" else []
    if not new and not gone:
        return table.version()
    schema, adds = _describe(new) if new else (_describe(files[:1])[0], [])
    if mode == "overwrite" and not held & names:
        return _commit(table, schema, adds, "overwrite", metadata)
    now = int(time.time() * 1000)
    from deltalake.transaction import RemoveAction
    removes = [RemoveAction(name, True, now) for name in gone]
    return _commit(table, schema, adds + removes, "append", metadata)


def replace_table(path: str, staged: str, metadata: dict | None = None,
                  properties: dict | None = None) -> int:
    """The Parquet files under the directory ``staged`` (``part-*.parquet``, one schema:
    Spark's output) become the whole content of the Delta table at ``path`` (created when
    absent; its schema may differ from the last version's): the files are moved into the
    table's directory under new names, then ONE commit replaces the table's files with
    them (older versions stay readable). A failure before that commit (``staged`` missing or
    empty, files of different schemas...) leaves the table as it was. ``staged`` may be
    removed afterwards. ``properties``: table properties (see the module's docstring).
    Returns the new version."""
    _checked(metadata)
    files = _listed(staged)
    schema, adds = _describe(files)    # (every footer read, and agreeing, before any move)
    for add, (_, moved) in zip(adds, _move_in(files, path)):
        add["path"] = _name(moved)
    if not is_delta(path):
        return _create(path, schema, adds, metadata, properties)
    table = _table(path)
    _ensure_properties(table, properties)
    return _commit(table, schema, adds, "overwrite", metadata)


def merge_table(path: str, staged: str, keys, deleted: str = DELETED,
                metadata: dict | None = None, properties: dict | None = None) -> int:
    """MERGE the rows of the Parquet files under ``staged`` into the Delta table at
    ``path`` by the columns ``keys`` (null-safe equality: null matches null), in one commit:
    a row whose boolean column ``deleted`` is true deletes the matching row (nothing when
    none matches); any other row updates every column of the matching row or is inserted.
    ``deleted`` is not stored in the table (a staged set without that column deletes
    nothing); columns new in ``staged`` are added to the table. Each key at most once in
    ``staged``. No table at ``path``: one is created with the rows not deleted.
    ``properties``: table properties (see the module's docstring). Returns the version."""
    keys = [keys] if isinstance(keys, str) else list(keys)
    _checked(metadata)
    files = _listed(staged)
    schema, _ = _describe(files[:1])
    names = [f["name"] for f in json.loads(schema)["fields"]]
    missing = [k for k in keys if k not in names]
    if not keys or missing:
        raise ValueError(f"merge keys {keys}: not all columns of {staged} ({names})")
    if any("`" in k for k in keys + [deleted]):
        raise ValueError("column names with a backtick cannot be merge keys")
    drop = deleted if deleted in names else None
    if not is_delta(path):
        return _create_from_rows(path, files, schema, drop, metadata, properties)
    from deltalake import DeltaTable
    table = DeltaTable(_uri(path))
    _ensure_properties(table, properties)
    _ensure_features(table, schema)
    source = _reader(files, schema)
    match = " AND ".join(f"(t.`{k}` IS NOT DISTINCT FROM s.`{k}`)" for k in keys)
    merger = table.merge(source, match, source_alias="s", target_alias="t",
                         merge_schema=True, commit_properties=_properties(metadata))
    if drop:
        merger = merger.when_matched_delete(f"s.`{drop}` = true")
        keep = f"s.`{drop}` IS NOT TRUE"
        merger = merger.when_matched_update_all(keep, except_cols=[drop])
        merger = merger.when_not_matched_insert_all(keep, except_cols=[drop])
    else:
        merger = merger.when_matched_update_all().when_not_matched_insert_all()
    merger.execute()
    return _table(path).version()


def same_columns(path: str, spark_schema: dict) -> bool:
    """Whether the Delta table at ``path`` has the columns of ``spark_schema`` (a Spark
    schema in its JSON form, as Spark writes it to Parquet: see :mod:`.delta_types` on
    intervals), in order, by name and type (nullability and field metadata aside)."""
    want = delta_type(spark_schema)[0]
    have = json.loads(_table(path).schema().to_json())
    return bare_type(have) == bare_type(want)


# ---------------------------------------------------------------------------------------
# locations and files

def _uri(path: str) -> str:
    """What deltalake is given: an absolute local path, else the URI as it is."""
    local = local_path(path)
    return os.path.abspath(local) if local is not None else path


def _table(path: str):
    from deltalake import DeltaTable
    return DeltaTable(_uri(path))


def _listed(directory: str) -> list:
    """[(filesystem, path)] of the part files under ``directory``; FileNotFoundError when it
    is absent, ValueError when it holds none (no schema to give a table)."""
    try:
        files = part_files(directory)
    except FileNotFoundError:
        raise FileNotFoundError(f"{directory}: no such directory") from None
    if not files:
        raise ValueError(f"{directory}: no Parquet part files (part-*.parquet)")
    return files


def _name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def _held(table) -> list:
    """The file names the table's current version holds (paths relative to its root)."""
    import pyarrow as pa
    return pa.table(table.get_add_actions(flatten=True)).column("path").to_pylist()


def _move_in(files, path: str) -> list:
    """Move staged files into the table's directory (made when absent) under names no
    version uses (``part-<run>-<n>.parquet``); returns them as (filesystem, path)."""
    run = uuid.uuid4().hex[:16]
    local = local_path(path)
    if local is not None:
        os.makedirs(local, exist_ok=True)
        target_fs, root = None, os.path.abspath(local)
    else:
        from pyarrow import fs as pafs
        target_fs, root = pafs.FileSystem.from_uri(path)
        target_fs.create_dir(root, recursive=True)
    moved = []
    for i, (filesystem, src) in enumerate(files):
        dst = f"{root.rstrip('/')}/part-{run}-{i:05d}.parquet"
        if filesystem is None and target_fs is None:
            shutil.move(src, dst)          # a rename on one filesystem, else a copy
        else:
            from pyarrow import fs as pafs
            source_fs = filesystem or pafs.LocalFileSystem()
            if filesystem is not None and target_fs is not None and filesystem.equals(target_fs):
                source_fs.move(src, dst)
            else:
                pafs.copy_files(src, dst, source_filesystem=source_fs,
                                destination_filesystem=target_fs or pafs.LocalFileSystem())
                source_fs.delete_file(src)
        moved.append((target_fs, dst))
    return moved


# ---------------------------------------------------------------------------------------
# schema and add actions

def _describe(files) -> tuple:
    """(Delta schema as JSON text, [add action dict]) of part files, each footer read once:
    the schema of the first (every file must have the same), and per file its size, time
    and statistics."""
    import pyarrow.parquet as pq
    schema = first = None
    adds = []
    for filesystem, path in files:
        meta = pq.read_metadata(path, filesystem=filesystem)
        if first is None:
            first, schema = meta.schema, schema_of(meta)
        elif not meta.schema.equals(first):
            raise ValueError(f"{path}: not the schema of {files[0][1]}")
        if filesystem is None:
            st = os.stat(path)
            size, mtime = st.st_size, int(st.st_mtime * 1000)
        else:
            info = filesystem.get_file_info(path)
            size, mtime = info.size, int(info.mtime.timestamp() * 1000)
        adds.append({"path": _name(path), "size": size, "partition_values": {},
                     "modification_time": mtime, "data_change": True, "stats": file_stats(meta)})
    return schema, adds


# ---------------------------------------------------------------------------------------
# commits

def _properties(metadata):
    from deltalake import CommitProperties
    if metadata is None:
        return None
    return CommitProperties(custom_metadata={"userMetadata": _text(metadata)})


def _checked(metadata):
    """``metadata`` (None or a JSON-able dict), else TypeError or ValueError now, before
    anything is written."""
    if metadata is not None:
        _text(metadata)
    return metadata


def _text(metadata) -> str:
    if not isinstance(metadata, dict):
        raise TypeError(f"commit metadata is a dict, not {type(metadata).__name__}")
    return json.dumps(metadata, sort_keys=True, separators=(",", ":"))


def _user_metadata(commit: dict) -> dict:
    text = commit.get("userMetadata")
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {"userMetadata": text}


def _create(path: str, schema: str, adds, metadata, properties=None) -> int:
    """Version 0 of a table at ``path`` of the files ``adds`` describes (they are there)."""
    if any(name == "timestamp_ntz" and in_map
           for name, in_map in type_names(json.loads(schema))):
        _write_first_commit(path, schema, adds, metadata, properties)
        return 0
    from deltalake import Schema
    from deltalake.transaction import AddAction, create_table_with_add_actions
    create_table_with_add_actions(_uri(path), Schema.from_json(schema),
                                  [AddAction(**a) for a in adds], mode="error",
                                  configuration=dict(properties or {}) or None,
                                  commit_properties=_properties(metadata))
    return 0


def _create_from_rows(path, files, schema, drop, metadata, properties=None) -> int:
    """A new table of the staged rows not deleted (``drop``: the deleted column), written
    into its directory as one part file."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    reader = _reader(files, schema)
    target = reader.schema
    if drop:
        target = target.remove(target.get_field_index(drop))
    local = local_path(path)
    name = f"part-{uuid.uuid4().hex[:16]}-00000.parquet"
    if local is not None:
        os.makedirs(local, exist_ok=True)
        where, filesystem = os.path.join(local, name), None
    else:
        from pyarrow import fs as pafs
        filesystem, root = pafs.FileSystem.from_uri(path)
        filesystem.create_dir(root, recursive=True)
        where = f"{root.rstrip('/')}/{name}"
    with pq.ParquetWriter(where, target, filesystem=filesystem, compression="snappy") as w:
        for batch in reader:
            if drop:
                batch = batch.filter(pc.invert(pc.fill_null(batch.column(drop), False)))
                batch = batch.drop_columns([drop])
            w.write_batch(batch)
    if drop:
        parsed = json.loads(schema)
        parsed["fields"] = [f for f in parsed["fields"] if f["name"] != drop]
        schema = json.dumps(parsed)
    return _create(path, schema, _describe([(filesystem, where)])[1], metadata, properties)


def _reader(files, schema: str):
    """The rows of part files as a RecordBatchReader in the Arrow form of the Delta schema
    (durations as int64, Spark's INT96 timestamps as microseconds in UTC)."""
    import pyarrow as pa
    import pyarrow.dataset as ds
    from deltalake import Schema
    target = pa.schema(Schema.from_json(schema).to_arrow())
    filesystem = files[0][0]
    dataset = ds.dataset([p for _, p in files], format="parquet", filesystem=filesystem)

    def batches():
        for batch in dataset.to_batches():
            yield batch.cast(target)
    return pa.RecordBatchReader.from_batches(target, batches())


def _commit(table, schema: str, actions, mode: str, metadata) -> int:
    """One write transaction of add (dicts) and remove actions on an existing table."""
    from deltalake import Schema
    from deltalake.transaction import AddAction
    _ensure_features(table, schema)
    actions = [AddAction(**a) if isinstance(a, dict) else a for a in actions]
    table.create_write_transaction(actions, mode=mode, schema=Schema.from_json(schema),
                                   commit_properties=_properties(metadata))
    table.update_incremental()
    return table.version()


def _ensure_features(table, schema: str):
    """Add the ``timestampNtz`` feature to a table about to get ``timestamp_ntz`` columns
    (its own commit, keeping the latest commit's metadata: the content is unchanged)."""
    if not any(name == "timestamp_ntz" for name, _ in type_names(json.loads(schema))):
        return
    if NTZ_FEATURE in (table.protocol().writer_features or []):
        return
    from deltalake import CommitProperties, TableFeatures
    previous = table.history(1)[0].get("userMetadata")
    table.alter.add_feature(TableFeatures.TimestampWithoutTimezone,
                            allow_protocol_versions_increase=True,
                            commit_properties=CommitProperties(
                                custom_metadata={"userMetadata": previous}
                                if previous else None))
    table.update_incremental()


def _ensure_properties(table, properties):
    """Set the table properties of ``properties`` an existing table lacks (a commit of its
    own, keeping the latest commit's metadata: the content is unchanged)."""
    have = table.metadata().configuration or {}
    missing = {k: v for k, v in (properties or {}).items() if have.get(k) != v}
    if not missing:
        return
    from deltalake import CommitProperties
    previous = table.history(1)[0].get("userMetadata")
    table.alter.set_table_properties(missing, commit_properties=CommitProperties(
        custom_metadata={"userMetadata": previous} if previous else None))
    table.update_incremental()


def _write_first_commit(path: str, schema: str, adds, metadata, properties=None):
    """Version 0 of a table whose protocol needs ``timestampNtz`` (which deltalake 1.6.6
    misses inside maps), as the Delta protocol lays it out: commit information, protocol,
    metadata, one add action per file. Local: written beside it and linked into place, so
    it appears whole and never over another writer's version 0."""
    now = int(time.time() * 1000)
    info = {"timestamp": now, "operation": "CREATE TABLE",
            "operationParameters": {"mode": "ErrorIfExists"}, "isBlindAppend": True,
            "engineInfo": "binlog-schema"}
    if metadata is not None:
        info["userMetadata"] = _text(metadata)
    configuration = dict(properties or {})
    writer = [NTZ_FEATURE] + ([CDF_FEATURE] if configuration.get(CDF_PROPERTY) == "true"
                              else [])
    actions = [{"commitInfo": info},
               {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7,
                             "readerFeatures": [NTZ_FEATURE], "writerFeatures": writer}},
               {"metaData": {"id": str(uuid.uuid4()),
                             "format": {"provider": "parquet", "options": {}},
                             "schemaString": schema, "partitionColumns": [],
                             "configuration": configuration, "createdTime": now}}]
    actions += [{"add": {"path": quote(a["path"]), "partitionValues": {}, "size": a["size"],
                         "modificationTime": a["modification_time"], "dataChange": True,
                         "stats": a["stats"]}} for a in adds]
    text = "".join(json.dumps(a, separators=(",", ":")) + "\n" for a in actions).encode()
    name = "00000000000000000000.json"
    local = local_path(path)
    if local is None:
        from pyarrow import fs as pafs
        filesystem, root = pafs.FileSystem.from_uri(path)
        final = f"{root.rstrip('/')}/_delta_log/{name}"
        if filesystem.get_file_info(final).type != pafs.FileType.NotFound:
            raise FileExistsError(f"{path}: a Delta table is there already")
        filesystem.create_dir(f"{root.rstrip('/')}/_delta_log", recursive=True)
        with filesystem.open_output_stream(final) as out:
            out.write(text)
        return
    log = os.path.join(local, "_delta_log")
    os.makedirs(log, exist_ok=True)
    final = os.path.join(log, name)
    tmp = os.path.join(log, f".{name}.{uuid.uuid4().hex}.tmp")
    with open(tmp, "wb") as f:
        f.write(text)
    try:
        os.link(tmp, final)
    except FileExistsError:
        raise FileExistsError(f"{path}: a Delta table is there already") from None
    finally:
        os.unlink(tmp)

"""The Parquet side of :mod:`.iceberg`'s tables: part files listed, checked and described as
Iceberg data files (:func:`data_file`: statistics from the footer, the table's schema checked
through its name mapping), moved into a table's folder, rows written and matched by key.

Types: a file's Arrow schema as Iceberg takes it (:func:`arrow_schema_of`,
:func:`plain_schema`): durations (Spark's day-time intervals, MySQL TIME) as the INT64 they are
stored as; a file whose stored ``ARROW:schema`` has durations is refused (:func:`listed`),
since pyiceberg's reader cannot read it.
"""

from __future__ import annotations

import os
import shutil
import uuid

from binlog_schema.pipeline.fsio import local_path
from binlog_schema.pipeline.tasks.parts import part_files


def local_folder(root: str) -> str:
    local = local_path(root)
    if local is None:
        raise ValueError(f"{root}: Iceberg tables are written to local folders only (their "
                         "catalog is a SQLite file there)")
    return os.path.abspath(local)


def arrow_schema_of(file):
    """The Arrow schema of a part file, durations as the INT64 Parquet stores them,
    metadata dropped."""
    import pyarrow.parquet as pq
    filesystem, p = file
    return plain_schema(pq.read_metadata(p, filesystem=filesystem).schema.to_arrow_schema())


def plain_schema(arrow):
    """An Arrow schema with durations (at any depth) as int64: what Iceberg reads of it
    (field metadata, Iceberg's field ids, dropped)."""
    import pyarrow as pa
    return pa.schema([pa.field(f.name, plain_type(f.type), f.nullable) for f in arrow])


def plain_type(t):
    """An Arrow type with durations (at any depth) as int64, as Parquet stores them."""
    import pyarrow as pa
    if pa.types.is_duration(t):
        return pa.int64()
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, plain_type(f.type), f.nullable) for f in t])
    if pa.types.is_map(t):
        return pa.map_(pa.field(t.key_field.name, plain_type(t.key_type), False),
                       pa.field(t.item_field.name, plain_type(t.item_type), t.item_field.nullable))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        f = t.value_field
        return pa.list_(pa.field(f.name, plain_type(f.type), f.nullable))
    return t


def listed(directory: str) -> list:
    try:
        files = part_files(directory)
    except FileNotFoundError:
        raise FileNotFoundError(f"{directory}: no such directory") from None
    if not files:
        raise ValueError(f"{directory}: no Parquet part files (part-*.parquet)")
    if any(fs is not None for fs, _ in files):
        raise ValueError(f"{directory}: Iceberg tables are written to local folders only")
    import pyarrow.parquet as pq
    for _, p in files:   # (before anything is committed)
        stored = pq.read_metadata(p).schema.to_arrow_schema()
        if plain_schema(stored) != stored:
            raise ValueError(f"{p}: its stored Arrow schema has durations, which Iceberg's "
                             "readers cannot read (write it without ARROW:schema)")
    return files


def local_file(p: str) -> str:
    return p[len("file://"):] if p.startswith("file://") else p


def move_in(files, path: str) -> list:
    """Staged files moved into the table's folder under names no snapshot uses."""
    run = uuid.uuid4().hex[:16]
    root = local_folder(path)
    os.makedirs(root, exist_ok=True)
    moved = []
    for i, (_, src) in enumerate(files):
        dst = os.path.join(root, f"part-{run}-{i:05d}.parquet")
        shutil.move(src, dst)
        moved.append((None, dst))
    return moved


def write_rows(rows, path: str, name: str) -> str:
    import pyarrow.parquet as pq
    root = local_folder(path)
    os.makedirs(root, exist_ok=True)
    dst = os.path.join(root, name)
    tmp = os.path.join(root, f".{name}.tmp")
    pq.write_table(rows, tmp, compression="snappy", store_schema=False)
    os.replace(tmp, dst)
    return dst


def conform(rows, target):
    """Rows cast to the table's Arrow schema (field ids and names as the table has them)."""
    import pyarrow as pa
    plain = pa.schema([pa.field(f.name, f.type, f.nullable) for f in target])
    return rows.cast(plain)


def key_matches(rows, key_rows, keys):
    """A boolean array: whether each row's key is among ``key_rows``' (null matches null)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    hit = None
    for k in keys:
        one = pc.is_in(rows.column(k), value_set=pc.unique(key_rows.column(k)),
                       skip_nulls=False)
        hit = one if hit is None else pc.and_(hit, one)
    if len(keys) == 1 or not pc.any(hit).as_py():
        return hit
    wanted = set(zip(*[key_rows.column(k).to_pylist() for k in keys]))
    flags = hit.to_pylist()
    idx = [i for i, f in enumerate(flags) if f]
    cand = rows.take(pa.array(idx, pa.int64()))
    for i, t in zip(idx, zip(*[cand.column(k).to_pylist() for k in keys])):
        flags[i] = t in wanted
    return pa.array(flags, pa.bool_())


def data_file(table, file):
    """The Iceberg DataFile of a Parquet file (its statistics from the footer), checked
    against the table's schema (by name, through its name mapping)."""
    import pyarrow.parquet as pq
    from pyiceberg.io.pyarrow import (_check_pyarrow_schema_compatible,
                                      compute_statistics_plan,
                                      data_file_statistics_from_parquet_metadata,
                                      parquet_path_to_id_mapping)
    from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
    _, p = file
    meta = table.metadata
    schema = meta.schema()
    parquet = pq.read_metadata(p)
    try:
        _check_pyarrow_schema_compatible(schema, arrow_schema_of(file),
                                         format_version=meta.format_version)
    except ValueError as e:
        raise ValueError(f"{p}: not the schema of the table ({e})") from None
    stats = data_file_statistics_from_parquet_metadata(
        parquet_metadata=parquet,
        stats_columns=compute_statistics_plan(schema, meta.properties),
        parquet_column_mapping=parquet_path_to_id_mapping(schema))
    return DataFile.from_args(
        content=DataFileContent.DATA, file_path=os.path.abspath(p),
        file_format=FileFormat.PARQUET, partition=stats.partition(meta.spec(), schema),
        file_size_in_bytes=os.path.getsize(p), sort_order_id=None,
        spec_id=meta.default_spec_id, equality_ids=None, key_metadata=None,
        **stats.to_serialized_dict())


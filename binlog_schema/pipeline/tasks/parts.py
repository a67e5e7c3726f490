"""The ``arrow`` engine's task side: decode a group of splits and write the record batches the
tasks build (:mod:`.arrow_sink`) straight to Parquet part files (pyarrow), one per table and task.

The JVM then only schedules: no row crosses the Python/JVM boundary, which halves the CPU a
row costs (pickling in the worker plus unpickling and conversion in the JVM cost as much as
decoding it). Part files are written under a temporary name and renamed to
``part-<task>.parquet`` (local and shared filesystems), or written to that name directly
(object stores, where a PUT is atomic), so a retried or speculative task replaces its own
output. Each file carries Spark's schema in its key-value metadata
(``org.apache.spark.sql.parquet.row.metadata``) so Spark reads the exact types back (intervals,
timestamp_ntz) with or without an explicit schema.
"""

from __future__ import annotations

import gc
import os
import uuid

from binlog_schema.pipeline.fsio import local_path
from binlog_schema.pipeline.tasks.decode import decode_group

SPARK_METADATA = b"org.apache.spark.sql.parquet.row.metadata"
TABLES = ("events", "row_changes", "errors")   # the tables the tasks write


class PartWriter:
    """One Parquet part file written record batch by record batch (opened on the first)."""

    def __init__(self, out: str, table: str, name: str, schema, spark_json: str,
                 always: bool = False, arrow_schema: bool = True):
        self.out, self.table, self.name = out.rstrip("/"), table, name
        self.arrow_schema = arrow_schema   # (False: no ARROW:schema, see write_group)
        self.always = always  # write the file even with no rows (a readable empty table)
        self.schema = schema.with_metadata({SPARK_METADATA: spark_json.encode()})
        self.writer = None
        self.rows = 0

    def _open(self):
        import pyarrow.parquet as pq
        final = f"{self.out}/{self.table}/{self.name}"
        path = local_path(final)
        options = dict(compression="snappy", store_schema=self.arrow_schema)
        if path is not None:
            self.final = path
            self.tmp = f"{os.path.dirname(path)}/.{self.name}.{uuid.uuid4().hex}.tmp"
            self.writer = pq.ParquetWriter(self.tmp, self.schema, **options)
        else:
            from pyarrow import fs as pafs
            filesystem, inner = pafs.FileSystem.from_uri(final)
            self.final = self.tmp = None
            self.stream = filesystem.open_output_stream(inner)
            self.writer = pq.ParquetWriter(self.stream, self.schema, **options)

    def write(self, batch):
        if self.writer is None:
            self._open()
        self.writer.write_batch(batch)
        self.rows += batch.num_rows

    def close(self):
        if self.writer is None:
            if not self.always:
                return
            self._open()
        self.writer.close()
        if self.tmp is not None:
            os.replace(self.tmp, self.final)
        else:
            self.stream.close()


def write_group(index: int, group, out: str, arrow_schemas: dict, spark_json: dict,
                rows: bool = True, schema=None, arrow_schema: bool = True) -> list:
    """Decode the splits of one task into ``out/<table>/part-<index>.parquet`` (record
    batches built column by column, :class:`.arrow_sink.ArrowSink`); returns the small rows the
    driver aggregates (table-map shapes, split statistics). ``schema``: the
    :class:`~binlog_schema.pipeline.tasks.history.SchemaPlan`, if any. ``arrow_schema``
    False: the files do not store pyarrow's schema (``ARROW:schema``), so readers without
    Spark take the Parquet types (an interval: its INT64), as Iceberg's readers need."""
    from binlog_schema.pipeline.tasks.arrow_sink import ArrowSink
    name = f"part-{index:05d}.parquet"
    writers = {table: PartWriter(out, table, name, arrow_schemas[table], spark_json[table],
                                 always=index == 0, arrow_schema=arrow_schema)
               for table in TABLES}
    small = []
    sink = ArrowSink(arrow_schemas)
    # the rows of a batch are millions of live objects, freed by reference counts: the
    # cycle collector would walk them over and over (a sixth of a task's time)
    collecting = gc.isenabled()
    gc.disable()
    try:
        for table, item in decode_group(group, rows, sink, schema=schema):
            w = writers.get(table)
            if w is None:
                small.append((table, item))
            else:
                w.write(item)
    finally:
        if collecting:
            gc.enable()
        for w in writers.values():
            w.close()
    return small


def write_table(out: str, table: str, schema, spark_json: str, rows) -> None:
    """A small table the driver made (table-map shapes, per-file rows: tuples in the
    schema's order) as one part file, the way the tasks write theirs (an empty table still
    gets its file)."""
    from binlog_schema.pipeline.tasks.arrow_sink import batch_of_rows
    w = PartWriter(out, table, "part-00000.parquet", schema, spark_json, always=True)
    rows = list(rows)
    if rows:
        w.write(batch_of_rows(rows, schema))
    w.close()


def part_files(directory: str) -> list:
    """The part files directly under ``directory`` (local path, ``file:`` or ``pyarrow.fs``
    URI), in name order, with the filesystem to read them from (None: local): files named
    ``part-*.parquet``, the tasks' and Spark's alike (not the tasks' hidden temporary files).
    Raises FileNotFoundError when ``directory`` is absent."""
    path = local_path(directory)
    if path is not None:
        return [(None, os.path.join(path, n)) for n in sorted(os.listdir(path))
                if n.startswith("part-") and n.endswith(".parquet")]
    from pyarrow import fs as pafs
    filesystem, inner = pafs.FileSystem.from_uri(directory)
    infos = filesystem.get_file_info(pafs.FileSelector(inner))
    return [(filesystem, i.path) for i in sorted(infos, key=lambda i: i.path)
            if i.base_name.startswith("part-") and i.base_name.endswith(".parquet")]


def count_parts(out: str, event_stages, failure_stages=("input", "file", "split")) -> dict:
    """file -> (events decoded, events quarantined, error rows, row changes, bytes decoded,
    bytes skipped, failures), counted from the part files the tasks wrote (read with pyarrow
    on the driver): what the tables hold, not what the tasks said they wrote. Events decoded
    are the rows of ``events``; quarantined, the ``errors`` rows of ``event_stages``
    (quarantined events and skipped ranges); bytes decoded, the sizes of the ``events`` rows
    of file level (not inside a payload: ``in_payload_at`` null); bytes skipped, the sizes of
    those ``errors`` rows of file level; failures, the ``errors`` rows of ``failure_stages``
    (a file that could not be read, a split that failed)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    counts: dict = {}

    def slot_of(file):
        c = counts.get(file)
        if c is None:
            c = counts[file] = [0, 0, 0, 0, 0, 0, 0]
        return c

    def tally(column, slot):
        for entry in pc.value_counts(column).to_pylist():
            slot_of(entry["values"])[slot] += entry["counts"]

    def add_sizes(t, slot):
        t = t.filter(pc.is_null(t.column("in_payload_at")))
        sums = pa.table({"file": t.column("file"), "size": t.column("size")}).group_by(
            "file").aggregate([("size", "sum")])
        for file, n in zip(sums.column("file").to_pylist(),
                           sums.column("size_sum").to_pylist()):
            slot_of(file)[slot] += n or 0

    columns = {"events": ["file", "size", "in_payload_at"],
               "errors": ["file", "stage", "size", "in_payload_at"], "row_changes": ["file"]}
    for table, slot in (("events", 0), ("errors", 2), ("row_changes", 3)):
        for filesystem, path in part_files(f"{out.rstrip('/')}/{table}"):
            t = pq.read_table(path, columns=columns[table], filesystem=filesystem)
            tally(t.column("file"), slot)
            if table == "events":
                add_sizes(t, 4)
            elif table == "errors":  # quarantined events and skipped ranges; failures
                stage = t.column("stage")
                tally(pc.filter(t.column("file"),
                                pc.is_in(stage, value_set=_strings(failure_stages))), 6)
                t = t.filter(pc.is_in(stage, value_set=_strings(event_stages)))
                tally(t.column("file"), 1)
                add_sizes(t, 5)
    return {f: tuple(c) for f, c in counts.items()}


def _strings(values):
    import pyarrow as pa
    return pa.array(list(values), type=pa.string())

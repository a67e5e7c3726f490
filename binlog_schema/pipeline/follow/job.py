"""The follow job (:func:`follow`): ``spark.readStream.format("binlog")`` over a folder, table
``row_changes``, into the current tables under ``out`` (Delta: each micro-batch gives every
table it changes a new version; Parquet tables cannot take one in place and are refused).

Each micro-batch (:class:`Batches`, the query's ``foreachBatch``) ends at a transaction
boundary by construction (the stream's offsets: :mod:`..sources.streaming`), read from the
checkpoint's offset log (``CHECKPOINT/offsets/<batch id>``, written by Spark before the
batch runs). The batch is applied as ``spark current --base OUT --out OUT --format delta``
applies a run over the same files (:func:`~..current.job.apply_changes`):

* the schema history is the one in force: the seed (``schema``), the statements the state
  recorded, then those of the folder's files up to the batch's end (before it: a statement
  past it waits for the batch that reads it); row changes are named at event time by the
  stream's own schema plan;
* only changes after the state's last applied one are applied, up to the batch's end: the
  state's applied order key is ``order_key(file, end - 1)``, between the batch's last event
  and the next batch's first;
* ``OUT/_binlog_schema/state.json`` is written last: the commit point (the tables a batch
  drops or renames are removed after it). A batch Spark runs again after a crash (its
  commit not in the checkpoint's ``commits/``) finds the state written or not: written, its
  changes are at or before the applied order key (nothing is applied twice, no table gets
  a new version); not written, the tables the state names are read at the versions it
  names (those a killed batch committed since are passed over). Each batch first removes
  the tables a killed batch left that the state does not list (:func:`strays`).

What a batch cannot carry, the decode job's ``files`` and ``errors`` tables (the per-file
reconciliation, events quarantined), is not checked here: ``spark decode`` over the folder
says it.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field

from binlog_schema.pipeline.current.io import drop_gone
from binlog_schema.pipeline.current.job import CurrentError

STREAM = "stream"   # the state's entry of a followed folder: checkpoint, last batch, offset


@dataclass
class BatchNote:
    """What one micro-batch did."""

    batch: int
    offset: dict                      # the stream's end offset of the batch
    applied: bool = True              # False: already applied (a batch run again), or empty
    tables: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)
    seconds: float = 0.0


class Batches:
    """The ``foreachBatch`` function of a follow query (one per query, on the driver)."""

    def __init__(self, spark, folder: str, out: str, checkpoint: str, schema_files: list,
                 assume_empty: bool = False, say=None):
        from binlog_schema.pipeline.sources.batch import Options
        from binlog_schema.pipeline.sources.streaming import StreamReader
        self.spark, self.out, self.checkpoint = spark, out, checkpoint
        self.folder = folder
        self.reader = StreamReader(Options(paths=[folder], table="row_changes",
                                           schema_files=list(schema_files)))
        self.assume_empty = assume_empty
        self.say = say or (lambda text: None)
        self.notes: list = []
        self.busy = threading.Lock()
        self.error = None
        self.last_data = time.monotonic()

    def __call__(self, df, batch_id: int):
        with self.busy:
            try:
                self.apply(df, int(batch_id))
            except BaseException as e:
                self.error = e
                raise

    def apply(self, df, batch_id: int) -> BatchNote:
        from ...changes.transactions import file_sequence, order_key
        from binlog_schema.pipeline.current.job import (STATE, CurrentResult, apply_changes,
                                                        continue_history)
        from binlog_schema.pipeline.tables.result import hadoop_fs
        t0 = time.monotonic()
        end = batch_offset(self.spark, self.checkpoint, batch_id)
        note = BatchNote(batch_id, end)
        state = read_state_if_any(self.spark, self.out)
        if state is not None:
            drop_gone(self.spark, self.out, strays(self.spark, self.out, state), "delta")
        if not end.get("file"):
            note.applied = False
            self.notes.append(note)
            return note
        seq = file_sequence(end["file"])
        until = order_key(seq, end["position"], 0, 0)
        okey = order_key(seq, end["position"] - 1, 0, 0)
        if state and okey <= state.get("applied", {}).get("okey", ""):
            note.applied = False   # (a batch run again after its state was written)
            self.say(f"batch {batch_id}: to {end['file']} position {end['position']}: "
                     "applied before")
            self.notes.append(note)
            return note
        files = [f for f in self.reader.files() if f[0] <= end["file"]]
        plan = self.reader.plan(files)   # (seeded by the schema files: the state's seed)
        okey_of, applied, new = continue_history(plan, state, until=until)
        rows = df.persist()
        try:
            result = CurrentResult(self.out, "delta")
            last = {"okey": okey, "file": end["file"], "position": end["position"]}
            apply_changes(self.spark, rows, plan, applied, new, result,
                          base=self.out if state else None, state=state, last=last,
                          files=[name for name, _, _ in files],
                          assume_empty=self.assume_empty,
                          extra={STREAM: {"checkpoint": self.checkpoint, "batch": batch_id,
                                          "offset": end}})
        finally:
            rows.unpersist()
            fs, p = hadoop_fs(self.spark, f"{self.out}/{STATE}/work")
            fs.delete(p, True)
        note.tables, note.problems = result.tables, list(result.problems)
        note.seconds = time.monotonic() - t0
        changed = sum(t["inserted"] + t["updated"] + t["deleted"] for t in note.tables.values())
        self.say(f"batch {batch_id}: to {end['file']} position {end['position']}: "
                 f"{changed} row changes applied, {len(note.tables)} tables "
                 f"({note.seconds:.1f}s)")
        self.notes.append(note)
        self.last_data = time.monotonic()
        return note


def batch_offset(spark, checkpoint: str, batch_id: int) -> dict:
    """The stream's end offset of micro-batch ``batch_id``: the last line of the checkpoint's
    offset log entry (Spark writes it before the batch runs)."""
    from binlog_schema.pipeline.tables.result import hadoop_fs
    fs, p = hadoop_fs(spark, f"{checkpoint}/offsets/{batch_id}")
    stream = fs.open(p)
    try:
        text = bytes(stream.readAllBytes()).decode()
    finally:
        stream.close()
    lines = [x for x in text.splitlines() if x.strip()]
    value = json.loads(lines[-1])
    return json.loads(value) if isinstance(value, str) else value


def strays(spark, out: str, state: dict) -> list:
    """The "db.table" names of the Delta tables under ``out`` that a run wrote (their last
    commit names them) but ``state`` does not list: left by a batch killed after it wrote
    them and before its state (a table it created), or after its state and before it
    removed them (a table it dropped or renamed)."""
    from binlog_schema.pipeline.tables import delta
    from binlog_schema.pipeline.tables.result import hadoop_fs
    fs, root = hadoop_fs(spark, out)
    found = []
    for db in fs.listStatus(root):
        d = db.getPath().getName()
        if not db.isDirectory() or d.startswith(("_", ".")):
            continue
        for tb in fs.listStatus(db.getPath()):
            name = f"{d}.{tb.getPath().getName()}"
            if tb.isDirectory() and name not in state.get("tables", {}) and \
                    (delta.last_metadata(f"{out}/{d}/{tb.getPath().getName()}") or {}) \
                    .get("binlog_schema") == name:
                found.append(name)
    return found


def read_state_if_any(spark, out: str) -> dict | None:
    from binlog_schema.pipeline.current.job import STATE, STATE_FILE, read_state
    from binlog_schema.pipeline.tables.result import hadoop_fs
    fs, p = hadoop_fs(spark, f"{out}/{STATE}/{STATE_FILE}")
    return read_state(spark, out) if fs.exists(p) else None


class Following:
    """A follow query running (:func:`follow`): :attr:`query` (Spark's StreamingQuery),
    :attr:`batches` (the foreachBatch function: its :attr:`~Batches.notes`)."""

    def __init__(self, query, batches: Batches):
        self.query, self.batches = query, batches

    @property
    def notes(self) -> list:
        return self.batches.notes

    def wait(self, until_idle: float | None = None, stop=None, poll: float = 0.5) -> None:
        """Until the query ends (``once``), has applied nothing for ``until_idle`` seconds,
        or ``stop`` (a threading.Event) is set: then stops it after the batch running
        (cleanly: a batch is applied whole or, interrupted, applied again on restart)."""
        while self.query.isActive:
            if stop is not None and stop.is_set():
                break
            if until_idle is not None and not self.batches.busy.locked() and \
                    time.monotonic() - self.batches.last_data >= until_idle and \
                    not self.query.status.get("isDataAvailable"):
                break
            time.sleep(poll)
        self.stop()

    def stop(self) -> None:
        with self.batches.busy:   # (after the batch being applied)
            if self.query.isActive:
                self.query.stop()
        if self.batches.error is not None:
            raise self.batches.error
        e = self.query.exception()
        if e is not None:
            raise RuntimeError(str(e))

    @property
    def problems(self) -> list:
        """Every (table, message) a batch reported, once each."""
        seen = []
        for n in self.notes:
            for p in n.problems:
                if tuple(p) not in seen:
                    seen.append(tuple(p))
        return seen


def follow(folder: str, spark=None, *, out: str, checkpoint: str, schema=None,
           assume_empty: bool = False, fmt: str = "delta", once: bool = False,
           trigger_interval: float = 5.0, say=None) -> Following:
    """Follow the binlogs of ``folder`` (files appear in name order, the last one grows)
    into the current tables under ``out`` (:mod:`this module <.job>`), restart-safe through
    Spark's ``checkpoint`` folder: a query started again on the same checkpoint and ``out``
    goes on where the last batch committed. ``schema``: schema files (as ``spark current``'s,
    the same at every start); ``once``: what is there now, then the query ends
    (Trigger.AvailableNow); else a batch every ``trigger_interval`` seconds when the folder
    has grown. Returns the running :class:`Following`. Raises :class:`CurrentError` (Parquet,
    an ``out`` that is not a follow's or a current's Delta output, another schema)."""
    from binlog_schema.pipeline.current.types import has_time_type
    from binlog_schema.pipeline.driver.session import start_session
    from binlog_schema.pipeline.sources.batch import register
    from binlog_schema.pipeline.tables.result import hadoop_fs, qualify
    if fmt != "delta":
        raise CurrentError(f"--format {fmt}: a followed folder's tables take a new version "
                           "per micro-batch, which only Delta tables can (--format delta)")
    spark = spark or start_session()
    if has_time_type():   # (TIME columns, as spark current)
        spark.conf.set("spark.sql.timeType.enabled", "true")
    schema = [schema] if isinstance(schema, str) else list(schema or [])
    out = qualify(spark, out).rstrip("/")
    checkpoint = qualify(spark, checkpoint).rstrip("/")
    texts = []
    for path in schema:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            texts.append(f.read())
    state = read_state_if_any(spark, out)
    if state is None:
        fs, p = hadoop_fs(spark, out)
        if fs.exists(p) and fs.listStatus(p):
            raise CurrentError(f"{out} exists and is not the output of spark current or "
                               "spark follow (no _binlog_schema/state.json)")
    else:
        if state.get("format", "parquet") != "delta":
            raise CurrentError(f"{out} holds {state.get('format', 'parquet')} tables: a "
                               "followed folder's tables are Delta tables")
        if list(state.get("schema", {}).get("seed", [])) != texts:
            raise CurrentError(f"--schema: not the schema {out} was started with (give the "
                               "same files at every start)")
    register(spark)
    batches = Batches(spark, folder, out, checkpoint, schema, assume_empty, say)
    reader = spark.readStream.format("binlog").option("table", "row_changes")
    if schema:
        reader = reader.option("schema", json.dumps([str(s) for s in schema]))
    writer = reader.load(folder).writeStream.foreachBatch(batches) \
        .option("checkpointLocation", checkpoint).queryName(f"follow {folder}")
    writer = writer.trigger(availableNow=True) if once else \
        writer.trigger(processingTime=f"{max(trigger_interval, 0.0)} seconds")
    return Following(writer.start(), batches)

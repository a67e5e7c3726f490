"""The ``arrow`` engine's sink (:class:`ArrowSink`): a task's rows as Arrow record batches of
``events``, ``row_changes`` and ``errors``, made from Python lists per column, never a Python
object per value in Spark's form (the engine ``spark``'s sink is
:class:`~.tuple_sink.TupleSink`).

The bulk is the row images, ``map<column, Value>`` (:mod:`.image_maps`, their values as
:mod:`.value_structs`). Per-event facts of a rows event (file, offset, GTID, table...) are
kept once per event and repeated by ``take`` (:class:`RowsColumns`); the batches that hold
rows of a transaction whose end is not seen yet wait for its XID and commit time
(:class:`HeldBatches`, :func:`commit_columns`).
"""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter

import pyarrow as pa
import pyarrow.compute as pc

from . import spark_values
from .image_maps import ImageColumn
from .split import STAT, TABLE_MAP

BATCH_ROWS = 16384        # rows of a record batch (a Parquet row group)
BATCH_VALUES = 1 << 18    # ... or fewer rows, when their images hold this many values


# ---------------------------------------------------------------------------------------
# record batches

def batch_of_rows(rows: list, schema: pa.Schema) -> pa.RecordBatch:
    """A record batch of a few rows given as tuples in ``schema``'s order (each column
    converted by one ``pa.array``)."""
    cols = list(zip(*rows)) if rows else [()] * len(schema)
    return pa.RecordBatch.from_arrays(
        [pa.array(c, f.type) for c, f in zip(cols, schema)], schema=schema)


# row_changes columns that are facts of the rows event, kept once per event
_PER_EVENT = ("file", "offset", "inner_offset", "gtid", "timestamp", "database", "table",
              "operation", "signedness_known", "event_type", "schema_version")


def _signed64(xid):
    return xid if xid is None or xid < 1 << 63 else xid - (1 << 64)


class RowsColumns:
    """The ``row_changes`` of a batch: per-event facts once per rows event, row indexes and
    images per row. The transaction's columns (``xid``, ``commit_timestamp``) are read from
    each event's :class:`~binlog_schema.changes.transactions.Transaction` when the batch is
    made; ``order_key`` is the event's prefix joined to the padded row index."""

    def __init__(self, schema: pa.Schema):
        self.schema = schema
        self.clear()

    def clear(self):
        self.events: list = []    # per rows event: its facts (_PER_EVENT order)
        self.txs: list = []       # per rows event: its Transaction (or None)
        self.prefixes: list = []  # per rows event: its order key's first three fields
        self.event_of: list = []  # per row: its event's position in ``events``
        self.row_index: list = []
        self.before = ImageColumn()
        self.after = ImageColumn()
        self.last_tx = None       # the transaction of the last rows ...
        self.last_tx_from = 0     # ... and the first of its rows in this batch

    def __len__(self):
        return len(self.row_index)

    def add(self, facts: tuple, changes: list, json_cols, tx=None, prefix=None):
        n = len(changes)
        if tx is not self.last_tx:
            self.last_tx, self.last_tx_from = tx, len(self.row_index)
        self.event_of.extend(repeat(len(self.events), n))
        self.events.append(facts)
        self.txs.append(tx)
        self.prefixes.append(prefix)
        self.row_index.extend(map(_row_index, changes))
        self.before.add(list(map(_before, changes)), json_cols)
        self.after.add(list(map(_after, changes)), json_cols)

    def batch(self) -> pa.RecordBatch:
        schema = self.schema
        event_of = pa.array(self.event_of, pa.int32())
        cols = {}
        for name, values in zip(_PER_EVENT, zip(*self.events)):
            cols[name] = pa.array(values, schema.field(name).type).take(event_of)
        row_index = cols["row_index"] = pa.array(self.row_index,
                                                 schema.field("row_index").type)
        cols["before"] = self.before.array(schema.field("before").type)
        cols["after"] = self.after.array(schema.field("after").type)
        cols["order_key"] = pc.binary_join_element_wise(
            pa.array(self.prefixes, pa.string()).take(event_of),
            pc.utf8_lpad(pc.cast(row_index, pa.string()), 10, "0"), "")
        txs = self.txs
        cols["xid"] = pa.array([None if t is None else _signed64(t.xid) for t in txs],
                               pa.int64()).take(event_of)
        cols["commit_timestamp"] = pa.array(
            [None if t is None or t.commit_timestamp is None else
             t.commit_timestamp * 1_000_000 for t in txs],
            schema.field("commit_timestamp").type).take(event_of)
        out = pa.RecordBatch.from_arrays([cols[f.name] for f in schema], schema=schema)
        self.clear()
        return out


def commit_columns(batch: pa.RecordBatch, start: int, tx) -> pa.RecordBatch:
    """``batch`` with the XID and commit time of ``tx`` in its rows from ``start`` on (the
    rows of a transaction whose end came after the batch was made)."""
    n = batch.num_rows - start
    if n <= 0 or (tx.xid is None and tx.commit_timestamp is None):
        return batch
    schema = batch.schema
    for name, value in (("xid", _signed64(tx.xid)), ("commit_timestamp", None if
                        tx.commit_timestamp is None else tx.commit_timestamp * 1_000_000)):
        i = schema.get_field_index(name)
        col = batch.column(i)
        tail = pa.array([value] * n, col.type)
        col = pa.concat_arrays([col.slice(0, start), tail]) if start else tail
        batch = batch.set_column(i, schema.field(i), col)
    return batch


class HeldBatches:
    """Record batches that hold rows of a transaction whose end is not seen yet, in memory
    up to ``limit`` bytes, then in a temporary Arrow IPC file: a task's memory stays flat."""

    def __init__(self, limit: int = 64 << 20):
        self.limit = limit
        self.items: list = []   # (batch, first row of the transaction)
        self.size = 0
        self.spill = None       # (file, writer, [first row of each spilled batch])

    def __len__(self):
        return len(self.items) + (len(self.spill[2]) if self.spill is not None else 0)

    def add(self, batch, start: int):
        self.items.append((batch, start))
        self.size += batch.nbytes
        if self.size > self.limit:
            if self.spill is None:
                import tempfile
                f = tempfile.TemporaryFile()
                self.spill = (f, pa.ipc.new_stream(pa.PythonFile(f, mode="w"), batch.schema),
                              [])
            for b, s in self.items:
                self.spill[1].write_batch(b)
                self.spill[2].append(s)
            self.items, self.size = [], 0

    def drain(self, tx=None):
        """The batches in order, with the XID and commit time of ``tx`` (None: as they are)."""
        spill, items = self.spill, self.items
        self.spill, self.items, self.size = None, [], 0
        if spill is not None:
            f, writer, starts = spill
            writer.close()
            f.seek(0)
            try:
                for b, s in zip(pa.ipc.open_stream(pa.PythonFile(f, mode="r")), starts):
                    yield b if tx is None else commit_columns(b, s, tx)
            finally:
                f.close()
        for b, s in items:
            yield b if tx is None else commit_columns(b, s, tx)


_row_index, _before, _after = (attrgetter("row_index"), attrgetter("before"),
                               attrgetter("after"))


class ArrowSink:
    """A task's output as Arrow record batches (``pending``: ``(table, RecordBatch)`` when a
    batch is full, ``(TABLE_MAP, row)`` and ``(STAT, row)`` for the small rows
    the driver aggregates). ``schemas``: the Arrow schemas of ``events``, ``row_changes``
    and ``errors``."""

    def __init__(self, schemas: dict, batch_rows: int = BATCH_ROWS,
                 batch_values: int = BATCH_VALUES):
        self.schemas = schemas
        self.batch_rows, self.batch_values = batch_rows, batch_values
        self.events: list = []
        self.errors: list = []
        self.rows_columns = RowsColumns(schemas["row_changes"])
        self.pending: list = []
        self.held = HeldBatches()   # row_changes batches waiting for their commit
        self.open_tx = None         # the transaction of the last rows, until its end

    def event(self, row):
        self.events.append(row)
        if len(self.events) >= self.batch_rows:
            self._flush_events()

    def error(self, row):
        self.errors.append(row)
        if len(self.errors) >= self.batch_rows:
            self._flush_errors()

    def table_map(self, row):
        self.pending.append((TABLE_MAP, row))

    def stat(self, row):
        self.pending.append((STAT, row))

    def rows(self, name, r, changes, json_cols, offset, inner_offset, tx=None, prefix=None,
             version=None):
        c = changes[0]
        rc = self.rows_columns
        if tx is not self.open_tx:
            if self.held:   # (a transaction left without its end: written as it is)
                self.pending.extend(("row_changes", b) for b in self.held.drain())
            self.open_tx = tx
        rc.add((name, offset, inner_offset, c.gtid,
                None if c.timestamp is None else c.timestamp * 1_000_000,
                spark_values.as_text(c.database), spark_values.as_text(c.table), c.operation,
                c.signedness_known, r.type_name, version), changes, json_cols, tx, prefix)
        if len(rc) >= self.batch_rows or rc.before.entries + rc.after.entries >= \
                self.batch_values:
            self._flush_rows()

    def _flush_rows(self):
        rc = self.rows_columns
        tx, start = rc.last_tx, rc.last_tx_from
        batch = rc.batch()
        if tx is not None and tx is self.open_tx:   # its XID and commit still to come
            self.held.add(batch, start)
        else:
            self.pending.append(("row_changes", batch))

    def end(self, tx):
        """``tx`` ended (committed, or its end not seen): the batches that held its rows
        waiting are written, with its XID and commit time."""
        if tx is not self.open_tx:
            return
        self.open_tx = None
        if self.held:
            self.pending.extend(("row_changes", b) for b in self.held.drain(tx))

    def _flush_events(self):
        self.pending.append(("events", batch_of_rows(self.events, self.schemas["events"])))
        self.events = []

    def _flush_errors(self):
        self.pending.append(("errors", batch_of_rows(self.errors, self.schemas["errors"])))
        self.errors = []

    def take(self) -> list:
        out, self.pending = self.pending, []
        return out

    def close(self) -> list:
        """Everything still buffered, as batches."""
        if self.events:
            self._flush_events()
        self.open_tx = None
        if self.held:
            self.pending.extend(("row_changes", b) for b in self.held.drain())
        if len(self.rows_columns):
            self.pending.append(("row_changes", self.rows_columns.batch()))
        if self.errors:
            self._flush_errors()
        return self.take()

"""The records of a stream's transactions as broker messages: what the format's writer of
:mod:`binlog_schema.output` writes (the line ``stream`` would print is the message's value),
each with its record key and order key.

* maxwell, debezium: one message per row change; the writer gives each record's key (table
  and primary key: :func:`~binlog_schema.output.change_records.record_key`) and order key
  (``order_key`` in Maxwell's records, ``source.sequence`` in Debezium's).
* jsonl: one message per event line; the order key is the event's place
  (:func:`~binlog_schema.changes.transactions.order_key` of its file, offset and offset in a
  transaction payload, row 0); a rows event's key is its table's (``["db","t",null]``: an
  event holds rows of many keys), known with ``--rows``; other events have none.

:class:`Outbox` is the ``out`` of a :class:`~binlog_schema.output.write.RecordWriter`; its
messages go to ``deliver`` (a :class:`~.delivery.Delivery`'s ``publish``) in chunks of at most
``chunk`` while the transaction is written and at its end, so memory stays bounded by a chunk
(and the delivery's group).
"""

from __future__ import annotations

from ...changes.transactions import file_sequence, gtid_of, order_key
from ...format.facts.codes import GTID_KINDS, ROWS_KINDS
from ...output.change_records import record_key, table_key
from ...output.formats import FORMATS
from ...output.write import RecordWriter
from .base import Message



class Outbox:
    """Lines of one file's records, made messages and handed to ``deliver(messages)``."""

    def __init__(self, path, fmt: str, decoder, binary: str, deliver, chunk: int = 1000):
        self.path, self.fmt, self.decoder = path, fmt, decoder
        self.deliver, self.chunk = deliver, chunk
        self.sequence = file_sequence(str(path))
        self.writer = RecordWriter(path, self, fmt, decoder, binary)
        if FORMATS[fmt].changes:
            self.writer.changes.keyed = True
        self.messages: list = []
        self.gtid = None
        # jsonl: (event record, its outer record) of the lines the record writes, last first
        # (each placed when its line comes: the decoder has followed the events before it)
        self.places: list = []
        self.sent = 0            # messages delivered (the records written)

    def write(self, batch, gtid, on_error=None) -> None:
        """One transaction's records (``gtid``: its GTID or None), all handed to ``deliver``."""
        self.gtid = gtid
        if self.writer.changes is not None:
            self.writer.write(batch, on_error)
        else:
            for rec in batch:
                self.places = [(r, rec) for r in
                               ((rec,) if rec.inner is None else (rec, *rec.inner))]
                self.places.reverse()
                self.writer.write((rec,), on_error)
        self.flush()

    def _place(self, r, outer):
        key = None
        if self.decoder is not None and r.error is None and r.kind in ROWS_KINDS:
            tm = self.decoder.table_maps.get(r.value["body"]["table_id"])
            if tm is not None:
                key = record_key(table_key(tm.database, tm.table), None)
        if r is outer:
            return key, order_key(self.sequence, r.offset, 0, 0)
        return key, order_key(self.sequence, outer.offset, r.offset, 0)

    def add(self, line: str, key=None, ok=None) -> None:
        if ok is None:   # (jsonl: the next line's event)
            if not self.places:
                raise ValueError("a JSON line with no event of its own (a writer's line "
                                 "this sink cannot place)")
            key, ok = self._place(*self.places.pop())
        self.messages.append(Message(line.encode(), key, ok, self.gtid))
        if len(self.messages) >= self.chunk:
            self.flush()

    def add_parts(self, first: str, data: bytes, last: str) -> None:
        self.add(first + data.decode() + last)

    def flush(self) -> None:
        if self.messages:
            messages, self.messages = self.messages, []
            self.deliver(messages)
            self.sent += len(messages)


def transaction_gtid(batch) -> str | None:
    """The GTID of a transaction (a batch of the stream that starts with its GTID event)."""
    if batch and batch[0].kind in GTID_KINDS and batch[0].value is not None:
        body = batch[0].value["body"]
        return gtid_of(batch[0], body) if isinstance(body, dict) else None
    return None

"""Transactions around row changes: what a change record carries besides its row.

* :func:`order_key`: one string per row change, ordered as the changes are in the binlog (see
  docs/decode.md's "Change records"): the file's sequence number, the event's offset, the
  position inside a compressed transaction payload and the row's index in its event, each
  zero-padded to a fixed width, so that comparing the strings compares the changes.
* :class:`Transactions`: follows the events of a stream and knows the transaction in force:
  where it began (its GTID event, else its BEGIN), its GTID, the thread of its BEGIN, the
  commit timestamp its GTID event carries (MySQL 8.0.1+), and, once it ends, the XID and
  timestamp of its commit (XID, or a COMMIT/ROLLBACK query, or an XA PREPARE).
* :class:`Pending`: the change records of one transaction kept until its commit is known
  (a format that writes the XID on every row, or the commit flag on the last one, needs
  that), in memory up to a bound, then in a temporary file: a huge transaction does not
  hold unbounded memory; :class:`Held`, the same for Python objects (pickled past the bound).
* :func:`transaction_events`: the one loop that follows a stream with a row decoder and a
  :class:`Transactions` (the change-record formats and :func:`change_records` use it).
* :func:`change_records`: the Python API, a :class:`ChangeRecord` per row change (the
  row change's fields and its place: order key, transaction, XID, commit, schema version).
"""

from __future__ import annotations

import os
import pickle
import re
import tempfile

from ..format.facts.codes import (ANONYMOUS_GTID_LOG_EVENT, GTID_KINDS, GTID_LOG_EVENT,
                           GTID_TAGGED_LOG_EVENT, MARIA_GTID_EVENT, QUERY_EVENT,
                           STATEMENT_KINDS, XA_PREPARE_LOG_EVENT, XID_EVENT)
from ..format.facts.framing import HEADER_SIZE
from ..format.facts.names import MARIA_GTID_FLAGS2
from ..format.facts.post_header import MARIA_GTID_FLAGS2_AT
from ..format.records import factory, record
from .row_change import RowChange, gtid_of
from .statements import BEGINS, BELONGS, ENDS, record_statement, statement_head, statement_role

# the order key's fields and their widths (decimal digits): the file's sequence number (up to
# 2^32), the event's offset in its file (13 digits: past 2^40, any file), the offset inside a
# compressed transaction payload (0 for an event of the file itself), the row in its event
ORDER_KEY_FIELDS = (("file", 10), ("offset", 13), ("payload", 10), ("row", 10))
_SEQUENCE = re.compile(r"\.(\d+)$")


def file_sequence(path) -> int:
    """The sequence number of a binlog file: the digits after the last dot of its name
    (``binlog.000693`` -> 693); 0 for a name without them (``vector.binlog``)."""
    m = _SEQUENCE.search(os.path.basename(str(path)))
    return int(m.group(1)) if m else 0


def order_key(sequence: int, offset: int, payload: int, row: int) -> str:
    """The order key of a row change: ``SSSSSSSSSS.OOOOOOOOOOOOO.PPPPPPPPPP.RRRRRRRRRR``, the
    file's sequence number, the rows event's offset in the file (the payload's, for an event
    inside a TRANSACTION_PAYLOAD), the event's offset inside the payload's data (0 outside
    one) and the row's index in its event; fixed widths, so that the strings compare as the
    changes are ordered."""
    return f"{sequence:010d}.{offset:013d}.{payload:010d}.{row:010d}"


def order_key_fields(key: str) -> tuple:
    """The four numbers of an order key (:func:`order_key`'s inverse)."""
    return tuple(int(x) for x in key.split("."))


@record
class Transaction:
    begin: int                      # file offset of the event that began it (GTID, BEGIN)
    gtid: str | None = None         # MySQL uuid[:tag]:gno, MariaDB domain-server-seq
    thread_id: int | None = None    # the thread of its BEGIN query (MariaDB: its GTID's)
    commit_us: int | None = None    # the GTID event's original commit timestamp (MySQL 8)
    xid: int | None = None          # its commit's XID (None: a COMMIT query, or not yet)
    commit_timestamp: int | None = None  # its commit event's timestamp (seconds)
    committed: bool = False         # its end was seen (XID, COMMIT, ROLLBACK, XA PREPARE)
    rows: int = 0                   # the row changes so far
    tables: dict = factory(dict)    # (database, table) -> its row changes so far
    timestamp: int | None = None    # the time its first event was written (header, seconds)

    def count(self, database, table) -> tuple:
        """A row change of ``table`` counted: (its place among the transaction's changes,
        among that table's), both from 1."""
        self.rows += 1
        key = (database, table)
        n = self.tables[key] = self.tables.get(key, 0) + 1
        return self.rows, n


def statement_of(rec) -> str | None:
    """The start of a QUERY event's statement, upper case (changes/statements.py)."""
    query = record_statement(rec)
    return None if query is None else statement_head(query)


def event_time(rec) -> int:
    """An event's header timestamp (its first four bytes), without parsing it."""
    return int.from_bytes(rec.raw[:4], "little")


# ------------------------------------------------------------------ the boundary rule

# What an event does to the transactions of a stream (Boundary.step)
OUTSIDE = 0   # nothing: no transaction is open (FORMAT_DESCRIPTION, ROTATE...)
OPENS = 1     # begins a transaction (one still open ends before it: its end never seen)
INSIDE = 2    # belongs to the open transaction
CLOSES = 3    # belongs to the open transaction and ends it
ALONE = 4     # a statement outside any transaction: a transaction of its own

# the events that begin or end transactions (the others join the open one, or none)
BOUNDARY_KINDS = GTID_KINDS | STATEMENT_KINDS | {XID_EVENT, XA_PREPARE_LOG_EVENT}
_STANDALONE = MARIA_GTID_FLAGS2["STANDALONE"]


def gtid_standalone(kind, flags2=None) -> bool:
    """Whether a GTID event announces a group with no commit of its own, one statement: a
    MySQL GTID does (what follows it without a BEGIN is a DDL statement, a group of its own:
    MySQL's rpl_trx_boundary_parser.cc), a MariaDB GTID when flagged STANDALONE (``flags2``:
    the decoded names, or the byte)."""
    if kind != MARIA_GTID_EVENT:
        return True
    if isinstance(flags2, int):
        return bool(flags2 & _STANDALONE)
    return "STANDALONE" in (flags2 or ())


class Boundary:
    """The one transaction-boundary rule, every reader's (the model here, the Spark
    pre-scan and split decoding, the stream client and server): where transactions begin and
    end along a stream of events, from their kinds, the roles of their statements
    (:data:`~.statements.TRANSACTION_STATEMENTS`) and the GTID's STANDALONE flag.

    * A GTID event opens a transaction (a BEGIN right after it continues it).
    * A statement that begins (BEGIN, XA START...) opens one, outside a transaction or inside
      one already begun (whose end was never seen).
    * XID, XA_PREPARE and a statement that ends (COMMIT, ROLLBACK, XA COMMIT...) close it.
    * An ordinary statement (DML, DDL) belongs to the open transaction, unless that one is a
      GTID's group of one statement not begun by BEGIN (:func:`gtid_standalone`), which it
      closes; outside any transaction it is a transaction of its own (:data:`ALONE`).
    * Other events (TABLE_MAP, rows, ANNOTATE_ROWS, INTVAR...) belong to the open one.

    ``open``: a transaction is open; ``begun``: by a BEGIN (or XA START...); ``standalone``:
    its GTID announced one statement."""

    __slots__ = ("open", "begun", "standalone")

    def __init__(self):
        self.open = self.begun = self.standalone = False

    def step(self, kind: int, role=None, standalone: bool = False) -> int:
        """What one event does (:data:`OPENS`, :data:`INSIDE`, :data:`CLOSES`,
        :data:`ALONE`, :data:`OUTSIDE`), the state moved past it. ``role``: a statement's
        (:func:`~.statements.statement_role`); ``standalone``: a GTID's
        (:func:`gtid_standalone`)."""
        if kind in GTID_KINDS:
            self.open, self.begun, self.standalone = True, False, standalone
            return OPENS
        if kind in STATEMENT_KINDS:
            if role is BEGINS:
                if self.open and not self.begun:   # (after its GTID)
                    self.begun = True
                    return INSIDE
                self.open, self.begun, self.standalone = True, True, False
                return OPENS
            if role is ENDS:
                self.open = self.begun = False
                return CLOSES
            if not self.open:
                return OUTSIDE if role is BELONGS else ALONE
            if role is None and self.standalone and not self.begun:
                self.open = False
                return CLOSES
            return INSIDE
        if kind == XID_EVENT or kind == XA_PREPARE_LOG_EVENT:
            self.open = self.begun = False
            return CLOSES
        return INSIDE if self.open else OUTSIDE

    def join(self) -> None:
        """A transaction's event met with none open (a rows event: a stream read from the
        middle of a transaction): from there on, as inside one begun."""
        if not self.open:
            self.open, self.begun, self.standalone = True, True, False

    def feed(self, rec) -> int:
        """:meth:`step` for an event record (its statement read undecoded when it is, its
        GTID's flags from the body)."""
        kind = rec.kind
        if kind in STATEMENT_KINDS:
            return self.step(kind, record_role(rec))
        if kind == MARIA_GTID_EVENT:
            return self.step(kind, None, gtid_standalone(kind, _flags2(rec)))
        return self.step(kind)


def record_role(rec):
    """The role of a QUERY record's statement (changes/statements.py's table; its first bytes
    when it is undecoded; None for a compressed one not decoded: MariaDB compresses only
    statements longer than the ones that begin or end transactions)."""
    if rec.unparsed and rec.kind != QUERY_EVENT:
        return None
    return statement_role(record_statement(rec, 64))


def _flags2(rec):
    if rec.unparsed:
        at = HEADER_SIZE + MARIA_GTID_FLAGS2_AT
        return rec.raw[at] if len(rec.raw) > at else 0
    body = rec.value["body"] if rec.error is None and rec.value is not None else None
    return body.get("flags2") if isinstance(body, dict) else None


class Transactions:
    """The transaction in force along a stream of event records (:class:`Boundary`'s rule).
    :meth:`feed` takes every event of :data:`BOUNDARY_KINDS` (others change nothing) and
    returns the transactions it ends; :meth:`current` gives the transaction a rows event
    belongs to (one begins at that event when none is open: a stream read from the middle of
    a transaction). ``last``: what the last event fed did (:meth:`Boundary.step`).
    ``xids``: the XID of each commit is read (False: an XID event is not parsed, the
    transaction's ``xid`` stays None)."""

    def __init__(self, xids: bool = True):
        self.open: Transaction | None = None
        self.boundary = Boundary()
        self.last = OUTSIDE
        self.xids = xids

    def current(self, offset: int, timestamp: int | None = None) -> Transaction:
        tx = self.open
        if tx is None:
            tx = self.open = Transaction(offset, timestamp=timestamp)
            self.boundary.join()
        return tx

    def feed(self, rec, offset: int) -> Transaction | None:
        """Follow one event (``offset``: its offset in the file, the payload's for an event
        inside one). Returns the transaction this event ends: committed, with its XID and
        commit timestamp; or, for an event that begins a transaction while one is open
        (whose end was never seen: a file cut inside it), that one, uncommitted; or, for a
        statement outside any transaction, its own (committed, no XID)."""
        kind = rec.kind
        if kind in GTID_KINDS:
            body = rec.value["body"] if rec.value is not None else None
            if not isinstance(body, dict):
                return None
            self.last = self.boundary.step(
                kind, None, gtid_standalone(kind, body.get("flags2")))
            ended, self.open = self.open, Transaction(offset, gtid_of(rec, body),
                                                      timestamp=event_time(rec))
            tx = self.open
            if kind in (GTID_LOG_EVENT, GTID_TAGGED_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT):
                ts = body.get("commit_timestamps")
                if isinstance(ts, dict):
                    tx.commit_us = ts.get("original") or ts.get("immediate") or None
            else:
                tx.thread_id = body.get("thread_id")
            return ended
        if kind in STATEMENT_KINDS:
            role = record_role(rec)
            step = self.last = self.boundary.step(kind, role)
            if step == OPENS:
                ended = self.open if self.open is not None and self.open.rows else None
                tx = self.open = Transaction(offset, timestamp=event_time(rec))
                tx.thread_id = _thread_of(rec)
                return ended
            if step == INSIDE:
                if role is BEGINS and self.open is not None:
                    self.open.thread_id = _thread_of(rec)   # (a BEGIN after its GTID)
                return None
            if step == CLOSES:
                return self._end(rec, offset, None)
            return None   # (ALONE: a statement of its own, no rows; OUTSIDE)
        if kind == XID_EVENT or kind == XA_PREPARE_LOG_EVENT:
            self.last = self.boundary.step(kind)
            return self._end(rec, offset, rec.value["body"].get("xid")
                             if kind == XID_EVENT and self.xids and rec.value is not None
                             else None)
        self.last = INSIDE if self.boundary.open else OUTSIDE
        return None

    def _end(self, rec, offset, xid) -> Transaction:
        tx = self.open if self.open is not None else Transaction(offset)
        self.open = None
        tx.xid = xid
        tx.committed = True
        tx.commit_timestamp = event_time(rec)
        return tx

    def close(self) -> Transaction | None:
        """The transaction left open at the end of the stream (its end never seen)."""
        tx, self.open = self.open, None
        return tx


def _thread_of(rec) -> int:
    """The thread id of a QUERY (its post-header's first field)."""
    return int.from_bytes(rec.raw[HEADER_SIZE:HEADER_SIZE + 4], "little")


class Pending:
    """The records of one transaction, kept until it ends: ``(head, tail)`` text pairs (a
    record is ``head + what the commit decides + tail``), in memory up to ``limit`` bytes,
    then in a temporary file (deleted when closed): memory stays bounded whatever the size
    of the transaction."""

    def __init__(self, limit: int = 16 << 20):
        self.limit = limit
        self.items: list = []
        self.size = 0
        self.spill = None  # a temporary file: the records before ``items``
        self.spilled = 0

    def __len__(self) -> int:
        return self.spilled + len(self.items)

    def add(self, head: str, tail: str) -> None:
        self.items.append((head, tail))
        self.size += len(head) + len(tail)
        if self.size > self.limit:
            self._spill()

    def _spill(self) -> None:
        if self.spill is None:
            self.spill = tempfile.TemporaryFile()
        write = self.spill.write
        for head, tail in self.items:
            h, t = head.encode(), tail.encode()
            write(len(h).to_bytes(4, "little") + len(t).to_bytes(4, "little") + h + t)
        self.spilled += len(self.items)
        self.items = []
        self.size = 0

    def drain(self):
        """The records in order, ``(head, tail, last)``; empties the buffer."""
        total = len(self)
        n = 0
        if self.spill is not None:
            spill, self.spill = self.spill, None
            spill.seek(0)
            read = spill.read
            for _ in range(self.spilled):
                sizes = read(8)
                h = int.from_bytes(sizes[:4], "little")
                t = int.from_bytes(sizes[4:], "little")
                data = read(h + t)
                n += 1
                yield data[:h].decode(), data[h:].decode(), n == total
            spill.close()
        items, self.items, self.size, self.spilled = self.items, [], 0, 0
        for head, tail in items:
            n += 1
            yield head, tail, n == total


class Held:
    """Python objects kept in order until a transaction ends: in memory up to ``limit`` of
    them, then pickled (in chunks of ``limit``) to a temporary file that is deleted when
    drained; memory stays bounded whatever the size of the transaction."""

    def __init__(self, limit: int = 10_000):
        self.limit = max(1, limit)
        self.items: list = []
        self.spill = None     # a temporary file: pickled chunks, the objects before ``items``
        self.chunks = 0
        self.spilled = 0

    def __len__(self) -> int:
        return self.spilled + len(self.items)

    def add(self, item) -> None:
        self.items.append(item)
        if len(self.items) >= self.limit:
            if self.spill is None:
                self.spill = tempfile.TemporaryFile()
            pickle.dump(self.items, self.spill, pickle.HIGHEST_PROTOCOL)
            self.chunks += 1
            self.spilled += len(self.items)
            self.items = []

    def drain(self):
        """The objects in order; empties the buffer."""
        spill, chunks, items = self.spill, self.chunks, self.items
        self.spill, self.chunks, self.spilled, self.items = None, 0, 0, []
        if spill is not None:
            try:
                spill.seek(0)
                for _ in range(chunks):
                    yield from pickle.load(spill)
            finally:
                spill.close()
        yield from items


class HeldRecords:
    """Event records kept in order until their transaction is decided (``select_events``):
    in memory up to ``limit`` bytes of them, the rest spilled (offset, bytes and context) to
    a temporary file, deleted when drained; a spilled record comes back lazy, as it was read
    (parsed again when its value is asked). Records with inner events or skipped ranges are
    not for it."""

    def __init__(self, limit: int = 8 << 20):
        self.limit = limit
        self.items: list = []
        self.size = 0
        self.spill = None     # a temporary file: pickled chunks, the records before ``items``
        self.chunks = 0
        self.spilled = 0
        self.contexts: dict = {}   # id -> the context of spilled records

    def __len__(self) -> int:
        return self.spilled + len(self.items)

    def add(self, rec) -> None:
        self.items.append(rec)
        self.size += len(rec.raw)
        if self.size > self.limit:
            if self.spill is None:
                self.spill = tempfile.TemporaryFile()
            chunk = []
            for r in self.items:
                self.contexts.setdefault(id(r.ctx), r.ctx)
                chunk.append((r.offset, bytes(r.raw), id(r.ctx), r.parent_offset))
            pickle.dump(chunk, self.spill, pickle.HIGHEST_PROTOCOL)
            self.chunks += 1
            self.spilled += len(self.items)
            self.items, self.size = [], 0

    def drain(self):
        """The records in order; empties the buffer."""
        from ..format.stream import EventRecord
        spill, chunks, items, contexts = self.spill, self.chunks, self.items, self.contexts
        self.spill, self.chunks, self.spilled, self.items, self.size = None, 0, 0, [], 0
        self.contexts = {}
        if spill is not None:
            try:
                spill.seek(0)
                for _ in range(chunks):
                    for offset, raw, ctx, parent in pickle.load(spill):
                        yield EventRecord(offset, raw, contexts[ctx], parent_offset=parent,
                                          lazy=True)
            finally:
                spill.close()
        yield from items

    def clear(self) -> None:
        """Drop the records."""
        if self.spill is not None:
            self.spill.close()
        self.spill, self.chunks, self.spilled, self.items, self.size = None, 0, 0, [], 0
        self.contexts = {}


def transaction_events(records, decoder, on_error=None, note=None):
    """Follow a stream of event records (:class:`BinlogReader`'s; the events inside payloads
    too) with a row decoder (:class:`~binlog_schema.changes.row_change.RowDecoder`: table maps,
    GTIDs, the schema history's DDL) and a :class:`Transactions`. Yields, in stream order,
    ``(rec, rows, table_map, tx, offset, payload)`` for each rows event whose rows decode
    (``tx``: its :class:`Transaction`, whose ``rows`` the caller counts; ``offset``, the event's
    offset in the file or its payload's; ``payload``, its offset inside the payload, else 0),
    and ``(None, None, None, tx, None, None)`` for each transaction with rows that ends
    (committed, or not: a transaction whose end is not in the stream, or one cut by the next
    one's start). A record with an error: ``on_error(record)``, else the error is raised. A
    rows event whose rows cannot be decoded (an image that does not fit its TABLE_MAP, no
    TABLE_MAP before it: a read that starts inside a transaction) is passed over when it was
    reported, by the decoder's ``on_undecoded`` or through ``note(text)``; else its
    :class:`~binlog_schema.format.errors.RowsError` is raised."""
    from ..format.errors import BinlogError
    from ..format.facts.codes import ROWS_KINDS
    state = decoder.state_kinds  # (table maps, GTIDs, QUERYs: the schema history's DDL)
    tx = Transactions()
    for rec in records:
        for r in (rec,) if rec.inner is None else (rec, *rec.inner):
            if r.error is not None or r.gap is not None:
                if on_error is None:
                    raise r.error
                on_error(r)
                continue
            kind = r.kind
            if r.parent_offset is None:
                offset, payload = r.offset, 0
            else:
                offset, payload = r.parent_offset, r.offset
            if kind in ROWS_KINDS:
                if r.value is None:
                    continue
                try:
                    rows, tm = decoder.rows_of(r)
                except BinlogError as e:
                    if note is not None:
                        note(f"{decoder.file}: {e}")
                    elif decoder.on_undecoded is None:
                        raise
                    continue
                yield r, rows, tm, tx.open if tx.open is not None else \
                    tx.current(offset, event_time(r)), offset, payload
                continue
            if kind in state:
                decoder.feed_one(r)
            if kind in BOUNDARY_KINDS:
                ended = tx.feed(r, offset)
                if ended is not None and ended.rows:
                    yield None, None, None, ended, None, None
    ended = tx.close()
    if ended is not None and ended.rows:
        yield None, None, None, ended, None, None


@record
class ChangeRecord(RowChange):
    """One row change with its place (:func:`change_records`): the fields of a
    :class:`~binlog_schema.changes.row_change.RowChange` (its ``gtid`` the transaction's, its
    ``offset`` a payload's for the events inside one), then the order key and the
    transaction's."""
    order_key: str = ""             # see order_key(): compare as strings to order changes
    begin: int = 0                  # offset of the transaction's first event (GTID, BEGIN)
    transaction_id: str = ""        # the GTID, else "FILE:BEGIN" (Debezium's transaction.id)
    thread_id: int | None = None    # the thread of the transaction's BEGIN
    xid: int | None = None          # the commit's XID (None: a COMMIT query, or not seen)
    commit_timestamp: int | None = None  # the commit event's time (seconds; None: not seen)
    commit_us: int | None = None    # the GTID event's original commit time (MySQL 8.0.1+)
    schema_version: int | None = None  # the table's version in the schema history
    committed: bool | None = False  # its transaction's end was seen (None: not waited for)


def change_records(source, schema=None, *, file_index: int = 0, on_error=None, note=None,
                   limit: int = 10_000, wait: bool = True):
    """The row changes of one binlog file as :class:`ChangeRecord` objects, in file order:
    what ``decode --format maxwell`` / ``debezium`` write, as Python values (the
    :class:`RowChange`'s images, typed and lossless).

    ``source``: a path, or a :class:`~binlog_schema.format.stream.BinlogReader` (its records; the
    file's name from the reader's path). ``schema``: a
    :class:`~binlog_schema.changes.schema.SchemaHistory` at the start of the file (column names for
    MINIMAL metadata, ``schema_version``), ``file_index`` its place among the history's files.
    ``on_error(record)``: called for a record with an error (a reader with
    ``skip_errors=True``), else the error is raised. A rows event whose rows cannot be decoded
    (an image that does not fit its TABLE_MAP, no TABLE_MAP before it) raises its
    :class:`~binlog_schema.format.errors.RowsError` (file, offset, table, column, reason), unless
    ``note(text)`` is given: then it is said there and passed over. A file whose last event
    is cut short raises :class:`~binlog_schema.format.errors.TruncatedError` after the records
    before it (a reader with ``skip_errors=True`` hands it to ``on_error`` as a SKIPPED range).

    A transaction's records are yielded when its end is seen, with its ``xid``,
    ``commit_timestamp`` and ``committed=True`` (a transaction whose end is not in the file:
    ``committed=False``, no XID). They wait in memory up to ``limit`` records, the rest
    pickled to a temporary file: memory stays bounded. ``wait=False``: each record is yielded
    at once, with ``committed=None`` and no ``xid``/``commit_timestamp`` (nothing kept)."""
    from .row_change import RowDecoder
    from ..format.stream import BinlogReader
    if isinstance(source, BinlogReader):
        reader = source
        path = str(getattr(reader.source, "name", reader.source))
    else:
        path = str(source)
        reader = BinlogReader(path, decode="lazy")
    decoder = RowDecoder(path, schema=schema, file_index=file_index)
    name = os.path.basename(path)
    sequence = file_sequence(path)
    held = Held(limit) if wait else None
    holding = None   # the transaction whose records ``held`` has
    for rec, rows, tm, tx, offset, payload in transaction_events(reader, decoder, on_error,
                                                                  note):
        if rec is None:
            if tx is holding:
                holding = None
                committed = tx.committed
                for c in held.drain():
                    c.xid, c.commit_timestamp, c.committed = \
                        tx.xid, tx.commit_timestamp, committed
                    yield c
            continue
        if held is not None and tx is not holding:
            if holding is not None:
                yield from held.drain()
            holding = tx
        version = decoder.schema_version(tm) if schema is not None else None
        tid = tx.gtid if tx.gtid is not None else f"{name}:{tx.begin}"
        for ch in decoder.changes_of(rec, rows, tm):
            tx.count(tm.database, tm.table)
            c = ChangeRecord(
                ch.database, ch.table, ch.operation, ch.row_index, ch.before, ch.after,
                ch.offset, tx.gtid, ch.timestamp, ch.file, ch.signedness_known, ch.columns,
                ch.primary_key, order_key(sequence, offset, payload, ch.row_index), tx.begin,
                tid, tx.thread_id, None, None, tx.commit_us, version,
                False if held is not None else None)
            if held is None:
                yield c
            else:
                held.add(c)
    if held is not None:
        yield from held.drain()
    if reader.tail is not None and not reader.skip_errors:   # (a file cut short)
        from ..format.errors import TruncatedError
        err = TruncatedError(f"truncated last event at {reader.tail.offset}: the file is cut, "
                             "the changes after it are not in it", offset=reader.tail.offset,
                             path="event")
        err.file = path
        raise err


__all__ = ["BOUNDARY_KINDS", "event_time", "ORDER_KEY_FIELDS", "ChangeRecord", "Held", "Pending",
           "Transaction", "Transactions", "change_records", "file_sequence", "gtid_of", "order_key",
           "order_key_fields", "transaction_events", "Boundary", "gtid_standalone", "record_role",
           "OUTSIDE", "OPENS", "INSIDE", "CLOSES", "ALONE", "HeldRecords"]

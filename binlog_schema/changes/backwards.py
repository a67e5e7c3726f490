"""Binlog files read backwards, transaction by transaction, in memory that does not grow with
the files: what a flashback needs (the last change is undone first).

Two passes. :func:`index_files` reads the files forward once, without decoding rows, and
keeps, per file, the offsets of the events of each selected transaction (its begin events,
table maps, rows events, payloads, commit) in flat arrays (:class:`FileIndex`: a few bytes
per event). :func:`transactions_backwards` then walks the index from the end and yields each
transaction as a :class:`BackTransaction`, whose statements come last first and whose rows
events come last first, read from the file a batch at a time: a transaction of a million
rows events is never held whole.

What cannot be undone is found by the first pass, before anything is written: a schema
change (DDL) inside the range ends the range before it (:attr:`Index.stopped`: the caller
says so); a statement-based change (a QUERY that changes rows) in a selected transaction,
an INCIDENT, a file cut inside a transaction are :class:`~.flashback.FlashbackError`.
"""

from __future__ import annotations

import re
from array import array

from ..format.errors import BinlogError
from ..format.facts.codes import (GTID_KINDS, INCIDENT_EVENT, QUERY_EVENT, ROWS_KINDS,
                           TABLE_MAP_EVENT, TRANSACTION_PAYLOAD_EVENT, XA_PREPARE_LOG_EVENT,
                           XID_EVENT)
from ..format.facts.framing import HEADER_SIZE
from ..format.facts.post_header import table_id_of
from ..format.records import factory, record
from ..format.values.rows import operation_of
from .flashback import FlashbackError
from .row_change import gtid_of, is_schema_statement, is_statement_dml, query_verb
from .statements import BEGINS, statement_head
from .transactions import Transactions, event_time, record_role

# what an indexed event is to its transaction
BEGIN, MAP, ROWS, PAYLOAD, END = 1, 2, 3, 4, 5

# rows events read from a file at a time, when a statement's are walked backwards
BATCH = 512


@record
class FileIndex:
    """The selected transactions of one file: ``offsets[i]`` / ``roles[i]`` the events (in
    file order), ``bounds`` the (first, end) index pairs of each transaction, ``contexts``
    the context each transaction was read in."""
    path: str
    index: int = 0                                     # the file's place among the inputs
    offsets: array = factory(lambda: array("q"))
    roles: bytearray = factory(bytearray)
    bounds: array = factory(lambda: array("q"))        # first, end, first, end...
    contexts: list = factory(list)

    @property
    def transactions(self) -> int:
        return len(self.bounds) // 2


@record
class Index:
    files: list = factory(list)            # FileIndex per input file, in input order
    stopped: tuple | None = None           # (path, offset, statement head) of the DDL


# schema changes that change or remove tables that hold rows (not CREATE TABLE: a new table
# holds no row changed before it; not users, views, routines, indexes)
_TABLE_DDL = re.compile(
    r"(?:ALTER\s+(?:ONLINE\s+|IGNORE\s+)*TABLE|DROP\s+(?:TEMPORARY\s+)?TABLE|"
    r"RENAME\s+TABLES?|TRUNCATE|DROP\s+(?:DATABASE|SCHEMA)|"
    r"CREATE\s+OR\s+REPLACE\s+(?:TEMPORARY\s+)?TABLE)\b", re.I)


def changes_tables(query) -> bool:
    """Whether a schema statement may change or remove tables holding rows (which ends a
    flashback's range)."""
    if query is None:
        return True
    text = query if isinstance(query, str) else bytes(query).decode("utf-8", "replace")
    return _TABLE_DDL.match(statement_head(text, 64)) is not None


def index_files(paths, selection, *, start=None, stop=None, decoder=None,
                stop_at_ddl: bool = True, watch=None) -> Index:
    """The first pass: the selected transactions of ``paths`` (``start``/``stop``: byte
    positions in the first / last file). ``decoder``, a
    :class:`~binlog_schema.changes.row_change.RowDecoder` with a schema history: the schema
    changes before the range are replayed into it (so it is the schema in force in the
    range). ``stop_at_ddl`` False: a schema change does not end the range (it is passed
    over; for reading, not for inverting). ``watch``: wraps each file's records (a
    progress line's). Raises :class:`~.flashback.FlashbackError`; reading errors
    are the reader's typed errors."""
    from ..format.stream import BinlogReader
    out = Index()
    last = len(paths) - 1
    for n, path in enumerate(paths):
        fi = FileIndex(str(path), n)
        out.files.append(fi)
        first_start = start if n == 0 else None
        reader = BinlogReader(path, decode="lazy", stop=stop if n == last else None)
        try:
            if _index_file(reader if watch is None else watch(reader), fi, out, selection,
                           first_start, decoder, stop_at_ddl, tail=reader):
                break
        except BinlogError as e:
            if getattr(e, "file", None) is None:
                e.file = str(path)
            raise
    return out


def _index_file(reader, fi: FileIndex, out: Index, selection, start, decoder,
                stop_at_ddl, tail=None) -> bool:
    """Index one file (``reader``: its records; ``tail``: its reader, when ``reader`` is its
    records wrapped); True when a DDL ended the range."""
    offsets, roles, bounds = fi.offsets, fi.roles, fi.bounds
    txs = Transactions()
    open_tx = None        # the Transaction being indexed
    first = 0             # its first event's place in offsets
    wanted = False        # it has a selected rows event
    maps: dict = {}       # table id -> selected? (this transaction's table maps)
    statement_dml = None  # (offset, verb) of a statement-based change in it
    by_table = selection.filters_tables
    ctx = None
    path = fi.path

    def close(tx, committed_by_end: bool):
        nonlocal wanted, statement_dml
        keep = wanted and selection.transaction(tx.gtid, tx.thread_id, tx.timestamp)
        if keep and statement_dml is not None:
            at, verb = statement_dml
            raise FlashbackError(
                f"a statement-based change ({verb.upper()} as a QUERY event) in the "
                f"transaction at {tx.begin}: its rows are not in the binlog, it cannot be "
                "inverted (select around it with --start-position/--stop-position, --gtid or "
                "--table)", offset=at, path="query", file=path)
        if keep and not committed_by_end:
            raise FlashbackError(
                f"the transaction at {tx.begin} does not end in this file (a file cut inside "
                "it, or a read that stops inside it): its changes may be incomplete, it is "
                "not inverted", offset=tx.begin, path="transaction", file=path)
        if keep:
            bounds.append(first)
            bounds.append(len(offsets))
            fi.contexts.append(ctx)
        else:
            del offsets[first:]
            del roles[first:]
        wanted, statement_dml = False, None
        maps.clear()

    def begin(tx, rec):
        nonlocal open_tx, first, ctx
        if open_tx is not None:
            close(open_tx, False)
        open_tx, first, ctx = tx, len(offsets), rec.ctx

    for rec in reader:   # (lazy records: an event is parsed only when its value is asked)
        at = rec.offset
        kind = rec.kind
        if start is not None and at < start:
            # (schema changes before the range are the history's; nothing is indexed)
            if decoder is not None and kind == QUERY_EVENT:
                decoder.feed_one(rec)
            continue
        inner = rec.inner if kind == TRANSACTION_PAYLOAD_EVENT else None
        if inner is not None:   # (MySQL's compressed transaction: read whole in pass two)
            if open_tx is None:
                begin(txs.current(at, event_time(rec)), rec)
            offsets.append(at)
            roles.append(PAYLOAD)
        for r in (rec,) if inner is None else inner:
            k = r.kind
            if k == QUERY_EVENT:
                verb = query_verb(r, False)
                if verb is None:
                    verb = query_verb(r)
                    if verb is None and r.error is not None:   # (a QUERY that cannot be read)
                        raise r.error
                if is_schema_statement(verb):
                    body = r.value["body"]
                    if stop_at_ddl and changes_tables(body.get("query")) and \
                            selection.database(body.get("database") or None):
                        if open_tx is not None:
                            close(open_tx, True)
                        out.stopped = (path, at, " ".join(str(body.get("query")).split())[:80])
                        return True
                    if decoder is not None:   # (CREATE TABLE...: the history learns it)
                        decoder.feed_one(r)
                    continue
                if is_statement_dml(verb):
                    body = r.value["body"] if r.value is not None else {}
                    if statement_dml is None and selection.database(body.get("database")
                                                                    or None):
                        statement_dml = (at, verb)
                    continue
            if k in GTID_KINDS or k == QUERY_EVENT or k == XID_EVENT or \
                    k == XA_PREPARE_LOG_EVENT:
                ended = txs.feed(r, at)
                if ended is not None and ended is open_tx and wanted and \
                        k == QUERY_EVENT and query_verb(r, False) == "rollback" and \
                        selection.transaction(ended.gtid, ended.thread_id, ended.timestamp):
                    raise FlashbackError(
                        f"the transaction at {ended.begin} ends with a ROLLBACK: the server "
                        "rolled back changes whose rows events are in the binlog (tables "
                        "that are not transactional); which changes took effect cannot be "
                        "known", offset=at, path="query", file=path)
                if ended is not None and ended is open_tx:
                    if ended.committed and inner is None:
                        offsets.append(at)
                        roles.append(END)
                    close(open_tx, ended.committed)
                    open_tx = None
                now = txs.open
                if now is not None and now is not open_tx:
                    begin(now, rec)
                if now is not None and inner is None:
                    offsets.append(at)
                    roles.append(BEGIN)
                continue
            if k == TABLE_MAP_EVENT:
                if open_tx is None:
                    begin(txs.current(at, event_time(r)), rec)
                if by_table:   # (the names are read only when a filter asks for them)
                    if r.value is None:
                        raise r.error
                    body = r.value["body"]
                    maps[body["table_id"]] = selection.table(body.get("database"),
                                                             body.get("table"))
                else:
                    maps[table_id_of(r.raw, r.ctx)] = True
                if inner is None:
                    offsets.append(at)
                    roles.append(MAP)
                continue
            if k in ROWS_KINDS:
                if open_tx is None:
                    begin(txs.current(at, event_time(r)), rec)
                if maps.get(table_id_of(r.raw, r.ctx)) and selection.operation(operation_of(k)):
                    wanted = True
                    if inner is None:
                        offsets.append(at)
                        roles.append(ROWS)
                continue
            if k == INCIDENT_EVENT:
                raise FlashbackError(
                    "an INCIDENT event: the server says changes may be missing from the "
                    "binlog here; nothing after it can be trusted to invert", offset=at,
                    path="incident", file=path)
    if open_tx is not None:
        close(open_tx, False)
    cut = (tail if tail is not None else reader).tail
    if cut is not None:
        raise FlashbackError(f"truncated last event at {cut.offset}: the file is "
                               "cut, its last transaction cannot be trusted",
                               offset=cut.offset, path="event", file=path)
    return False


# ------------------------------------------------------------------------ the second pass


@record
class BackStatement:
    """One statement of a transaction read backwards: its table maps (records, in file
    order) and its rows events, last first (:meth:`rows`)."""
    tx: BackTransaction
    maps: list
    rows_at: list          # its rows events (offsets; records for a payload's), file order

    def rows(self):
        """The statement's rows event records, last first, read a batch at a time."""
        offs = self.rows_at
        if offs and not isinstance(offs[0], int):
            yield from reversed(offs)
            return
        end = len(offs)
        while end > 0:
            begin = max(0, end - BATCH)
            want = set(offs[begin:end])
            got = [r for r in self.tx.read(offs[begin], offs[end - 1]) if r.offset in want]
            yield from reversed(got)
            end = begin


@record
class BackTransaction:
    """A selected transaction: ``head`` its begin events (GTID, BEGIN), ``end`` its commit
    event, where it began; its statements last first (:meth:`statements`). A small
    transaction is read once and kept (``cache``); a large one is read a statement and a
    batch of rows events at a time. A MySQL compressed transaction (TRANSACTION_PAYLOAD) is
    read whole: its events are its payload's (``inner``)."""
    path: str
    file_index: int
    ctx: object
    begin: int
    entries: list          # (offset, role) of its maps and rows events
    head: list = factory(list)
    end: object = None
    inner: list | None = None
    cache: list | None = None
    source: object = None  # the file, open (transactions_backwards' one for the file), or None

    @property
    def gtid(self) -> str | None:
        for r in self.head:
            g = gtid_of(r)
            if g is not None:
                return g
        return None

    @property
    def thread_id(self) -> int | None:
        for r in self.head:
            if r.kind == QUERY_EVENT:
                return int.from_bytes(r.raw[HEADER_SIZE:HEADER_SIZE + 4], "little")
        return None

    @property
    def rows_count(self) -> int:
        """Its rows events."""
        if self.inner is not None:
            return sum(1 for r in self.inner if r.kind in ROWS_KINDS)
        return sum(1 for _, role in self.entries if role == ROWS)

    @property
    def timestamp(self) -> int:
        return event_time(self.head[0]) if self.head else 0

    def read(self, first: int, last: int) -> list:
        """The records from the event at ``first`` to the one at ``last``."""
        if self.cache is not None:
            return [r for r in self.cache if first <= r.offset <= last]
        from ..format.stream import BinlogReader
        out = []
        for rec in BinlogReader(self.source or self.path, resume=(first, self.ctx),
                                stop=last + 1, decode="lazy"):
            out.append(rec)   # (parsed when its value is asked: a bad one is refused then)
        return out

    def statements(self):
        """The transaction's statements, last first (:class:`BackStatement`)."""
        if self.inner is not None:
            entries = [(r, ROWS if r.kind in ROWS_KINDS else MAP) for r in self.inner
                       if r.kind in ROWS_KINDS or r.kind == TABLE_MAP_EVENT]
            for maps, rows in reversed(_statements(entries)):
                yield BackStatement(self, maps, rows)
            return
        for maps, rows in reversed(_statements(self.entries)):
            read = self.read(maps[0], maps[-1]) if maps else []
            yield BackStatement(self, [r for r in read if r.kind == TABLE_MAP_EVENT], rows)


def _statements(entries) -> list:
    """(maps, rows) per statement: a statement's table maps come before its rows events, so
    a table map after a rows event begins the next one."""
    groups, maps, rows = [], [], []
    for item, role in entries:
        if role == MAP:
            if rows:
                groups.append((maps, rows))
                maps, rows = [], []
            maps.append(item)
        elif role == ROWS:
            rows.append(item)
    if rows:
        groups.append((maps, rows))
    return groups


def transactions_backwards(index: Index):
    """The second pass: the indexed transactions, last first (the files last first too),
    as :class:`BackTransaction` objects."""
    for fi in reversed(index.files):
        with open(fi.path, "rb", buffering=0) as source:   # (one open a file, not a read)
            for t in range(fi.transactions - 1, -1, -1):
                yield back_transaction(fi, t, source)


def back_transaction(fi: FileIndex, t: int, source=None) -> BackTransaction:
    """The transaction ``t`` (its place in the file, from 0) of an indexed file, as a
    :class:`BackTransaction` (its events read now when it is small), read from ``source``
    (the file, open: one open for the transactions read one after the other) or its path."""
    offsets, roles, bounds = fi.offsets, fi.roles, fi.bounds
    first, end = bounds[2 * t], bounds[2 * t + 1]
    places = range(first, end)
    entries = [(offsets[i], roles[i]) for i in places if roles[i] in (MAP, ROWS)]
    heads = [offsets[i] for i in places if roles[i] == BEGIN]
    ends = [offsets[i] for i in places if roles[i] == END]
    payloads = [offsets[i] for i in places if roles[i] == PAYLOAD]
    tx = BackTransaction(fi.path, fi.index, fi.contexts[t], offsets[first], entries,
                         source=source)
    if payloads or end - first <= 2 * BATCH:   # small: read once
        tx.cache = tx.read(offsets[first], offsets[end - 1])
        by = {r.offset: r for r in tx.cache}
        tx.head = [by[o] for o in heads]
        tx.end = by[ends[-1]] if ends else None
        if payloads:
            tx.inner = [r for o in payloads for r in by[o].inner or ()]
            tx.head += [r for r in tx.inner if r.kind == QUERY_EVENT
                        and record_role(r) is BEGINS]
            ends_in = [r for r in tx.inner if r.kind == XID_EVENT]
            tx.end = tx.end or (ends_in[-1] if ends_in else None)
    else:
        tx.head = [r for o in heads for r in tx.read(o, o)]
        tx.end = tx.read(ends[-1], ends[-1])[0] if ends else None
    return tx


__all__ = ["BATCH", "BackStatement", "BackTransaction", "FileIndex", "back_transaction",
           "Index", "index_files", "transactions_backwards"]

"""Decoding a split into the rows of the output tables (:func:`decode_split`,
:func:`decode_group`): its records read (:func:`~.reading.split_records`), events parsed
(:class:`~.event_parser.EventParser`), row changes decoded and their transactions followed,
into a sink (:class:`~.tuple_sink.TupleSink` or :class:`~.arrow_sink.ArrowSink`), then the
split's table-map shapes and its ``stat`` row.

Table maps are written per transaction, so a split at a transaction boundary is normally
self-contained. That is checked, not assumed: a rows event whose table id has no TABLE_MAP
earlier in the split makes the task scan the file's headers before the split and carry the
table maps in force at its start (counted in ``carried_table_maps``). The GTID in force at the
start is carried the same way (the last GTID event before the split).
"""

from __future__ import annotations

import hashlib
import json
import time

from ...format.event_codec import HEADER_SIZE, parse_event
from ...format.errors import BinlogError, TruncatedError
from ...format.facts.codes import (GTID_KINDS, QUERY_KINDS, ROWS_KINDS, STATEMENT_KINDS,
                            TABLE_MAP_EVENT, XID_EVENT, type_name)
from ...format.facts.flavor import checksum_length
from ...format.facts.framing import SIZE_AT, SIZE_END, TYPE_AT
from ...format.context import Context
from ...changes.row_change import RowDecoder, gtid_of
from ...changes.statements import statement_role
from ...changes.transactions import (BOUNDARY_KINDS, CLOSES, OPENS, Boundary, Transactions,
                                   file_sequence, gtid_standalone)
from ...format.stream import EventRecord
from ..fsio import display_name, open_input
from .event_parser import EventParser
from .reading import split_records
from .spark_values import as_text, json_columns
from .split import Split
from .split_context import file_context, table_maps_before
from .tuple_sink import TupleSink

_FED_KINDS = ROWS_KINDS | GTID_KINDS | {TABLE_MAP_EVENT}   # what the row decoder follows


def _str_list(xs):
    return None if xs is None else [as_text(x) for x in xs]


def shape_of(tm) -> tuple:
    """(shape id, table-map row without first-seen fields) for a typed table map: the shape
    is everything but the table id and the event header."""
    d = tm.to_dict()
    key = json.dumps({k: d.get(k) for k in ("database", "table", "columns", "row_metadata",
                                            "primary_key", "flags", "flavor", "layout")},
                     sort_keys=True, default=str)
    shape = hashlib.sha1(key.encode()).hexdigest()[:16]
    cols = [(c.index, as_text(c.name), as_text(c.type), as_text(c.real_type), c.nullable,
             c.unsigned, c.collation_id, c.max_length, c.precision, c.scale, c.fsp, c.bits,
             c.pack_length, as_text(c.element_type), _str_list(c.enum_values),
             _str_list(c.set_values), c.geometry_type, c.visible, c.vector_dimensions,
             c.metadata_hex) for c in tm.columns]
    pk = None if tm.primary_key is None else [(p["column"], p.get("prefix") or 0)
                                              for p in tm.primary_key]
    return shape, (as_text(tm.database), as_text(tm.table), shape, tm.table_id,
                   tm.server_version, tm.flavor, tm.row_metadata,
                   [as_text(x) for x in tm.flags], pk, cols)


class _SplitState:
    def __init__(self, split: Split, name: str):
        self.split = split
        self.name = name
        self.read = self.decoded = self.quarantined = 0
        self.rows = self.rows_failed = self.carried = self.errors = 0
        self.bytes_decoded = self.bytes_skipped = 0
        self.shapes: dict = {}        # shape id -> [first offset, first ts, count, row]
        self.shape_cache: dict = {}   # TABLE_MAP body bytes -> shape id + row
        self.gtid = None              # GTID of the current transaction (events table)
        self.txn = None               # offset of the event that started it
        self.open = False             # inside a transaction
        self.boundary = Boundary()    # (the one rule's state: changes/transactions.py)
        self.statements = 0           # statement-based changes (QUERY events: not rows)


def _error_row(st, offset, stage, err=None, *, kind=None, message=None, rec=None,
               in_payload_at=None, size=None):
    st.errors += 1
    if size is None and rec is not None:
        size = len(rec.raw)
    named = rec is not None and (len(rec.raw) > 4 or rec.gap is not None)
    return (st.name, offset, in_payload_at, stage, kind or (err.kind if err else "error"),
            err.path if err is not None else None,
            message if message is not None else (err.message if err is not None else None),
            err.expected if err is not None else None,
            rec.type_name if named else None,
            rec.type_code if rec is not None and len(rec.raw) > 4 else None,
            size)


def decode_split(split: Split, rows: bool = True, sink=None, schema=None):
    """Decode one split into ``sink`` (default: a :class:`TupleSink`), yielding what the sink
    has made as it goes: output rows or record batches, then the split's table-map shapes and
    one ``stat`` row: events read, decoded and quarantined, rows, wall and CPU seconds, peak
    memory of the worker process, bytes decoded and skipped, statement-based changes.
    ``schema``: a :class:`~binlog_schema.pipeline.tasks.history.SchemaPlan` (the rows of table
    maps without names named from the schema history at the split's start)."""
    t0, c0 = time.perf_counter(), time.process_time()
    sink = TupleSink() if sink is None else sink
    name = display_name(split.uri)
    st = _SplitState(split, name)
    try:
        yield from _decode(split, st, rows, sink, schema)
    except Exception as e:  # noqa: BLE001 - a bug must not fail the job: quarantine it
        sink.error(_error_row(st, split.start, "split", kind="internal",
                              message=f"{type(e).__name__}: {e}"))
    for _shape, (off, ts, count, row) in st.shapes.items():
        sink.table_map(row + (name, off, ts, count))
    sink.stat((name, split.size, split.index, split.start, split.end, st.read, st.decoded,
               st.quarantined, st.rows, st.rows_failed, len(st.shapes), st.carried, st.errors,
               time.perf_counter() - t0, time.process_time() - c0, _max_rss_kib(),
               st.bytes_decoded, st.bytes_skipped, st.statements))
    yield from sink.take()


def decode_group(group, rows: bool = True, sink=None, schema=None):
    """:func:`decode_split` over the splits of one task, into one sink; what it made last
    (batches not yet full) when the sink is closed."""
    sink = TupleSink() if sink is None else sink
    for split in group:
        yield from decode_split(split, rows, sink, schema)
    yield from sink.close()


def _max_rss_kib() -> int | None:
    try:
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    except (ImportError, OSError):
        return None


def _decode(split: Split, st: _SplitState, want_rows: bool, sink, schema=None):
    if split.problem is not None:
        sink.error(_error_row(st, 0, "input", kind="io", message=split.problem))
        return
    try:
        f = open_input(split.uri)
    except OSError as e:
        sink.error(_error_row(st, 0, "file", kind="io", message=f"{type(e).__name__}: {e}"))
        return
    with f:
        yield from _decode_open(f, split, st, want_rows, sink, schema)


def _event_at(f, pos: int, ctx: Context) -> EventRecord | None:
    f.seek(pos)
    head = f.read(HEADER_SIZE)
    if len(head) < HEADER_SIZE:
        return None
    raw = head + f.read(int.from_bytes(head[SIZE_AT:SIZE_END], "little") - HEADER_SIZE)
    rec = EventRecord(pos, raw, ctx)
    try:
        rec.value = parse_event(raw, ctx, pos)
    except BinlogError:
        return None
    return rec


def _decode_open(f, split: Split, st: _SplitState, want_rows: bool, sink, schema=None):
    if schema is not None and want_rows:   # (the history in force at the split's start)
        index, history = schema.history_at(split.uri, split.start)
        decoder = RowDecoder(st.name, schema=history, file_index=index,
                             on_problem=lambda e: sink.error(_error_row(st, e.offset,
                                                                        "schema", e)))
    else:
        decoder = RowDecoder(st.name)
    parse = EventParser().parse
    ctx = None
    carried = None
    if split.start:
        ctx = file_context(f)
        if split.gtid_at is not None:
            rec = _event_at(f, split.gtid_at, ctx)
            g = gtid_of(rec) if rec is not None else None
            if g is not None:
                decoder.gtid = g
    event, error, rows_out = sink.event, sink.error, sink.rows
    fed = _FED_KINDS | decoder.state_kinds if want_rows else frozenset()
    # the transactions of the split (it starts at one's start): each change's XID and commit
    txs = Transactions()
    bounds = BOUNDARY_KINDS if want_rows else frozenset()
    sequence = file_sequence(split.uri)
    versions = decoder.schema_version if decoder.schema is not None else None
    ctx_of = None   # the context of the records, and how it names their kinds
    try:
        for rec in split_records(f, split, ctx, parse):
            err = rec.error
            if err is not None:
                st.read += 1
                st.quarantined += 1
                if rec.gap is not None:
                    start, end = rec.gap
                    st.bytes_skipped += end - start
                    error(_gap_row(st, split, rec, start, end, err))
                else:
                    st.bytes_skipped += len(rec.raw)
                    error(_error_row(st, rec.offset, "event", err, rec=rec))
                continue
            st.bytes_decoded += len(rec.raw)
            inner = rec.inner
            if inner is None:
                st.read += 1
                records = (rec,)
            else:
                st.read += 1 + len(inner)
                records = (rec, *inner)
            for r in records:
                if r is not rec:
                    r.parent_offset = rec.offset
                    parse(r)
                    if r.error is not None:
                        st.quarantined += 1
                        error(_error_row(st, r.offset, "event", r.error, rec=r,
                                         in_payload_at=rec.offset))
                        continue
                if r.ctx is not ctx_of:
                    ctx_of = r.ctx
                    remap = ctx_of.type_remap
                code = r.raw[TYPE_AT]
                kind = remap.get(code, code) if remap else code
                changes = ()
                if kind in fed and r.inner is None:
                    if split.start and kind in ROWS_KINDS and \
                            r.value["body"]["table_id"] not in decoder.table_maps:
                        if carried is None:
                            carried = table_maps_before(f, split.start, ctx)
                        m = carried.pop(r.value["body"]["table_id"], None)
                        if m is not None:
                            decoder.feed(m)
                            st.carried += 1
                    try:
                        changes = decoder.feed(r)
                    except BinlogError as e:
                        st.rows_failed += 1
                        error(_error_row(st, r.offset, "rows", e, rec=r,
                                         in_payload_at=None if r is rec else rec.offset))
                        changes = ()
                st.decoded += 1
                event(_event_row(st, r, kind, rec, decoder, len(changes)))
                if kind == TABLE_MAP_EVENT:
                    _note_shape(st, r, decoder)
                if changes:
                    st.rows += len(changes)
                    tm = decoder.table_maps.get(r.value["body"]["table_id"])
                    at = changes[0].offset
                    inner_at = r.offset if r.parent_offset is not None else None
                    tx = txs.current(at)
                    tx.rows += len(changes)
                    rows_out(st.name, r, changes,
                             json_columns(tm) if tm is not None else frozenset(),
                             at, inner_at, tx,
                             f"{sequence:010d}.{at:013d}.{inner_at or 0:010d}.",
                             versions(tm) if versions is not None and tm is not None
                             else None)
                elif kind in bounds:
                    ended = txs.feed(r, rec.offset)
                    if ended is not None and ended.rows:
                        sink.end(ended)
            if sink.pending:
                yield from sink.take()
    except BinlogError as e:      # not a binlog file: refused at the magic number
        error(_error_row(st, e.offset or 0, "file", e))
    ended = txs.close()   # (its end not in the split: no XID, no commit time)
    if ended is not None and ended.rows:
        sink.end(ended)
        if sink.pending:
            yield from sink.take()
    st.statements = decoder.statement_count


def _gap_row(st, split: Split, rec, start: int, end: int, err):
    """The ``errors`` row of a SKIPPED range: stage ``tail`` for a last event cut short (at
    the end of the file), else ``skipped``; ``size``, the range's."""
    stage = "tail" if isinstance(err, TruncatedError) and end >= split.size else "skipped"
    return _error_row(st, start, stage, err, rec=rec, size=end - start)


def _event_row(st, r, kind, top, decoder, nrows):
    """The ``events`` row of one event (schema.EVENTS order; ``kind``: its standard type
    code)."""
    v = r.value
    h = v["header"]
    body = v["body"]
    if type(body) is not dict:
        body = {}
    inner = r is not top
    offset = r.offset
    closes = follow_transaction(st, r, kind, body, top)
    gtid, txn = (st.gtid, st.txn) if st.open else (None, None)
    if closes:
        st.open = False
    table_id = database = table = query = xid = None
    if kind == TABLE_MAP_EVENT:
        table_id = body.get("table_id")
        database, table = as_text(body.get("database")), as_text(body.get("table"))
    elif kind in ROWS_KINDS:
        table_id = body.get("table_id")
        tm = decoder.table_maps.get(table_id)
        if tm is not None:
            database, table = as_text(tm.database), as_text(tm.table)
    elif kind in QUERY_KINDS:
        database = as_text(body.get("database"))
        query = as_text(body.get("query"))
    elif kind == XID_EVENT:
        xid = body.get("xid")
        if type(xid) is not int:
            xid = None
    flags = h.get("flags")
    raw = r.raw
    return (st.name, offset, top.offset if inner else None, h["timestamp"] * 1_000_000,
            type_name(kind), raw[TYPE_AT], h["server_id"], len(raw), h["log_pos"],
            [as_text(x) for x in flags] if flags else [], v.get("checksum"), gtid, txn, xid,
            table_id, database, table, query, nrows if kind in ROWS_KINDS else None)


def follow_transaction(st, r, kind, body, top) -> bool:
    """The transaction an event is in, as the ``events`` table tells it (``st``: ``gtid``,
    ``txn``, ``open``, and ``boundary``, the one rule's state: changes/transactions.py's
    :class:`Boundary`): a GTID, or a BEGIN outside one, opens it; XID, COMMIT, ROLLBACK,
    XA_PREPARE close it, as does the statement of a DDL group (a MySQL GTID followed by a
    statement rather than BEGIN; a MariaDB GTID flagged STANDALONE); a statement outside any
    transaction is in none. ``body``: the event's parsed body (a dict); ``top``: the event
    itself, or the payload that holds it. Returns whether the event closes the transaction
    (``st.open`` is then still true: the event belongs to it)."""
    if kind not in BOUNDARY_KINDS:
        return False
    b = st.boundary
    if kind in GTID_KINDS:
        step = b.step(kind, None, gtid_standalone(kind, body.get("flags2")))
    elif kind in STATEMENT_KINDS:
        q = body.get("query")
        step = b.step(kind, statement_role(q) if isinstance(q, str) else None)
    else:
        step = b.step(kind)
    if step == OPENS:
        if kind in GTID_KINDS:
            st.gtid = gtid_of(r)
            st.txn = r.offset if r is top else top.offset
        else:
            st.gtid, st.txn = None, r.offset
        st.open = True
    return step == CLOSES


def _note_shape(st, r, decoder):
    raw = r.raw
    key = raw[HEADER_SIZE:len(raw) - checksum_length(TABLE_MAP_EVENT, None, r.ctx)]
    hit = st.shape_cache.get(key)
    if hit is None:
        tm = decoder.table_maps.get(r.value["body"]["table_id"])
        if tm is None:
            from ...changes.table_map import table_map_from_event
            tm = table_map_from_event(r.value, r.ctx)
        hit = shape_of(tm)
        if len(st.shape_cache) > 4096:
            st.shape_cache.clear()
        st.shape_cache[key] = hit
    shape, row = hit
    seen = st.shapes.get(shape)
    if seen is None:
        st.shapes[shape] = [r.offset if r.parent_offset is None else r.parent_offset,
                            r.value["header"]["timestamp"] * 1_000_000, 1, row]
    else:
        seen[2] += 1

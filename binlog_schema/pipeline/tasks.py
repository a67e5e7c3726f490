"""What runs in a Spark task (plain Python, no pyspark import): the header-only pre-scan that
cuts a large file at transaction boundaries, and the decoding of one split into the rows of
the output tables.

A split is a byte range ``[start, end)`` of one file that starts at a confirmed event that
begins a transaction (GTID, ANONYMOUS_GTID, MariaDB GTID, or a ``BEGIN`` query outside a GTID
group). It is decoded by :class:`~binlog_schema.stream.BinlogReader` from its start, with the
context of the file's FORMAT_DESCRIPTION, up to its end (:func:`split_records`), so a task
reads only its range and holds one event at a time. Every byte is accounted for, as the
recovering reader accounts for a whole file: a split that meets damage resynchronises inside
its own range, and its records (events, quarantined events, skipped ranges) tile the range;
the splits of a file tile ``[4, size)``. Servers write the same TABLE_MAP before every
transaction on a table: a task parses each distinct TABLE_MAP body once (header and CRC32 of
every event are still checked).

Table maps are written per transaction, so a split at a transaction boundary is normally
self-contained. That is checked, not assumed: a rows event whose table id has no TABLE_MAP
earlier in the split makes the task scan the file's headers before the split and carry the
table maps in force at its start (counted in ``carried_table_maps``). The GTID in force at the
start is carried the same way (the last GTID event before the split).

Where the rows go is a *sink*: :class:`TupleSink` (here) makes one tagged tuple per row in
Spark's internal form (the ``spark`` engine sends them through the JVM);
:class:`binlog_schema.pipeline.columns.ArrowSink` builds Arrow record batches column by
column (the ``arrow`` engine writes them to Parquet). Both take a column value's ``Value``
fields from one definition, :func:`value_fields`.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import hashlib
import json
import time
from dataclasses import dataclass

from .. import envelope, scanning
from ..envelope import HEADER_SIZE, parse_event
from ..errors import BinlogError, FormatError, TruncatedError
from ..mysql.codes import (CONTEXT_KINDS, FORMAT_DESCRIPTION_EVENT, GTID_KINDS,
                           MARIA_GTID_EVENT, NAMED_GTID_KINDS, QUERY_EVENT, QUERY_KINDS,
                           ROWS_KINDS, START_ENCRYPTION_EVENT, STATEMENT_KINDS,
                           TABLE_MAP_EVENT, WRITTEN_KINDS, XID_EVENT, type_name)
from ..mysql.flavor import (checksum_length, checksummed, context_from_fde,
                            context_from_start_v3, json_is_binary)
from ..mysql.framing import LOG_POS_AT, LOG_POS_END, SIZE_AT, SIZE_END, TYPE_AT, event_parse
from ..mysql.post_header import MARIA_GTID_FLAGS2_AT, query_statement_at
from ..context import Context
from ..model.row_change import RowDecoder, column_names, gtid_of
from ..model.statements import statement_role
from ..model.transactions import (BOUNDARY_KINDS, CLOSES, OPENS, Boundary, Held,
                                  Transactions, file_sequence, gtid_standalone)
from ..serial.value_forms import jsonable
from ..stream import MAGIC, MAX_EVENT_SIZE, BinlogReader, EventRecord
from ..values import temporal
from ..values.codecs import Compressed, EnumValue, Geometry, SetValue
from .fsio import display_name, open_input

REAL_GTID_KINDS = NAMED_GTID_KINDS   # ANONYMOUS_GTID names no transaction
_FED_KINDS = ROWS_KINDS | GTID_KINDS | {TABLE_MAP_EVENT}   # what the row decoder follows
MAX_QUERY_PEEK = 512
MAX_SCAN = 64 << 20   # how far a resynchronisation looks (the reader's default)
_WRAP = 0xFFFFFFFF    # (log positions are 32-bit)
EVENT_WEIGHT = 200   # decoding an event costs about as much as 200 bytes of row data

# the tags of the unified output rows
EVENT, ROW, TABLE_MAP, ERROR, STAT = "event", "row", "table_map", "error", "stat"


@dataclass
class Split:
    """One task's share of a file."""

    uri: str
    size: int            # the file's size when it was listed
    index: int = 0       # position of the split in its file
    start: int = 0       # 0: from the magic on; else an event that starts a transaction
    end: int = 0
    ctx_end: int = 4     # end of the file's first event (the FORMAT_DESCRIPTION)
    gtid_at: int | None = None   # the last GTID event before ``start``
    problem: str | None = None   # an input the driver could not list (one error row)
    weight: int = 0      # estimated work: bytes + EVENT_WEIGHT per event (0: unknown)

    @property
    def length(self) -> int:
        return self.end - self.start

    @property
    def work(self) -> int:
        """The split's estimated cost (from the pre-scan, else from its size)."""
        return self.weight or max(2 * self.length, 1)


# ---------------------------------------------------------------------------------------
# pre-scan


def _query_text(raw: bytes, ctx: Context) -> bytes:
    """The statement of a QUERY event from its bytes (post-header, status variables and
    database skipped: :func:`~binlog_schema.mysql.post_header.query_statement_at`): enough to
    recognise BEGIN/COMMIT without decoding the event (which costs ten times as much); the
    CRC32's length flavor.py's rule."""
    body = raw[HEADER_SIZE:len(raw) - checksum_length(QUERY_EVENT, None, ctx)]
    at = query_statement_at(body, {"_params": {"ctx": ctx}}, QUERY_EVENT)
    return b"" if at is None else bytes(body[at:])


def _boundary_facts(blocks, pos: int, n: int, kind: int, ctx: Context) -> tuple:
    """``(role, standalone)`` of an event of ``BOUNDARY_KINDS`` for :meth:`Boundary.step`,
    from its bytes: a QUERY's statement role read from its first bytes (by the table's bytes
    regex; a QUERY longer than ``MAX_QUERY_PEEK`` or compressed is an ordinary statement: the
    ones that begin or end transactions are short); a MariaDB GTID's STANDALONE flag."""
    if kind == QUERY_EVENT:
        if n <= MAX_QUERY_PEEK:
            return statement_role(_query_text(blocks.at(pos, n), ctx)), False
        return None, False
    if kind == MARIA_GTID_EVENT:
        at = HEADER_SIZE + MARIA_GTID_FLAGS2_AT
        head = blocks.at(pos, min(n, at + 1))
        return None, gtid_standalone(kind, head[at] if len(head) > at else 0)
    return None, kind in GTID_KINDS and gtid_standalone(kind)


def _context_event(raw: bytes, ctx: Context, pos: int) -> Context:
    """The context a FORMAT_DESCRIPTION (or START_EVENT_V3) sets; a FormatError for one the
    reader cannot honour (as :class:`BinlogReader` says)."""
    value = parse_event(raw, ctx, pos)
    if ctx.kind(raw[TYPE_AT]) == FORMAT_DESCRIPTION_EVENT:
        body = value["body"]
        if body["binlog_version"] != 4 or body["header_length"] != HEADER_SIZE:
            raise FormatError("a FORMAT_DESCRIPTION this reader cannot honour", offset=pos,
                              path="body.header_length")
        return context_from_fde(body, ctx)
    return context_from_start_v3(value["body"], ctx)


class _SecondFile:
    """Where a second file starts (a magic number, then a confirmed FORMAT_DESCRIPTION:
    :func:`binlog_schema.scanning.second_file_at`), looked for in every block the pre-scan
    reads (:meth:`block`, its ``scanning.Blocks`` watch), and in the bytes between them that it
    passes over (read here, a block at a time): ``second`` (None while none was seen), and
    ``searched``, the offset below which every position was looked at."""

    def __init__(self, f, checks, size: int, ctx):
        self.f, self.checks, self.size, self.ctx = f, checks, size, ctx
        self.second = None
        self.searched = 4

    def block(self, buf, base: int):
        if self.second is not None or base + len(buf) - 3 <= self.searched:
            return
        if base > self.searched:   # (passed over: inside a large event, or block edges)
            q = self.searched
            while q < base and self.second is None:
                self.f.seek(q)
                self._find(self.f.read(min(scanning.Blocks.SIZE, base - q) + 3), q, 0)
                q += scanning.Blocks.SIZE
            if self.second is not None:
                return
        self._find(buf, base, max(self.searched - base, 0))

    def _find(self, buf, base: int, start: int):
        i = buf.find(MAGIC, start)
        while i >= 0:
            if scanning.second_file_at(self.checks, base + i, self.size, self.ctx,
                                       MAX_EVENT_SIZE):
                self.second = base + i
                return
            i = buf.find(MAGIC, i + 1)
        self.searched = max(self.searched, base + len(buf) - 3)


def prescan(uri: str, size: int, split_bytes: int) -> list:
    """The splits of one file: read every 19-byte header (the file in 1 MiB blocks; the
    bodies of short QUERY events are read to recognise BEGIN/COMMIT) and cut at the first
    transaction start after ``split_bytes`` of work since the previous cut (work: bytes plus
    ``EVENT_WEIGHT`` per event, as many small events cost more than one large one).

    A cut is made only where an event is *confirmed* (:func:`binlog_schema.scanning.event_at`:
    its CRC32 verifies, or its log position or the header after it vouches for its size), so
    every split starts where an event starts. Damage (a size out of bounds or past the end;
    without checksums, a size that neither its log position nor a plausible header after it
    vouches for) is passed by resynchronising as the recovering reader does (the next
    confirmed event); the split that holds the damage accounts for it. A file that is not a
    binlog, or whose first event is no confirmed FORMAT_DESCRIPTION, stays one split; after
    a second context event (relay logs), a second file's start (a magic number, then a
    confirmed FORMAT_DESCRIPTION, wherever it is: files concatenated, perhaps inside what
    reads as an event), encryption, or damage with no confirmed event after it, no more cuts
    are made (the rest of the file belongs to the last split). Without checksums the walk
    follows the sizes as the reader confirms them; with them it does not check each CRC32
    (only the cuts'): a cut is then where the reader finds an event too."""
    whole = [Split(uri, size, 0, 0, size)]
    if size <= split_bytes // 2:
        return whole
    try:
        f = open_input(uri)
    except OSError:
        return whole
    with f:
        if f.read(4) != MAGIC:
            return whole
        sblocks = scanning.Blocks(f)   # (confirmations and resynchronisation)
        ctx = Context(checksum=False)
        second = _SecondFile(f, sblocks, size, ctx)
        blocks = scanning.Blocks(f, watch=second.block)   # (the walk, and bodies read)
        remap = ctx.type_remap
        pos, ctx_end, contexts = 4, 4, 0
        cuts = []               # (offset, last GTID event before it, work before it)
        last_cut = 0
        events = 0
        boundary = Boundary()
        last_gtid = None
        done = False
        before = None   # (where the event walked last says the next starts: a proof)
        while not done and pos + HEADER_SIZE <= size:
            damaged = None
            for pos, code, n, _buf, _i in blocks.walk(pos, MAX_EVENT_SIZE, whole=False):
                kind = remap.get(code, code) if remap else code
                fits = pos + n <= size
                if not ctx.checksum:
                    head = _buf[_i:_i + HEADER_SIZE]
                    if fits and contexts and kind not in CONTEXT_KINDS and \
                            int.from_bytes(head[LOG_POS_AT:LOG_POS_END], "little") != \
                            (pos + n) & _WRAP:
                        # no checksums, no log position that is its end: the size must be
                        # vouched for as the reader's (scanning.confirmed) is
                        fits = scanning.vouched(blocks, pos, n, size, ctx, MAX_EVENT_SIZE,
                                                before)
                    before = scanning.log_next(head, n, ctx)
                if fits and contexts and not ctx.checksum and kind not in CONTEXT_KINDS and \
                        scanning.checksummed_fde_inside(blocks, pos, n, ctx) is not None:
                    fits = False   # (over a FORMAT_DESCRIPTION a CRC32 proves: none, as for
                    # the reader, scanning.confirmed)
                if not fits:
                    damaged = pos
                    break
                if second.second is not None and pos + n > second.second:
                    done = True
                    break   # (a file appended: what follows is read in another context)
                candidate = False
                if kind in CONTEXT_KINDS:
                    contexts += 1
                    if pos != 4:
                        if contexts == 1:
                            return whole
                        done = True
                        break   # a second context: later splits would need it
                    if scanning.event_at(sblocks, pos, size, ctx, MAX_EVENT_SIZE) != n:
                        return whole   # (not confirmed: the reader reads no context from it)
                    try:
                        ctx = _context_event(blocks.at(pos, n), ctx, pos)
                    except BinlogError:
                        return whole
                    remap = ctx.type_remap
                    ctx_end = pos + n
                    second.ctx = ctx
                elif not contexts:
                    return whole   # no FORMAT_DESCRIPTION first: one split, read as a whole
                elif kind in BOUNDARY_KINDS:   # (the one rule: model/transactions.py)
                    candidate = boundary.step(kind, *_boundary_facts(blocks, pos, n, kind,
                                                                     ctx)) == OPENS
                elif kind == START_ENCRYPTION_EVENT:
                    done = True
                    break   # (the headers after it are not read as such)
                if candidate and pos >= ctx_end and \
                        pos - last_cut + EVENT_WEIGHT * events >= split_bytes and \
                        scanning.event_at(sblocks, pos, size, ctx, MAX_EVENT_SIZE) == n:
                    cuts.append((pos, last_gtid, pos - last_cut + EVENT_WEIGHT * events))
                    last_cut = pos
                    events = 0
                events += 1
                if kind in REAL_GTID_KINDS:
                    last_gtid = pos
            else:
                if blocks.bad is None:
                    break   # (the end of the file, or a last event cut short)
                damaged = blocks.bad[0]
            if damaged is None:
                break
            if not contexts:
                return whole
            # damage: on from the next confirmed event, if any (transactions unknown)
            nxt = scanning.resync(sblocks, damaged + 1, size, ctx, MAX_EVENT_SIZE, MAX_SCAN)
            if nxt is None or scanning.second_file_at(sblocks, nxt, size, ctx, MAX_EVENT_SIZE):
                break
            events += 1
            pos, before = nxt, None
            boundary = Boundary()
    if not cuts:
        return whole
    starts = [0] + [c[0] for c in cuts]
    ends = starts[1:] + [size]
    gtids = [None] + [c[1] for c in cuts]
    works = [c[2] for c in cuts] + [size - last_cut + EVENT_WEIGHT * events]
    return [Split(uri, size, i, s, e, ctx_end if s else 4, g, weight=w)
            for i, (s, e, g, w) in enumerate(zip(starts, ends, gtids, works))]


# ---------------------------------------------------------------------------------------
# reading a split


class Clip:
    """A read-only view of a file's first ``end`` bytes: what a split's reader sees (it
    reads, seeks and resynchronises in the file's own offsets and finds the end of the file
    at the end of the split). The file may be moved by others between reads (the fallback
    scans): the view reads from its own position."""

    def __init__(self, f, end: int):
        self.f, self.end, self.pos = f, end, 0

    def read(self, n: int = -1) -> bytes:
        k = self.end - self.pos if n is None or n < 0 else min(n, self.end - self.pos)
        if k <= 0:
            return b""
        f = self.f
        if f.tell() != self.pos:
            f.seek(self.pos)
        data = f.read(k)
        self.pos += len(data)
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = max(0, offset + (0, self.pos, self.end)[whence])
        return self.pos

    def tell(self) -> int:
        return self.pos

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True


def file_context(f) -> Context:
    """The context of a file's first event (FORMAT_DESCRIPTION or START_EVENT_V3): what a
    split that starts past it is read with."""
    ctx = Context(checksum=False)
    f.seek(4)
    head = f.read(HEADER_SIZE)
    if len(head) == HEADER_SIZE and ctx.kind(head[TYPE_AT]) in CONTEXT_KINDS:
        n = int.from_bytes(head[SIZE_AT:SIZE_END], "little")
        try:
            ctx = _context_event(head + f.read(n - HEADER_SIZE), ctx, 4)
        except BinlogError:
            pass
    return ctx


_file_context = file_context


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


def table_maps_before(f, start: int, ctx: Context) -> dict:
    """The TABLE_MAP in force for each table id just before ``start``: the fallback for a
    split that is not self-contained (headers read, only TABLE_MAP bodies parsed; damage
    passed as the pre-scan passes it, at the next confirmed event)."""
    maps = {}
    blocks = scanning.Blocks(f)
    written = WRITTEN_KINDS.get(ctx.flavor, WRITTEN_KINDS[None])
    # (the walk gives TABLE_MAPs, the codes no server writes, and the event that holds start)
    blocks.skip = scanning.codes_except({TABLE_MAP_EVENT} | (frozenset(range(256)) - written),
                                        ctx.type_remap)
    pos = 4
    while pos < start:
        damaged = None
        for pos, code, n, _buf, _i in blocks.walk(pos, MAX_EVENT_SIZE, whole=False, mark=start):
            if pos >= start:
                break
            kind = ctx.kind(code)
            if pos + n > start or kind not in written:
                damaged = pos
                break
            raw = blocks.at(pos, n)
            try:
                value = parse_event(raw, ctx, pos)
            except BinlogError:
                value = None
            if value is not None:
                maps[value["body"]["table_id"]] = EventRecord(pos, raw, ctx, value=value)
        else:
            if blocks.bad is not None:
                damaged = blocks.bad[0]
        if damaged is None:
            break
        nxt = scanning.resync(blocks, damaged + 1, start, ctx, MAX_EVENT_SIZE, MAX_SCAN)
        if nxt is None or scanning.second_file_at(blocks, nxt, start, ctx, MAX_EVENT_SIZE):
            break
        pos = nxt
    return maps


# ---------------------------------------------------------------------------------------
# typed values: the fields of the Value struct that hold a column value (see schema.VALUE)

FIELDS = ("long", "decimal", "double", "string", "binary", "date", "datetime", "timestamp",
          "time", "vector", "json", "text")
(LONG, DECIMAL, DOUBLE, STRING, BINARY, DATE, DATETIME, TIMESTAMP, TIME, VECTOR, JSON,
 TEXT) = range(len(FIELDS))
NVALUE = len(FIELDS)

_EPOCH_DAYS = _dt.date(1970, 1, 1).toordinal()
_DAY_US = 86_400_000_000
_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1
_DEC_CTX = decimal.Context(prec=100)
_DEC_Q = decimal.Decimal(1).scaleb(-18)
_date = _dt.date


class JsonDoc:
    """A value of a MySQL JSON column: written as JSON text, whatever its Python type."""

    __slots__ = ("doc",)

    def __init__(self, doc):
        self.doc = doc


def fit_decimal(d: decimal.Decimal):
    """``d`` when it fits DECIMAL(38,18) exactly (trailing zeros beyond 18 places allowed),
    else None."""
    if not d.is_finite():
        return None
    sign, digits, exp = d.as_tuple()
    whole = len(digits) + exp
    if whole > 20:
        return None
    if exp < -18:
        q = d.quantize(_DEC_Q, context=_DEC_CTX)
        return q if q == d else None
    return d


def day_number(y: int, m: int, d: int):
    """Days since 1970-01-01 (proleptic Gregorian, as Spark counts), None for a zero or
    invalid date."""
    try:
        return _date(y, m, d).toordinal() - _EPOCH_DAYS
    except ValueError:
        return None


def datetime_us(v):
    """A DATETIME as microseconds since 1970-01-01 00:00 (no zone), None for a zero or invalid
    date."""
    days = day_number(v.year, v.month, v.day)
    if days is None:
        return None
    return (days * _DAY_US + ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000
            + v.microsecond)


def time_us(v) -> int:
    us = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
    return -us if v.negative else us


def as_text(v) -> str | None:
    """A name or other text of the output as ``str`` (bytes decoded as UTF-8, undecodable bytes
    as backslash escapes); None stays None."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).decode("utf-8", "backslashreplace")
    return str(v)


def set_names(v) -> str | None:
    return None if v.names is None else ",".join(as_text(n) for n in v.names)


def json_text(v) -> str:
    return json.dumps(jsonable(v), ensure_ascii=False, separators=(",", ":"), default=str)


def _int_fields(v):
    if _LONG_MIN <= v <= _LONG_MAX:
        return ((LONG, v),)
    d = fit_decimal(decimal.Decimal(v))
    return ((DECIMAL, d),) if d is not None else ((TEXT, str(v)),)


def _decimal_fields(v):
    d = fit_decimal(v)
    return ((DECIMAL, d),) if d is not None else ((TEXT, str(v)),)


def _date_fields(v):
    days = day_number(v.year, v.month, v.day)
    # zero or invalid dates: no Spark value, the lossless text
    return ((DATE, days),) if days is not None else ((TEXT, v.isoformat()),)


def _datetime_fields(v):
    us = datetime_us(v)
    return ((DATETIME, us),) if us is not None else ((TEXT, v.isoformat()),)


def _timestamp_fields(v):
    if v.seconds == 0 and v.microsecond == 0:
        return ((TEXT, v.isoformat()),)
    return ((TIMESTAMP, v.seconds * 1_000_000 + v.microsecond),)


def _set_fields(v):
    names = set_names(v)
    bits = (LONG, v.bits) if v.bits <= _LONG_MAX else (DECIMAL, decimal.Decimal(v.bits))
    return (bits,) if names is None else (bits, (STRING, names))


def _enum_fields(v):
    name = as_text(v.name)
    return ((LONG, v.index),) if name is None else ((LONG, v.index), (STRING, name))


_FIELDS_OF = {
    int: _int_fields,
    bool: lambda v: _int_fields(int(v)),
    float: lambda v: ((DOUBLE, v),),
    str: lambda v: ((STRING, v),),
    bytes: lambda v: ((BINARY, v),),
    bytearray: lambda v: ((BINARY, bytes(v)),),
    memoryview: lambda v: ((BINARY, bytes(v)),),
    decimal.Decimal: _decimal_fields,
    temporal.Date: _date_fields,
    temporal.DateTime: _datetime_fields,
    temporal.Timestamp: _timestamp_fields,
    temporal.Time: lambda v: ((TIME, time_us(v)),),
    EnumValue: _enum_fields,
    SetValue: _set_fields,
    Geometry: lambda v: ((LONG, v.srid), (BINARY, bytes(v.wkb))),
    Compressed: lambda v: value_fields(v.data),
    JsonDoc: lambda v: ((JSON, json_text(v.doc)),),
}


def value_fields(v) -> tuple:
    """The ``(field, value)`` pairs of the Value struct that hold one (non-NULL) column value,
    in the form Spark keeps internally and Arrow takes (dates as days, timestamps and
    times as microseconds): the typed field(s) that hold it exactly, and ``text`` (MySQL's
    lossless text) when no Spark type does (zero dates, decimals beyond DECIMAL(38,18),
    integers beyond 64 bits). JSON documents (:class:`JsonDoc`) are JSON text."""
    f = _FIELDS_OF.get(type(v))
    if f is not None:
        return f(v)
    for base in (bool, int, float, str, bytes):  # subclasses (a NaN that keeps its bits)
        if isinstance(v, base):
            return _FIELDS_OF[base](base(v))
    if isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) for x in v):
        return ((VECTOR, [float(x) for x in v]),)
    return ((JSON, json_text(v)),)


def to_value(v, json_column: bool = False):
    """One column value as the Value struct in Spark's internal form (a tuple of
    :data:`FIELDS`; None for NULL): the tuples of the ``spark`` engine."""
    if v is None:
        return None
    out = [None] * NVALUE
    for k, x in value_fields(JsonDoc(v) if json_column else v):
        out[k] = x
    return tuple(out)


def _json_columns(tm) -> frozenset:
    """The MySQL JSON columns of a table (MariaDB's JSON is a text column)."""
    cached = getattr(tm, "_pipeline_json", None)
    if cached is None:
        cached = frozenset() if not json_is_binary(tm.flavor) else frozenset(
            name for name, col in zip(column_names(tm), tm.columns) if col.type == "JSON")
        tm._pipeline_json = cached
    return cached


def json_marked(values: dict | None, json_cols: frozenset):
    """An image with the values of JSON columns marked as :class:`JsonDoc`."""
    if values is None or not json_cols:
        return values
    return {k: JsonDoc(x) if k in json_cols and x is not None else x
            for k, x in values.items()}


def image(values: dict | None, json_cols: frozenset):
    """A row image as ``{column: Value tuple}`` (Spark's internal form)."""
    if values is None:
        return None
    return {k: to_value(x) for k, x in json_marked(values, json_cols).items()}


# ---------------------------------------------------------------------------------------
# parsing events: each distinct TABLE_MAP body once per task


class _Bodies:
    """The compiled body parsers, TABLE_MAP's answering with a body already parsed."""

    def __init__(self):
        self.parsers = envelope.fast()[1]
        self.body = None

    def get(self, kind, default):
        if kind == TABLE_MAP_EVENT:
            return self.table_map
        return self.parsers.get(kind, default)

    def table_map(self, stream, this):
        stream.seek(0, 2)
        return self.body


class EventParser:
    """Servers write the same TABLE_MAP before every transaction on a table: a TABLE_MAP
    record of a lazy :class:`BinlogReader` (``decode="lazy"``) whose body bytes an earlier
    one had (in the same context) takes that record's parsed body; its header and CRC32 are
    parsed and checked as every event's are. Every other record parses itself when its
    value is asked for (as do a body's first TABLE_MAP and any whose first did not parse
    cleanly): a record's value and error are always what its own parse gives."""

    def __init__(self):
        self.parse_header = envelope.fast()[0]
        self.bodies = _Bodies()
        self.default = envelope.body_parser(-1)
        params = getattr(envelope, "_params", None)
        self.params = params if params is not None else (lambda ctx: {"ctx": ctx})
        self.memo: dict = {}   # (body bytes, context facts) -> parsed body
        self.ctx = self.facts = None

    def parse(self, rec):
        raw, ctx = rec.raw, rec.ctx
        if len(raw) <= HEADER_SIZE or ctx.kind(raw[TYPE_AT]) != TABLE_MAP_EVENT or \
                not getattr(rec, "unparsed", False):   # (not lazy: parsed, or an error)
            return
        if ctx is not self.ctx:
            self.ctx, self.facts = ctx, (ctx.flavor, ctx.server_version, ctx.checksum,
                                         tuple(ctx.post_header_lengths or ()))
        key = (raw[HEADER_SIZE:len(raw) - checksum_length(TABLE_MAP_EVENT, None, ctx)],
               self.facts)
        body = self.memo.get(key)
        if body is None:
            value = rec.value            # its own parse
            if rec.error is None and value is not None and "trailing" not in value:
                if len(self.memo) > 4096:
                    self.memo.clear()
                self.memo[key] = value["body"]
            return
        self.bodies.body = body
        try:
            value = event_parse(raw, {"_params": self.params(ctx)}, self.parse_header,
                                self.bodies, self.default)
        except Exception:  # noqa: BLE001 - the record's own parse gives the typed error
            return
        rec.value = value


# ---------------------------------------------------------------------------------------
# table-map shapes


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


# ---------------------------------------------------------------------------------------
# where the rows go


class TupleSink:
    """Tagged tuples in Spark's internal form (see ``schema.UNIFIED``), one per output row:
    what the ``spark`` engine sends through the JVM. The rows of a transaction wait for its
    end (:meth:`end`: its XID and commit time), in memory up to a bound, then pickled to a
    temporary file (:class:`~binlog_schema.model.transactions.Held`)."""

    def __init__(self):
        self.pending: list = []
        self.held = Held()
        self.open_tx = None   # the transaction of the last rows, until its end

    def event(self, row):
        if row[13] is not None:   # an XID: Spark's internal form of DECIMAL(20,0)
            row = (*row[:13], decimal.Decimal(row[13]), *row[14:])
        self.pending.append((EVENT, row[0], row, None, None, None, None))

    def error(self, row):
        self.pending.append((ERROR, row[0], None, None, None, row, None))

    def table_map(self, row):
        self.pending.append((TABLE_MAP, row[-4], None, row, None, None, None))

    def stat(self, row):
        self.pending.append((STAT, row[0], None, None, None, None, row))

    def rows(self, name, r, changes, json_cols, offset, inner_offset, tx=None, prefix=None,
             version=None):
        if tx is not self.open_tx:
            if self.held:   # (a transaction left without its end: written as it is)
                self._release(None)
            self.open_tx = tx
        add = self.held.add
        type_name = r.type_name
        for ch in changes:
            body = (name, ch.offset, inner_offset, ch.gtid,
                    None if ch.timestamp is None else ch.timestamp * 1_000_000,
                    as_text(ch.database), as_text(ch.table), ch.operation, ch.row_index,
                    image(ch.before, json_cols), image(ch.after, json_cols),
                    ch.signedness_known, type_name,
                    None if prefix is None else prefix + f"{ch.row_index:010d}", version)
            if tx is None:
                self.pending.append(self._row(body, None))
            else:
                add(body)

    @staticmethod
    def _row(body, tx):
        xid = ts = None
        if tx is not None:
            xid = tx.xid if tx.xid is None or tx.xid < 1 << 63 else tx.xid - (1 << 64)
            ts = None if tx.commit_timestamp is None else tx.commit_timestamp * 1_000_000
        return (ROW, body[0], None, None, body[:14] + (xid, ts) + body[14:], None, None)

    def _release(self, tx):
        add, row = self.pending.append, self._row
        for body in self.held.drain():
            add(row(body, tx))

    def end(self, tx):
        """``tx`` ended (committed, or its end not seen): its rows, with its XID and commit
        time."""
        if tx is not self.open_tx:
            return
        self.open_tx = None
        if self.held:
            self._release(tx)

    def take(self) -> list:
        out, self.pending = self.pending, []
        return out

    def close(self) -> list:
        self.open_tx = None
        if self.held:
            self._release(None)
        return self.take()


# ---------------------------------------------------------------------------------------
# decoding a split


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
        self.boundary = Boundary()    # (the one rule's state: model/transactions.py)
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
    ``schema``: a :class:`~binlog_schema.pipeline.history.SchemaPlan` (the rows of table
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


def split_records(f, split: Split, ctx: Context | None = None, parse=None):
    """The records of one split, which tile its byte range exactly (``[4, end)`` for the
    first split, ``[start, end)`` for the others): events and SKIPPED records, as
    ``BinlogReader(..., skip_errors=True)`` (recovering) gives them for the whole file.

    A later split is read from its start with the file's context ``ctx`` (``resume``), and
    every reader stops at the split's end (``stop``). The framing is followed by the plain
    reader while every event is confirmed as the recovering reader confirms it (its CRC32,
    which the event's parse checks; without checksums its log positions, or the header after
    it: :func:`binlog_schema.scanning.confirmed`); from the first event that is not (an
    error, a size out of bounds, an event cut short, a size nothing vouches for), the recovering
    reader takes over from that event, with the context in force there (so does an event
    without a CRC32 over a FORMAT_DESCRIPTION whose CRC32 verifies; an event that
    holds a magic number hands over too: the recovering reader tells a second file's start
    inside it from a value that happens to hold those bytes). Confirmations may
    look at the headers after the split's end (a split ends where the pre-scan confirmed an
    event); no record goes past it: a skipped range that would is cut at the end (the next
    split starts with a confirmed event there), and so is an event that would run past it
    (its bytes are skipped, never counted twice). ``parse``: called on each record before it
    is judged (the task's TABLE_MAP memo)."""
    view = Clip(f, split.size)
    stop = split.end
    resume = (split.start, ctx) if split.start else None
    fast = BinlogReader(view, decode="lazy", skip_errors=True, recover=False, resume=resume,
                        stop=stop)
    sblocks = scanning.Blocks(view)   # (what a confirmation reads, the reader's own apart)
    it = iter(fast)
    at = None            # (offset, context) where the recovering reader takes over
    emitted = False
    before = None        # (where the record before says the next starts: a proof)
    for rec in it:
        if parse is not None:
            parse(rec)
        c = rec.ctx
        raw = rec.raw
        n = len(raw)
        if rec.error is not None or rec.offset + n > stop or raw.find(MAGIC, 1) > 0:
            # (an event that holds a magic number may hold a second file's start)
            at = (rec.offset, c)
            break
        if checksummed(raw[TYPE_AT], c) and (
                c.kind(raw[TYPE_AT]) != FORMAT_DESCRIPTION_EVENT or
                checksum_length(FORMAT_DESCRIPTION_EVENT, raw[HEADER_SIZE:HEADER_SIZE + 52], c)):
            if n < HEADER_SIZE + 4:   # (too short to hold a CRC32 that verifies)
                at = (rec.offset, c)
                break
        elif not c.encrypted and not (
                _over_nothing(view, sblocks, rec, c) if c.binlog_version >= 4 and
                c.kind(raw[TYPE_AT]) not in CONTEXT_KINDS and
                int.from_bytes(raw[LOG_POS_AT:LOG_POS_END], "little") == (rec.offset + n) & _WRAP
                else _confirmed(view, sblocks, rec, c, before)):
            # no CRC32: confirmed as the recovering reader confirms it (scanning.confirmed:
            # its log positions, or the header after it, vouch for its size; no
            # FORMAT_DESCRIPTION a CRC32 proves inside it; a log position that is its end,
            # as in a server's own binlog, vouches for it at once), else that reader takes
            # over
            at = (rec.offset, c)
            break
        emitted = True
        before = scanning.log_next(raw, n, c)
        yield rec
    else:
        tail = fast.tail
        if tail is None:
            return
        at = (tail.offset, fast.ctx)
    it.close()
    if not emitted and not split.start:
        resume = None   # (nothing delivered yet: from the magic number, as a whole file)
    else:
        resume = (*at, before)
    view.seek(0)
    reader = BinlogReader(view, decode="lazy", skip_errors=True, recover=True, resume=resume,
                          stop=stop)
    for rec in reader:
        if rec.gap is not None:
            start, end = rec.gap
            if end > stop:
                rec.gap = (start, stop)
                yield rec
                return
        elif rec.offset + len(rec.raw) > stop:   # (a chain that is not the pre-scan's)
            yield EventRecord(rec.offset, b"", rec.ctx, gap=(rec.offset, stop), error=FormatError(
                f"the event at {rec.offset} ({len(rec.raw)} bytes) runs past {stop}, where "
                "a confirmed event starts (the next split's): its bytes are skipped",
                offset=rec.offset + 9, path="header.event_size"))
            return
        elif parse is not None:
            parse(rec)
        yield rec


def _over_nothing(view, sblocks, rec, ctx) -> bool:
    """Whether no FORMAT_DESCRIPTION whose CRC32 verifies starts inside ``rec`` (read
    through ``sblocks``; the file position, which the plain reader keeps, put back)."""
    here = view.tell()
    try:
        return scanning.checksummed_fde_inside(sblocks, rec.offset, len(rec.raw), ctx) is None
    finally:
        view.seek(here)


def _confirmed(view, sblocks, rec, ctx, before) -> bool:
    """Whether ``rec`` (no CRC32 proves it) is confirmed (:func:`scanning.confirmed`, read
    through ``sblocks``; the file position, which the plain reader keeps, put back)."""
    here = view.tell()
    try:
        return scanning.confirmed(sblocks, rec.offset, len(rec.raw), view.end, ctx,
                                  MAX_EVENT_SIZE, before)
    finally:
        view.seek(here)


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
                             _json_columns(tm) if tm is not None else frozenset(),
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
    ``txn``, ``open``, and ``boundary``, the one rule's state: model/transactions.py's
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
            from ..model.table_map import table_map_from_event
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

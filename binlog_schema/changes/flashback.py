"""Flashback: one transaction's row changes undone, as binlog events (the core of
``binlog-schema flashback``; the driver that reads files backwards by transaction, filters and
writes the output lives elsewhere).

:func:`invert_transaction` takes one transaction's decoded :class:`~binlog_schema.format.stream.
EventRecord` objects in file order (the events inside a TRANSACTION_PAYLOAD come as the
payload record's ``inner``) and returns the event values of the transaction that undoes it,
ready for :meth:`~binlog_schema.format.writer.BinlogWriter.write` (``log_pos`` and ``event_size``
None: computed; no ``checksum``: the build computes the CRC32 when the writer's context has
one):

* the begin: MySQL's GTID / ANONYMOUS_GTID / GTID_TAGGED events are dropped (a flashback must
  not reuse the original GTIDs: the server that applies it assigns new ones) and the QUERY
  ``BEGIN`` after them is kept; MariaDB's GTID event (its transaction start: no BEGIN follows
  it) becomes a QUERY ``BEGIN`` (:func:`mariadb_begin`);
* the transaction's statements in reverse order. A statement is its TABLE_MAP events, then its
  rows events, the last of which has the STMT_END flag. Inverted, it keeps its TABLE_MAPs
  unchanged and first, then its rows events in reverse order, each inverted
  (:func:`invert_rows_event`), the STMT_END flag moved to the new last one;
* the commit (XID, or a QUERY ``COMMIT``), kept.

Statements that old servers (5.1) wrote without BEGIN and commit (autocommitted changes of
non-transactional tables: TABLE_MAP and rows events alone) come back the same way, inverted,
with neither.

Events dropped because they change no data: ROWS_QUERY (MySQL) and ANNOTATE_ROWS (MariaDB)
describe the original statements, which the inverted events no longer are; SAVEPOINT and
RELEASE SAVEPOINT queries name places that the reversed order no longer has.

Refused (:class:`FlashbackError`, naming the file, the event's offset and type and why):
PARTIAL_UPDATE_ROWS (MySQL partial JSON: the before image of the JSON is not logged); an image
that does not hold every column (``binlog_row_image`` MINIMAL or NOBLOB: the missing columns
are named); a QUERY that is not BEGIN / COMMIT / SAVEPOINT (statement-based DML, DDL, XA);
a ROLLBACK or ROLLBACK TO SAVEPOINT (the server rolled back part or all of the transaction's
transactional changes, yet their rows events are in the binlog: which changes took effect
cannot be known); a transaction begun (BEGIN, GTID) whose commit is not among its events;
events whose place in
an inverted transaction is unknown (INCIDENT, INTVAR, USER_VAR, LOAD DATA events, a second
GTID...); an event that failed to parse.

Inverting twice gives back the original rows events byte for byte (positions and CRC32
aside) and the TABLE_MAPs unchanged.
"""

from __future__ import annotations

from ..format.errors import BinlogError
from ..format.facts.codes import (ANNOTATE_ROWS_EVENT, ANONYMOUS_GTID_LOG_EVENT,
                           DELETE_ROWS_COMPRESSED_EVENT, DELETE_ROWS_COMPRESSED_EVENT_V1,
                           DELETE_ROWS_EVENT, DELETE_ROWS_EVENT_V1, GTID_LOG_EVENT,
                           GTID_TAGGED_LOG_EVENT, MARIA_GTID_EVENT, PARTIAL_UPDATE_ROWS_EVENT,
                           PRE_GA_DELETE_ROWS_EVENT, PRE_GA_WRITE_ROWS_EVENT, QUERY_EVENT,
                           ROWS_KINDS, ROWS_QUERY_LOG_EVENT, STATEMENT_KINDS, TABLE_MAP_EVENT,
                           UPDATE_KINDS, WRITE_KINDS, WRITE_ROWS_COMPRESSED_EVENT,
                           WRITE_ROWS_COMPRESSED_EVENT_V1, WRITE_ROWS_EVENT, WRITE_ROWS_EVENT_V1,
                           XID_EVENT, type_name)
from ..format.facts.flavor import checksum_length
from ..format.facts.framing import HEADER_SIZE
from ..format.stream import EventRecord
from ..format.values.rows import RowsCodec
from ..format.values.row_count import row_spans
from .statements import BEGINS, BELONGS, ENDS, statement_head, statement_role
from .table_map import TableMap, table_map_from_event

# WRITE <-> DELETE, each in its own version (pre-GA, v1, v2, MariaDB compressed v1 and v2)
_SWAP = {}
for _w, _d in ((PRE_GA_WRITE_ROWS_EVENT, PRE_GA_DELETE_ROWS_EVENT),
               (WRITE_ROWS_EVENT_V1, DELETE_ROWS_EVENT_V1),
               (WRITE_ROWS_EVENT, DELETE_ROWS_EVENT),
               (WRITE_ROWS_COMPRESSED_EVENT_V1, DELETE_ROWS_COMPRESSED_EVENT_V1),
               (WRITE_ROWS_COMPRESSED_EVENT, DELETE_ROWS_COMPRESSED_EVENT)):
    _SWAP[_w], _SWAP[_d] = _d, _w
del _w, _d

# MySQL's GTID events: dropped (the server that applies the flashback assigns new GTIDs)
_MYSQL_GTID_KINDS = frozenset({GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT, GTID_TAGGED_LOG_EVENT})
# events that describe the original statements and change no data: dropped
_DESCRIPTIVE_KINDS = frozenset({ROWS_QUERY_LOG_EVENT, ANNOTATE_ROWS_EVENT})
_STMT_END = "STMT_END"

# The status variables of the QUERY ``BEGIN`` that replaces a MariaDB GTID event when the
# transaction holds no QUERY of its own to take them from (a COMMIT query): the four a MariaDB
# server writes on every QUERY (the corpus's 11.8 files, the 5.5-era BEGIN), with the values of
# a default session that every MariaDB version knows: FLAGS2 none set (autocommit, foreign and
# unique key checks on, sql_auto_is_null off), SQL_MODE MariaDB's default since 10.2.4
# (STRICT_TRANS_TABLES, ERROR_FOR_DIVISION_BY_ZERO, NO_AUTO_CREATE_USER,
# NO_ENGINE_SUBSTITUTION), the catalog "std", latin1_swedish_ci (8) for client, connection and
# server (the compiled default; an 11.x collation id such as 2304 would be unknown to a 10.x
# server applying the flashback through mysqlbinlog's SET statements).
MARIADB_BEGIN_STATUS = (
    {"code": "FLAGS2", "value": []},
    {"code": "SQL_MODE", "value": 1411383296},
    {"code": "CATALOG_NZ", "value": "std"},
    {"code": "CHARSET", "value": {"client": 8, "connection": 8, "server": 8}},
)


class FlashbackError(BinlogError):
    """An event of a transaction that cannot be inverted: ``file`` (when known), ``offset``
    (the event's offset in the file; for an event inside a TRANSACTION_PAYLOAD, the payload's,
    with ``inner_offset`` its place in the payload's data), ``event_type`` (its type name) and
    the reason; ``missing``: the columns an image lacks (names, else ``@N``), for images that
    do not hold every column."""

    kind = "flashback"

    def __init__(self, message: str, *, offset: int | None = None, path: str | None = None,
                 expected: str | None = None, file: str | None = None,
                 event_type: str | None = None, inner_offset: int | None = None,
                 missing=()):
        self.file = file
        self.event_type = event_type
        self.inner_offset = inner_offset
        self.missing = list(missing)
        super().__init__(message, offset=offset, path=path, expected=expected)

    def _render(self) -> str:
        where = []
        if self.file:
            where.append(str(self.file))
        if self.event_type:
            where.append(self.event_type)
        if self.offset is not None:
            where.append(f"at offset {self.offset}")
        if self.inner_offset is not None:
            where.append(f"(inner event at {self.inner_offset} of its TRANSACTION_PAYLOAD)")
        if self.path:
            where.append(f"in {self.path}")
        text = f"{self.kind}: " + " ".join(where) + f": cannot be inverted: {self.message}"
        if self.expected:
            text += f" (expected {self.expected})"
        return text

    def to_dict(self) -> dict:
        d = super().to_dict()
        d.update(file=self.file, event_type=self.event_type, inner_offset=self.inner_offset,
                 missing=self.missing)
        return d


def _refuse(rec, why: str, file=None, **extra) -> FlashbackError:
    inner = rec.parent_offset is not None
    return FlashbackError(why, offset=rec.parent_offset if inner else rec.offset,
                          inner_offset=rec.offset if inner else None, file=file,
                          event_type=rec.type_name, **extra)


def _fresh_header(header: dict, **changes) -> dict:
    """A header to build again: positions and size computed, everything else kept."""
    h = {k: v for k, v in header.items() if not k.startswith("_")}
    h.update(changes)
    h["log_pos"] = None
    h["event_size"] = None
    return h


def _rebuilt(value: dict) -> dict:
    """An event kept as it is, to be written at a new place (log_pos, size, CRC32 computed)."""
    return {k: v for k, v in value.items() if k != "checksum"} | {
        "header": _fresh_header(value["header"])}


def _column_label(tm: TableMap, i: int) -> str:
    if i < len(tm.columns):
        name = tm.columns[i].name
        if isinstance(name, str) and name:
            return name
    return f"@{i + 1}"


def _missing(bits, count: int, tm: TableMap) -> list:
    present = list(bits[:count]) if bits is not None else []
    return [_column_label(tm, i) for i in range(len(tm.columns))
            if i >= count or not present[i]]


def _typed(table_map, ctx) -> TableMap:
    if isinstance(table_map, TableMap):
        return table_map
    return table_map_from_event(table_map, ctx)


def invert_rows_event(rec, table_map, file: str | None = None, codec=None) -> dict:
    """One rows event inverted, as an event value to build: WRITE <-> DELETE in the same
    version (pre-GA, v1, v2, MariaDB compressed), UPDATE with each row's images swapped and the
    ``columns_present`` / ``columns_after`` bitmaps swapped; the rows in reverse order. Every
    other field stays: flags (STMT_END included: :func:`invert_transaction` moves it), the v2
    extra data, the header's timestamp, server id and flags. ``table_map``: the rows event's
    table map (a :class:`TableMap`, or a parsed TABLE_MAP event value, read in ``rec.ctx``);
    ``codec``: its :class:`RowsCodec`, when the caller has one.

    The images are moved as the bytes they are (cut where decoding them ends), never
    rebuilt: the inverse holds exactly the values the event held.

    Raises :class:`FlashbackError` for PARTIAL_UPDATE_ROWS, an image without every column
    (MINIMAL / NOBLOB row images: the missing columns named), rows that do not decode."""
    kind = rec.kind
    if rec.error is not None or rec.value is None:
        raise _refuse(rec, f"the event did not parse: {rec.error}", file)
    if kind == PARTIAL_UPDATE_ROWS_EVENT:
        raise _refuse(rec, "a partial JSON update (binlog_row_value_options=PARTIAL_JSON) logs "
                      "only the changes of its JSON columns, not their values before: the "
                      "update cannot be undone", file)
    if kind not in ROWS_KINDS:
        raise _refuse(rec, "not a rows event", file)
    value = rec.value
    header, body = value["header"], value["body"]
    if header.get("type_code") != kind:
        raise _refuse(rec, f"stored type code {header.get('type_code')} is not the standard "
                      f"code of {type_name(kind)} (a development tree's numbering)", file)
    tm = _typed(table_map, rec.ctx)
    count = body["column_count"]
    update = kind in UPDATE_KINDS
    if count > len(tm.columns):
        raise _refuse(rec, f"{count} columns, its table map ({tm.database}.{tm.table}) "
                      f"{len(tm.columns)}", file, path="body.column_count")
    missing = _missing(body["columns_present"], count, tm)
    after_missing = _missing(body.get("columns_after"), count, tm) \
        if update and body.get("columns_after") is not None else []
    if missing or after_missing:
        parts = []
        first = "after" if kind in WRITE_KINDS else "before"
        if missing:
            parts.append(f"its {first} image lacks {', '.join(missing)}")
        if after_missing:
            parts.append(f"its after image lacks {', '.join(after_missing)}")
        raise _refuse(rec, f"table {_text(tm.database)}.{_text(tm.table)}: "
                      + "; ".join(parts) + " (binlog_row_image MINIMAL or NOBLOB): the rows "
                      "cannot be restored whole", file,
                      path="body.columns_after" if after_missing and not missing
                      else "body.columns_present",
                      missing=list(dict.fromkeys(missing + after_missing)))
    codec = codec or RowsCodec(tm)
    rows_field = body["rows"]
    data = bytes(rows_field["data"] if isinstance(rows_field, dict) else rows_field)
    try:   # per row: its images' (start, middle, end) in ``data`` (values not made)
        spans = row_spans(codec, body, kind, data,
                          verified=rec.ctx.checksum and rec.ctx.verify_checksum)
    except Exception as e:  # noqa: BLE001 - only typed errors leave the package
        column = getattr(e, "column", None)   # (its key: the codec's, an index or a name)
        where = f"table {_text(tm.database)}.{_text(tm.table)}" + (
            "" if column is None else f", column "
            f"{_column_label(tm, column) if isinstance(column, int) else column}")
        reason = e if isinstance(e, BinlogError) else f"{type(e).__name__}: {e}"
        raise _refuse(rec, f"{where}: its rows do not decode: {reason}", file,
                      path="body.rows") from None
    # (the images are the event's own bytes, cut where the decoding found them to end)
    chunks = [(data[a:m], data[m:e]) for a, m, e in spans]
    new_body = dict(body)
    if update:
        # each row's after image becomes its before image: the bitmaps follow the images
        new_data = b"".join(b + a for a, b in reversed(chunks))
        if "columns_after" in body and body["columns_after"] is not None:
            new_body["columns_present"] = body["columns_after"]
            new_body["columns_after"] = body["columns_present"]
        new_kind = kind
    else:
        new_data = b"".join(a for a, _ in reversed(chunks))
        new_kind = _SWAP[kind]
    new_body["rows"] = {"data": new_data, "compressed": None} \
        if isinstance(rows_field, dict) else new_data
    out = {k: v for k, v in value.items() if k not in ("header", "body", "checksum")}
    out["header"] = _fresh_header(header, type_code=new_kind)
    out["body"] = new_body
    return out


def _text(v) -> str:
    return v if isinstance(v, str) else bytes(v).decode("utf-8", "replace")


def _flags(body) -> list:
    return list(body.get("flags") or [])


def _with_stmt_end(event: dict, on: bool) -> dict:
    body = event["body"]
    flags = [f for f in _flags(body) if f != _STMT_END]
    if on:
        flags = [_STMT_END] + flags   # (bit 0x1: where the parse lists it)
    return {**event, "body": {**body, "flags": flags}}


def mariadb_begin(gtid_rec, status_vars=None, thread_id: int | None = None) -> dict:
    """The QUERY ``BEGIN`` that stands for a MariaDB GTID event in an inverted transaction,
    as a server writes a BEGIN: the GTID event's timestamp and server id, the SUPPRESS_USE
    header flag (a BEGIN needs no default database), thread id (the GTID's, MariaDB 11.5+;
    else ``thread_id``; else 0), exec_time and error code 0, the default database empty, and
    ``status_vars`` (default :data:`MARIADB_BEGIN_STATUS`)."""
    header, body = gtid_rec.value["header"], gtid_rec.value["body"]
    tid = body.get("thread_id") if isinstance(body, dict) else None
    if tid is None:
        tid = thread_id if thread_id is not None else 0
    return {
        "header": {"timestamp": header["timestamp"], "type_code": QUERY_EVENT,
                   "server_id": header["server_id"], "event_size": None, "log_pos": None,
                   "flags": ["SUPPRESS_USE"]},
        "body": {"thread_id": tid, "exec_time": 0, "error_code": 0, "post_header_extra": None,
                 "status_vars": [dict(v) for v in (status_vars if status_vars is not None
                                                    else MARIADB_BEGIN_STATUS)],
                 "database": "", "query": "BEGIN"},
    }


def _events_of(records):
    """The records in order, the events inside a TRANSACTION_PAYLOAD in place of it."""
    for rec in records:
        if rec.inner is not None:
            if rec.error is not None:
                raise _refuse(rec, f"the payload did not decode: {rec.error}")
            yield from rec.inner
        else:
            yield rec


class _Statement:
    __slots__ = ("maps", "rows")

    def __init__(self):
        self.maps: list = []    # TABLE_MAP records
        self.rows: list = []    # (rows record, its TABLE_MAP record)


def invert_transaction(records, file: str | None = None, *, begin_status=None) -> list:
    """The event values of the transaction that undoes one transaction (``records``: its
    :class:`~binlog_schema.format.stream.EventRecord` objects in file order, decoded; a
    TRANSACTION_PAYLOAD's events as its ``inner``, emitted uncompressed). See the module's
    docstring for the order of the result, what is dropped and what is refused
    (:class:`FlashbackError`). ``file``: named in errors. ``begin_status``: the status
    variables of the QUERY ``BEGIN`` that replaces a MariaDB GTID event (default: those of a
    QUERY of the transaction itself, a COMMIT, else :data:`MARIADB_BEGIN_STATUS`)."""
    begin = None          # the kept BEGIN value, or the MariaDB GTID record
    maria_gtid = None
    commit = None         # the commit record
    session_query = None  # a QUERY of the transaction (its status vars and thread id)
    statements: list = []
    current = _Statement()
    maps: dict = {}       # table id -> TABLE_MAP record in force
    started = False       # a TABLE_MAP or rows event seen
    for rec in _events_of(records):
        if rec.gap is not None or rec.error is not None or rec.value is None:
            raise _refuse(rec, f"the event did not parse: {rec.error}", file)
        kind = rec.kind
        if commit is not None:
            raise _refuse(rec, f"an event after the transaction's commit "
                          f"({commit.type_name} at {commit.offset})", file)
        if kind in _MYSQL_GTID_KINDS or kind == MARIA_GTID_EVENT:
            if begin is not None or maria_gtid is not None or started:
                raise _refuse(rec, "a second transaction start inside the transaction", file)
            if kind == MARIA_GTID_EVENT:
                flags2 = rec.value["body"].get("flags2") or []
                if "STANDALONE" in flags2:
                    raise _refuse(rec, "a standalone transaction (DDL or a non-transactional "
                                  "statement, flags2 STANDALONE)", file)
                maria_gtid = rec
            continue
        if kind in _DESCRIPTIVE_KINDS:
            continue
        if kind in STATEMENT_KINDS:
            query = rec.value["body"].get("query") if isinstance(rec.value["body"], dict) \
                else None
            head = statement_head(query) if query is not None else ""
            word = head.split()[0] if head.split() else ""
            role = statement_role(query)   # (the one table: changes/statements.py)
            if role is BEGINS and word != "XA":   # (XA transactions: refused below)
                if begin is not None or started or maria_gtid is not None:
                    raise _refuse(rec, f"{head.strip()!r} inside the transaction", file)
                begin = rec
                session_query = session_query or rec
                continue
            if role is ENDS and word == "COMMIT":
                commit = rec
                session_query = session_query or rec
                continue
            if role is BELONGS and word in ("SAVEPOINT", "RELEASE"):
                session_query = session_query or rec
                continue
            if word == "ROLLBACK":
                raise _refuse(rec, f"{_short(query)!r}: the server rolled back changes whose "
                              "rows events are in the binlog; which changes took effect "
                              "cannot be known", file)
            raise _refuse(rec, f"the statement {_short(query)!r} ("
                          + ("statement-based DML" if word in _DML else "not row changes")
                          + "): only row events can be inverted", file)
        if kind == XID_EVENT:
            commit = rec
            continue
        if kind == TABLE_MAP_EVENT:
            started = True
            current.maps.append(rec)
            maps[rec.value["body"]["table_id"]] = rec
            continue
        if kind in ROWS_KINDS:
            started = True
            tm = maps.get(rec.value["body"]["table_id"])
            if tm is None:
                raise _refuse(rec, f"no TABLE_MAP for table id {rec.value['body']['table_id']} "
                              "before it in the transaction", file, path="body.table_id")
            current.rows.append((rec, tm))
            if _STMT_END in _flags(rec.value["body"]):
                statements.append(current)
                current = _Statement()
            continue
        raise _refuse(rec, "an event whose place in an inverted transaction is not known "
                      "(only GTID, BEGIN, TABLE_MAP, rows events and the commit are)", file)
    if current.rows:
        last = current.rows[-1][0]
        raise _refuse(last, "the transaction's last statement has no rows event with the "
                      "STMT_END flag", file)
    if current.maps:
        statements.append(current)   # (table maps with no rows after them: kept, harmless)
    if commit is None and (begin is not None or maria_gtid is not None):
        start = begin if begin is not None else maria_gtid
        raise _refuse(start, "the transaction's commit (XID or COMMIT) is not among its "
                      "events: it may never have been committed", file)

    head = [r for r in (maria_gtid, begin) if r is not None]
    view = _Listed(head, commit, statements)
    return [_rebuilt(v.value) if isinstance(v, EventRecord) else v
            for v in inverted_events(view, file, begin_status=begin_status,
                                     session=session_query)]


class _Listed:
    """A transaction's parts held in lists, seen as :func:`inverted_events` reads them."""

    def __init__(self, head, end, statements):
        self.head, self.end, self._statements = head, end, statements

    def statements(self):
        for st in reversed(self._statements):
            yield _ListedStatement(st.maps, [rec for rec, _ in st.rows])


class _ListedStatement:
    def __init__(self, maps, rows):
        self.maps, self._rows = maps, rows

    def rows(self):
        return reversed(self._rows)


def inverted_events(tx, file: str | None = None, *, begin_status=None, session=None,
                    codecs: dict | None = None, decoder=None):
    """The event values that undo one transaction, one at a time (the order of
    :func:`invert_transaction`; the events kept as they are come as their
    :class:`~binlog_schema.format.stream.EventRecord`, for
    :meth:`~binlog_schema.format.writer.BinlogWriter.write_kept`), from a transaction that gives its
    parts last first: ``head``
    (its GTID / BEGIN records), ``end`` (its commit record, or None), ``statements()`` (last
    first, each with ``maps``, its TABLE_MAP records, and ``rows()``, its rows event records
    last first): :class:`~binlog_schema.changes.backwards.BackTransaction` reads a file
    backwards so, one batch of rows events at a time. ``session``: a QUERY of the
    transaction whose status variables and thread a MariaDB BEGIN takes (default: its BEGIN
    or COMMIT query). ``codecs``: a dict the caller keeps across transactions, so that each
    distinct TABLE_MAP is modelled and its row readers generated once (servers write the same
    map before every transaction on a table). ``decoder``: a
    :class:`~binlog_schema.changes.row_change.RowDecoder` with the schema history in force,
    through which each map is read (MariaDB's hi-res temporal columns get their precision)."""
    file = file if file is not None else getattr(tx, "path", None)
    maria = next((r for r in tx.head if r.kind == MARIA_GTID_EVENT), None)
    begin = next((r for r in tx.head if r.kind in STATEMENT_KINDS), None)
    if maria is not None:
        if session is None:
            end = tx.end
            session = begin or (end if end is not None and end.kind in STATEMENT_KINDS
                                else None)
        status, tid = begin_status, None
        if session is not None:
            qbody = session.value["body"]
            if status is None and qbody.get("status_vars") is not None:
                status = [v for v in qbody["status_vars"] if "raw" not in v]
            tid = qbody.get("thread_id")
        yield mariadb_begin(maria, status, tid)
    elif begin is not None:
        yield begin
    codecs = {} if codecs is None else codecs   # TABLE_MAP bytes -> (TableMap, RowsCodec)
    for st in tx.statements():
        maps = {}
        for m in st.maps:
            ctx = m.ctx
            key = (bytes(m.raw[HEADER_SIZE:len(m.raw) - checksum_length(
                TABLE_MAP_EVENT, None, ctx)]), ctx.flavor, ctx.server_version)
            got = codecs.get(key)
            if got is None:
                if m.value is None:
                    raise _refuse(m, f"the event did not parse: {m.error}", file)
                if len(codecs) > 4096:
                    codecs.clear()
                tm = table_map_from_event(m.value, ctx)
                got = codecs[key] = (tm, RowsCodec(tm))
            if decoder is not None:   # (the history's view of the map, when it has one)
                decoder.feed_one(m)
                tm = decoder.last_map
                if tm is not None:
                    got = codecs.get(id(tm))
                    if got is None or got[0] is not tm:
                        got = codecs[id(tm)] = (tm, RowsCodec(tm))
            maps[got[0].table_id] = got
            yield m
        held = None     # the inverted event before: STMT_END goes to the statement's last
        for rec in st.rows():
            got = maps.get(rec.value["body"]["table_id"]) if rec.value is not None else None
            if got is None:
                raise _refuse(rec, "no TABLE_MAP for its table id before it in its "
                              "statement", file, path="body.table_id")
            event = invert_rows_event(rec, got[0], file, got[1])
            if held is not None:
                yield _with_stmt_end(held, False)
            held = event
        if held is not None:
            yield _with_stmt_end(held, True)
    if tx.end is not None:
        yield tx.end


_DML = frozenset({"INSERT", "UPDATE", "DELETE", "REPLACE", "LOAD"})


def _short(query, n: int = 60) -> str:
    text = _text(query) if not isinstance(query, str) else query
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n] + "..."


__all__ = ["FlashbackError", "MARIADB_BEGIN_STATUS", "invert_rows_event", "invert_transaction",
           "inverted_events", "mariadb_begin"]

"""Row changes: per row of a rows event, the database, table, operation, before and after
images by column name (index names ``@1``, ``@2``... when COLUMN_NAME is not logged), the
event's offset and the transaction's GTID.

:class:`RowDecoder` follows a stream of event records, keeps the table maps in force (a typed
:class:`TableMap` and a :class:`RowsCodec` per table id) and the current transaction's GTID,
and turns each rows event into :class:`RowChange` objects.

With a schema history (``RowDecoder(schema=SchemaHistory(...))``, seeded with the schema at
the start of the first file) the decoder replays each QUERY it is fed into the history, in
stream order, and looks each TABLE_MAP's table up in it:

- a map that carries column names (FULL metadata): its names win; the history is only
  checked against it, a disagreement reported (:class:`~binlog_schema.format.errors.SchemaMismatch`,
  ``names="table map"``);
- a map without names (MINIMAL, or no optional metadata): when the history's table agrees
  with it (``Table.check``: column count, types, lengths, collations, nullability...), the
  rows get the history's column names, ENUM/SET members, primary key (and the signedness and
  collations the map does not carry); when it does not, the rows keep ``@N`` names and a
  :class:`~binlog_schema.format.errors.SchemaMismatch` (``names="@N"``) names the table, the
  TABLE_MAP's offset and the differences: never a wrong name;
- a table the history does not have (never created in it, or made unknown by DDL it
  refused): ``@N`` names, and a notice (:attr:`RowDecoder.notices`, once per table).

Statement-based changes (QUERY events of INSERT, UPDATE, DELETE, REPLACE, LOAD DATA) are not
row changes: they are counted (:attr:`RowDecoder.statements`), never turned into rows.
"""

from __future__ import annotations

from ..format.records import factory, fields, record

from ..construct_ext.errors import LayoutError
from ..format.event_codec import convert_error
from ..format.errors import BinlogError, FormatError, RowsError, SchemaMismatch
from ..format.facts.codes import (EXECUTE_LOAD_QUERY_EVENT, GTID_KINDS, GTID_LOG_EVENT,
                           GTID_TAGGED_LOG_EVENT, MARIA_GTID_EVENT, QUERY_EVENT, ROWS_KINDS,
                           STATEMENT_KINDS, TABLE_MAP_EVENT)
from ..format.facts.coltypes import OLD_TEMPORAL
from ..format.facts.flavor import checksum_length
from ..format.facts.framing import HEADER_SIZE
from ..format.forms.json_safe import jsonable
from ..format.stream import EventRecord
from ..format.values.rows import RowsCodec, operation_of
from .statements import CONTROL_VERBS, raw_statement, statement_verb
from .table_map import Column, TableMap, table_map_from_event



@record
class RowChange:
    database: str | bytes
    table: str | bytes
    operation: str                  # insert | update | delete
    row_index: int                  # the row's position in its event
    before: dict | None
    after: dict | None
    offset: int                     # the rows event's offset in its file
    gtid: str | None = None
    timestamp: int | None = None
    file: str | None = None
    signedness_known: bool = True   # False: no SIGNEDNESS metadata; integers read as signed
    columns: list = factory(list)  # the column names, in table order
    primary_key: list | None = None  # the primary key's column names (when known)

    def to_dict(self, binary: str = "hex") -> dict:
        return {"file": self.file, "offset": self.offset, "gtid": self.gtid,
                "timestamp": self.timestamp, "database": jsonable(self.database, binary),
                "table": jsonable(self.table, binary), "operation": self.operation,
                "row_index": self.row_index,
                "before": None if self.before is None else
                {k: jsonable(v, binary) for k, v in self.before.items()},
                "after": None if self.after is None else
                {k: jsonable(v, binary) for k, v in self.after.items()},
                **({} if self.signedness_known else {"signedness_known": False})}


class KeptRows(EventRecord):
    """A rows event rebuilt with some of its rows (:meth:`.row_match.RowMatcher.kept`).
    ``places``: the
    index of each of its rows in the event the server wrote, so that a change keeps the row
    index it has in the full output (its order key, its SQL comment, Debezium's
    ``source.row``): read through :func:`row_places`."""

    __slots__ = ("places",)


def row_places(rec, n: int):
    """The indexes of the ``n`` rows of a rows event record in the event the server wrote:
    ``range(n)``, or a :class:`KeptRows`'s places."""
    places = getattr(rec, "places", None)
    return range(n) if places is None else places


def column_names(tm) -> list:
    """The keys of a table's row dicts: each column's name, ``@N`` (its place, from 1) when
    it has none (MINIMAL metadata) or when an earlier column took the name already (a table
    map with two columns of one name is no server's, but a damaged or built one: each column
    keeps a key of its own, so its value is neither lost nor rebuilt into the other's)."""
    keys, seen = [], set()
    for c in tm.columns:
        key = c.name if isinstance(c.name, str) and c.name else f"@{c.index + 1}"
        if key in seen:
            key = f"@{c.index + 1}"
            while key in seen:   # (a column named like another's place)
                key += "'"
        seen.add(key)
        keys.append(key)
    return keys


def gtid_text(kind: int, server_id: int, body: dict) -> str | None:
    """The GTID a GTID-type event's body names (MySQL ``uuid:gno``, tagged ``uuid:tag:gno``;
    MariaDB ``domain-server-seq``); None for ANONYMOUS_GTID and other events."""
    if kind == GTID_LOG_EVENT or kind == GTID_TAGGED_LOG_EVENT:
        sid, gno, tag = body.get("sid") or body.get("uuid"), body.get("gno"), body.get("tag")
        if sid is None or gno is None:
            return None
        sid = sid if isinstance(sid, str) else bytes(sid).hex()
        return f"{sid}:{tag}:{gno}" if tag else f"{sid}:{gno}"
    if kind == MARIA_GTID_EVENT:
        seq, dom = body.get("seq_no"), body.get("domain_id")
        if seq is None or dom is None:
            return None
        return f"{dom}-{server_id}-{seq}"
    return None


def gtid_of(rec, body=None) -> str | None:
    """The GTID a GTID-type event record starts (see :func:`gtid_text`); ``body``: its
    parsed body when the caller has it."""
    if body is None:
        body = rec.value["body"] if rec.value is not None else None
    if not isinstance(body, dict):
        return None
    return gtid_text(rec.kind, rec.value["header"]["server_id"] if rec.value else 0, body)


# the statements of QUERY events that are not schema changes: transaction control (not
# replayed) and statement-based row changes (counted, never turned into rows)
_CONTROL = CONTROL_VERBS   # (changes/statements.py's table)
_STATEMENT_DML = frozenset({"insert", "update", "delete", "replace", "load"})
_QUERY_KINDS = STATEMENT_KINDS | {EXECUTE_LOAD_QUERY_EVENT}
STATEMENT_QUERY_KINDS = _QUERY_KINDS   # (the QUERYs :meth:`RowDecoder.feed_statement` reads)


def query_verb(rec, parse: bool = True) -> str | None:
    """The first word of a QUERY record's statement (``begin``, ``insert``, ``alter``...;
    ``load`` for EXECUTE_LOAD_QUERY), lower case; None when it has none (an error, no
    statement) or, with ``parse`` False, when it is none of BEGIN / COMMIT / DML (those are
    read from the bytes of an unparsed QUERY: the status variables and database passed over
    by post_header's rule, without decoding the event, which costs ten times as much). When
    it is not None and not a control or DML word, ``rec.value`` is parsed."""
    kind = rec.kind
    if kind == QUERY_EVENT and rec.unparsed:
        statement = raw_statement(rec)
        verb = statement_verb(statement) if statement is not None else None
        if verb in _CONTROL or verb in _STATEMENT_DML:
            return verb
        if not parse:
            return None
    if rec.error is not None or rec.value is None:
        return None
    body = rec.value.get("body")
    if not isinstance(body, dict) or body.get("query") is None:
        return None
    return "load" if kind == EXECUTE_LOAD_QUERY_EVENT else statement_verb(body["query"])


def is_statement_dml(verb) -> bool:
    """Whether a QUERY whose statement starts with ``verb`` is a statement-based row change
    (INSERT, UPDATE, DELETE, REPLACE, LOAD DATA)."""
    return verb in _STATEMENT_DML


def is_schema_statement(verb) -> bool:
    """Whether a QUERY whose statement starts with ``verb`` (:func:`query_verb`) may change
    the schema: not transaction control, not a statement-based change."""
    return bool(verb) and verb not in _CONTROL and verb not in _STATEMENT_DML


class RowDecoder:
    """Row changes of the rows events in a stream of :class:`EventRecord` (inner events of
    transaction payloads included).

    ``schema``: a :class:`~binlog_schema.changes.schema.SchemaHistory` at the start of the stream
    (seeded): QUERY events fed are replayed into it and table maps without names get the
    history's (see the module's docstring). ``file_index``: this file's place among the files
    of one history (positions are ``(file_index, offset)``). ``on_problem(error)`` and
    ``on_notice(text)`` are called as a :class:`SchemaMismatch` or a notice is found (they are
    also kept in :attr:`problems` and :attr:`notices`); ``on_undecoded(error)`` as a rows
    event's rows cannot be decoded (:meth:`rows_of` raises that error after it; they are
    counted in :attr:`undecoded`). :attr:`statements` counts the
    statement-based changes by verb (``{"insert": 3}``)."""

    def __init__(self, file: str | None = None, schema=None, file_index: int = 0,
                 on_problem=None, on_notice=None, on_undecoded=None, resolved=None):
        self.file = file
        # (a part of a file decoded without the history: what a decoder with it found,
        # by event position, from :meth:`resolutions`)
        self.resolved = resolved
        self.table_maps: dict = {}
        self.codecs: dict = {}
        self.gtid: str | None = None
        self._seen: dict = {}  # TABLE_MAP bytes (sans header) -> (TableMap, RowsCodec)
        self._key_of: dict = {}  # table id -> its TABLE_MAP's key in _seen
        self.schema = schema
        self.file_index = file_index
        self.on_problem, self.on_notice = on_problem, on_notice
        self.on_undecoded = on_undecoded   # (a RowsError, as :meth:`rows_of` raises it)
        self.undecoded = 0            # rows events whose rows could not be decoded
        self.problems: list = []      # SchemaMismatch, one per table map shape and table version
        self.notices: list = []       # sentences: tables not in the history, DDL refused
        self.statements: dict = {}    # statement-based changes by verb
        self.named = 0                # table map shapes named from the history
        self.last_problem = None      # the SchemaMismatch of the last TABLE_MAP fed, if any
        self.last_map = None          # the last TABLE_MAP fed, when the history changed it
        self.last_table = None        # the last TABLE_MAP fed, as in force
        self._noted: set = set()
        self._watched = False         # schema statements replayed by watch(), not feed()
        self._pk_names: dict = {}     # id(TableMap) -> its primary key's column names
        # (resolved given: table id -> (schema version, key names) of its table, by position)
        self._facts: dict = {}
        self._fact = None
        # the kinds besides rows events the decoder follows: table maps, GTIDs and QUERYs
        self.state_kinds = frozenset({TABLE_MAP_EVENT} | GTID_KINDS | _QUERY_KINDS)

    def feed(self, rec):
        """Row changes of one record (and of the events inside it); updates the state."""
        out = []
        for r in [rec] + list(rec.inner or ()):
            out.extend(self.feed_one(r))
        return out

    @property
    def statement_count(self) -> int:
        return sum(self.statements.values())

    def codec_of(self, rec):
        """The RowsCodec of a rows event's table (None when no TABLE_MAP came before it)."""
        return self.codec_by_id(rec.value["body"]["table_id"])

    def codec_by_id(self, tid):
        """The RowsCodec of the table id ``tid`` in force (None when no TABLE_MAP gave it)."""
        codec = self.codecs.get(tid)
        if codec is None:
            tm = self.table_maps.get(tid)
            if tm is None:
                return None
            codec = self.codecs[tid] = RowsCodec(tm, column_names(tm))
            key = self._key_of.get(tid)
            if key is not None and key in self._seen:
                self._seen[key] = (tm, codec)
        return codec

    def rows_of(self, rec):
        """The decoded rows of one rows event (list of dicts, or (before, after) pairs), with
        the typed table map it was decoded through. Rows that cannot be decoded raise a
        :class:`~binlog_schema.format.errors.RowsError` (file, offset, table, column, reason),
        counted in :attr:`undecoded` and handed to ``on_undecoded`` first."""
        body = rec.value["body"]
        codec = self.codec_of(rec)
        if codec is None:
            raise self._undecoded(rec, None, FormatError(
                f"rows event for table id {body['table_id']} with no TABLE_MAP before it",
                offset=rec.offset, path="body.table_id"))
        tm = self.table_maps[body["table_id"]]
        try:
            return codec.decode(body, rec.kind), tm
        except LayoutError as e:
            err = convert_error(e, rec.offset)
            err.path = "body.rows" + (f" ({err.path})" if err.path else "")
            raise self._undecoded(rec, tm, _hinted(err, tm),
                                   getattr(e, "column", None)) from None
        except Exception as e:  # noqa: BLE001 - only typed errors leave the package
            err = FormatError(f"{type(e).__name__}: {e}", offset=rec.offset, path="body.rows")
            err.original = e  # a crash, kept for bug reports (see envelope.convert_error)
            raise self._undecoded(rec, tm, _hinted(err, tm),
                                   getattr(e, "column", None)) from None

    def _undecoded(self, rec, tm, cause, column=None) -> RowsError:
        """The error of a rows event whose rows cannot be decoded: counted, and handed to
        ``on_undecoded``."""
        table = None if tm is None else f"{_text(tm.database)}.{_text(tm.table)}"
        err = RowsError(cause, offset=rec.offset, in_payload_at=rec.parent_offset,
                        event=rec.type_name, table=table,
                        column=None if column is None else str(column), file=self.file)
        err.original = getattr(cause, "original", None)
        self.undecoded += 1
        if self.on_undecoded is not None:
            self.on_undecoded(err)
        return err

    def encode_rows(self, rec, rows) -> bytes:
        tm = self.table_maps[rec.value["body"]["table_id"]]
        return self.codecs[tm.table_id].encode(rows, rec.value["body"], rec.kind)

    def feed_one(self, rec):
        """Row changes of one record alone (not the events inside it); updates the state
        (table maps, GTID, the schema history) from it."""
        kind = rec.kind
        if kind == TABLE_MAP_EVENT:
            # servers write the same TABLE_MAP before every transaction on a table: the typed
            # model and the row codec are built once per distinct map (and, from a lazy
            # reader, the event is not even parsed again)
            key = (rec.raw[HEADER_SIZE:len(rec.raw) - checksum_length(kind, None, rec.ctx)],
                   rec.ctx.flavor, rec.ctx.server_version)
            hit = self._seen.get(key)
            if hit is None:
                if rec.value is None:
                    return []
                tm = table_map_from_event(rec.value, rec.ctx)
                hit = (tm, None)
                if len(self._seen) > 4096:
                    self._seen.clear()
                self._seen[key] = hit
            plain = hit[0]
            if self.schema is not None:
                key, hit = self._resolved(rec, key, hit)
            elif self.resolved is not None:
                key, hit = self._given(rec, key, hit)
            tm = hit[0]
            self.last_map = tm if tm is not plain else None
            self.last_table = tm
            self.table_maps[tm.table_id] = tm
            if self.resolved is not None:
                self._facts[tm.table_id] = self._fact
            if hit[1] is None:
                self.codecs.pop(tm.table_id, None)
            else:
                self.codecs[tm.table_id] = hit[1]
            self._key_of[tm.table_id] = key
            return []
        if kind in _QUERY_KINDS:
            self.feed_statement(rec)
            return []
        if kind not in ROWS_KINDS and kind not in GTID_KINDS:
            return []
        if rec.value is None:
            return []
        g = gtid_of(rec)
        if g is not None:
            self.gtid = g
            return []
        if kind not in ROWS_KINDS:
            return []
        rows, tm = self.rows_of(rec)
        return self.changes_of(rec, rows, tm)

    def changes_of(self, rec, rows, tm) -> list:
        """The :class:`RowChange` objects of a rows event's decoded rows (:meth:`rows_of`)."""
        kind = rec.kind
        names = column_names(tm)
        op = operation_of(kind)
        signed_known = tm.row_metadata != "none" or not any(
            c.type in ("TINY", "SHORT", "INT24", "LONG", "LONGLONG") and c.unsigned is None
            for c in tm.columns)
        pk = self._pk_names.get(id(tm))
        if pk is None:
            if len(self._pk_names) > 4096:
                self._pk_names.clear()
            pk = self._pk_names[id(tm)] = (tm, [names[p["column"]] for p in tm.primary_key
                                               if p["column"] < len(names)]
                                           if tm.primary_key else None)
        pk = pk[1]
        ts = rec.value["header"]["timestamp"]
        out = []
        for i, row in zip(row_places(rec, len(rows)), rows):
            before, after = (row if op == "update" else
                             (row, None) if op == "delete" else (None, row))
            out.append(RowChange(
                tm.database, tm.table, op, i, _named(before), _named(after),
                rec.offset if rec.parent_offset is None else rec.parent_offset, self.gtid, ts,
                self.file, signed_known, names, pk))
        return out

    def schema_version(self, tm):
        """The version of a table map's table in the schema history, as the history is at this
        point of the stream (None: no history, or a table it does not have, or a history
        replayed from nothing: a version is given when a schema was, ``--schema``, so that
        the default history leaves the outputs of files with names as they were)."""
        schema = self.schema
        if schema is None:   # (a part of a file: the history's version, given by position)
            fact = self._facts.get(tm.table_id) if self.resolved is not None else None
            return None if fact is None else fact[0]
        if not schema.seeded or not isinstance(tm.database, str) or \
                not isinstance(tm.table, str):
            return None
        table = schema.table(tm.database, tm.table)
        return getattr(table, "version", None) if table is not None else None

    def schema_key(self, tm):
        """The key column names of a table map's table in the schema history, as it is at
        this point of the stream (the primary key, else the first UNIQUE key of NOT NULL
        columns; [] for none); None: no history, or a table it does not have."""
        schema = self.schema
        if schema is None:   # (a part of a file: the history's key, given by position)
            fact = self._facts.get(tm.table_id) if self.resolved is not None else None
            return None if fact is None else fact[1]
        if not isinstance(tm.database, str) or not isinstance(tm.table, str):
            return None
        table = schema.table(tm.database, tm.table)
        if table is None:
            return None
        key = table.effective_primary_key()[0] if hasattr(
            table, "effective_primary_key") else table.primary_key
        return list(key or [])

    # ------------------------------------------------------------------ the schema history
    def _position(self, rec):
        return (self.file_index, rec.offset if rec.parent_offset is None else rec.parent_offset,
                rec.offset)

    def feed_statement(self, rec):
        """A QUERY (what :meth:`feed_one` does with one): a statement-based change is
        counted; a schema change is replayed into the history (a refused one noted: its
        table is unknown from there). Returns its verb (:func:`query_verb`): None when it
        names none, or, the record left unparsed, none of BEGIN, COMMIT and DML."""
        if self.resolved is not None:
            self._given(rec, None, None)
        if self.schema is None and rec.unparsed and rec.kind == QUERY_EVENT:
            # (only counting: a statement that ends so is no change; most QUERYs are these)
            raw = rec.raw
            end = len(raw) - checksum_length(QUERY_EVENT, None, rec.ctx)
            if raw.endswith(b"BEGIN", 0, end):
                return "begin"
            if raw.endswith(b"COMMIT", 0, end):
                return "commit"
        verb = query_verb(rec, self.schema is not None)
        if verb is None or verb in _CONTROL:
            return verb
        if verb in _STATEMENT_DML:
            self.statements[verb] = self.statements.get(verb, 0) + 1
            return verb
        if self.schema is None:
            return verb
        if self._watched:   # (replayed already, as it passed: see watch)
            return verb
        self._replay(rec)
        return verb

    def _replay(self, rec) -> None:
        """A schema statement replayed into the history (a refused one noted when the user
        gave the schema: without one, what matters is said of the table, see _resolved)."""
        if not self.schema.seeded:   # (quiet: replayed when a table map needs it)
            self.schema.defer(rec, self._position(rec))
            return
        from .schema.session import DDLRefused
        try:
            self.schema.apply_query(rec.value["body"], rec.ctx, self._position(rec))
        except DDLRefused as e:
            self.schema.refused.append(e)
            where = rec.offset if rec.parent_offset is None else rec.parent_offset
            tables = ", ".join(f"{d}.{t}" for d, t in e.tables)
            self._notice(f"statement at {where} not applied to the schema history: {e}"
                         + (f" ({tables} unknown from here: rows keep @N names)"
                            if tables else ""))

    def watch(self, records):
        """``records`` as they are, the schema statements among them (inner events of
        transaction payloads included) replayed into the history as they pass: for a
        caller that hands :meth:`feed` only some records (a selection), so that the
        history still follows every statement of the stream."""
        if self.schema is None:
            yield from records
            return
        self._watched = True
        for rec in records:
            for r in (rec,) if rec.inner is None else (rec, *rec.inner):
                if r.kind in _QUERY_KINDS and r.error is None and \
                        is_schema_statement(query_verb(r)):
                    self._replay(r)
            yield rec

    def resolutions(self, records, out: dict | None = None, facts: bool = False) -> dict:
        """What this decoder's history does to the TABLE_MAPs and statements of ``records``
        (their inner events included; records of other kinds are passed over), by event
        position: ``{(offset, inner offset): (the map as the history resolved it, or None
        when it left it as it is; the SchemaMismatch found there or None; [notices])}``,
        only where it did something. A decoder given them (``resolved=``) without a history
        decodes a part of the same file as this one would: a file's parts can so be decoded
        apart, each problem and notice said once, where it was found. ``out``: the dict to
        fill (what came before an error raised by ``records`` is in it). ``facts``: a
        TABLE_MAP's entry has a fourth item, ``(``:meth:`schema_version`, :meth:`schema_key`
        ``)`` of its table there (a TABLE_MAP whose table the history has gets an entry)."""
        out = {} if out is None else out
        kinds = _QUERY_KINDS | {TABLE_MAP_EVENT}
        for rec in records:
            for r in (rec,) if rec.inner is None else (rec, *rec.inner):
                if r.kind not in kinds:   # (not parsed here: feed_one parses what it needs)
                    continue
                problems, notices = len(self.problems), len(self.notices)
                self.last_map = self.last_table = None
                self.feed_one(r)
                found = self.problems[problems:]
                fact = None
                if facts and self.last_table is not None:
                    tm = self.last_table
                    fact = (self.schema_version(tm), self.schema_key(tm))
                    if fact == (None, None):
                        fact = None
                if self.last_map is not None or found or len(self.notices) > notices or \
                        fact is not None:
                    entry = (self.last_map, found[0] if found else None,
                             self.notices[notices:])
                    out[self._position(r)[1:]] = entry if fact is None else (*entry, fact)
        return out

    def _given(self, rec, key, hit):
        """(cache key, (TableMap, codec)) of a TABLE_MAP (or nothing, for a QUERY) as
        :attr:`resolved` says, its problem and notices said here."""
        got = self.resolved.get(self._position(rec)[1:])
        self._fact = None
        if got is None:
            return key, hit
        tm, problem, notices = got[:3]
        if len(got) > 3:
            self._fact = got[3]
        if problem is not None:
            self.problems.append(problem)
            self.last_problem = problem
            if self.on_problem is not None:
                self.on_problem(problem)
        for text in notices:
            self._notice(text)
        if tm is None:
            return key, hit
        key = ("resolved", id(tm))
        hit = self._seen.get(key)
        if hit is None:
            hit = self._seen[key] = (tm, None)
        return key, hit

    def _notice(self, text: str) -> None:
        self.notices.append(text)
        if self.on_notice is not None:
            self.on_notice(text)

    def _resolved(self, rec, key, hit):
        """(cache key, (TableMap, codec)) of a TABLE_MAP with the history's table in force:
        the map itself (FULL, checked; or no table; or a disagreement, reported) or a copy
        with the history's names, members and primary key."""
        self.last_problem = None
        tm = hit[0]
        db, name = tm.database, tm.table
        has_names = any(c.name for c in tm.columns)
        if has_names and not self.schema.seeded and not hires_candidates(tm):
            return key, hit   # (its names are the map's: a history nobody gave is not asked)
        table = self.schema.table(db, name) if isinstance(db, str) and \
            isinstance(name, str) else None
        if table is None:
            why = self.schema.unknown.get(self.schema.key(db, name)) \
                if isinstance(db, str) and isinstance(name, str) else None
            # (a table never seen, without a schema given: @N names as without a history)
            if not has_names and (db, name) not in self._noted and (
                    why or self.schema.seeded):
                self._noted.add((db, name))
                self._notice(f"table {_text(db)}.{_text(name)} (TABLE_MAP at "
                             f"{self._position(rec)[1]}) is "
                             + (f"unknown to the schema history ({why})" if why else
                                "not in the schema history")
                             + ": its rows keep @N names")
            return key, hit
        skey = (key, id(table))
        got = self._seen.get(skey)
        if got is not None:
            return skey, got
        problems = table.check(tm)
        if problems:
            at = self._position(rec)[1]
            where = "the table map's names kept" if has_names else "rows decoded with @N names"
            err = SchemaMismatch(
                f"table {db}.{name}: the table map disagrees with the schema history "
                f"(version {table.version}): " + "; ".join(problems) + f" ({where})",
                offset=at, path="table_map", file=self.file, table=f"{db}.{name}",
                differences=problems, names="table map" if has_names else "@N")
            self.problems.append(err)
            self.last_problem = err
            if self.on_problem is not None:
                self.on_problem(err)
            got = hit
        else:
            resolved = with_schema(tm, table)
            got = hit if resolved is tm else (resolved, None)
            if not has_names:
                self.named += 1
        self._seen[skey] = got
        return skey, got


def hires_candidates(tm) -> list:
    """The columns of a MariaDB table map that may be in MariaDB's hi-res TIME, DATETIME or
    TIMESTAMP format (an old type code whose precision is not known: only the schema can say
    whether they have a fractional part, and how long their values are)."""
    if tm.flavor != "mariadb":
        return []
    return [c for c in tm.columns if c.type in OLD_TEMPORAL and c.fsp is None]


def _hinted(err, tm):
    """A rows event's error, with the likely reason when its MariaDB table map has columns of
    old temporal type codes of unknown precision (hi-res ones cannot be read without it)."""
    cols = hires_candidates(tm)
    if cols:
        hint = (
            "; columns " + ", ".join(f"{c.index + 1} ({c.type})" for c in cols) + " may be "
            "MariaDB's hi-res TIME/DATETIME/TIMESTAMP (a fractional part, "
            "mysql56_temporal_format=OFF), whose precision is not in the binlog: give the "
            "table's CREATE TABLE (in the files decoded, or with --schema)")
        err.message += hint
        err.args = (err.args[0] + hint,) if err.args else (hint,)
    return err


def named_table_map(tm, table) -> TableMap:
    """A copy of a TABLE_MAP without names (``tm``) with what the schema history's ``table``
    (agreeing with it) adds, as FULL metadata would: column names, ENUM/SET members, the
    primary key, and each fact the map does not carry (signedness, collations; visibility on
    MySQL)."""
    facts = table.binlog_columns(tm.flavor)
    out = _copy(tm)
    for c, fact in zip(out.columns, facts):
        for k in _COLUMN_FIELDS:
            if getattr(c, k) is None and getattr(fact, k, None) is not None:
                setattr(c, k, getattr(fact, k))
    names, prefixes = table.effective_primary_key()
    if tm.primary_key is None and names:
        out.primary_key = [{"column": table.index_of(n), "prefix": p}
                           for n, p in zip(names, prefixes)]
    return out


def with_schema(tm, table) -> TableMap:
    """A TABLE_MAP as its schema history's ``table`` (agreeing with it: ``Table.check``)
    completes it: without names, :func:`named_table_map`; with names, the precision of its
    MariaDB hi-res temporal columns (:func:`precise_table_map`), or the map itself when it
    has none."""
    if any(c.name for c in tm.columns):
        hires = table.hires_precisions(tm)
        return precise_table_map(tm, hires) if hires else tm
    return named_table_map(tm, table)


def precise_table_map(tm, precisions: dict) -> TableMap:
    """A copy of a TABLE_MAP with names (FULL) whose columns ``precisions`` ({index: fsp},
    :meth:`~binlog_schema.changes.schema.model.Table.hires_precisions`) are MariaDB's hi-res
    TIME/DATETIME/TIMESTAMP: their precision, which only the schema history knows, set."""
    out = _copy(tm)
    for i, fsp in precisions.items():
        out.columns[i].fsp = fsp
    return out


def _copy(tm) -> TableMap:
    out = TableMap(**{k: getattr(tm, k) for k in _MAP_FIELDS})
    out.columns = [Column(**{k: getattr(col, k) for k in _COLUMN_FIELDS}) for col in tm.columns]
    return out


_COLUMN_FIELDS = fields(Column)
_MAP_FIELDS = fields(TableMap)


def _text(v) -> str:
    return v if isinstance(v, str) else bytes(v).hex()


def _named(image):
    """An image as the row change shows it: column name -> value (spare-bit keys dropped)."""
    if image is None or ("_null_bits" not in image and "_value_options" not in image):
        return image
    return {k: v for k, v in image.items()
            if k not in ("_null_bits", "_value_options", "_partial_json_bits")}


__all__ = ["RowChange", "RowDecoder", "gtid_of", "gtid_text", "named_table_map", "query_verb",
           "with_schema",
           "is_schema_statement", "is_statement_dml", "STATEMENT_QUERY_KINDS", "KeptRows",
           "row_places",
           "BinlogError", "SchemaMismatch"]



"""A row's history: ``--where 'id=42'``, the row predicate ``decode``, ``sql``,
``sql --flashback``, ``flashback``, ``stats`` and ``stream`` share.

Conditions are ``COLUMN=VALUE``, several joined by ``AND`` (or given in several ``--where``);
a row change matches when its before image or its after image meets all of them. A value is
read in the type of its column, per table shape (:class:`RowPredicate`, made once per table
map): integers (and YEAR, BIT) as whole numbers, DECIMAL as an exact decimal, FLOAT and
DOUBLE as the column stores them (a FLOAT compares in single precision), strings as text in
the column's character set (compared exactly: no collation, case and trailing spaces count;
binary columns against the text's UTF-8 bytes, or ``0x...`` hex), ENUM by member name or
index, SET by its members (``a,c``), DATE, DATETIME, TIMESTAMP (UTC) and TIME by their usual
text (``2024-05-01 12:00:00.5``); ``NULL`` (unquoted) or ``IS NULL`` matches a NULL. A value may
be quoted with ``'`` or ``"`` (doubled inside), and a column name with backquotes.

Column names come from the table map (FULL metadata) or the schema history (MINIMAL). A
table that lacks a named column holds no matching row, and its rows events are passed over
without decoding their rows; when the tables are named (``--table``) a selected table that
lacks one is a usage error naming the column and the table, and so it is when no table of the
input has them (:meth:`RowMatcher.check_used`).

:class:`RowMatcher` follows a stream of event records: :meth:`RowMatcher.events` keeps, of the
rows events of tables that have the columns, only the rows that match (an event with some
matching rows is rebuilt with those alone; its size and CRC32 computed again), and drops the
others; :meth:`RowMatcher.count` counts an event's matching rows; :meth:`RowMatcher.transaction`
does the same for a transaction read backwards (flashback).
"""

from __future__ import annotations

import copy
import datetime as _dt
import decimal
import re
import struct

from ..format.facts.framing import crc_ok
from ..format.facts.post_header import table_id_of
from ..format.records import record


class WhereError(ValueError):
    """A ``--where`` that cannot be used (said with the option's name): a usage error."""


@record(frozen=True)
class Condition:
    column: str
    value: str | None      # the text of the value; None: NULL


_NAME = r"(?:`(?:[^`]|``)+`|[A-Za-z0-9_$@.]+)"
_VALUE = r"(?:'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|[^\s'\"]+)"
_ONE = re.compile(rf"\s*({_NAME})\s*(?:=\s*({_VALUE})|(?i:IS\s+NULL))\s*")
_AND = re.compile(r"(?i)AND\b\s*")


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"`":
        q = text[0]
        return text[1:-1].replace(q + q, q)
    return text


def parse_where(texts) -> tuple:
    """The conditions of ``--where`` values (a string or a list of them): ``a=1 AND b='x'``.
    Raises :class:`WhereError` on anything else."""
    if isinstance(texts, str):
        texts = [texts]
    out = []
    for text in texts or ():
        pos, n = 0, len(text)
        while True:
            m = _ONE.match(text, pos)
            if m is None:
                raise WhereError(f"--where: {text!r}: expected COLUMN=VALUE (several joined "
                                 f"by AND) at {text[pos:pos + 20]!r}")
            name, value = _unquote(m.group(1)), m.group(2)
            if value is None or value.upper() == "NULL":
                out.append(Condition(name, None))
            else:
                out.append(Condition(name, _unquote(value)))
            pos = m.end()
            if pos >= n:
                break
            a = _AND.match(text, pos)
            if a is None:
                raise WhereError(f"--where: {text!r}: conditions are joined by AND (at "
                                 f"{text[pos:pos + 20]!r})")
            pos = a.end()
    if not out:
        raise WhereError("--where: no condition (COLUMN=VALUE)")
    return tuple(out)


# ------------------------------------------------------------------ typed values

_INTEGERS = frozenset({"TINY", "SHORT", "INT24", "LONG", "LONGLONG", "YEAR", "BIT"})
_STRINGS = frozenset({"VARCHAR", "STRING", "VAR_STRING", "BLOB", "TINY_BLOB", "MEDIUM_BLOB",
                      "LONG_BLOB", "VARCHAR_COMPRESSED", "BLOB_COMPRESSED"})
_DATETIME = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})"
                       r"(?:\.(\d{1,6}))?)?)?Z?$")
_TIME = re.compile(r"^(-)?(\d+):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6}))?)?$")


def _bad(cond, column_type, what):
    return WhereError(f"--where: {cond.column}={cond.value!r}: the column is {column_type}, "
                      f"the value is not {what}")


def _test_of(cond: Condition, col, flavor=None):
    """``value -> bool`` for one condition on one column (``col``: a table map Column;
    ``flavor``: its server's, whose JSON is text (MariaDB) or binary (MySQL))."""
    from ..format.facts.flavor import json_is_binary
    from ..format.values import temporal as t
    from ..format.values.codecs import EnumValue, SetValue
    if cond.value is None:
        return lambda v: v is None
    text, ty = cond.value, col.type
    real = col.real_type or ty
    if real == "ENUM":
        if text.isdigit():
            want = int(text)
            return lambda v: isinstance(v, EnumValue) and v.index == want
        return lambda v: isinstance(v, EnumValue) and v.name == text
    if real == "SET":
        members = frozenset(x for x in text.split(",") if x)
        if text.isdigit():
            bits = int(text)
            return lambda v: isinstance(v, SetValue) and v.bits == bits
        return lambda v: isinstance(v, SetValue) and v.names is not None and \
            frozenset(v.names) == members
    if ty in _INTEGERS:
        try:
            want = int(text, 0) if text.lower().startswith(("0x", "0b")) else int(text)
        except ValueError:
            raise _bad(cond, ty, "a whole number") from None
        return lambda v: v is not None and not isinstance(v, bool) and v == want
    if ty == "NEWDECIMAL":
        try:
            want = decimal.Decimal(text)
        except decimal.InvalidOperation:
            raise _bad(cond, ty, "a decimal number") from None
        return lambda v: isinstance(v, decimal.Decimal) and v == want
    if ty in ("FLOAT", "DOUBLE"):
        try:
            want = float(text)
        except ValueError:
            raise _bad(cond, ty, "a number") from None
        if ty == "FLOAT":
            want = struct.unpack("<f", struct.pack("<f", want))[0]
        return lambda v: isinstance(v, float) and v == want
    if ty in ("DATE", "NEWDATE", "DATETIME", "DATETIME2", "TIMESTAMP", "TIMESTAMP2"):
        m = _DATETIME.match(text.strip())
        if m is None:
            raise _bad(cond, ty, "a date or time (YYYY-MM-DD[ HH:MM:SS[.ffffff]])")
        y, mo, d, h, mi, s, frac = m.groups()
        parts = [int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0),
                 int((frac or "").ljust(6, "0"))]
        if ty in ("DATE", "NEWDATE"):
            want = t.Date(*parts[:3])
            return lambda v: v == want
        if ty.startswith("DATETIME"):
            want = t.DateTime(*parts)
            return lambda v: v == want
        if parts[:3] == [0, 0, 0]:
            want = t.Timestamp(0, 0)
        else:
            try:
                moment = _dt.datetime(*parts[:6], tzinfo=_dt.timezone.utc)
            except ValueError:
                raise _bad(cond, ty, "a time that exists") from None
            want = t.Timestamp(int(moment.timestamp()), parts[6])
        return lambda v: v == want
    if ty in ("TIME", "TIME2"):
        m = _TIME.match(text.strip())
        if m is None:
            raise _bad(cond, ty, "a time ([-]HH:MM:SS[.ffffff])")
        neg, h, mi, s, frac = m.groups()
        want = t.Time(bool(neg), int(h), int(mi), int(s or 0), int((frac or "").ljust(6, "0")))
        if want == t.Time(True, 0, 0, 0, 0):
            want = t.Time(False, 0, 0, 0, 0)
        return lambda v: v == want
    if ty in _STRINGS or (ty == "JSON" and not json_is_binary(flavor or "mysql")):
        raw = bytes.fromhex(text[2:]) if text[:2].lower() == "0x" and \
            re.fullmatch(r"(?:[0-9a-fA-F]{2})*", text[2:]) else text.encode("utf-8")

        def test(v, text=text, raw=raw):
            if isinstance(v, str):
                return v == text
            if isinstance(v, (bytes, bytearray, memoryview)):
                return bytes(v) == raw
            data = getattr(v, "data", None)   # (a MariaDB compressed column's value)
            if isinstance(data, str):
                return data == text
            return isinstance(data, (bytes, bytearray)) and bytes(data) == raw
        return test
    raise WhereError(f"--where: {cond.column}: a {ty} column cannot be compared (integers, "
                     "decimals, floats, strings, ENUM, SET, dates and times can)")


class RowPredicate:
    """The conditions compiled for one table shape: :meth:`matches` takes an image (a dict
    by column name, as the row decoder gives it) or None."""

    def __init__(self, conditions, tm, names):
        index = {name: i for i, name in enumerate(names)}
        self.tests = []
        for cond in conditions:
            i = index[cond.column]
            self.tests.append((cond.column, _test_of(cond, tm.columns[i], tm.flavor)))

    def matches(self, image) -> bool:
        if image is None:
            return False
        for name, test in self.tests:
            if name not in image or not test(image[name]):
                return False
        return True


class RowMatcher:
    """The ``--where`` conditions over a stream of event records. ``selection``: the
    command's :class:`~.selection.Selection` (its tables; when it names tables, a selected
    one that lacks a column is a usage error); ``schema``: the schema history at the start
    of the first file (a copy is followed here: column names for MINIMAL metadata)."""

    def __init__(self, conditions, selection=None, schema=None):
        from .row_change import RowDecoder
        self.conditions = tuple(conditions)
        self.columns = tuple(dict.fromkeys(c.column for c in self.conditions))
        self.selection = selection
        self.strict = selection is not None and selection.tables is not None
        self.schema = None if schema is None else copy.deepcopy(schema)
        self.decoder = RowDecoder(None, schema=self.schema)
        self._shapes: dict = {}   # id(TableMap) -> (TableMap, RowPredicate or None)
        self.used = False         # a table with every column was met
        self.tables_seen = 0

    # ------------------------------------------------------------------ table shapes

    def predicate(self, tm):
        """The :class:`RowPredicate` of a table map (None: the table lacks a column, or is
        not selected); raises :class:`WhereError` for a table named by ``--table`` that
        lacks one."""
        hit = self._shapes.get(id(tm))
        if hit is not None and hit[0] is tm:
            return hit[1]
        from .row_change import column_names
        pred = None
        selected = self.selection is None or self.selection.table(tm.database, tm.table)
        if selected:
            names = column_names(tm)
            missing = [c for c in self.columns if c not in names]
            self.tables_seen += 1
            if missing and self.strict:
                from .stats import table_name
                raise WhereError(
                    f"--where: table {table_name(tm.database)}.{table_name(tm.table)} has no "
                    f"column {', '.join(missing)} (its columns: {', '.join(names)})")
            if not missing:
                pred = RowPredicate(self.conditions, tm, names)
                self.used = True
        if len(self._shapes) > 4096:
            self._shapes.clear()
        self._shapes[id(tm)] = (tm, pred)
        return pred

    def wanted(self, tm) -> bool:
        return self.predicate(tm) is not None

    def check_used(self) -> None:
        """A usage error when no table of the input had every named column (a name written
        wrong matches nothing: said, not an empty answer)."""
        if not self.used:
            raise WhereError(f"--where: no table of the input has the column"
                             f"{'s' if len(self.columns) > 1 else ''} "
                             f"{', '.join(self.columns)}"
                             + ("" if self.tables_seen else " (no row changes were read)"))

    # ------------------------------------------------------------------ rows

    def matching(self, decoder, rec, tm=None):
        """The indexes of the rows of a rows event that match (None: its rows do not decode:
        the decoder said why)."""
        from ..format.errors import BinlogError
        if tm is None:
            tm = decoder.table_maps.get(rec.value["body"]["table_id"])
        pred = self.predicate(tm) if tm is not None else None
        if pred is None:
            return []
        try:
            rows, _ = decoder.rows_of(rec)
        except BinlogError:
            return None
        out = []
        if rows and isinstance(rows[0], tuple):
            for i, (before, after) in enumerate(rows):
                if pred.matches(before) or pred.matches(after):
                    out.append(i)
        else:
            for i, image in enumerate(rows):
                if pred.matches(image):
                    out.append(i)
        return out

    def count(self, decoder, rec):
        """How many rows of a rows event match (None: they do not decode)."""
        got = self.matching(decoder, rec)
        return None if got is None else len(got)

    def kept(self, decoder, rec, tm=None):
        """A rows event with its matching rows only: the record itself when all match, a
        record rebuilt with those rows when some do, None when none does; the record as it
        is when its rows do not decode (the reader after says so)."""
        indexes = self.matching(decoder, rec, tm)
        if indexes is None:
            return rec
        if not indexes:
            return None
        body = rec.value["body"]
        tm = tm or decoder.table_maps[body["table_id"]]
        spans: list = []
        codec = decoder.codec_by_id(body["table_id"])
        codec.decode(body, rec.kind, spans=spans)
        if len(indexes) == len(spans):
            return rec
        return _with_rows(rec, [spans[i] for i in indexes], indexes)

    # ------------------------------------------------------------------ streams

    def events(self, records):
        """The records of a stream with only the transactions that hold a matching row
        change, and of those only the matching rows (rows events of other tables dropped, an
        event with some matching rows rebuilt with them; inside a TRANSACTION_PAYLOAD too);
        the events outside transactions, and anything damaged (with its transaction), pass.
        Transactions follow the one boundary rule (:class:`~.transactions.Boundary`); an
        event is not parsed unless its rows may match (a CRC32 that does not verify is
        damage: passed on, for the reader after to say), so that a row's history in a large
        file costs little more than reading it. A transaction's events wait, up to a bound in
        memory (:class:`~.transactions.HeldRecords`), until one of its rows matches."""
        from ..format.facts.codes import QUERY_KINDS, ROWS_KINDS, TABLE_MAP_EVENT
        from .transactions import (ALONE, BOUNDARY_KINDS, CLOSES, OPENS, OUTSIDE, Boundary,
                                   HeldRecords)
        decoder = self.decoder
        # (table maps; the statements too when a schema history names the columns: its DDL)
        state = frozenset({TABLE_MAP_EVENT}) | (QUERY_KINDS & decoder.state_kinds
                                                if self.schema is not None else frozenset())
        boundary = Boundary()
        held = HeldRecords()
        keep = False          # the open transaction holds a matching change (or damage)
        for rec in records:
            if rec.gap is not None or not crc_ok(rec.raw, rec.kind, rec.ctx) or (
                    not rec.unparsed and rec.error is not None):
                if not keep:
                    yield from held.drain()
                keep = boundary.open
                yield rec
                continue
            kind = rec.kind
            if rec.inner is not None:   # (a compressed transaction: its events inside)
                inner, matched = [], False
                for r in rec.inner:
                    if r.kind in BOUNDARY_KINDS:
                        boundary.feed(r)
                    got = self._one(r, decoder, state, ROWS_KINDS)
                    if got is not None:
                        inner.append(got)
                        matched = matched or got.kind in ROWS_KINDS
                if len(inner) != len(rec.inner):
                    rec = _with_inner(rec, inner)
                if matched and not keep:
                    yield from held.drain()
                    keep = True
                if keep:
                    yield rec
                else:
                    held.add(rec)
                if not boundary.open:
                    held.clear()
                    keep = False
                continue
            step = boundary.feed(rec) if kind in BOUNDARY_KINDS else None
            if step == OPENS:
                held.clear()
                keep = False
            elif step == OUTSIDE or step == ALONE:
                if kind in state:
                    self._one(rec, decoder, state, ROWS_KINDS)
                yield rec
                continue
            elif step is None and not boundary.open:
                if kind not in ROWS_KINDS and kind != TABLE_MAP_EVENT:
                    yield rec   # (an event outside any transaction)
                    continue
                boundary.join()   # (read from a transaction's middle: it begins here)
                held.clear()
                keep = False
            got = self._one(rec, decoder, state, ROWS_KINDS)
            if got is not None:
                if not keep and kind in ROWS_KINDS:
                    yield from held.drain()
                    keep = True
                if keep:
                    yield got
                else:
                    held.add(got)
            if step == CLOSES:
                held.clear()
                keep = False
        if not keep:
            held.clear()

    def _one(self, rec, decoder, state, rows_kinds):
        kind = rec.kind
        if kind in rows_kinds:
            # (the table id read from the bytes: a rows event of another table is not parsed)
            # (its CRC32 checked: damage is passed on, for the reader after to say)
            tm = decoder.table_maps.get(table_id_of(rec.raw, rec.ctx))
            if tm is not None and not self.wanted(tm) and crc_ok(rec.raw, kind, rec.ctx):
                return None
            if tm is None or rec.error is not None or rec.value is None:
                return rec   # (no TABLE_MAP before it, or damage: the reader after says so)
            return self.kept(decoder, rec, tm)
        if kind in state:   # (a table map seen before is not parsed again)
            decoder.feed_one(rec)
        return rec

    def transaction(self, tx):
        """A transaction read backwards (:class:`~.backwards.BackTransaction`) with only its
        matching rows, or None when it has none (its statements' table maps followed with
        this matcher's decoder)."""
        statements = []
        rows = 0
        for st in tx.statements():
            for m in st.maps:
                self.decoder.feed_one(m)
            kept = []
            for rec in st.rows():
                tm = self.decoder.table_maps.get(rec.value["body"]["table_id"]) \
                    if rec.value is not None else None
                if tm is None or rec.error is not None:
                    kept.append(rec)   # (the inversion refuses it, saying why)
                    continue
                if not self.wanted(tm):
                    continue
                got = self.kept(self.decoder, rec, tm)
                if got is not None:
                    kept.append(got)
            if kept:
                statements.append(_Statement(st.maps, kept))
                rows += len(kept)
        if not statements:
            return None
        return _Transaction(tx, statements, rows)


class _Statement:
    def __init__(self, maps, rows):
        self.maps, self._rows = maps, rows

    def rows(self):
        return iter(self._rows)


class _Transaction:
    """A transaction read backwards, its statements and rows those that match."""

    def __init__(self, tx, statements, rows):
        self._tx, self._statements, self.rows_count = tx, statements, rows

    def statements(self):
        return iter(self._statements)

    def __getattr__(self, name):
        return getattr(self._tx, name)


def _with_rows(rec, spans, places):
    """A rows event record rebuilt with the rows of ``spans`` (their bytes as they are), which
    are the rows ``places`` of ``rec``."""
    from ..format.event_codec import build_event
    from .row_change import KeptRows
    value = rec.value
    body = value["body"]
    rows_field = body["rows"]
    data = bytes(rows_field["data"] if isinstance(rows_field, dict) else rows_field)
    new_data = b"".join(data[a:e] for a, _m, e in spans)
    new_body = dict(body)
    new_body["rows"] = {"data": new_data, "compressed": None} \
        if isinstance(rows_field, dict) else new_data
    header = {k: v for k, v in value["header"].items() if not k.startswith("_")}
    header["event_size"] = None
    new = {k: v for k, v in value.items() if k not in ("header", "body", "checksum")}
    new["header"], new["body"] = header, new_body
    raw = build_event(new, rec.ctx.replace(offset=rec.offset))
    kept = KeptRows(rec.offset, raw, rec.ctx, parent_offset=rec.parent_offset, lazy=True)
    kept.places = tuple(places)
    return kept


def _with_inner(rec, inner):
    from ..format.stream import EventRecord
    return EventRecord(rec.offset, rec.raw, rec.ctx, rec.value, rec.error, inner,
                       rec.parent_offset)


__all__ = ["Condition", "RowMatcher", "RowPredicate", "WhereError", "parse_where"]

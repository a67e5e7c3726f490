"""The row changes of binlog files as SQL lines, forward (replay) or inverted (flashback): the
Python iterator :func:`sql_statements` (``binlog-schema sql`` writes them:
:func:`.sql_script.write_sql`).

Output: the session settings the literals need (:data:`.sql_text.SESSION_SQL`), then one
block per transaction::

    -- GTID 0-1-7 (binlog.000002 at 1234)
    BEGIN;
    -- binlog.000002:1290 row 1, 2026-11-24 10:00:00 UTC
    UPDATE `shop`.`orders` SET `state` = _utf8mb4'paid' WHERE `id` = 42;
    COMMIT;

Forward, the transactions and statements are in binlog order; a schema change in the range
is a comment (the statements replay row changes only). With ``flashback`` the transactions
come last first, each one's statements last first, each the inverse of its change; the files
are read backwards by transaction (:mod:`..changes.backwards`): memory stays flat in the files'
size, and what cannot be inverted is refused before anything is written (a schema change in
the range ends the range before it, said on stderr).
"""

from __future__ import annotations

import datetime as _dt

from ..format.errors import BinlogError, TruncatedError
from ..format.facts.codes import QUERY_EVENT
from .sql_statements import SqlRefused, SqlTable
from .sql_text import SESSION_SQL

# exit statuses (as decode's)


def _when(ts: int) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _name(path) -> str:
    import os
    return os.path.basename(str(path))


class _Tables:
    """A :class:`SqlTable` per table map (made once)."""

    def __init__(self):
        self.cache: dict = {}

    def of(self, tm, names) -> SqlTable:
        t = self.cache.get(id(tm))
        if t is None or t[0] is not tm:
            if len(self.cache) > 4096:
                self.cache.clear()
            t = self.cache[id(tm)] = (tm, SqlTable(tm, names, tm.flavor or "mysql"))
        return t[1]


def header() -> list:
    return [f"{s};" for s in SESSION_SQL]


def _begin(path, tx_begin, gtid) -> list:
    what = f"GTID {gtid}" if gtid else "transaction"
    return [f"-- {what} ({_name(path)} at {tx_begin})", "BEGIN;"]


class _Comments:
    """The comment line before each statement (``-- FILE:OFFSET row N, WHEN``): the file's
    name made once, a timestamp's text once for the run of changes that share it."""

    def __init__(self):
        self.path = self.name = self.ts = None
        self.when = ""

    def line(self, change, path) -> str:
        if path is not self.path:
            self.path, self.name = path, _name(path)
        ts = change.timestamp or 0
        if ts != self.ts:
            self.ts, self.when = ts, _when(ts)
        return f"-- {self.name}:{change.offset} row {change.row_index + 1}, {self.when}"


# ------------------------------------------------------------------------ forward


def forward_statements(paths, selection, *, start=None, stop=None, schema=None,
                       watch=None, file_index: int = 0):
    """The SQL lines of the files' row changes in binlog order (no header). Raises the
    :class:`~binlog_schema.format.errors.RowsError` of rows that cannot be decoded (through their
    TABLE_MAP, or without one: a read that starts inside a transaction) and an error for a
    file cut short: a replay without them would be a wrong one. ``selection.where``: only
    the matching rows (changes/row_match.py; a :class:`~..model.row_match.WhereError` when no
    table has its columns); ``watch``: a progress line's, over each file's records;
    ``file_index``: the first file's place in the schema history's files."""
    from ..changes.row_change import RowDecoder
    from ..format.stream import BinlogReader
    tables = _Tables()
    last = len(paths) - 1
    matcher = None
    if selection.where is not None:
        from ..changes.row_match import RowMatcher
        matcher = RowMatcher(selection.where, selection, schema)
    for n, path in enumerate(paths):
        reader = BinlogReader(path, decode="lazy", start=start if n == 0 else None,
                              stop=stop if n == last else None)
        decoder = RowDecoder(str(path), schema=schema, file_index=file_index + n)
        yield from file_statements(path, reader, decoder, selection, tables, matcher, watch)
    if matcher is not None:
        matcher.check_used()


def file_statements(path, reader, decoder, selection, tables=None, matcher=None, watch=None):
    """The SQL lines of one file's records (``reader``'s: the file, or a segment of it),
    through ``decoder``; a schema change in a comment. ``tables``: the statements' writers
    per table map, kept from file to file."""
    from ..changes.row_change import is_schema_statement, query_verb
    pending: list = []
    tables = _Tables() if tables is None else tables

    def watched(records):
        for rec in records:
            if rec.kind == QUERY_EVENT and rec.error is None:
                verb = query_verb(rec, False)
                if verb is None:
                    verb = query_verb(rec)
                if is_schema_statement(verb):
                    body = rec.value["body"]
                    if selection.database(body.get("database") or None):
                        pending.append(
                            f"-- {_name(path)}:{rec.offset}: schema change, not replayed:"
                            f" {' '.join(str(body.get('query')).split())[:200]}")
            yield rec

    try:
        records = watched(reader if watch is None else watch(reader))
        if matcher is not None:
            records = matcher.events(records)
        yield from _forward_file(path, records, decoder, selection, tables, pending)
        if reader.tail is not None:
            raise TruncatedError(
                f"truncated last event at {reader.tail.offset}: the file is cut, its "
                "last transaction cannot be trusted", offset=reader.tail.offset,
                path="event")
    except BinlogError as e:
        if getattr(e, "file", None) is None:
            e.file = str(path)
        raise


def _forward_file(path, records, decoder, selection, tables, pending):
    from ..changes.transactions import transaction_events
    from ..format.values.rows import operation_of
    comment = _Comments().line
    open_tx = None
    for rec, rows, tm, tx, _offset, _payload in transaction_events(records, decoder):
        if pending:
            yield from pending
            pending.clear()
        if rec is None:
            if tx is open_tx:
                yield "COMMIT;"
                open_tx = None
            continue
        for _ in rows:
            tx.count(tm.database, tm.table)
        if not selection.table(tm.database, tm.table) or not selection.operation(
                operation_of(rec.kind)) or not selection.transaction(tx.gtid, tx.thread_id,
                                                            tx.timestamp):
            continue
        changes = decoder.changes_of(rec, rows, tm)
        if not changes:
            continue
        table = _located(lambda ch, tm=tm: tables.of(tm, ch.columns), changes[0], rec, path)
        if tx is not open_tx:
            if open_tx is not None:   # (its end not in the stream)
                yield "COMMIT;"
            open_tx = tx
            yield from _begin(path, tx.begin, tx.gtid)
        for ch in changes:
            text = _located(table.statement, ch, rec, path)
            yield comment(ch, path)
            yield f"{text};" if text is not None else "-- (no column changes)"
    if pending:
        yield from pending
    if open_tx is not None:
        yield "-- (the transaction does not end in this file)"
        yield "COMMIT;"


def _located(render, change, rec, path):
    """``render(change)``, a refusal naming the file, the rows event and the row."""
    try:
        return render(change)
    except SqlRefused as e:
        raise SqlRefused(f"{path}: {rec.type_name} at {change.offset} (row "
                         f"{change.row_index + 1}): {e}") from None


# ------------------------------------------------------------------------ backward


def flashback_statements(index, *, schema=None, matcher=None, transactions=None):
    """The SQL lines that undo the indexed transactions (:func:`..changes.backwards.index_files`),
    last first (no header). ``matcher``: a :class:`~..model.row_match.RowMatcher`: only the
    matching rows are undone. ``transactions``: some of them, last first (a worker's part),
    instead of all."""
    from ..changes.backwards import transactions_backwards
    from ..changes.row_change import RowDecoder
    tables = _Tables()
    comment = _Comments().line
    decoder = RowDecoder(None, schema=schema)
    for tx in transactions_backwards(index) if transactions is None else transactions:
        if matcher is not None:
            tx = matcher.transaction(tx)
            if tx is None:
                continue
        decoder.file = tx.path
        try:
            lines = _inverted(tx, decoder, tables, comment)
        except BinlogError as e:
            if getattr(e, "file", None) is None:
                e.file = tx.path
            raise
        if lines:
            yield from _begin(tx.path, tx.begin, tx.gtid)
            yield from lines
            yield "COMMIT;"
    if matcher is not None:
        matcher.check_used()


def _inverted(tx, decoder, tables, comment) -> list:
    """The lines that undo one transaction (its statements last first).  A transaction's
    lines are kept until it is whole (a refusal then writes none of it): one transaction's
    SQL, not the file's."""
    lines = []
    for st in tx.statements():
        for m in st.maps:
            decoder.feed_one(m)
        for rec in st.rows():
            rows, tm = decoder.rows_of(rec)
            changes = decoder.changes_of(rec, rows, tm)
            if not changes:
                continue
            table = _located(lambda ch, tm=tm: tables.of(tm, ch.columns), changes[0], rec,
                             tx.path)
            for ch in reversed(changes):
                text = _located(table.inverse, ch, rec, tx.path)
                lines.append(comment(ch, tx.path))
                lines.append(f"{text};" if text is not None else "-- (no column changes)")
    return lines


# ------------------------------------------------------------------------ the command


def sql_statements(paths, *, flashback: bool = False, selection=None, start=None, stop=None,
                   schema=None, note=None, watch=None):
    """The Python API: the lines ``binlog-schema sql`` writes (header included), as strings.
    ``paths``: one binlog file or several, in order; ``selection``: a
    :class:`~binlog_schema.changes.selection.Selection` (default: everything); ``start`` /
    ``stop``: byte positions in the first / last file; ``schema``: a
    :class:`~binlog_schema.changes.schema.SchemaHistory` at the start of the first file (column
    names for MINIMAL metadata). ``note(text)`` hears what is passed over or where a flashback stops
    early. Raises :class:`~.sql_statements.SqlRefused` (a change that cannot be written or inverted)
    or the reader's :class:`~binlog_schema.format.errors.BinlogError`; with ``flashback`` every
    refusal of the reading pass comes before the first line."""
    from ..changes.selection import Selection
    selection = selection or Selection()
    paths = [paths] if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__") \
        else list(paths)
    note = note or (lambda text: None)
    if flashback:
        from ..changes.backwards import index_files
        from ..changes.row_change import RowDecoder
        pre = RowDecoder(None, schema=schema) if schema is not None else None
        index = index_files(paths, selection, start=start, stop=stop, decoder=pre,
                            watch=watch)
        if index.stopped is not None:
            path, at, head = index.stopped
            note(f"{path}: a schema change at {at} ({head}): the flashback stops before it "
                 "(a change before a schema change cannot be undone after it); the changes "
                 "after it are not inverted: give --start-position past it to invert those")
        matcher = None
        if selection.where is not None:
            from ..changes.row_match import RowMatcher
            matcher = RowMatcher(selection.where, selection, schema)
        lines = flashback_statements(index, schema=schema, matcher=matcher)
    else:
        lines = forward_statements(paths, selection, start=start, stop=stop, schema=schema,
                                   watch=watch)
    yield from header()
    yield from lines


__all__ = ["file_statements", "flashback_statements", "forward_statements", "header",
           "sql_statements"]

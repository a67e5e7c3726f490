"""``binlog-schema sql``: the row changes of binlog files as SQL, forward (replay) or inverted
(flashback), as a library function (:func:`write_sql`) and a Python iterator
(:func:`sql_statements`).

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
from .statuses import CLEAN, DAMAGED, STOPPED, USAGE
from .sql_statements import SqlRefused, SqlTable
from .sql_text import SESSION_SQL
from .write import Spool

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


def _comment(change, path) -> str:
    return (f"-- {_name(path)}:{change.offset} row {change.row_index + 1}, "
            f"{_when(change.timestamp or 0)}")


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
        yield from _file_statements(path, reader, decoder, selection, tables, matcher, watch)
    if matcher is not None:
        matcher.check_used()


def _file_statements(path, reader, decoder, selection, tables, matcher=None, watch=None):
    """The SQL lines of one file's records (``reader``'s: the file, or a segment of it),
    through ``decoder``; a schema change in a comment."""
    from ..changes.row_change import is_schema_statement, query_verb
    pending: list = []

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
                _op(rec.kind)) or not selection.transaction(tx.gtid, tx.thread_id,
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
            yield _comment(ch, path)
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


def _op(kind) -> str:
    from ..format.values.rows import operation_of
    return operation_of(kind)


# ------------------------------------------------------------------------ backward


def flashback_statements(index, *, schema=None, matcher=None):
    """The SQL lines that undo the indexed transactions (:func:`..changes.backwards.index_files`),
    last first (no header). ``matcher``: a :class:`~..model.row_match.RowMatcher`: only the
    matching rows are undone."""
    from ..changes.backwards import transactions_backwards
    from ..changes.row_change import RowDecoder
    tables = _Tables()
    decoder = RowDecoder(None, schema=schema)
    for tx in transactions_backwards(index):
        if matcher is not None:
            tx = matcher.transaction(tx)
            if tx is None:
                continue
        decoder.file = tx.path
        try:
            lines = _inverted(tx, decoder, tables)
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


def _inverted(tx, decoder, tables) -> list:
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
                lines.append(_comment(ch, tx.path))
                lines.append(f"{text};" if text is not None else "-- (no column changes)")
    return lines


# ------------------------------------------------------------------------ worker processes


def forward_segment(path, held, start, stop, ctx, options) -> int:
    """One segment of a large file's forward SQL (a job of :func:`.parallel.share`): its
    lines and, when it cannot be written whole, the line :func:`write_sql` says (kept in
    ``held``, a segment's output); its status. ``options``: ``selection``, ``file_index``
    and, with a schema history, ``resolved`` (:func:`.parallel.resolutions`)."""
    from ..changes.row_change import RowDecoder
    from ..format.stream import BinlogReader
    from .write import Output
    out = Output(held.stdout)
    reader = BinlogReader(path, decode="lazy", stop=stop,
                          resume=None if start is None else (start, ctx))
    decoder = RowDecoder(str(path), file_index=options["file_index"],
                         resolved=options.get("resolved"))
    try:
        for line in _file_statements(path, reader, decoder, options["selection"], _Tables()):
            out.add(line)
    except (SqlRefused, BinlogError, OSError) as e:
        held.stderr.write(refusal(e)[0] + "\n")
        return STOPPED
    out.flush()
    return CLEAN


def _forward_shared(paths, spool, selection, schema, err, progress, workers, min_size,
                    segment):
    """The forward script (header included) into ``spool`` (an :class:`~.write.Output` over
    a file), each large file by worker processes (:func:`.parallel.share`: segments of whole
    transactions, written in file order), the others by this process; a refusal said on
    ``err`` (the first in file order) and raised as :class:`_Stopped`. None when ``err``
    or the spool is no file descriptor's: the caller writes the script alone."""
    from . import parallel
    try:
        fds = spool.stream.fileno(), err.fileno()
    except (AttributeError, OSError, ValueError):   # (io.UnsupportedOperation is both)
        return None
    for line in header():
        spool.add(line)
    for n, path in enumerate(paths):
        shared = parallel.shareable(path, workers, min_size)
        if shared is None:
            for line in forward_statements([path], selection, schema=schema, file_index=n,
                                           watch=None if progress is None else progress.watch):
                spool.add(line)
            continue
        options = dict(selection=selection, file_index=n)
        if schema is not None:   # (the workers decode with what the history did to the maps)
            options["resolved"] = parallel.resolutions(path, schema, n)[0]
        spool.flush()
        err.flush()
        status, _ = parallel.share(path, forward_segment, options, fds, shared,
                                   segment=segment, transactions=True, progress=progress)
        spool.stream.seek(0, 2)   # (the workers wrote past where this process was)
        if status == STOPPED:
            raise _Stopped
    return CLEAN


class _Stopped(Exception):
    """A worker refused (said): the script is left out."""


def refusal(e) -> tuple:
    """(the stderr line, the exit status) of what stops a script: a change that cannot be
    written, a ``--where`` no table can answer, damage, a file that cannot be read."""
    from ..changes.row_match import WhereError
    from .write import os_problem
    if isinstance(e, SqlRefused):
        return f"refused: {e}", STOPPED
    if isinstance(e, WhereError):
        return str(e), USAGE
    if isinstance(e, BinlogError):
        file = getattr(e, "file", None)
        return (f"{file}: {e}" if file else str(e)), STOPPED
    return f"{getattr(e, 'filename', '') or ''}: {os_problem(e)}", STOPPED


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


def write_sql(paths, out, selection, *, start=None, stop=None, schema=None,
              flashback: bool = False, err=None, progress=None, workers: int | None = None,
              min_size: int | None = None, segment: int | None = None) -> int:
    """Write :func:`sql_statements` to ``out`` (an :class:`~.write.Output`); problems on
    ``err`` (stderr). The script is whole or absent: it is written to a temporary file
    (:class:`~.write.Spool`) and copied to ``out`` only once every statement was made, so a
    script piped into a server is never applied in part. Returns the exit status: 0; 1 a file could
    not be read or is cut short, or a change could not be written or inverted (rows that
    cannot be decoded among them), said with the file, offset and reason: nothing is written;
    3 (flashback) a schema change ended the range early (said); 2 a ``--where`` whose
    columns no table has (nothing is written). ``progress``: a progress line over the
    reading (the forward pass; with flashback, the first pass).

    Forward, whole files (no positions, no ``--where``), a large file is written by worker
    processes (:mod:`.parallel`; ``workers``, ``min_size`` and ``segment`` its settings,
    its defaults when None), the script byte for byte one process's, a refusal the one
    process's first."""
    import sys
    from ..changes.row_match import WhereError
    err = err or sys.stderr
    stopped = []

    def say(text):
        err.write(text + "\n")
        err.flush()
        if not text.startswith("note:"):
            stopped.append(text)

    shared = not flashback and start is None and stop is None and selection.where is None
    try:
        with Spool(out) as spool:
            done = None
            if shared:
                from . import parallel
                done = _forward_shared(
                    paths, spool, selection, schema, err, progress, workers,
                    parallel.MIN_SIZE if min_size is None else min_size,
                    parallel.SEGMENT if segment is None else segment)
            if done is None:
                for line in sql_statements(paths, flashback=flashback, selection=selection,
                                           start=start, stop=stop, schema=schema, note=say,
                                           watch=None if progress is None else
                                           progress.watch):
                    spool.add(line)
    except _Stopped:   # (said by the worker)
        return STOPPED
    except (SqlRefused, WhereError, BinlogError, OSError) as e:
        text, status = refusal(e)
        say(text)
        return status
    return DAMAGED if stopped else CLEAN


__all__ = ["flashback_statements", "forward_segment", "forward_statements", "refusal",
           "sql_statements", "write_sql"]

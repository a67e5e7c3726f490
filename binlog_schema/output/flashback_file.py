"""``binlog-schema flashback``: one binlog file that undoes the row changes of binlog files,
built from the same declarations that read them.

The inputs are indexed forward (:func:`~binlog_schema.changes.backwards.index_files`: filters,
refusals, a schema change ending the range), then their transactions are read last first
(:func:`~binlog_schema.changes.backwards.transactions_backwards`) and each is written inverted
(:func:`~binlog_schema.changes.flashback.inverted_events`) after the first input's
FORMAT_DESCRIPTION: positions and CRC32s computed by the build. The output is written to a
temporary file beside ``OUT`` and renamed over it only when every transaction was inverted:
a refusal leaves no half-inverted file.
"""

from __future__ import annotations

import os
import sys

from ..format.errors import BinlogError
from ..format.facts.codes import FORMAT_DESCRIPTION_EVENT, QUERY_EVENT
from .statuses import CLEAN, DAMAGED, STOPPED, USAGE



def _fde(path):
    """The first FORMAT_DESCRIPTION of a file (its record)."""
    from ..format.stream import BinlogReader
    for rec in BinlogReader(path, types=[FORMAT_DESCRIPTION_EVENT]):
        if rec.error is not None:
            raise rec.error
        return rec
    return None


def flashback(paths, target, selection=None, *, start=None, stop=None, note=None,
              schema=None, watch=None) -> dict:
    """Write the inverted binlog of ``paths`` to ``target`` (a path). ``selection``: a
    :class:`~binlog_schema.changes.selection.Selection`; ``start``/``stop``: byte positions in
    the first / last file. ``note(text)`` hears where a schema change ended the range.
    Returns counts (transactions, rows events, bytes). Raises
    :class:`~binlog_schema.changes.flashback.FlashbackError` (what cannot be inverted) or the
    reader's :class:`~binlog_schema.format.errors.BinlogError`; ``target`` is then untouched.
    ``selection.where``: only the matching rows are inverted (a
    :class:`~binlog_schema.changes.row_match.WhereError` when no table has its columns);
    ``watch``: a progress line's, over the first pass's records."""
    from ..changes.backwards import index_files, transactions_backwards
    from ..changes.flashback import FlashbackError, inverted_events
    from ..changes.selection import Selection
    from ..format.stream import EventRecord
    from ..format.writer import BinlogWriter
    paths = [str(p) for p in ([paths] if isinstance(paths, (str, os.PathLike)) else paths)]
    selection = selection or Selection()
    first = _fde(paths[0])
    if first is None:
        raise FlashbackError("no FORMAT_DESCRIPTION event: not a binlog v4 file this command "
                             "can invert", file=paths[0], offset=4)
    flavor = first.ctx.flavor
    for p in paths[1:]:
        other = _fde(p)
        if other is not None and other.ctx.flavor != flavor:
            raise FlashbackError(f"a {other.ctx.flavor} binlog among {flavor} binlogs: one "
                                 "flashback file holds one server's events", file=p,
                                 offset=other.offset)
    # (``schema``: the history at the first file's start, followed to the range: MariaDB's
    # hi-res temporal columns are read with the precision it gives)
    decoder = None
    if schema is not None:
        from ..changes.row_change import RowDecoder
        decoder = RowDecoder(None, schema=schema)
    index = index_files(paths, selection, start=start, stop=stop, decoder=decoder, watch=watch)
    matcher = None
    if selection.where is not None:
        from ..changes.row_match import RowMatcher
        matcher = RowMatcher(selection.where, selection)
    if index.stopped is not None and note is not None:
        path, at, head = index.stopped
        note(f"{path}: a schema change at {at} ({head}): the flashback stops before it (a "
             "change before a schema change cannot be undone after it); the changes after it "
             "are not inverted: give --start-position past it to invert those")
    target = str(target)
    tmp = f"{target}.partial-{os.getpid()}"
    counts = {"transactions": 0, "rows_events": 0, "bytes": 0}
    fde = dict(first.value)
    header = dict(fde["header"])
    header["log_pos"] = None
    header["flags"] = [f for f in header.get("flags") or () if f != "BINLOG_IN_USE"]
    fde["header"] = header
    fde.pop("checksum", None)
    try:
        with BinlogWriter(tmp) as w:
            w.write(fde)
            codecs: dict = {}   # (each distinct TABLE_MAP's row readers, made once)
            for tx in transactions_backwards(index):
                if matcher is not None:
                    tx = matcher.transaction(tx)
                    if tx is None:
                        continue
                counts["transactions"] += 1
                for value in inverted_events(tx, codecs=codecs, decoder=decoder):
                    if isinstance(value, EventRecord):   # (kept: its bytes, at its new place)
                        w.write_kept(value)
                    elif value["header"]["type_code"] == QUERY_EVENT:   # (a BEGIN made:
                        w.write_repeated(value, repr(value["body"]))  # its body repeats)
                    else:
                        _write_rows(w, value)
                counts["rows_events"] += tx.rows_count
            counts["bytes"] = w.pos
        if matcher is not None:
            matcher.check_used()
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    counts["stopped"] = index.stopped
    return counts


def _write_rows(w, value) -> None:
    """An inverted rows event: the fields before its rows (table, flags, column bitmaps)
    repeat from one event of a table to the next, built once (BinlogWriter.write_repeated);
    MariaDB's compressed rows, built whole."""
    body = value["body"]
    rows = body["rows"]
    if type(rows) is not bytes:
        w.write(value)
        return
    lead = {k: v for k, v in body.items() if k != "rows"}
    w.write_repeated({**value, "body": {**lead, "rows": b""}},
                     (value["header"]["type_code"], repr(lead)), rows)


def write_flashback(paths, target, selection=None, *, start=None, stop=None, err=None,
                    schema=None, progress=None) -> int:
    """The command: :func:`flashback`, its problems said on stderr. Exit status: 0; 1
    refused or unreadable (said with the file, event, offset and why; OUT untouched); 3 a
    schema change ended the range early (said); 2 a ``--where`` whose columns no table has
    (OUT untouched). ``progress``: a progress line over the first pass."""
    from ..changes.row_match import WhereError
    err = err or sys.stderr
    said = []

    def say(text):
        err.write(text + "\n")
        err.flush()
        said.append(text)

    try:
        counts = flashback(paths, target, selection, start=start, stop=stop, note=say,
                           schema=schema, watch=None if progress is None else progress.watch)
    except WhereError as e:
        say(str(e))
        return USAGE
    except BinlogError as e:
        file = getattr(e, "file", None)
        text = str(e)
        say(text if file and str(file) in text else (f"{file}: {text}" if file else text))
        return STOPPED
    except OSError as e:
        from .write import os_problem
        say(f"{e.filename or target}: {os_problem(e)}")
        return STOPPED
    err.write(f"{target}: {counts['transactions']} transactions, {counts['rows_events']} rows "
              f"events inverted ({counts['bytes']} bytes)\n")
    return DAMAGED if said else CLEAN


__all__ = ["flashback", "write_flashback"]

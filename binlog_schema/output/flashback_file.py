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
              schema=None, watch=None, err=None, workers: int | None = None,
              min_size: int | None = None, segment: int | None = None) -> dict:
    """Write the inverted binlog of ``paths`` to ``target`` (a path). ``selection``: a
    :class:`~binlog_schema.changes.selection.Selection`; ``start``/``stop``: byte positions in
    the first / last file. ``note(text)`` hears where a schema change ended the range.
    Returns counts (transactions, rows events, bytes). Raises
    :class:`~binlog_schema.changes.flashback.FlashbackError` (what cannot be inverted) or the
    reader's :class:`~binlog_schema.format.errors.BinlogError`; ``target`` is then untouched.
    ``selection.where``: only the matching rows are inverted (a
    :class:`~binlog_schema.changes.row_match.WhereError` when no table has its columns);
    ``watch``: a progress line's, over the first pass's records.

    ``err``: a stream with a file descriptor (stderr): whole files (no positions, no
    ``where``) holding ``min_size`` bytes or more are then inverted by worker processes
    (:mod:`.parallel`, ``workers``, ``segment``: its settings; the index made here), parts
    of transactions last first, written in that order, their positions settled at their
    turn; the file is byte for byte one process's. A refusal a worker meets is said on
    ``err`` (the line :func:`write_flashback` says, the first one process would meet) and
    raised as :class:`Said`."""
    from ..changes.backwards import index_files, transactions_backwards
    from ..changes.flashback import FlashbackError
    from ..changes.selection import Selection
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
    shared = None
    if err is not None and matcher is None and start is None and stop is None:
        shared = _shareable(paths, err, workers, min_size)
    try:
        with BinlogWriter(tmp) as w:
            w.write(fde)
            if shared is not None:
                w.f.flush()
                done = _invert_shared(index, w, err, shared, segment, decoder, target)
                w.f.seek(0, 2)   # (the workers wrote past where this process was)
                w.pos = w.f.tell()
                counts.update(done)
            codecs: dict = {}   # (each distinct TABLE_MAP's row readers, made once)
            for tx in transactions_backwards(index) if shared is None else ():
                if matcher is not None:
                    tx = matcher.transaction(tx)
                    if tx is None:
                        continue
                counts["transactions"] += 1
                write_inverted(w, tx, codecs, decoder)
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


def write_inverted(w, tx, codecs: dict, decoder=None, placed: list | None = None) -> None:
    """The events that undo transaction ``tx`` (:func:`~..changes.flashback.inverted_events`)
    written by ``w``: an event kept, its bytes at its new place; a MariaDB BEGIN made and the
    fields before an inverted event's rows, built once per distinct value. ``placed``: a list
    that gets each event's (offset, size, whether its log_pos is its end's)."""
    from ..changes.flashback import inverted_events
    from ..format.stream import EventRecord
    for value in inverted_events(tx, codecs=codecs, decoder=decoder):
        at = w.pos
        if isinstance(value, EventRecord):   # (kept: its bytes, at its new place)
            w.write_kept(value)
            computed = True
        else:
            if value["header"]["type_code"] == QUERY_EVENT:   # (a BEGIN made: its body
                w.write_repeated(value, repr(value["body"]))  # repeats)
            else:
                _write_rows(w, value)
            computed = value["header"].get("log_pos") is None
        if placed is not None:
            placed.append((at, w.pos - at, computed))


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


class Said(Exception):
    """What stopped a flashback was said already (by a worker process)."""


def _shareable(paths, err, workers, min_size):
    """(workers, the inputs' bytes) when the inversion is worker processes' work, else
    None (small inputs, one core, ``err`` no file descriptor's)."""
    from . import parallel
    try:
        fd = err.fileno()
        total = sum(os.path.getsize(p) for p in paths)
    except (AttributeError, OSError, ValueError):   # (io.UnsupportedOperation is both)
        return None
    min_size = parallel.MIN_SIZE if min_size is None else min_size
    shared = parallel.shareable(paths[0], workers, min_size)
    if shared is None or total < min_size:
        return None
    return shared[0], total, fd


def _invert_shared(index, w, err, shared, segment, decoder, target) -> dict:
    """The indexed transactions inverted by worker processes into ``w``'s file (after what
    it holds): :func:`.sql_script.flashback_parts`, each part built where it starts (its
    positions and CRC32s settled at its turn, :func:`placed`). Returns the counts; raises
    :class:`Said` when a worker refused (said on ``err``)."""
    from . import parallel
    from .sql_script import flashback_parts
    workers, total, fd = shared
    segment = parallel.SEGMENT if segment is None else segment
    parts = flashback_parts(index, max(min(segment, total // (3 * workers)), 1))
    err.flush()
    # (the row decoder as the first pass left it, each worker its copy: the schema's
    # precisions of MariaDB's hi-res temporal columns)
    options = dict(index=index, ctx=w.ctx, decoder=decoder, target=target)
    status, counts = parallel.share(index.files[0].path if index.files else "", invert_part,
                                    options, (w.f.fileno(), fd), (workers, total),
                                    segments=parts, counted=True, at=w.pos)
    if status == STOPPED:
        raise Said
    return counts


def invert_part(path, held, part, options) -> int:
    """One part of a flashback (a job of :func:`.parallel.share`: ``(file's place in the
    index, last transaction, first transaction)``): its transactions inverted, last first,
    built as if the part started the output, placed at its turn (``held.place``); the line
    :func:`write_flashback` says when they cannot be; its status. The transactions and rows
    events are counted into ``options["statements"]``."""
    from ..changes.backwards import back_transaction
    from ..format.writer import BinlogWriter
    import io
    f, last, first = part
    fi = options["index"].files[f]
    decoder = options["decoder"]
    buf = io.BytesIO()
    w = BinlogWriter(buf, options["ctx"])
    buf.seek(0)
    buf.truncate()
    w.pos = 0
    events = []   # (offset in the part, size, whether its log_pos is its end's)
    codecs: dict = {}
    txs = rows = 0
    try:
        with open(fi.path, "rb", buffering=0) as source:   # (one open for the part)
            for t in range(last, first - 1, -1):
                tx = back_transaction(fi, t, source)
                txs += 1
                write_inverted(w, tx, codecs, decoder, events)
                rows += tx.rows_count
    except (BinlogError, OSError) as e:
        held.stderr.write(refusal(e, options.get("target")) + "\n")
        return STOPPED
    counted = options["statements"]
    counted["transactions"] = counted.get("transactions", 0) + txs
    counted["rows_events"] = counted.get("rows_events", 0) + rows
    held.stdout.write(buf.getvalue())
    ctx = options["ctx"]
    held.place = lambda data, at: placed(data, events, at, ctx)
    return CLEAN


def placed(data: bytes, events, at: int, ctx) -> bytes:
    """A part's events (built from offset 0) as they are at the offset ``at`` of the output:
    each computed log_pos moved by ``at`` (MySQL's 32 bits), its CRC32 made again."""
    import zlib
    from ..format.facts.flavor import checksum_length
    from ..format.facts.framing import LOG_POS_AT, LOG_POS_END, TYPE_AT
    out = bytearray(data)
    for start, size, computed in events:
        if not computed:
            continue
        end = start + size
        out[start + LOG_POS_AT:start + LOG_POS_END] = ((at + end) & 0xFFFFFFFF).to_bytes(
            4, "little")
        if checksum_length(out[start + TYPE_AT], None, ctx):
            out[end - 4:end] = zlib.crc32(out[start:end - 4]).to_bytes(4, "little")
    return bytes(out)


def refusal(e, target=None) -> str:
    """The stderr line of what stops a flashback (a refusal, damage, a file that cannot be
    read)."""
    if isinstance(e, BinlogError):
        file = getattr(e, "file", None)
        text = str(e)
        return text if file and str(file) in text else (f"{file}: {text}" if file else text)
    from .write import os_problem
    return f"{e.filename or target}: {os_problem(e)}"


def write_flashback(paths, target, selection=None, *, start=None, stop=None, err=None,
                    schema=None, progress=None, workers: int | None = None,
                    min_size: int | None = None, segment: int | None = None) -> int:
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
                           schema=schema, watch=None if progress is None else progress.watch,
                           err=err, workers=workers, min_size=min_size, segment=segment)
    except Said:
        return STOPPED
    except WhereError as e:
        say(str(e))
        return USAGE
    except (BinlogError, OSError) as e:
        say(refusal(e, target))
        return STOPPED
    err.write(f"{target}: {counts['transactions']} transactions, {counts['rows_events']} rows "
              f"events inverted ({counts['bytes']} bytes)\n")
    return DAMAGED if said else CLEAN


__all__ = ["Said", "flashback", "invert_part", "placed", "refusal", "write_flashback"]

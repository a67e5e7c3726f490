"""``binlog-schema sql``: the script of :func:`.sql_write.sql_statements`, written whole or
not at all (:func:`write_sql`), by worker processes for large files (:mod:`.parallel`):
forward, segments of whole transactions in file order (:func:`forward_segment`); with
``--flashback``, the index made by the calling process, then parts of its transactions
inverted, last first (:func:`flashback_parts`, :func:`flashback_segment`). The script is
byte for byte one process's; a refusal is the first one process meets, said once."""

from __future__ import annotations

from ..format.errors import BinlogError
from .sql_statements import SqlRefused
from .sql_write import file_statements, flashback_statements, forward_statements, header, \
    sql_statements
from .statuses import CLEAN, DAMAGED, STOPPED, USAGE
from .write import Output, Spool, os_problem


def forward_segment(path, held, segment, options) -> int:
    """One segment of a large file's forward SQL (a job of :func:`.parallel.share`: its
    ``(start, stop, ctx)``): its lines and, when it cannot be written whole, the line
    :func:`write_sql` says (kept in ``held``, a segment's output); its status. ``options``:
    ``selection``, ``file_index`` and, with a schema history, ``resolved``
    (:func:`.parallel.resolutions`)."""
    from ..changes.row_change import RowDecoder
    from ..format.stream import BinlogReader
    start, stop, ctx = segment
    reader = BinlogReader(path, decode="lazy", stop=stop,
                          resume=None if start is None else (start, ctx))
    decoder = RowDecoder(str(path), file_index=options["file_index"],
                         resolved=options.get("resolved"))
    return _held(held, file_statements(path, reader, decoder, options["selection"]))


def _held(held, lines) -> int:
    """``lines`` into a worker's ``held`` output; when they cannot all be made, only the line
    :func:`write_sql` says (to ``held``'s stderr); the status."""
    out = Output(held.stdout)
    try:
        for line in lines:
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


def flashback_segment(path, held, part, options) -> int:
    """One part of a flashback's SQL (a job of :func:`.parallel.share`): the transactions
    ``part`` names, ``(file's place in the index, last transaction, first transaction)``,
    inverted last first; the line :func:`write_sql` says when they cannot be (kept in
    ``held``); its status. ``options``: ``index`` and ``schema``."""
    f, last, first = part
    return _held(held, _part_lines(options["index"], options["index"].files[f], last, first,
                                   options["schema"]))


def _part_lines(index, fi, last, first, schema):
    """The SQL lines that undo transactions ``last`` down to ``first`` of indexed file
    ``fi``, read from the file opened once for them."""
    from ..changes.backwards import back_transaction
    with open(fi.path, "rb", buffering=0) as source:
        yield from flashback_statements(index, schema=schema, transactions=(
            back_transaction(fi, t, source) for t in range(last, first - 1, -1)))


def flashback_parts(index, target: int) -> list:
    """The indexed transactions in the order a flashback undoes them (files and transactions
    last first), cut into parts of about ``target`` bytes of the files, each within one
    file: ``(file's place in the index, last transaction, first transaction)``."""
    parts = []
    for f in range(len(index.files) - 1, -1, -1):
        fi = index.files[f]
        offsets, bounds = fi.offsets, fi.bounds
        last = fi.transactions - 1
        held = 0
        for t in range(last, -1, -1):
            held += offsets[bounds[2 * t + 1] - 1] - offsets[bounds[2 * t]] + 1
            if held >= target or t == 0:
                parts.append((f, last, t))
                last, held = t - 1, 0
    return parts


def _flashback_shared(paths, spool, selection, schema, err, progress, workers, min_size,
                      segment, say):
    """The flashback script (header included) into ``spool``: the index made here (the
    first pass, ``progress`` over it), the inversion by worker processes
    (:func:`.parallel.share` over :func:`flashback_parts`, written in the order one process
    writes them), when the files hold ``min_size`` bytes or more; a refusal said on ``err``
    (the first in that order) and raised as :class:`_Stopped`. None when the work is the
    calling process's (small files, one core; ``err`` or the spool no file descriptor's)."""
    import os
    from . import parallel
    try:
        fds = spool.stream.fileno(), err.fileno()
        total = sum(os.path.getsize(p) for p in paths)
    except (AttributeError, OSError, ValueError):   # (io.UnsupportedOperation is both)
        return None
    shared = parallel.shareable(paths[0], workers, min_size)
    if shared is None or total < min_size:
        return None
    from ..changes.backwards import index_files
    from ..changes.row_change import RowDecoder
    pre = RowDecoder(None, schema=schema) if schema is not None else None
    index = index_files(paths, selection, start=None, stop=None, decoder=pre,
                        watch=None if progress is None else progress.watch)
    if index.stopped is not None:
        path, at, head = index.stopped
        say(f"{path}: a schema change at {at} ({head}): the flashback stops before it "
            "(a change before a schema change cannot be undone after it); the changes "
            "after it are not inverted: give --start-position past it to invert those")
    for line in header():
        spool.add(line)
    workers = shared[0]
    parts = flashback_parts(index, max(min(segment, total // (3 * workers)), 1))
    spool.flush()
    err.flush()
    status, _ = parallel.share(paths[0], flashback_segment, dict(index=index, schema=schema),
                               fds, (workers, total), segments=parts)
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
    if isinstance(e, SqlRefused):
        return f"refused: {e}", STOPPED
    if isinstance(e, WhereError):
        return str(e), USAGE
    if isinstance(e, BinlogError):
        file = getattr(e, "file", None)
        return (f"{file}: {e}" if file else str(e)), STOPPED
    return f"{getattr(e, 'filename', '') or ''}: {os_problem(e)}", STOPPED


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

    Whole files (no positions, no ``--where``): forward, a large file is written by worker
    processes (:mod:`.parallel`; ``workers``, ``min_size`` and ``segment`` its settings,
    its defaults when None); with ``flashback``, large files are indexed by this process
    and inverted by worker processes, parts of transactions last first; the script byte
    for byte one process's, a refusal the one process's first."""
    import sys
    from ..changes.row_match import WhereError
    err = err or sys.stderr
    stopped = []

    def say(text):
        err.write(text + "\n")
        err.flush()
        if not text.startswith("note:"):
            stopped.append(text)

    shared = start is None and stop is None and selection.where is None
    try:
        with Spool(out) as spool:
            done = None
            if shared:
                from . import parallel
                settings = (workers, parallel.MIN_SIZE if min_size is None else min_size,
                            parallel.SEGMENT if segment is None else segment)
                done = _flashback_shared(paths, spool, selection, schema, err, progress,
                                         *settings, say) if flashback else \
                    _forward_shared(paths, spool, selection, schema, err, progress,
                                    *settings)
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


__all__ = ["flashback_parts", "flashback_segment", "forward_segment", "refusal", "write_sql"]

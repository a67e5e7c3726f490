"""The files of ``binlog-schema stats`` read into one :class:`~..model.stats.Stats`.

A file is read as ``decode`` reads it (lazy records: an event is parsed only when its figures
need it; rows counted, not decoded). When reading stops at damage (an event that does not
parse, a size that lies, a last event cut short), the file is read again with recovery
(:class:`~..stream.BinlogReader`'s ``skip_errors``): every byte is then an event's or a
SKIPPED range, and the figures count what could be read (status 3). A large file is counted
by several processes at once, each taking whole segments that start where a transaction starts
(:func:`.parallel.plan`, decode's cut), their counts merged.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys

from ..format.errors import BinlogError, NotBinlogError
from ..changes.stats import Stats
from .statuses import CLEAN, DAMAGED, STOPPED, worst
from ..format.stream import BinlogReader
from .write import os_problem


def _decoder(path, schema, file_index):
    from ..changes.row_change import RowDecoder
    return RowDecoder(path, schema=schema, file_index=file_index)


def _source(path, opener):
    """What a reader reads: the path itself, or the file ``opener`` opens (closed after)."""
    return contextlib.nullcontext(path) if opener is None else opener()


def _count(stats, path, reader, schema, file_index, matcher, progress=None):
    records = reader if progress is None else progress.watch(reader)
    stats.count(records, path, _decoder(path, schema, file_index), matcher,
                file_index=file_index)


def file_stats(path, *, top, max_event_size, matcher=None, schema=None, file_index=0,
               progress=None, workers=None, opener=None):
    """(the :class:`Stats` of one file, its status, what to say on stderr): 1 with no
    figures for a file that cannot be used (missing, not a binlog), 3 when something was
    skipped or could not be decoded (each a line), else 0. ``opener``: how to open the file
    when it is not a local path (a callable giving a seekable binary file: a Spark task's
    :func:`~..pipeline.fsio.open_input`); ``path`` then only names it (read by this process
    alone)."""
    try:
        if opener is None:
            size = os.path.getsize(path)
            if os.path.isdir(path):
                raise IsADirectoryError(21, "is a directory")
        else:
            with opener() as f:
                size = f.seek(0, 2)
    except OSError as e:
        return None, STOPPED, [f"{path}: {os_problem(e)}"]
    stats = None
    if schema is None and matcher is None and opener is None:
        stats = _parallel(path, size, top, max_event_size, workers, progress, file_index)
    if stats is None:
        stats = Stats(top, max_event_size)
        try:
            with _source(path, opener) as source:
                reader = BinlogReader(source, decode="lazy")
                _count(stats, path, reader, schema, file_index, matcher, progress)
            if reader.tail is not None:
                stats = None
        except NotBinlogError as e:
            return None, STOPPED, [f"{path}: {e}"]
        except OSError as e:
            return None, STOPPED, [f"{path}: {os_problem(e)}"]
        except BinlogError:
            stats = None
    if stats is None:   # damage: the file read again, with recovery
        if progress is not None:
            progress.restart(path)
        stats = Stats(top, max_event_size)
        try:
            with _source(path, opener) as source:
                reader = BinlogReader(source, decode="lazy", skip_errors=True)
                _count(stats, path, reader, schema, file_index, matcher, progress)
        except OSError as e:
            return None, STOPPED, [f"{path}: {os_problem(e)}"]
        except BinlogError as e:   # (what recovery cannot go round: said, no figures)
            return None, STOPPED, [f"{path}: {e}"]
    stats.set_file_size(path, size)
    lines = [f"{path}: skipped bytes {a} to {b} ({b - a} bytes): {why}"
             for _f, a, b, why in stats.skipped]
    lines += [f"{path}: {kind} at {offset}: {why}" for _f, offset, kind, why in
              stats.undecodable]
    if lines:
        lines.append(f"{path}: counted what could be read: {len(stats.skipped)} byte ranges "
                     f"skipped, {len(stats.undecodable)} events not decoded")
    return stats, DAMAGED if stats.damaged else CLEAN, lines


def read_stats(paths, *, top, max_event_size, matcher=None, schema=None, progress=None,
               err=None):
    """(the :class:`Stats` of ``paths``, the status): each file's problems said on ``err``
    (stderr) as they are found."""
    err = err or sys.stderr
    total = Stats(top, max_event_size)
    status = CLEAN
    for index, path in enumerate(paths):
        stats, st, lines = file_stats(path, top=top, max_event_size=max_event_size,
                                      matcher=matcher, schema=schema, file_index=index,
                                      progress=progress)
        for line in lines:
            err.write(line + "\n")
        err.flush()
        status = worst(status, st)
        if stats is not None:
            total.merge(stats)
        if progress is not None:
            progress.file_done(path)
    if matcher is not None:
        matcher.check_used()
    return total, status


# ------------------------------------------------------------------ several processes


def _parallel(path, size, top, max_event_size, workers, progress, file_index):
    """The file's :class:`Stats` counted by worker processes, or None when it is not one to
    share (small, one core, no fork) or a worker met damage (the caller reads it again).
    ``file_index``: the file's place among the files (ties among the top transactions)."""
    from .parallel import MIN_SIZE, SEGMENT, plan, worker_count
    workers = worker_count() if workers is None else workers
    if workers < 2 or size < MIN_SIZE or not hasattr(os, "fork"):
        return None
    target = max(min(SEGMENT, size // (3 * workers)), 1)
    segments = list(plan(path, target))
    if len(segments) < 2:
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    pipes, pids = [], []
    done_r, done_w = os.pipe() if progress is not None else (None, None)
    for i in range(workers):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:   # a worker: its segments' counts, pickled to the pipe
            code = 1
            try:
                os.close(r)
                if done_r is not None:
                    os.close(done_r)
                part = Stats(top, max_event_size)
                for k, (start, stop, ctx) in enumerate(segments):
                    if k % workers != i:
                        continue
                    reader = BinlogReader(path, decode="lazy", stop=stop,
                                          resume=None if start is None else (start, ctx))
                    _count(part, path, reader, None, file_index, None)
                    if reader.tail is not None:
                        raise BinlogError("a last event cut short", offset=reader.tail.offset)
                    if done_w is not None:
                        os.write(done_w, f"{(stop or size) - (start or 0)}\n".encode())
                data = pickle.dumps(part, pickle.HIGHEST_PROTOCOL)
                code = 0
            except BaseException:  # noqa: BLE001 - damage, or a crash: read again whole
                data = b""
            with os.fdopen(w, "wb") as f:
                f.write(data)
            os._exit(code)
        os.close(w)
        pipes.append(r)
        pids.append(pid)
    if done_w is not None:
        os.close(done_w)
        progress.follow(done_r)
    parts = []
    for r in pipes:
        with os.fdopen(r, "rb") as f:
            parts.append(f.read())
    ok = True
    for pid in pids:
        ok = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0 and ok
    if progress is not None:
        progress.unfollow()
    if not ok or not all(parts):
        return None
    total = Stats(top, max_event_size)
    for data in parts:
        total.merge(pickle.loads(data))
    # (the transactions a worker ended at its segments' ends were cut by the plan, never by
    # the file: each segment starts where a transaction starts and ends where the next does)
    return total


__all__ = ["file_stats", "read_stats"]

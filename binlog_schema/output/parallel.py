"""Whole files decoded by several processes at once, written in file order.

A command's time goes to per-event work that one process does one event after the other. On
a machine with more than one core, a large file is cut into segments, each starting where a
transaction starts (a GTID event; a statement in files without GTIDs), so that a segment holds
the table maps its rows events need. Worker processes, forked once the package is loaded, each
decode their segments with the sequential loop (:func:`.write.write_events`, reading from the
segment's start with the file's context). A worker keeps a segment's output until the worker
of the segment before it passes it the turn, writes it, and passes the turn on: the output is
the sequential loop's, byte for byte, and a worker holds one segment's output at most.

The ring (:func:`share`) runs any job over segments: ``decode`` (every format: the change
records follow transactions, so their segments hold whole ones, :func:`plan`'s
``transactions``), ``sql`` (:mod:`.sql_script`), and a flashback's parts of transactions, last
first (the turn's token carries the offset in the output where it writes, so that a part of
a binlog file can settle its positions then: :mod:`.flashback_file`). A segment that stops (a
refusal, damage) stops the ring at its turn: what is said is what one process says first.

With a schema history, the calling process first reads the file's QUERY and TABLE_MAP events
alone (a quick pass: the statements are replayed, each distinct table map resolved once) and
the workers are given what the history did to each table map (named, given a hi-res precision,
found disagreeing) and what it said, by position (:meth:`RowDecoder.resolutions`): they decode
without a history, each problem and notice is said once, where the sequential loop says it,
and the history is left at the file's end for the next file.

Only what is plain is cut. The segments after the first are read with the context of the file's
first event (its FORMAT_DESCRIPTION), so the plan stops at any other context event (a relay log's
next FDE, START_ENCRYPTION) and at anything the framing does not explain (a size out of bounds, a
truncated end; the headers are walked by :class:`binlog_schema.format.scanning.Blocks`): the rest
of the file is the last segment, read as the sequential loop reads it, which reports what it finds
there.
"""

from __future__ import annotations

import os
import sys

from ..format.errors import BinlogError
from ..format.facts.codes import (CONTEXT_KINDS, EXECUTE_LOAD_QUERY_EVENT, GTID_KINDS,
                           START_ENCRYPTION_EVENT, STATEMENT_KINDS, TABLE_MAP_EVENT,
                           TRANSACTION_PAYLOAD_EVENT, XA_PREPARE_LOG_EVENT, XID_EVENT)
from .statuses import CLEAN, DAMAGED, STOPPED, worst
from ..format.scanning import Blocks, codes_except
from ..format.stream import MAX_EVENT_SIZE, BinlogReader
from .formats import DEFAULT, FORMATS
from .write import Output, rows_summary, write_events

MIN_SIZE = 1 << 20  # smaller files are decoded by the calling process alone
SEGMENT = 4 << 20  # the most bytes of a segment (its output is held until its turn)
_CONTEXT = CONTEXT_KINDS | {START_ENCRYPTION_EVENT}
_ENDS = {XID_EVENT, XA_PREPARE_LOG_EVENT}  # (what closes a transaction besides statements)
_GO, _STOP = b"g", b"s"  # (the go carries the offset in the output where the turn writes)


def worker_count() -> int:
    """Workers for a large file: ``$BINLOG_SCHEMA_WORKERS``, else the cores this process may
    run on that other processes are not running on right now (at most 4; on a busy machine
    more processes would only take turns). 1: the calling process decodes alone."""
    env = os.environ.get("BINLOG_SCHEMA_WORKERS")
    if env is not None:
        try:
            return max(int(env), 1)
        except ValueError:
            return 1
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without it
        n = os.cpu_count() or 1
    return max(min(n - _running_others(), 4), 1)


def _running_others() -> int:
    """How many other processes are running now (Linux: the runnable count of
    ``/proc/loadavg``, this one left out); 0 where that is not known."""
    try:
        with open("/proc/loadavg", "rb") as f:
            return max(int(f.read().split()[3].split(b"/")[0]) - 1, 0)
    except (OSError, ValueError, IndexError):
        return 0


def first_context(path):
    """(where the first event ends, the context after it) when the file starts with a
    context event that decodes; None otherwise."""
    reader = BinlogReader(path, decode="lazy")
    events = iter(reader)
    try:
        rec = next(events, None)
    except (BinlogError, OSError):
        return None
    finally:
        events.close()
    if rec is None or rec.kind not in _CONTEXT or rec.error is not None:
        return None
    return rec.offset + len(rec.raw), reader.ctx


def plan(path, target: int, transactions: bool = False):
    """The segments of a file, ``(start, stop, ctx)``, as the scan finds them: the first
    starts at the file's start (None), the last runs to its end (stop None); ``ctx`` is the
    context to read a segment with (None for the first: its reader finds it). A segment ends
    where a transaction starts once it holds ``target`` bytes. A file that does not start
    with a context event is one segment.

    A transaction starts at a GTID event; in a file without them (before its first), at a
    statement. ``transactions``: for the readers that follow transactions (the change
    records, ``sql``), a statement cuts only where one process's
    :class:`~binlog_schema.changes.transactions.Boundary` finds no transaction open and the
    statement opens one (BEGIN) or is one of its own (a DDL): never between a BEGIN and its
    COMMIT or XID, so that each segment holds whole transactions."""
    first = first_context(path)
    if first is None:
        yield None, None, None
        return
    start, ctx = first
    remap = ctx.type_remap
    seg, mark, gtids = None, target, False
    boundary = _StatementBoundary(ctx) if transactions else None
    try:
        f = open(path, "rb", buffering=0)
    except OSError:
        f = None
    with f or open(os.devnull, "rb") as f:
        f.seek(start)
        blocks = Blocks(f, pos=start)
        # (only the events that may cut or stop the plan are given; the others passed over)
        blocks.skip = codes_except(_CONTEXT | GTID_KINDS | STATEMENT_KINDS
                                   | (_ENDS if transactions else set()), remap)
        try:
            for pos, code, size, _buf, _at in blocks.walk(start, MAX_EVENT_SIZE, whole=False):
                if remap:
                    code = remap.get(code, code)
                if code in _CONTEXT:
                    break  # (reading what follows needs that event's context)
                if code in GTID_KINDS:
                    if not gtids:
                        blocks.skip = codes_except(_CONTEXT | GTID_KINDS, remap)
                    gtids = cut = True
                elif gtids:
                    cut = False
                elif boundary is not None:
                    cut = boundary.opens(blocks, pos, size, code)
                else:
                    cut = code in STATEMENT_KINDS
                if cut and pos >= mark:
                    yield seg, pos, ctx
                    seg, mark = pos, pos + target
        except OSError:
            pass
    yield seg, None, ctx


class _StatementBoundary:
    """The transactions of a file without GTIDs followed from its statements, XIDs and XA
    PREPAREs (:class:`~binlog_schema.changes.transactions.Boundary`, the one rule): whether
    an event starts a transaction with none open before it. A statement's role is read from
    its bytes (a record read lazily, as one process reads it)."""

    def __init__(self, ctx):
        from ..changes.transactions import ALONE, OPENS, Boundary
        self.ctx, self.boundary, self.starts = ctx, Boundary(), (OPENS, ALONE)

    def opens(self, blocks, pos, size, code) -> bool:
        was_open = self.boundary.open
        if code in STATEMENT_KINDS:
            from ..format.stream import EventRecord
            rec = EventRecord(pos, blocks.at(pos, size), self.ctx, lazy=True)
            step = self.boundary.feed(rec)
        else:
            step = self.boundary.step(code)
        return not was_open and step in self.starts


class _Held:
    """A segment's output, held until its turn: what went to stdout (bytes) and to stderr
    (text), in order. ``stdout`` and ``stderr`` are the streams the sequential loop writes.
    ``place``: a job's ``bytes -> bytes``, its stdout made for where it lands in the
    output (given the offset there): what depends on the output before it (a binlog's
    positions) is settled at the turn."""

    def __init__(self):
        self.parts: list = []
        self.stdout = _Stream(self.parts, 1)
        self.stderr = _Stream(self.parts, 2)
        self.place = None

    def replay(self, fds, at: int = 0) -> int:
        """Write the output (stdout's at the offset ``at`` of the output); the bytes written
        to stdout."""
        wrote = 0
        for which, data in self.parts:
            if which == 1:
                if self.place is not None:
                    data = self.place(data, at + wrote)
                wrote += len(data)
            _write_all(fds[which], data)
        self.parts.clear()
        return wrote


class _Stream:
    encoding = "utf-8"

    def __init__(self, parts, which):
        self.parts, self.which = parts, which
        self.buffer = self

    def write(self, data):
        self.parts.append((self.which, data.encode() if isinstance(data, str) else data))

    def flush(self):
        pass


def _write_all(fd, data) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _lines(fd):
    """The lines of a pipe, as they come."""
    rest = b""
    while True:
        chunk = os.read(fd, 4096)
        if not chunk:
            return
        rest += chunk
        *lines, rest = rest.split(b"\n")
        yield from lines


def decode_segment(path, held, segment, options) -> int:
    """One segment of ``decode`` (:func:`.write.write_events` from its ``start`` to its
    ``stop``, :func:`plan`'s, its output kept in ``held``): its status."""
    start, stop, ctx = segment
    out = Output(held.stdout)
    status = write_events(path, out, err=held.stderr, stop=stop,
                          resume=None if start is None else (start, ctx), **options)
    out.flush()
    return status


def _worker(path, job, options, segments, index, count, turn, after, fds, statements=None,
            done=None) -> int:
    """Do segments ``index``, ``index + count``... of ``segments()`` (the file's plan: each
    worker scans it) with ``job`` (``job(path, held, segment, options)``, the output kept in
    ``held``: its status), each written when ``turn`` gives the go, which then goes to
    ``after``. The status of its segments (the worst): 1 when a segment stopped at an error
    (the workers after write nothing more), 3 when something was reported and reading went
    on (rows not decoded). ``statements``: a dict the segments' statement-based changes are
    counted into (the file's line is the caller's); ``done``: a pipe told the bytes of each
    segment written (a progress line follows it)."""
    if statements is not None:
        options = dict(options, statements=statements)
    worst_status = CLEAN
    for k, segment in enumerate(segments()):
        if k % count != index:
            continue
        held = _Held()
        status = job(path, held, segment, options)
        token = os.read(turn, 9)
        if token[:1] != _GO:  # (a stop, or the worker before is gone)
            _pass(after, _STOP)
            return 0
        try:
            at = int.from_bytes(token[1:], "little")
            at += held.replay(fds, at)
        except BrokenPipeError:  # (the reader of the output is gone: as the loop does)
            _pass(after, _STOP)
            return 0
        if status == STOPPED:
            _pass(after, _STOP)
            return STOPPED
        worst_status = worst(worst_status, status)
        if done is not None:
            start, stop, _ = segment
            try:
                os.write(done, f"{(stop or os.path.getsize(path)) - (start or 0)}\n".encode())
            except OSError:
                pass
        _pass(after, _GO, at)
    return worst_status


def _pass(fd, token, at: int = 0) -> None:
    """Pass the turn (``_GO``, with the offset ``at`` in the output), or a stop."""
    try:
        os.write(fd, token + at.to_bytes(8, "little"))
    except BrokenPipeError:  # (that worker had no more segments and is gone)
        pass


def resolutions(path, schema, file_index, facts: bool = False):
    """(what the history ``schema`` does to the file's table maps and statements, by
    position; the decoder that found it): the QUERY and TABLE_MAP events of the file read
    alone, up to its end or first error (which the workers then meet and say). ``facts``:
    also the version and key of each table map's table in the history
    (:meth:`RowDecoder.resolutions`), for the change records."""
    from ..changes.row_change import RowDecoder
    decoder = RowDecoder(path, schema=schema, file_index=file_index)
    reader = BinlogReader(path, decode="lazy", types=[
        TABLE_MAP_EVENT, TRANSACTION_PAYLOAD_EVENT, EXECUTE_LOAD_QUERY_EVENT, *STATEMENT_KINDS])
    found: dict = {}
    try:
        decoder.resolutions(reader, found, facts)
    except (BinlogError, OSError):
        pass
    return found, decoder


def _fds_of(out: Output):
    """(the file descriptors ``out`` and ``sys.stderr`` write to), or None when either
    writes to no file descriptor (a stream in memory: the workers' writes would miss it)."""
    try:
        return out.stream.fileno(), sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):   # (io.UnsupportedOperation is both)
        return None


def shareable(path, workers: int | None = None, min_size: int = MIN_SIZE):
    """(the workers for ``path``, its size) when it is one to share between worker
    processes; None when the calling process reads it alone (smaller than ``min_size``, a
    single core, no ``fork``, a file that cannot be looked at)."""
    workers = worker_count() if workers is None else workers
    if workers < 2 or not hasattr(os, "fork"):
        return None
    try:
        size = os.path.getsize(path)
    except OSError:
        return None
    return None if size < min_size else (workers, size)


def write_file(path, out: Output, *, workers: int | None = None, min_size: int = MIN_SIZE,
               segment: int = SEGMENT, fds=None, schema=None, file_index: int = 0,
               progress=None, **options):
    """Decode ``path`` as :func:`.write.write_events` does (``options`` are its own, but
    neither ``start``, ``stop`` nor ``types``), the output written to the file descriptors
    ``fds`` (stdout's, stderr's; by default those ``out`` and ``sys.stderr`` write to) by
    worker processes, in segments of about ``segment`` bytes at most (a few per worker);
    None when the file is not one to share (smaller than ``min_size``, a single core,
    ``skip_errors``: its account of the file is one process's; an output that is no file
    descriptor's, such as a caller's stream in memory): the caller decodes it alone.
    ``out`` is flushed first. ``schema``: the history at the file's start (``file_index``:
    the file's place), left at its end (see the module); the change records' formats are
    also given, by position, the history's version and key of each table map's table.
    ``progress``: a :class:`~.progress.Progress` told what the workers have written."""
    if options.get("skip_errors"):
        return None  # (with skip_errors, one account of the whole file: one process)
    shared = shareable(path, workers, min_size)
    if shared is None:
        return None
    if fds is None:
        fds = _fds_of(out)
        if fds is None:
            return None
    changes = FORMATS[options.get("fmt", DEFAULT)].changes
    prepass = None
    if schema is not None:   # (the workers decode with what the history did, not with it)
        resolved, prepass = resolutions(path, schema, file_index, facts=changes)
        options = dict(options, resolved=resolved)
    out.flush()
    # (change records: segments of whole transactions; rows implied, statements counted)
    status, totals = share(path, decode_segment, options, fds, shared, segment=segment,
                           transactions=changes, counted=options.get("rows") or changes,
                           progress=progress)
    if totals is not None and status != STOPPED:
        for line in rows_summary(path, totals, prepass):
            _write_all(fds[1], (line + "\n").encode())
    return status


def share(path, job, options, fds, shared, *, segment: int = SEGMENT,
          transactions: bool = False, counted: bool = False, progress=None, segments=None,
          at: int = 0):
    """``path`` done by worker processes, segment by segment (:func:`plan`'s; ``shared``:
    the workers and the file's size, :func:`shareable`'s), each with ``job(path, held,
    segment, options)`` (its output kept in ``held``, a :class:`_Held`, until its turn: its
    status), the segments' outputs written to the file descriptors ``fds`` (stdout's,
    stderr's) in the segments' order. Returns (the worst status, the statement-based changes
    the segments counted when ``counted``, else None). ``transactions``: segments of whole
    transactions (:func:`plan`). ``segments``: other segments than the plan's, a list (made
    before the workers fork; ``progress`` is then not followed). ``progress``: a
    :class:`~.progress.Progress` told what the workers have written. ``at``: the offset in
    the output where the first segment's output lands (a job's :attr:`_Held.place` is
    given each segment's)."""
    workers, size = shared
    listed = segments
    # a few segments per worker: the turn goes round while each decodes its next one
    target = max(min(segment, size // (3 * workers)), 1)

    def segments():   # (the plan: each worker scans the file)
        return plan(path, target, transactions) if listed is None else listed

    if listed is not None:
        progress = None
    sys.stdout.flush()
    sys.stderr.flush()
    turns = [os.pipe() for _ in range(workers)]
    # the workers' counts of statement-based changes (one short line each), said once at the
    # end as the sequential loop says them
    counts = os.pipe() if counted else None
    done = os.pipe() if progress is not None else None
    pids = []
    for i in range(workers):
        pid = os.fork()
        if pid == 0:  # a worker: keeps its turn's read end and the next one's write end
            code = STOPPED
            after = turns[(i + 1) % workers][1]
            try:
                for fd in {fd for pair in turns for fd in pair} - {turns[i][0], after}:
                    os.close(fd)
                statements = None if counts is None else {}
                if done is not None:
                    os.close(done[0])
                code = _worker(path, job, options, segments, i, workers, turns[i][0], after,
                               {1: fds[0], 2: fds[1]}, statements,
                               None if done is None else done[1])
                if counts is not None:
                    os.close(counts[0])
                    # (verb=count pairs: the verbs are words; no json import for them)
                    os.write(counts[1], (" ".join(f"{v}={n}" for v, n in statements.items())
                                         + "\n").encode())
            except BaseException as e:  # noqa: BLE001 - a crash: said, and the turn stopped
                try:
                    os.write(fds[1], f"{path}: a decoding worker failed: {e!r}\n".encode())
                    os.write(after, _STOP + bytes(8))
                except OSError:
                    pass
            os._exit(code)
        pids.append(pid)
    os.write(turns[0][1], _GO + at.to_bytes(8, "little"))
    for r, w in turns:
        os.close(r)
        os.close(w)
    if counts is not None:
        os.close(counts[1])
    if done is not None:
        os.close(done[1])
        progress.follow(done[0])
    status = CLEAN
    for pid in pids:
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        status = worst(status, code if code in (CLEAN, STOPPED, DAMAGED) else STOPPED)
    if done is not None:
        progress.unfollow()
    totals = None
    if counts is not None:
        totals = {}
        with os.fdopen(counts[0], "rb") as f:
            for line in f.read().splitlines():
                for pair in line.decode().split():
                    verb, n = pair.split("=")
                    totals[verb] = totals.get(verb, 0) + int(n)
    return status, totals

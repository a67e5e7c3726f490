"""Whole files written as JSON Lines or text: the loops behind ``binlog-schema decode`` and
``binlog-schema table-maps`` (reader, row decoder, writer), as library functions."""

from __future__ import annotations

import io
import sys

from ..format.errors import BinlogError
from .statuses import CLEAN, DAMAGED, STOPPED
from ..format.facts.codes import TABLE_MAP_EVENT, TRANSACTION_PAYLOAD_EVENT
from ..format.stream import BinlogReader
from . import jsonl
from .formats import FORMATS


class Output:
    """Lines written in blocks of about ``block`` bytes (one write per block, not per line;
    small blocks, because a large buffer is memory the system must map afresh each time).
    Lines are encoded (UTF-8) as they come into the block, a bytearray: a line with
    characters beyond Latin-1 then costs nothing to the others (joined as text, every line
    of the block would be widened to its width), and a line given in parts (:meth:`add_parts`,
    a rows event's hex) is copied once, into the block. ``flush`` before anything else is
    written to another stream, so the order stays right."""

    def __init__(self, stream=None, block: int = 1 << 16):
        stream = stream if stream is not None else sys.stdout
        self.stream = stream
        buffer = getattr(stream, "buffer", None)
        if isinstance(stream, io.BufferedIOBase):   # (a file opened in binary mode)
            self.write = stream.write
            self._flush = stream.flush
        elif buffer is not None and (getattr(stream, "encoding", "") or "").lower().replace(
                "-", "") == "utf8":
            stream.flush()
            self.write = buffer.write
            self._flush = buffer.flush
        else:  # a text stream of another kind (a test's StringIO): text blocks
            self.write = lambda data: stream.write(bytes(data).decode("utf-8"))
            self._flush = stream.flush
        self.buf = bytearray()
        self.block = block

    def add(self, line: str) -> None:
        buf = self.buf
        buf += line.encode()
        buf += b"\n"
        if len(buf) >= self.block:
            self.flush()

    def add_parts(self, first: str, data: bytes, last: str) -> None:
        """The line ``first + data + last`` (``data`` already its UTF-8 bytes)."""
        buf = self.buf
        buf += first.encode()
        buf += data
        buf += last.encode()
        buf += b"\n"
        if len(buf) >= self.block:
            self.flush()

    def flush(self) -> None:
        if self.buf:
            self.write(self.buf)
            self.buf = bytearray()
        self._flush()


class Spool:
    """``with Spool(out) as spool``: an :class:`Output` over a temporary file (on disk: memory
    stays flat), copied to ``out`` when the block ends; when it ends by an exception nothing
    reaches ``out`` (a script written whole or not at all)."""

    def __init__(self, out: Output):
        self.out = out

    def __enter__(self) -> Output:
        import tempfile
        self.file = tempfile.TemporaryFile(prefix="binlog-schema-")
        self.spool = Output(self.file)
        return self.spool

    def __exit__(self, kind, value, tb) -> bool:
        with self.file as f:
            if kind is None:
                self.spool.flush()
                self.out.flush()
                f.seek(0)
                while chunk := f.read(1 << 20):
                    self.out.write(chunk)
                self.out.flush()
        return False


def _records(rec):
    yield rec
    yield from rec.inner or ()


def _problem(out: Output, text: str, err=None) -> None:
    out.flush()
    (err or sys.stderr).write(text + "\n")


def os_problem(e: OSError) -> str:
    """What is wrong with a path that cannot be read, in a few words."""
    if isinstance(e, IsADirectoryError):
        return "is a directory (this command reads binlog files: give the files in it)"
    if isinstance(e, FileNotFoundError):
        return "no such file or directory"
    if isinstance(e, PermissionError):
        return "permission denied"
    if isinstance(e, NotADirectoryError):
        return "not a directory (a part of the path is a file)"
    return (e.strerror or str(e)).lower()


def _snap_note(reader, path, out, err):
    """The note said when ``start`` fell inside an event (reading begins at the next one)."""
    at, size = reader.snapped
    _problem(out, f"{path}: --start-position {reader.start} is inside the event at {at} (size "
             f"{size}); starting at the next event at {at + size}", err)


def _noting_snap(reader, records, path, out, err):
    """``records``, with the note of :func:`_snap_note` said before the first record after
    ``start`` (or at the end)."""
    noted = False
    for rec in records:
        if not noted and reader.snapped is not None:
            noted = True
            _snap_note(reader, path, out, err)
        yield rec
    if not noted and reader.snapped is not None:
        _snap_note(reader, path, out, err)



class Account:
    """What reading one file with ``--skip-errors`` met: the events decoded, the events with
    an error, the byte ranges skipped and the events of types not declared; one stderr line
    per problem, as it comes, and a summary line at the end."""

    def __init__(self, path, out: Output, err=None):
        self.path, self.out, self.err = path, out, err
        self.events = self.errors = self.ranges = self.skipped = 0
        self.kinds: dict = {}

    def counted(self, records):
        """``records``, counted as they pass."""
        kinds = self.kinds
        for rec in records:
            if rec.gap is None:
                for r in (rec,) if rec.inner is None else (rec, *rec.inner):
                    code = r.raw[4]
                    kinds[code] = kinds.get(code, 0) + 1
                    self.events += 1
            yield rec

    def problem(self, rec) -> None:
        if rec.gap is not None:
            start, end = rec.gap
            self.ranges += 1
            self.skipped += end - start
            text = f"skipped bytes {start} to {end} ({end - start} bytes): {rec.error}"
        else:
            self.errors += 1
            where = rec.offset if rec.parent_offset is None else \
                f"{rec.parent_offset} (payload +{rec.offset})"
            text = f"{rec.type_name} at {where}: {rec.error}"
        _problem(self.out, f"{self.path}: {text}", self.err)

    @property
    def status(self) -> int:
        return DAMAGED if self.errors or self.ranges else CLEAN

    def summary(self) -> str:
        from ..format import compiled
        from ..format.facts.codes import type_name
        declared = compiled.kinds()
        undeclared = ", ".join(f"{type_name(k)} {n}" for k, n in sorted(self.kinds.items())
                               if k not in declared)
        return (f"{self.path}: {self.events - self.errors} events decoded, {self.errors} with "
                f"errors, {self.skipped} bytes skipped in {self.ranges} ranges"
                + (f"; not declared (kept raw): {undeclared}" if undeclared else ""))


def write_events(path, out: Output, *, fmt: str = "jsonl", rows: bool = False,
                 binary: str = "hex", start=None, stop=None, types=None,
                 skip_errors: bool = False, err=None, resume=None, schema=None,
                 file_index: int = 0, statements: dict | None = None,
                 selection=None, resolved=None, matcher=None, progress=None) -> int:
    """Decode one file to ``out``. Without ``skip_errors`` the good events before the first
    error are written, then one stderr line says what and where (status 1); with it every byte
    is accounted for (:class:`BinlogReader`'s recovery): a stderr line per problem and a
    summary line, status 3 when anything was skipped or had an error, else 0. ``resume``:
    ``(offset, ctx)``, start reading there (:class:`BinlogReader`'s).

    With ``rows``: ``schema``, a :class:`~binlog_schema.changes.schema.SchemaHistory` in force at
    the file's start (``file_index``: the file's place among the files it follows), names
    the columns of table maps without names (see :class:`RowDecoder`). A table map that
    disagrees with it is a stderr line and a ``schema_error`` in the TABLE_MAP's line (text:
    a ``# schema error`` line), status 3; a table not in it, a stderr note. A rows event
    whose rows cannot be decoded is a stderr line (file, offset, table, column, reason: the
    decoder's :class:`~binlog_schema.format.errors.RowsError`) and its line's ``rows_error``, status
    3 (with or without ``skip_errors``). ``matcher``: a
    :class:`~binlog_schema.changes.row_match.RowMatcher` for ``selection.where`` (one is made
    for the file when not given); ``progress``: a :class:`~.progress.Progress` that follows
    the reading. Statement-based
    changes are counted: a stderr line at the end of the file (``statements``, a dict: the
    counts are added to it instead, for a caller that decodes a file in parts; ``resolved``:
    such a caller's table maps as the history resolved them, instead of ``schema``: see
    :meth:`RowDecoder.resolutions`)."""
    form = FORMATS[fmt]
    changes = form.changes  # change records (maxwell, debezium): rows implied
    # JSON Lines: events are parsed when their line needs it (a body seen before is not)
    reader = BinlogReader(path, start=start, stop=stop, types=types, skip_errors=skip_errors,
                          decode="lazy" if form.lazy else True, resume=resume)
    account = Account(path, out, err) if skip_errors else None
    on_error = account.problem if account is not None else None
    records = account.counted(reader) if account is not None else reader
    if start:  # (a position inside an event: a note, reading begins at the next one)
        records = _noting_snap(reader, records, path, out, err)
    if progress is not None:
        records = progress.watch(records)
    decoder = None
    if rows or changes:
        from ..changes.row_change import RowDecoder
        decoder = RowDecoder(path, schema=schema, file_index=file_index,
                             on_problem=lambda e: _problem(out, f"{path}: {e}", err),
                             on_notice=lambda t: _problem(out, f"{path}: note: {t}", err),
                             on_undecoded=lambda e: _problem(out, f"{path}: {e}", err),
                             resolved=resolved)
    if selection is not None:  # (--database, --table, --gtid...: changes/selection.py)
        from ..changes.selection import select_events
        if decoder is not None:   # (the history follows every statement, selected or not)
            records = decoder.watch(records)
        if selection.where is not None:   # (--where: changes/row_match.py)
            if matcher is None:
                from ..changes.row_match import RowMatcher
                matcher = RowMatcher(selection.where, selection, schema)
            records = matcher.events(records)
        records = select_events(records, selection)
    try:
        writer = RecordWriter(path, out, fmt, decoder, binary)
        writer.write(records, on_error)
    except BinlogError as e:
        _problem(out, f"{path}: {e}", err)
        return STOPPED
    except OSError as e:  # (a file that cannot be read: said, not a traceback)
        _problem(out, f"{path}: {os_problem(e)}", err)
        return STOPPED
    if account is not None:
        _problem(out, account.summary(), err)
        status = account.status
    elif reader.tail is not None:  # (with skip_errors, the tail is a SKIPPED range)
        import json
        _problem(out, f"{path}: truncated last event: "
                 f"{json.dumps(reader.tail.to_dict())}", err)
        status = STOPPED
    else:
        status = CLEAN
    if decoder is not None:
        if (decoder.problems or decoder.undecoded) and status != STOPPED:
            status = DAMAGED
        if statements is not None:  # (a segment's: the caller says the file's)
            for verb, n in decoder.statements.items():
                statements[verb] = statements.get(verb, 0) + n
            decoder.statements = {}
        if status != STOPPED:   # (a file read to its end)
            for line in rows_summary(path, decoder.statements, decoder):
                _problem(out, line, err)
    return status


class RecordWriter:
    """The records of one file written to ``out`` in format ``fmt`` (a name of
    :data:`.formats.FORMATS`), with the rows of ``decoder`` (a RowDecoder, or None);
    :meth:`write` may be called for successive parts of the file's records (a stream's
    transactions). ``changes``: the format's :class:`.change_records.ChangeWriter` (change
    records), else None."""

    def __init__(self, path, out: Output, fmt: str = "jsonl", decoder=None,
                 binary: str = "hex"):
        self.path, self.out, self.fmt, self.decoder, self.binary = path, out, fmt, decoder, binary
        form = FORMATS[fmt]
        writer = form.writer_class()
        if form.changes:
            self.changes, self.lines = writer(path, out.add, decoder), None
        else:
            self.changes, self.lines = None, writer(path, out, decoder, binary)

    def write(self, records, on_error=None) -> None:
        if self.changes is not None:
            from .change_records import write_change_records
            write_change_records(self.path, records, self.changes, on_error)
        else:
            self.lines.write(records, on_error)


def rows_summary(path, statements: dict, decoder=None) -> list:
    """The stderr lines that end a file decoded with rows: the statement-based changes (not
    row events: counted, not decoded; ``statements``, by verb) and, with a schema history
    (``decoder``'s), what it named."""
    lines = []
    if statements:
        by = ", ".join(f"{v.upper()} {n}" for v, n in sorted(statements.items()))
        lines.append(f"{path}: {sum(statements.values())} statement-based changes ({by}): "
                     "QUERY events, not row events: no rows decoded for them")
    if decoder is not None and decoder.schema is not None and (
            decoder.schema.seeded or decoder.named or decoder.problems or decoder.notices):
        lines.append(f"{path}: schema history: {decoder.named} table map shapes named from "
                     f"it, {len(decoder.problems)} disagreeing (reported), "
                     f"{len(decoder.notices)} notes")
    return lines


def write_table_maps(path, out: Output, err=None, skip_errors: bool = False) -> int:
    """One JSON object per TABLE_MAP of one file. Without ``skip_errors`` reading stops at the
    first TABLE_MAP (or framing) error, said on stderr (status 1); with it the file is read
    with recovery: a stderr line per problem and a summary line, status 3 when anything was
    skipped or had an error."""
    reader = BinlogReader(path, types=[TABLE_MAP_EVENT, TRANSACTION_PAYLOAD_EVENT],
                          skip_errors=skip_errors, decode="lazy")
    account = Account(path, out, err) if skip_errors else None
    lines = jsonl.TableMapLines(path)
    try:
        for rec in account.counted(reader) if account is not None else reader:
            for r in _records(rec):
                if r.gap is not None:
                    account.problem(r)
                    continue
                if r.kind != TABLE_MAP_EVENT:
                    if r.error is not None and account is not None:
                        account.problem(r)
                    elif r.error is not None:
                        raise r.error
                    continue
                line = lines.line(r)
                if line is None:
                    if account is None:
                        raise r.error
                    account.problem(r)
                    continue
                out.add(line)
    except BinlogError as e:
        _problem(out, f"{path}: {e}", err)
        return STOPPED
    except OSError as e:
        _problem(out, f"{path}: {os_problem(e)}", err)
        return STOPPED
    if account is None:
        if reader.tail is not None:
            _problem(out, f"{path}: truncated last event at {reader.tail.offset}", err)
            return STOPPED
        return CLEAN
    _problem(out, account.summary(), err)
    return account.status

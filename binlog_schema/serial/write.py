"""Whole files written as JSON Lines or text: the loops behind ``binlog-schema decode`` and
``binlog-schema table-maps`` (reader, row decoder, writer), as library functions."""

from __future__ import annotations

import sys

from ..errors import BinlogError
from ..mysql.codes import GTID_LOG_EVENT, GTID_TAGGED_LOG_EVENT, MARIA_GTID_EVENT, ROWS_KINDS
from ..mysql.codes import TABLE_MAP_EVENT, TRANSACTION_PAYLOAD_EVENT
from ..stream import BinlogReader
from . import jsonl

# the events the row decoder follows besides rows events: table maps and the GTIDs that name
# a transaction
_ROWS_STATE_KINDS = frozenset({TABLE_MAP_EVENT, GTID_LOG_EVENT, GTID_TAGGED_LOG_EVENT,
                               MARIA_GTID_EVENT})


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
        if buffer is not None and (getattr(stream, "encoding", "") or "").lower().replace(
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


def _records(rec):
    yield rec
    for inner in rec.inner or ():
        yield inner


def _problem(out: Output, text: str, err=None) -> None:
    out.flush()
    (err or sys.stderr).write(text + "\n")


def write_events(path, out: Output, *, fmt: str = "jsonl", rows: bool = False,
                 binary: str = "hex", start=None, stop=None, types=None,
                 skip_errors: bool = False, err=None, resume=None) -> int:
    """Decode one file to ``out``; 1 when reading stopped at an error, else 0. ``resume``:
    ``(offset, ctx)``, start reading there (:class:`BinlogReader`'s)."""
    status = 0
    jsonl_format = fmt == "jsonl"
    # JSON Lines: events are parsed when their line needs it (a body seen before is not)
    reader = BinlogReader(path, start=start, stop=stop, types=types, skip_errors=skip_errors,
                          decode="lazy" if jsonl_format else True, resume=resume)
    decoder = None
    if rows:
        from ..model.row_change import RowDecoder
        decoder = RowDecoder(path)
    if jsonl_format:
        lines = jsonl.EventLines(path)
    else:
        from . import text
    try:
        records = reader
        if jsonl_format:
            lines.write(reader, out.add, decoder, binary, out.add_parts)
            records = ()
        for rec in records:
            for r in (rec,) if rec.inner is None else _records(rec):
                kind = r.kind
                if jsonl_format:
                    parts = lines.parts(r)
                    if decoder is not None and kind in _ROWS_STATE_KINDS and (
                            parts is not None or (r.error is None and r.value is not None)):
                        decoder._one(r)
                    extra = ""
                    if decoder is not None and kind in ROWS_KINDS:
                        extra = jsonl.rows_json(r, decoder, binary)
                    out.add(lines.line(r, parts, extra))
                    continue
                if decoder is not None and kind in _ROWS_STATE_KINDS and r.value is not None:
                    decoder._one(r)
                out.add(text.event_lines(r))
                if decoder is not None and kind in ROWS_KINDS:
                    for line in text.rows_lines(r, decoder, binary):
                        out.add(line)
    except BinlogError as e:
        _problem(out, f"{path}: {e}", err)
        status = 1
    if reader.tail is not None:
        import json
        _problem(out, f"{path}: truncated last event: {json.dumps(reader.tail.to_dict())}", err)
    return status


def write_table_maps(path, out: Output, err=None) -> int:
    """One JSON object per TABLE_MAP of one file; 1 when one could not be read, else 0."""
    status = 0
    reader = BinlogReader(path, types=[TABLE_MAP_EVENT, TRANSACTION_PAYLOAD_EVENT],
                          skip_errors=True, decode="lazy")
    lines = jsonl.TableMapLines(path)
    try:
        for rec in reader:
            for r in _records(rec):
                if r.kind != TABLE_MAP_EVENT:
                    continue
                line = lines.line(r)
                if line is None:
                    _problem(out, f"{path}@{r.offset}: {r.error}", err)
                    status = 1
                    continue
                out.add(line)
    except BinlogError as e:
        _problem(out, f"{path}: {e}", err)
        status = 1
    return status

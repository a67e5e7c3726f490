"""Reading a split: its records, which tile its byte range exactly (:func:`split_records`),
through a view of the file that ends where the split ends (:class:`Clip`). Every byte is
accounted for, as the recovering reader accounts for a whole file: a split that meets damage
resynchronises inside its own range, and its records (events, quarantined events, skipped
ranges) tile the range; the splits of a file tile ``[4, size)``."""

from __future__ import annotations

from ...format import scanning
from ...format.event_codec import HEADER_SIZE
from ...format.errors import FormatError
from ...format.facts.codes import CONTEXT_KINDS, FORMAT_DESCRIPTION_EVENT
from ...format.facts.flavor import checksum_length, checksummed
from ...format.facts.framing import LOG_POS_AT, LOG_POS_END, TYPE_AT
from ...format.context import Context
from ...format.stream import MAGIC, MAX_EVENT_SIZE, BinlogReader, EventRecord
from .split import LOG_POS_WRAP, Split

class Clip:
    """A read-only view of a file's first ``end`` bytes: what a split's reader sees (it
    reads, seeks and resynchronises in the file's own offsets and finds the end of the file
    at the end of the split). The file may be moved by others between reads (the fallback
    scans): the view reads from its own position."""

    def __init__(self, f, end: int):
        self.f, self.end, self.pos = f, end, 0

    def read(self, n: int = -1) -> bytes:
        k = self.end - self.pos if n is None or n < 0 else min(n, self.end - self.pos)
        if k <= 0:
            return b""
        f = self.f
        if f.tell() != self.pos:
            f.seek(self.pos)
        data = f.read(k)
        self.pos += len(data)
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = max(0, offset + (0, self.pos, self.end)[whence])
        return self.pos

    def tell(self) -> int:
        return self.pos

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True


def split_records(f, split: Split, ctx: Context | None = None, parse=None):
    """The records of one split, which tile its byte range exactly (``[4, end)`` for the
    first split, ``[start, end)`` for the others): events and SKIPPED records, as
    ``BinlogReader(..., skip_errors=True)`` (recovering) gives them for the whole file.

    A later split is read from its start with the file's context ``ctx`` (``resume``), and
    every reader stops at the split's end (``stop``). The framing is followed by the plain
    reader while every event is confirmed as the recovering reader confirms it (its CRC32,
    which the event's parse checks; without checksums its log positions, or the header after
    it: :func:`binlog_schema.format.scanning.confirmed`); from the first event that is not (an
    error, a size out of bounds, an event cut short, a size nothing vouches for), the recovering
    reader takes over from that event, with the context in force there (so does an event
    without a CRC32 over a FORMAT_DESCRIPTION whose CRC32 verifies; an event that
    holds a magic number hands over too: the recovering reader tells a second file's start
    inside it from a value that happens to hold those bytes). Confirmations may
    look at the headers after the split's end (a split ends where the pre-scan confirmed an
    event); no record goes past it: a skipped range that would is cut at the end (the next
    split starts with a confirmed event there), and so is an event that would run past it
    (its bytes are skipped, never counted twice). ``parse``: called on each record before it
    is judged (the task's TABLE_MAP memo)."""
    view = Clip(f, split.size)
    stop = split.end
    resume = (split.start, ctx) if split.start else None
    fast = BinlogReader(view, decode="lazy", skip_errors=True, recover=False, resume=resume,
                        stop=stop)
    sblocks = scanning.Blocks(view)   # (what a confirmation reads, the reader's own apart)
    it = iter(fast)
    at = None            # (offset, context) where the recovering reader takes over
    emitted = False
    before = None        # (where the record before says the next starts: a proof)
    for rec in it:
        if parse is not None:
            parse(rec)
        c = rec.ctx
        raw = rec.raw
        n = len(raw)
        if rec.error is not None or rec.offset + n > stop or raw.find(MAGIC, 1) > 0:
            # (an event that holds a magic number may hold a second file's start)
            at = (rec.offset, c)
            break
        if checksummed(raw[TYPE_AT], c) and (
                c.kind(raw[TYPE_AT]) != FORMAT_DESCRIPTION_EVENT or
                checksum_length(FORMAT_DESCRIPTION_EVENT, raw[HEADER_SIZE:HEADER_SIZE + 52], c)):
            if n < HEADER_SIZE + 4:   # (too short to hold a CRC32 that verifies)
                at = (rec.offset, c)
                break
        elif not c.encrypted and not (
                _over_nothing(view, sblocks, rec, c) if c.binlog_version >= 4 and
                c.kind(raw[TYPE_AT]) not in CONTEXT_KINDS and
                int.from_bytes(raw[LOG_POS_AT:LOG_POS_END], "little") ==
                (rec.offset + n) & LOG_POS_WRAP
                else _confirmed(view, sblocks, rec, c, before)):
            # no CRC32: confirmed as the recovering reader confirms it (scanning.confirmed:
            # its log positions, or the header after it, vouch for its size; no
            # FORMAT_DESCRIPTION a CRC32 proves inside it; a log position that is its end,
            # as in a server's own binlog, vouches for it at once), else that reader takes
            # over
            at = (rec.offset, c)
            break
        emitted = True
        before = scanning.log_next(raw, n, c)
        yield rec
    else:
        tail = fast.tail
        if tail is None:
            return
        at = (tail.offset, fast.ctx)
    it.close()
    if not emitted and not split.start:
        resume = None   # (nothing delivered yet: from the magic number, as a whole file)
    else:
        resume = (*at, before)
    view.seek(0)
    reader = BinlogReader(view, decode="lazy", skip_errors=True, recover=True, resume=resume,
                          stop=stop)
    for rec in reader:
        if rec.gap is not None:
            start, end = rec.gap
            if end > stop:
                rec.gap = (start, stop)
                yield rec
                return
        elif rec.offset + len(rec.raw) > stop:   # (a chain that is not the pre-scan's)
            yield EventRecord(rec.offset, b"", rec.ctx, gap=(rec.offset, stop), error=FormatError(
                f"the event at {rec.offset} ({len(rec.raw)} bytes) runs past {stop}, where "
                "a confirmed event starts (the next split's): its bytes are skipped",
                offset=rec.offset + 9, path="header.event_size"))
            return
        elif parse is not None:
            parse(rec)
        yield rec


def _over_nothing(view, sblocks, rec, ctx) -> bool:
    """Whether no FORMAT_DESCRIPTION whose CRC32 verifies starts inside ``rec`` (read
    through ``sblocks``; the file position, which the plain reader keeps, put back)."""
    here = view.tell()
    try:
        return scanning.checksummed_fde_inside(sblocks, rec.offset, len(rec.raw), ctx) is None
    finally:
        view.seek(here)


def _confirmed(view, sblocks, rec, ctx, before) -> bool:
    """Whether ``rec`` (no CRC32 proves it) is confirmed (:func:`scanning.confirmed`, read
    through ``sblocks``; the file position, which the plain reader keeps, put back)."""
    here = view.tell()
    try:
        return scanning.confirmed(sblocks, rec.offset, len(rec.raw), view.end, ctx,
                                  MAX_EVENT_SIZE, before)
    finally:
        view.seek(here)

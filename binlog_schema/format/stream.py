"""Whole files and relay logs read: magic, FDE-driven context, offsets, table maps in force,
transaction payloads, recovery. Reads in constant memory: one event at a time from a buffered
file. Writing files is :mod:`binlog_schema.format.writer`'s."""

from __future__ import annotations

import io as _io
import os

from .context import Context
from .event_codec import kept_raw, parse_event
from .errors import BinlogError, FormatError, LimitError, TruncatedError, not_a_binlog
from . import scanning
from .errors import ChecksumError
from .facts.codes import (CONTEXT_KINDS, FORMAT_DESCRIPTION_EVENT, START_ENCRYPTION_EVENT,
                          START_EVENT_V3, TABLE_MAP_EVENT, TRANSACTION_PAYLOAD_EVENT, code_of,
                          type_name)
from .facts.flavor import checksummed, context_from_fde, context_from_start_v3
from .facts.framing import HEADER_SIZE, TYPE_AT
from .scanning import MAGIC, Blocks, codes_except

MAX_EVENT_SIZE = 1 << 30  # 1 GiB: max_allowed_packet's ceiling; larger sizes are refused
# the reader's block (larger blocks cost page faults; a larger event is read whole)
_BLOCK = 1 << 16
_SLACK = 1 << 10  # past a range's stop: the last event's bytes, mostly

_SPECIAL = frozenset({FORMAT_DESCRIPTION_EVENT, START_EVENT_V3, START_ENCRYPTION_EVENT,
                      TRANSACTION_PAYLOAD_EVENT})
_CONTEXT = CONTEXT_KINDS | {START_ENCRYPTION_EVENT}  # events whose failure leaves no context


class EventRecord:
    """One event of a file: where it is, its bytes, the context it was read with, its value
    (None when not decoded) or the typed error it raised.

    A lazy record (``BinlogReader(decode="lazy")``) parses its bytes the first time its
    ``value`` or ``error`` is asked for; a parse error then lands in ``error``.
    """

    __slots__ = ("offset", "raw", "ctx", "_value", "_error", "inner", "parent_offset",
                 "unparsed", "gap")

    def __init__(self, offset: int, raw: bytes, ctx: Context, value=None,
                 error: BinlogError | None = None, inner: list | None = None,
                 parent_offset: int | None = None, lazy: bool = False,
                 gap: tuple | None = None):
        self.offset = offset
        self.raw = raw
        self.ctx = ctx
        self._value = value
        self._error = error
        self.inner = inner                 # events inside a TRANSACTION_PAYLOAD
        self.parent_offset = parent_offset  # for inner events: the payload event's offset
        self.unparsed = lazy
        self.gap = gap                      # recovery: the (start, end) of skipped bytes

    def _parse(self):
        self.unparsed = False
        try:
            self._value = parse_event(self.raw, self.ctx, self.offset)
        except BinlogError as e:
            self._error = e
        else:
            self._error = kept_raw(self._value, self.ctx.kind(self.raw[TYPE_AT]), self.offset)

    @property
    def value(self):
        if self.unparsed:
            self._parse()
        return self._value

    @value.setter
    def value(self, v):
        self.unparsed = False
        self._value = v

    @property
    def error(self):
        if self.unparsed:
            self._parse()
        return self._error

    @error.setter
    def error(self, e):
        self._error = e

    def __repr__(self):
        return f"EventRecord(offset={self.offset}, type={self.type_name}, size={self.size})"

    @property
    def type_code(self) -> int:
        """The code stored in the header (-1 for a recovery gap)."""
        return self.raw[TYPE_AT] if len(self.raw) > TYPE_AT else -1

    @property
    def kind(self) -> int:
        """The standard (GA) type code: differs from ``type_code`` only in files of
        development trees with their own numbering."""
        return self.ctx.kind(self.raw[TYPE_AT]) if len(self.raw) > TYPE_AT else -1

    @property
    def type_name(self) -> str:
        return "SKIPPED" if self.gap is not None else type_name(self.kind)

    @property
    def size(self) -> int:
        return len(self.raw)


class PlainRecord(EventRecord):
    """A lazy record of an ordinary event (not a context event, not a payload) read in a
    file's context: what the reader gives most often, made with the fewest steps. Writers
    that handle such records inline check for this class."""

    __slots__ = ()

    def __init__(self, offset: int, raw: bytes, ctx: Context):
        self.offset = offset
        self.raw = raw
        self.ctx = ctx
        self._value = self._error = self.inner = self.parent_offset = self.gap = None
        self.unparsed = True


class Tail:
    """A truncated last event: where it starts, how many bytes are there and how many the
    header (when complete) says are needed."""

    __slots__ = ("offset", "have", "need")

    def __init__(self, offset: int, have: int, need: int | None):
        self.offset, self.have, self.need = offset, have, need

    def __eq__(self, other):
        return isinstance(other, Tail) and self.to_dict() == other.to_dict()

    def __repr__(self):
        return f"Tail(offset={self.offset}, have={self.have}, need={self.need})"

    def to_dict(self) -> dict:
        return {"offset": self.offset, "have": self.have, "need": self.need,
                "missing": None if self.need is None else self.need - self.have}


def _open(source):
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _io.BytesIO(bytes(source)), True
    if isinstance(source, (str, os.PathLike)):
        return open(source, "rb", buffering=0), True  # (the reader reads in large blocks)
    return source, False


class BinlogReader:
    """Iterate the events of a binlog or relay-log file.

    ``start``/``stop``: byte positions (an event is delivered when it starts at or after
    ``start`` and before ``stop``: an event that starts before ``stop`` is delivered whole);
    the FDE is always read for the context, as mysqlbinlog does. A ``start`` inside an event
    is not an error: delivery begins at the next event, and ``snapped`` is then the
    ``(offset, size)`` of the event ``start`` fell into (None while it has not).
    ``types``: type codes or names to deliver (others are skipped without decoding).
    ``decode``: parse event bodies (else records carry bytes only); ``"lazy"``: parse each
    record when its value is first asked for (errors then land in ``record.error``).
    ``skip_errors``: a bad event is delivered with its ``error`` set and reading goes on;
    otherwise the typed error is raised (after every good event before it was delivered).
    ``payloads``: decode the events inside TRANSACTION_PAYLOAD events into ``record.inner``.
    A source that does not start with the magic number raises :class:`~.errors.NotBinlogError`
    (empty, or what it starts with: compressed, text...), one that ends inside it a
    :class:`~.errors.TruncatedError`, before any record.
    ``recover`` (the default with ``skip_errors``, on a seekable source): account for every
    byte. An event is delivered when its size is confirmed (its CRC32 verifies, or the header
    after it is plausible: :mod:`binlog_schema.format.scanning`), with its error when its body
    fails; bytes that cannot be attributed to an event (damage up to the next confirmed event, a
    size field that lies, a truncated last event, everything after a FORMAT_DESCRIPTION that is
    missing or cannot be honoured) are delivered as a SKIPPED record of that byte range
    (``record.gap == (start, end)``, ``record.error`` saying why). The records then tile the file
    from offset 4 to its end. A second magic number with its FORMAT_DESCRIPTION (two files
    concatenated) is a 4-byte SKIPPED record, and the events after it are read in their own context.
    Implies ``skip_errors``. ``resume``: ``(offset, ctx)``, read from ``offset`` (where an event
    starts) with the context ``ctx`` in force there, as a reader that had read the file up to it
    would go on (the magic and the events before are not read; a seekable source); recovering, a
    third item may say where the event before ``offset`` says the next starts
    (:func:`binlog_schema.format.scanning.log_next`: a proof of the sizes without checksums).
    """

    def __init__(self, source, *, start: int | None = None, stop: int | None = None,
                 types=None, decode: bool = True, skip_errors: bool = False,
                 payloads: bool = True, ctx: Context | None = None,
                 max_event_size: int = MAX_EVENT_SIZE, recover: bool | None = None,
                 max_scan: int = 64 << 20, resume: tuple | None = None):
        self.source = source
        self.resume = resume
        self.start = start
        self.stop = stop
        self.types = None if types is None else {
            t if isinstance(t, int) else _code_of(t) for t in types}
        self.decode = decode
        self.recover = skip_errors if recover is None else recover
        self.max_scan = max_scan
        self.skip_errors = skip_errors or bool(recover)
        self.gaps: list = []
        self.payloads = payloads
        self.ctx = ctx or Context(checksum=False)
        self.max_event_size = max_event_size
        self.tail: Tail | None = None
        self.table_maps: dict = {}
        self._read = 0
        self._fde_end = None  # where the last FORMAT_DESCRIPTION read ends
        self._misplaced = None  # a START_ENCRYPTION refused as damage (its offset)
        self._walked = None   # the header walk in progress (which counts what it passes over)
        self.snapped: tuple | None = None

    @property
    def events_read(self) -> int:
        """The events (and SKIPPED records) read so far, delivered or not."""
        return self._read + (self._walked.passed if self._walked is not None else 0)

    def __iter__(self):
        return self._iter()  # (a generator: it opens the file and closes it when done)

    def _iter(self):
        f, close = _open(self.source)
        try:
            if self.resume is not None:
                pos, self.ctx = self.resume[:2]
                f.seek(pos)
            else:
                magic = f.read(4)
                if magic != MAGIC:  # (empty, cut short, compressed, text...: said so)
                    raise not_a_binlog(magic)
                pos = 4
            if self.recover and f.seekable():
                yield from self._recovering(f, pos)
                return
            # the headers are walked in blocks (scanning.Blocks); an event is one slice of
            # the block (``at``: where it starts in ``buf``)
            # (a range that stops early, as a transaction read backwards: a block of its size,
            # and the last event's, when longer than the slack, read when the walk reaches it)
            blocks = Blocks(f, _BLOCK if self.stop is None else
                            min(_BLOCK, max(self.stop - pos, 0) + _SLACK), pos=pos)
            # every event decoded and delivered: only the context events and payloads take the
            # general path
            plain = self.decode is True and self.start is None and self.types is None
            lazy = self.decode == "lazy" and self.start is None and self.types is None
            stop = self.stop
            # events that need no record: not of a wanted type, and neither context, payload
            # nor (when decoding) TABLE_MAP events
            # (passed over by the walk, in the codes the file stores: not even copied)
            keep = None if self.types is None else self.types | _SPECIAL | (
                {TABLE_MAP_EVENT} if self.decode else set())
            if keep is not None:
                blocks.skip = codes_except(keep, self.ctx.type_remap)
            self._walked = blocks
            max_size, table_maps = self.max_event_size, self.table_maps
            first = 4 if self.resume is None else -1  # (where the context event must be)
            mark = -1 if self.start is None else self.start
            for pos, code, size, buf, at in blocks.walk(pos, max_size, mark=mark):
                ctx = self.ctx
                if ctx.type_remap:
                    code = ctx.type_remap.get(code, code)
                if keep is not None:
                    if pos < mark < pos + size:
                        self.snapped = (pos, size)
                    if code not in keep:
                        self._read += 1
                        continue
                raw = buf[at:at + size]
                self._read += 1
                if pos == first and code not in CONTEXT_KINDS:
                    err = FormatError("no FORMAT_DESCRIPTION where the file starts: its events "
                                      "cannot be decoded", offset=pos, path="header.type_code",
                                      expected="FORMAT_DESCRIPTION_EVENT")
                    if not self.skip_errors:
                        raise err
                    yield EventRecord(pos, raw, ctx, error=err)
                    return
                if lazy and code not in _SPECIAL and not ctx.encrypted:
                    if stop is not None and pos >= stop:
                        return
                    yield PlainRecord(pos, raw, ctx)
                    continue
                if plain and code not in _SPECIAL and not ctx.encrypted:  # the common case
                    if stop is not None and pos >= stop:
                        return
                    try:
                        value = parse_event(raw, ctx, pos)
                        err = kept_raw(value, code, pos)
                        if err is not None and not self.skip_errors:
                            raise err
                    except BinlogError as e:
                        if not self.skip_errors:
                            raise
                        yield EventRecord(pos, raw, ctx, error=e)
                    else:
                        if code == TABLE_MAP_EVENT:
                            table_maps[value["body"]["table_id"]] = value
                        yield EventRecord(pos, raw, ctx, value, error=err)
                    continue
                rec = self._record(pos, raw)
                if keep is not None and self.ctx is not ctx:  # (a new numbering, perhaps)
                    blocks.skip = codes_except(keep, self.ctx.type_remap)
                if rec is not None:
                    if self.stop is not None and pos >= self.stop:
                        return
                    yield rec
            if blocks.tail is not None:
                self.tail = Tail(*blocks.tail)
            elif blocks.bad is not None:  # the framing is lost: nothing after this can be
                # trusted
                pos, size, head = blocks.bad
                if size < HEADER_SIZE:
                    err = FormatError(f"event_size {size} is smaller than the header",
                                      offset=pos + 9, path="header.event_size")
                else:
                    err = LimitError(f"event_size {size} exceeds the limit {max_size}",
                                     offset=pos + 9, path="header.event_size")
                if not self.skip_errors:
                    raise err
                self._read += 1  # (without recovery, the rest is not read)
                yield EventRecord(pos, head, self.ctx, error=err)
        finally:
            if close:
                f.close()

    # ------------------------------------------------------------------ recovery

    def _recovering(self, f, pos):
        """The reading of ``recover``: every byte from ``pos`` to the end of the file is an
        event's or a SKIPPED record's (see the class docstring)."""
        f.seek(0, 2)
        end = f.tell()
        blocks = Blocks(f)
        max_size = self.max_event_size
        lazy = self.decode == "lazy" and self.start is None and self.types is None
        # until a context event is read (reading from the file's start), nothing else can be
        no_context = self.resume is None
        # where the event read last says the next one starts (scanning.log_next): a proof
        before = self.resume[2] if self.resume is not None and len(self.resume) > 2 else None
        while pos < end:
            if self.stop is not None and pos >= self.stop:
                return
            ctx = self.ctx
            head, stored, size = blocks.header(pos)
            fits = size is not None and HEADER_SIZE <= size <= max_size and pos + size <= end
            sure = fits and (ctx.encrypted or scanning.confirmed(blocks, pos, size, end, ctx,
                                                                 max_size, before))
            if fits and not sure and checksummed(stored, ctx):  # (not encrypted: not sure)
                # a CRC32 that does not match: the event stands when the next one confirms
                # its size and no confirmed event starts inside it (its record then carries
                # the checksum error)
                sure = (pos + size == end or scanning.event_at(
                    blocks, pos + size, end, ctx, max_size) is not None) and \
                    scanning.resync(blocks, pos + 1, end, ctx, max_size, size - 2) is None
            code = ctx.kind(stored) if size is not None else None
            if sure and not (no_context and code not in CONTEXT_KINDS):
                raw = blocks.at(pos, size)
                # (a file cut short, another appended: not this size) every magic number
                # inside, not only the first: a file cut inside its own FORMAT_DESCRIPTION
                # starts no second file, a whole one after it may
                inside = raw.find(MAGIC, 1)
                while inside > 0:
                    if scanning.second_file_at(blocks, pos + inside, end, ctx, max_size):
                        sure = False
                        break
                    inside = raw.find(MAGIC, inside + 1)
            over = None
            if fits and not sure and not ctx.checksum and not no_context:
                # (scanning.confirmed refuses an event no CRC32 proves over a
                # FORMAT_DESCRIPTION that one does: named in the error when so)
                over = scanning.checksummed_fde_inside(blocks, pos, size, ctx)
            if sure and not (no_context and code not in CONTEXT_KINDS):
                self._read += 1
                if lazy and code not in _SPECIAL and not ctx.encrypted:
                    rec = PlainRecord(pos, raw, ctx)
                else:
                    rec = self._record(pos, raw)
                if code in _CONTEXT and self._leaves_no_context(code, rec, no_context):
                    # a context event that fails, with a context starting inside it: it was
                    # no event (bytes before a good FORMAT_DESCRIPTION, say)
                    nxt = scanning.context_at(blocks, pos + 1, end, ctx, max_size)
                    if nxt is not None and nxt < pos + size:
                        self._read -= 1
                        yield self._skipped(pos, nxt, rec.error)
                        pos, no_context, before = nxt, True, None
                        continue
                if rec is not None:
                    yield rec
                before = scanning.log_next(head, size, ctx)
                pos += size
                if code in _CONTEXT:
                    # a context event that fails leaves none: the file's first one, or a
                    # START_ENCRYPTION (a later FORMAT_DESCRIPTION that fails is an error
                    # record, and the context read before stays)
                    if self._leaves_no_context(code, rec, no_context):
                        # (a context it cannot honour: nothing reads until a new one)
                        nxt = scanning.context_at(blocks, pos, end, ctx, max_size)
                        if pos < end and nxt != pos:
                            yield self._skipped(pos, end if nxt is None else nxt, FormatError(
                                f"the context event at {pos - size} cannot be used: the "
                                "events after it cannot be decoded"
                                + ("" if nxt is None else f" (a new one at {nxt})"),
                                offset=pos, path="stream"))
                        if nxt is None:
                            return
                        pos, no_context, before = nxt, True, None
                        continue
                    no_context = False
                continue
            if scanning.second_file_at(blocks, pos, end, ctx, max_size):
                yield self._skipped(pos, pos + 4, FormatError(
                    "the magic number of a second binlog file (files concatenated): its "
                    "events follow, in their own context", offset=pos, path="magic",
                    expected="an event"))
                pos += 4
                no_context, before = True, None
                continue
            nxt = scanning.context_at(blocks, pos + 1, end, ctx, max_size) if no_context \
                else scanning.resync(blocks, pos + 1, end, ctx, max_size, self.max_scan)
            err = self._damage(pos, head, size, end, nxt) if over is None else FormatError(
                f"event_size {size} runs over a FORMAT_DESCRIPTION at {over} whose CRC32 "
                "verifies: the size cannot be trusted", offset=pos + 9, path="header.event_size")
            if no_context and self.tail is None:
                err = FormatError("no FORMAT_DESCRIPTION where the file starts: its events "
                                  "cannot be decoded" + ("" if nxt is None else
                                                         " (one follows at %d)" % nxt),
                                  offset=pos, path="header.type_code",
                                  expected="FORMAT_DESCRIPTION_EVENT")
            yield self._skipped(pos, end if nxt is None else nxt, err)
            if nxt is None:
                return
            pos, before = nxt, None

    def _leaves_no_context(self, code, rec, no_context) -> bool:
        """Whether a context event that failed leaves the reader without a context: the
        file's first one, or a START_ENCRYPTION (the events after it are ciphertext) unless
        its CRC32 is what failed (its type code may be the damaged byte: the events after it
        are read in the context they verify in) or the file is MySQL's (which never writes
        one)."""
        if rec is None or rec.error is None:
            return False
        if no_context:
            return True
        return code == START_ENCRYPTION_EVENT and not isinstance(rec.error, ChecksumError) \
            and self.ctx.flavor != "mysql" and rec.offset != self._misplaced

    def _damage(self, pos, head, size, end, nxt) -> BinlogError:
        """Why the bytes from ``pos`` (to ``nxt``, the next good event, None: the end) are
        no event's; a last event cut short is also the reader's ``tail``."""
        if size is None:
            self.tail = Tail(pos, end - pos, None)
            return TruncatedError(f"the file ends {end - pos} bytes into an event header",
                                  offset=pos, path="header")
        if size < HEADER_SIZE:
            return FormatError(f"event_size {size} is smaller than the header",
                               offset=pos + 9, path="header.event_size")
        if size > self.max_event_size:
            return LimitError(f"event_size {size} exceeds the limit {self.max_event_size}",
                              offset=pos + 9, path="header.event_size")
        if pos + size > end:
            if nxt is None:
                self.tail = Tail(pos, end - pos, size)
                return TruncatedError(f"last event cut short: {size} bytes announced, "
                                      f"{end - pos} in the file", offset=pos + 9,
                                      path="header.event_size")
            return FormatError(f"event_size {size} runs past the end of the file while events "
                               f"follow (at {nxt}): the size is corrupt", offset=pos + 9,
                               path="header.event_size")
        if self.ctx.checksum and not self.ctx.encrypted and \
                head[TYPE_AT] != FORMAT_DESCRIPTION_EVENT:  # (an FDE's CRC32: its version's)
            return ChecksumError("the CRC32 does not match and no event follows at the end "
                                 "the size announces: the size cannot be trusted",
                                 offset=pos + size - 4, path="checksum")
        return FormatError(f"no plausible event header follows at {pos + size}, where "
                           f"event_size {size} says the next event starts: the size cannot be "
                           "trusted", offset=pos + 9, path="header.event_size")

    def _skipped(self, start, end, err) -> EventRecord:
        self.gaps.append((start, end))
        self._read += 1
        return EventRecord(start, b"", self.ctx, error=err, gap=(start, end))

    def read_event(self, pos: int, raw: bytes):
        """One event given as its bytes (``pos``: where it starts in its file), read as this
        reader reads the events of a file: decoded in the context in force, which a context
        event changes, the table maps followed, a payload's inner events decoded; the record,
        or None when the reader's ``types``/``start`` leave it out. For events that come from
        elsewhere than a file (:mod:`binlog_schema.wire.replication`'s network stream)."""
        return self._record(pos, raw)

    def _record(self, pos, raw):
        ctx = self.ctx
        code = ctx.kind(raw[TYPE_AT])
        if self.start is not None and pos < self.start < pos + len(raw):
            self.snapped = (pos, len(raw))
        is_context = code in (FORMAT_DESCRIPTION_EVENT, START_EVENT_V3, START_ENCRYPTION_EVENT)
        wanted = ((self.start is None or pos >= self.start)
                  and (self.types is None or code in self.types))
        if not (wanted or is_context or (code == TABLE_MAP_EVENT and self.decode)):
            return None
        if ctx.encrypted:  # ciphertext: kept as bytes (the key is not ours), never an error
            return EventRecord(pos, raw, ctx) if wanted else None
        if self.decode == "lazy" and not is_context and code != TRANSACTION_PAYLOAD_EVENT:
            return PlainRecord(pos, raw, ctx) if wanted else None   # (lazy: see PlainRecord)
        rec = EventRecord(pos, raw, ctx)
        if self.decode or is_context:
            try:
                rec.value = parse_event(raw, ctx, pos)
                rec.error = kept_raw(rec.value, code, pos)
                if rec.error is not None and not self.skip_errors:
                    raise rec.error
            except BinlogError as e:
                if not self.skip_errors:
                    raise
                rec.error = e
                return rec if wanted else None
            if code == FORMAT_DESCRIPTION_EVENT:
                body = rec.value["body"]
                if body["binlog_version"] != 4 or body["header_length"] != HEADER_SIZE:
                    err = FormatError(
                        f"FORMAT_DESCRIPTION of binlog version {body['binlog_version']} with "
                        f"{body['header_length']}-byte headers is not a format this reader "
                        "knows", offset=pos + HEADER_SIZE, path="body.binlog_version",
                        expected="version 4, 19-byte headers")
                    if not self.skip_errors:
                        raise err
                    rec.error = err
                    return rec
                self.ctx = context_from_fde(body, ctx)
                self._fde_end = pos + len(raw)
            elif code == START_EVENT_V3:
                self.ctx = context_from_start_v3(rec.value["body"], ctx)
            elif code == START_ENCRYPTION_EVENT:
                # a server writes it right after the FORMAT_DESCRIPTION, its body whole: one
                # elsewhere, or with bytes after its body, is a damaged type code, not the
                # start of ciphertext (the events after it are read as they are)
                if pos != self._fde_end or rec.value.get("trailing"):
                    err = FormatError(
                        "a START_ENCRYPTION_EVENT " + ("with bytes after its body" if
                                                       pos == self._fde_end else
                                                       "not right after the FORMAT_DESCRIPTION")
                        + ": no server writes one so (a damaged type code?); the events after "
                        "it are not taken as encrypted", offset=pos + TYPE_AT,
                        path="header.type_code")
                    if not self.skip_errors:
                        raise err
                    rec.error, self._misplaced = err, pos
                    return rec if wanted else None
                self.ctx = ctx.replace(encrypted=True)
            elif code == TABLE_MAP_EVENT:
                self.table_maps[rec.value["body"]["table_id"]] = rec.value
            elif code == TRANSACTION_PAYLOAD_EVENT and self.payloads and self.decode:
                rec.inner = []  # the inner events before a bad one are kept
                try:
                    for inner in self._inner(rec):
                        rec.inner.append(inner)
                except BinlogError as e:
                    if not self.skip_errors:
                        raise
                    rec.error = e
        return rec if wanted else None

    def _inner(self, rec):
        from .event_codec import convert_error
        from .facts.compression import payload_events_bytes
        try:
            data = payload_events_bytes(rec.value["body"], rec.ctx.max_uncompressed)
        except Exception as e:  # noqa: BLE001
            raise convert_error(e, rec.offset, False) from None
        ctx = rec.ctx.replace(checksum=False)
        blocks = Blocks(data)
        for pos, _code, size, buf, at in blocks.walk(0, len(data)):
            raw = buf[at:at + size]
            if self.decode == "lazy":
                yield EventRecord(pos, raw, ctx, parent_offset=rec.offset, lazy=True)
                continue
            # inner records' offsets (and their errors') are positions in the payload's
            # data, as for lazy records; a bad inner event does not lose the ones after it
            inner = EventRecord(pos, raw, ctx, parent_offset=rec.offset)
            try:
                inner.value = parse_event(raw, ctx, pos)
                inner.error = kept_raw(inner.value, ctx.kind(raw[TYPE_AT]), pos)
                if inner.error is not None:
                    raise inner.error
            except BinlogError as e:
                if not self.skip_errors:
                    raise type(e)(f"inner event at {e.offset} of the payload: {e.message}",
                                  offset=rec.offset, path=f"payload[{pos}]"
                                  + (f".{e.path}" if e.path else ""),
                                  expected=e.expected) from None
                inner.error = e
            if inner.value is not None and ctx.kind(raw[TYPE_AT]) == TABLE_MAP_EVENT:
                self.table_maps[inner.value["body"]["table_id"]] = inner.value
            yield inner
        if blocks.tail is not None and blocks.tail[2] is None:
            raise TruncatedError("inner event header runs past the payload",
                                 offset=rec.offset, path=f"payload[{blocks.tail[0]}]")
        if blocks.tail is not None or blocks.bad is not None:
            pos, _have, size = blocks.tail or blocks.bad
            raise TruncatedError(f"inner event of {size} bytes runs past the payload",
                                 offset=rec.offset, path=f"payload[{pos}]")


def _code_of(name: str) -> int:
    try:
        return code_of(name)
    except KeyError:
        raise ValueError(f"unknown event type {name!r} (known: {', '.join(type_names())})") \
            from None


def type_names() -> list:
    """The event type names ``types`` accepts, in code order (each also without its
    ``_EVENT`` / ``_LOG_EVENT`` ending, or as its code)."""
    from .facts.codes import EVENT_TYPES
    return [EVENT_TYPES[c] for c in sorted(EVENT_TYPES)]


def read_events(source, **options):
    """All events of a file (a list; use :class:`BinlogReader` to stream)."""
    return list(BinlogReader(source, **options))

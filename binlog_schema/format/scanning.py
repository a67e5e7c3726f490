"""The one header scanner: a file's bytes read in blocks and its 19-byte event headers walked
without decoding (:class:`Blocks`; the reader, recovery, the parallel plan and the Spark
pre-scan all read headers through it), how plausible a header is, whether an event's size is
confirmed, and where the next good event starts after damage (resynchronisation).

An event at ``pos`` is *plausible* when its header names a type the file's flavor writes and
a size between the header's and the limit that ends within the file; it is *confirmed* when,
in a file with checksums, its CRC32 verifies. Without them the log positions prove sizes
where they can (v3 and v4 headers; the numbering need not be the file's: relay logs carry
their source's, inserted or removed bytes shift it, 0 says nothing): an event is confirmed
when its log position names its start (its end in v4), or continues the event's before it,
or the event after it continues its own; failing that, when the header right after it is
plausible (or it ends within the last header of the file) and no event the log positions
prove starts inside it. After damage the next good event is the first one the log positions
(or a CRC32) prove, or an earlier one from which the sizes lead to it exactly; a second
file's magic number followed by a confirmed FORMAT_DESCRIPTION (two files concatenated) is
one too.
"""

from __future__ import annotations

from .facts.codes import (FORMAT_DESCRIPTION_EVENT, ROTATE_EVENT, START_EVENT_V3, STOP_EVENT,
                          WRITTEN_KINDS)
from .facts.flavor import checksum_length, checksummed
from .facts.framing import HEADER_SIZE, LOG_POS_AT, SIZE_AT, TYPE_AT, crc_ok

MAGIC = b"\xfebin"
# the largest FORMAT_DESCRIPTION: its fixed part (binlog_version 2, server_version 50,
# create_timestamp 4, header_length 1), a post-header length for each of at most 255
# type codes, the checksum algorithm and CRC32
MAX_FDE_SIZE = HEADER_SIZE + 57 + 255 + 5
# a START_EVENT_V3 is its body's 56 bytes (binlog_version 2, server_version 50,
# create_timestamp 4) after a 19-byte header, or binlog v1's 13-byte one; never a CRC32
START_V3_SIZES = (HEADER_SIZE + 56, 13 + 56)


class Blocks:
    """A file's bytes, read through a block kept in hand (``size`` bytes, 1 MiB by default, or
    a read's size when larger), and its event headers walked: the one header scanner.

    ``f``: a binary file object, or the bytes themselves; ``pos``: where the file is now, when this
    object is the only one to move it (it then seeks only to read elsewhere than where it is: a
    stream that cannot seek is read forward), None: seeked before each read. ``watch``: called with
    each block read and its offset. :meth:`at` and :meth:`block` read at any offset; :meth:`header`
    reads one header; :meth:`walk` reads the headers from one event to the next, as a reader follows
    the sizes."""

    SIZE = 1 << 20

    __slots__ = ("f", "buf", "base", "size", "watch", "fpos", "tail", "bad", "skip", "passed")

    def __init__(self, f, size: int = SIZE, watch=None, pos: int | None = None):
        if isinstance(f, (bytes, bytearray, memoryview)):
            self.f, self.buf, self.fpos = None, bytes(f), len(f)
        else:
            self.f, self.buf, self.fpos = f, b"", pos
        self.base = 0
        self.size = size
        self.watch = watch
        self.tail = self.bad = self.skip = None
        self.passed = 0

    def _read(self, pos: int, n: int) -> bytes:
        if self.f is None:
            return b""
        if self.fpos is None or self.fpos != pos:
            self.f.seek(pos)
        data = self.f.read(n)
        if self.fpos is not None:
            self.fpos = pos + len(data)
        return data

    def block(self, pos: int, n: int):
        """(block, index of ``pos`` in it): the block holding the file's ``n`` bytes from
        ``pos`` (fewer at its end)."""
        i = pos - self.base
        if i < 0 or i + n > len(self.buf):
            if self.f is None:
                return self.buf, max(i, 0) if i < len(self.buf) else len(self.buf)
            self.buf, self.base, i = self._read(pos, max(self.size, n)), pos, 0
            if self.watch is not None:
                self.watch(self.buf, pos)
        return self.buf, i

    def at(self, pos: int, n: int) -> bytes:
        """The file's bytes ``[pos, pos + n)`` (fewer at its end)."""
        buf, i = self.block(pos, n)
        return buf[i:i + n]

    def header(self, pos: int):
        """``(header bytes, type code, event_size)`` of the header at ``pos``; the sizes are
        None when the file ends within it."""
        buf, i = self.block(pos, HEADER_SIZE)
        head = buf[i:i + HEADER_SIZE]
        if len(head) < HEADER_SIZE:
            return head, None, None
        return head, head[TYPE_AT], int.from_bytes(head[SIZE_AT:SIZE_AT + 4], "little")

    def walk(self, pos: int, max_size: int, whole: bool = True, mark: int = -1):
        """The events from ``pos`` on, one after the other as their sizes say: for each,
        ``(offset, type code stored, event_size, block, index of the event in the block)``; with
        ``whole`` the block holds the whole event (``block[index:index + event_size]``), else
        only its header (the file is then seeked past large events, not read). The walk ends
        at the end of the file; at a size below the header's or above ``max_size`` (``bad``:
        its ``(offset, size, header bytes)``), or at an event cut short by the end (``tail``:
        its ``(offset, bytes there, size announced or None when the header is cut)``). Events
        whose stored type code is in ``skip`` (an attribute the caller may change while the
        walk waits at an event) are passed over, not given (``passed`` counts them), except
        the one that holds the offset ``mark``."""
        self.tail = self.bad = None
        self.passed = 0
        skip = self.skip
        step = self.size
        buf, i = self.buf, pos - self.base
        if not 0 <= i <= len(buf):
            buf, i = b"", 0
        while True:
            have = len(buf) - i
            if have < HEADER_SIZE:
                if have < 0:   # (an event past the block, not read: on after it)
                    buf, i, have = b"", 0, 0
                data = self._read(pos + have, step)
                buf, i = buf[i:] + data, 0
                self.buf, self.base = buf, pos
                if self.watch is not None and data:
                    self.watch(buf, pos)
                have = len(buf)
                if have < HEADER_SIZE:
                    if have:
                        self.tail = (pos, have, None)
                    return
            size = int.from_bytes(buf[i + SIZE_AT:i + SIZE_AT + 4], "little")
            if not HEADER_SIZE <= size <= max_size:
                self.bad = (pos, size, buf[i:i + HEADER_SIZE])
                return
            if size > have and whole:
                data = self._read(pos + have, max(step, size - have))
                buf, i = buf[i:] + data, 0
                self.buf, self.base = buf, pos
                if self.watch is not None and data:
                    self.watch(buf, pos)
                if size > len(buf):
                    self.tail = (pos, len(buf), size)
                    return
            if skip is not None and buf[i + TYPE_AT] in skip and not pos <= mark < pos + size:
                self.passed += 1
            else:
                yield pos, buf[i + TYPE_AT], size, buf, i
                skip = self.skip
            pos += size
            i += size


def codes_except(kinds, remap=None) -> frozenset:
    """The type codes a file stores (numbered as its context's ``type_remap`` says) of the
    events whose kind is not in ``kinds``: what a walk may pass over (``Blocks.skip``)."""
    remap = remap or {}
    return frozenset(c for c in range(256) if remap.get(c, c) not in kinds)


def announced_size(head: bytes, pos: int, end: int, ctx, max_size: int) -> int | None:
    """The size the header ``head`` (of an event at ``pos``) announces when it is plausible:
    a type the context's flavor writes, a size from the header's to ``max_size`` that ends
    by ``end``; None otherwise."""
    size = int.from_bytes(head[SIZE_AT:SIZE_AT + 4], "little")
    if not HEADER_SIZE <= size <= max_size or pos + size > end:
        return None
    if ctx.kind(head[TYPE_AT]) not in WRITTEN_KINDS.get(ctx.flavor, WRITTEN_KINDS[None]):
        return None
    return size


def confirmed(blocks: Blocks, pos: int, size: int, end: int, ctx, max_size: int,
              before: int | None = None) -> bool:
    """Whether the event of ``size`` bytes at ``pos`` is one: its CRC32 verifies (a file
    with checksums, and a FORMAT_DESCRIPTION, which says itself whether it has one); without
    checksums, its size is :func:`vouched` for (its log positions, or the header after it;
    ``before``: where the event read just before it says it starts, :func:`log_next`), and
    no FORMAT_DESCRIPTION whose CRC32 verifies starts inside it."""
    stored = blocks.at(pos + TYPE_AT, 1)[0]
    if stored == START_EVENT_V3 and size not in START_V3_SIZES:
        return False  # (no START_EVENT_V3 has another size: a damaged header, say)
    if checksummed(stored, ctx):
        raw = blocks.at(pos, size)
        if len(raw) != size:
            return False
        kind = ctx.kind(stored)
        # (an FDE's CRC32 by its server version, in the body's first 52 bytes: no copy of
        # every event's body for the rule)
        if kind != FORMAT_DESCRIPTION_EVENT or checksum_length(
                kind, raw[HEADER_SIZE:HEADER_SIZE + 52], ctx):
            return size >= HEADER_SIZE + 4 and crc_ok(raw, kind, ctx)
        # a FORMAT_DESCRIPTION whose server version says it has no CRC32 proves nothing by
        # one: it stands when its body is one this reader can use, else as events without
        # checksums do (garbage with its type code must not swallow the events after it).
        # Either way, never over an event inside it that a CRC32 proves: in a file with
        # checksums, any (then it cannot be larger than any FORMAT_DESCRIPTION is), else a
        # FORMAT_DESCRIPTION with its own
        if ctx.checksum and not ctx.encrypted:
            if size > MAX_FDE_SIZE or resync(blocks, pos + 1, end, ctx, max_size,
                                             size - 2) is not None:
                return False
        elif checksummed_fde_inside(blocks, pos, size, ctx) is not None:
            return False
        if fde_like(blocks, pos, size):   # (its size vouched for as any other's)
            return not chains(ctx) or vouched(blocks, pos, size, end, ctx, max_size, before)
    if not (stored == START_EVENT_V3 and v3_like(blocks, pos, size) or
            vouched(blocks, pos, size, end, ctx, max_size, before)):
        return False
    # an event no CRC32 proves, over a FORMAT_DESCRIPTION one does (a file without checksums
    # cut short, then another file without its magic number), is none: that FDE is the event
    return ctx.checksum or checksummed_fde_inside(blocks, pos, size, ctx) is None


def checksummed_fde_inside(blocks: Blocks, pos: int, size: int, ctx) -> int | None:
    """Where a FORMAT_DESCRIPTION whose CRC32 verifies starts inside the ``size`` bytes at
    ``pos`` (None: nowhere). An event no CRC32 of its own proves (a FORMAT_DESCRIPTION
    without one, an event of a file without checksums), cut short, may overlap another
    file's FORMAT_DESCRIPTION: the one a CRC32 proves is the event."""
    buf = blocks.at(pos, size + HEADER_SIZE)   # (the headers of the starts inside it)
    for m in _fde_heads().finditer(buf, TYPE_AT + 1):
        if m.start() >= size + TYPE_AT:
            break
        start = pos + m.start() - TYPE_AT
        head = buf[m.start() - TYPE_AT:m.start() - TYPE_AT + HEADER_SIZE]
        n = int.from_bytes(head[SIZE_AT:SIZE_AT + 4], "little")
        if HEADER_SIZE + 57 <= n <= MAX_FDE_SIZE:
            raw = blocks.at(start, n)
            if len(raw) == n and checksum_length(FORMAT_DESCRIPTION_EVENT,
                                                 raw[HEADER_SIZE:HEADER_SIZE + 52], ctx) \
                    and crc_ok(raw, FORMAT_DESCRIPTION_EVENT, ctx):
                return start
    return None


def _fde_heads():
    """The type code of a FORMAT_DESCRIPTION, then 4 bytes, then an event_size below 512: a
    regular expression that finds the few candidate headers inside an event in one pass
    (compiled when recovery first needs it: ``re`` costs every command's start-up)."""
    global _FDE_HEADS
    if _FDE_HEADS is None:
        import re
        _FDE_HEADS = re.compile(rb"\x0f.{4}.[\x00\x01]\x00\x00", re.DOTALL)
    return _FDE_HEADS


_FDE_HEADS = None
assert FORMAT_DESCRIPTION_EVENT == 0x0F and MAX_FDE_SIZE < 512


_WRAP = 0xFFFFFFFF   # (log positions are 32-bit: files over 4 GiB wrap them)


def log_pos_of(head: bytes) -> int:
    """The log position a header stores (v4: ``end_log_pos``, where the server says the next
    event starts; v3: where this one starts)."""
    return int.from_bytes(head[LOG_POS_AT:LOG_POS_AT + 4], "little")


def chains(ctx) -> bool:
    """Whether log positions can vouch for sizes in this context: a v3 or v4 file (a v1
    file's say nothing) whose sizes no CRC32 proves (with checksums, the CRC32 does)."""
    return ctx.binlog_version >= 3 and not ctx.checksum and not ctx.encrypted


def _stores_end(head: bytes, ctx) -> bool:
    """Whether the log position of ``head`` is its event's end: a v4 header's, and a
    FORMAT_DESCRIPTION's in any context (only v4 has one: a v4 file after a v3 one, files
    concatenated, starts with it while the v3 context is in force)."""
    return ctx.binlog_version >= 4 or head[TYPE_AT] == FORMAT_DESCRIPTION_EVENT


def log_start(head: bytes, size: int, ctx) -> int | None:
    """Where the log position of ``head`` (an event of ``size`` bytes) says its event
    starts, in the server's numbering (the file's offsets in its own binlog; its source's in
    a relay log): v4 headers store the end, v3 headers the start. None when it says nothing
    (0: MariaDB's events inside a GTID group, a relay log's own events)."""
    at = log_pos_of(head)
    if not at:
        return None
    return (at - size) & _WRAP if _stores_end(head, ctx) else at


def log_next(head: bytes, size: int, ctx) -> int | None:
    """Where the next event starts by the log position of ``head``, in the server's
    numbering (None when it says nothing): what :func:`vouched` takes as ``before``."""
    at = log_pos_of(head)
    if not at:
        return None
    return at if _stores_end(head, ctx) else (at + size) & _WRAP


def proven(blocks: Blocks, pos: int, size: int, end: int, ctx, max_size: int,
           before: int | None = None, start_only: bool = False) -> bool:
    """Whether log positions prove the ``size`` of the event at ``pos`` (a context where they
    can: :func:`chains`): in a v4 file, its log position is its end (a server's own binlog),
    or says it starts where ``before`` says the next event does (:func:`log_next` of the
    event read before it, or of a damaged one: its own log position names where the event
    after it starts); or a plausible header follows whose log position starts where this
    one's says the next event does (the chain holds where the numbering is not the file's:
    a relay log keeps its source's, inserted or removed bytes shift it). A v3 header's log
    position is its start: only the chain proves its size (the next header's log position,
    even when its size is damaged); ``start_only``: that it starts where it says is enough
    (where resynchronisation looks for the next event)."""
    head = blocks.at(pos, HEADER_SIZE)
    start = log_start(head, size, ctx)
    if start is None:
        return False
    v4 = ctx.binlog_version >= 4
    if (v4 or start_only) and (start == pos & _WRAP or start == before):
        return True
    if end - (pos + size) < HEADER_SIZE:
        return False
    after = blocks.at(pos + size, HEADER_SIZE)
    if not v4:   # (the next one's start is its log position, whatever its size says)
        return log_pos_of(after) == log_next(head, size, ctx)
    n = announced_size(after, pos + size, 1 << 62, ctx, max_size)
    return n is not None and log_start(after, n, ctx) == log_next(head, size, ctx)


def proven_inside(blocks: Blocks, start: int, stop: int, end: int, ctx, max_size: int,
                  before: int | None = None) -> int | None:
    """The first offset in ``[start, stop)`` where a plausible event starts that log
    positions prove is one (:func:`proven`, ``before`` as there; in a v3 file, that it
    starts there); None when there is none. (The headers worth a look are found by a
    regular expression: a type code the context writes, a size under 1 GiB.)"""
    heads = _plausible_heads(ctx)
    v4 = ctx.binlog_version >= 4
    q = start
    while q < stop:
        n = min(stop - q, Blocks.SIZE)
        buf, at = blocks.block(q, n + HEADER_SIZE)
        for m in heads.finditer(buf, at, min(at + n + SIZE_AT + 3, len(buf))):
            i = m.start()
            if i >= at + n:
                break
            size = int.from_bytes(buf[i + SIZE_AT:i + SIZE_AT + 4], "little")
            logged = int.from_bytes(buf[i + LOG_POS_AT:i + LOG_POS_AT + 4], "little")
            if not (HEADER_SIZE <= size <= max_size and logged):
                continue
            p = q + i - at   # (what proven() says, its first part here: most look no further)
            start_at = (logged - size) & _WRAP if v4 else logged
            if start_at == p & _WRAP or start_at == before:
                return p
            if end - (p + size) >= HEADER_SIZE and \
                    proven(blocks, p, size, end, ctx, max_size, before, True):
                return p
        q += n
    return None


_HEADS: dict = {}


def _plausible_heads(ctx):
    """A regular expression that matches (empty, looking ahead) where a header could start:
    a type code the context writes (as its file stores it), then an event_size under 1 GiB
    (its last byte under 0x41: the limit is 1 GiB)."""
    remap = ctx.type_remap
    key = (ctx.flavor, tuple(sorted(remap.items())) if remap else None)
    rx = _HEADS.get(key)
    if rx is None:
        import re
        kinds = WRITTEN_KINDS.get(ctx.flavor, WRITTEN_KINDS[None])
        remap = remap or {}
        cls = b"".join(b"\\x%02x" % c for c in range(256) if remap.get(c, c) in kinds)
        rx = _HEADS[key] = re.compile(rb"(?=.{4}[" + cls + rb"].{7}[\x00-\x40])", re.DOTALL)
    return rx


def vouched(blocks: Blocks, pos: int, size: int, end: int, ctx, max_size: int,
            before: int | None = None) -> bool:
    """Without a CRC32, whether the size of the event at ``pos`` is vouched for: its log
    position is its end (a v4 binlog); or, where log positions can say (:func:`chains`), they
    prove it (:func:`proven`; ``before``: :func:`log_next` of the event read just before
    it); else the header after it is plausible (or the file ends there, or within the next
    header) and, where log positions can say, no event they prove starts inside it (its own
    log position among the proofs: the size of a damaged header that lands on bytes which
    look like a header, or on the end of the file, is no event's: the events it would
    swallow say so)."""
    head = blocks.at(pos, HEADER_SIZE)
    if log_pos_of(head) == (pos + size) & _WRAP and ctx.binlog_version >= 4:
        return True   # (a server's own binlog: every event so)
    if not chains(ctx):
        return log_pos_of(head) == (pos + size) & _WRAP or \
            follows(blocks, pos + size, end, ctx, max_size)
    if proven(blocks, pos, size, end, ctx, max_size, before):
        return True
    return follows(blocks, pos + size, end, ctx, max_size) and proven_inside(
        blocks, pos + 1, pos + size, end, ctx, max_size, log_next(head, size, ctx)) is None


def follows(blocks: Blocks, pos: int, end: int, ctx, max_size: int) -> bool:
    """Whether the file ends at ``pos`` (or within the header there) or a plausible header
    starts there (its event may run past the end: the last event cut short)."""
    if end - pos < HEADER_SIZE:
        return True
    head = blocks.at(pos, HEADER_SIZE)
    return announced_size(head, pos, 1 << 62, ctx, max_size) is not None


def event_at(blocks: Blocks, pos: int, end: int, ctx, max_size: int) -> int | None:
    """The size of the confirmed event at ``pos`` (None when there is none)."""
    head = blocks.at(pos, HEADER_SIZE)
    if len(head) < HEADER_SIZE:
        return None
    size = announced_size(head, pos, end, ctx, max_size)
    if size is None or not confirmed(blocks, pos, size, end, ctx, max_size):
        return None
    return size


def fde_like(blocks: Blocks, pos: int, size: int) -> bool:
    """Whether the FORMAT_DESCRIPTION of ``size`` bytes at ``pos`` has the body of one this
    reader can use: binlog version 4 and 19-byte headers. (A FORMAT_DESCRIPTION without a
    checksum has none to verify: where resynchronisation finds one, this tells it from
    noise.)"""
    body = blocks.at(pos + HEADER_SIZE, 57)
    return HEADER_SIZE + 57 <= size <= MAX_FDE_SIZE and len(body) == 57 and \
        body[0:2] == b"\x04\x00" and body[56] == HEADER_SIZE


def v3_like(blocks: Blocks, pos: int, size: int) -> bool:
    """Whether the START_EVENT_V3 of ``size`` bytes at ``pos`` has the body of a binlog v3
    one (19-byte headers): binlog version 3, a server version that starts with a digit. Its
    size is its format's: what the bytes after it are does not matter."""
    body = blocks.at(pos + HEADER_SIZE, 3)
    return size == HEADER_SIZE + 56 and len(body) == 3 and body[:2] == b"\x03\x00" and \
        body[2:3].isdigit()


def second_file_at(blocks: Blocks, pos: int, end: int, ctx, max_size: int) -> bool:
    """Whether a second file starts at ``pos``: its magic number, then a confirmed
    FORMAT_DESCRIPTION."""
    if blocks.at(pos, 4) != MAGIC:
        return False
    head = blocks.at(pos + 4, HEADER_SIZE)
    if len(head) != HEADER_SIZE or head[TYPE_AT] != FORMAT_DESCRIPTION_EVENT:
        return False
    size = event_at(blocks, pos + 4, end, ctx.replace(type_remap=None, flavor=None), max_size)
    return size is not None and fde_like(blocks, pos + 4, size)


def context_at(blocks: Blocks, start: int, end: int, ctx, max_size: int) -> int | None:
    """Without a context (no FORMAT_DESCRIPTION read yet): the first offset from ``start``
    where a second file starts or a confirmed FORMAT_DESCRIPTION does (None when none
    does). Other events cannot be told from noise before one."""
    ctx = ctx.replace(type_remap=None, flavor=None)
    fde = bytes((FORMAT_DESCRIPTION_EVENT,))
    q = start
    while q <= end - HEADER_SIZE:
        buf = blocks.at(q, Blocks.SIZE + HEADER_SIZE)
        n = min(len(buf) - HEADER_SIZE, end - HEADER_SIZE - q) + 1
        if n <= 0:
            break
        hits = []
        for i in (buf.find(MAGIC, 0, n + 3), buf.find(fde, 4, n + 4) - 4):
            if i >= 0:
                hits.append(i)
        if not hits:
            q += n
            continue
        i = min(hits)
        if second_file_at(blocks, q + i, end, ctx, max_size):
            return q + i
        if buf[i + TYPE_AT] == FORMAT_DESCRIPTION_EVENT:
            size = event_at(blocks, q + i, end, ctx, max_size)
            if size is not None and fde_like(blocks, q + i, size):
                return q + i
        q += i + 1
    return None


def resync(blocks: Blocks, start: int, end: int, ctx, max_size: int,
           limit: int | None = None) -> int | None:
    """The first offset from ``start`` (up to ``limit`` bytes on; to ``end`` by default)
    where a confirmed event or a second file starts, after the damaged event at
    ``start - 1``; None when there is none.

    Where log positions can say (:func:`chains`), an event they prove is one
    (:func:`proven`; the damaged event's own log position may name where the next starts),
    a second file or a FORMAT_DESCRIPTION is proof; an event only the header after it
    vouches for, before the first proof (whichever proof it is), is taken when the sizes
    lead from it to that proof exactly, or when it ends by the proof and its header is
    consistent with the damaged one's or the proof's (the same server id, a timestamp within
    a day; a second file's: its FORMAT_DESCRIPTION's): a header in the damaged bytes that
    looks plausible, followed by another by chance, is no event; the events the damage did
    not touch are read from the proof on."""
    stop = end - HEADER_SIZE if limit is None else min(end - HEADER_SIZE, start + limit)
    kinds = WRITTEN_KINDS.get(ctx.flavor, WRITTEN_KINDS[None])
    remap = ctx.type_remap
    chain = chains(ctx)
    damaged = blocks.at(start - 1, HEADER_SIZE) if chain and start > 4 else b""
    # (a v4 header's log position names where the next event starts, whatever its size)
    before = log_pos_of(damaged) or None if len(damaged) == HEADER_SIZE and \
        ctx.binlog_version >= 4 else None
    weak = []   # (offset, size): events only the header after them vouches for
    q = start
    while q <= stop:
        buf = blocks.at(q, Blocks.SIZE + HEADER_SIZE)
        n = min(len(buf) - HEADER_SIZE, stop - q) + 1
        for i in range(max(n, 0)):
            code = buf[i + TYPE_AT]
            if buf[i] == 0xFE and buf[i:i + 4] == MAGIC and \
                    second_file_at(blocks, q + i, end, ctx, max_size):
                return _led_to(blocks, weak, q + i, end, ctx, max_size, damaged, q + i + 4)
            kind = remap.get(code, code) if remap else code
            if kind not in kinds or (kind == START_EVENT_V3 and ctx.binlog_version >= 4):
                continue  # (a START_EVENT_V3: a v1/v3 file's first, or its relay log's)
            size = int.from_bytes(buf[i + 9:i + 13], "little")
            if not (HEADER_SIZE <= size <= max_size and q + i + size <= end):
                continue
            if chain and kind != FORMAT_DESCRIPTION_EVENT:
                if proven(blocks, q + i, size, end, ctx, max_size, before, True):
                    if checksummed_fde_inside(blocks, q + i, size, ctx) is None:
                        return _led_to(blocks, weak, q + i, end, ctx, max_size, damaged)
                elif follows(blocks, q + i + size, end, ctx, max_size):
                    weak.append((q + i, size))
                continue
            if confirmed(blocks, q + i, size, end, ctx, max_size) and (
                    kind != FORMAT_DESCRIPTION_EVENT or fde_like(blocks, q + i, size)):
                return _led_to(blocks, weak, q + i, end, ctx, max_size, damaged)
        if n <= 0:
            break
        q += n
    for p, size in weak:   # (no proof in reach: the first the reader confirms)
        if confirmed(blocks, p, size, end, ctx, max_size):
            return p
    return None


DAY = 86400   # (seconds: how far apart the timestamps of neighbouring events may be)
RELAY_OWN = frozenset({STOP_EVENT, ROTATE_EVENT})   # (a relay log's own, among its master's)


def _led_to(blocks: Blocks, weak: list, proof: int, end: int, ctx, max_size: int,
            damaged: bytes, proof_head: int | None = None) -> int:
    """The first of the ``weak`` candidates (offset, size) from which the sizes lead, from
    one plausible header to the next, to ``proof`` exactly, or that ends by ``proof`` with a
    header consistent with a neighbour's: the ``damaged`` header's, the proof's (at
    ``proof_head``, by default ``proof``: a second file's FORMAT_DESCRIPTION is after its
    magic number) or the header its own size leads to (where the damage made garbage of both
    the damaged header and the proof's timestamp, the event after it still vouches); the same
    server id, a timestamp within a day. A FORMAT_DESCRIPTION with the body of one this
    reader can use, where its size leads, vouches alone (a relay log's artificial ROTATE
    before its master's FORMAT_DESCRIPTION has timestamp 0), and so does a STOP or ROTATE
    there written within a day of it, whatever its server id (a relay log writes its own
    beside its master's events). Else ``proof``."""
    if not weak:
        return proof
    neighbours = (damaged, blocks.at(proof if proof_head is None else proof_head, HEADER_SIZE))
    for p, size in weak:
        q = p + size
        while q < proof:
            n = announced_size(blocks.at(q, HEADER_SIZE), q, end, ctx, max_size)
            if n is None:
                break
            q += n
        if q == proof:
            return p
        if p + size <= proof:
            head = blocks.at(p, HEADER_SIZE)
            stamp = int.from_bytes(head[:4], "little")
            after = (blocks.at(p + size, HEADER_SIZE),) if p + size < proof else ()
            if after and after[0][TYPE_AT] == FORMAT_DESCRIPTION_EVENT and fde_like(
                    blocks, p + size, int.from_bytes(after[0][9:13], "little")):
                return p
            if after and len(after[0]) == HEADER_SIZE and after[0][TYPE_AT] in RELAY_OWN and \
                    stamp and abs(int.from_bytes(after[0][:4], "little") - stamp) <= DAY:
                return p   # (a relay log's own STOP or ROTATE after a master's event: its
                # server id is the relay log's, its time close)
            for other in neighbours + after:
                if len(other) == HEADER_SIZE and other[5:9] == head[5:9] and \
                        abs(int.from_bytes(other[:4], "little") - stamp) <= DAY:
                    return p
    return proof

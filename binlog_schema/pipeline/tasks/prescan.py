"""The header-only pre-scan that cuts a large file at transaction boundaries into splits
(:class:`~.split.Split`): every 19-byte header read, short QUERY bodies to recognise BEGIN and
COMMIT, a cut only where an event is confirmed."""

from __future__ import annotations

from ...format import scanning
from ...format.event_codec import HEADER_SIZE
from ...format.errors import BinlogError
from ...format.facts.codes import (CONTEXT_KINDS, GTID_KINDS, MARIA_GTID_EVENT, NAMED_GTID_KINDS,
                            QUERY_EVENT, START_ENCRYPTION_EVENT)
from ...format.facts.flavor import checksum_length
from ...format.facts.framing import LOG_POS_AT, LOG_POS_END
from ...format.facts.post_header import MARIA_GTID_FLAGS2_AT, query_statement_at
from ...format.context import Context
from ...changes.statements import statement_role
from ...changes.transactions import BOUNDARY_KINDS, OPENS, Boundary, gtid_standalone
from ...format.stream import MAGIC, MAX_EVENT_SIZE
from ..fsio import open_input
from .split import EVENT_WEIGHT, LOG_POS_WRAP, MAX_SCAN, Split
from .split_context import context_event

REAL_GTID_KINDS = NAMED_GTID_KINDS   # ANONYMOUS_GTID names no transaction
MAX_QUERY_PEEK = 512


def _query_text(raw: bytes, ctx: Context) -> bytes:
    """The statement of a QUERY event from its bytes (post-header, status variables and
    database skipped: :func:`~binlog_schema.format.facts.post_header.query_statement_at`): enough to
    recognise BEGIN/COMMIT without decoding the event (which costs ten times as much); the
    CRC32's length flavor.py's rule."""
    body = raw[HEADER_SIZE:len(raw) - checksum_length(QUERY_EVENT, None, ctx)]
    at = query_statement_at(body, {"_params": {"ctx": ctx}}, QUERY_EVENT)
    return b"" if at is None else bytes(body[at:])


def _boundary_facts(blocks, pos: int, n: int, kind: int, ctx: Context) -> tuple:
    """``(role, standalone)`` of an event of ``BOUNDARY_KINDS`` for :meth:`Boundary.step`,
    from its bytes: a QUERY's statement role read from its first bytes (by the table's bytes
    regex; a QUERY longer than ``MAX_QUERY_PEEK`` or compressed is an ordinary statement: the
    ones that begin or end transactions are short); a MariaDB GTID's STANDALONE flag."""
    if kind == QUERY_EVENT:
        if n <= MAX_QUERY_PEEK:
            return statement_role(_query_text(blocks.at(pos, n), ctx)), False
        return None, False
    if kind == MARIA_GTID_EVENT:
        at = HEADER_SIZE + MARIA_GTID_FLAGS2_AT
        head = blocks.at(pos, min(n, at + 1))
        return None, gtid_standalone(kind, head[at] if len(head) > at else 0)
    return None, kind in GTID_KINDS and gtid_standalone(kind)


class _SecondFile:
    """Where a second file starts (a magic number, then a confirmed FORMAT_DESCRIPTION:
    :func:`binlog_schema.format.scanning.second_file_at`), looked for in every block the pre-scan
    reads (:meth:`block`, its ``scanning.Blocks`` watch), and in the bytes between them that it
    passes over (read here, a block at a time): ``second`` (None while none was seen), and
    ``searched``, the offset below which every position was looked at."""

    def __init__(self, f, checks, size: int, ctx):
        self.f, self.checks, self.size, self.ctx = f, checks, size, ctx
        self.second = None
        self.searched = 4

    def block(self, buf, base: int):
        if self.second is not None or base + len(buf) - 3 <= self.searched:
            return
        if base > self.searched:   # (passed over: inside a large event, or block edges)
            q = self.searched
            while q < base and self.second is None:
                self.f.seek(q)
                self._find(self.f.read(min(scanning.Blocks.SIZE, base - q) + 3), q, 0)
                q += scanning.Blocks.SIZE
            if self.second is not None:
                return
        self._find(buf, base, max(self.searched - base, 0))

    def _find(self, buf, base: int, start: int):
        i = buf.find(MAGIC, start)
        while i >= 0:
            if scanning.second_file_at(self.checks, base + i, self.size, self.ctx,
                                       MAX_EVENT_SIZE):
                self.second = base + i
                return
            i = buf.find(MAGIC, i + 1)
        self.searched = max(self.searched, base + len(buf) - 3)


def prescan(uri: str, size: int, split_bytes: int) -> list:
    """The splits of one file: read every 19-byte header (the file in 1 MiB blocks; the
    bodies of short QUERY events are read to recognise BEGIN/COMMIT) and cut at the first
    transaction start after ``split_bytes`` of work since the previous cut (work: bytes plus
    ``EVENT_WEIGHT`` per event, as many small events cost more than one large one).

    A cut is made only where an event is *confirmed*
    (:func:`binlog_schema.format.scanning.event_at`:
    its CRC32 verifies, or its log position or the header after it vouches for its size), so
    every split starts where an event starts. Damage (a size out of bounds or past the end;
    without checksums, a size that neither its log position nor a plausible header after it
    vouches for) is passed by resynchronising as the recovering reader does (the next
    confirmed event); the split that holds the damage accounts for it. A file that is not a
    binlog, or whose first event is no confirmed FORMAT_DESCRIPTION, stays one split; after
    a second context event (relay logs), a second file's start (a magic number, then a
    confirmed FORMAT_DESCRIPTION, wherever it is: files concatenated, perhaps inside what
    reads as an event), encryption, or damage with no confirmed event after it, no more cuts
    are made (the rest of the file belongs to the last split). Without checksums the walk
    follows the sizes as the reader confirms them; with them it checks each CRC32 as the
    reader does (an event whose CRC32 fails is damage, passed as the reader passes it)."""
    whole = [Split(uri, size, 0, 0, size)]
    if size <= split_bytes // 2:
        return whole
    try:
        f = open_input(uri)
    except OSError:
        return whole
    with f:
        if f.read(4) != MAGIC:
            return whole
        sblocks = scanning.Blocks(f)   # (confirmations and resynchronisation)
        ctx = Context(checksum=False)
        second = _SecondFile(f, sblocks, size, ctx)
        blocks = scanning.Blocks(f, watch=second.block)   # (the walk, and bodies read)
        remap = ctx.type_remap
        pos, ctx_end, contexts = 4, 4, 0
        cuts = []               # (offset, last GTID event before it, work before it)
        last_cut = 0
        events = 0
        boundary = Boundary()
        last_gtid = None
        done = False
        before = None   # (where the event walked last says the next starts: a proof)
        while not done and pos + HEADER_SIZE <= size:
            damaged = None
            for pos, code, n, _buf, _i in blocks.walk(pos, MAX_EVENT_SIZE, whole=False):
                kind = remap.get(code, code) if remap else code
                fits = pos + n <= size
                if not ctx.checksum:
                    head = _buf[_i:_i + HEADER_SIZE]
                    if fits and contexts and kind not in CONTEXT_KINDS and \
                            int.from_bytes(head[LOG_POS_AT:LOG_POS_END], "little") != \
                            (pos + n) & LOG_POS_WRAP:
                        # no checksums, no log position that is its end: the size must be
                        # vouched for as the reader's (scanning.confirmed) is
                        fits = scanning.vouched(blocks, pos, n, size, ctx, MAX_EVENT_SIZE,
                                                before)
                    before = scanning.log_next(head, n, ctx)
                if fits and contexts and not ctx.checksum and kind not in CONTEXT_KINDS and \
                        scanning.checksummed_fde_inside(blocks, pos, n, ctx) is not None:
                    fits = False   # (over a FORMAT_DESCRIPTION a CRC32 proves: none, as for
                    # the reader, scanning.confirmed)
                elif fits and contexts and ctx.checksum and kind not in CONTEXT_KINDS and \
                        not scanning.confirmed(blocks, pos, n, size, ctx, MAX_EVENT_SIZE):
                    fits = False   # (a CRC32 that fails is damage to the reader: it goes on
                    # from the next confirmed event after this one's start, which may be a
                    # FORMAT_DESCRIPTION inside it, whose context the splits after it need)
                if not fits:
                    damaged = pos
                    break
                if second.second is not None and pos + n > second.second:
                    done = True
                    break   # (a file appended: what follows is read in another context)
                candidate = False
                if kind in CONTEXT_KINDS:
                    contexts += 1
                    if pos != 4:
                        if contexts == 1:
                            return whole
                        done = True
                        break   # a second context: later splits would need it
                    if scanning.event_at(sblocks, pos, size, ctx, MAX_EVENT_SIZE) != n:
                        return whole   # (not confirmed: the reader reads no context from it)
                    try:
                        ctx = context_event(blocks.at(pos, n), ctx, pos)
                    except BinlogError:
                        return whole
                    remap = ctx.type_remap
                    ctx_end = pos + n
                    second.ctx = ctx
                elif not contexts:
                    return whole   # no FORMAT_DESCRIPTION first: one split, read as a whole
                elif kind in BOUNDARY_KINDS:   # (the one rule: changes/transactions.py)
                    candidate = boundary.step(kind, *_boundary_facts(blocks, pos, n, kind,
                                                                     ctx)) == OPENS
                elif kind == START_ENCRYPTION_EVENT:
                    done = True
                    break   # (the headers after it are not read as such)
                if candidate and pos >= ctx_end and \
                        pos - last_cut + EVENT_WEIGHT * events >= split_bytes and \
                        scanning.event_at(sblocks, pos, size, ctx, MAX_EVENT_SIZE) == n:
                    cuts.append((pos, last_gtid, pos - last_cut + EVENT_WEIGHT * events))
                    last_cut = pos
                    events = 0
                events += 1
                if kind in REAL_GTID_KINDS:
                    last_gtid = pos
            else:
                if blocks.bad is None:
                    break   # (the end of the file, or a last event cut short)
                damaged = blocks.bad[0]
            if damaged is None:
                break
            if not contexts:
                return whole
            # damage: on from the next confirmed event, if any (transactions unknown)
            nxt = scanning.resync(sblocks, damaged + 1, size, ctx, MAX_EVENT_SIZE, MAX_SCAN)
            if nxt is None or scanning.second_file_at(sblocks, nxt, size, ctx, MAX_EVENT_SIZE):
                break
            events += 1
            pos, before = nxt, None
            boundary = Boundary()
    if not cuts:
        return whole
    starts = [0] + [c[0] for c in cuts]
    ends = starts[1:] + [size]
    gtids = [None] + [c[1] for c in cuts]
    works = [c[2] for c in cuts] + [size - last_cut + EVENT_WEIGHT * events]
    return [Split(uri, size, i, s, e, ctx_end if s else 4, g, weight=w)
            for i, (s, e, g, w) in enumerate(zip(starts, ends, gtids, works))]

"""Event headers read without decoding: how plausible a header is, whether an event's size is
confirmed, and where the next good event starts after damage (resynchronisation).

An event at ``pos`` is *plausible* when its header names a type the file's flavor writes and
a size between the header's and the limit that ends within the file; it is *confirmed* when,
in a file with checksums, its CRC32 verifies, and without them when the header right after it
is plausible too (or it ends exactly at the end of the file), or when its log position is its
end. A log position that is not is no evidence against an event (relay logs carry the
source's, and inserted or removed bytes shift them). After damage the
next good event is the first confirmed one; a second file's magic number followed by a
confirmed FORMAT_DESCRIPTION (two files concatenated) is one too.
"""

from __future__ import annotations

from .mysql.codes import FORMAT_DESCRIPTION_EVENT, START_EVENT_V3, WRITTEN_KINDS
from .mysql.framing import HEADER_SIZE, crc_ok

MAGIC = b"\xfebin"


class Blocks:
    """Reads of a file at any offset, through a block kept in hand (1 MiB, or the read's
    size when larger)."""

    SIZE = 1 << 20

    def __init__(self, f):
        self.f = f
        self.buf = b""
        self.base = 0

    def at(self, pos: int, n: int) -> bytes:
        """The file's bytes ``[pos, pos + n)`` (fewer at its end)."""
        i = pos - self.base
        if i < 0 or i + n > len(self.buf):
            self.f.seek(pos)
            self.buf = self.f.read(max(self.SIZE, n))
            self.base, i = pos, 0
        return self.buf[i:i + n]


def announced_size(head: bytes, pos: int, end: int, ctx, max_size: int) -> int | None:
    """The size the header ``head`` (of an event at ``pos``) announces when it is plausible:
    a type the context's flavor writes, a size from the header's to ``max_size`` that ends
    by ``end``; None otherwise."""
    size = int.from_bytes(head[9:13], "little")
    if not HEADER_SIZE <= size <= max_size or pos + size > end:
        return None
    if ctx.kind(head[4]) not in WRITTEN_KINDS.get(ctx.flavor, WRITTEN_KINDS[None]):
        return None
    return size


def confirmed(blocks: Blocks, pos: int, size: int, end: int, ctx, max_size: int) -> bool:
    """Whether the event of ``size`` bytes at ``pos`` is one: its CRC32 verifies (a file
    with checksums, and a FORMAT_DESCRIPTION, which says itself whether it has one); without
    checksums, the header after it is plausible (or the file ends there, or within the next
    header), or its log position is where it ends (the next header may be the damaged one)."""
    if (ctx.checksum and not ctx.encrypted) or \
            blocks.at(pos + 4, 1) == bytes((FORMAT_DESCRIPTION_EVENT,)):
        raw = blocks.at(pos, size)
        return len(raw) == size and size >= HEADER_SIZE + 4 and \
            crc_ok(raw, ctx.kind(raw[4]), ctx)
    if int.from_bytes(blocks.at(pos + 13, 4), "little") == (pos + size) & 0xFFFFFFFF:
        return True
    return follows(blocks, pos + size, end, ctx, max_size)


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
    return size >= HEADER_SIZE + 57 and len(body) == 57 and body[0:2] == b"\x04\x00" and \
        body[56] == HEADER_SIZE


def second_file_at(blocks: Blocks, pos: int, end: int, ctx, max_size: int) -> bool:
    """Whether a second file starts at ``pos``: its magic number, then a confirmed
    FORMAT_DESCRIPTION."""
    if blocks.at(pos, 4) != MAGIC:
        return False
    head = blocks.at(pos + 4, HEADER_SIZE)
    if len(head) != HEADER_SIZE or head[4] != FORMAT_DESCRIPTION_EVENT:
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
        if buf[i + 4] == FORMAT_DESCRIPTION_EVENT:
            size = event_at(blocks, q + i, end, ctx, max_size)
            if size is not None and fde_like(blocks, q + i, size):
                return q + i
        q += i + 1
    return None


def resync(blocks: Blocks, start: int, end: int, ctx, max_size: int,
           limit: int | None = None) -> int | None:
    """The first offset from ``start`` (up to ``limit`` bytes on; to ``end`` by default)
    where a confirmed event or a second file starts; None when there is none."""
    stop = end - HEADER_SIZE if limit is None else min(end - HEADER_SIZE, start + limit)
    kinds = WRITTEN_KINDS.get(ctx.flavor, WRITTEN_KINDS[None])
    remap = ctx.type_remap
    q = start
    while q <= stop:
        buf = blocks.at(q, Blocks.SIZE + HEADER_SIZE)
        n = min(len(buf) - HEADER_SIZE, stop - q) + 1
        for i in range(max(n, 0)):
            code = buf[i + 4]
            if buf[i] == 0xFE and buf[i:i + 4] == MAGIC and \
                    second_file_at(blocks, q + i, end, ctx, max_size):
                return q + i
            kind = remap.get(code, code) if remap else code
            if kind not in kinds or kind == START_EVENT_V3:  # (only ever a file's first)
                continue
            size = int.from_bytes(buf[i + 9:i + 13], "little")
            if HEADER_SIZE <= size <= max_size and q + i + size <= end and \
                    confirmed(blocks, q + i, size, end, ctx, max_size) and (
                        kind != FORMAT_DESCRIPTION_EVENT or fde_like(blocks, q + i, size)):
                return q + i
        if n <= 0:
            break
        q += n
    return None

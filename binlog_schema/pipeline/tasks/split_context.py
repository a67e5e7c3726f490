"""What a split that starts past a file's beginning is read with: the context of the file's
first event (:func:`file_context`), and the table maps in force at its start when it is not
self-contained (:func:`table_maps_before`: the file's headers before it scanned)."""

from __future__ import annotations

from ...format import scanning
from ...format.event_codec import HEADER_SIZE, parse_event
from ...format.errors import BinlogError, FormatError
from ...format.facts.codes import (CONTEXT_KINDS, FORMAT_DESCRIPTION_EVENT, TABLE_MAP_EVENT,
                                   WRITTEN_KINDS)
from ...format.facts.flavor import context_from_fde, context_from_start_v3
from ...format.facts.framing import SIZE_AT, SIZE_END, TYPE_AT
from ...format.context import Context
from ...format.stream import MAX_EVENT_SIZE, EventRecord
from .split import MAX_SCAN

def context_event(raw: bytes, ctx: Context, pos: int) -> Context:
    """The context a FORMAT_DESCRIPTION (or START_EVENT_V3) sets; a FormatError for one the
    reader cannot honour (as :class:`BinlogReader` says)."""
    value = parse_event(raw, ctx, pos)
    if ctx.kind(raw[TYPE_AT]) == FORMAT_DESCRIPTION_EVENT:
        body = value["body"]
        if body["binlog_version"] != 4 or body["header_length"] != HEADER_SIZE:
            raise FormatError("a FORMAT_DESCRIPTION this reader cannot honour", offset=pos,
                              path="body.header_length")
        return context_from_fde(body, ctx)
    return context_from_start_v3(value["body"], ctx)


def file_context(f) -> Context:
    """The context of a file's first event (FORMAT_DESCRIPTION or START_EVENT_V3): what a
    split that starts past it is read with."""
    ctx = Context(checksum=False)
    f.seek(4)
    head = f.read(HEADER_SIZE)
    if len(head) == HEADER_SIZE and ctx.kind(head[TYPE_AT]) in CONTEXT_KINDS:
        n = int.from_bytes(head[SIZE_AT:SIZE_END], "little")
        try:
            ctx = context_event(head + f.read(n - HEADER_SIZE), ctx, 4)
        except BinlogError:
            pass
    return ctx


_file_context = file_context


def table_maps_before(f, start: int, ctx: Context) -> dict:
    """The TABLE_MAP in force for each table id just before ``start``: the fallback for a
    split that is not self-contained (headers read, only TABLE_MAP bodies parsed; damage
    passed as the pre-scan passes it, at the next confirmed event)."""
    maps = {}
    blocks = scanning.Blocks(f)
    written = WRITTEN_KINDS.get(ctx.flavor, WRITTEN_KINDS[None])
    # (the walk gives TABLE_MAPs, the codes no server writes, and the event that holds start)
    blocks.skip = scanning.codes_except({TABLE_MAP_EVENT} | (frozenset(range(256)) - written),
                                        ctx.type_remap)
    pos = 4
    while pos < start:
        damaged = None
        for pos, code, n, _buf, _i in blocks.walk(pos, MAX_EVENT_SIZE, whole=False, mark=start):
            if pos >= start:
                break
            kind = ctx.kind(code)
            if pos + n > start or kind not in written:
                damaged = pos
                break
            raw = blocks.at(pos, n)
            try:
                value = parse_event(raw, ctx, pos)
            except BinlogError:
                value = None
            if value is not None:
                maps[value["body"]["table_id"]] = EventRecord(pos, raw, ctx, value=value)
        else:
            if blocks.bad is not None:
                damaged = blocks.bad[0]
        if damaged is None:
            break
        nxt = scanning.resync(blocks, damaged + 1, start, ctx, MAX_EVENT_SIZE, MAX_SCAN)
        if nxt is None or scanning.second_file_at(blocks, nxt, start, ctx, MAX_EVENT_SIZE):
            break
        pos = nxt
    return maps

"""Parsing events in a task: servers write the same TABLE_MAP before every transaction on a
table, so a task parses each distinct TABLE_MAP body once (:class:`EventParser`; header and
CRC32 of every event are still checked)."""

from __future__ import annotations

from ...format import event_codec as envelope
from ...format.event_codec import HEADER_SIZE
from ...format.facts.codes import TABLE_MAP_EVENT
from ...format.facts.flavor import checksum_length
from ...format.facts.framing import TYPE_AT, event_parse

class _Bodies:
    """The compiled body parsers, TABLE_MAP's answering with a body already parsed."""

    def __init__(self):
        self.parsers = envelope.fast()[1]
        self.body = None

    def get(self, kind, default):
        if kind == TABLE_MAP_EVENT:
            return self.table_map
        return self.parsers.get(kind, default)

    def table_map(self, stream, this):
        stream.seek(0, 2)
        return self.body


class EventParser:
    """Servers write the same TABLE_MAP before every transaction on a table: a TABLE_MAP
    record of a lazy :class:`BinlogReader` (``decode="lazy"``) whose body bytes an earlier
    one had (in the same context) takes that record's parsed body; its header and CRC32 are
    parsed and checked as every event's are. Every other record parses itself when its
    value is asked for (as do a body's first TABLE_MAP and any whose first did not parse
    cleanly): a record's value and error are always what its own parse gives."""

    def __init__(self):
        self.parse_header = envelope.fast()[0]
        self.bodies = _Bodies()
        self.default = envelope.body_parser(-1)
        params = getattr(envelope, "_params", None)
        self.params = params if params is not None else (lambda ctx: {"ctx": ctx})
        self.memo: dict = {}   # (body bytes, context facts) -> parsed body
        self.ctx = self.facts = None

    def parse(self, rec):
        raw, ctx = rec.raw, rec.ctx
        if len(raw) <= HEADER_SIZE or ctx.kind(raw[TYPE_AT]) != TABLE_MAP_EVENT or \
                not getattr(rec, "unparsed", False):   # (not lazy: parsed, or an error)
            return
        if ctx is not self.ctx:
            self.ctx, self.facts = ctx, (ctx.flavor, ctx.server_version, ctx.checksum,
                                         tuple(ctx.post_header_lengths or ()))
        key = (raw[HEADER_SIZE:len(raw) - checksum_length(TABLE_MAP_EVENT, None, ctx)],
               self.facts)
        body = self.memo.get(key)
        if body is None:
            value = rec.value            # its own parse
            if rec.error is None and value is not None and "trailing" not in value:
                if len(self.memo) > 4096:
                    self.memo.clear()
                self.memo[key] = value["body"]
            return
        self.bodies.body = body
        try:
            value = event_parse(raw, {"_params": self.params(ctx)}, self.parse_header,
                                self.bodies, self.default)
        except Exception:  # noqa: BLE001 - the record's own parse gives the typed error
            return
        rec.value = value

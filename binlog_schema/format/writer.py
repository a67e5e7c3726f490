"""Writing binlog files: :class:`BinlogWriter` writes the magic number and then events, each
built at its offset in the context in force (which a context event written changes), or an
event read by :class:`~binlog_schema.format.stream.BinlogReader` written back, edited or kept
as it is. Reading files is :mod:`binlog_schema.format.stream`'s."""

from __future__ import annotations

import os

from .context import Context
from .event_codec import build_event, frame_event
from .facts.codes import FORMAT_DESCRIPTION_EVENT, START_EVENT_V3
from .facts.flavor import checksum_length, context_from_fde, context_from_start_v3
from .facts.framing import FLAGS_AT, HEADER_SIZE, TYPE_AT
from .scanning import MAGIC
from .stream import EventRecord


class BinlogWriter:
    """Write the magic and then events, each built at its offset (log_pos computed when the
    event's header leaves it None)."""

    def __init__(self, target, ctx: Context | None = None):
        self.f, self._close = (open(target, "wb"), True) if isinstance(
            target, (str, os.PathLike)) else (target, False)
        self.f.write(MAGIC)
        self.pos = 4
        self.ctx = ctx or Context(checksum=False)
        self._placed = None   # (a context, its copy at this writer's place)
        self._bodies: dict = {}   # write_repeated's: key -> the body's bytes

    def _here(self, ctx: Context) -> Context:
        """``ctx`` at this writer's offset: a copy the writer keeps and moves from event to
        event (a copy per event would drop the compiled code's caches with it), made anew
        when the context changes. It never leaves the writer: the events built with it are
        bytes."""
        placed = self._placed
        if placed is None or placed[0] is not ctx:
            placed = self._placed = (ctx, ctx.replace(offset=self.pos))
        else:
            placed[1].offset = self.pos
        return placed[1]

    def write(self, value, ctx: Context | None = None) -> int:
        """Build and write one event; returns its offset. An FDE changes the context for the
        events after it."""
        data = build_event(value, self._here(ctx or self.ctx))
        offset = self.pos
        self.f.write(data)
        self.pos += len(data)
        code = data[4]
        if code == FORMAT_DESCRIPTION_EVENT:
            self.ctx = context_from_fde(value["body"], self.ctx)
        elif code == START_EVENT_V3:
            self.ctx = context_from_start_v3(value["body"], self.ctx)
        return offset

    def write_repeated(self, value, key, tail: bytes = b"") -> int:
        """:meth:`write` for an event whose body repeats: equal keys, equal body values
        (a hashable text of the body, say), then ``tail``, bytes that end the body and do not
        repeat (a rows event's rows: ``value``'s body then holds its rows empty). The body is
        built once a key; each event is framed around its bytes and the tail (the header
        built, event_size, log_pos and the CRC32 computed). Not for context events
        (FORMAT_DESCRIPTION...)."""
        bodies = self._bodies
        body = bodies.get(key)
        if body is None:
            data = build_event(value, self._here(self.ctx))
            if len(bodies) >= 1024:
                bodies.clear()
            body = bodies[key] = data[HEADER_SIZE:len(data) - checksum_length(
                data[TYPE_AT], None, self.ctx)]
            if not tail:
                offset = self.pos
                self.f.write(data)
                self.pos += len(data)
                return offset
        header = value["header"]
        data = frame_event({"type_code": header["type_code"], "timestamp": header["timestamp"],
                            "server_id": header["server_id"], "flags": header["flags"]},
                           body + tail if tail else body, self._here(self.ctx))
        offset = self.pos
        self.f.write(data)
        self.pos += len(data)
        return offset

    def write_record(self, rec: EventRecord, value=None) -> int:
        """Write an event read by :class:`BinlogReader`, possibly edited (``value``). Its log
        position is recomputed when the original was consistent (offset + size, as a server's
        own binlog has it); other values (0 in artificial events, a master's position in a
        relay log) are kept."""
        value = rec.value if value is None else value
        header = dict(value["header"])
        if header.get("log_pos") == (rec.offset + rec.size) & 0xFFFFFFFF:
            header["log_pos"] = None
        return self.write({**value, "header": header}, rec.ctx)

    def write_kept(self, rec: EventRecord) -> int:
        """Write an event read by :class:`BinlogReader` as it is, at this writer's place: its
        body's bytes kept (not parsed, not rebuilt), its header's type, time, server id and
        flags kept, log_pos, event_size and the CRC32 (in this writer's context) built by
        the header's declaration (:func:`~binlog_schema.format.event_codec.frame_event`). Not for
        context events (FORMAT_DESCRIPTION...): use :meth:`write`."""
        raw = rec.raw
        kind = raw[TYPE_AT]
        header = {"type_code": kind, "timestamp": int.from_bytes(raw[:4], "little"),
                  "server_id": int.from_bytes(raw[5:9], "little"), "log_pos": None,
                  "flags": int.from_bytes(raw[FLAGS_AT:FLAGS_AT + 2], "little")}
        body = raw[HEADER_SIZE:len(raw) - checksum_length(kind, None, rec.ctx)]
        data = frame_event(header, body, self._here(self.ctx))
        offset = self.pos
        self.f.write(data)
        self.pos += len(data)
        return offset

    def write_raw(self, data: bytes) -> int:
        offset = self.pos
        self.f.write(data)
        self.pos += len(data)
        return offset

    def close(self):
        if self._close:
            self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

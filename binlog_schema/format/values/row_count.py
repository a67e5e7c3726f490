"""How many rows a rows event holds, without making their values: the images walked by the
reader generated from their :class:`~.image.ImagePlan` (:func:`~.image.compile_image`, the one
walk) with an emitter that makes nothing of a value but its end: fixed-size values are passed
in one unpack, values of a width their column fixes (DECIMAL, temporal, ENUM, SET, BIT) by
that width, length-prefixed ones by their length, the others (MySQL's binary JSON, GEOMETRY,
VECTOR, compressed columns) by their codec's parse.

Rows events carry no row count (neither MySQL's nor MariaDB's): ``binlog-schema stats``
counts the images this way, several times faster than decoding them.
"""

from __future__ import annotations

from ..facts.codes import PARTIAL_UPDATE_ROWS_EVENT
from ..facts.framing import HEADER_SIZE, crc_ok
from .image import ValueEmitter, compile_image, read_rows


class SkipEmitter(ValueEmitter):
    """Each value passed over: only ``pos`` moves; the image's result is None."""

    def fixed(self, j, codec, v, raw):
        return "None"

    def value(self, j, codec, key):
        if codec.width is not None:
            return [f"pos += {codec.width}"]
        if codec.prefixed is not None:
            width, _dec = codec.prefixed
            return self.length_lines(width) + ["pos += n"]
        self.ns[f"F{j}"] = codec.fields if codec.fields is not None else codec.parse
        return [f"_, pos = F{j}(data, pos)"]

    def result(self, plan, kept):
        return "None"


class CheckedSkipEmitter(SkipEmitter):
    """As :class:`SkipEmitter`, but a DECIMAL's digit groups are read (its fields): the one
    check a value's parse makes beyond its length, so that the images this walk passes are
    the images the codecs read."""

    def value(self, j, codec, key):
        if codec.type_name == "NEWDECIMAL" and codec.fields is not None:
            self.ns[f"F{j}"] = codec.fields
            return [f"_, pos = F{j}(data, pos)"]
        return super().value(j, codec, key)


def _skipper(plan):
    return compile_image(plan, SkipEmitter, "row image skip")


def _checker(plan):
    return compile_image(plan, CheckedSkipEmitter, "row image check")


def row_spans(codec, body, kind: int, data, verified: bool = False) -> list:
    """Each row's ``(start, middle, end)`` offsets in a rows event's rows bytes ``data``
    (``middle``: where an update's after image starts), its values passed over, not made:
    what :meth:`~.rows.RowsCodec.decode` with ``spans`` gives, and it raises where that
    raises (through the codecs: the precise error), for images that do not fit the table.
    ``verified``: the event's CRC32 was checked (its bytes are the server's, whose DECIMAL
    digits are in bounds): DECIMAL's digits are passed over too."""
    spans: list = []
    if kind != PARTIAL_UPDATE_ROWS_EVENT:
        first, second = codec.plans(body, kind)
        name, make = ("skip", _skipper) if verified else ("check", _checker)
        try:
            read_rows(data, first.compiled_as(name, make),
                      None if second is None else second.compiled_as(name, make), spans)
            return spans
        except Exception:  # noqa: BLE001 - read again through the codecs, for the error
            spans.clear()
    codec.decode({**body, "rows": data}, kind, spans=spans)
    return spans


def count_rows(codec, body, kind: int, data=None) -> int:
    """The rows of a rows event ``body`` (parsed; ``data``: its rows' bytes, when the body
    given is without them) of type ``kind``, through the table's :class:`~.rows.RowsCodec`;
    raises as :meth:`~.rows.RowsCodec.decode` does on images that do not fit the table map
    (the caller decodes them for the precise error)."""
    if data is None:
        rows_field = body["rows"]
        data = rows_field["data"] if isinstance(rows_field, dict) else rows_field
    if not data:
        return 0
    if kind == PARTIAL_UPDATE_ROWS_EVENT:   # (partial JSON after images: the codecs' walk)
        return len(codec.decode({**body, "rows": data}, kind))
    first, second = codec.plans(body, kind)
    return len(read_rows(data, first.compiled_as("skip", _skipper),
                         None if second is None else second.compiled_as("skip", _skipper)))


class RowCounter:
    """:func:`count_rows` for the events of one stream, the image readers of each event's
    leading fields (as :func:`split_rows_event` keeps them) and table's codec found once."""

    def __init__(self):
        self._walks: dict = {}   # id(body) -> (body, codec, first walk, second walk or None)

    def count(self, codec, body, kind: int, data) -> int:
        hit = self._walks.get(id(body))
        if hit is None or hit[0] is not body or hit[1] is not codec:
            if kind == PARTIAL_UPDATE_ROWS_EVENT:
                return count_rows(codec, body, kind, data)
            first, second = codec.plans(body, kind)
            hit = (body, codec, first.compiled_as("skip", _skipper),
                   None if second is None else second.compiled_as("skip", _skipper))
            if len(self._walks) >= 4096:
                self._walks.clear()
            self._walks[id(body)] = hit
        if not data:
            return 0
        return len(read_rows(data, hit[2], hit[3]))


def split_rows_event(rec):
    """(a rows event record's body without its rows, the rows' bytes): the fields before the
    rows (table id, flags, column bitmaps) repeat from one event of a table to the next, so
    they are parsed once per context and kept by their bytes; an event that starts with bytes
    seen before is not parsed (its CRC32 is checked). None when the record does not parse
    (its ``error`` says why) or its CRC32 does not match."""
    raw, ctx = rec.raw, rec.ctx
    kind = rec.kind
    crc = 4 if ctx.checksum else 0
    end = len(raw) - crc
    memo = ctx.extra.get("_count_leads")
    if memo is None:
        memo = ctx.extra["_count_leads"] = {}
    lengths = memo.get(kind)
    if lengths is None:
        lengths = memo[kind] = {}
    if rec.unparsed:
        for n, known in lengths.items():
            body = known.get(raw[HEADER_SIZE:HEADER_SIZE + n])
            if body is not None:
                if crc and ctx.verify_checksum and not crc_ok(raw, kind, ctx):
                    return None
                return body, raw[HEADER_SIZE + n:end]
    value = rec.value
    if value is None or rec.error is not None:
        return None
    body = value["body"]
    last = next(reversed(body), None) if isinstance(body, dict) else None
    rows = body[last] if last is not None else None
    if type(rows) is bytes and "trailing" not in value and raw[end - len(rows):end] == rows:
        n = end - HEADER_SIZE - len(rows)
        known = lengths.get(n)
        if known is None:
            if len(lengths) >= 16:
                lengths.clear()
            known = lengths[n] = {}
        if len(known) >= 4096:
            known.clear()
        lead = {k: v for k, v in body.items() if k is not last}
        known[bytes(raw[HEADER_SIZE:HEADER_SIZE + n])] = lead
        return lead, rows
    if isinstance(rows, dict):   # (MariaDB's compressed rows: their data, uncompressed)
        return body, rows["data"]
    return body, rows


__all__ = ["CheckedSkipEmitter", "RowCounter", "SkipEmitter", "count_rows", "row_spans",
           "split_rows_event"]

"""JSON Lines: one JSON object per event (or table map), written straight from what the parser
returns: the parsed containers are encoded as they are (bytes as ``{"hex": ...}``), with no
intermediate copy. Compact separators, non-ASCII text as is (UTF-8), the object's keys in
declaration order.

The encoder is :mod:`binlog_schema.construct_ext.jsontext`'s; an event's header and body are
written by the compiled JSON direction of their declarations (their text straight from the
bytes, equal to the encoder's text of what they parse to).
"""

from __future__ import annotations

import struct
from binascii import hexlify
from io import BytesIO

from ..format import event_codec as envelope
from ..construct_ext.errors import LayoutError
from ..construct_ext.jsontext import dumps, object_json, quote
from ..construct_ext.ints import uint_parse
from ..format.errors import BinlogError
from ..format.facts.codes import (ANNOTATE_ROWS_EVENT, EXECUTE_LOAD_QUERY_EVENT,
                                  QUERY_COMPRESSED_EVENT, QUERY_EVENT, RAW_ROWS_KINDS,
                                  ROTATE_EVENT, ROWS_KINDS as _ROWS_KINDS, ROWS_QUERY_LOG_EVENT,
                                  TABLE_MAP_EVENT, type_name)
from ..format.facts.framing import HEADER_SIZE, SIZE_AT, SIZE_END, crc_ok
from ..format.stream import PlainRecord

# ---------------------------------------------------------------------------------------
# events


def event_dict(path, rec) -> dict:
    """The JSON object of one event record (its values shared, not copied). A SKIPPED byte
    range is ``{file, offset, type: "SKIPPED", size, error}``; an event with an error keeps
    its header and its bytes (``raw``): every record covers its bytes of the file."""
    if rec.gap is not None:
        start, end = rec.gap
        return {"file": path, "offset": start, "type": "SKIPPED", "size": end - start,
                "error": rec.error.to_dict()}
    d = {"file": path, "offset": rec.offset, "type": rec.type_name, "type_code": rec.type_code}
    if rec.parent_offset is not None:
        d["in_payload_at"] = rec.parent_offset
    if rec.error is not None:
        if len(rec.raw) >= HEADER_SIZE:
            d["header"] = envelope.header_of(rec.raw, rec.ctx)
        d["error"] = rec.error.to_dict()
        d["raw"] = rec.raw
        return d
    value = rec.value
    if rec.ctx.encrypted and value is None:
        d["encrypted"] = True
        d["size"] = rec.size
        return d
    if value is not None:
        d["header"] = value["header"]
        d["body"] = value["body"]
        if "trailing" in value:
            d["trailing"] = value["trailing"]
        if "checksum" in value:
            d["checksum"] = value["checksum"]
    return d



class EventLines:
    """The JSON line of each event record of one file: what :func:`event_dict` gives, written
    by parts (the parts that repeat, such as type names and flag lists, once; the body of an
    event whose bytes were seen before, from that first time)."""

    # kinds whose bodies repeat byte for byte (a table's TABLE_MAP, BEGIN...): their JSON is
    # kept by body bytes, per context, and such an event is not parsed again (its CRC32 is).
    # The kinds whose corrupt bodies are kept raw (QUERY's, flagged by their record) are
    # among them: their records are parsed (a test checks)
    REPEATING = frozenset({TABLE_MAP_EVENT, QUERY_EVENT, ROTATE_EVENT, ANNOTATE_ROWS_EVENT,
                           QUERY_COMPRESSED_EVENT, ROWS_QUERY_LOG_EVENT,
                           EXECUTE_LOAD_QUERY_EVENT})
    # rows events: the fields before the rows repeat (a table's id, flags and column bitmaps);
    # their JSON is kept by their bytes, and an event that starts with such bytes is not parsed
    # again: the rest of its body is its rows
    LEADING = RAW_ROWS_KINDS

    def __init__(self, path):
        self.path = path
        self.head = '{"file":' + quote(path) + ',"offset":'
        self.kinds: dict = {}

    def parts(self, rec):
        """(kind, header JSON, body JSON, checksum) of a decoded event record; None for a record
        that is not one (an error, ciphertext, a gap, an event inside a payload): its line is
        the generic one."""
        if rec.gap is not None or rec.parent_offset is not None:
            return None
        ctx = rec.ctx
        raw = rec.raw
        kind = ctx.kind(raw[4]) if ctx.type_remap else raw[4]
        if kind in self.REPEATING and rec.unparsed and not ctx.encrypted:
            cached = self._cached_body(rec, ctx, raw, kind)
            if cached is not None:
                return kind, _header_json(raw, ctx), cached[0], cached[1]
        if rec.error is not None or rec.value is None:
            return None
        value = rec.value
        body = object_json(value["body"])
        if "trailing" in value:
            body += ',"trailing":' + object_json(value["trailing"])
        return kind, dumps(value["header"]), body, value.get("checksum")

    def line(self, rec, parts=False, extra: str = "") -> str:
        """The record's JSON object (with ``extra``, ``',"key":value...'``, before its end);
        ``parts`` as :meth:`parts` gave them (computed when not given)."""
        if parts is False:
            parts = self.parts(rec)
        if parts is None:
            text = dumps(event_dict(self.path, rec))
            return text[:-1] + extra + "}" if extra else text
        kind, h, body, checksum = parts
        kp = self.kinds.get(kind)
        if kp is None:
            kp = self.kinds[kind] = f',"type":"{type_name(kind)}","type_code":'
        tail = "" if checksum is None else f',"checksum":{checksum}'
        return (f'{self.head}{rec.offset}{kp}{rec.raw[4]},"header":{h},'
                f'"body":{body}{tail}{extra}}}')

    def write(self, records, add, decoder=None, binary: str = "hex", add_parts=None,
              on_error=None) -> None:
        """``add`` the line of every record (and of the events inside payloads): the loop of
        :meth:`parts` and :meth:`line`, with the common case (a plain event in a file's
        context) inline. With ``decoder`` (a RowDecoder), rows events carry their rows and
        the decoder follows the table maps and GTIDs. ``add_parts(first, data, last)``, when
        given, takes a line in three parts, the middle one bytes (a rows event's hex). A
        record with an error (a SKIPPED range among them) has its line, then
        ``on_error(record)``; without ``on_error`` its error is raised instead (reading stops
        after the good events before it)."""
        head, kinds = self.head, self.kinds
        repeating, cached_body = self.REPEATING, self._cached_body
        leading, led_body = self.LEADING, self._led_body
        state = decoder.state_kinds if decoder is not None else ()
        with_rows = RAW_ROWS_KINDS if decoder is not None else ()
        if decoder is not None:
            leading = ()  # (a rows event is parsed: its rows need its bitmaps)
        event_json = envelope.event_json
        header_json = envelope.fast_json()[0]
        line = self.line
        last_ctx = params = None
        for rec in records:
            raw = rec.raw
            ctx = rec.ctx
            if type(rec) is not PlainRecord or not rec.unparsed or ctx.type_remap or \
                    (decoder is not None and raw[4] in _ROWS_KINDS and raw[4] not in with_rows):
                for r in (rec,) if rec.inner is None else (rec, *rec.inner):
                    self._one(r, add, decoder, binary, on_error)
                continue
            kind = raw[4]
            if ctx is not last_ctx:
                last_ctx, params = ctx, {"_params": envelope.params_of(ctx)}
            rows = None
            if kind in leading:
                cached = led_body(rec, ctx, raw, kind)
                if cached is not None:
                    body, rows, checksum = cached
            else:
                cached = cached_body(rec, ctx, raw, kind) if kind in repeating else None
                if cached is not None:
                    body, checksum = cached
            if cached is not None:
                h = header_json(BytesIO(raw), params)
            else:
                # the body's JSON straight from its bytes, unless the row decoder needs its
                # value (or the record was parsed: a kept body's first time, an error); an
                # event that does not parse so is parsed for its typed error
                value = None if kind in state or kind in with_rows or not rec.unparsed \
                    else event_json(raw, ctx)
                if value is None:
                    value = rec.value
                    if rec.error is not None:
                        if on_error is None:
                            raise rec.error
                        add(line(rec))
                        on_error(rec)
                        continue
                    body = object_json(value["body"])
                    h = header_json(BytesIO(raw), params)
                else:
                    body = value["body"]
                    h = value["header"]
                if "trailing" in value:
                    body += ',"trailing":' + object_json(value["trailing"])
                checksum = value.get("checksum")
            extra = ""
            if kind in state:
                decoder.feed_one(rec)
                if decoder.last_problem is not None:
                    extra = schema_error_json(decoder)
            elif kind in with_rows:
                extra = rows_json(rec, decoder, binary)
            kp = kinds.get(kind)
            if kp is None:
                kp = kinds[kind] = f',"type":"{type_name(kind)}","type_code":'
            tail = "" if checksum is None else f',"checksum":{checksum}'
            if rows is None:
                add(f'{head}{rec.offset}{kp}{kind},"header":{h},"body":{body}{tail}{extra}}}')
            elif add_parts is not None:  # (the rows' hex made once, as bytes, copied once)
                add_parts(f'{head}{rec.offset}{kp}{kind},"header":{h},"body":{body}{{"hex":"',
                          hexlify(rows), f'"}}}}{tail}}}')
            else:
                add(f'{head}{rec.offset}{kp}{kind},"header":{h},"body":{body}'
                    f'{{"hex":"{rows.hex()}"}}}}{tail}}}')

    def _one(self, r, add, decoder, binary, on_error=None):
        """One record the general way (as the loop without the inline case does it)."""
        if r.error is not None and on_error is None:
            raise r.error
        parts = self.parts(r)
        kind = r.kind
        extra = ""
        if decoder is not None:
            if kind in decoder.state_kinds and (
                    parts is not None or (r.error is None and r.value is not None)):
                decoder.feed_one(r)
                if decoder.last_problem is not None:
                    extra = schema_error_json(decoder)
            if kind in _ROWS_KINDS:
                extra = rows_json(r, decoder, binary)
        add(self.line(r, parts, extra))
        if r.error is not None:
            on_error(r)

    @staticmethod
    def _led_body(rec, ctx, raw, kind):
        """(JSON of the body up to the rows' value, the rows' bytes, checksum) of a rows event
        whose leading fields' bytes were seen in this context (the rest of the body is its
        rows); None when not (the record is parsed, and the JSON of its leading fields kept)
        or it does not parse."""
        crc = 4 if ctx.checksum else 0
        end = len(raw) - crc
        if len(raw) != int.from_bytes(raw[SIZE_AT:SIZE_END], "little") or end < HEADER_SIZE:
            return None
        memo = ctx.extra.get("_json_leads")
        if memo is None:
            memo = ctx.extra["_json_leads"] = {}
        lengths = memo.get(kind)
        if lengths is None:
            lengths = memo[kind] = {}
        for n, known in lengths.items():
            head = known.get(raw[HEADER_SIZE:HEADER_SIZE + n]) if HEADER_SIZE + n <= end \
                else None
            if head is not None:
                if crc and ctx.verify_checksum and not crc_ok(raw, kind, ctx):
                    return None
                return (head, raw[HEADER_SIZE + n:end],
                        int.from_bytes(raw[end:], "little") if crc else None)
        value = rec.value
        if value is None or "trailing" in value:
            return None
        body = value["body"]
        last = next(reversed(body), None) if isinstance(body, dict) else None
        rows = body[last] if last is not None else None
        if type(rows) is not bytes or raw[end - len(rows):end] != rows:
            return None
        n = end - HEADER_SIZE - len(rows)
        if len(body) == 1:
            head = "{" + quote(last) + ":"
        else:
            head = dumps({k: v for k, v in body.items() if k is not last})[:-1] + "," + \
                quote(last) + ":"
        known = lengths.get(n)
        if known is None:
            if len(lengths) >= 16:
                lengths.clear()
            known = lengths[n] = {}
        if len(known) >= 4096:
            known.clear()
        known[raw[HEADER_SIZE:HEADER_SIZE + n]] = head
        return head, rows, value.get("checksum")

    @staticmethod
    def _cached_body(rec, ctx, raw, kind):
        """(body JSON, checksum) of a record whose body bytes were seen in this context; None
        when they were not (the record is parsed, and its body's JSON kept) or it does not
        parse."""
        crc = 4 if ctx.checksum else 0
        if len(raw) != int.from_bytes(raw[SIZE_AT:SIZE_END], "little") or \
                len(raw) < HEADER_SIZE + crc:
            return None
        key = raw[HEADER_SIZE:len(raw) - crc]
        memo = ctx.extra.get("_json_bodies")
        if memo is None:
            memo = ctx.extra["_json_bodies"] = {}
        body = memo.get(key)
        checksum = int.from_bytes(raw[-4:], "little") if crc else None
        if body is not None:
            if not crc or not ctx.verify_checksum or crc_ok(raw, kind, ctx):
                return body, checksum
            return None
        value = rec.value
        if value is None or rec.error is not None:
            return None
        body = object_json(value["body"])
        if "trailing" in value:
            body += ',"trailing":' + object_json(value["trailing"])
        if len(memo) >= 4096:
            memo.clear()
        memo[key] = body
        return body, value.get("checksum")


class EventWriter:
    """``--format jsonl``: the :class:`EventLines` of one file's event records to ``out`` (an
    ``add``, ``add_parts`` pair: see :meth:`EventLines.write` and :mod:`.formats`)."""

    def __init__(self, path, out, decoder=None, binary: str = "hex"):
        self.lines, self.out, self.decoder, self.binary = EventLines(path), out, decoder, binary

    def write(self, records, on_error=None) -> None:
        out = self.out
        self.lines.write(records, out.add, self.decoder, self.binary, out.add_parts, on_error)


def _header_json(raw, ctx) -> str:
    """The JSON text of an event's header, by the compiled declaration."""
    return envelope.fast_json()[0](BytesIO(raw), {"_params": envelope.params_of(ctx)})


def schema_error_json(decoder) -> str:
    """The ``,"schema_error":{...}`` part of the line of a TABLE_MAP that disagrees with the
    schema history (the decoder's last problem, taken)."""
    err, decoder.last_problem = decoder.last_problem, None
    return ',"schema_error":' + dumps(err.to_dict())


# What the rows written straight from the bytes (:func:`.row_images.rows_json_direct`) raise
# on rows they do not write: bytes short or odd (the generated readers' IndexError and
# struct.error, the codecs' LayoutError, the package's BinlogError) and what they leave to the
# typed rows (ValueError: partial updates, NaN floats). Those rows are then decoded through
# the codecs, which write them or say the precise ``rows_error``; any other exception is a
# bug, and propagates.
UNWRITTEN = (BinlogError, LayoutError, struct.error, IndexError, ValueError)

# How often the rows of an event were not written straight from the bytes but decoded through
# the codecs: on valid rows only partial updates and NaN floats come here.
FALLBACKS = {"rows": 0}


def rows_json(rec, rows, binary: str) -> str:
    """The ``,"rows":[...]`` (or ``,"rows_error":{...}``) part of a rows event's line: the
    images written by code compiled per table shape (:mod:`.row_images`), or, for rows it
    does not write (:data:`UNWRITTEN`, counted in :data:`FALLBACKS`), the typed rows."""
    if rec.error is not None or rec.value is None:
        return ""
    from .row_images import images_json, rows_json_direct, rows_text  # (loaded once)
    if binary == "hex":
        codec = rows.codec_of(rec)
        if codec is not None:
            try:
                return ',"rows":' + rows_json_direct(codec, rec.value["body"], rec.kind)
            except UNWRITTEN:   # decoded through the codecs: the rows or the error
                FALLBACKS["rows"] += 1
    try:
        decoded, _ = rows.rows_of(rec)
    except BinlogError as e:
        return ',"rows_error":' + dumps(e.to_dict())
    images = images_json(rows.codecs[rec.value["body"]["table_id"]], binary)
    return ',"rows":' + rows_text(decoded, images)


# ---------------------------------------------------------------------------------------
# table maps


def table_map_dict(path, rec) -> dict:
    """The JSON object of a TABLE_MAP record: its place and the typed table map."""
    from ..changes.table_map import table_map_from_event
    d = {"file": path, "offset": rec.offset}
    if rec.parent_offset is not None:
        d["in_payload_at"] = rec.parent_offset
    d.update(table_map_from_event(rec.value, rec.ctx).to_dict())
    return d


class TableMapLines:
    """The JSON line of each TABLE_MAP record of one file: what :func:`table_map_dict` gives,
    with the typed model made once per table shape. A server writes the same TABLE_MAP before
    every transaction on a table: the bytes after the table id are the shape, and the JSON
    of everything they (and the context) determine is kept by them; an event of a known shape
    is not parsed again (its CRC32 is checked, its header and table id read by the
    declaration's own compiled parsers)."""

    def __init__(self, path):
        self.path = path
        self.head = '{"file":' + quote(path) + ',"offset":'

    def line(self, rec) -> str | None:
        """The record's line; None when the record does not decode (``rec.error`` says why)."""
        ctx = rec.ctx
        raw = rec.raw
        crc = 4 if ctx.checksum else 0
        end = len(raw) - crc
        size = ctx.table_id_size
        place = self.head + str(rec.offset) + (
            "" if rec.parent_offset is None else f',"in_payload_at":{rec.parent_offset}')
        memo = ctx.extra.get("_table_map_json")
        if memo is None:
            memo = ctx.extra["_table_map_json"] = {}
        shape = raw[HEADER_SIZE + size:end] if rec.unparsed and end > HEADER_SIZE + size and \
            len(raw) == int.from_bytes(raw[SIZE_AT:SIZE_END], "little") else None
        hit = memo.get(shape) if shape is not None else None
        if hit is not None and (not crc or not ctx.verify_checksum or _crc_ok(raw, ctx)):
            table_id = uint_parse(BytesIO(raw[HEADER_SIZE:HEADER_SIZE + size]), size)
            return (f'{place},{hit[0]},"header":{_header_json(raw, ctx)},'
                    f'"table_id":{table_id},{hit[1]}}}')
        if rec.error is not None or rec.value is None:
            return None
        from ..changes.table_map import table_map_from_event
        d = table_map_from_event(rec.value, rec.ctx).to_dict()
        keys = list(d)
        at = keys.index("header")
        before = dumps({k: d[k] for k in keys[:at]})[1:-1]
        after = dumps({k: d[k] for k in keys[at + 2:]})[1:-1]
        if shape is not None and keys[at + 1] == "table_id" and before and after:
            if len(memo) >= 4096:
                memo.clear()
            memo[shape] = (before, after)
        return place + "," + dumps(d)[1:]


def _crc_ok(raw, ctx) -> bool:
    return crc_ok(raw, TABLE_MAP_EVENT, ctx)

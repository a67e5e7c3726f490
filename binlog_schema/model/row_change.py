"""Row changes: per row of a rows event, the database, table, operation, before and after
images by column name (index names ``@1``, ``@2``... when COLUMN_NAME is not logged), the
event's offset and the transaction's GTID.

:class:`RowDecoder` follows a stream of event records, keeps the table maps in force (a typed
:class:`TableMap` and a :class:`RowsCodec` per table id) and the current transaction's GTID,
and turns each rows event into :class:`RowChange` objects.
"""

from __future__ import annotations

from ..records import factory, record

from ..construct_ext.errors import LayoutError
from ..envelope import convert_error
from ..errors import BinlogError, FormatError
from ..mysql.codes import (GTID_KINDS, GTID_LOG_EVENT, GTID_TAGGED_LOG_EVENT, MARIA_GTID_EVENT,
                           ROWS_KINDS, TABLE_MAP_EVENT)
from ..mysql.flavor import checksum_length
from ..mysql.framing import HEADER_SIZE
from ..serial.value_forms import jsonable
from ..values.rows import RowsCodec, operation_of
from .table_map import table_map_from_event



@record
class RowChange:
    database: str | bytes
    table: str | bytes
    operation: str                  # insert | update | delete
    row_index: int                  # the row's position in its event
    before: dict | None
    after: dict | None
    offset: int                     # the rows event's offset in its file
    gtid: str | None = None
    timestamp: int | None = None
    file: str | None = None
    signedness_known: bool = True   # False: no SIGNEDNESS metadata; integers read as signed
    columns: list = factory(list)  # the column names, in table order

    def to_dict(self, binary: str = "hex") -> dict:
        return {"file": self.file, "offset": self.offset, "gtid": self.gtid,
                "timestamp": self.timestamp, "database": jsonable(self.database, binary),
                "table": jsonable(self.table, binary), "operation": self.operation,
                "row_index": self.row_index,
                "before": None if self.before is None else
                {k: jsonable(v, binary) for k, v in self.before.items()},
                "after": None if self.after is None else
                {k: jsonable(v, binary) for k, v in self.after.items()},
                **({} if self.signedness_known else {"signedness_known": False})}


def column_names(tm) -> list:
    return [c.name if isinstance(c.name, str) and c.name else f"@{c.index + 1}"
            for c in tm.columns]


def gtid_of(rec) -> str | None:
    """The GTID a GTID-type event starts (MySQL ``uuid:gno``, MariaDB ``domain-server-seq``)."""
    body = rec.value["body"] if rec.value is not None else None
    if not isinstance(body, dict):
        return None
    kind = rec.kind
    if kind == GTID_LOG_EVENT or kind == GTID_TAGGED_LOG_EVENT:
        sid = body.get("sid") or body.get("uuid")
        gno = body.get("gno")
        tag = body.get("tag")
        if sid is None or gno is None:
            return None
        sid = sid if isinstance(sid, str) else bytes(sid).hex()
        return f"{sid}:{tag}:{gno}" if tag else f"{sid}:{gno}"
    if kind == MARIA_GTID_EVENT:
        seq = body.get("seq_no")
        dom = body.get("domain_id")
        if seq is None or dom is None:
            return None
        return f"{dom}-{rec.value['header']['server_id']}-{seq}"
    return None


class RowDecoder:
    """Row changes of the rows events in a stream of :class:`EventRecord` (inner events of
    transaction payloads included)."""

    def __init__(self, file: str | None = None):
        self.file = file
        self.table_maps: dict = {}
        self.codecs: dict = {}
        self.gtid: str | None = None
        self._seen: dict = {}  # TABLE_MAP bytes (sans header) -> (TableMap, RowsCodec)
        self._key_of: dict = {}  # table id -> its TABLE_MAP's key in _seen

    def feed(self, rec):
        """Row changes of one record (and of the events inside it); updates the state."""
        out = []
        for r in [rec] + list(rec.inner or ()):
            out.extend(self.feed_one(r))
        return out

    def codec_of(self, rec):
        """The RowsCodec of a rows event's table (None when no TABLE_MAP came before it)."""
        tid = rec.value["body"]["table_id"]
        codec = self.codecs.get(tid)
        if codec is None:
            tm = self.table_maps.get(tid)
            if tm is None:
                return None
            codec = self.codecs[tid] = RowsCodec(tm, column_names(tm))
            key = self._key_of.get(tid)
            if key is not None and key in self._seen:
                self._seen[key] = (tm, codec)
        return codec

    def rows_of(self, rec):
        """The decoded rows of one rows event (list of dicts, or (before, after) pairs), with
        the typed table map it was decoded through."""
        body = rec.value["body"]
        codec = self.codec_of(rec)
        if codec is None:
            raise FormatError(f"rows event for table id {body['table_id']} with no TABLE_MAP "
                              "before it", offset=rec.offset, path="body.table_id")
        tm = self.table_maps[body["table_id"]]
        try:
            return codec.decode(body, rec.kind), tm
        except LayoutError as e:
            err = convert_error(e, rec.offset)
            err.path = "body.rows" + (f" ({err.path})" if err.path else "")
            raise err from None
        except Exception as e:  # noqa: BLE001 - only typed errors leave the package
            err = FormatError(f"{type(e).__name__}: {e}", offset=rec.offset, path="body.rows")
            err.original = e  # a crash, kept for bug reports (see envelope.convert_error)
            raise err from None

    def encode_rows(self, rec, rows) -> bytes:
        tm = self.table_maps[rec.value["body"]["table_id"]]
        return self.codecs[tm.table_id].encode(rows, rec.value["body"], rec.kind)

    def feed_one(self, rec):
        """Row changes of one record alone (not the events inside it); updates the state
        (table maps, GTID) from it."""
        kind = rec.kind
        if kind == TABLE_MAP_EVENT:
            # servers write the same TABLE_MAP before every transaction on a table: the typed
            # model and the row codec are built once per distinct map (and, from a lazy
            # reader, the event is not even parsed again)
            key = (rec.raw[HEADER_SIZE:len(rec.raw) - checksum_length(kind, None, rec.ctx)],
                   rec.ctx.flavor, rec.ctx.server_version)
            hit = self._seen.get(key)
            if hit is None:
                if rec.value is None:
                    return []
                tm = table_map_from_event(rec.value, rec.ctx)
                hit = (tm, None)
                if len(self._seen) > 4096:
                    self._seen.clear()
                self._seen[key] = hit
            tm = hit[0]
            self.table_maps[tm.table_id] = tm
            if hit[1] is None:
                self.codecs.pop(tm.table_id, None)
            else:
                self.codecs[tm.table_id] = hit[1]
            self._key_of[tm.table_id] = key
            return []
        if kind not in ROWS_KINDS and kind not in GTID_KINDS:
            return []
        if rec.value is None:
            return []
        g = gtid_of(rec)
        if g is not None:
            self.gtid = g
            return []
        if kind not in ROWS_KINDS:
            return []
        rows, tm = self.rows_of(rec)
        names = column_names(tm)
        op = operation_of(kind)
        signed_known = tm.row_metadata != "none" or not any(
            c.type in ("TINY", "SHORT", "INT24", "LONG", "LONGLONG") for c in tm.columns)
        ts = rec.value["header"]["timestamp"]
        out = []
        for i, row in enumerate(rows):
            before, after = (row if op == "update" else
                             (row, None) if op == "delete" else (None, row))
            out.append(RowChange(
                tm.database, tm.table, op, i, _named(before), _named(after),
                rec.offset if rec.parent_offset is None else rec.parent_offset, self.gtid, ts,
                self.file, signed_known, names))
        return out



def _named(image):
    """An image as the row change shows it: column name -> value (spare-bit keys dropped)."""
    if image is None or ("_null_bits" not in image and "_value_options" not in image):
        return image
    return {k: v for k, v in image.items()
            if k not in ("_null_bits", "_value_options", "_partial_json_bits")}


__all__ = ["RowChange", "RowDecoder", "gtid_of", "BinlogError"]



"""Row changes: per row of a rows event, the database, table, operation, before and after
images by column name (index names ``@1``, ``@2``... when COLUMN_NAME is not logged), the
event's offset and the transaction's GTID.

:class:`RowDecoder` follows a stream of event records, keeps the table maps in force (a typed
:class:`TableMap` and a :class:`RowsCodec` per table id) and the current transaction's GTID,
and turns each rows event into :class:`RowChange` objects.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import math
import struct
from dataclasses import dataclass, field

from ..construct_ext.errors import LayoutError
from ..envelope import convert_error
from ..errors import BinlogError, FormatError
from ..mysql.codes import GTID_KINDS, ROWS_KINDS, TABLE_MAP_EVENT
from ..values.codecs import Compressed, EnumValue, Geometry, SetValue
from ..values.rows import JsonDiff, RowsCodec, operation_of
from ..values import temporal
from .table_map import table_map_from_event



@dataclass
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
    columns: list = field(default_factory=list)  # the column names, in table order

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
    if kind in (33, 42):  # GTID_LOG, GTID_TAGGED_LOG
        sid = body.get("sid") or body.get("uuid")
        gno = body.get("gno")
        tag = body.get("tag")
        if sid is None or gno is None:
            return None
        sid = sid if isinstance(sid, str) else bytes(sid).hex()
        return f"{sid}:{tag}:{gno}" if tag else f"{sid}:{gno}"
    if kind == 162:       # MariaDB GTID
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

    def feed(self, rec):
        """Row changes of one record (and of the events inside it); updates the state."""
        out = []
        for r in [rec] + list(rec.inner or ()):
            out.extend(self._one(r))
        return out

    def rows_of(self, rec):
        """The decoded rows of one rows event (list of dicts, or (before, after) pairs), with
        the typed table map it was decoded through."""
        body = rec.value["body"]
        tid = body["table_id"]
        tm = self.table_maps.get(tid)
        if tm is None:
            raise FormatError(f"rows event for table id {tid} with no TABLE_MAP before it",
                              offset=rec.offset, path="body.table_id")
        codec = self.codecs.get(tid)
        if codec is None:
            codec = self.codecs[tid] = RowsCodec(tm, column_names(tm))
            key = getattr(self, "_key_of", {}).get(tid)
            if key is not None and key in self._seen:
                self._seen[key] = (tm, codec)
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

    def _one(self, rec):
        kind = rec.kind
        if kind == TABLE_MAP_EVENT:
            # servers write the same TABLE_MAP before every transaction on a table: the typed
            # model and the row codec are built once per distinct map (and, from a lazy
            # reader, the event is not even parsed again)
            key = (rec.raw[19:len(rec.raw) - (4 if rec.ctx.checksum else 0)],
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
            self._key_of = getattr(self, "_key_of", {})
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


def _float_json(v) -> dict:
    """A NaN or an infinity as JSON: the bytes it was stored with when it keeps them (a NaN's
    payload matters), else the double's, little-endian, in hex."""
    raw = getattr(v, "raw", None)
    return {"float": (bytes(raw) if raw is not None else struct.pack("<d", v)).hex()}


def _float_of(text: str) -> float:
    raw = bytes.fromhex(text)
    v = struct.unpack("<f" if len(raw) == 4 else "<d", raw)[0]
    if v != v:
        try:
            from ..values.codecs import NaNFloat  # keeps the stored bits
        except ImportError:
            return v
        return NaNFloat(v, raw)
    return v


def jsonable(v, binary: str = "hex"):
    """A JSON-safe rendering of a row value: decimals as positional strings, bytes as hex (or
    base64), temporal values in ISO form (zero dates as MySQL prints them: lossless)."""
    if isinstance(v, float) and not math.isfinite(v):  # JSON has no NaN nor infinities
        return _float_json(v)
    if isinstance(v, list) and v and all(isinstance(x, float) for x in v) and not all(
            math.isfinite(x) for x in v):  # a VECTOR with a NaN or an infinity
        return [jsonable(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, decimal.Decimal):
        # positional, every digit of the scale kept, as the server prints it (str() would
        # give "0E-30" or "-1E-9" for small values)
        return format(v, "f")
    if isinstance(v, (bytes, bytearray, memoryview)):
        raw = bytes(v)
        return {"base64": base64.b64encode(raw).decode()} if binary == "base64" \
            else {"hex": raw.hex()}
    if isinstance(v, (temporal.Date, temporal.DateTime, temporal.Time, temporal.Timestamp)):
        return v.isoformat()
    if isinstance(v, EnumValue):
        # the error value (index 0, shown as '') is the number 0: an ENUM may have '' as a
        # member too, and the two must build back to different bytes
        return v.name if v.name is not None and v.index else v.index
    if isinstance(v, SetValue):
        # names only when every set bit has one (a bit past the members is kept as a number)
        return list(v.names) if v.names is not None and len(v.names) == bin(
            v.bits).count("1") else v.bits
    if isinstance(v, Geometry):
        return {"srid": v.srid, "wkb": v.wkb.hex()}
    if isinstance(v, Compressed):
        return {"compressed": v.stored.hex(), "data": jsonable(v.data, binary)}
    if isinstance(v, JsonDiff):
        from ..values.json_binary import to_typed_json
        return {"json_diff": to_typed_json(v.ops)}  # a list of operations, or a document
        # holding them with the raw bytes when those are not in the canonical encoding
    if isinstance(v, (dict, list, tuple, dt.date, dt.timedelta)) or type(v).__module__.endswith(
            "json_binary"):
        from ..values.json_binary import to_typed_json
        return to_typed_json(v)  # a JSON document (or VECTOR's list of floats)
    to_jsonable = getattr(v, "to_jsonable", None)
    if callable(to_jsonable):
        return to_jsonable()
    try:
        from ..values.json_binary import to_jsonable as json_to_jsonable
        return json_to_jsonable(v)
    except (ImportError, TypeError, ValueError):
        return str(v)


__all__ = ["RowChange", "RowDecoder", "jsonable", "gtid_of", "BinlogError"]


def _parse_iso(col_type, text):
    """The temporal value of a column type from its ISO text (the inverse of isoformat)."""
    import re
    if col_type in ("DATE", "NEWDATE"):
        y, m, d = (int(x) for x in text.split("-"))
        return temporal.Date(y, m, d)
    if col_type in ("DATETIME", "DATETIME2"):
        m = re.fullmatch(r"(-?\d+)-(\d+)-(\d+) (\d+):(\d+):(\d+)(?:\.(\d{6,}))?", text)
        y, mo, d, h, mi, s, us = m.groups()
        return temporal.DateTime(int(y), int(mo), int(d), int(h), int(mi), int(s),
                                 int(us or 0))
    if col_type in ("TIME", "TIME2"):
        m = re.fullmatch(r"(-?)(\d+):(\d+):(\d+)(?:\.(\d{6,}))?", text)
        neg, h, mi, s, us = m.groups()
        return temporal.Time(bool(neg), int(h), int(mi), int(s), int(us or 0))
    if col_type in ("TIMESTAMP", "TIMESTAMP2"):
        import datetime as dt
        if text.startswith("0000-00-00"):
            return temporal.Timestamp(0, 0)
        m = re.fullmatch(r"(\d+-\d+-\d+ \d+:\d+:\d+)(?:\.(\d{6,}))?Z", text)
        t = dt.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S").replace(
            tzinfo=dt.timezone.utc)
        return temporal.Timestamp(int(t.timestamp()), int(m.group(2) or 0))
    raise ValueError(f"{col_type} is not temporal")


def from_jsonable(col, v):
    """The typed value of a column from its JSON-safe form (the inverse of :func:`jsonable`
    for that column's type), so that JSON rows build back to the same bytes."""
    if v is None:
        return None
    ty = col.type
    real = col.real_type or ty
    if ty.endswith("_COMPRESSED"):
        data = v["data"]
        data = bytes.fromhex(data["hex"]) if isinstance(data, dict) else data
        return Compressed(bytes.fromhex(v["compressed"]), data)
    if isinstance(v, dict) and set(v) == {"hex"}:
        return bytes.fromhex(v["hex"])
    if isinstance(v, dict) and set(v) == {"float"}:
        return _float_of(v["float"])
    if ty == "VECTOR" and isinstance(v, list):
        return [_float_of(x["float"]) if isinstance(x, dict) and set(x) == {"float"} else x
                for x in v]
    if isinstance(v, dict) and set(v) == {"base64"}:
        return base64.b64decode(v["base64"])
    if ty == "NEWDECIMAL":
        return decimal.Decimal(v)
    if ty in ("DATE", "NEWDATE", "DATETIME", "DATETIME2", "TIME", "TIME2", "TIMESTAMP",
              "TIMESTAMP2"):
        return _parse_iso(ty, v)
    if real == "ENUM":
        if isinstance(v, int):  # no member names logged, or the error value 0 ('')
            return EnumValue(v, "" if v == 0 and col.enum_values else None)
        names = col.enum_values or []
        return EnumValue(names.index(v) + 1 if v in names else 0, v)
    if real == "SET":
        if isinstance(v, int):
            return SetValue(v)
        names = col.set_values or []
        return SetValue(sum(1 << names.index(n) for n in v), tuple(v))
    if ty == "GEOMETRY":
        return Geometry(v["srid"], bytes.fromhex(v["wkb"]))
    if ty == "JSON":  # MySQL's binary JSON (MariaDB logs JSON as a BLOB)
        from ..values.json_binary import from_typed_json
        if isinstance(v, dict) and set(v) == {"json_diff"}:
            return JsonDiff(from_typed_json(v["json_diff"]))
        return from_typed_json(v)
    return v

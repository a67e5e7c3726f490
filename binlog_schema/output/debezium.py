"""``decode --format debezium``: one JSON object per row change, the ``payload`` of the value
of a Debezium MySQL (or MariaDB) connector's change event (debezium.io, "Debezium connector
for MySQL": create, update and delete events; the JSON converter without schemas):

    {"before": {...} | null, "after": {...} | null,
     "source": {"version", "connector": mysql|mariadb, "name", "ts_ms", "ts_us", "ts_ns",
                "snapshot": false, "db", "sequence", "table", "server_id", "gtid", "file",
                "pos", "row", "thread", "query"},
     "transaction": {"id", "total_order", "data_collection_order"},
     "op": c|u|d, "ts_ms", "ts_us", "ts_ns"}

``source.ts_*``: when the change was made: the commit timestamp of the transaction's GTID
event (MySQL 8.0.1+, microseconds), else the rows event's time (seconds), as the connector
takes them. The top-level ``ts_*`` are, for Debezium, the time the connector processed the
event; here the same as the source's (the output depends on the file alone). ``pos``: the
rows event's offset; ``row``: the row's index in it; ``thread``: the BEGIN's thread id
(null where there is none); ``gtid``: null without one; ``query``: null (Debezium's
``include.query`` is off by default); ``sequence``: this package's order key (see
docs/decode.md); ``transaction`` as with ``provide.transaction.metadata`` (``id``: the GTID, else
``FILE:OFFSET`` of the transaction's first event). Values: Debezium's default
representation per type (``time.precision.mode=adaptive_time_microseconds``,
``binary.handling.mode=bytes``, ``bigint.unsigned.handling.mode=long``), decimals with
``decimal.handling.mode=string``: docs/decode.md's table.
"""

from __future__ import annotations

import datetime as _dt

from ..construct_ext.jsontext import quote
from ..changes.row_change import row_places
from ..format.values.temporal import timestamp_text
from .change_records import (ChangeWriter, base64_text, double_text, float32_text, fraction,
                             generic_text, is_zero_date, json_text, key_texts, operation,
                             record_key, table_key)
from .maxwell import text_or_base64

_EPOCH_DAY = _dt.date(1970, 1, 1).toordinal()
_OPS = {"insert": "c", "update": "u", "delete": "d"}
NAME = "binlog-schema"  # the connector's logical name (Debezium's topic.prefix)


def _days(v) -> int | None:
    """Days since 1970-01-01 of a date; None for a date no calendar holds."""
    if is_zero_date(v.year, v.month, v.day):
        return None
    try:
        return _dt.date(v.year, v.month, v.day).toordinal() - _EPOCH_DAY
    except ValueError:
        return None


def converter_of(col, codec):
    """value (not None) -> its JSON text in Debezium's default form, for a column of this
    codec. A zero (or invalid) date: null when the column is nullable, else the epoch (as
    the connector does)."""
    ty = codec.type_name
    fsp = col.fsp or 0
    nullable = col.nullable is not False
    zero = "null" if nullable else "0"
    if codec.fixed is not None:
        if codec.fixed[1] == "float":
            return float32_text if ty == "FLOAT" else double_text
        if ty == "LONGLONG" and col.unsigned:  # bigint.unsigned.handling.mode=long
            return lambda v: int.__repr__(v - (1 << 64) if v >= 1 << 63 else v)
        return int.__repr__
    if ty in ("INT24", "YEAR"):
        return int.__repr__
    if ty == "BIT":
        bits = col.bits or 0
        if bits == 1:
            return lambda v: "true" if v else "false"
        size = (bits + 7) // 8
        return lambda v: base64_text(v.to_bytes(size, "little"))  # io.debezium.data.Bits
    if ty == "NEWDECIMAL":  # decimal.handling.mode=string
        return lambda v: '"' + format(v, "f") + '"'
    if ty in ("DATE", "NEWDATE"):
        def date_json(v):  # io.debezium.time.Date: days since the epoch
            days = _days(v)
            return zero if days is None else int.__repr__(days)
        return date_json
    if ty in ("DATETIME", "DATETIME2"):
        divisor = 1000 if fsp <= 3 else 1  # Timestamp (ms) or MicroTimestamp (us)

        def datetime_json(v):
            days = _days(v)
            if days is None:
                return zero
            us = ((days * 86400 + v.hour * 3600 + v.minute * 60 + v.second) * 1000000 +
                  v.microsecond)
            return int.__repr__(us // divisor)
        return datetime_json
    if ty in ("TIMESTAMP", "TIMESTAMP2"):
        epoch = '"1970-01-01T00:00:00' + fraction(0, fsp) + 'Z"'

        def timestamp_json(v):  # io.debezium.time.ZonedTimestamp: ISO 8601 in UTC
            if not v.seconds and not v.microsecond:
                return "null" if nullable else epoch
            text = timestamp_text(v.seconds, 0)
            return '"' + text[:10] + "T" + text[11:-1] + fraction(v.microsecond, fsp) + 'Z"'
        return timestamp_json
    if ty in ("TIME", "TIME2"):
        def time_json(v):  # io.debezium.time.MicroTime
            us = (v.hour * 3600 + v.minute * 60 + v.second) * 1000000 + v.microsecond
            return int.__repr__(-us if v.negative else us)
        return time_json
    if ty == "ENUM":  # io.debezium.data.Enum
        def enum_json(v):
            if not v.index:
                return '""'
            return quote(str(v.name)) if v.name is not None else quote(str(v.index))
        return enum_json
    if ty == "SET":  # io.debezium.data.EnumSet: the members, comma-separated
        return lambda v: quote(",".join(str(n) for n in v.names)) if v.names is not None \
            else quote(str(v.bits))
    if ty == "JSON":  # io.debezium.data.Json: the document's text
        def json_json(v):
            if type(v) is str or isinstance(v, (bytes, bytearray)):
                return text_or_base64(v)
            try:
                return quote(json_text(v))
            except TypeError:
                return generic_text(v)
        return json_json
    if ty == "GEOMETRY":  # io.debezium.data.geometry.Geometry
        return lambda v: '{"wkb":' + base64_text(v.wkb) + ',"srid":' + int.__repr__(
            v.srid) + "}"
    if ty == "VECTOR":  # io.debezium.data.FloatVector
        return lambda v: "[" + ",".join(float32_text(x) for x in v) + "]"
    if ty in ("VARCHAR_COMPRESSED", "BLOB_COMPRESSED"):
        return lambda v: text_or_base64(v.data)
    return text_or_base64  # text; binary values as base64 (what the JSON converter writes)


class DebeziumWriter(ChangeWriter):
    converter_of = staticmethod(converter_of)

    def __init__(self, path, add, decoder):
        super().__init__(path, add, decoder)
        from .. import __version__
        self.version = quote(f"{NAME} {__version__}")
        self.file_json = quote(self.file)
        self.connectors: dict = {}

    def rows(self, rec, rows, tm, codec, tx, offset, payload) -> None:
        shape = self.shape(tm, codec)
        op = _OPS[operation(rec.kind)]
        header = rec.value["header"]
        # (the GTID event's commit time in GTID mode, as the connector takes it)
        us = tx.commit_us if tx.commit_us and tx.gtid is not None else \
            header["timestamp"] * 1000000
        ts = f'"ts_ms":{us // 1000},"ts_us":{us},"ts_ns":{us * 1000}'
        flavor = tm.flavor or "mysql"
        connector = "mariadb" if flavor.startswith("mariadb") else "mysql"
        db, table = quote(_text(tm.database)), quote(_text(tm.table))
        source_head = (f'"source":{{"version":{self.version},"connector":"{connector}",'
                       f'"name":"{NAME}",{ts},"snapshot":false,"db":{db},"sequence":"')
        source_tail = (f'","table":{table},"server_id":{header["server_id"]},'
                       f'"gtid":{"null" if tx.gtid is None else quote(tx.gtid)},'
                       f'"file":{self.file_json},"pos":{offset},"row":')
        thread = "null" if tx.thread_id is None else tx.thread_id
        tx_id = quote(tx.gtid if tx.gtid is not None else f"{self.file}:{tx.begin}")
        end = f'"op":"{op}",{ts}}}'
        obj = shape.object
        add, keyed = self.add, self.keyed
        key_head = table_key(tm.database, tm.table) if keyed else None
        for i, row in zip(row_places(rec, len(rows)), rows):
            if op == "u":
                images = f'{{"before":{obj(row[0])},"after":{obj(row[1])},'
            elif op == "d":
                images = f'{{"before":{obj(row)},"after":null,'
            else:
                images = f'{{"before":null,"after":{obj(row)},'
            total, order = tx.count(tm.database, tm.table)
            ok = self.order_key(offset, payload, i)
            line = (f'{images}{source_head}{ok}{source_tail}{i},'
                    f'"thread":{thread},"query":null}},"transaction":{{"id":{tx_id},'
                    f'"total_order":{total},"data_collection_order":{order}}},{end}')
            if keyed:
                add(line, record_key(key_head, key_texts(
                    shape, *((row[1], row[0]) if op == "u" else (row,)))), ok)
            else:
                add(line)


def _text(v) -> str:
    return v if isinstance(v, str) else bytes(v).decode("utf-8", "replace")

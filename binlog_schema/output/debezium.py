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

from ..construct_ext.jsontext import quote
from ..changes.row_change import row_places
from ..format.forms import family
from ..format.forms.json_safe import generic_text
from ..format.forms.strings import text_or_base64
from .change_records import ChangeWriter, key_texts, operation, record_key, table_key

_OPS = {"insert": "c", "update": "u", "delete": "d"}
NAME = "binlog-schema"  # the connector's logical name (Debezium's topic.prefix)


def converter_of(col, codec):
    """value (not None) -> its JSON text in Debezium's default form, for a column of this
    codec: its column-type family's (:mod:`binlog_schema.format.forms`); text (binary values
    in base64) for a type of none."""
    fam = family(codec.type_name)
    if fam is None:
        return text_or_base64(generic_text)
    return fam.debezium(col, codec, generic_text)


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

"""``decode --format maxwell``: one JSON object per row change, as Maxwell's daemon writes it
(zendesk/maxwell, docs/dataformat.md and config.md; field order of its ``RowMap.toJSON``),
with every output option whose value a binlog file gives switched on.

    {"database", "table", "type": insert|update|delete, "ts": the rows event's time (s),
     "xid": the transaction's XID (every row of it), "commit": true (its last row only),
     "position": "FILE:OFFSET" (the rows event), "gtid" (when the transaction has one),
     "server_id", "thread_id" (the BEGIN's, when there is one), "schema_id" (the table's
     schema version, when the decoder has a schema history), "order_key" (this package's,
     see docs/decode.md), "primary_key": [values in key order], "primary_key_columns": [names]
     (both when the key is known: FULL metadata or the schema), "data": {...},
     "old": {the changed columns' values before} (updates)}

Values per type as Maxwell's column definitions write them (see docs/decode.md's table). The
XID is on every row of a transaction and is known at its commit: a transaction's records are
kept until then (:class:`~binlog_schema.changes.transactions.Pending`: bounded memory, the
rest in a temporary file).
"""

from __future__ import annotations

from operator import concat

from ..construct_ext.jsontext import dumps, quote
from ..changes.row_change import row_places
from ..changes.transactions import Pending
from ..format.forms import family
from ..format.forms.members import name_json
from ..format.forms.json_safe import generic_text
from ..format.forms.strings import text_or_base64
from .change_records import ChangeWriter, object_of, operation, record_key, table_key


def converter_of(col, codec):
    """value (not None) -> its JSON text in Maxwell's form, for a column of this codec: its
    column-type family's (:mod:`binlog_schema.format.forms`); text (binary values in base64)
    for a type of none."""
    fam = family(codec.type_name)
    if fam is None:
        return text_or_base64(generic_text)
    return fam.maxwell(col, codec, generic_text)


class MaxwellWriter(ChangeWriter):
    converter_of = staticmethod(converter_of)

    def __init__(self, path, add, decoder, limit: int = 16 << 20):
        super().__init__(path, add, decoder)
        self.pending = Pending(limit)
        self.tx = None
        self.position = '"' + self.file.replace("\\", "\\\\").replace('"', '\\"') + ":"

    def rows(self, rec, rows, tm, codec, tx, offset, payload) -> None:
        if tx is not self.tx:  # (a transaction whose end was not seen: written as it is)
            self._flush(None)
            self.tx = tx
        shape = self.shape(tm, codec)
        kind = rec.kind
        op = operation(kind)
        header = rec.value["header"]
        head = (f'{{"database":{name_json(tm.database)},"table":{name_json(tm.table)},'
                f'"type":"{op}","ts":{header["timestamp"]}')
        middle = f',"position":{self.position}{offset}"'
        if tx.gtid is not None:
            middle += f',"gtid":{quote(tx.gtid)}'
        middle += f',"server_id":{header["server_id"]}'
        if tx.thread_id is not None:
            middle += f',"thread_id":{tx.thread_id}'
        version = self.schema_version(tm)
        if version is not None:
            middle += f',"schema_id":{version}'
        keys = shape.key_names
        add = self.pending.add
        table = table_key(tm.database, tm.table) if self.keyed else None
        for i, row in zip(row_places(rec, len(rows)), rows):
            tx.count(tm.database, tm.table)
            if op == "update":
                bk, bn, bf = shape.values(row[0])
                ak, an, af = shape.values(row[1])
                bt, at = bf(row[0]), af(row[1])
                if bk == ak:  # (FULL images: the same columns before and after)
                    body = ',"data":{' + ",".join(map(concat, an, at)) + "}"
                    old = [n + b for n, a, b in zip(an, at, bt) if a != b]
                    if old:
                        body += ',"old":{' + ",".join(old) + "}"
                    data = dict(zip(ak, at)) if keys is not None else None
                else:
                    data = dict(zip(ak, at))
                    old = {}
                    for k, v in zip(bk, bt):
                        if k not in data:  # MINIMAL: the before image names the row
                            data[k] = v
                        elif data[k] != v:
                            old[k] = v
                    body = ',"data":' + object_of(data)
                    if old:
                        body += ',"old":' + object_of(old)
            else:
                body = ',"data":' + shape.object(row)
                data = None
            key = ""
            values = None
            if keys is not None:
                if data is None or op != "update":
                    conv = shape.converters
                    values = [("null" if row.get(k) is None else conv[k](row[k]))
                              if k in row else "null" for k in keys]
                else:
                    values = [data.get(k, "null") for k in keys]
                key = (',"primary_key":[' + ",".join(values) + '],"primary_key_columns":' +
                       dumps(keys))
            ok = self.order_key(offset, payload, i)
            tail = f'{middle},"order_key":"{ok}"{key}{body}}}'
            if self.keyed:   # (the record key and order key ride after the tail, each after
                # a newline, which JSON text never holds: see _flush)
                tail += "\n" + record_key(table, values) + "\n" + ok
            add(head, tail)

    def end(self, tx) -> None:
        if tx is self.tx:
            self._flush(tx)
            self.tx = None

    def finish(self) -> None:
        self._flush(None)

    def _flush(self, tx) -> None:
        """Write the kept records: with the XID of ``tx`` and its commit flag on the last
        (``tx`` None: a transaction whose end was not seen, written without them)."""
        if not len(self.pending):
            return
        add = self.add
        xid = f',"xid":{tx.xid}' if tx is not None and tx.xid is not None else ""
        commit = xid + ',"commit":true' if tx is not None and tx.committed else xid
        if self.keyed:
            for head, tail, last in self.pending.drain():
                tail, key, ok = tail.split("\n")
                add(head + (commit if last else xid) + tail, key, ok)
            return
        for head, tail, last in self.pending.drain():
            add(head + (commit if last else xid) + tail)

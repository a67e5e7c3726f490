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

import struct
from operator import concat

from ..construct_ext.jsontext import dumps, quote
from ..changes.row_change import row_places
from ..changes.transactions import Pending
from ..format.values.temporal import date_text, datetime_text, time_text, timestamp_text
from .change_records import (ChangeWriter, base64_text, double_text, float32_text, fraction,
                             generic_text, json_text, object_of, operation, record_key,
                             table_key)


def _name(v) -> str:
    return quote(v if isinstance(v, str) else bytes(v).decode("utf-8", "replace"))


def text_or_base64(v) -> str:
    """Text as a JSON string; binary values (and text that does not decode) in base64."""
    if type(v) is str:
        return quote(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return base64_text(v)
    return generic_text(v)


def converter_of(col, codec):
    """value (not None) -> its JSON text in Maxwell's form, for a column of this codec."""
    ty = codec.type_name
    fsp = col.fsp or 0
    if codec.fixed is not None:
        if codec.fixed[1] == "float":
            return float32_text if ty == "FLOAT" else double_text
        return int.__repr__
    if ty in ("INT24", "BIT", "YEAR"):
        return int.__repr__
    if ty == "NEWDECIMAL":
        return lambda v: format(v, "f")  # a JSON number, every digit of the scale
    if ty in ("DATE", "NEWDATE"):
        return lambda v: '"' + date_text(v.year, v.month, v.day) + '"'
    if ty in ("DATETIME", "DATETIME2"):
        return lambda v: '"' + datetime_text(v.year, v.month, v.day, v.hour, v.minute,
                                             v.second, 0) + fraction(v.microsecond, fsp) + '"'
    if ty in ("TIMESTAMP", "TIMESTAMP2"):
        def timestamp_json(v):  # UTC; the zero timestamp as MySQL shows it
            if not v.seconds and not v.microsecond:
                return '"0000-00-00 00:00:00' + fraction(0, fsp) + '"'
            return '"' + timestamp_text(v.seconds, 0)[:-1] + fraction(v.microsecond, fsp) + '"'
        return timestamp_json
    if ty in ("TIME", "TIME2"):
        return lambda v: '"' + time_text(v.negative, v.hour, v.minute, v.second, 0) + \
            fraction(v.microsecond, fsp) + '"'
    if ty == "ENUM":
        def enum_json(v):
            if not v.index:
                return '""'
            return _name(v.name) if v.name is not None else int.__repr__(v.index)
        return enum_json
    if ty == "SET":  # a JSON array of the members
        return lambda v: dumps(list(v.names)) if v.names is not None else int.__repr__(v.bits)
    if ty == "JSON":
        def json_json(v):  # the document itself (MySQL's binary JSON; MariaDB's is text)
            if type(v) is str or isinstance(v, (bytes, bytearray)):
                return text_or_base64(v)
            try:
                return json_text(v)
            except TypeError:
                return generic_text(v)
        return json_json
    if ty == "GEOMETRY":
        def geometry_json(v):
            try:
                return quote(wkt(v.wkb))
            except (ValueError, struct.error, IndexError):
                return base64_text(v.wkb)
        return geometry_json
    if ty == "VECTOR":
        return lambda v: "[" + ",".join(float32_text(x) for x in v) + "]"
    if ty in ("VARCHAR_COMPRESSED", "BLOB_COMPRESSED"):
        return lambda v: text_or_base64(v.data)
    return text_or_base64


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
        head = (f'{{"database":{_name(tm.database)},"table":{_name(tm.table)},'
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


# ------------------------------------------------------------------------ geometry as WKT


_KINDS = {1: "POINT", 2: "LINESTRING", 3: "POLYGON", 4: "MULTIPOINT", 5: "MULTILINESTRING",
          6: "MULTIPOLYGON", 7: "GEOMETRYCOLLECTION"}


def _num(x: float) -> str:
    text = repr(x)
    return text[:-2] if text.endswith(".0") else text


def wkt(wkb: bytes) -> str:
    """Well-known binary as well-known text, as JTS's ``Geometry.toText`` writes it
    (``POINT (1 2)``, ``MULTIPOINT ((0 0), (1 1))``, ``... EMPTY``)."""
    text, pos = _wkt(bytes(wkb), 0)
    if pos != len(wkb):
        raise ValueError("bytes after the geometry")
    return text


def _wkt(data: bytes, pos: int):
    order = "<" if data[pos] == 1 else ">"
    name = _KINDS[struct.unpack_from(order + "I", data, pos + 1)[0]]
    pos += 5

    def count():
        nonlocal pos
        n = struct.unpack_from(order + "I", data, pos)[0]
        pos += 4
        if n > len(data):
            raise ValueError("a count past the data")
        return n

    def points(n):
        nonlocal pos
        out = []
        for _ in range(n):
            x, y = struct.unpack_from(order + "dd", data, pos)
            pos += 16
            out.append(f"{_num(x)} {_num(y)}")
        return out

    if name == "POINT":
        x, y = struct.unpack_from(order + "dd", data, pos)
        pos += 16
        if x != x and y != y:
            return "POINT EMPTY", pos
        return f"POINT ({_num(x)} {_num(y)})", pos
    if name == "LINESTRING":
        pts = points(count())
        return (f"LINESTRING ({', '.join(pts)})" if pts else "LINESTRING EMPTY"), pos
    if name == "POLYGON":
        rings = ["(" + ", ".join(points(count())) + ")" for _ in range(count())]
        return (f"POLYGON ({', '.join(rings)})" if rings else "POLYGON EMPTY"), pos
    parts = []
    for _ in range(count()):
        part, pos = _wkt(data, pos)
        parts.append(part)
    if not parts:
        return f"{name} EMPTY", pos
    if name == "GEOMETRYCOLLECTION":
        return f"{name} ({', '.join(parts)})", pos
    # MULTI*: the members without their own names
    inner = [p[p.index(" ") + 1:] for p in parts]
    return f"{name} ({', '.join(inner)})", pos

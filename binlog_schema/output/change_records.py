"""Change records: one JSON line per row change, in the shape a downstream system reads
(``decode --format maxwell`` and ``--format debezium``, :mod:`.maxwell` and :mod:`.debezium`).

The loop (:func:`write_change_records`) follows a file's events with the row decoder (table
maps, the schema when it has one) and :class:`~binlog_schema.changes.transactions.Transactions`
(GTID or BEGIN, XID, commit), and hands each rows event's decoded rows to the format's writer
with its transaction and the order key of each row. A format writes a row's values by code
made once per table shape and set of columns (:func:`compile_object`, converters chosen per
column once), as the JSON Lines writer does.
"""

from __future__ import annotations

import os

from ..construct_ext.jsontext import quote
from ..construct_ext.run import execute
from ..changes.row_change import column_names
from ..changes.transactions import file_sequence, order_key, transaction_events
from ..format.facts.codes import DELETE_KINDS, UPDATE_KINDS
from ..format.values.image import IMAGE_KEYS  # the images' keys that are not columns


class TableShape:
    """What a format needs of one table (one row codec): the column names, the key columns,
    a converter per column (value -> JSON text; None is written ``null`` before it is
    asked) and the writer of an image's object per set of columns."""

    def __init__(self, tm, codec, converter_of, primary_key=None):
        self.table_map = tm
        self.names = column_names(tm)
        # the key's column names; None: not known
        self.key_names = None if primary_key is None else [
            self.names[k["column"]] if isinstance(k, dict) else k for k in primary_key
            if not isinstance(k, dict) or k["column"] < len(self.names)]
        self.converters = {name: converter_of(col, c)
                           for name, col, c in zip(codec.keys, tm.columns, codec.codecs)}
        self.objects: dict = {}
        self.value_writers: dict = {}

    def object(self, image) -> str:
        """An image (dict by column name) as a JSON object."""
        keys = tuple(image)
        write = self.objects.get(keys)
        if write is None:
            write = self.objects[keys] = compile_object(keys, self.converters)
        return write(image)

    def values(self, image):
        """(the image's column names, their ``"name":`` JSON texts, ``row -> tuple of value
        texts``), made once per set of columns."""
        keys = tuple(image)
        hit = self.value_writers.get(keys)
        if hit is None:
            shown = tuple(k for k in keys if k not in IMAGE_KEYS)
            hit = self.value_writers[keys] = (shown, [quote(str(k)) + ":" for k in shown],
                                              compile_values(shown, self.converters))
        return hit

    def texts(self, image) -> dict:
        """An image's values as JSON texts, by column name (the spare keys left out)."""
        conv = self.converters
        return {k: "null" if v is None else conv[k](v) for k, v in image.items()
                if k not in IMAGE_KEYS}


def compile_object(keys, converters):
    """``image -> JSON object text`` for images of these keys: one expression, a converter
    per column (chosen once), ``null`` for None."""
    ns, lines, parts = {}, ["def image(row):"], []
    for j, k in enumerate(keys):
        if k in IMAGE_KEYS:
            continue
        ns[f"C{j}"] = converters[k]
        lines.append(f"    v = row[{k!r}]")
        lines.append(f"    a{j} = 'null' if v is None else C{j}(v)")
        parts.append((quote(str(k)) + ":", f"a{j}"))
    if not parts:
        lines.append("    return '{}'")
    else:
        pieces = []
        for n, (name, var) in enumerate(parts):
            pieces.append(repr(("{" if n == 0 else ",") + name))
            pieces.append(var)
        lines.append("    return " + " + ".join(pieces) + " + '}'")
    return execute("\n".join(lines), "<change record image>", ns)["image"]


def compile_values(keys, converters):
    """``image -> tuple of the JSON texts of its values`` for images of these keys."""
    ns, items = {}, []
    for j, k in enumerate(keys):
        ns[f"C{j}"] = converters[k]
        items.append(f"('null' if row[{k!r}] is None else C{j}(row[{k!r}]))")
    source = "def values(row):\n    return (" + ", ".join(items) + ("," if len(items) == 1
                                                                   else "") + ")"
    return execute(source, "<change record values>", ns)["values"]


def object_of(texts: dict) -> str:
    """A dict of JSON texts as a JSON object."""
    return "{" + ",".join(quote(str(k)) + ":" + v for k, v in texts.items()) + "}"


# ------------------------------------------------------------------------ the loop


class ChangeWriter:
    """The base of a format's writer: per rows event, :meth:`rows` gets the decoded rows with
    their table's shape and transaction; :meth:`end` a transaction that ended; :meth:`finish`
    the end of the stream."""

    def __init__(self, path, add, decoder):
        self.path = str(path)
        self.file = os.path.basename(self.path)
        self.sequence = file_sequence(self.path)
        self.add = add
        self.decoder = decoder
        self.shapes: dict = {}  # id(codec) -> (codec, TableShape)

    converter_of = None  # (column, codec) -> converter: the format's
    # a sink's writer (binlog_schema/wire/sinks/messages.py): each record is given to ``add`` with
    # its record key and order key, ``add(line, key, order_key)``
    keyed = False

    def shape(self, tm, codec) -> TableShape:
        hit = self.shapes.get(id(codec))
        if hit is not None and hit[0] is codec:
            return hit[1]
        if len(self.shapes) > 4096:
            self.shapes.clear()
        shape = TableShape(tm, codec, self.converter_of, self.primary_key_of(tm))
        self.shapes[id(codec)] = (codec, shape)
        return shape

    def primary_key_of(self, tm):
        """The key columns (the TABLE_MAP's ``{"column", "prefix"}``, or names): the
        TABLE_MAP's (FULL metadata; a map the schema history named has the history's), else
        the schema history's table's; [] for a table known to have none; None when nothing
        says (MINIMAL metadata and no history)."""
        if tm.primary_key:
            return tm.primary_key
        if tm.row_metadata == "full":
            return []
        return self.decoder.schema_key(tm)

    def schema_version(self, tm):
        return self.decoder.schema_version(tm)

    def rows(self, rec, rows, tm, codec, tx, offset, payload) -> None:
        raise NotImplementedError

    def end(self, tx) -> None:
        pass

    def finish(self) -> None:
        pass

    def order_key(self, offset, payload, row) -> str:
        return order_key(self.sequence, offset, payload, row)


def table_key(database, table) -> str:
    """The start of the record keys of a table's records (:func:`record_key`)."""
    return "[" + quote(_text(database)) + "," + quote(_text(table)) + ","


def record_key(table, key_texts) -> str:
    """A record's key, for a broker's partitioning: its table (``table``: its
    :func:`table_key`) and its primary key's values (JSON texts, as the format writes them,
    in key order) as one JSON array, ``["shop","orders",[1]]``; ``[]`` for a table without a
    key, ``null`` when the key is not known (MINIMAL metadata without a schema history)."""
    return table + ("null]" if key_texts is None else "[" + ",".join(key_texts) + "]]")


def key_texts(shape: TableShape, image, before=None):
    """The JSON texts of an image's key values (``before``: an update's before image, for
    the columns a MINIMAL after image leaves out); None when the key is not known."""
    keys = shape.key_names
    if keys is None:
        return None
    conv = shape.converters
    out = []
    for k in keys:
        v = image.get(k) if k in image or before is None else before.get(k)
        out.append("null" if v is None else conv[k](v))
    return out


def _text(v) -> str:
    return v if isinstance(v, str) else bytes(v).decode("utf-8", "replace")


def operation(kind) -> str:
    return "update" if kind in UPDATE_KINDS else "delete" if kind in DELETE_KINDS else \
        "insert"


def write_change_records(path, records, writer: ChangeWriter, on_error=None) -> None:
    """The change records of a stream of event records (:class:`BinlogReader`'s), through
    ``writer``, as :func:`~binlog_schema.changes.transactions.transaction_events` follows them
    (the one loop, shared with the Python API). A record with an error: ``on_error(record)``,
    else the error is raised. A rows event whose rows cannot be decoded is passed over when
    the writer's row decoder reports it (its ``on_undecoded``, as the JSON Lines carry its
    ``rows_error`` and go on), else its error is raised."""
    codecs = writer.decoder.codecs
    for rec, rows, tm, tx, offset, payload in transaction_events(records, writer.decoder,
                                                                  on_error):
        if rec is None:
            writer.end(tx)
        else:
            writer.rows(rec, rows, tm, codecs[rec.value["body"]["table_id"]], tx, offset,
                        payload)
    writer.finish()

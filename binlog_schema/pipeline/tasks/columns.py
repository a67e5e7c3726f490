"""The ``arrow`` engine's rows, built column by column: Arrow record batches of ``events``,
``row_changes`` and ``errors`` made from Python lists per column, never a Python object per
value in Spark's form.

The bulk is the row images (``map<column, Value>``). The images of a batch that name the
same columns in the same order (every full image of one table shape) form a group; a
group's values are taken column by column (one ``zip`` over its dicts, in C), and a column,
whose values are of one Python type (and NULLs), becomes the arrays of the ``Value`` fields
it fills in one call: ints -> ``long`` by ``pa.array``, ``Decimal`` -> ``decimal`` checked by
Arrow, temporal values by one pass computing days or microseconds, ENUM/SET as index/bits and
names... Each field is then laid out column after column and taken into the maps' row order
by one index for all fields, made by vector operations (which image, which of its columns,
its place in its group). A column of mixed types, and the images of a batch whose columns
vary (minimal row images), are converted as one list grouped by Python type (type codes in
an int8 array, each group converted at once and scattered back to its positions). A
``Value`` is null exactly when it fills no field (a NULL). Per-event facts of a rows event
(file, offset, GTID, table...) are kept once per event and repeated by ``take``.

Which field holds a value is decided in one place, :func:`spark_values.value_fields`: values
whose type has no group converter here (and values a converter declines, such as integers
beyond 64 bits or decimals beyond DECIMAL(38,18)) go through it one by one.
"""

from __future__ import annotations

import decimal
from collections import defaultdict
from itertools import accumulate, chain, repeat
from operator import attrgetter, itemgetter

import pyarrow as pa
import pyarrow.compute as pc

from ...values import temporal
from ...values.codecs import Compressed, EnumValue, Geometry, SetValue
from . import spark_values
from .spark_values import (BINARY, DATE, DATETIME, DECIMAL, DOUBLE, JSON, LONG, STRING, TEXT,
                           TIME, TIMESTAMP, JsonDoc)
from .split import STAT, TABLE_MAP

BATCH_ROWS = 16384        # rows of a record batch (a Parquet row group)
BATCH_VALUES = 1 << 18    # ... or fewer rows, when their images hold this many values

# ---------------------------------------------------------------------------------------
# Value structs, one group of values per Python type

(_NULL, _INT, _BOOL, _FLOAT, _STR, _BYTES, _BYTESLIKE, _DECIMAL, _DATE, _DATETIME, _TIMESTAMP,
 _TIME, _ENUM, _SET, _GEOMETRY, _COMPRESSED, _JSON, _OTHER) = range(18)

_CODE = defaultdict(lambda: _OTHER, {
    type(None): _NULL, int: _INT, bool: _BOOL, float: _FLOAT, str: _STR, bytes: _BYTES,
    bytearray: _BYTESLIKE, memoryview: _BYTESLIKE, decimal.Decimal: _DECIMAL,
    temporal.Date: _DATE, temporal.DateTime: _DATETIME, temporal.Timestamp: _TIMESTAMP,
    temporal.Time: _TIME, EnumValue: _ENUM, SetValue: _SET, Geometry: _GEOMETRY,
    Compressed: _COMPRESSED, JsonDoc: _JSON,
})
_code_of = _CODE.__getitem__

_INT64 = pa.int64()
_DEC = pa.decimal128(38, 18)
_LONG_MIN, _LONG_MAX = -(1 << 63), (1 << 63) - 1


def _one_by_one(g):
    """Any group, through :func:`spark_values.value_fields` value by value (None: NULL)."""
    cols: dict = {}
    fields_of = spark_values.value_fields
    for i, v in enumerate(g):
        if v is None:
            continue
        for f, x in fields_of(v):
            col = cols.get(f)
            if col is None:
                col = cols[f] = [None] * len(g)
            col[i] = x
    return list(cols.items())


# The converters of a group of values of one type: ``[(field, array or list)]``, each as
# long as the group. Those in _NONE_OK also take None (a NULL: nothing in any field).

def _beyond_long(g, longs):
    """``(LONG, longs)`` and the fields of the integers of ``g`` that ``longs`` leaves out
    (beyond 64 bits: decimal or text)."""
    out = {}
    for i, x in enumerate(longs):
        if x is None and g[i] is not None:
            for f, y in spark_values.value_fields(g[i]):
                col = out.get(f)
                if col is None:
                    col = out[f] = [None] * len(g)
                col[i] = y
    return [(LONG, longs), *out.items()]


def _ints(g):
    try:
        return [(LONG, pa.array(g, _INT64))]
    except (OverflowError, pa.ArrowException):  # some beyond 64 bits
        return _beyond_long(g, [v if v is not None and _LONG_MIN <= v <= _LONG_MAX else None
                                for v in g])


def _sets(g):
    names = []
    for v in g:
        try:
            names.append(None if v.names is None else ",".join(v.names))
        except TypeError:   # names as bytes
            names.append(spark_values.set_names(v))
    bits = [v.bits for v in g]
    try:
        longs = pa.array(bits, _INT64)
    except (OverflowError, pa.ArrowException):
        return [*_beyond_long(bits, [b if b <= _LONG_MAX else None for b in bits]),
                (STRING, names)]
    return [(LONG, longs), (STRING, names)]


def _decimals(g):
    try:  # Arrow refuses what DECIMAL(38,18) cannot hold exactly
        return [(DECIMAL, pa.array(g, _DEC))]
    except (ValueError, pa.ArrowException):
        return _one_by_one(g)


def _with_text(field, out, g, bad):
    """``out`` for ``field``, and the lossless text of the values at ``bad``."""
    if not bad:
        return [(field, out)]
    text = [None] * len(g)
    for i in bad:
        text[i] = g[i].isoformat()
    return [(field, out), (TEXT, text)]


def _bad(out, g):
    """Where ``out`` has no value for a value of ``g`` (None: a NULL)."""
    return [i for i, x in enumerate(out) if x is None and g[i] is not None]


def _dates(g):
    day_number = spark_values.day_number
    out = [None if v is None else day_number(v.year, v.month, v.day) for v in g]
    return _with_text(DATE, out, g, _bad(out, g))


def _datetimes(g):
    us = spark_values.datetime_us
    out = [None if v is None else us(v) for v in g]
    return _with_text(DATETIME, out, g, _bad(out, g))


def _timestamps(g):
    out = [v.seconds * 1_000_000 + v.microsecond if v is not None and (
        v.seconds or v.microsecond) else None for v in g]
    return _with_text(TIMESTAMP, out, g, _bad(out, g))


def _times(g):
    us = spark_values.time_us
    return [(TIME, [None if v is None else us(v) for v in g])]


def _enums(g):
    names = list(map(attrgetter("name"), g))
    if not all(type(n) is str or n is None for n in names):
        names = list(map(spark_values.as_text, names))
    return [(LONG, pa.array(list(map(attrgetter("index"), g)), _INT64)), (STRING, names)]


def _json(g):
    return [(JSON, [spark_values.json_text(v.doc) for v in g])]


_CONVERT = {
    _INT: _ints,
    _BOOL: lambda g: [(LONG, pa.array(list(map(int, g)), _INT64))],
    _FLOAT: lambda g: [(DOUBLE, pa.array(g, pa.float64()))],
    _STR: lambda g: [(STRING, pa.array(g, pa.string()))],
    _BYTES: lambda g: [(BINARY, pa.array(g, pa.binary()))],
    _BYTESLIKE: lambda g: [(BINARY, pa.array(list(map(bytes, g)), pa.binary()))],
    _DECIMAL: _decimals,
    _DATE: _dates,
    _DATETIME: _datetimes,
    _TIMESTAMP: _timestamps,
    _TIME: _times,
    _ENUM: _enums,
    _SET: _sets,
    _JSON: _json,
    # GEOMETRY and whatever else: one by one; COMPRESSED: what it holds
}
_NONE_OK = frozenset({_INT, _FLOAT, _STR, _BYTES, _DECIMAL, _DATE, _DATETIME, _TIMESTAMP,
                      _TIME})


def _scatter(dense, mask):
    """``dense`` spread over the positions where ``mask`` is true (null elsewhere)."""
    idx = pc.subtract(pc.cumulative_sum(mask.cast(_INT64)), 1)
    return dense.take(pc.if_else(mask, idx, pa.scalar(None, _INT64)))


def _field_arrays(values, vtype: pa.StructType) -> dict:
    """field -> array over ``values`` (null where the field holds nothing) for the fields
    the values fill: the values grouped by type, each group converted at once and
    scattered back to its positions."""
    codes_list = list(map(_code_of, map(type, values)))
    kinds = set(codes_list)
    one = len(kinds) == 1 or (len(kinds) == 2 and _NULL in kinds and
                              (kinds - {_NULL}) <= _NONE_OK)
    codes = None if one else pa.array(codes_list, pa.int8())
    pieces = defaultdict(list)    # field -> [(type code, array or list over its group)]
    positions = {}
    for c in kinds:
        if c == _NULL:
            continue
        if codes is None:       # every value (and NULLs, which the converter takes)
            g = values
        else:
            pos = positions[c] = pc.indices_nonzero(pc.equal(codes, c))
            idx = pos.to_pylist()
            g = [values[idx[0]]] if len(idx) == 1 else list(itemgetter(*idx)(values))
        if c == _COMPRESSED:   # MariaDB compressed columns: the values they hold
            made = _field_arrays([v.data for v in g], vtype).items()
        else:
            made = _CONVERT.get(c, _one_by_one)(g)
        for f, arr in made:
            pieces[f].append((c, arr))
    out = {}
    for f, ps in pieces.items():
        ftype = vtype[f].type
        arrs = [a if isinstance(a, pa.Array) and a.type == ftype else pa.array(a, ftype)
                for _, a in ps]
        if codes is None:
            out[f] = arrs[0]
        elif len(ps) == 1:
            out[f] = _scatter(arrs[0], pc.equal(codes, ps[0][0]))
        else:                   # groups merged back into position order
            dense = pa.concat_arrays(arrs)
            order = pc.sort_indices(pa.concat_arrays([positions[c] for c, _ in ps]))
            mask = pc.is_in(codes, value_set=pa.array([c for c, _ in ps], pa.int8()))
            out[f] = _scatter(dense.take(order), mask)
    return out


def _struct(fields: dict, n: int, vtype: pa.StructType) -> pa.StructArray:
    """The Value structs from their field arrays: null where no field holds anything (a
    NULL value: any other value fills at least one field)."""
    children = [fields[f] if f in fields else pa.nulls(n, vtype[f].type)
                for f in range(len(vtype))]
    nulls = None
    for a in fields.values():
        if a.null_count:
            nulls = a.is_null() if nulls is None else pc.and_(nulls, a.is_null())
        else:
            nulls = None
            break
    if not fields and n:
        nulls = pa.array([True] * n, pa.bool_())
    return pa.StructArray.from_arrays(children, fields=list(vtype), mask=nulls)


def value_struct(values: list, vtype: pa.StructType) -> pa.StructArray:
    """The ``Value`` structs (``vtype``: schema.VALUE as Arrow) of a list of column values
    (None: a NULL value, a null struct)."""
    return _struct(_field_arrays(values, vtype), len(values), vtype)


# ---------------------------------------------------------------------------------------
# row images as map<column name, Value>


class ImageColumn:
    """The images of one side (``before`` or ``after``) of a batch of rows.

    Images with the same column names in the same order (every full image of one table
    shape) form a group: a group's values are taken column by column (one ``zip`` over the
    dicts), so that each column's values, of one type, convert at once; the map entries are
    then put back in row order by one ``take``. Images whose names vary (minimal images)
    are converted as one flat list."""

    def __init__(self):
        self.nulls: list = []     # per row: no image
        self.lengths: list = []   # per image present: how many columns
        self.groups: dict = {}    # column names -> [group number, images]
        self.group_of: list = []  # per image present: its group
        self.index: list = []     # ... and its position in the group
        self.entries = 0          # column values in all

    def __len__(self):
        return len(self.group_of)

    def add(self, images: list, json_cols=None):
        present = [i for i in images if i is not None]
        if len(present) == len(images):
            self.nulls.extend(repeat(False, len(images)))
        elif not present:
            self.nulls.extend(repeat(True, len(images)))
            return
        else:
            self.nulls.extend(i is None for i in images)
        if json_cols:
            present = [spark_values.json_marked(i, json_cols) for i in present]
        lengths = list(map(len, present))
        self.lengths += lengths
        self.entries += sum(lengths)
        names = tuple(present[0])
        if len(present) == 1 or all(map(names.__eq__, map(tuple, present))):
            self._add(names, present)
        else:                    # (an event whose images name different columns)
            for i in present:
                self._add(tuple(i), [i])

    def _add(self, names, images):
        group = self.groups.get(names)
        if group is None:
            group = self.groups[names] = [len(self.groups), []]
        n, members = group
        self.group_of.extend(repeat(n, len(images)))
        self.index.extend(range(len(members), len(members) + len(images)))
        members.extend(images)

    def array(self, mtype: pa.MapType) -> pa.MapArray:
        vtype = mtype.item_type
        if not self.group_of:
            keys, items = pa.array([], pa.string()), _struct({}, 0, vtype)
        elif len(self.groups) * 8 > len(self.group_of) + 64:   # few images share names
            keys, items = self._flat(vtype)
        else:
            keys, items = self._by_column(vtype)
        lengths = iter(self.lengths)
        offsets = list(accumulate((0 if null else next(lengths) for null in self.nulls),
                                  initial=0))
        mask = pa.array(self.nulls, pa.bool_()) if any(self.nulls) else None
        return pa.MapArray.from_arrays(pa.array(offsets, pa.int32()), keys, items,
                                       type=mtype, mask=mask)

    def _images(self) -> list:
        """The images present, in row order."""
        members = [m for _, m in sorted(self.groups.values(), key=itemgetter(0))]
        return [members[g][i] for g, i in zip(self.group_of, self.index)]

    def _flat(self, vtype):
        images = self._images()
        keys = pa.array(list(chain.from_iterable(images)), pa.string())
        values = list(chain.from_iterable(map(dict.values, images)))
        return keys, _struct(_field_arrays(values, vtype), len(values), vtype)

    def _by_column(self, vtype):
        # the groups' columns ("slots") one after the other, each converted alone: each
        # Value field laid out column by column (nulls for the slots that do not fill it);
        # each map entry (image i, its k-th column) then takes its value at the place of
        # that column (slot ``first[group of i] + k``) and of the image in its group: one
        # index per entry made by vector operations, one ``take`` per field
        names, sizes, parts, first = [], [], defaultdict(dict), []
        for cols, (_n, members) in sorted(self.groups.items(), key=lambda kv: kv[1][0]):
            first.append(len(names))
            for k, column in enumerate(zip(*map(dict.values, members))):
                for f, arr in _column_fields(column, vtype).items():
                    parts[f][len(names)] = arr
                names.append(cols[k])
                sizes.append(len(members))
        image, k = _entries(self.lengths)
        slot = pc.add(pc.take(pc.take(pa.array(first, _INT64),
                                      pa.array(self.group_of, pa.int32())), image), k)
        starts = pa.array(list(accumulate(sizes[:-1], initial=0)), _INT64)
        where = pc.add(pc.take(starts, slot), pc.take(pa.array(self.index, _INT64), image))
        keys = pa.array(names, pa.string()).take(slot)
        fields = {}
        for f, have in parts.items():
            ftype = vtype[f].type
            laid = pa.concat_arrays([have[s] if s in have else pa.nulls(sizes[s], ftype)
                                     for s in range(len(names))])
            fields[f] = laid.take(where)
        return keys, _struct(fields, len(image), vtype)


def _entries(lengths: list):
    """For the entries of maps of these lengths: which map each is in, and its place there
    (vector operations, not a Python object per entry)."""
    starts = list(accumulate(lengths, initial=0))
    if 0 in lengths:   # (runs must not be empty)
        image = pa.array(list(chain.from_iterable(map(repeat, range(len(lengths)),
                                                      lengths))), pa.int32())
    else:
        image = pc.run_end_decode(pa.RunEndEncodedArray.from_arrays(
            pa.array(starts[1:], _INT64), pa.array(range(len(lengths)), pa.int32())))
    count = pc.cumulative_sum(pa.repeat(pa.scalar(1, _INT64), starts[-1]))
    k = pc.subtract(count, pc.add(pc.take(pa.array(starts[:-1], _INT64), image), 1))
    return image, k


def _column_fields(column, vtype) -> dict:
    """field -> array over one column's values (a tuple), for the fields they fill."""
    kinds = set(map(type, column))
    kinds.discard(type(None))
    if len(kinds) == 1:
        c = _code_of(next(iter(kinds)))
        if c in _NONE_OK:       # one type (and NULLs): converted at once
            out = {}
            for f, arr in _CONVERT[c](column):
                ftype = vtype[f].type
                out[f] = arr if isinstance(arr, pa.Array) and arr.type == ftype else \
                    pa.array(arr, ftype)
            return out
    if not kinds:
        return {}
    return _field_arrays(list(column), vtype)


# ---------------------------------------------------------------------------------------
# record batches

def batch_of_rows(rows: list, schema: pa.Schema) -> pa.RecordBatch:
    """A record batch of a few rows given as tuples in ``schema``'s order (each column
    converted by one ``pa.array``)."""
    cols = list(zip(*rows)) if rows else [()] * len(schema)
    return pa.RecordBatch.from_arrays(
        [pa.array(c, f.type) for c, f in zip(cols, schema)], schema=schema)


# row_changes columns that are facts of the rows event, kept once per event
_PER_EVENT = ("file", "offset", "inner_offset", "gtid", "timestamp", "database", "table",
              "operation", "signedness_known", "event_type", "schema_version")


def _signed64(xid):
    return xid if xid is None or xid < 1 << 63 else xid - (1 << 64)


class RowsColumns:
    """The ``row_changes`` of a batch: per-event facts once per rows event, row indexes and
    images per row. The transaction's columns (``xid``, ``commit_timestamp``) are read from
    each event's :class:`~binlog_schema.model.transactions.Transaction` when the batch is
    made; ``order_key`` is the event's prefix joined to the padded row index."""

    def __init__(self, schema: pa.Schema):
        self.schema = schema
        self.clear()

    def clear(self):
        self.events: list = []    # per rows event: its facts (_PER_EVENT order)
        self.txs: list = []       # per rows event: its Transaction (or None)
        self.prefixes: list = []  # per rows event: its order key's first three fields
        self.event_of: list = []  # per row: its event's position in ``events``
        self.row_index: list = []
        self.before = ImageColumn()
        self.after = ImageColumn()
        self.last_tx = None       # the transaction of the last rows ...
        self.last_tx_from = 0     # ... and the first of its rows in this batch

    def __len__(self):
        return len(self.row_index)

    def add(self, facts: tuple, changes: list, json_cols, tx=None, prefix=None):
        n = len(changes)
        if tx is not self.last_tx:
            self.last_tx, self.last_tx_from = tx, len(self.row_index)
        self.event_of.extend(repeat(len(self.events), n))
        self.events.append(facts)
        self.txs.append(tx)
        self.prefixes.append(prefix)
        self.row_index.extend(map(_row_index, changes))
        self.before.add(list(map(_before, changes)), json_cols)
        self.after.add(list(map(_after, changes)), json_cols)

    def batch(self) -> pa.RecordBatch:
        schema = self.schema
        event_of = pa.array(self.event_of, pa.int32())
        cols = {}
        for name, values in zip(_PER_EVENT, zip(*self.events)):
            cols[name] = pa.array(values, schema.field(name).type).take(event_of)
        row_index = cols["row_index"] = pa.array(self.row_index,
                                                 schema.field("row_index").type)
        cols["before"] = self.before.array(schema.field("before").type)
        cols["after"] = self.after.array(schema.field("after").type)
        cols["order_key"] = pc.binary_join_element_wise(
            pa.array(self.prefixes, pa.string()).take(event_of),
            pc.utf8_lpad(pc.cast(row_index, pa.string()), 10, "0"), "")
        txs = self.txs
        cols["xid"] = pa.array([None if t is None else _signed64(t.xid) for t in txs],
                               pa.int64()).take(event_of)
        cols["commit_timestamp"] = pa.array(
            [None if t is None or t.commit_timestamp is None else
             t.commit_timestamp * 1_000_000 for t in txs],
            schema.field("commit_timestamp").type).take(event_of)
        out = pa.RecordBatch.from_arrays([cols[f.name] for f in schema], schema=schema)
        self.clear()
        return out


def commit_columns(batch: pa.RecordBatch, start: int, tx) -> pa.RecordBatch:
    """``batch`` with the XID and commit time of ``tx`` in its rows from ``start`` on (the
    rows of a transaction whose end came after the batch was made)."""
    n = batch.num_rows - start
    if n <= 0 or (tx.xid is None and tx.commit_timestamp is None):
        return batch
    schema = batch.schema
    for name, value in (("xid", _signed64(tx.xid)), ("commit_timestamp", None if
                        tx.commit_timestamp is None else tx.commit_timestamp * 1_000_000)):
        i = schema.get_field_index(name)
        col = batch.column(i)
        tail = pa.array([value] * n, col.type)
        col = pa.concat_arrays([col.slice(0, start), tail]) if start else tail
        batch = batch.set_column(i, schema.field(i), col)
    return batch


class HeldBatches:
    """Record batches that hold rows of a transaction whose end is not seen yet, in memory
    up to ``limit`` bytes, then in a temporary Arrow IPC file: a task's memory stays flat."""

    def __init__(self, limit: int = 64 << 20):
        self.limit = limit
        self.items: list = []   # (batch, first row of the transaction)
        self.size = 0
        self.spill = None       # (file, writer, [first row of each spilled batch])

    def __len__(self):
        return len(self.items) + (len(self.spill[2]) if self.spill is not None else 0)

    def add(self, batch, start: int):
        self.items.append((batch, start))
        self.size += batch.nbytes
        if self.size > self.limit:
            if self.spill is None:
                import tempfile
                f = tempfile.TemporaryFile()
                self.spill = (f, pa.ipc.new_stream(pa.PythonFile(f, mode="w"), batch.schema),
                              [])
            for b, s in self.items:
                self.spill[1].write_batch(b)
                self.spill[2].append(s)
            self.items, self.size = [], 0

    def drain(self, tx=None):
        """The batches in order, with the XID and commit time of ``tx`` (None: as they are)."""
        spill, items = self.spill, self.items
        self.spill, self.items, self.size = None, [], 0
        if spill is not None:
            f, writer, starts = spill
            writer.close()
            f.seek(0)
            try:
                for b, s in zip(pa.ipc.open_stream(pa.PythonFile(f, mode="r")), starts):
                    yield b if tx is None else commit_columns(b, s, tx)
            finally:
                f.close()
        for b, s in items:
            yield b if tx is None else commit_columns(b, s, tx)


_row_index, _before, _after = (attrgetter("row_index"), attrgetter("before"),
                               attrgetter("after"))


class ArrowSink:
    """A task's output as Arrow record batches (``pending``: ``(table, RecordBatch)`` when a
    batch is full, ``(TABLE_MAP, row)`` and ``(STAT, row)`` for the small rows
    the driver aggregates). ``schemas``: the Arrow schemas of ``events``, ``row_changes``
    and ``errors``."""

    def __init__(self, schemas: dict, batch_rows: int = BATCH_ROWS,
                 batch_values: int = BATCH_VALUES):
        self.schemas = schemas
        self.batch_rows, self.batch_values = batch_rows, batch_values
        self.events: list = []
        self.errors: list = []
        self.rows_columns = RowsColumns(schemas["row_changes"])
        self.pending: list = []
        self.held = HeldBatches()   # row_changes batches waiting for their commit
        self.open_tx = None         # the transaction of the last rows, until its end

    def event(self, row):
        self.events.append(row)
        if len(self.events) >= self.batch_rows:
            self._flush_events()

    def error(self, row):
        self.errors.append(row)
        if len(self.errors) >= self.batch_rows:
            self._flush_errors()

    def table_map(self, row):
        self.pending.append((TABLE_MAP, row))

    def stat(self, row):
        self.pending.append((STAT, row))

    def rows(self, name, r, changes, json_cols, offset, inner_offset, tx=None, prefix=None,
             version=None):
        c = changes[0]
        rc = self.rows_columns
        if tx is not self.open_tx:
            if self.held:   # (a transaction left without its end: written as it is)
                self.pending.extend(("row_changes", b) for b in self.held.drain())
            self.open_tx = tx
        rc.add((name, offset, inner_offset, c.gtid,
                None if c.timestamp is None else c.timestamp * 1_000_000,
                spark_values.as_text(c.database), spark_values.as_text(c.table), c.operation,
                c.signedness_known, r.type_name, version), changes, json_cols, tx, prefix)
        if len(rc) >= self.batch_rows or rc.before.entries + rc.after.entries >= \
                self.batch_values:
            self._flush_rows()

    def _flush_rows(self):
        rc = self.rows_columns
        tx, start = rc.last_tx, rc.last_tx_from
        batch = rc.batch()
        if tx is not None and tx is self.open_tx:   # its XID and commit still to come
            self.held.add(batch, start)
        else:
            self.pending.append(("row_changes", batch))

    def end(self, tx):
        """``tx`` ended (committed, or its end not seen): the batches that held its rows
        waiting are written, with its XID and commit time."""
        if tx is not self.open_tx:
            return
        self.open_tx = None
        if self.held:
            self.pending.extend(("row_changes", b) for b in self.held.drain(tx))

    def _flush_events(self):
        self.pending.append(("events", batch_of_rows(self.events, self.schemas["events"])))
        self.events = []

    def _flush_errors(self):
        self.pending.append(("errors", batch_of_rows(self.errors, self.schemas["errors"])))
        self.errors = []

    def take(self) -> list:
        out, self.pending = self.pending, []
        return out

    def close(self) -> list:
        """Everything still buffered, as batches."""
        if self.events:
            self._flush_events()
        self.open_tx = None
        if self.held:
            self.pending.extend(("row_changes", b) for b in self.held.drain())
        if len(self.rows_columns):
            self.pending.append(("row_changes", self.rows_columns.batch()))
        if self.errors:
            self._flush_errors()
        return self.take()

"""The ``arrow`` engine's rows, built column by column: Arrow record batches of ``events``,
``row_changes`` and ``errors`` made from Python lists per column, never a Python object per
value in Spark's form.

The bulk is the row images. Their column names and values are gathered flat (a list of
names, a list of values, a length per image: the dicts the row decoder made are read in C,
not looped over in Python); the ``Value`` structs are then made per *kind* of value: the
values are grouped by Python type (type codes in an int8 array, positions by a vectorised
compare) and each group becomes the arrays of the fields it fills in one call (ints ->
``long`` by ``pa.array``, ``Decimal`` -> ``decimal`` checked by Arrow, temporal values by
one pass computing days or microseconds...); each field's array is then scattered to the
rows its groups cover (``take`` with a cumulative index). The maps are ``MapArray``s of
offsets, names and those structs. Per-event facts of a rows event (file, offset, GTID,
table...) are kept once per event and repeated by ``take``.

Which field holds a value is decided in one place, :func:`tasks.value_fields`: values
whose type has no group converter here (and groups a converter declines, such as integers
beyond 64 bits or decimals beyond DECIMAL(38,18)) go through it one by one.
"""

from __future__ import annotations

import decimal
from collections import defaultdict
from itertools import accumulate, chain, repeat
from operator import attrgetter, itemgetter

import pyarrow as pa
import pyarrow.compute as pc

from ..values import temporal
from ..values.codecs import Compressed, EnumValue, Geometry, SetValue
from . import tasks
from .tasks import (BINARY, DATE, DATETIME, DECIMAL, DOUBLE, JSON, LONG, STRING, TEXT, TIME,
                    TIMESTAMP, JsonDoc)

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
    """Any group, through :func:`tasks.value_fields` value by value."""
    cols: dict = {}
    fields_of = tasks.value_fields
    for i, v in enumerate(g):
        for f, x in fields_of(v):
            col = cols.get(f)
            if col is None:
                col = cols[f] = [None] * len(g)
            col[i] = x
    return list(cols.items())


def _beyond_long(g, longs):
    """``(LONG, longs)`` and the fields of the integers of ``g`` that ``longs`` leaves out
    (beyond 64 bits: decimal or text)."""
    out = {}
    for i, x in enumerate(longs):
        if x is None and g[i] is not None:
            for f, y in tasks.value_fields(g[i]):
                col = out.get(f)
                if col is None:
                    col = out[f] = [None] * len(g)
                col[i] = y
    return [(LONG, longs), *out.items()]


def _ints(g):
    try:
        return [(LONG, pa.array(g, _INT64))]
    except (OverflowError, pa.ArrowException):  # some beyond 64 bits
        return _beyond_long(g, [v if _LONG_MIN <= v <= _LONG_MAX else None for v in g])


def _sets(g):
    names = []
    for v in g:
        try:
            names.append(None if v.names is None else ",".join(v.names))
        except TypeError:   # names as bytes
            names.append(tasks.set_names(v))
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


def _dates(g):
    day_number = tasks.day_number
    out = [day_number(v.year, v.month, v.day) for v in g]
    return _with_text(DATE, out, g, [i for i, x in enumerate(out) if x is None])


def _datetimes(g):
    out = list(map(tasks.datetime_us, g))
    return _with_text(DATETIME, out, g, [i for i, x in enumerate(out) if x is None])


def _timestamps(g):
    out = [v.seconds * 1_000_000 + v.microsecond if v.seconds or v.microsecond else None
           for v in g]
    return _with_text(TIMESTAMP, out, g, [i for i, x in enumerate(out) if x is None])


def _enums(g):
    names = list(map(attrgetter("name"), g))
    if not all(type(n) is str or n is None for n in names):
        names = list(map(tasks._text, names))
    return [(LONG, pa.array(list(map(attrgetter("index"), g)), _INT64)), (STRING, names)]


def _json(g):
    return [(JSON, [tasks.json_text(v.doc) for v in g])]


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
    _TIME: lambda g: [(TIME, list(map(tasks.time_us, g)))],
    _ENUM: _enums,
    _SET: _sets,
    _JSON: _json,
    # GEOMETRY and whatever else: one by one; COMPRESSED: what it holds
}


def _scatter(dense, mask):
    """``dense`` spread over the positions where ``mask`` is true (null elsewhere)."""
    idx = pc.subtract(pc.cumulative_sum(mask.cast(_INT64)), 1)
    return dense.take(pc.if_else(mask, idx, pa.scalar(None, _INT64)))


def value_struct(values: list, vtype: pa.StructType) -> pa.StructArray:
    """The ``Value`` structs (``vtype``: schema.VALUE as Arrow) of a list of column values
    (None: a NULL value, a null struct)."""
    n = len(values)
    codes_list = list(map(_code_of, map(type, values)))
    kinds = set(codes_list)
    codes = pa.array(codes_list, pa.int8()) if len(kinds) > 1 else None
    pieces = defaultdict(list)    # field -> [(type code, array or list over its group)]
    positions = {}
    for c in kinds:
        if c == _NULL:
            continue
        if codes is None:
            g = values
        else:
            pos = positions[c] = pc.indices_nonzero(pc.equal(codes, c))
            idx = pos.to_pylist()
            g = [values[idx[0]]] if len(idx) == 1 else list(itemgetter(*idx)(values))
        if c == _COMPRESSED:   # MariaDB compressed columns: the values they hold
            s = value_struct([v.data for v in g], vtype)
            made = [(f, s.field(f)) for f in range(len(vtype)) if s.field(f).null_count < len(s)]
        else:
            made = _CONVERT.get(c, _one_by_one)(g)
        for f, arr in made:
            pieces[f].append((c, arr))
    children = []
    for f, field in enumerate(vtype):
        ps = pieces.get(f)
        if not ps:
            children.append(pa.nulls(n, field.type))
            continue
        arrs = [a if isinstance(a, pa.Array) and a.type == field.type
                else pa.array(a, field.type) for _, a in ps]
        if codes is None:       # one group holds every value
            children.append(arrs[0])
            continue
        if len(ps) == 1:
            dense = arrs[0]
            mask = pc.equal(codes, ps[0][0])
        else:                   # groups merged back into position order
            dense = pa.concat_arrays(arrs)
            order = pc.sort_indices(pa.concat_arrays([positions[c] for c, _ in ps]))
            dense = dense.take(order)
            mask = pc.is_in(codes, value_set=pa.array([c for c, _ in ps], pa.int8()))
        children.append(_scatter(dense, mask))
    nulls = None
    if _NULL in kinds:
        nulls = pc.equal(codes, _NULL) if codes is not None else pa.array(
            [True] * n, pa.bool_())
    return pa.StructArray.from_arrays(children, fields=list(vtype), mask=nulls)


# ---------------------------------------------------------------------------------------
# row images as map<column name, Value>


class ImageColumn:
    """The images of one side (``before`` or ``after``) of a batch of rows, flat."""

    def __init__(self):
        self.lengths: list = []   # per row: how many columns (0 for a null image)
        self.nulls: list = []     # per row: no image
        self.keys: list = []
        self.values: list = []

    def add(self, images: list, json_cols=None):
        present = [i for i in images if i is not None]
        if json_cols:
            present = [tasks.json_marked(i, json_cols) for i in present]
        if len(present) == len(images):
            self.lengths.extend(map(len, present))
            self.nulls.extend(repeat(False, len(images)))
        elif not present:
            self.lengths.extend(repeat(0, len(images)))
            self.nulls.extend(repeat(True, len(images)))
        else:
            self.lengths.extend(0 if i is None else len(i) for i in images)
            self.nulls.extend(i is None for i in images)
        self.keys.extend(chain.from_iterable(present))
        self.values.extend(chain.from_iterable(map(dict.values, present)))

    def array(self, mtype: pa.MapType) -> pa.MapArray:
        offsets = pa.array(list(accumulate(self.lengths, initial=0)), pa.int32())
        keys = pa.array(self.keys, mtype.key_type)
        items = value_struct(self.values, mtype.item_type)
        mask = pa.array(self.nulls, pa.bool_()) if any(self.nulls) else None
        return pa.MapArray.from_arrays(offsets, keys, items, type=mtype, mask=mask)


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
              "operation", "signedness_known", "event_type")


class RowsColumns:
    """The ``row_changes`` of a batch: per-event facts once per rows event, row indexes and
    images per row."""

    def __init__(self, schema: pa.Schema):
        self.schema = schema
        self.clear()

    def clear(self):
        self.events: list = []    # per rows event: its facts (_PER_EVENT order)
        self.event_of: list = []  # per row: its event's position in ``events``
        self.row_index: list = []
        self.before = ImageColumn()
        self.after = ImageColumn()

    def __len__(self):
        return len(self.row_index)

    def add(self, facts: tuple, changes: list, json_cols):
        n = len(changes)
        self.event_of.extend(repeat(len(self.events), n))
        self.events.append(facts)
        self.row_index.extend(map(_row_index, changes))
        self.before.add(list(map(_before, changes)), json_cols)
        self.after.add(list(map(_after, changes)), json_cols)

    def batch(self) -> pa.RecordBatch:
        schema = self.schema
        event_of = pa.array(self.event_of, pa.int32())
        cols = {}
        for name, values in zip(_PER_EVENT, zip(*self.events)):
            cols[name] = pa.array(values, schema.field(name).type).take(event_of)
        cols["row_index"] = pa.array(self.row_index, schema.field("row_index").type)
        cols["before"] = self.before.array(schema.field("before").type)
        cols["after"] = self.after.array(schema.field("after").type)
        out = pa.RecordBatch.from_arrays([cols[f.name] for f in schema], schema=schema)
        self.clear()
        return out


_row_index, _before, _after = (attrgetter("row_index"), attrgetter("before"),
                               attrgetter("after"))


class ArrowSink:
    """A task's output as Arrow record batches (``pending``: ``(table, RecordBatch)`` when a
    batch is full, ``(tasks.TABLE_MAP, row)`` and ``(tasks.STAT, row)`` for the small rows
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

    def event(self, row):
        self.events.append(row)
        if len(self.events) >= self.batch_rows:
            self._flush_events()

    def error(self, row):
        self.errors.append(row)
        if len(self.errors) >= self.batch_rows:
            self._flush_errors()

    def table_map(self, row):
        self.pending.append((tasks.TABLE_MAP, row))

    def stat(self, row):
        self.pending.append((tasks.STAT, row))

    def rows(self, name, r, changes, json_cols, offset, inner_offset):
        c = changes[0]
        rc = self.rows_columns
        rc.add((name, offset, inner_offset, c.gtid,
                None if c.timestamp is None else c.timestamp * 1_000_000,
                tasks._text(c.database), tasks._text(c.table), c.operation,
                c.signedness_known, r.type_name), changes, json_cols)
        if len(rc) >= self.batch_rows or len(rc.after.values) + len(rc.before.values) >= \
                self.batch_values:
            self.pending.append(("row_changes", rc.batch()))

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
        if len(self.rows_columns):
            self.pending.append(("row_changes", self.rows_columns.batch()))
        if self.errors:
            self._flush_errors()
        return self.take()

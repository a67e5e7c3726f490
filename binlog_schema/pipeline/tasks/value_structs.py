"""Column values as Arrow ``Value`` structs (the ``arrow`` engine's cells), made a group of
values at a time, never a Python object per value in Spark's form.

Values are grouped by Python type (type codes in an int8 array); each group becomes the arrays
of the ``Value`` fields it fills in one call: ints -> ``long`` by ``pa.array``, ``Decimal`` ->
``decimal`` checked by Arrow, temporal values by one pass computing days or microseconds,
ENUM/SET as index/bits and names... and is scattered back to its positions. A column whose
values are of one Python type (and NULLs) converts at once, without the grouping
(:func:`column_fields`). A ``Value`` is null exactly when it fills no field (a NULL).

Which field holds a value is decided in one place, :func:`spark_values.value_fields`: values
whose type has no group converter here (and values a converter declines, such as integers
beyond 64 bits or decimals beyond DECIMAL(38,18)) go through it one by one. The row images'
maps of these structs are :mod:`.image_maps`'s; the record batches, :mod:`.arrow_sink`'s.
"""

from __future__ import annotations

import decimal
from collections import defaultdict
from operator import attrgetter, itemgetter

import pyarrow as pa
import pyarrow.compute as pc

from ...format.values import temporal
from ...format.values.codecs import Compressed, EnumValue, Geometry, SetValue
from . import spark_values
from .spark_values import (BINARY, DATE, DATETIME, DECIMAL, DOUBLE, JSON, LONG, STRING, TEXT,
                           TIME, TIMESTAMP, JsonDoc)

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


def field_arrays(values, vtype: pa.StructType) -> dict:
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
            made = field_arrays([v.data for v in g], vtype).items()
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


def struct_array(fields: dict, n: int, vtype: pa.StructType) -> pa.StructArray:
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
    return struct_array(field_arrays(values, vtype), len(values), vtype)


def column_fields(column, vtype) -> dict:
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
    return field_arrays(list(column), vtype)

"""The driver's side of ``spark current`` before any row moves: the table lives of the schema
history (:mod:`binlog_schema.changes.schema.lives`) as the :class:`~.fold.FoldPlan` the tasks
fold by, with the value each column gives a row that lacks it (:func:`fill_value`: its
DEFAULT, or the server's implicit one), and the typed column of each final column
(:func:`column_facts`)."""

from __future__ import annotations

import decimal
import re
import struct

from ...format.facts.charsets import BINARY_ID
from ...format.values import temporal
from ...format.values.codecs import EnumValue, SetValue
from binlog_schema.pipeline.current.fold import UNKNOWN, FoldPlan, TableFold

_INTS = {"TINY", "SHORT", "INT24", "LONG", "LONGLONG", "YEAR", "BIT"}
_DATE = re.compile(r"(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?)?$")
_TIME = re.compile(r"(-)?(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?$")


def fill_value(col):
    """The value a row that lacks column ``col`` (a schema Column) holds: an insert image
    without it, or a row that was there when it was added. As the decoder gives values
    (int, Decimal, str, bytes, temporal..., EnumValue, SetValue); None: NULL; UNKNOWN when
    the server computed it (an expression DEFAULT, AUTO_INCREMENT, a generated column, a
    TIMESTAMP literal read in a time zone the binlog does not say)."""
    if col.generated or col.auto_increment:
        return UNKNOWN
    if col.has_default:
        d = col.default
        if d is None:
            return None
        if isinstance(d, dict):
            if "hex" not in d:
                return UNKNOWN
            d = bytes.fromhex(d["hex"])
    elif col.nullable:
        return None
    else:
        d = None    # the implicit default of a NOT NULL column: its type's zero
    try:
        return _typed(col, d)
    except (ValueError, TypeError, IndexError, decimal.InvalidOperation):
        return UNKNOWN


def _typed(col, d):
    kind, members = col.kind, col.members or []
    if kind == "ENUM":
        if d is None:
            return EnumValue(1, members[0]) if members else UNKNOWN
        text = d.decode() if isinstance(d, bytes) else str(d)
        low = [m.lower() for m in members]
        return EnumValue(low.index(text.lower()) + 1, members[low.index(text.lower())])
    if kind == "SET":
        text = "" if d is None else (d.decode() if isinstance(d, bytes) else str(d))
        low = [m.lower() for m in members]
        names = tuple(members[low.index(x.lower())] for x in text.split(",") if x)
        return SetValue(sum(1 << members.index(n) for n in names), names)
    t = col.type
    if t in _INTS:
        return int(d or 0) if not isinstance(d, bytes) else int.from_bytes(d, "big")
    if t == "NEWDECIMAL":
        q = decimal.Decimal(1).scaleb(-(col.scale or 0))
        return decimal.Decimal(str(d or 0)).quantize(q)
    if t in ("FLOAT", "DOUBLE"):
        x = float(d or 0)
        return struct.unpack("<f", struct.pack("<f", x))[0] if t == "FLOAT" else x
    if t in ("DATE", "NEWDATE", "DATETIME", "DATETIME2"):
        if d is None or str(d).startswith("0000-00-00"):
            return temporal.Date(0, 0, 0) if t in ("DATE", "NEWDATE") else \
                temporal.DateTime(0, 0, 0)
        m = _DATE.match(str(d))
        y, mo, da, h, mi, s, f = m.groups()
        if t in ("DATE", "NEWDATE"):
            return temporal.Date(int(y), int(mo), int(da))
        return temporal.DateTime(int(y), int(mo), int(da), int(h or 0), int(mi or 0),
                                 int(s or 0), int((f or "0").ljust(6, "0")))
    if t in ("TIMESTAMP", "TIMESTAMP2"):
        if d is None or str(d).startswith("0000-00-00"):
            return temporal.Timestamp(0, 0)
        return UNKNOWN   # (a literal read in the session's time zone)
    if t in ("TIME", "TIME2"):
        m = _TIME.match(str(d or "00:00:00"))
        neg, h, mi, s, f = m.groups()
        return temporal.Time(bool(neg), int(h), int(mi), int(s),
                             int((f or "0").ljust(6, "0")))
    if col.collation_id == BINARY_ID or t == "GEOMETRY":
        if t == "GEOMETRY":
            return UNKNOWN if d is not None else b""
        return d if isinstance(d, bytes) else ("" if d is None else str(d)).encode()
    if d is None:
        return ""
    return d.decode("utf-8", "surrogateescape") if isinstance(d, bytes) else str(d)


def value_dict(v, vtype):
    """A decoded value as the tasks read a ``Value`` from Arrow (a dict of its fields)."""
    from binlog_schema.pipeline.tasks.value_structs import value_struct
    if v is None or v is UNKNOWN:
        return v
    return value_struct([v], vtype).to_pylist()[0]


def fold_plan(lives, vtype) -> FoldPlan:
    """The :class:`FoldPlan` of a replay (positions: order keys; the seeded tables at "")."""
    plan = FoldPlan(names={k: (list(p), list(o)) for k, (p, o) in lives.names().items()})
    for life in lives.lives.values():
        versions, added = [], {}
        for okey, table in life.versions:
            f = {c.origin: value_dict(fill_value(c), vtype) for c in table.columns}
            for o, v in f.items():
                added.setdefault(o, v)   # (a column's value for the rows there when it came)
            versions.append((okey, {c.name.lower(): c.origin for c in table.columns}, f,
                             _key(table)))
        final = life.final
        plan.tables[life.origin] = TableFold(
            life.origin, versions, [(c.name, c.origin) for c in final.columns],
            _key(final), added, list(life.truncates))
    return plan


def _key(table) -> list:
    """The origins of a table version's primary key (the key the server treats as primary:
    :meth:`~binlog_schema.changes.schema.model.Table.effective_primary_key`); [] without one."""
    by_name = {c.name.lower(): c.origin for c in table.columns}
    return [by_name[n.lower()] for n in table.effective_primary_key()[0]]


def column_facts(col, index: int, flavor: str | None) -> dict:
    """A schema Column as the table-map column dict :func:`~.schema.spark_type_of` takes."""
    m = col.binlog_column(index, flavor)
    out = {k: getattr(m, k, None) for k in (
        "index", "name", "type", "real_type", "unsigned", "collation_id", "max_length",
        "precision", "scale", "fsp", "bits", "enum_values", "set_values")}
    out["flavor"] = flavor
    return out

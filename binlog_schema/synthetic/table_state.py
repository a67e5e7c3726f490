"""The rows a table of a fixture holds while its spec loads (:class:`TableState`: in
insertion order, with its unique indexes, so a duplicate key is refused and an update or
delete finds its rows), and stored values compared (:func:`same_value`) and shown in
messages (:func:`show_value`).
"""

from __future__ import annotations

from .columns import FixtureColumn
from ..format.values.codecs import Compressed, EnumValue, SetValue
from .fixture import SpecError, Table, where_of


def _key_value(col: FixtureColumn, v):
    """A hashable form of a value as a unique index compares it: the stored value (CHAR
    without its pad, ENUM index, SET bits), text folded for a case-insensitive collation and
    without trailing spaces for a PAD SPACE one."""
    if v is None:
        return None
    v = col.image(v)
    if isinstance(v, Compressed):
        v = v.data
    if isinstance(v, EnumValue):
        return ("enum", v.index)
    if isinstance(v, SetValue):
        return ("set", v.bits)
    if isinstance(v, str):
        name = col.collation or ""
        if not ("nopad" in name or "0900" in name):
            v = v.rstrip(" ")
        if name.endswith("_ci") or "_ai_" in name:
            v = v.casefold()
        return v
    if isinstance(v, (list, dict)):
        return repr(v)
    return v


class TableState:
    """The rows a table holds (in insertion order) and its unique indexes."""

    def __init__(self, table: Table):
        self.table = table
        self.rows: dict = {}
        self.next = 0
        keys = ([table.primary_key] if table.primary_key else []) + table.unique_keys
        self.keys = [k for k in keys if not any(k.prefixes)]
        self.index = [{} for _ in self.keys]

    def _ident(self, key, row):
        vals = tuple(_key_value(self.table.columns[i], row.get(i)) for i in key.columns)
        return None if any(v is None for v in vals) else vals

    def check(self, row, skip, ctx):
        for key, idx in zip(self.keys, self.index):
            ident = self._ident(key, row)
            if ident is not None and idx.get(ident, skip) != skip:
                names = ", ".join(self.table.columns[i].name for i in key.columns)
                raise SpecError(f"{where_of(ctx)}: duplicate key ({names}) = "
                                f"{[show_value(row[i]) for i in key.columns]}")

    def add(self, row, ctx) -> int:
        self.check(row, None, ctx)
        rid = self.next
        self.next += 1
        self.rows[rid] = row
        self._link(rid, row)
        return rid

    def _link(self, rid, row):
        for key, idx in zip(self.keys, self.index):
            ident = self._ident(key, row)
            if ident is not None:
                idx[ident] = rid

    def _unlink(self, rid):
        row = self.rows[rid]
        for key, idx in zip(self.keys, self.index):
            ident = self._ident(key, row)
            if ident is not None and idx.get(ident) == rid:
                del idx[ident]

    def replace(self, rid, row, ctx):
        self.check(row, rid, ctx)
        self._unlink(rid)
        self.rows[rid] = row
        self._link(rid, row)

    def remove(self, rid):
        self._unlink(rid)
        del self.rows[rid]

    def find(self, cond: dict) -> list:
        cols = self.table.columns
        for key, idx in zip(self.keys, self.index):   # a unique key: one lookup
            if set(key.columns) <= set(cond):
                ident = self._ident(key, cond)
                if ident is not None:
                    rid = idx.get(ident)
                    cand = [] if rid is None else [rid]
                    return [r for r in cand if all(same_value(cols[k], self.rows[r][k], v)
                                                   for k, v in cond.items())]
        return [rid for rid, r in self.rows.items()
                if all(same_value(cols[k], r[k], v) for k, v in cond.items())]

    def list(self) -> list:
        return list(self.rows.values())



def same_value(col: FixtureColumn, a, b) -> bool:
    """Two typed values of a column are the same stored value."""
    if a is None or b is None:
        return a is None and b is None
    ia, ib = col.image(a), col.image(b)
    if isinstance(ia, Compressed):
        return ia.data == ib.data
    if isinstance(ia, EnumValue):
        return ia.index == ib.index
    if isinstance(ia, SetValue):
        return ia.bits == ib.bits
    return ia == ib


def show_value(v):
    if isinstance(v, (bytes, bytearray)):
        return "0x" + bytes(v).hex()
    return getattr(v, "name", None) or (v.isoformat() if hasattr(v, "isoformat") else v)


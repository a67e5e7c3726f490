"""ALTER TABLE as :class:`~binlog_schema.changes.schema.history.SchemaHistory` replays it
(:class:`AlterTable`): ADD / DROP / MODIFY / CHANGE / RENAME COLUMN with FIRST / AFTER,
SET / DROP DEFAULT, SET VISIBLE / INVISIBLE, ADD / DROP PRIMARY KEY and UNIQUE keys, RENAME
TO, CONVERT TO CHARACTER SET, DEFAULT CHARACTER SET, ADD / DROP SYSTEM VERSIONING, periods,
and the options that change no column.
"""

from __future__ import annotations

from .model import Column, SchemaError, Table
from .session import Outcome
from .table_keys import part_name


class AlterTable:
    """The ALTER TABLE handler of :class:`~binlog_schema.changes.schema.history.SchemaHistory`
    and its actions, one ``_op_`` method each (a mixin: it uses the history's bookkeeping
    and :class:`~.table_keys.TableKeys`)."""

    def _alter_table(self, stmt, session, sql, position):
        ref = tuple(stmt["table"])
        if stmt.get("if_exists") and self.key(*ref) not in self.tables and \
                self.key(*ref) not in self.unknown:
            return Outcome("unchanged", stmt["kind"])
        old = self._get(ref, sql, position)
        table = old.copy()
        resolver = self._resolver(session)
        new_ref = ref
        changed = False
        added = set()
        try:
            for action in stmt["actions"]:
                op = action["op"]
                if op in ("add_column", "add_columns"):
                    added.update(c["name"].lower() for c in (
                        action["columns"] if op == "add_columns" else [action["column"]]))
                elif op in ("modify_column", "change_column") and \
                        action.get("old", action["column"]["name"]).lower() in added:
                    raise SchemaError("MODIFY / CHANGE of a column the same statement adds "
                                      "(the server moves it: not modelled)")
                if op == "rename_table":
                    new_ref = (action["to"][0] or ref[0], action["to"][1])
                    changed = True
                    continue
                if op in ("noop", "add_index", "drop_constraint", "rename_index"):
                    continue
                if op == "option":
                    if action["name"] in ("ENGINE", "TYPE") and action["value"]:
                        table.engine = action["value"]
                        changed = True
                    continue
                getattr(self, "_op_" + op)(table, action, resolver)
                changed = True
            self._finish(table, resolver)
        except SchemaError as e:
            raise self._refuse(str(e), sql, position, [ref]) from None
        if not changed and new_ref == ref:
            return Outcome("unchanged", stmt["kind"])
        if new_ref != ref:
            self._set(self.key(*ref), None, position)
        self._set(self.key(*new_ref), table, position, sql, carry=True)
        return Outcome("changed", stmt["kind"], tables=[ref] + ([new_ref] if new_ref != ref
                                                                 else []))

    def _place(self, table: Table, col: Column, position, at=None):
        """Insert ``col`` at ``at`` (its old place) or where FIRST / AFTER says; else last
        (before the columns the server adds)."""
        if position == "first":
            table.columns.insert(0, col)
        elif position:
            i = table.index_of(position[1])
            if i is None:
                raise SchemaError(f"AFTER {position[1]!r}: no such column in {table.name}")
            table.columns.insert(i + 1, col)
        elif at is not None:
            table.columns.insert(at, col)
        else:   # before the columns the server adds (row_start, row_end, DB_ROW_HASH_n)
            end = len(table.columns)
            while end and table.columns[end - 1].hidden:
                end -= 1
            table.columns.insert(end, col)

    def _op_add_column(self, table, action, resolver):
        decl = action["column"]
        if table.column(decl["name"]) is not None:
            raise SchemaError(f"ADD COLUMN {decl['name']!r}: {table.name} has that column")
        col = resolver.column(decl, table.charset, table.collation)
        self._place(table, col, action.get("position"))
        extra = action.get("extra") or {}
        if extra.get("primary_key"):
            self._set_primary_key(table, extra["primary_key"])
        for parts in extra.get("unique_keys") or ():
            self._add_unique(table, None, parts)

    def _op_add_columns(self, table, action, resolver):
        for decl in action["columns"]:
            self._op_add_column(table, {"column": decl}, resolver)

    def _op_drop_column(self, table, action, resolver):
        i = table.index_of(action["name"])
        if i is None:
            if action.get("if_exists"):
                return
            raise SchemaError(f"DROP COLUMN {action['name']!r}: no such column in "
                              f"{table.name}")
        name = table.columns.pop(i).name.lower()
        keep = [(n, p) for n, p in zip(table.primary_key, table.primary_key_prefixes)
                if n.lower() != name]
        table.primary_key = [n for n, _ in keep]
        table.primary_key_prefixes = [p for _, p in keep]
        for u in table.unique_keys:
            u.parts = [p for p in u.parts if part_name(p).lower() != name]
        table.unique_keys = [u for u in table.unique_keys if u.parts]

    def _redefine(self, table, old_name, decl, position, resolver):
        i = table.index_of(old_name)
        if i is None:
            raise SchemaError(f"no column {old_name!r} in {table.name}")
        old = table.columns.pop(i)
        decl = dict(decl)
        pk_primary = decl.pop("primary_key", False)
        in_pk = old.name.lower() in (n.lower() for n in table.primary_key)
        col = resolver.column(decl, table.charset, table.collation, in_pk)
        col.origin = old.origin
        self._place(table, col, position, at=i)
        if col.name != old.name:
            low = old.name.lower()
            table.primary_key = [col.name if n.lower() == low else n
                                 for n in table.primary_key]
            for u in table.unique_keys:
                u.parts = [col.name + p[len(part_name(p)):] if part_name(p).lower() == low
                           else p for p in u.parts]
            if table.period:
                table.period = [col.name if n.lower() == low else n for n in table.period]
        if pk_primary:
            self._set_primary_key(table, [col.name])
        if decl.get("unique"):
            self._add_unique(table, None, [col.name])

    def _op_modify_column(self, table, action, resolver):
        name = action["column"]["name"]
        if action.get("if_exists") and table.column(name) is None:
            return
        self._redefine(table, name, action["column"], action.get("position"), resolver)

    def _op_change_column(self, table, action, resolver):
        if action.get("if_exists") and table.column(action["old"]) is None:
            return
        new = action["column"]["name"]
        if new.lower() != action["old"].lower() and table.column(new) is not None:
            raise SchemaError(f"CHANGE {action['old']!r} {new!r}: {table.name} has a column "
                              f"{new!r}")
        self._redefine(table, action["old"], action["column"], action.get("position"),
                       resolver)

    def _op_rename_column(self, table, action, resolver):
        c = table.column(action["old"])
        if c is None:
            raise SchemaError(f"RENAME COLUMN {action['old']!r}: no such column in "
                              f"{table.name}")
        decl = dict(c.declaration, name=action["new"])
        if c.hidden:
            raise SchemaError(f"RENAME COLUMN {c.name!r}: a column the server adds")
        i = table.index_of(c.name)
        table.columns[i].name = action["new"]
        table.columns[i].declaration = decl
        low = action["old"].lower()
        table.primary_key = [action["new"] if n.lower() == low else n for n in table.primary_key]
        for u in table.unique_keys:
            u.parts = [action["new"] + p[len(part_name(p)):] if part_name(p).lower() == low
                       else p for p in u.parts]

    def _op_set_default(self, table, action, resolver):
        c = self._column(table, action["name"])
        c.default, c.has_default = action["default"], True
        c.declaration["default"] = action["default"]

    def _op_drop_default(self, table, action, resolver):
        c = self._column(table, action["name"])
        c.default, c.has_default = None, False
        c.declaration.pop("default", None)

    def _op_set_visibility(self, table, action, resolver):
        c = self._column(table, action["name"])
        c.invisible = action["invisible"]
        c.declaration["invisible"] = action["invisible"]

    @staticmethod
    def _column(table, name) -> Column:
        c = table.column(name)
        if c is None:
            raise SchemaError(f"no column {name!r} in {table.name}")
        return c

    def _op_add_primary_key(self, table, action, resolver):
        if table.primary_key:
            raise SchemaError(f"ADD PRIMARY KEY: {table.name} has one")
        self._set_primary_key(table, action["parts"])

    def _op_drop_primary_key(self, table, action, resolver):
        table.primary_key, table.primary_key_prefixes = [], []

    def _op_add_unique(self, table, action, resolver):
        if any(isinstance(p, dict) for p in action["parts"]):
            raise SchemaError("a functional key part: the server adds a hidden generated "
                              "column whose type is the expression's (not modelled)")
        self._add_unique(table, action.get("name"), action["parts"], action.get("hash"))

    def _op_drop_index(self, table, action, resolver):
        name = action["name"].lower()
        if name == "primary":
            table.primary_key, table.primary_key_prefixes = [], []
            return
        table.unique_keys = [u for u in table.unique_keys if u.name.lower() != name]

    def _op_convert_charset(self, table, action, resolver):
        charset, collation = resolver.charset_pair(action.get("charset"),
                                                   action.get("collation"))
        table.charset, table.collation = charset, collation
        table.columns = [resolver.converted(c, charset, collation) if not c.hidden else c
                         for c in table.columns]

    def _op_default_charset(self, table, action, resolver):
        charset, collation = resolver.charset_pair(action.get("charset"),
                                                   action.get("collation"))
        table.charset, table.collation = charset, collation

    def _op_add_system_versioning(self, table, action, resolver):
        if table.system_versioning:
            raise SchemaError(f"{table.name} is system-versioned already")
        table.system_versioning = True

    def _op_drop_system_versioning(self, table, action, resolver):
        if table.period:
            gone = {n.lower() for n in table.period}
            table.columns = [c for c in table.columns if c.name.lower() not in gone]
            table.primary_key = [n for n in table.primary_key if n.lower() not in gone]
            table.primary_key_prefixes = table.primary_key_prefixes[:len(table.primary_key)]
        table.system_versioning, table.period = False, None

    def _op_add_period(self, table, action, resolver):
        table.period = list(action["period"])

    def _op_drop_period(self, table, action, resolver):
        table.period = None

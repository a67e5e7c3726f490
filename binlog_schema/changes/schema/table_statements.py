"""The statements that create, drop or rename databases, tables and sequences, as
:class:`~binlog_schema.changes.schema.history.SchemaHistory` replays them: CREATE / ALTER /
DROP DATABASE, CREATE TABLE (``LIKE``, ``... SELECT``), MariaDB's CREATE SEQUENCE, DROP
TABLE / SEQUENCE, TRUNCATE, RENAME TABLE (:class:`TableStatements`).
"""

from __future__ import annotations

import re

from .model import Database, SchemaError, Table
from .session import Outcome
from .table_keys import part_name


_SEQUENCE_COLUMNS = [   # MariaDB's sequence table (sql/sql_sequence.cc)
    ("next_not_cached_value", False), ("minimum_value", False), ("maximum_value", False),
    ("start_value", False), ("increment", False), ("cache_size", True),
    ("cycle_option", True), ("cycle_count", False)]


class TableStatements:
    """The handlers of :class:`~binlog_schema.changes.schema.history.SchemaHistory` for the
    statements on databases, and those that create, drop or rename a table (a mixin: it uses
    the history's bookkeeping and :class:`~.table_keys.TableKeys`)."""

    # ------------------------------------------------------------------ databases
    def _create_database(self, stmt, session, sql, position):
        key = self.key(stmt["name"])[0]
        if key in self.databases and stmt.get("if_not_exists"):
            return Outcome("unchanged", stmt["kind"])
        resolver = self._resolver(session)
        charset, collation = resolver.charset_pair(stmt.get("charset"), stmt.get("collation"))
        if not charset:
            charset, collation = self._db_defaults(None, session, resolver)
        self.databases[key] = Database(stmt["name"], charset, collation)
        return Outcome("changed", stmt["kind"], databases=[stmt["name"]])

    def _alter_database(self, stmt, session, sql, position):
        name = stmt.get("name") or session.database
        resolver = self._resolver(session)
        charset, collation = resolver.charset_pair(stmt.get("charset"), stmt.get("collation"))
        db = self.databases.setdefault(self.key(name)[0], Database(name))
        if charset:
            db.charset, db.collation = charset, collation
        return Outcome("changed", stmt["kind"], databases=[name])

    def _drop_database(self, stmt, session, sql, position):
        key = self.key(stmt["name"])[0]
        self.databases.pop(key, None)
        gone = [k for k in list(self.tables) + list(self.unknown) if k[0] == key]
        for k in gone:
            self.unknown.pop(k, None)
            if k in self.tables:
                self._set(k, None, position)
        return Outcome("changed", stmt["kind"], tables=sorted(set(gone)),
                       databases=[stmt["name"]])

    # ------------------------------------------------------------------ tables
    def _create_table(self, stmt, session, sql, position):
        spec = stmt["table"]
        ref = (spec.get("database") or session.database, spec["name"])
        key = self.key(*ref)
        if spec.get("temporary"):
            raise self._refuse("temporary tables are not modelled (they live in one "
                               "session; row events of them are not logged in row format)",
                               sql, position)
        if spec.get("if_not_exists") and (key in self.tables or key in self.unknown):
            return Outcome("unchanged", stmt["kind"])
        if ref[0] is None:
            raise self._refuse("no database: the statement names none and the session has "
                               "no default", sql, position)
        if "like" in spec:
            src_ref = (spec["like"][0] or session.database, spec["like"][1])
            src = self._get(src_ref, sql, position)
            table = src.copy()
            self._set(key, table, position, sql)
            return Outcome("changed", stmt["kind"], tables=[ref])
        if "select" in spec:
            declared = {c["name"].lower() for c in spec["columns"]}
            selected = _selected_names(spec["select"])
            if not spec["columns"] or selected is None or \
                    not all(s.lower() in declared for s in selected):
                raise self._refuse("CREATE TABLE ... SELECT: columns whose types come from "
                                   "the SELECT are not modelled (only columns the statement "
                                   "declares)", sql, position, [ref])
        resolver = self._resolver(session)
        table = self._new_table(ref, spec, session, resolver)
        self._set(key, table, position, sql)
        return Outcome("changed", stmt["kind"], tables=[ref])

    def _new_table(self, ref, spec, session, resolver) -> Table:
        charset, collation = resolver.charset_pair(spec.get("charset"), spec.get("collation"))
        if not charset:
            charset, collation = self._db_defaults(ref[0], session, resolver)
        table = Table(database=ref[0], name=ref[1], charset=charset, collation=collation,
                      engine=(spec.get("engine") or None))
        for part_list in [spec.get("primary_key") or []] + list(spec.get("unique_keys") or []) \
                + list(spec.get("indexes") or []):
            for part in part_list:
                if isinstance(part, dict):
                    raise SchemaError("a functional key part: the server adds a hidden "
                                      "generated column whose type is the expression's "
                                      "(not modelled)")
        pk_names = {part_name(p).lower() for p in spec.get("primary_key") or []}
        for decl in spec["columns"]:
            table.columns.append(resolver.column(decl, charset, collation,
                                                 decl["name"].lower() in pk_names))
        self._set_primary_key(table, spec.get("primary_key") or [])
        names = spec.get("unique_names") or [None] * len(spec.get("unique_keys") or [])
        hashes = spec.get("unique_hash") or [False] * len(names)
        for parts, name, h in zip(spec.get("unique_keys") or [], names, hashes):
            self._add_unique(table, name, parts, h)
        if spec.get("period"):
            table.period = list(spec["period"])
        if spec.get("system_versioning"):
            table.system_versioning = True
        self._finish(table, resolver)
        return table

    def _create_sequence(self, stmt, session, sql, position):
        ref = tuple(stmt["table"])
        key = self.key(*ref)
        if stmt.get("if_not_exists") and key in self.tables:
            return Outcome("unchanged", stmt["kind"])
        if stmt.get("as_type"):
            raise self._refuse("CREATE SEQUENCE ... AS type (MariaDB 11.5+) is not modelled",
                               sql, position, [ref])
        resolver = self._resolver(session)
        charset, collation = self._db_defaults(ref[0], session, resolver)
        table = Table(database=ref[0], name=ref[1], charset=charset, collation=collation,
                      sequence=True)
        for name, unsigned in _SEQUENCE_COLUMNS:
            decl = {"name": name, "type": "TINYINT(1)" if name == "cycle_option" else
                    "BIGINT(21)", "nullable": False}
            if unsigned:
                decl["unsigned"] = True
            table.columns.append(resolver.column(decl, charset, collation))
        self._set(key, table, position, sql)
        return Outcome("changed", stmt["kind"], tables=[ref])

    def _drop_table(self, stmt, session, sql, position):
        gone = []
        if stmt.get("temporary"):
            return Outcome("unchanged", stmt["kind"])
        for ref in stmt["tables"]:
            key = self.key(*ref)
            if key in self.tables or key in self.unknown:
                self.unknown.pop(key, None)
                self._set(key, None, position)
                gone.append(tuple(ref))
        return Outcome("changed" if gone else "unchanged", stmt["kind"], tables=gone)

    def _truncate(self, stmt, session, sql, position):
        self._get(tuple(stmt["table"]), sql, position, must=False)
        return Outcome("unchanged", stmt["kind"], tables=[tuple(stmt["table"])])

    def _rename_table(self, stmt, session, sql, position):
        moved = []
        for old, new in stmt["pairs"]:
            t = self._get(tuple(old), sql, position)
            t = t.copy()
            okey, nkey = self.key(*old), self.key(*new)
            self._set(okey, None, position)
            self._set(nkey, t, position, sql, carry=True)
            moved += [tuple(old), tuple(new)]
        return Outcome("changed", stmt["kind"], tables=moved)


def _selected_names(select: str):
    """The output names of ``SELECT a, b AS c FROM ...`` when each item is a plain column or
    has an alias; None otherwise."""
    m = re.match(r"(?is)\s*\(?\s*select\s+(?:distinct\s+|all\s+)?(.*?)\s+from\s", select + " ")
    if not m:
        m = re.match(r"(?is)\s*\(?\s*select\s+(.*)$", select)
        if not m:
            return None
    names = []
    for item in _split_top(m.group(1)):
        item = item.strip()
        am = re.search(r"(?is)\s(?:as\s+)?(`[^`]+`|\w+)\s*$", item)
        if am and not re.fullmatch(r"(?s)[`\w.]+", item):
            names.append(am.group(1).strip("`"))
        elif re.fullmatch(r"(?s)[`\w.]+", item) and item != "*" and not item.endswith(".*"):
            names.append(item.split(".")[-1].strip("`"))
        else:
            return None
    return names


def _split_top(text: str) -> list:
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return out

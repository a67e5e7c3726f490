"""CREATE TABLE in the DDL grammar, and a DDL text of such statements: :class:`Parser` reads
a table's elements (columns, keys, constraints, periods), key parts, index and table
options, and the statements of a text (CREATE TABLE, CREATE DATABASE, USE, SHOW CREATE TABLE
output); :func:`parse_ddl` and :func:`tables_from_ddl` give them to the fixtures generator.
"""

from __future__ import annotations

from .columns import ColumnParser


class Parser(ColumnParser):
    """``history=False`` (the generator's grammar) refuses what a fixture cannot hold:
    generated columns, system versioning, ``LIKE``, ``... SELECT``, functional key parts.
    ``history=True`` (the schema history's) reads them into the table dict (``generated``,
    ``expression``, ``system_versioning``, ``period``, ``like``, ``select``) and keeps key
    names and ``USING HASH`` (``unique_names``, ``unique_hash``)."""

    def key_parts(self) -> list:
        self.expect("(")
        parts = []
        while True:
            if self.tok.kind == "punct" and self.tok.text == "(":
                if not self.history:
                    raise self.error("functional key parts are not supported")
                parts.append({"expression": self.skip_parens()})
                self.accept_kw("ASC", "DESC")
                if not self.accept(","):
                    break
                continue
            name = self.ident("a key column")
            prefix = None
            if self.accept("("):
                prefix = self.number()
                self.expect(")")
            self.accept_kw("ASC", "DESC")
            parts.append(name if prefix is None else f"{name}({prefix})")
            if not self.accept(","):
                break
        self.expect(")")
        return parts

    def index_options(self, seen=None):
        """Skips index options; ``seen`` (a dict) gets ``using`` (BTREE, HASH...)."""
        while True:
            if self.accept_kw("USING", "TYPE"):
                using = self.ident().upper()
                if seen is not None:
                    seen["using"] = using
            elif self.accept_kw("KEY_BLOCK_SIZE"):
                self.accept("=")
                self.number()
            elif self.accept_kw("COMMENT"):
                self.string()
            elif self.accept_kw("WITH"):
                self.expect_kw("PARSER")
                self.ident()
            elif self.accept_kw("VISIBLE", "INVISIBLE", "IGNORED", "NOT"):
                self.accept_kw("IGNORED")
            elif self.accept_kw("ENGINE_ATTRIBUTE", "SECONDARY_ENGINE_ATTRIBUTE"):
                self.accept("=")
                self.string()
            elif self.accept_kw("CLUSTERING"):
                self.accept("=")
                self.ident()
            else:
                return

    def create_table(self, current_db) -> dict:
        start = self.tok
        flags = {}
        if self.accept_kw("OR"):
            self.expect_kw("REPLACE")
            flags["or_replace"] = True
        if self.accept_kw("TEMPORARY"):
            flags["temporary"] = True
        self.expect_kw("TABLE")
        if self.accept_kw("IF"):
            self.expect_kw("NOT")
            self.expect_kw("EXISTS")
            flags["if_not_exists"] = True
        db, name = self.qualified()
        table = {"name": name}
        if db or current_db:
            table["database"] = db or current_db
        if self.history:
            table.update(flags)
        paren_like = (self.tok.kind == "punct" and self.tok.text == "(" and
                      self.peek().is_kw("LIKE"))
        if self.tok.is_kw("LIKE") or paren_like:
            if not self.history:
                raise self.error("CREATE TABLE ... LIKE is not supported", start)
            self.accept("(")
            self.next()
            table["like"] = self.qualified()
            if paren_like:
                self.expect(")")
            return table
        if self.history and self.select_follows():
            table["columns"] = []
            self.table_options(table)
            return table
        self.expect("(")
        while True:
            self.table_element(table)
            if self.accept(","):
                continue
            self.expect(")")
            break
        table.setdefault("columns", [])
        keys = ("columns", "primary_key", "unique_keys", "indexes")
        ordered = {k: v for k, v in table.items() if k not in keys}
        ordered.update((k, table[k]) for k in keys if k in table)
        table.clear()
        table.update(ordered)
        self.table_options(table)
        return table

    def select_follows(self) -> bool:
        t = self.tok
        return t.is_kw("SELECT", "WITH", "TABLE", "VALUES") or (
            t.kind == "punct" and t.text == "(" and self.peek().is_kw("SELECT", "WITH"))

    def table_element(self, table, alter=False):
        """One element of a CREATE TABLE list (or of ALTER TABLE ... ADD): a column, a key,
        a constraint, a period; added to ``table`` (columns, primary_key, unique_keys,
        indexes, ...). Returns the column dict when it was a column."""
        t = self.tok
        if self.accept_kw("CONSTRAINT"):
            if not self.tok.is_kw("PRIMARY", "UNIQUE", "FOREIGN", "CHECK"):
                self.ident()
            t = self.tok
        if self.accept_kw("PRIMARY"):
            self.expect_kw("KEY")
            self.index_options()
            if table.get("primary_key"):
                raise self.error("two PRIMARY KEYs", t)
            table["primary_key"] = self.key_parts()
            self.index_options()
        elif self.accept_kw("UNIQUE"):
            self.accept_kw("KEY", "INDEX")
            self.if_not_exists()
            name = None
            if self.tok.kind != "punct":
                name = self.ident()
            seen = {}
            self.index_options(seen)
            table.setdefault("unique_keys", []).append(self.key_parts())
            self.index_options(seen)
            if self.history:
                table.setdefault("unique_names", []).append(name)
                table.setdefault("unique_hash", []).append(seen.get("using") == "HASH")
        elif t.is_kw("KEY", "INDEX", "FULLTEXT", "SPATIAL", "VECTOR"):
            self.next()
            self.accept_kw("KEY", "INDEX")
            self.if_not_exists()
            if self.tok.kind != "punct":
                self.ident()
            self.index_options()
            table.setdefault("indexes", []).append(self.key_parts())
            self.index_options()
        elif self.accept_kw("FOREIGN"):
            self.expect_kw("KEY")
            self.if_not_exists()
            if self.tok.kind != "punct":
                self.ident()
            self.skip_parens()
            self.expect_kw("REFERENCES")
            self.qualified()
            self.skip_parens()
            self.reference_options()
        elif self.accept_kw("CHECK"):
            self.skip_parens()
            self.accept_kw("NOT")
            self.accept_kw("ENFORCED")
        elif self.accept_kw("PERIOD"):
            if not self.history:
                raise self.error("system-versioned tables (PERIOD FOR SYSTEM_TIME) are not "
                                 "supported", t)
            self.expect_kw("FOR")
            if not self.accept_kw("SYSTEM_TIME"):
                raise self.error("application-time periods (PERIOD FOR name) are not "
                                 "modelled: only PERIOD FOR SYSTEM_TIME", t)
            self.expect("(")
            start = self.ident("a column name")
            self.expect(",")
            end = self.ident("a column name")
            self.expect(")")
            table["period"] = [start, end]
        else:
            if alter:
                self.accept_kw("COLUMN")
                self.if_not_exists()
            col = self.column_definition()
            if col.pop("primary_key", False):
                if table.get("primary_key"):
                    raise self.error("two PRIMARY KEYs", t)
                table["primary_key"] = [col["name"]]
            if col.pop("unique", False):
                table.setdefault("unique_keys", []).append([col["name"]])
                if self.history:
                    table.setdefault("unique_names", []).append(None)
                    table.setdefault("unique_hash", []).append(False)
            table.setdefault("columns", []).append(col)
            return col
        return None

    def if_not_exists(self) -> bool:
        if self.tok.is_kw("IF") and self.peek().is_kw("NOT"):
            self.next()
            self.next()
            self.expect_kw("EXISTS")
            return True
        return False

    def table_options(self, table):
        while True:
            self.accept(",")
            t = self.tok
            if t.kind in ("end",) or (t.kind == "punct" and t.text == ";"):
                return
            if self.accept_kw("DEFAULT"):
                continue
            if t.is_kw("CHARACTER", "CHARSET", "CHAR"):
                if self.next().text.upper() != "CHARSET":
                    self.expect_kw("SET")
                self.accept("=")
                table["charset"] = self.charset_name()
            elif self.accept_kw("COLLATE"):
                self.accept("=")
                table["collation"] = self.charset_name()
            elif self.accept_kw("ENGINE", "TYPE"):
                self.accept("=")
                table["engine"] = self.ident("an engine")
            elif self.accept_kw("COMMENT"):
                self.accept("=")
                table["comment"] = self.string()
            elif t.is_kw("WITH") and self.peek().is_kw("SYSTEM"):
                if not self.history:
                    raise self.error("WITH SYSTEM VERSIONING is not supported", t)
                self.next()
                self.next()
                self.expect_kw("VERSIONING")
                table["system_versioning"] = True
            elif self.history and (self.select_follows() or t.is_kw("AS", "IGNORE", "REPLACE")):
                start = t.pos
                self.skip_to_end_of_statement()
                table["select"] = self.text[start:self.tok.pos].strip()
                return
            elif self.accept_kw("PARTITION"):
                self.skip_to_end_of_statement()
                return
            elif t.kind == "ident":
                self.next()       # AUTO_INCREMENT=5, ROW_FORMAT=..., KEY_BLOCK_SIZE...
                self.accept("=")
                v = self.tok
                if v.kind in ("ident", "qident", "number", "string"):
                    self.next()
                elif v.kind == "punct" and v.text == "(":
                    self.skip_parens()
            else:
                raise self.error("unexpected table option")

    # -------------------------------------------------------------- statements
    def statements(self, database=None):
        """(kind, value) per statement: ("table", spec table), ("database", name) for
        CREATE DATABASE / USE, ("other", text) for statements outside the subset."""
        out = []
        while self.tok.kind != "end":
            if self.accept(";"):
                continue
            start = self.tok
            if start.is_kw("TABLE") and self.peek().kind in ("punct", "end") or (
                    start.kind == "ident" and start.text in ("Table",) and
                    self.peek().kind == "ident" and self.peek().text == "Create"):
                # the header of SHOW CREATE TABLE's tabular output
                self.next()
                self.next()
                if self.tok.is_kw("TABLE"):
                    self.next()
                continue
            if start.is_kw("CREATE"):
                self.next()
                if self.tok.is_kw("DATABASE", "SCHEMA"):
                    self.next()
                    if self.accept_kw("IF"):
                        self.expect_kw("NOT")
                        self.expect_kw("EXISTS")
                    database = self.ident("a database name")
                    out.append(("database", database))
                    self.skip_to_end_of_statement()
                    continue
                if self.tok.is_kw("TABLE", "TEMPORARY", "OR"):
                    table = self.create_table(database)
                    out.append(("table", table))
                    continue
            if start.is_kw("USE"):
                self.next()
                database = self.ident("a database name")
                out.append(("database", database))
                continue
            if start.kind == "ident" and self.peek().kind in ("ident", "punct", "qident") and \
                    self._tabular_row():
                continue
            self.skip_to_end_of_statement()
            out.append(("other", self.text[start.pos:self.tok.pos].strip()))
        return out

    def _tabular_row(self) -> bool:
        """SHOW CREATE TABLE's tabular output: ``name<TAB>CREATE TABLE ...``: skip the name."""
        t = self.tok
        nxt = self.peek()
        if nxt.is_kw("CREATE") and "\t" in self.text[t.pos:nxt.pos]:
            self.next()
            return True
        return False


def parse_ddl(text: str, database: str | None = None) -> list:
    """The statements of a DDL text (see :meth:`Parser.statements`)."""
    return Parser(text).statements(database)


def tables_from_ddl(text: str, database: str | None = None) -> list:
    """The table part of a fixture spec from CREATE TABLE statements (or SHOW CREATE TABLE
    output): one dict per table, in order."""
    return [v for kind, v in parse_ddl(text, database) if kind == "table"]

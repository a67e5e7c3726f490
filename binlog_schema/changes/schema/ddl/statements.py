"""The schema history's statements in the DDL grammar (``history=True``): CREATE, ALTER,
DROP and RENAME of tables, databases, indexes and sequences, TRUNCATE and USE, each read
into a dict with its ``kind`` (:func:`parse_statement`); statements that cannot change a
table's columns are ``other``.
"""

from __future__ import annotations

from .tables import Parser

# One statement of the schema history (history=True): a dict with its "kind".

# the first words of statements that cannot change a table's columns (nothing to model)
_NOT_SCHEMA = frozenset({
    "INSERT", "UPDATE", "DELETE", "REPLACE", "SELECT", "BEGIN", "COMMIT", "ROLLBACK",
    "SAVEPOINT", "RELEASE", "XA", "SET", "GRANT", "REVOKE", "FLUSH", "LOAD", "CALL", "DO",
    "HANDLER", "ANALYZE", "OPTIMIZE", "REPAIR", "CHECK", "CHECKSUM", "LOCK", "UNLOCK",
    "INSTALL", "UNINSTALL", "KILL", "RESET", "PURGE", "CHANGE", "START", "STOP", "SHOW",
    "EXPLAIN", "DESCRIBE", "DESC", "HELP", "PREPARE", "EXECUTE", "DEALLOCATE", "SIGNAL",
    "RESIGNAL", "GET", "CACHE", "SHUTDOWN", "BINLOG", "WITH", "VALUES", "TABLE", "IMPORT",
    "CLONE", "RESTART", "BACKUP", "SAVE", "USE",
})
# objects of CREATE / DROP / ALTER that are not tables (their DDL leaves table maps alone)
_NOT_TABLE_OBJECTS = frozenset({
    "VIEW", "TRIGGER", "PROCEDURE", "FUNCTION", "EVENT", "USER", "ROLE", "SERVER",
    "TABLESPACE", "LOGFILE", "RESOURCE", "SPATIAL", "PACKAGE", "AGGREGATE", "DEFINER",
    "ALGORITHM", "SQL", "INSTANCE", "UNDO", "SRS",
})


class _StatementParser(Parser):
    def __init__(self, text: str):
        super().__init__(text, history=True)

    def done(self):
        self.accept(";")
        if self.tok.kind != "end":
            raise self.error("unexpected text after the statement")

    def charset_clause(self, out: dict) -> bool:
        """``[DEFAULT] CHARACTER SET | CHARSET [=] x`` or ``[DEFAULT] COLLATE [=] x``."""
        t = self.tok
        if t.is_kw("DEFAULT") and self.peek().is_kw("CHARACTER", "CHARSET", "CHAR",
                                                    "COLLATE"):
            self.next()
            t = self.tok
        if t.is_kw("CHARACTER", "CHARSET", "CHAR"):
            if self.next().text.upper() != "CHARSET":
                self.expect_kw("SET")
            self.accept("=")
            out["charset"] = self.charset_name()
            return True
        if self.accept_kw("COLLATE"):
            self.accept("=")
            out["collation"] = self.charset_name()
            return True
        return False

    def statement(self, database):
        t = self.tok
        if t.kind == "end" or not t.is_kw(*(_NOT_SCHEMA | {
                "CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE", "USE"})):
            if t.kind == "ident" and t.text.upper() in _NOT_SCHEMA or t.kind == "end":
                return {"kind": "other"}
            if t.kind == "punct" and t.text == "(":
                return {"kind": "other"}       # (SELECT ...)
            return {"kind": "other"}
        word = self.next().text.upper()
        if word == "USE":
            name = self.ident("a database name")
            self.done()
            return {"kind": "use", "name": name}
        if word in _NOT_SCHEMA:
            return {"kind": "other"}
        if word == "CREATE":
            return self.create(database)
        if word == "ALTER":
            return self.alter(database)
        if word == "DROP":
            return self.drop(database)
        if word == "RENAME":
            if self.tok.is_kw("USER"):
                return {"kind": "other"}
            self.expect_kw("TABLE", "TABLES")
            pairs = []
            while True:
                self.if_exists()
                old = self.table_name(database)
                self.expect_kw("TO")
                pairs.append([old, self.table_name(database)])
                if not self.accept(","):
                    break
            self.wait_option()
            self.done()
            return {"kind": "rename_table", "pairs": pairs}
        # TRUNCATE [TABLE] t
        self.accept_kw("TABLE")
        name = self.table_name(database)
        self.wait_option()
        self.done()
        return {"kind": "truncate", "table": name}

    def if_exists(self) -> bool:
        if self.tok.is_kw("IF") and self.peek().is_kw("EXISTS"):
            self.next()
            self.next()
            return True
        return False

    def wait_option(self):
        if self.accept_kw("WAIT"):
            self.number()
        else:
            self.accept_kw("NOWAIT")

    def table_name(self, database):
        db, name = self.qualified()
        return [db or database, name]

    # -------------------------------------------------------------- CREATE
    def create(self, database):
        start = self.i
        self.accept_kw("OR") and self.expect_kw("REPLACE")
        self.accept_kw("TEMPORARY")
        t = self.tok
        if t.is_kw("TABLE"):
            self.i = start
            table = self.create_table(database)
            self.done()
            return {"kind": "create_table", "table": table}
        if t.is_kw("DATABASE", "SCHEMA"):
            self.next()
            out = {"kind": "create_database", "if_not_exists": self.if_not_exists()}
            out["name"] = self.ident("a database name")
            self.database_options(out)
            return out
        if t.is_kw("SEQUENCE"):
            self.next()
            out = {"kind": "create_sequence", "if_not_exists": self.if_not_exists()}
            out["table"] = self.table_name(database)
            if self.accept_kw("AS"):
                out["as_type"] = self.column_type()
            self.skip_to_end_of_statement()
            self.done()
            return out
        if t.is_kw("UNIQUE", "INDEX", "FULLTEXT", "SPATIAL", "ONLINE", "OFFLINE", "VECTOR"):
            self.accept_kw("ONLINE", "OFFLINE")
            unique = self.accept_kw("UNIQUE")
            self.accept_kw("FULLTEXT", "SPATIAL", "VECTOR")
            self.expect_kw("INDEX")
            self.if_not_exists()
            name = self.ident("an index name")
            seen = {}
            self.index_options(seen)
            self.expect_kw("ON")
            table = self.table_name(database)
            parts = self.key_parts()
            self.index_options(seen)
            self.skip_to_end_of_statement()   # ALGORITHM=, LOCK=
            self.done()
            return {"kind": "alter_table", "table": table, "actions": [
                {"op": "add_unique", "name": name, "parts": parts,
                 "hash": seen.get("using") == "HASH"} if unique else
                {"op": "add_index", "name": name, "parts": parts}]}
        return {"kind": "other"}     # VIEW, TRIGGER, USER, PROCEDURE, ...

    def database_options(self, out):
        while self.tok.kind != "end" and not (self.tok.kind == "punct" and
                                               self.tok.text == ";"):
            if self.charset_clause(out):
                continue
            if self.accept_kw("COMMENT"):
                self.accept("=")
                self.string()
                continue
            if self.accept_kw("ENCRYPTION", "READ"):
                self.accept_kw("ONLY")
                self.accept("=")
                self.next()
                continue
            if self.accept_kw("DEFAULT"):
                continue
            raise self.error("unexpected database option")
        self.done()

    # -------------------------------------------------------------- DROP
    def drop(self, database):
        temporary = self.accept_kw("TEMPORARY")
        t = self.tok
        if t.is_kw("TABLE", "TABLES", "SEQUENCE"):
            self.next()
            if_exists = self.if_exists()
            self.wait_option()
            tables = [self.table_name(database)]
            while self.accept(","):
                tables.append(self.table_name(database))
            self.wait_option()
            self.accept_kw("RESTRICT", "CASCADE")
            self.done()
            return {"kind": "drop_table", "tables": tables, "if_exists": if_exists,
                    "temporary": temporary}
        if t.is_kw("DATABASE", "SCHEMA"):
            self.next()
            if_exists = self.if_exists()
            name = self.ident("a database name")
            self.done()
            return {"kind": "drop_database", "name": name, "if_exists": if_exists}
        if t.is_kw("INDEX"):
            self.next()
            self.accept_kw("ONLINE", "OFFLINE")
            if_exists = self.if_exists()
            name = self.ident("an index name")
            self.expect_kw("ON")
            table = self.table_name(database)
            self.skip_to_end_of_statement()
            self.done()
            op = ({"op": "drop_primary_key"} if name.upper() == "PRIMARY" else
                  {"op": "drop_index", "name": name, "if_exists": if_exists})
            return {"kind": "alter_table", "table": table, "actions": [op]}
        return {"kind": "other"}

    # -------------------------------------------------------------- ALTER
    def alter(self, database):
        self.accept_kw("ONLINE", "OFFLINE")
        self.accept_kw("IGNORE")
        t = self.tok
        if t.is_kw("DATABASE", "SCHEMA"):
            self.next()
            out = {"kind": "alter_database", "name": database}
            if not self.tok.is_kw("DEFAULT", "CHARACTER", "CHARSET", "CHAR", "COLLATE",
                                  "COMMENT", "UPGRADE", "READ", "ENCRYPTION"):
                out["name"] = self.ident("a database name")
            if self.tok.is_kw("UPGRADE"):
                self.skip_to_end_of_statement()
                self.done()
                return {"kind": "other"}
            self.database_options(out)
            return out
        if t.is_kw("SEQUENCE"):
            return {"kind": "other"}     # ALTER SEQUENCE changes values, not columns
        if not t.is_kw("TABLE"):
            return {"kind": "other"}     # VIEW, USER, EVENT, ...
        self.next()
        if_exists = self.if_exists()
        table = self.table_name(database)
        self.wait_option()
        actions = []
        while self.tok.kind != "end" and not (self.tok.kind == "punct" and
                                               self.tok.text == ";"):
            if self.tok.is_kw("PARTITION"):   # the partitioning: no column changes
                self.skip_to_end_of_statement()
                break
            actions.append(self.alter_action(database))
            if not self.accept(","):
                if self.tok.kind == "end" or (self.tok.kind == "punct" and
                                              self.tok.text == ";"):
                    break
                if self.tok.is_kw("PARTITION"):
                    continue
                # table options may follow each other without commas
                if actions and actions[-1]["op"] in ("option", "default_charset"):
                    continue
                raise self.error("expected ',' between ALTER TABLE clauses")
        self.done()
        return {"kind": "alter_table", "table": table, "actions": actions,
                "if_exists": if_exists}

    def position(self):
        if self.accept_kw("FIRST"):
            return "first"
        if self.accept_kw("AFTER"):
            return ["after", self.ident("a column name")]
        return None

    def alter_action(self, database):
        t = self.tok
        if self.accept_kw("ADD"):
            if self.accept_kw("SYSTEM"):
                self.expect_kw("VERSIONING")
                return {"op": "add_system_versioning"}
            if self.tok.is_kw("PARTITION"):
                self.next()
                self.skip_parens()
                return {"op": "noop", "what": "ADD PARTITION"}
            if self.tok.is_kw("COLUMN") and self.peek().kind == "punct":
                self.next()            # ADD COLUMN (a INT, b INT)
            if self.tok.kind == "punct" and self.tok.text == "(":
                self.next()
                cols = []
                while True:
                    part = {}
                    col = self.table_element(part, alter=True)
                    if col is None:
                        raise self.error("ADD ( ... ) holds column definitions")
                    cols.append(col)
                    if not self.accept(","):
                        break
                self.expect(")")
                return {"op": "add_columns", "columns": cols}
            part = {}
            col = self.table_element(part, alter=True)
            if col is not None:
                return {"op": "add_column", "column": col, "position": self.position(),
                        "extra": {k: v for k, v in part.items() if k != "columns"}}
            if "primary_key" in part:
                return {"op": "add_primary_key", "parts": part["primary_key"]}
            if "unique_keys" in part:
                return {"op": "add_unique", "name": part["unique_names"][0],
                        "parts": part["unique_keys"][0], "hash": part["unique_hash"][0]}
            if "indexes" in part:
                return {"op": "add_index", "parts": part["indexes"][0]}
            if "period" in part:
                return {"op": "add_period", "period": part["period"]}
            return {"op": "noop", "what": "ADD " + t.text}
        if self.accept_kw("DROP"):
            if self.accept_kw("SYSTEM"):
                self.expect_kw("VERSIONING")
                return {"op": "drop_system_versioning"}
            if self.accept_kw("PRIMARY"):
                self.expect_kw("KEY")
                return {"op": "drop_primary_key"}
            if self.accept_kw("INDEX", "KEY"):
                if_exists = self.if_exists()
                return {"op": "drop_index", "name": self.ident("an index name"),
                        "if_exists": if_exists}
            if self.accept_kw("FOREIGN", "CHECK", "CONSTRAINT"):
                self.accept_kw("KEY")
                self.if_exists()
                name = self.ident("a constraint name")
                return {"op": "drop_constraint", "name": name}
            if self.accept_kw("PARTITION"):
                self.skip_to_end_of_statement()
                return {"op": "noop", "what": "DROP PARTITION"}
            if self.accept_kw("PERIOD"):
                self.expect_kw("FOR")
                self.expect_kw("SYSTEM_TIME")
                return {"op": "drop_period"}
            self.accept_kw("COLUMN")
            if_exists = self.if_exists()
            name = self.ident("a column name")
            self.accept_kw("RESTRICT", "CASCADE")
            return {"op": "drop_column", "name": name, "if_exists": if_exists}
        if self.tok.is_kw("MODIFY", "CHANGE"):
            op = self.next().text.upper()
            self.accept_kw("COLUMN")
            if_exists = self.if_exists()
            old = self.ident("a column name") if op == "CHANGE" else None
            col = self.column_definition()
            out = {"op": "modify_column" if op == "MODIFY" else "change_column",
                   "column": col, "position": self.position(), "if_exists": if_exists}
            if old is not None:
                out["old"] = old
            return out
        if self.accept_kw("ALTER"):
            if self.accept_kw("INDEX", "KEY", "CONSTRAINT", "CHECK"):
                self.ident()
                while self.accept_kw("NOT", "IGNORED", "VISIBLE", "INVISIBLE", "ENFORCED"):
                    pass
                return {"op": "noop", "what": "ALTER INDEX"}
            self.accept_kw("COLUMN")
            self.if_exists()
            name = self.ident("a column name")
            if self.accept_kw("SET"):
                if self.accept_kw("DEFAULT"):
                    return {"op": "set_default", "name": name, "default": self.default_value()}
                vis = self.expect_kw("VISIBLE", "INVISIBLE")
                return {"op": "set_visibility", "name": name, "invisible": vis == "INVISIBLE"}
            self.expect_kw("DROP")
            self.expect_kw("DEFAULT")
            return {"op": "drop_default", "name": name}
        if self.accept_kw("RENAME"):
            if self.accept_kw("COLUMN"):
                self.if_exists()
                old = self.ident("a column name")
                self.expect_kw("TO")
                return {"op": "rename_column", "old": old, "new": self.ident("a column name")}
            if self.accept_kw("INDEX", "KEY"):
                old = self.ident("an index name")
                self.expect_kw("TO")
                return {"op": "rename_index", "old": old, "new": self.ident("an index name")}
            self.accept_kw("TO", "AS")
            return {"op": "rename_table", "to": self.table_name(database)}
        if self.accept_kw("CONVERT"):
            self.expect_kw("TO")
            out = {"op": "convert_charset"}
            if not self.charset_clause(out) or "charset" not in out:
                raise self.error("expected CONVERT TO CHARACTER SET")
            self.charset_clause(out)
            return out
        out = {"op": "default_charset"}
        if self.charset_clause(out):
            self.charset_clause(out)
            return out
        if self.accept_kw("ALGORITHM", "LOCK"):
            self.accept("=")
            return {"op": "noop", "what": t.text.upper() + "=" + self.ident()}
        if self.tok.is_kw("FORCE", "ENABLE", "DISABLE", "DISCARD", "IMPORT", "ORDER",
                          "WITH", "WITHOUT", "COALESCE", "REORGANIZE", "EXCHANGE", "ANALYZE",
                          "CHECK", "OPTIMIZE", "REBUILD", "REPAIR", "TRUNCATE", "REMOVE",
                          "UPGRADE", "SECONDARY_LOAD", "SECONDARY_UNLOAD"):
            word = self.next().text.upper()
            depth = 0
            while self.tok.kind != "end":   # to the next clause
                k = self.tok
                if k.kind == "punct" and k.text in "(),;":
                    if k.text == "(":
                        depth += 1
                    elif k.text == ")":
                        depth -= 1
                    elif depth == 0:
                        break
                self.next()
            return {"op": "noop", "what": word}
        # table options: ENGINE=, AUTO_INCREMENT=, COMMENT=, ROW_FORMAT=, ...
        if t.kind == "ident":
            name = self.next().text.upper()
            self.accept("=")
            v = self.tok
            value = None
            if v.kind in ("ident", "qident", "number", "string"):
                value = self.next().text
            elif v.kind == "punct" and v.text == "(":
                self.skip_parens()
            return {"op": "option", "name": name, "value": value}
        raise self.error("unexpected ALTER TABLE clause")


def parse_statement(text: str, database: str | None = None) -> dict:
    """One statement of the schema history's grammar (see :class:`_StatementParser`): a dict
    with ``kind`` (create_table, create_sequence, create_database, alter_database,
    drop_database, alter_table, rename_table, drop_table, truncate, use, other). ``other`` is a
    statement that cannot change a table's columns (DML, GRANT, CREATE VIEW...). Raises
    :class:`DDLError` (naming line, column and text) for DDL outside the grammar."""
    return _StatementParser(text).statement(database)

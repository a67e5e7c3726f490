"""Column definitions in the DDL grammar: :class:`ColumnParser` reads a column (its type,
NULL / NOT NULL, DEFAULT, AUTO_INCREMENT, column-level keys, COMMENT, visibility, generated
columns, system versioning, ...), its DEFAULT values and the options of a reference.
"""

from __future__ import annotations

import re

from .column_types import TypeParser


class ColumnParser(TypeParser):
    """The type grammar with column definitions."""

    # -------------------------------------------------------------- column definitions
    def column_definition(self) -> dict:
        name_tok = self.tok
        name = self.ident("a column name")
        col = {"name": name}
        col.update(self.column_type())
        while True:
            t = self.tok
            if self.accept_kw("NOT"):
                self.expect_kw("NULL")
                col["nullable"] = False
            elif self.accept_kw("NULL"):
                col["nullable"] = True
            elif self.accept_kw("DEFAULT"):
                col["default"] = self.default_value()
            elif self.accept_kw("AUTO_INCREMENT"):
                col["auto_increment"] = True
            elif self.accept_kw("UNIQUE"):
                self.accept_kw("KEY")
                col["unique"] = True
            elif self.accept_kw("PRIMARY"):
                self.expect_kw("KEY")
                col["primary_key"] = True
            elif self.accept_kw("KEY"):
                col["primary_key"] = True
            elif self.accept_kw("COMMENT"):
                col["comment"] = self.string()
            elif self.accept_kw("INVISIBLE"):
                col["invisible"] = True
            elif self.accept_kw("VISIBLE"):
                col["invisible"] = False
            elif self.accept_kw("ON"):
                self.expect_kw("UPDATE")
                col["on_update"] = self.default_value()
            elif t.is_kw("GENERATED", "AS"):
                if not self.history:
                    raise self.error(f"column {name!r}: generated columns are not supported "
                                     "(their values are computed by the server)", name_tok)
                self.generated(col)
            elif t.is_kw("COLLATE", "CHARACTER", "CHARSET", "UNSIGNED", "ZEROFILL",
                         "COMPRESSED", "BINARY", "SIGNED"):
                # attributes in any order (MariaDB accepts COLLATE after NOT NULL)
                extra = self.column_type_attributes()
                for k, v in extra.items():
                    col[k] = v
            elif self.accept_kw("SRID", "REF_SYSTEM_ID"):
                self.accept("=")
                col["srid"] = self.number()
            elif self.accept_kw("COLUMN_FORMAT", "STORAGE"):
                self.ident()
            elif self.accept_kw("CHECK"):
                self.skip_parens()
            elif self.accept_kw("CONSTRAINT"):
                if not self.tok.is_kw("CHECK"):
                    self.ident()
            elif self.accept_kw("REFERENCES"):
                self.qualified()
                if self.tok.kind == "punct" and self.tok.text == "(":
                    self.skip_parens()
                self.reference_options()
            elif self.tok.is_kw("WITHOUT", "WITH"):
                with_ = self.next().text.upper() == "WITH"
                self.expect_kw("SYSTEM")
                self.expect_kw("VERSIONING")
                if self.history:
                    col["versioning"] = with_
            elif self.accept_kw("ENGINE_ATTRIBUTE", "SECONDARY_ENGINE_ATTRIBUTE"):
                self.accept("=")
                self.string()
            else:
                break
        return col

    def generated(self, col):
        """``[GENERATED ALWAYS] AS (expr) [VIRTUAL | STORED | PERSISTENT]`` or MariaDB's
        ``GENERATED ALWAYS AS ROW START | END`` (a system-versioned table's period columns)."""
        if self.accept_kw("GENERATED"):
            self.expect_kw("ALWAYS")
        self.expect_kw("AS")
        if self.accept_kw("ROW"):
            col["generated"] = "row_" + self.expect_kw("START", "END").lower()
            return
        col["expression"] = self.skip_parens()
        kind = "virtual"
        if self.tok.is_kw("VIRTUAL", "STORED", "PERSISTENT"):
            kind = "virtual" if self.next().text.upper() == "VIRTUAL" else "stored"
        col["generated"] = kind

    def default_value(self):
        """A DEFAULT: a constant (int, float, str, None) or {"sql": text} for an
        expression (CURRENT_TIMESTAMP(3), (expr), ...)."""
        t = self.tok
        neg = False
        if t.kind == "punct" and t.text in "-+":
            neg = t.text == "-"
            self.next()
            t = self.tok
        if t.kind == "number":
            self.next()
            text = ("-" if neg else "") + t.text
            return int(text) if re.fullmatch(r"-?\d+", text) else text
        if t.kind == "string":
            self.next()
            return t.text
        if t.kind == "hex":
            self.next()
            return {"hex": t.text.lower()}
        if t.kind == "bits":
            self.next()
            return int(t.text or "0", 2)
        if t.is_kw("NULL"):
            self.next()
            return None
        if t.is_kw("TRUE", "FALSE"):
            self.next()
            return int(t.text.upper() == "TRUE")
        if t.kind == "punct" and t.text == "(":
            return {"sql": "(" + self.skip_parens() + ")"}
        if t.kind == "ident":
            start = t.pos
            self.next()
            if self.tok.kind == "punct" and self.tok.text == "(":
                self.skip_parens()
            end = self.toks[self.i - 1]
            return {"sql": self.text[start:end.pos + len(end.text)]}
        raise self.error("expected a DEFAULT value")

    def reference_options(self):
        """MATCH FULL|PARTIAL|SIMPLE, ON DELETE|UPDATE RESTRICT|CASCADE|SET NULL|SET DEFAULT|
        NO ACTION (skipped)."""
        while True:
            if self.accept_kw("MATCH"):
                self.ident()
            elif self.accept_kw("ON"):
                self.expect_kw("DELETE", "UPDATE")
                if self.accept_kw("SET", "NO"):
                    self.expect_kw("NULL", "DEFAULT", "ACTION")
                else:
                    self.expect_kw("RESTRICT", "CASCADE")
            else:
                return

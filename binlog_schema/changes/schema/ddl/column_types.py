"""Column types in the DDL grammar: the known types and their aliases, the canonical type
text (:func:`canonical_type`, :func:`split_type`, :func:`quote_string`), and
:class:`TypeParser`, which reads a data type with its attributes (also the ``type`` of a
column in a hand-written spec: :func:`parse_column_type`).
"""

from __future__ import annotations

import re

from .cursor import Cursor
from .tokens import DDLError, tokenize

KNOWN_TYPES = frozenset({
    "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE", "BIT",
    "DATE", "TIME", "DATETIME", "TIMESTAMP", "YEAR", "CHAR", "VARCHAR", "BINARY", "VARBINARY",
    "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT",
    "ENUM", "SET", "JSON", "GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT",
    "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION", "INET4", "INET6", "UUID",
    "VECTOR", "NCHAR", "NVARCHAR", "SERIAL", "BOOL", "BOOLEAN", "DEC", "NUMERIC", "FIXED",
    "REAL",
})
TYPE_ALIASES = {
    "INTEGER": "INT", "INT1": "TINYINT", "INT2": "SMALLINT", "INT3": "MEDIUMINT",
    "INT4": "INT", "INT8": "BIGINT", "MIDDLEINT": "MEDIUMINT", "BOOL": "TINYINT",
    "BOOLEAN": "TINYINT", "SERIAL": "BIGINT", "FLOAT4": "FLOAT", "FLOAT8": "DOUBLE",
    "DOUBLE PRECISION": "DOUBLE", "REAL": "DOUBLE", "DEC": "DECIMAL", "NUMERIC": "DECIMAL",
    "FIXED": "DECIMAL", "CHARACTER": "CHAR", "GEOMCOLLECTION": "GEOMETRYCOLLECTION",
    "NATIONAL": "NCHAR",
}
_ARGS = {  # how many numeric arguments a type takes
    "TINYINT": 1, "SMALLINT": 1, "MEDIUMINT": 1, "INT": 1, "BIGINT": 1, "DECIMAL": 2,
    "FLOAT": 2, "DOUBLE": 2, "BIT": 1, "TIME": 1, "DATETIME": 1, "TIMESTAMP": 1, "YEAR": 1,
    "CHAR": 1, "VARCHAR": 1, "BINARY": 1, "VARBINARY": 1, "BLOB": 1, "TEXT": 1, "VECTOR": 1,
}


def quote_string(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "''") + "'"


def canonical_type(base: str, args, members=None) -> str:
    base = TYPE_ALIASES.get(base, base)
    if members is not None:
        return f"{base}({','.join(quote_string(m) for m in members)})"
    limit = _ARGS.get(base, 0)
    if len(args) > limit:
        raise DDLError(f"{base} takes at most {limit} argument(s), got {len(args)}")
    return f"{base}({','.join(str(a) for a in args)})" if args else base


def split_type(type_text: str):
    """(base, args, members) of a canonical type text."""
    m = re.fullmatch(r"([A-Z0-9_]+)(?:\((.*)\))?", type_text.strip(), re.S)
    if not m:
        raise DDLError(f"not a canonical type: {type_text!r}")
    base, inner = m.group(1), m.group(2)
    if base in ("ENUM", "SET"):
        toks = tokenize(inner or "")
        members = [t.text for t in toks if t.kind == "string"]
        return base, [], members
    args = [int(a) for a in inner.split(",")] if inner else []
    return base, args, None


class TypeParser(Cursor):
    """The cursor with the grammar of column types."""

    # -------------------------------------------------------------- column types
    def column_type(self) -> dict:
        """A data type with the attributes that belong to it: the dict of a spec column
        (``type`` in canonical form, ``unsigned``, ``zerofill``, ``charset``, ``collation``,
        ``binary``, ``members``...)."""
        t = self.tok
        if t.kind != "ident":
            raise self.error("expected a column type")
        name = self.next().text.upper()
        out: dict = {}
        if name in ("DOUBLE",) and self.accept_kw("PRECISION"):
            pass
        if name in ("CHARACTER", "CHAR", "NATIONAL", "NCHAR", "LONG") and self.tok.is_kw(
                "VARYING", "CHAR", "CHARACTER", "VARCHAR", "VARBINARY"):
            follow = self.next().text.upper()
            name = {("CHARACTER", "VARYING"): "VARCHAR", ("CHAR", "VARYING"): "VARCHAR",
                    ("NATIONAL", "CHAR"): "NCHAR", ("NATIONAL", "CHARACTER"): "NCHAR",
                    ("NATIONAL", "VARCHAR"): "NVARCHAR", ("NCHAR", "VARCHAR"): "NVARCHAR",
                    ("LONG", "VARCHAR"): "MEDIUMTEXT", ("LONG", "VARBINARY"): "MEDIUMBLOB",
                    }.get((name, follow), name)
            if name == "NCHAR" and self.accept_kw("VARYING"):
                name = "NVARCHAR"
        elif name == "LONG":
            name = "MEDIUMTEXT"
        base = TYPE_ALIASES.get(name, name)
        if base not in KNOWN_TYPES:
            raise self.error(f"unknown column type {name}", t)
        if base in ("NCHAR", "NVARCHAR"):
            out["charset"] = "utf8mb3"
            base = base[1:] if base == "NCHAR" else "VARCHAR"
        args = []
        members = None
        if self.tok.kind == "punct" and self.tok.text == "(":
            self.next()
            if base in ("ENUM", "SET"):
                members = []
                while True:
                    if self.tok.kind != "string":
                        raise self.error(f"{base} members are quoted strings")
                    members.append(self.next().text)
                    if not self.accept(","):
                        break
            else:
                while True:
                    args.append(self.number())
                    if not self.accept(","):
                        break
            self.expect(")")
        if name in ("BOOL", "BOOLEAN"):
            args = [1]
        if name == "SERIAL":
            out.update(unsigned=True, nullable=False, auto_increment=True, unique=True)
        if name in ("DEC", "NUMERIC", "FIXED"):
            base = "DECIMAL"
        if name == "REAL" or name == "DOUBLE PRECISION":
            base = "DOUBLE"
        out["type"] = canonical_type(base, args, members)
        if members is not None:
            out["members"] = members
        # attributes that follow the type
        while True:
            if self.accept_kw("UNSIGNED"):
                out["unsigned"] = True
            elif self.accept_kw("SIGNED"):
                out["unsigned"] = False
            elif self.accept_kw("ZEROFILL"):
                out["zerofill"] = True
                out["unsigned"] = True
            elif self.tok.is_kw("CHARACTER", "CHARSET", "CHAR"):
                if self.next().text.upper() in ("CHARACTER", "CHAR"):
                    self.expect_kw("SET")
                out["charset"] = self.charset_name()
            elif self.accept_kw("COLLATE"):
                out["collation"] = self.charset_name()
            elif self.accept_kw("BINARY"):
                out["binary"] = True
            elif self.accept_kw("ASCII"):
                out["charset"] = "latin1"
            elif self.accept_kw("UNICODE"):
                out["charset"] = "ucs2"
            elif self.accept_kw("BYTE"):
                out["charset"] = "binary"
            elif self.tok.is_kw("COMPRESSED"):
                self.next()
                out["compressed"] = True
                if self.accept("="):
                    self.ident("a compression method")
            else:
                break
        return out

    def charset_name(self) -> str:
        if self.accept_kw("DEFAULT"):
            return "DEFAULT"
        return self.ident("a character set or collation").lower()

    def column_type_attributes(self) -> dict:
        out = {}
        while True:
            if self.accept_kw("UNSIGNED"):
                out["unsigned"] = True
            elif self.accept_kw("SIGNED"):
                out["unsigned"] = False
            elif self.accept_kw("ZEROFILL"):
                out["zerofill"] = out["unsigned"] = True
            elif self.tok.is_kw("CHARACTER", "CHARSET"):
                if self.next().text.upper() == "CHARACTER":
                    self.expect_kw("SET")
                out["charset"] = self.charset_name()
            elif self.accept_kw("COLLATE"):
                out["collation"] = self.charset_name()
            elif self.accept_kw("BINARY"):
                out["binary"] = True
            elif self.accept_kw("COMPRESSED"):
                out["compressed"] = True
                if self.accept("="):
                    self.ident()
            else:
                return out


def parse_column_type(text: str) -> dict:
    """``"DECIMAL(10,2) UNSIGNED"``, ``"ENUM('a','b') CHARACTER SET latin1"``... -> the
    column dict keys the type text holds (type, unsigned, charset, ...)."""
    p = TypeParser(text)
    out = p.column_type()
    extra = p.column_type_attributes()
    out.update(extra)
    if p.tok.kind != "end":
        raise p.error("unexpected text after the column type")
    return out

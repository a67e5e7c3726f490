"""Databases, tables and columns as the schema history knows them, each column resolved to
what the server writes for it in a TABLE_MAP.

A :class:`Column` keeps its SQL declaration (``sql_type``, ``length``, ``members``,
``charset``/``collation``, ``default``, ``invisible``, ``generated``...) and the facts a
TABLE_MAP carries for it, under the names of :class:`binlog_schema.changes.table_map.Column`:
``type`` (a name of :mod:`binlog_schema.format.facts.coltypes`: ``LONG``, ``VARCHAR``, ``STRING``,
``NEWDECIMAL``...), ``real_type`` (``STRING``/``ENUM``/``SET`` of a ``STRING``),
``max_length``, ``precision``/``scale``, ``fsp``, ``bits``, ``pack_length``,
``geometry_type``, ``vector_dimensions``, ``unsigned`` (YEAR included: it is numeric),
``collation_id`` (:mod:`binlog_schema.format.facts.charsets`), ``nullable``. ``hidden`` names a
column the server adds itself (MariaDB's ``DB_ROW_HASH_n`` of a long UNIQUE key, the
``row_start``/``row_end`` of a system-versioned table): it is in the table maps although no
statement declares it.

A :class:`Table` is one version of a table: its columns in order, its primary key (column
names in key order, MariaDB's ``row_end`` included for a system-versioned table), its
unique keys, defaults, and ``version`` (1 for the first definition the history saw of that
name, one more for each change; a table dropped and created again continues the count).
:meth:`Table.check` compares it with a TABLE_MAP; :meth:`Table.binlog_columns` gives the
columns as :class:`~binlog_schema.changes.table_map.Column` (names, ENUM/SET members, keys:
what a FULL table map would add to a MINIMAL one).

Resolution follows the server of ``flavor`` and version (:class:`Resolver`): a column's
character set is its own, else the table's, else the database's, else the session's
``collation_server``; a character set's default collation may be overridden by the session
(MySQL's ``default_collation_for_utf8mb4``, MariaDB's ``character_set_collations``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from ...format.facts import charsets as coll
from ...format.facts.coltypes import OLD_TEMPORAL
from ...format.facts.flavor import json_is_binary, version_tuple
from .ddl.column_types import split_type
from .ddl.tokens import DDLError


class SchemaError(DDLError):
    """A declaration the history cannot resolve (an unknown collation, a bad length...)."""


INT_BINLOG = {"TINYINT": "TINY", "SMALLINT": "SHORT", "MEDIUMINT": "INT24", "INT": "LONG",
              "BIGINT": "LONGLONG"}
GEOMETRY_TYPES = {"GEOMETRY": 0, "POINT": 1, "LINESTRING": 2, "POLYGON": 3, "MULTIPOINT": 4,
                  "MULTILINESTRING": 5, "MULTIPOLYGON": 6, "GEOMETRYCOLLECTION": 7}
TEXT_TYPES = {"TINYTEXT": 1, "TEXT": 2, "MEDIUMTEXT": 3, "LONGTEXT": 4}
BLOB_TYPES = {"TINYBLOB": 1, "BLOB": 2, "MEDIUMBLOB": 3, "LONGBLOB": 4}
CHARACTER_TYPES = {"CHAR", "VARCHAR", "ENUM", "SET"} | set(TEXT_TYPES)
FIXED_BINARY = {"INET4": 4, "INET6": 16, "UUID": 16}
# the types whose character set is binary (their collation is 63), whatever is declared
BINARY_CHARSET_TYPES = frozenset({"BINARY", "VARBINARY", "VECTOR"} | set(BLOB_TYPES)
                                 | set(FIXED_BINARY) | set(GEOMETRY_TYPES))
_BLOB_MAX = {1: 255, 2: 65535, 3: (1 << 24) - 1, 4: (1 << 32) - 1}


# the TABLE_MAP facts of a column, as model.table_map.Column names them
BINLOG_FIELDS = ("type", "real_type", "unsigned", "collation_id", "max_length", "precision",
                 "scale", "fsp", "bits", "pack_length", "geometry_type", "vector_dimensions",
                 "enum_values", "set_values")


def _part(part) -> tuple:
    """(column name, prefix length or 0) of a key part text ``name`` / ``name(10)``."""
    name, _, rest = part.partition("(")
    return name, int(rest.rstrip(")")) if rest else 0


def _pack_length(nbytes: int) -> int:
    return 1 if nbytes < 256 else 2 if nbytes < 65536 else 3 if nbytes < 1 << 24 else 4


@dataclass
class Column:
    name: str
    sql_type: str                      # the declared type's base: INT, VARCHAR, ENUM, JSON...
    type: str | None = None            # the TABLE_MAP type (format/facts/coltypes.py names)
    real_type: str | None = None       # STRING, ENUM or SET for a STRING column
    length: int | None = None          # declared length in characters (CHAR, VARCHAR, TEXT(n))
    max_length: int | None = None      # bytes (STRING, VARCHAR)
    precision: int | None = None
    scale: int | None = None
    fsp: int | None = None
    bits: int | None = None
    pack_length: int | None = None
    geometry_type: int | None = None
    vector_dimensions: int | None = None
    unsigned: bool | None = None       # numeric types only (YEAR is unsigned)
    zerofill: bool = False
    nullable: bool = True
    charset: str | None = None
    collation: str | None = None
    collation_id: int | None = None
    members: list | None = None        # ENUM/SET members, in order
    default: object = None
    has_default: bool = False
    auto_increment: bool = False
    invisible: bool = False            # declared INVISIBLE (or server-added and hidden)
    hidden: str | None = None          # added by the server: long_unique_hash, row_start, row_end
    generated: str | None = None       # virtual | stored | row_start | row_end
    expression: str | None = None      # a generated column's expression, as written
    compressed: bool = False
    srid: int | None = None
    comment: str | None = None
    declaration: dict = field(default_factory=dict, repr=False)  # the parsed column dict
    # which column this is across renames and redefinitions (given by the history: the same
    # number from its ADD or CREATE TABLE to its DROP; 0 until then)
    origin: int = field(default=0, repr=False, compare=False)

    @property
    def enum_values(self):
        return list(self.members) if self.real_type == "ENUM" else None

    @property
    def set_values(self):
        return list(self.members) if self.real_type == "SET" else None

    @property
    def kind(self) -> str | None:
        """ENUM/SET for STRING columns that are ENUM/SET, else the binlog type (as
        :attr:`binlog_schema.changes.table_map.Column.kind`)."""
        return self.real_type if self.real_type in ("ENUM", "SET") else self.type

    def binlog_facts(self) -> dict:
        """The TABLE_MAP facts of this column (:data:`BINLOG_FIELDS`, nullable)."""
        out = {k: getattr(self, k) for k in BINLOG_FIELDS}
        out["nullable"] = self.nullable
        return out

    def binlog_column(self, index: int, flavor: str | None = None):
        """This column as the TABLE_MAP's :class:`binlog_schema.changes.table_map.Column` at
        ``index`` (name, type facts, ENUM/SET members; ``visible`` on MySQL)."""
        from ..table_map import Column as MapColumn   # changes/ sits beside changes/schema/
        m = MapColumn(index=index, type=self.type, name=self.name)
        for k, v in self.binlog_facts().items():
            setattr(m, k, v)
        if flavor == "mysql":
            m.visible = not self.invisible
        return m

    def to_dict(self) -> dict:
        """A plain dict of the set facts (the vectors' form): name, sql_type, binlog facts,
        flags that are on."""
        out = {"name": self.name, "sql_type": self.sql_type}
        for k in BINLOG_FIELDS + ("length", "charset", "collation"):
            v = getattr(self, k)
            if v is not None:
                out[k] = v
        out["nullable"] = self.nullable
        for k in ("zerofill", "auto_increment", "invisible", "compressed"):
            if getattr(self, k):
                out[k] = True
        for k in ("hidden", "generated", "expression", "srid", "comment"):
            if getattr(self, k) is not None:
                out[k] = getattr(self, k)
        if self.has_default:
            out["default"] = self.default
        return out


@dataclass
class UniqueKey:
    name: str
    parts: list            # column names, "name(10)" with a prefix
    hash: bool = False     # MariaDB: enforced through a hidden DB_ROW_HASH_n column
    requested: bool = field(default=False, repr=False, compare=False)  # USING HASH, now


@dataclass
class Table:
    database: str
    name: str
    columns: list = field(default_factory=list)
    primary_key: list = field(default_factory=list)        # column names in key order
    primary_key_prefixes: list = field(default_factory=list)  # 0 = the whole column
    unique_keys: list = field(default_factory=list)        # UniqueKey
    charset: str | None = None
    collation: str | None = None
    engine: str | None = None
    system_versioning: bool = False
    period: list | None = None         # [row_start column, row_end column]
    sequence: bool = False             # a MariaDB SEQUENCE (its columns are fixed)
    version: int = 1
    since: object = None               # the position of the statement that made this version
    statement: str | None = None       # that statement
    # which table this is across renames and ALTERs (given by the history: a new number for
    # each CREATE TABLE, kept by ALTER and RENAME; 0 until then)
    origin: int = field(default=0, repr=False, compare=False)

    # ------------------------------------------------------------------ questions
    @property
    def column_names(self) -> list:
        return [c.name for c in self.columns]

    def index_of(self, name: str) -> int | None:
        """The position of a column (names are case-insensitive), or None."""
        low = name.lower()
        for i, c in enumerate(self.columns):
            if c.name.lower() == low:
                return i
        return None

    def column(self, name: str) -> Column | None:
        i = self.index_of(name)
        return None if i is None else self.columns[i]

    @property
    def primary_key_indexes(self) -> list:
        return [self.index_of(n) for n in self.primary_key]

    def effective_primary_key(self) -> tuple:
        """(names, prefixes) of the key the server treats as primary (and a FULL table map
        names): the PRIMARY KEY, else the first UNIQUE key whose columns are all NOT NULL."""
        if self.primary_key:
            return list(self.primary_key), list(self.primary_key_prefixes)
        for u in self.unique_keys:
            if u.hash:
                continue
            cols = [self.column(_part(p)[0]) for p in u.parts]
            if cols and all(c is not None and not c.nullable for c in cols):
                return [c.name for c in cols], [_part(p)[1] for p in u.parts]
        return [], []

    def binlog_columns(self, flavor: str | None = None):
        """The columns as :class:`binlog_schema.changes.table_map.Column` (index, name, type
        facts, ENUM/SET members; ``visible`` on MySQL)."""
        return [c.binlog_column(i, flavor) for i, c in enumerate(self.columns)]

    def check(self, table_map) -> list:
        """Where a TABLE_MAP (:class:`binlog_schema.changes.table_map.TableMap`, or anything
        with ``columns`` of the same attributes) disagrees with this table: one sentence per
        difference (column count; per column its type and each fact both sides know: a
        fact the map does not carry, None, is not compared). Empty when they agree."""
        problems = []
        cols = list(table_map.columns)
        mariadb = getattr(table_map, "flavor", None) == "mariadb"
        if len(cols) != len(self.columns):
            problems.append(f"{self.database}.{self.name}: the table map has {len(cols)} "
                            f"columns, the schema (version {self.version}) "
                            f"{len(self.columns)}: {', '.join(self.column_names)}")
            return problems
        for i, (m, c) in enumerate(zip(cols, self.columns)):
            if c.type is None:
                continue
            for k in BINLOG_FIELDS + ("nullable",):
                want, got = getattr(c, k), getattr(m, k, None)
                if k == "real_type" and got is None:
                    continue
                if k == "type" and got in OLD_TEMPORAL and want == got + "2":
                    # the old format (MySQL before 5.6.4, MariaDB's mysql56_temporal_format
                    # OFF or a table made before): the same DDL type, which no binlog says
                    # (mysql56_temporal_format is not in it); without a fractional part, or
                    # on MariaDB with one: its hi-res format, whose precision is the
                    # schema's (:func:`hires_precisions`)
                    if c.fsp and not mariadb:
                        problems.append(f"{self.database}.{self.name} column {i + 1} "
                                        f"{c.name!r}: {got} (old format, no fractional "
                                        f"part) in the table map, fsp {c.fsp} in the schema")
                    continue
                if got is None or want is None:
                    continue
                if k in ("enum_values", "set_values"):
                    got = [g if isinstance(g, str) else g for g in got]
                if want != got:
                    problems.append(f"{self.database}.{self.name} column {i + 1} "
                                    f"{c.name!r}: {k} is {got!r} in the table map, "
                                    f"{want!r} in the schema")
            name = getattr(m, "name", None)
            if name is not None and name.lower() != c.name.lower():
                problems.append(f"{self.database}.{self.name} column {i + 1}: named "
                                f"{name!r} in the table map, {c.name!r} in the schema")
        pk = getattr(table_map, "primary_key", None)
        if pk is not None:
            got = [(k["column"], k.get("prefix", 0)) for k in pk]
            names, prefixes = self.effective_primary_key()
            want = list(zip([self.index_of(n) for n in names], prefixes))
            if got != want:
                problems.append(f"{self.database}.{self.name}: primary key {got} (column, "
                                f"prefix) in the table map, {want} in the schema")
        return problems

    def hires_precisions(self, table_map) -> dict:
        """{column index: fsp} of the columns of a MariaDB TABLE_MAP (agreeing with this
        table) that are in MariaDB's hi-res format: an old type code (TIME, DATETIME,
        TIMESTAMP: no metadata) for a column declared with a fractional part. Their layout
        and precision are known only from here (:mod:`binlog_schema.format.values.temporal`)."""
        if getattr(table_map, "flavor", None) != "mariadb":
            return {}
        return {i: c.fsp for i, (m, c) in enumerate(zip(table_map.columns, self.columns))
                if m.type in OLD_TEMPORAL and m.fsp is None and c.fsp
                and c.type == m.type + "2"}

    def to_dict(self) -> dict:
        """A plain dict (the vectors' form)."""
        out = {"database": self.database, "name": self.name, "version": self.version,
               "columns": [c.to_dict() for c in self.columns]}
        if self.primary_key:
            out["primary_key"] = list(self.primary_key)
        if any(self.primary_key_prefixes):
            out["primary_key_prefixes"] = list(self.primary_key_prefixes)
        if self.unique_keys:
            out["unique_keys"] = [{"name": u.name, "parts": list(u.parts),
                                   **({"hash": True} if u.hash else {})}
                                  for u in self.unique_keys]
        for k in ("charset", "collation", "engine", "period"):
            if getattr(self, k) is not None:
                out[k] = getattr(self, k)
        if self.system_versioning:
            out["system_versioning"] = True
        if self.sequence:
            out["sequence"] = True
        return out

    def copy(self) -> Table:
        return copy.deepcopy(self)


@dataclass
class Database:
    name: str
    charset: str | None = None
    collation: str | None = None


# ================================================================== resolving declarations


class Resolver:
    """How a server of ``flavor`` (mysql | mariadb) and ``version`` turns a column
    declaration into its TABLE_MAP facts, in a session (``overrides``: (charset, collation)
    pairs of the session's default collations; ``explicit_defaults_for_timestamp``;
    ``character_set_server``: the character set of a column in a table without one, by
    default the version's). The synthetic generator resolves its columns here too."""

    def __init__(self, flavor: str = "mysql", version=None, overrides=(),
                 explicit_defaults_for_timestamp: bool | None = None,
                 character_set_server: str | None = None):
        self.flavor = flavor
        self.version = version_tuple(version) if version else (0, 0, 0)
        self.overrides = tuple(overrides)
        if explicit_defaults_for_timestamp is None:
            explicit_defaults_for_timestamp = default_explicit_timestamps(flavor, self.version)
        self.explicit_defaults_for_timestamp = explicit_defaults_for_timestamp
        self.character_set_server = character_set_server or default_server_charset(
            flavor, self.version)

    @property
    def mariadb(self) -> bool:
        return self.flavor == "mariadb"

    @property
    def old_temporal(self) -> bool:
        """MySQL before 5.6.4 writes TIME, DATETIME, TIMESTAMP (no fractional part)."""
        return not self.mariadb and self.version != (0, 0, 0) and self.version < (5, 6, 4)

    def default_collation(self, charset: str) -> str:
        return coll.default_collation(charset, self.overrides)

    def charset_pair(self, charset, collation):
        """(charset, collation) of a declaration's CHARACTER SET / COLLATE (either may be
        None; ``default`` means none)."""
        charset = None if charset in (None, "default") else coll.canonical_charset(charset)
        collation = None if collation in (None, "default") else \
            coll.canonical_collation(collation)
        try:
            if collation:
                owner = coll.charset_of_collation(collation)
                if charset and owner != charset:
                    raise SchemaError(f"COLLATE {collation} is not a collation of {charset}")
                charset = owner
            elif charset:
                coll.maxlen(charset)
                collation = self.default_collation(charset)
        except coll.CollationError as e:
            raise SchemaError(str(e)) from None
        return charset, collation

    def column(self, decl: dict, table_charset: str | None, table_collation: str | None,
               in_primary_key: bool = False, split: tuple | None = None) -> Column:
        """The column of a parsed declaration (a dict of :mod:`.ddl`) in a table whose
        default character set and collation are given (neither: the collation's set, else
        ``character_set_server``). ``split``: the type already split, (base, args,
        members), instead of ``decl["type"]``'s."""
        try:
            base, args, members = split or split_type(decl["type"])
        except DDLError as e:
            raise SchemaError(str(e)) from None
        c = Column(name=decl["name"], sql_type=base, declaration=copy.deepcopy(decl),
                   members=members)
        c.unsigned = bool(decl.get("unsigned") or decl.get("zerofill")) or None
        c.zerofill = bool(decl.get("zerofill"))
        c.compressed = bool(decl.get("compressed"))
        c.auto_increment = bool(decl.get("auto_increment"))
        c.invisible = bool(decl.get("invisible"))
        c.generated = decl.get("generated")
        c.expression = decl.get("expression")
        c.srid = decl.get("srid")
        c.comment = decl.get("comment")
        if "default" in decl:
            c.default, c.has_default = decl["default"], True
        nullable = decl.get("nullable")
        if nullable is None and base == "TIMESTAMP" and not self.explicit_defaults_for_timestamp:
            nullable = False
        if c.generated in ("row_start", "row_end"):
            nullable = False
        c.nullable = (True if nullable is None else bool(nullable)) and not in_primary_key
        self._type(c, base, list(args))
        self._charset(c, decl, table_charset, table_collation)
        self._binlog(c)
        return c

    # -------------------------------------------------------------- the declared type
    def _type(self, c: Column, b: str, a: list):
        if b == "DECIMAL":
            p = a[0] if a else 10
            s = a[1] if len(a) > 1 else 0
            if not (1 <= p <= 65 and 0 <= s <= 30 and s <= p):
                raise SchemaError(f"DECIMAL({p},{s}) is out of range")
            c.precision, c.scale = p, s
        elif b == "FLOAT" and len(a) == 1:      # FLOAT(p): p > 24 is a DOUBLE
            c.sql_type = "DOUBLE" if a[0] > 24 else "FLOAT"
        elif b == "BIT":
            c.bits = a[0] if a else 1
        elif b in ("TIME", "DATETIME", "TIMESTAMP"):
            c.fsp = a[0] if a else 0
        elif b in ("CHAR", "BINARY"):
            c.length = a[0] if a else 1
        elif b in ("VARCHAR", "VARBINARY"):
            if not a:
                raise SchemaError(f"{b} needs a length")
            c.length = a[0]
        elif b in TEXT_TYPES or b in BLOB_TYPES:
            c.length = a[0] if a else None
        elif b == "VECTOR":
            c.vector_dimensions = a[0] if a else 2048
        elif b in ("ENUM", "SET") and not c.members:
            raise SchemaError(f"{b} needs members")
        if c.unsigned and not (b in INT_BINLOG or b in ("DECIMAL", "FLOAT", "DOUBLE")):
            raise SchemaError(f"{b} cannot be UNSIGNED")

    # -------------------------------------------------------------- character set
    def _charset(self, c: Column, decl, table_charset, table_collation):
        b = c.sql_type
        if b in BINARY_CHARSET_TYPES:
            c.charset, c.collation, c.collation_id = "binary", "binary", coll.BINARY_ID
            return
        if b == "JSON":
            if not json_is_binary(self.flavor):   # LONGTEXT utf8mb4_bin
                c.charset, c.collation = "utf8mb4", "utf8mb4_bin"
                c.collation_id = coll.collation_id("utf8mb4_bin", self.flavor)
            return
        if b not in CHARACTER_TYPES:
            return
        charset, collation = self.charset_pair(decl.get("charset"), decl.get("collation"))
        try:
            if not charset:
                if table_collation and not table_charset:
                    table_charset = coll.charset_of_collation(table_collation)
                charset = coll.canonical_charset(table_charset or self.character_set_server)
                collation = table_collation if table_charset else None
                if not collation:
                    collation = self.default_collation(charset)
            if decl.get("binary"):
                collation = coll.bin_collation(charset, self.flavor)
            c.charset, c.collation = charset, collation
            c.collation_id = coll.collation_id(collation, self.flavor)
            coll.maxlen(charset)
        except coll.CollationError as e:
            raise SchemaError(str(e)) from None
        if charset == "binary" and b in ("CHAR", "VARCHAR"):
            c.sql_type = "BINARY" if b == "CHAR" else "VARBINARY"
        if charset == "binary" and b in TEXT_TYPES:
            c.sql_type = b.replace("TEXT", "BLOB")

    # -------------------------------------------------------------- the TABLE_MAP facts
    def _binlog(self, c: Column):
        b = c.sql_type
        mbmax = coll.maxlen(c.charset) if c.charset not in (None, "binary") else 1
        if b in INT_BINLOG:
            c.type, c.unsigned = INT_BINLOG[b], bool(c.unsigned)
        elif b == "DECIMAL":
            c.type, c.unsigned = "NEWDECIMAL", bool(c.unsigned)
        elif b in ("FLOAT", "DOUBLE"):
            c.type, c.pack_length, c.unsigned = b, 4 if b == "FLOAT" else 8, bool(c.unsigned)
        elif b == "BIT":
            c.type = "BIT"
        elif b == "YEAR":
            c.type, c.unsigned = "YEAR", True
        elif b == "DATE":
            c.type = "DATE"
        elif b in ("TIME", "DATETIME", "TIMESTAMP"):
            if self.old_temporal:
                c.type, c.fsp = b, None
            else:
                c.type = b + "2"
        elif b in ("CHAR", "BINARY") or b in FIXED_BINARY:
            n = FIXED_BINARY.get(b) or c.length * mbmax
            c.type, c.real_type, c.max_length = "STRING", "STRING", n
        elif b in ("VARCHAR", "VARBINARY"):
            n = c.length * mbmax
            if c.compressed:
                c.type, c.max_length = "VARCHAR_COMPRESSED", n + 1
            else:
                c.type, c.max_length = "VARCHAR", n
        elif b in TEXT_TYPES or b in BLOB_TYPES:
            nbytes = TEXT_TYPES.get(b) or BLOB_TYPES[b]
            if c.length is not None:   # TEXT(n), BLOB(n): the smallest type that holds n
                nbytes = _pack_length(c.length * mbmax)
                c.sql_type = ("TINY", "", "MEDIUM", "LONG")[nbytes - 1] + (
                    "TEXT" if b in TEXT_TYPES else "BLOB")
                c.length = None
            c.type = "BLOB_COMPRESSED" if c.compressed else "BLOB"
            c.pack_length = nbytes
        elif b in ("ENUM", "SET"):
            n = len(c.members)
            if b == "ENUM":
                pack = 1 if n < 256 else 2
            else:
                pack = (n + 7) // 8
                pack = 8 if pack > 4 else pack
            c.type, c.real_type, c.pack_length = "STRING", b, pack
        elif b == "JSON":
            c.type, c.pack_length = ("JSON" if json_is_binary(self.flavor) else "BLOB"), 4
        elif b in GEOMETRY_TYPES:
            c.type, c.pack_length, c.geometry_type = "GEOMETRY", 4, GEOMETRY_TYPES[b]
        elif b == "VECTOR":
            if self.mariadb:   # MariaDB 11.7+: a VARBINARY of 4 bytes a dimension
                c.type, c.max_length = "VARCHAR", 4 * c.vector_dimensions
                c.vector_dimensions = None
            else:
                c.type, c.pack_length = "VECTOR", 4
        else:
            raise SchemaError(f"no binlog layout for {b}")
        if b in GEOMETRY_TYPES and not self.mariadb:
            c.collation_id = None       # MySQL writes no collation for GEOMETRY
        if c.type not in ("TINY", "SHORT", "INT24", "LONG", "LONGLONG", "NEWDECIMAL", "FLOAT",
                          "DOUBLE", "YEAR"):
            c.unsigned = None

    # -------------------------------------------------------------- a character set change
    def converted(self, c: Column, charset: str, collation: str) -> Column:
        """``ALTER TABLE ... CONVERT TO CHARACTER SET``: a character column in the new set,
        TEXT types grown to hold as many characters as before."""
        if c.sql_type == "JSON" and self.mariadb:   # a LONGTEXT: converted too
            out = copy.deepcopy(c)
            out.charset, out.collation = charset, collation
            try:
                out.collation_id = coll.collation_id(collation, self.flavor)
            except coll.CollationError as e:
                raise SchemaError(str(e)) from None
            return out
        if c.sql_type not in CHARACTER_TYPES:
            return c
        decl = copy.deepcopy(c.declaration)
        decl.pop("binary", None)
        decl["charset"], decl["collation"] = charset, collation
        if c.sql_type in TEXT_TYPES and c.length is None:
            chars = _BLOB_MAX[TEXT_TYPES[c.sql_type]] // coll.maxlen(c.charset)
            nbytes = _pack_length(chars * coll.maxlen(charset)) if charset != "binary" else \
                TEXT_TYPES[c.sql_type]
            decl["type"] = ("TINY", "", "MEDIUM", "LONG")[max(nbytes, TEXT_TYPES[
                c.sql_type]) - 1] + "TEXT"
        out = self.column(decl, charset, collation)
        out.nullable = c.nullable
        out.hidden = c.hidden
        return out


def default_explicit_timestamps(flavor: str, version: tuple) -> bool:
    """explicit_defaults_for_timestamp by default: ON from MySQL 8.0.2 and MariaDB 10.10."""
    if version == (0, 0, 0):
        return True
    return version >= ((10, 10, 0) if flavor == "mariadb" else (8, 0, 2))


def default_server_charset(flavor: str, version: tuple) -> str:
    """character_set_server by default: utf8mb4 from MySQL 8.0 and MariaDB 11.6, else
    latin1 (used when no QUERY status variable says the session's)."""
    if version == (0, 0, 0):
        return "utf8mb4" if flavor == "mysql" else "latin1"
    return "utf8mb4" if version >= ((11, 6, 0) if flavor == "mariadb" else (8, 0, 0)) \
        else "latin1"


def default_overrides(flavor: str, version: tuple) -> tuple:
    """The default collations that differ from the character set table's: MySQL 8.0's
    utf8mb4_0900_ai_ci."""
    if flavor == "mysql" and (version == (0, 0, 0) or version >= (8, 0, 0)):
        return (("utf8mb4", "utf8mb4_0900_ai_ci"),)
    return ()

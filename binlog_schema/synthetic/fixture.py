"""The fixture a spec describes, as the generator writes it: :class:`Fixture` (the server,
the checked settings, the tables and the transactions), its tables (:class:`Table`, their
keys :class:`Key`, made from a spec's table by :func:`build_table`) and transactions
(:class:`Transaction`, their row changes :class:`Change`); :class:`SpecError`, the error of
a spec that asks for the impossible.

The spec format is described in :mod:`.spec`; :mod:`.spec_loader` checks a spec and builds
the fixture.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from ..changes.schema.model import BLOB_TYPES, TEXT_TYPES
from .columns import ColumnError, FixtureColumn, resolve_column
from .servers import Server


class SpecError(ValueError):
    """A spec that asks for the impossible; the message names where."""



def where_of(ctx):
    """Where in the spec (the non-empty parts of ``ctx``), as :class:`SpecError` messages
    begin."""
    return ", ".join(p for p in ctx if p)



# ====================================================================== tables


@dataclass
class Key:
    columns: list          # column indexes
    prefixes: list         # prefix (characters) per part, 0 = the whole column


@dataclass
class Table:
    name: str
    database: str
    columns: list                      # FixtureColumn
    primary_key: Key | None = None     # the declared PRIMARY KEY
    unique_keys: list = field(default_factory=list)
    indexes: list = field(default_factory=list)
    charset: str | None = None
    collation: str | None = None
    engine: str | None = None
    table_id: int = 0
    table_map_flags: tuple = ("BIT_LEN_EXACT",)  # TABLE_MAP flags (REFERRED_FK_DB, ...)
    spec: dict = field(default_factory=dict)   # the table part of the spec, as given

    def column(self, name) -> FixtureColumn:
        for c in self.columns:
            if c.name == name:
                return c
        for c in self.columns:
            if c.name.lower() == str(name).lower():
                return c
        raise KeyError(name)

    @property
    def names(self) -> list:
        return [c.name for c in self.columns]

    def server_key(self) -> Key | None:
        """The key the server uses as primary key: the PRIMARY KEY, else the first UNIQUE
        key whose columns are all NOT NULL and whole (no prefix)."""
        if self.primary_key is not None:
            return self.primary_key
        for key in self.unique_keys:
            if all(not self.columns[i].nullable for i in key.columns) and not any(
                    key.prefixes):
                return key
        return None

    def key_tlv(self) -> list | None:
        key = self.server_key()
        if key is None:
            return None
        return [{"column": i, "prefix": p} for i, p in zip(key.columns, key.prefixes)]


def _key(table_name, columns, parts, what) -> Key:
    cols, prefixes = [], []
    for part in parts:
        m = re.fullmatch(r"\s*(.+?)\s*(?:\(\s*(\d+)\s*\))?\s*", str(part))
        name, prefix = m.group(1).strip("`"), m.group(2)
        idx = next((c.index for c in columns if c.name.lower() == name.lower()), None)
        if idx is None:
            raise SpecError(f"table {table_name}: {what} names no column {name!r}")
        col = columns[idx]
        p = int(prefix) if prefix else 0
        whole = col.base in TEXT_TYPES or col.base in BLOB_TYPES
        if whole and not p:
            raise SpecError(f"table {table_name}: {what} on {col.base} column {col.name!r} "
                            "needs a prefix length")
        if p and not whole:
            if col.base not in ("CHAR", "VARCHAR", "BINARY", "VARBINARY"):
                raise SpecError(f"table {table_name}: {what}: a prefix on {col.base} column "
                                f"{col.name!r}")
            if p > col.args[0]:
                raise SpecError(f"table {table_name}: {what}: prefix {p} is longer than "
                                f"{col.name!r} ({col.args[0]})")
            if p == col.args[0]:
                p = 0   # the whole column is not a prefix
        cols.append(idx)
        prefixes.append(p)
    if len(set(cols)) != len(cols):
        raise SpecError(f"table {table_name}: {what} names a column twice")
    return Key(cols, prefixes)


def build_table(spec: dict, server: Server, database: str | None) -> Table:
    if not isinstance(spec, dict) or "name" not in spec:
        raise SpecError("a table needs a name")
    name = str(spec["name"])
    known = {"name", "database", "columns", "primary_key", "unique_keys", "indexes",
             "charset", "collation", "engine", "table_id", "initial_rows", "comment",
             "table_map_flags"}
    unknown = set(spec) - known
    if unknown:
        raise SpecError(f"table {name}: unknown key(s) {', '.join(sorted(unknown))}")
    db = spec.get("database") or database
    if not db:
        raise SpecError(f"table {name}: no database (give database: at the top or here)")
    cols_spec = spec.get("columns") or []
    if not cols_spec:
        raise SpecError(f"table {name}: no columns")
    charset, collation = spec.get("charset"), spec.get("collation")
    columns = []
    for i, cs in enumerate(cols_spec):
        try:
            columns.append(resolve_column(cs, i, server, charset, collation))
        except (ColumnError, ValueError) as e:
            cname = cs.get("name") if isinstance(cs, dict) else None
            raise SpecError(f"table {name}, column {cname or i + 1}: {e}") from None
    lower = [c.name.lower() for c in columns]
    dup = {n for n in lower if lower.count(n) > 1}
    if dup:
        raise SpecError(f"table {name}: column {sorted(dup)[0]!r} declared twice")
    if len(columns) > 4096:
        raise SpecError(f"table {name}: {len(columns)} columns (at most 4096)")
    pk = None
    if spec.get("primary_key"):
        pk = _key(name, columns, spec["primary_key"], "PRIMARY KEY")
        for i in pk.columns:      # key columns are NOT NULL
            if columns[i].nullable:
                columns[i].nullable = False
                columns[i].binlog.nullable = False
    uniques = [_key(name, columns, k, "UNIQUE KEY") for k in spec.get("unique_keys") or []]
    for c in columns:           # column-level PRIMARY KEY / UNIQUE (and SERIAL)
        if c.primary_key:
            if pk is not None:
                raise SpecError(f"table {name}: two PRIMARY KEYs")
            pk = Key([c.index], [0])
            c.nullable = c.binlog.nullable = False
        if c.unique and c.index not in [u.columns[0] for u in uniques if len(u.columns) == 1]:
            uniques.append(Key([c.index], [0]))
    indexes = [_key(name, columns, k, "KEY") for k in spec.get("indexes") or []]
    return Table(name=name, database=str(db), columns=columns, primary_key=pk,
                 unique_keys=uniques, indexes=indexes, charset=charset, collation=collation,
                 engine=spec.get("engine"),
                 table_map_flags=tuple(spec.get("table_map_flags") or ("BIT_LEN_EXACT",)),
                 spec=copy.deepcopy(spec))


# ====================================================================== transactions


@dataclass
class Change:
    """One statement's row changes: kind insert|update|delete, rows as typed images
    (dicts column index -> value; update: (before, after) pairs), the image columns."""
    kind: str
    table: Table
    rows: list
    before_columns: tuple | None = None   # update/delete
    after_columns: tuple | None = None    # insert/update
    statement: str | None = None          # for ANNOTATE_ROWS


@dataclass
class Transaction:
    number: int
    timestamp: int
    changes: list = field(default_factory=list)
    ddl: str | None = None
    ddl_database: str | None = None
    gtid: object = None          # overrides: MySQL gno / MariaDB seq_no


@dataclass
class Fixture:
    server: Server
    settings: dict
    database: str | None
    tables: dict                 # (database, name) -> Table (as at the end of the file)
    transactions: list
    state: dict                  # (database, name) -> list of full rows (column name -> value)
    initial: dict                # (database, name) -> rows before the file
    table_order: list            # keys in declaration order
    spec: dict

    @property
    def row_metadata(self) -> str:
        return self.settings["binlog_row_metadata"]


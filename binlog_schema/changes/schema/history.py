"""The schema history: databases and tables as the DDL of a binlog's QUERY events leaves them,
statement after statement, in order across the files given.

:class:`SchemaHistory` replays statements (:meth:`~SchemaHistory.apply`, or the decoded body
of a QUERY event with :meth:`~SchemaHistory.apply_query`, whose default database and status
variables give the session: ``CHARSET`` = character_set_client / collation_connection /
collation_server, ``DEFAULT_COLLATION_FOR_UTF8MB4``, ``CHARACTER_SET_COLLATIONS``,
``EXPLICIT_DEFAULTS_FOR_TIMESTAMP``) and answers, per (database, table) and at a position of
the stream, the :class:`~binlog_schema.changes.schema.model.Table` in force
(:meth:`~SchemaHistory.table`).

Understood: CREATE TABLE (``IF NOT EXISTS``, ``OR REPLACE``, ``LIKE``, ``... SELECT`` when the
selected columns are all declared), MariaDB's CREATE SEQUENCE, ALTER TABLE (ADD / DROP /
MODIFY / CHANGE / RENAME COLUMN with FIRST / AFTER, SET / DROP DEFAULT, SET VISIBLE /
INVISIBLE, ADD / DROP PRIMARY KEY and UNIQUE keys, RENAME TO, CONVERT TO CHARACTER SET,
DEFAULT CHARACTER SET, ADD / DROP SYSTEM VERSIONING, options such as ``ALGORITHM=INSTANT``,
``ENGINE=``, partitioning, which change no column), CREATE / DROP INDEX, RENAME TABLE, DROP
TABLE / SEQUENCE, CREATE / ALTER / DROP DATABASE, TRUNCATE, USE. Statements that cannot
change a table (DML, GRANT, CREATE VIEW / TRIGGER / USER...) are ignored.

Per flavor, the columns a server adds: MariaDB's hidden ``DB_ROW_HASH_n`` (BIGINT UNSIGNED,
nullable, last) for a UNIQUE key the engine cannot index (a BLOB/TEXT part without prefix,
``USING HASH``, more bytes than the engine's key limit), and the ``row_start`` / ``row_end``
TIMESTAMP(6) columns of ``WITH SYSTEM VERSIONING`` (``row_end`` joins the primary key).

Refused, with :class:`DDLRefused` naming the statement and why: DDL outside the grammar,
statements on a table the history does not know (seed it), generated columns whose type is
an expression's (MySQL's functional key parts), ``CREATE TABLE ... SELECT`` with columns only
the SELECT gives, temporary tables. A refused statement on a table marks it *unknown* from
that point (its later versions are refused too, until it is dropped or created again), so a
decoder never gets a misread table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...format.facts import charsets as coll
from ...format.facts.flavor import version_tuple
from .ddl.statements import parse_statement
from .ddl.tokens import DDLError
from .model import (BLOB_TYPES, TEXT_TYPES, Column, Database, Resolver, SchemaError, Table,
                    UniqueKey, default_overrides, default_server_charset)


class DDLRefused(DDLError):
    """A schema-changing statement the history does not model (or cannot apply): the table
    it names becomes unknown. ``statement``, ``position``, ``tables`` say which."""

    def __init__(self, message, statement=None, position=None, tables=()):
        super().__init__(message)
        self.statement = statement
        self.position = position
        self.tables = list(tables)


@dataclass
class Outcome:
    """What a statement did: ``kind`` changed (``tables`` lists the (database, table) it
    created, altered, renamed or dropped, ``databases`` likewise), unchanged (schema DDL
    with no effect on any column: TRUNCATE, whose table ``tables`` names, ADD INDEX,
    ALGORITHM=..., IF EXISTS of nothing), or ignored (not schema DDL)."""

    kind: str
    statement: str = ""
    tables: list = field(default_factory=list)
    databases: list = field(default_factory=list)


@dataclass
class Session:
    """What a QUERY event's default database and status variables say of the session."""

    database: str | None = None
    collation_server: str | None = None       # collation name
    overrides: tuple = ()                     # (charset, collation) default-collation pairs
    explicit_defaults_for_timestamp: bool | None = None

    @classmethod
    def from_query(cls, body: dict, flavor: str) -> Session:
        s = cls(database=body.get("database") or None)
        overrides = []
        for var in body.get("status_vars") or ():
            if not isinstance(var, dict):
                continue
            code, value = var.get("code"), var.get("value")
            try:
                if code == "CHARSET":
                    s.collation_server = coll.collation_name(value["server"], flavor)
                elif code == "DEFAULT_COLLATION_FOR_UTF8MB4":
                    overrides.append(("utf8mb4", coll.collation_name(value, flavor)))
                elif code == "CHARACTER_SET_COLLATIONS":
                    for pair in value["map"]:
                        overrides.append((coll.charset_of_id(pair["charset"]),
                                          coll.collation_name(pair["collation"], flavor)))
                elif code == "EXPLICIT_DEFAULTS_FOR_TIMESTAMP":
                    s.explicit_defaults_for_timestamp = bool(value)
            except (coll.CollationError, KeyError, TypeError):
                continue
        s.overrides = tuple(overrides)
        return s


# the bytes of a key an engine can index (above them MariaDB hashes a UNIQUE key)
_KEY_LIMIT = {"myisam": 1000, "aria": 2000, "memory": 3072, "innodb": 3072}

_SEQUENCE_COLUMNS = [   # MariaDB's sequence table (sql/sql_sequence.cc)
    ("next_not_cached_value", False), ("minimum_value", False), ("maximum_value", False),
    ("start_value", False), ("increment", False), ("cache_size", True),
    ("cycle_option", True), ("cycle_count", False)]


# the head of a CREATE TABLE IF NOT EXISTS (no comment or TEMPORARY before it): its table
_CREATE_IF_NOT_EXISTS = re.compile(
    r"\s*create\s+table\s+if\s+not\s+exists\s+(`(?:[^`]|``)+`|[\w$]+)"
    r"(?:\s*\.\s*(`(?:[^`]|``)+`|[\w$]+))?[\s(]", re.IGNORECASE)


def _unquote(name: str) -> str:
    return name[1:-1].replace("``", "`") if name.startswith("`") else name


def _part_name(part) -> str:
    return part.split("(", 1)[0] if isinstance(part, str) else ""


def _part_prefix(part) -> int:
    m = re.search(r"\((\d+)\)$", part) if isinstance(part, str) else None
    return int(m.group(1)) if m else 0


class SchemaHistory:
    """Databases and tables of one server as replayed DDL leaves them.

    ``flavor`` (mysql | mariadb) and ``server_version`` choose how declarations resolve
    (default collations, temporal types, the columns the server adds); ``apply_query`` takes
    the flavor of the event's context when it has one. ``lower_case_table_names=1`` compares
    database and table names case-insensitively (as the server does with that setting).
    """

    def __init__(self, flavor: str = "mysql", server_version: str | None = None,
                 lower_case_table_names: int = 0):
        self.flavor = flavor
        self.server_version = server_version
        self.lower_case_table_names = lower_case_table_names
        self.databases: dict = {}         # key -> Database
        self.tables: dict = {}            # key -> Table (the current version)
        self.unknown: dict = {}           # key -> why the table is not known
        self.refused: list = []           # DDLRefused of replay()
        self._versions: dict = {}         # key -> [(position, Table | None)]
        self._counter: dict = {}          # key -> the last version number given
        self.database: str | None = None  # USE of plain statements
        self._origins = 0                 # the last origin given (Table/Column.origin)
        # a schema was given (seed, even empty: ``--schema``): its user hears what it
        # cannot follow; a history replayed from nothing (the default) says only what
        # matters to the rows (a disagreement, a table made unknown)
        self.seeded = False
        self._deferred: list = []         # (QUERY record, position): replayed when asked

    # ------------------------------------------------------------------ questions
    def key(self, database, name=None):
        if self.lower_case_table_names:
            return (database or "").lower(), (name or "").lower() if name is not None else None
        return database, name

    def table(self, database: str, name: str, at=None) -> Table | None:
        """The table in force (``at``: a position as given to apply; the version made by the
        last statement at or before it), or None when it does not exist or is unknown."""
        if self._deferred:
            self.catch_up()
        key = self.key(database, name)
        if at is None:
            return self.tables.get(key)
        found = None
        for pos, table in self._versions.get(key, ()):
            if pos is not None and pos > at:
                break
            found = table
        return found

    def tables_of(self, database: str) -> list:
        self.catch_up()
        db = self.key(database)[0]
        return [t for (d, _), t in sorted(self.tables.items()) if d == db]

    def versions(self, database: str, name: str) -> list:
        """[(position, Table or None)] of every change of that name, in order."""
        self.catch_up()
        return list(self._versions.get(self.key(database, name), ()))

    # ------------------------------------------------------------------ input
    def apply(self, sql: str, database: str | None = None, session: Session | None = None,
              position=None, flavor: str | None = None) -> Outcome:
        """Replay one statement. ``database`` is the default database (the QUERY's);
        ``session`` its status variables; ``position`` any orderable value (e.g. (file
        index, offset)) that :meth:`table` ``at=`` compares. Raises :class:`DDLRefused`."""
        if self._deferred:
            self.catch_up()
        session = session or Session(database=database)
        if database is not None:
            session.database = database
        if session.database is None:
            session.database = self.database
        if flavor:
            self.flavor = flavor
        m = _CREATE_IF_NOT_EXISTS.match(sql)
        if m is not None:   # (of a table it has: nothing to parse; servers log many)
            db, name = (_unquote(g) for g in m.groups()) if m.group(2) else \
                (session.database, _unquote(m.group(1)))
            key = self.key(db, name)
            if db is not None and (key in self.tables or key in self.unknown):
                return Outcome("unchanged", "create_table")
        try:
            stmt = parse_statement(sql, session.database)
        except DDLError as e:
            raise self._refuse(f"not understood: {e}", sql, position,
                               self._named_tables(sql, session.database)) from None
        kind = stmt["kind"]
        if kind == "other":
            return Outcome("ignored", kind)
        if kind == "use":
            self.database = stmt["name"]
            return Outcome("unchanged", kind)
        try:
            return getattr(self, "_" + kind)(stmt, session, sql, position)
        except SchemaError as e:
            raise self._refuse(str(e), sql, position, self._stmt_tables(stmt)) from None

    def apply_query(self, body: dict, ctx=None, position=None) -> Outcome:
        """Replay the statement of a decoded QUERY event body (``database``, ``query``,
        ``status_vars``); ``ctx`` (the record's :class:`~binlog_schema.format.context.Context`)
        gives the flavor and server version."""
        if ctx is not None and getattr(ctx, "flavor", None):
            self.flavor = ctx.flavor
            if getattr(ctx, "server_version", None):
                self.server_version = ctx.server_version
        query = body.get("query")
        if isinstance(query, (bytes, bytearray)):
            query = bytes(query).decode("utf-8", "replace")
        if not isinstance(query, str):
            return Outcome("ignored", "other")
        session = Session.from_query(body, self.flavor)
        return self.apply(query, session=session, position=position)

    def defer(self, rec, position, ctx=None) -> None:
        """Replay the statement of a QUERY record (a schema statement; or a decoded QUERY
        body and its ``ctx``) when the history is next asked (:meth:`table`) or changed,
        not now: a decoder whose table maps carry their names may never ask, and then pays
        nothing for the DDL it passes. What the replay refuses is kept in :attr:`refused`,
        unsaid; read :attr:`tables` or :attr:`unknown` directly only after
        :meth:`catch_up`."""
        self._deferred.append((rec, ctx, position))

    def catch_up(self) -> None:
        """Replay the deferred statements, in order."""
        while self._deferred:
            pending, self._deferred = self._deferred, []
            for rec, ctx, position in pending:
                try:
                    if isinstance(rec, dict):
                        self.apply_query(rec, ctx, position)
                    else:
                        self.apply_query(rec.value["body"], rec.ctx, position)
                except DDLRefused as e:
                    self.refused.append(e)

    def replay(self, records, file_index: int = 0):
        """Replay the QUERY events of :class:`~binlog_schema.format.stream.BinlogReader` records
        (and of their TRANSACTION_PAYLOADs): yields (record, Outcome or DDLRefused); the
        refusals are also kept in :attr:`refused`. Positions are (file_index, offset)."""
        for rec in records:
            for r in [rec] + list(getattr(rec, "inner", None) or ()):
                if r.type_name not in ("QUERY_EVENT", "QUERY_COMPRESSED_EVENT",
                                       "EXECUTE_LOAD_QUERY_EVENT"):
                    continue
                if r.error is not None or r.value is None:
                    continue
                body = r.value.get("body") or {}
                if "query" not in body:
                    continue
                pos = (file_index, getattr(r, "parent_offset", None) or r.offset, r.offset)
                try:
                    yield r, self.apply_query(body, r.ctx, pos)
                except DDLRefused as e:
                    self.refused.append(e)
                    yield r, e

    def seed(self, text: str, database: str | None = None) -> list:
        """The schema at the start: ``mysqldump --no-data`` output or ``SHOW CREATE TABLE``
        statements (see :mod:`.seed`). Returns the Outcomes; raises DDLRefused."""
        from .seed import seed_statements
        self.seeded = True
        if database is not None:
            self.database = database
        return [self.apply(sql, position=None) for sql, _ in seed_statements(text)]

    def seed_file(self, path, database: str | None = None) -> list:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return self.seed(f.read(), database)

    # ------------------------------------------------------------------ bookkeeping
    def _resolver(self, session: Session) -> Resolver:
        v = version_tuple(self.server_version) if self.server_version else (0, 0, 0)
        overrides = default_overrides(self.flavor, v) + tuple(session.overrides)  # last wins
        return Resolver(self.flavor, self.server_version, overrides,
                        session.explicit_defaults_for_timestamp)

    def _refuse(self, message, sql, position, tables=()) -> DDLRefused:
        for key in tables:
            key = self.key(*key)
            if key in self.tables or key in self.unknown:
                self._set(key, None, position)
                self.unknown[key] = message
        first = " ".join(sql.split())[:120]
        return DDLRefused(f"{message} [{first}]", sql, position, tables)

    def _set(self, key, table: Table | None, position, sql=None, carry=False):
        if table is None:
            self.tables.pop(key, None)
        else:   # a renamed table carries its count on
            self._give_origins(table, fresh=not carry)
            n = max(self._counter.get(key, 0), table.version if carry else 0) + 1
            self._counter[key] = n
            table.version, table.since, table.statement = n, position, sql
            table.database, table.name = key
            self.tables[key] = table
            self.unknown.pop(key, None)
        self._versions.setdefault(key, []).append((position, table))

    def _give_origins(self, table: Table, fresh: bool):
        """Numbers for a new table (``fresh``: CREATE, also of a copy) and its columns, and
        for the columns an ALTER added: the same replay gives the same numbers."""
        for thing in ([table] if fresh else []) + [c for c in table.columns
                                                   if fresh or not c.origin]:
            self._origins += 1
            thing.origin = self._origins

    def _get(self, ref, sql, position, must=True) -> Table | None:
        key = self.key(*ref)
        if key in self.unknown:
            raise self._refuse(f"table {ref[0]}.{ref[1]} is unknown since an earlier "
                               f"statement was refused ({self.unknown[key]})", sql, position)
        t = self.tables.get(key)
        if t is None and must:
            raise self._refuse(f"table {ref[0]}.{ref[1]} is not in the history (no CREATE "
                               "TABLE before it: seed the schema)", sql, position, [ref])
        return t

    def _named_tables(self, sql, database):
        m = re.match(r"(?is)\s*(?:alter\s+(?:online\s+|ignore\s+)*table|create\s+(?:or\s+replace"
                     r"\s+)?table(?:\s+if\s+not\s+exists)?|truncate(?:\s+table)?)\s+"
                     r"(?:if\s+(?:not\s+)?exists\s+)?(`[^`]+`|\w+)(?:\s*\.\s*(`[^`]+`|\w+))?", sql)
        if not m:
            return []
        a, b = (g.strip("`") if g else g for g in m.groups())
        return [(a, b)] if b else [(database, a)]

    def _stmt_tables(self, stmt):
        if "table" in stmt and isinstance(stmt["table"], list):
            return [tuple(stmt["table"])]
        if "table" in stmt and isinstance(stmt["table"], dict):
            t = stmt["table"]
            return [(t.get("database"), t["name"])]
        return []

    def _db_defaults(self, database, session: Session, resolver: Resolver):
        db = self.databases.get(self.key(database)[0])
        if db is not None and db.charset:
            return db.charset, db.collation
        if session.collation_server:
            collation = session.collation_server
            return coll.charset_of_collation(collation), collation
        v = version_tuple(self.server_version) if self.server_version else (0, 0, 0)
        charset = default_server_charset(self.flavor, v)
        return charset, resolver.default_collation(charset)

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
        pk_names = {_part_name(p).lower() for p in spec.get("primary_key") or []}
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

    def _set_primary_key(self, table: Table, parts):
        names, prefixes = [], []
        for p in parts:
            c = table.column(_part_name(p))
            if c is None:
                raise SchemaError(f"PRIMARY KEY names {_part_name(p)!r}, not a column of "
                                  f"{table.name}")
            c.nullable = False
            names.append(c.name)
            prefixes.append(_part_prefix(p))
        table.primary_key, table.primary_key_prefixes = names, prefixes

    def _add_unique(self, table: Table, name, parts, hash_=False):
        for p in parts:
            if table.column(_part_name(p)) is None:
                raise SchemaError(f"UNIQUE key names {_part_name(p)!r}, not a column of "
                                  f"{table.name}")
        if not name:   # the server names it after its first column: a, a_2, a_3...
            base = _part_name(parts[0])
            taken = {u.name.lower() for u in table.unique_keys}
            name, n = base, 2
            while name.lower() in taken or name.upper() == "PRIMARY":
                name, n = f"{base}_{n}", n + 1
        key = UniqueKey(name, list(parts))
        key.requested = bool(hash_)     # USING HASH: honoured in the statement that asks
        table.unique_keys.append(key)

    def _finish(self, table: Table, resolver: Resolver):
        """The columns the server adds: MariaDB's system-versioning period and the hashes of
        long UNIQUE keys (recomputed after every change, as the server does)."""
        table.columns = [c for c in table.columns if c.hidden != "long_unique_hash"]
        if self.flavor == "mariadb" and table.system_versioning:
            if not table.period:
                explicit = [c for c in table.columns if c.generated in ("row_start",
                                                                       "row_end")]
                if explicit:
                    starts = [c.name for c in explicit if c.generated == "row_start"]
                    ends = [c.name for c in explicit if c.generated == "row_end"]
                    if len(starts) != 1 or len(ends) != 1:
                        raise SchemaError("system versioning needs one ROW START and one "
                                          "ROW END column")
                    table.period = [starts[0], ends[0]]
                else:
                    for name, gen in (("row_start", "row_start"), ("row_end", "row_end")):
                        c = resolver.column({"name": name, "type": "TIMESTAMP(6)",
                                             "generated": gen, "invisible": True},
                                            table.charset, table.collation)
                        c.hidden = gen
                        table.columns.append(c)
                    table.period = ["row_start", "row_end"]
            end = table.period[1]
            if table.primary_key and end.lower() not in (n.lower() for n in table.primary_key):
                table.primary_key = table.primary_key + [end]
                table.primary_key_prefixes = table.primary_key_prefixes + [0]
        if self.flavor == "mariadb":
            n = 0
            limit = _KEY_LIMIT.get((table.engine or "innodb").lower(), 3072)
            for u in table.unique_keys:
                # a key that fits is hashed only by the statement that says USING HASH:
                # the next rebuild makes it a B-tree (as MariaDB 10.11 does)
                u.hash = u.requested or self._long_unique(table, u, limit)
                u.requested = False
                if u.hash:
                    n += 1
                    c = resolver.column({"name": f"DB_ROW_HASH_{n}", "type": "BIGINT",
                                         "unsigned": True, "invisible": True},
                                        table.charset, table.collation)
                    c.hidden, c.generated = "long_unique_hash", "virtual"
                    table.columns.append(c)

    @staticmethod
    def _long_unique(table: Table, u: UniqueKey, limit: int) -> bool:
        total = 0
        for p in u.parts:
            c = table.column(_part_name(p))
            prefix = _part_prefix(p)
            if c is None:
                continue
            blob = c.sql_type in TEXT_TYPES or c.sql_type in BLOB_TYPES or \
                c.sql_type == "JSON" or c.type in ("BLOB", "BLOB_COMPRESSED")
            if blob and not prefix:
                return True
            mb = coll.maxlen(c.charset) if c.charset not in (None, "binary") else 1
            if prefix:
                total += prefix * mb
            elif c.max_length:
                total += c.max_length
            else:
                total += 8
        return total > limit

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

    # ------------------------------------------------------------------ ALTER TABLE
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
            u.parts = [p for p in u.parts if _part_name(p).lower() != name]
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
                u.parts = [col.name + p[len(_part_name(p)):] if _part_name(p).lower() == low
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
            u.parts = [action["new"] + p[len(_part_name(p)):] if _part_name(p).lower() == low
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


def server_of(binlogs) -> tuple:
    """(flavor, server version) of the first of ``binlogs`` whose FORMAT_DESCRIPTION says
    them; (None, None) when none does (unreadable, not binlogs)."""
    from ...format.errors import BinlogError
    from ...format.stream import BinlogReader
    for path in binlogs:
        reader = BinlogReader(path, decode="lazy")
        events = iter(reader)
        try:
            rec = next(events, None)
        except (BinlogError, OSError):
            continue
        finally:
            events.close()
        if rec is not None and reader.ctx.server_version:   # (the context it set)
            return reader.ctx.flavor, reader.ctx.server_version
    return None, None


def history_for(binlogs, schema_files=(), text: str | None = None):
    """A :class:`~binlog_schema.changes.schema.history.SchemaHistory` for decoding ``binlogs`` (the
    flavor and server version of the first one's FORMAT_DESCRIPTION, which resolve the
    declarations: default collations, temporal types), seeded with the ``schema_files``
    (``mysqldump --no-data`` or ``SHOW CREATE TABLE`` output) and ``text``: the schema at
    the start of the first file. Raises OSError for a file that cannot be read and
    :class:`~binlog_schema.changes.schema.history.DDLRefused` for DDL it does not model."""
    flavor, version = server_of(binlogs)
    history = SchemaHistory(flavor or "mysql", version)
    for path in schema_files:
        history.seed_file(path)
    if text:
        history.seed(text)
    return history


def given_history(binlogs, schema_files=()) -> SchemaHistory:
    """The history a command decodes ``binlogs`` with: empty, the files' DDL replayed from
    nothing (the default), or seeded from the ``--schema`` files ``schema_files``
    (:func:`history_for`). Raises OSError (``filename``: the schema file) or
    :class:`~.ddl.tokens.DDLError` naming the schema file."""
    flavor, version = server_of(binlogs)
    history = SchemaHistory(flavor or "mysql", version)
    for path in schema_files:
        try:
            history.seed_file(path)
        except OSError as e:
            if e.filename is None:
                e.filename = str(path)
            raise
        except DDLError as e:
            raise DDLError(f"{path}: --schema: {e}") from None
    return history


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

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

The statements' handlers are :class:`~.table_statements.TableStatements` (CREATE / DROP /
RENAME of databases, tables, sequences), :class:`~.alter_table.AlterTable` and
:class:`~.table_keys.TableKeys` (keys, the columns the server adds); :mod:`.session` holds
:class:`Session`, :class:`Outcome` and :class:`DDLRefused`; :mod:`.building` makes a history
for binlog files.
"""

from __future__ import annotations

import re

from ...format.facts import charsets as coll
from ...format.facts.flavor import version_tuple
from .alter_table import AlterTable
from .ddl.statements import parse_statement
from .ddl.tokens import DDLError
from .model import Resolver, SchemaError, Table, default_overrides, default_server_charset
from .session import DDLRefused, Outcome, Session
from .table_keys import TableKeys
from .table_statements import TableStatements


# the head of a CREATE TABLE IF NOT EXISTS (no comment or TEMPORARY before it): its table
_CREATE_IF_NOT_EXISTS = re.compile(
    r"\s*create\s+table\s+if\s+not\s+exists\s+(`(?:[^`]|``)+`|[\w$]+)"
    r"(?:\s*\.\s*(`(?:[^`]|``)+`|[\w$]+))?[\s(]", re.IGNORECASE)


def _unquote(name: str) -> str:
    return name[1:-1].replace("``", "`") if name.startswith("`") else name


class SchemaHistory(TableStatements, AlterTable, TableKeys):
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

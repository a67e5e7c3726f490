"""The schema of databases and tables at event time: the history of the DDL in a binlog.

- :mod:`.ddl`: the MySQL/MariaDB DDL grammar (CREATE TABLE as the fixtures generator reads
  it; ALTER, RENAME, DROP, TRUNCATE, CREATE SEQUENCE, ... for the history), a package of
  its layers (tokens, cursor, column types, columns, tables, statements);
- :mod:`.model`: databases, tables (a version per change) and columns resolved to the facts
  a TABLE_MAP carries for them, per flavor;
- :mod:`.history`: :class:`SchemaHistory`, the replay of statements (of QUERY events) in
  order, with the session's default database and character sets; its statement handlers in
  :mod:`.table_statements` (CREATE / DROP / RENAME of databases, tables, sequences),
  :mod:`.alter_table` (ALTER TABLE) and :mod:`.table_keys` (keys, the columns the server
  adds); the session, a statement's outcome and a refusal in :mod:`.session`;
- :mod:`.building`: a history for binlog files (their server, ``--schema`` seeds);
- :mod:`.seed`: the schema at the start, from ``mysqldump --no-data`` or ``SHOW CREATE
  TABLE`` output;
- :mod:`.ddl_vectors`: the checker of the DDL vectors (``specs/ddl/``).

The names below are loaded when first used: this package imports none of its modules when
it is imported (a module of it, whose import runs this file first, is never imported by it
half-way: no import cycle).
"""

from __future__ import annotations

from ...format.lazy import exports

_EXPORTS = {
    "DDLError": "ddl.tokens", "DDLRefused": "session", "Outcome": "session",
    "SchemaHistory": "history", "Session": "session", "Column": "model",
    "Database": "model", "SchemaError": "model", "Table": "model", "UniqueKey": "model",
    "history_for": "building",
}
__all__ = sorted(_EXPORTS)  # noqa: PLE0605 - a list, sorted


__getattr__, __dir__ = exports(__name__, _EXPORTS)

"""The schema of databases and tables at event time: the history of the DDL in a binlog.

- :mod:`.ddl`: the MySQL/MariaDB DDL grammar (CREATE TABLE as the fixtures generator reads
  it; ALTER, RENAME, DROP, TRUNCATE, CREATE SEQUENCE, ... for the history);
- :mod:`.model`: databases, tables (a version per change) and columns resolved to the facts
  a TABLE_MAP carries for them, per flavor;
- :mod:`.history`: :class:`SchemaHistory`, the replay of statements (of QUERY events) in
  order, with the session's default database and character sets;
- :mod:`.seed`: the schema at the start, from ``mysqldump --no-data`` or ``SHOW CREATE
  TABLE`` output.
"""

from .ddl import DDLError
from .history import DDLRefused, Outcome, SchemaHistory, Session
from .model import Column, Database, SchemaError, Table, UniqueKey

__all__ = ["DDLError", "DDLRefused", "Outcome", "SchemaHistory", "Session", "Column",
           "Database", "SchemaError", "Table", "UniqueKey"]

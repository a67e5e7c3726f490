"""What a statement is replayed in and what replaying it gives: the :class:`Session` of a
QUERY event (its default database and status variables), the :class:`Outcome` of a
statement, and :class:`DDLRefused` for one the history does not model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...format.facts import charsets as coll
from .ddl.tokens import DDLError


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

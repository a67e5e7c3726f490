"""The keys of a table as the history keeps them, and the columns the server adds:
:class:`TableKeys`, the part of :class:`~binlog_schema.changes.schema.history.SchemaHistory`
that sets a PRIMARY KEY, adds a UNIQUE key (named as the server names it) and, per flavor,
adds MariaDB's system-versioning period and the hidden ``DB_ROW_HASH_n`` column of a UNIQUE
key the engine cannot index; :func:`part_name` and :func:`part_prefix` read a key part.
"""

from __future__ import annotations

import re

from ...format.facts import charsets as coll
from .model import BLOB_TYPES, TEXT_TYPES, Resolver, SchemaError, Table, UniqueKey


# the bytes of a key an engine can index (above them MariaDB hashes a UNIQUE key)
_KEY_LIMIT = {"myisam": 1000, "aria": 2000, "memory": 3072, "innodb": 3072}


def part_name(part) -> str:
    return part.split("(", 1)[0] if isinstance(part, str) else ""


def part_prefix(part) -> int:
    m = re.search(r"\((\d+)\)$", part) if isinstance(part, str) else None
    return int(m.group(1)) if m else 0


class TableKeys:
    """The keys of :class:`~binlog_schema.changes.schema.history.SchemaHistory`'s tables and
    the columns the server adds for them (a mixin: it uses the history's ``flavor``)."""

    def _set_primary_key(self, table: Table, parts):
        names, prefixes = [], []
        for p in parts:
            c = table.column(part_name(p))
            if c is None:
                raise SchemaError(f"PRIMARY KEY names {part_name(p)!r}, not a column of "
                                  f"{table.name}")
            c.nullable = False
            names.append(c.name)
            prefixes.append(part_prefix(p))
        table.primary_key, table.primary_key_prefixes = names, prefixes

    def _add_unique(self, table: Table, name, parts, hash_=False):
        for p in parts:
            if table.column(part_name(p)) is None:
                raise SchemaError(f"UNIQUE key names {part_name(p)!r}, not a column of "
                                  f"{table.name}")
        if not name:   # the server names it after its first column: a, a_2, a_3...
            base = part_name(parts[0])
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
            c = table.column(part_name(p))
            prefix = part_prefix(p)
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

"""Row changes as SQL statements, and their inverses: what ``binlog-schema sql`` writes.

A :class:`SqlTable` is made once per table map (with column names: FULL metadata, or a
schema history's) and renders one statement per row change:

- an insert: ``INSERT INTO db.t (cols) VALUES (...)`` with every column of the image;
- a delete: ``DELETE FROM db.t WHERE ...``;
- an update: ``UPDATE db.t SET <the columns that changed> WHERE ...``.

``WHERE`` finds the row by the primary key when it is known (``pk = literal``), else by every
column of the image (``col <=> literal``, text in its binary collation) with ``LIMIT 1``: a
table without a key may hold equal rows, any one of them is the row. The literals are
:mod:`.sql_text`'s (exact for every type).

:meth:`SqlTable.inverse` gives the statement that undoes a change: a delete for an insert,
an insert for a delete, an update back to the before image. What it needs must be in the
images (a MINIMAL or NOBLOB image lacks columns): a missing value is an
:class:`SqlRefused` naming the columns, never a guess.
"""

from __future__ import annotations

from ..format.values.image import JsonDiff
from ..format.values.json_binary import JsonDocument
from .sql_text import SqlValueError, apply_json_diffs, condition_of, literal_of, qi


class SqlRefused(ValueError):
    """A row change that cannot be written (or inverted) as SQL: names what is missing."""


class SqlTable:
    """The statements of one table map's row changes (images keyed by column name)."""

    def __init__(self, tm, names: list, flavor: str):
        missing = [n for n in names if n.startswith("@")]
        if missing:
            raise SqlRefused(
                f"table {_text(tm.database)}.{_text(tm.table)}: the binlog does not name its "
                "columns (binlog_row_metadata=MINIMAL): give the schema with --schema "
                "(mysqldump --no-data, or SHOW CREATE TABLE output)")
        self.ref = f"{qi(_text(tm.database))}.{qi(_text(tm.table))}"
        self.names = names
        self.columns = dict(zip(names, tm.columns))
        self.quoted = {n: qi(n) for n in names}
        self.flavor = flavor
        self.key = [names[p["column"]] for p in tm.primary_key or ()
                    if p["column"] < len(names)] or None
        # each column's literal and WHERE-term writers, chosen once (sql_text)
        self.literals = {n: literal_of(c, flavor) for n, c in self.columns.items()}
        self.conditions = {n: condition_of(c, self.quoted[n], flavor, self.key is None)
                           for n, c in self.columns.items()}
        self.every = [(n, self.literals[n]) for n in names]
        self.insert_every = (f"INSERT INTO {self.ref} ({', '.join(self.quoted.values())}) "
                             "VALUES (")
        self.found_by = [(n, self.conditions[n]) for n in (self.key or names)]

    # ---------------------------------------------------------------- pieces

    def _lit(self, name, value) -> str:
        try:
            return self.literals[name](value)
        except SqlValueError as e:
            raise SqlRefused(f"{self.ref}.{self.quoted[name]}: {e}") from None

    def _where(self, image: dict, what: str) -> str:
        """The condition that finds the row ``image`` shows (and LIMIT 1 without a key)."""
        try:
            terms = " AND ".join([term(image[n]) for n, term in self.found_by])
        except (KeyError, SqlValueError):
            pass    # (said below, naming what lacks or fails)
        else:
            return terms if self.key is not None else terms + " LIMIT 1"
        if self.key is not None:
            lacking = [k for k in self.key if k not in image]
            if lacking:
                raise SqlRefused(f"{self.ref}: the {what} image lacks the primary key column"
                                 f"{'s' if len(lacking) > 1 else ''} {', '.join(lacking)}")
            parts = [self._cond(k, image[k]) for k in self.key]
            return " AND ".join(parts)
        lacking = [n for n in self.names if n not in image]
        if lacking:
            raise SqlRefused(f"{self.ref} has no primary key and the {what} image lacks "
                             f"{', '.join(lacking)} (a MINIMAL or NOBLOB row image): the row "
                             "cannot be found exactly")
        return " AND ".join(self._cond(n, image[n]) for n in self.names) + " LIMIT 1"

    def _cond(self, name, value) -> str:
        try:
            return self.conditions[name](value)
        except SqlValueError as e:
            raise SqlRefused(f"{self.ref}.{self.quoted[name]}: {e}") from None

    # ---------------------------------------------------------------- statements

    def insert(self, image: dict) -> str:
        try:    # (an image of every column: the common case)
            return (self.insert_every
                    + ", ".join([lit(image[n]) for n, lit in self.every]) + ")")
        except (KeyError, SqlValueError):
            pass    # (a partial image, or a value without a literal: said below)
        cols = [n for n in self.names if n in image]
        return (f"INSERT INTO {self.ref} ({', '.join(self.quoted[n] for n in cols)}) VALUES "
                f"({', '.join(self._lit(n, image[n]) for n in cols)})")

    def delete(self, image: dict) -> str:
        return f"DELETE FROM {self.ref} WHERE {self._where(image, 'before')}"

    def update(self, before: dict, after: dict, what: str = "before") -> str | None:
        """The update from ``before`` to ``after`` (None: nothing changes)."""
        sets = [n for n in self.names if n in after and (n not in before or
                                                          not _same(before[n], after[n]))]
        if not sets:
            return None
        assign = ", ".join(f"{self.quoted[n]} = {self._lit(n, after[n])}" for n in sets)
        return f"UPDATE {self.ref} SET {assign} WHERE {self._where(before, what)}"

    def _documents(self, before: dict, after: dict) -> dict:
        """``after`` with MySQL's partial JSON updates (diff lists) applied to the before
        image's documents: whole documents (refused when the before image lacks one)."""
        if not any(isinstance(v, (JsonDiff, JsonDocument)) for v in after.values()):
            return after
        out = dict(after)
        for n, v in after.items():
            if isinstance(v, JsonDiff) or (isinstance(v, JsonDocument) and
                                           isinstance(v.value, list)):
                if n not in before:
                    raise SqlRefused(f"{self.ref}.{self.quoted[n]}: a partial JSON update "
                                     "and no before document to apply it to")
                try:
                    out[n] = apply_json_diffs(before[n], v)
                except SqlValueError as e:
                    raise SqlRefused(f"{self.ref}.{self.quoted[n]}: {e}") from None
        return out

    def statement(self, change) -> str | None:
        """The statement that makes a row change (a RowChange-like object: ``operation``,
        ``before``, ``after``)."""
        op = change.operation
        if op == "insert":
            return self.insert(change.after)
        if op == "delete":
            return self.delete(change.before)
        return self.update(change.before, self._documents(change.before, change.after))

    def inverse(self, change) -> str | None:
        """The statement that undoes a row change."""
        op = change.operation
        if op == "insert":
            return f"DELETE FROM {self.ref} WHERE {self._where(change.after, 'after')}"
        if op == "delete":
            self._complete(change.before, "before", "deleted row")
            return self.insert(change.before)
        before = change.before
        after = self._documents(before, change.after)
        changed = [n for n in self.names if n in after and
                   (n not in before or not _same(before[n], after[n]))]
        lacking = [n for n in changed if n not in before]
        if lacking:
            raise SqlRefused(f"{self.ref}: the before image lacks {', '.join(lacking)}, "
                             "which the update changed (a MINIMAL or NOBLOB row image): their "
                             "old values are not in the binlog")
        # (the row as it is after the change: the after image, with the before image's
        # values for the columns the after image does not hold)
        now = {**before, **after}
        return self.update(now, {n: before[n] for n in changed}, "after") if changed else None

    def _complete(self, image: dict, what: str, row: str) -> None:
        lacking = [n for n in self.names if n not in image]
        if lacking:
            raise SqlRefused(f"{self.ref}: the {what} image lacks {', '.join(lacking)} (a "
                             f"MINIMAL or NOBLOB row image): the {row} cannot be restored")


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b


def _text(v) -> str:
    return v if isinstance(v, str) else bytes(v).decode("utf-8", "replace")


__all__ = ["SqlRefused", "SqlTable"]

"""The lives of tables across a replayed history: which table a name meant at each point of
the stream, and what happened to that table (its versions, renames, truncations, its drop).

A table's *life* runs from its CREATE TABLE (or from before the statements replayed: seeded)
to its DROP (or CREATE OR REPLACE); ALTER TABLE and RENAME keep it (same
:attr:`~binlog_schema.changes.schema.model.Table.origin`), and its columns keep their
:attr:`~binlog_schema.changes.schema.model.Column.origin` across renames and redefinitions, so a
value logged under one name at one point is found under another later. Current-state tables
(:mod:`binlog_schema.pipeline.current.job`) apply row changes through them.

Positions are whatever the caller replays with, as long as they compare (the pipeline uses
order keys: strings).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field

from .history import SchemaHistory
from .session import DDLRefused


@dataclass
class Life:
    origin: int
    start: object = None          # where its CREATE was (None: before the replayed statements)
    end: object = None            # where it was dropped or replaced (None: it is there)
    names: list = field(default_factory=list)       # [(position, (database, table))]
    versions: list = field(default_factory=list)    # [(position, Table)]
    truncates: list = field(default_factory=list)   # positions

    def version_at(self, position):
        """The table's version in force at ``position`` (its first when before it)."""
        i = bisect_right([p for p, _ in self.versions], position)
        return self.versions[max(i - 1, 0)][1]

    @property
    def final(self):
        return self.versions[-1][1]

    @property
    def name(self) -> tuple:
        return self.names[-1][1]


class Lives:
    """The lives of every table a history replayed (:meth:`replay` statements through it)."""

    def __init__(self, history: SchemaHistory, start=""):
        self.history = history
        self.lives: dict = {}            # origin -> Life
        self._names: dict = {}           # key -> ([positions], [origin or None])
        self.refused: list = []          # DDLRefused
        self._note(list(history.tables), start)   # (the seeded tables)
        for life in self.lives.values():
            life.start = None

    def replay(self, body: dict, position, ctx=None):
        """Replay one QUERY body (see :meth:`SchemaHistory.apply_query`) at ``position``."""
        try:
            outcome = self.history.apply_query(body, ctx, position)
        except DDLRefused as e:
            self.refused.append(e)
            self._note([self.history.key(*t) for t in e.tables], position)
            return e
        keys = [self.history.key(*t) for t in outcome.tables]
        if outcome.statement == "truncate":
            for k in keys:
                o = self.origin_at(k)
                if o is not None:
                    self.lives[o].truncates.append(position)
        elif outcome.kind == "changed":
            self._note(keys, position)
        return outcome

    def _note(self, keys, position):
        before = {k: self.origin_at(k) for k in keys}
        for k in keys:
            t = self.history.tables.get(k)
            origin = t.origin if t is not None else None
            positions, origins = self._names.setdefault(k, ([], []))
            if not origins or origins[-1] != origin:
                positions.append(position)
                origins.append(origin)
            if t is None:
                continue
            life = self.lives.get(origin)
            if life is None:
                life = self.lives[origin] = Life(origin, start=position)
            if not life.versions or life.versions[-1][1] is not t:
                life.versions.append((position, t))
            if not life.names or life.names[-1][1] != k:
                life.names.append((position, k))
        named = {origins[-1] for _, origins in self._names.values()}
        for o in before.values():   # (dropped, replaced, or made unknown by a refusal)
            if o is not None and o not in named and self.lives[o].end is None:
                self.lives[o].end = position

    def origin_at(self, key, position=None):
        """The origin of the table ``key`` (database, table) named at ``position`` (None:
        now); None when no known table had that name there."""
        entry = self._names.get(self.history.key(*key))
        if entry is None:
            return None
        positions, origins = entry
        i = len(positions) if position is None else bisect_right(positions, position)
        return origins[i - 1] if i else None

    def names(self) -> dict:
        """key -> ([positions], [origins]): what each name meant from each position."""
        return self._names

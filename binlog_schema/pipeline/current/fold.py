"""The Python fold of ``spark current`` (plain Python on Arrow batches): row changes keyed by
the row they change (:func:`key_rows`), then, sorted by key and order, folded into the row
each key holds at the end (:func:`fold_rows`). Spark SQL folds most tables
(:mod:`.versions`); this runs, through :mod:`.sequential`, for the tables that need a
sequential fold, and holds the plan both follow (:class:`FoldPlan`).

The driver's :class:`FoldPlan` says, from the schema history's table lives
(:mod:`binlog_schema.changes.schema.lives`), which table each (database, table) name meant at each
order key, and for each table: its versions (column name -> column origin, the value a
column missing from an insert image takes: its DEFAULT then, and the primary key in force),
its final columns and primary key (origins), the value a column added later gives the rows
that were there (its DEFAULT when added), and its truncations. Images are held by column
origin, so a value logged under one name is found under the final one; a column dropped
since is gone.

Each change is keyed by the primary key in force where it is (a key added, changed or
dropped by a later ALTER applies from there on). With a primary key, a table is folded per
key: an insert or a full image puts the row, a delete removes it, a partial image (MINIMAL,
NOBLOB) updates the columns it holds. Without one it is a multiset keyed by the whole row:
an insert adds a copy, a delete removes one. An update whose row changes key is a delete of
the old key and a put of the new one; when its image is partial the new row needs the old
one's other columns: the driver then folds such a table whole (``gkey`` empty, one group
per table) rather than per key, as it does a table whose key changes (the rows held are
keyed anew where it does).
"""

from __future__ import annotations

import pickle
from bisect import bisect_right
from dataclasses import dataclass, field

# The problems the fold says, each written once: this fold, the Arrow keying
# (arrow_keying.py) and the Spark SQL fold (versions.py) say them alike.
NO_TABLE = ("no table of that name is known there (it was not created in these binlogs, nor "
            "given by --schema or --base)")
NO_KEY = "the row's key columns are not in its image"
DELETE_NOT_HELD = "a delete of a row not held"
UPDATE_NOT_HELD = "a partial image updates a row not held"
MOVE_NOT_HELD = "a partial image moves a row not held"


def unnamed_column(name) -> str:
    return f"column {name!r} is not in the table's schema there"


def unknown_fill(origin) -> str:
    return (f"the value of column origin {origin} in rows already there is not known (its "
            "DEFAULT is an expression)")


class _Unknown:
    """A fill value nobody can know (DEFAULT CURRENT_TIMESTAMP...): one object, the same
    after pickling (the plan travels to the tasks)."""

    def __reduce__(self):
        return "UNKNOWN"

    def __repr__(self):
        return "UNKNOWN"


UNKNOWN = _Unknown()

# (the keyed and folded rows: their Spark schemas are in job.py)
KEYED_FIELDS = ("origin", "gkey", "okey", "sub", "op", "operation", "key", "old", "image",
                "problem")


@dataclass
class TableFold:
    """One table's life as the tasks need it (see the module docstring)."""

    origin: int
    # [(okey, {lower name: origin}, {origin: fill}, [primary key origins]: [] a multiset)]
    versions: list = field(default_factory=list)
    final: list = field(default_factory=list)      # [(name, origin)]
    key: list = field(default_factory=list)        # final primary key (origins); [] multiset
    added: dict = field(default_factory=dict)      # origin -> fill for rows already there
    truncates: list = field(default_factory=list)  # okeys

    def version_at(self, okey):
        i = bisect_right(self._starts, okey)
        return self.versions[max(i - 1, 0)]

    def key_at(self, okey) -> list:
        """The origins a row is keyed by at ``okey``: the primary key in force there, else
        (a multiset) every final column."""
        return self.version_at(okey)[3] or self._whole

    @property
    def key_changes(self) -> bool:
        """Whether the primary key in force changes in the table's life."""
        return len({tuple(v[3]) for v in self.versions}) > 1

    def __post_init__(self):
        self._starts = [v[0] for v in self.versions]
        self.final_origins = frozenset(o for _, o in self.final)
        self._whole = [o for _, o in self.final]


@dataclass
class FoldPlan:
    names: dict = field(default_factory=dict)    # (db, table) -> ([okeys], [origin|None])
    tables: dict = field(default_factory=dict)   # origin -> TableFold

    def origin_at(self, db, table, okey):
        entry = self.names.get((db, table))
        if entry is None:
            return None
        i = bisect_right(entry[0], okey)
        return entry[1][i - 1] if i else None


def _canon(v):
    """A Value (dict of fields, None: NULL) as a hashable tuple."""
    return None if v is None else tuple(v.values())


def key_of(image: dict, origins) -> bytes | None:
    """The key bytes of a projected image (None when a key column is missing)."""
    out = []
    for o in origins:
        if o not in image:
            return None
        out.append(_canon(image[o]))
    return pickle.dumps(tuple(out), protocol=5)


def project(t: TableFold, version, image: dict, full: bool, problems: list) -> dict:
    """An image logged under ``version`` as {final origin: Value}; ``full``: also every final
    column it lacks (its fill: missing from an insert, or added since)."""
    okey, names, fills, _ = version
    out = {}
    final = t.final_origins
    for name, v in image.items():
        o = names.get(name.lower())
        if o is None:
            problems.append(unnamed_column(name))
            continue
        if o in final:
            out[o] = v
    if full:
        for _, o in t.final:
            if o not in out:
                fill = fills.get(o, UNKNOWN) if o in fills else t.added.get(o, UNKNOWN)
                if fill is UNKNOWN:
                    problems.append(unknown_fill(o))
                    fill = None
                out[o] = fill
    return out


def key_rows(rows, plan: FoldPlan):
    """The keyed rows (dicts of :data:`KEYED_FIELDS`) of row changes (dicts with
    ``database``, ``table``, ``okey``, ``operation``, ``before``, ``after`` (lists of (name,
    Value) pairs, or None))."""
    for r in rows:
        okey = r["okey"]
        origin = plan.origin_at(r["database"], r["table"], okey)
        t = plan.tables.get(origin) if origin is not None else None
        if t is None:
            yield _problem(r, NO_TABLE)
            continue
        op = r["operation"]
        version = t.version_at(okey)
        problems = []
        names = version[1]
        before = dict(r["before"]) if r["before"] is not None else None
        after = dict(r["after"]) if r["after"] is not None else None
        cols = len(names)
        key = t.key_at(okey)
        if op == "insert":
            img = project(t, version, after, True, problems)
            rows_out = [("put", key_of(img, key), None, img)]
        elif op == "delete":
            img = project(t, version, before, len(before) >= cols, problems)
            rows_out = [("del", key_of(img, key), None, None)]
        else:
            full = len(after) >= cols
            old_img = project(t, version, before, len(before) >= cols, problems)
            img = project(t, version, after, full, problems)
            old = key_of(old_img, key)
            new = key_of({**old_img, **img} if not full else img, key)
            if new == old:
                rows_out = [("put" if full else "merge", new, None, img)]
            elif full:
                rows_out = [("del", old, None, None), ("put", new, None, img)]
            else:
                rows_out = [("move", new, old, img)]
        for sub, (kind, k, old, img) in enumerate(rows_out):
            if k is None:
                problems.append(NO_KEY)
            yield {"origin": origin, "gkey": k or b"", "okey": okey, "sub": sub, "op": kind,
                   "operation": op if sub == 0 else None,
                   "key": k or b"", "old": old,
                   "image": None if img is None else pickle.dumps(img, protocol=5),
                   "problem": "; ".join(problems) or None}


def _problem(r, message):
    return {"origin": -1, "gkey": b"", "okey": r["okey"], "sub": 0, "op": "problem",
            "operation": None,
            "key": b"", "old": None, "image": None,
            "problem": f"{r['database']}.{r['table']}: {message}"}


class Folder:
    """Folds the keyed rows of one group (a key, or a whole table) in order: the rows it
    holds at the end (:meth:`rows`)."""

    def __init__(self, t: TableFold):
        self.t = t
        self.state: dict = {}      # key -> [image, copies, okey]
        self.at = ""               # the last order key applied
        self.problems: list = []
        self.keyed = None          # the key in force (origins), once a row came

    def _rekey(self, okey):
        """The rows held keyed by the key in force at ``okey`` (when it changed since the
        last row: an ALTER added, changed or dropped the primary key)."""
        key = self.t.key_at(okey)
        if key == self.keyed:
            return
        if self.keyed is not None and self.state:
            held, self.state = self.state, {}
            for img, copies, at in held.values():
                k = key_of(img, key)
                if k is None:
                    self.problems.append(f"{okey}: a row held lacks a column of the primary "
                                         "key an ALTER gave the table")
                    continue
                st = self.state.get(k)
                if st is None:
                    self.state[k] = [img, copies, at]
                else:
                    st[1] += copies
        self.keyed = key

    def _truncated_between(self, a, b) -> bool:
        tr = self.t.truncates
        i = bisect_right(tr, a)
        return i < len(tr) and tr[i] <= b

    def apply(self, r):
        okey = r["okey"]
        if self.state and self._truncated_between(self.at, okey):
            self.state.clear()
        self._rekey(okey)
        keyed = bool(self.t.version_at(okey)[3])
        self.at = okey
        op, key = r["op"], r["key"]
        img = pickle.loads(r["image"]) if r["image"] is not None else None
        st = self.state.get(key)
        if op == "put":
            if st is None or keyed:
                self.state[key] = [img, 1, okey]
            else:
                st[0], st[2] = img, okey
                st[1] += 1
        elif op == "del":
            self._remove(key, okey, keyed)
        elif op == "merge":
            if st is None:
                self.problems.append(f"{okey}: {UPDATE_NOT_HELD}")
                return
            st[0] = {**st[0], **img}
            st[2] = okey
        elif op == "move":
            old = self.state.get(r["old"])
            if old is None:
                self.problems.append(f"{okey}: {MOVE_NOT_HELD}")
                return
            merged = {**old[0], **img}
            self._remove(r["old"], okey, keyed)
            cur = self.state.get(key)
            if cur is None or keyed:
                self.state[key] = [merged, 1, okey]
            else:
                cur[1] += 1

    def _remove(self, key, okey, keyed):
        st = self.state.get(key)
        if st is None:
            self.problems.append(f"{okey}: {DELETE_NOT_HELD}")
        elif st[1] > 1 and not keyed:
            st[1] -= 1
        else:
            del self.state[key]

    def rows(self):
        """(image, okey) of every row held at the end (a multiset's copies repeated)."""
        if self.state and self._truncated_between(self.at, "\uffff"):
            self.state.clear()
        for img, copies, okey in self.state.values():
            for _ in range(copies):
                yield img, okey


def fold_rows(rows, plan: FoldPlan):
    """The rows held at the end, as (origin, image {origin: Value}, okey, problems), of keyed
    rows sorted by (origin, gkey, okey, sub)."""
    group = folder = None
    for r in rows:
        g = (r["origin"], r["gkey"])
        if g != group:
            if folder is not None:
                yield from _emit(group[0], folder)
            group = g
            folder = Folder(plan.tables[r["origin"]])
        folder.apply(r)
    if folder is not None:
        yield from _emit(group[0], folder)


def _emit(origin, folder):
    problems = "; ".join(folder.problems[:5]) or None
    first = True
    for img, okey in folder.rows():
        yield origin, img, okey, problems if first else None
        first = False
    if first and problems:
        yield origin, None, folder.at, problems

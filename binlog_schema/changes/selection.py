"""Which changes a command takes: the filters ``decode``, ``sql`` and ``flashback`` share.

A :class:`Selection` holds everything but the byte range (``--start-position`` /
``--stop-position`` are the reader's): a time window, databases, tables (``db.table`` globs),
a GTID set, operations and thread ids. It answers three questions, each cheap enough for
every event:

- :meth:`Selection.table`: is a table selected (``--database``, ``--table``)?
- :meth:`Selection.transaction`: is a transaction selected (``--gtid``, ``--thread-id``, the
  time window, on the timestamp of the event that began it)?
- :meth:`Selection.operation`: is a row operation selected (``--operation``)?

GTID sets are written as the servers write them: MySQL ``uuid:1-5:7,uuid2:3`` (tagged
``uuid:tag:1-5``, MySQL 8.4), MariaDB ``domain-server-seq`` items, with ``D-S-N1-N2`` for the
sequence numbers ``N1`` to ``N2`` of one domain and server.
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
import re

from ..format.records import record

OPERATIONS = ("insert", "update", "delete")


class SelectionError(ValueError):
    """A filter that cannot be read (said with the option's name)."""


# ------------------------------------------------------------------------ GTID sets

_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                   r"[0-9a-fA-F]{12}$")
_TAG = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,31}$")


def _interval(text: str, what: str) -> tuple:
    lo, sep, hi = text.partition("-")
    try:
        a, b = int(lo), int(hi) if sep else int(lo)
    except ValueError:
        raise SelectionError(f"{what}: {text!r} is not a number or a range N-M") from None
    if a < 1 or b < a:
        raise SelectionError(f"{what}: {text!r}: numbers start at 1, a range N-M has N <= M")
    return a, b


class GtidSet:
    """A set of GTIDs (MySQL and MariaDB forms together), tested with ``in`` against the
    GTID strings :class:`~binlog_schema.changes.transactions.Transaction` carries."""

    def __init__(self, text: str):
        self.text = text
        self.mysql: dict = {}    # (uuid hex, tag or "") -> [(lo, hi)]
        self.mariadb: dict = {}  # (domain, server) -> [(lo, hi)]
        items = [t.strip() for t in text.replace("\n", ",").split(",") if t.strip()]
        if not items:
            raise SelectionError("--gtid: an empty set")
        for item in items:
            if ":" in item:
                self._mysql(item)
            else:
                self._mariadb(item)

    def _mysql(self, item: str) -> None:
        parts = item.split(":")
        sid = parts[0]
        if not _UUID.match(sid):
            raise SelectionError(f"--gtid: {item!r}: {sid!r} is not a server UUID")
        sid = sid.replace("-", "").lower()
        tag = ""
        for part in parts[1:]:
            if _TAG.match(part):
                tag = part.lower()
                continue
            self.mysql.setdefault((sid, tag), []).append(_interval(part, f"--gtid {item!r}"))
        if (sid, tag) not in self.mysql:
            raise SelectionError(f"--gtid: {item!r}: no transaction numbers (uuid:N or "
                                 "uuid:N-M)")

    def _mariadb(self, item: str) -> None:
        parts = item.split("-")
        try:
            nums = [int(p) for p in parts]
        except ValueError:
            nums = []
        if len(nums) not in (3, 4) or min(nums) < 0:
            raise SelectionError(f"--gtid: {item!r} is neither MySQL's uuid:N[-M] nor "
                                 "MariaDB's domain-server-seq (or domain-server-seq1-seq2)")
        lo, hi = nums[2], nums[-1]
        if hi < lo:
            raise SelectionError(f"--gtid: {item!r}: the range ends before it starts")
        self.mariadb.setdefault((nums[0], nums[1]), []).append((lo, hi))

    @classmethod
    def from_encoded(cls, value: dict) -> GtidSet:
        """The set of a PREVIOUS_GTIDS body's value (also COM_BINLOG_DUMP_GTID's set):
        ``{"sids": [{"sid": uuid, "tag", "intervals": [{"start", "end" (past the last)}]}]}``;
        it may be empty."""
        out = cls.__new__(cls)
        out.mysql, out.mariadb = {}, {}
        items = []
        for x in value.get("sids") or []:
            sid = x["sid"] if isinstance(x["sid"], str) else bytes(x["sid"]).hex()
            key = (sid.replace("-", "").lower(), (x.get("tag") or "").lower())
            ranges = [(iv["start"], iv["end"] - 1) for iv in x["intervals"]
                      if iv["end"] > iv["start"]]
            if ranges:
                out.mysql.setdefault(key, []).extend(ranges)
                items.append(":".join([sid] + ([key[1]] if key[1] else []) +
                                      [f"{a}-{b}" if b > a else str(a) for a, b in ranges]))
        out.text = ",".join(items)
        return out

    def encoded(self) -> dict:
        """The MySQL part as a PREVIOUS_GTIDS body's value (the encoded set COM_BINLOG_DUMP_GTID
        carries): sids in order, intervals merged; the tagged format when any tag is set."""
        tagged = any(tag for _sid, tag in self.mysql)
        sids = []
        for (sid, tag), _ in sorted(self.mysql.items()):
            uuid = f"{sid[:8]}-{sid[8:12]}-{sid[12:16]}-{sid[16:20]}-{sid[20:]}"
            sids.append({"sid": uuid, "tag": tag if tagged else None, "intervals": [
                {"start": lo, "end": hi + 1} for lo, hi in self._merged((sid, tag))]})
        return {"format": "TAGGED" if tagged else "UNTAGGED", "sids": sids}

    def _merged(self, key) -> list:
        out: list = []
        for lo, hi in sorted(self.mysql.get(key) or ()):
            if out and lo <= out[-1][1] + 1:
                out[-1] = (out[-1][0], max(out[-1][1], hi))
            else:
                out.append((lo, hi))
        return out

    def covers(self, other: GtidSet) -> bool:
        """Whether every MySQL GTID of ``other`` is in this set."""
        for key in other.mysql:
            mine = self._merged(key)
            for lo, hi in other._merged(key):
                if not any(a <= lo and hi <= b for a, b in mine):
                    return False
        return True

    def __contains__(self, gtid) -> bool:
        if not gtid:
            return False
        if ":" in gtid:
            parts = gtid.split(":")
            key = (parts[0].replace("-", "").lower(), parts[1].lower() if len(parts) == 3
                   else "")
            ranges = self.mysql.get(key)
        else:
            parts = gtid.split("-")
            if len(parts) != 3:
                return False
            ranges = self.mariadb.get((int(parts[0]), int(parts[1])))
        if not ranges:
            return False
        n = int(parts[-1])
        return any(lo <= n <= hi for lo, hi in ranges)

    def __repr__(self):
        return f"GtidSet({self.text!r})"


# ------------------------------------------------------------------------ times


def parse_datetime(text: str, option: str = "--start-datetime") -> int:
    """A point in time as Unix seconds: ``YYYY-MM-DD[ HH:MM[:SS]]`` in UTC (binlog event
    timestamps are UTC seconds), or with an offset (``+02:00``, ``Z``)."""
    try:
        t = _dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise SelectionError(f"{option}: {text!r} is not a time (YYYY-MM-DD HH:MM:SS, UTC "
                             "unless an offset such as +02:00 follows)") from None
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    return int(t.timestamp())


# ------------------------------------------------------------------------ the selection


@record
class Selection:
    start_time: int | None = None    # Unix seconds: transactions that begin at or after it
    stop_time: int | None = None     # Unix seconds: transactions that begin before it
    databases: tuple | None = None   # database names (exact)
    tables: tuple | None = None      # "db.table" patterns (fnmatch globs; a bare name: any db)
    gtids: GtidSet | None = None
    operations: frozenset | None = None  # of OPERATIONS
    thread_ids: frozenset | None = None
    where: tuple | None = None       # row conditions (changes/row_match.py's Condition)

    @classmethod
    def from_options(cls, *, start_datetime=None, stop_datetime=None, database=None,
                     table=None, gtid=None, operation=None, thread_id=None,
                     where=None) -> Selection:
        """A selection from command-line values (strings, or lists of them for the
        repeatable ones). Raises :class:`SelectionError` naming the option."""
        ops = None
        if operation:
            words = [w.strip().lower() for o in _listed(operation) for w in o.split(",")
                     if w.strip()]
            bad = [w for w in words if w not in OPERATIONS]
            if bad or not words:
                raise SelectionError(f"--operation: {', '.join(bad) or 'nothing'}: give "
                                     f"{', '.join(OPERATIONS)} (comma-separated)")
            ops = frozenset(words)
        threads = None
        if thread_id:
            try:
                threads = frozenset(int(t) for o in _listed(thread_id) for t in
                                    str(o).split(",") if t.strip())
            except ValueError:
                raise SelectionError(f"--thread-id: {thread_id!r}: whole numbers") from None
        sel = cls(parse_datetime(start_datetime, "--start-datetime") if start_datetime
                  else None,
                  parse_datetime(stop_datetime, "--stop-datetime") if stop_datetime else None,
                  tuple(_listed(database)) or None, tuple(_listed(table)) or None,
                  GtidSet(",".join(_listed(gtid))) if gtid is not None and gtid != []
                  else None, ops, threads)
        if where:   # (--where: changes/row_match.py reads it)
            from .row_match import WhereError, parse_where
            try:
                sel.where = parse_where(_listed(where))
            except WhereError as e:
                raise SelectionError(str(e)) from None
        if sel.start_time is not None and sel.stop_time is not None and \
                sel.stop_time <= sel.start_time:
            raise SelectionError("--stop-datetime is not after --start-datetime: nothing "
                                 "would be selected")
        return sel

    # ---------------------------------------------------------------- questions

    @property
    def any(self) -> bool:
        """Whether anything is filtered."""
        return self.filters_tables or self.filters_transactions or \
            self.operations is not None or self.where is not None

    @property
    def filters_tables(self) -> bool:
        return self.databases is not None or self.tables is not None

    @property
    def filters_transactions(self) -> bool:
        return (self.start_time is not None or self.stop_time is not None
                or self.gtids is not None or self.thread_ids is not None)

    def table(self, database, table) -> bool:
        """Whether changes of ``database.table`` are selected."""
        db = database if isinstance(database, str) else bytes(database).decode("utf-8",
                                                                                "replace")
        if self.databases is not None and db not in self.databases:
            return False
        if self.tables is None:
            return True
        name = table if isinstance(table, str) else bytes(table).decode("utf-8", "replace")
        full = f"{db}.{name}"
        return any(fnmatch.fnmatchcase(full, p) if "." in p else fnmatch.fnmatchcase(name, p)
                   for p in self.tables)

    def database(self, database) -> bool:
        """Whether a statement whose default database is ``database`` may touch a selected
        table (a DDL's database; None: unknown, so it may)."""
        if database is None or not self.filters_tables:
            return True
        db = database if isinstance(database, str) else bytes(database).decode("utf-8",
                                                                                "replace")
        if self.databases is not None and db not in self.databases:
            return False
        if self.tables is not None and not any(
                "." not in p or fnmatch.fnmatchcase(db, p.split(".", 1)[0])
                for p in self.tables):
            return False
        return True

    def operation(self, op: str) -> bool:
        return self.operations is None or op in self.operations

    def transaction(self, gtid, thread_id, timestamp) -> bool:
        """Whether a transaction is selected: its GTID in ``--gtid``, its thread (of its
        BEGIN query) in ``--thread-id``, the time it began (``timestamp``: its first event's)
        in the window."""
        if self.gtids is not None and gtid not in self.gtids:
            return False
        if self.thread_ids is not None and thread_id not in self.thread_ids:
            return False
        if self.start_time is not None and (timestamp is None or timestamp < self.start_time):
            return False
        if self.stop_time is not None and (timestamp is None or timestamp >= self.stop_time):
            return False
        return True


def select_events(records, selection: Selection, *, limit: int = 8 << 20):
    """The records of a stream that ``decode`` prints under ``selection``, whole transactions
    at a time (transactions as changes/transactions.py's :class:`Boundary` tells them):

    * A transaction is printed when it is selected (``--gtid``, ``--thread-id``, the time
      window on its first event) and, under ``--database``, ``--table`` or ``--operation``,
      when it holds a selected change: a rows event of a selected table and operation, or a
      statement (statement-based DML, DDL) whose default database may hold a selected table.
      Of a transaction printed: its own events (GTID, BEGIN, ANNOTATE_ROWS, INTVAR..., the
      XID or COMMIT), the table maps of selected tables, its selected rows events and
      statements; the rows events and table maps of other tables and operations are not. A
      transaction with no selected change prints nothing, not even its GTID or XID.
    * A compressed transaction (TRANSACTION_PAYLOAD) is printed whole when it holds a
      selected change.
    * Events outside transactions (FORMAT_DESCRIPTION, ROTATE..., a statement outside any
      transaction) stay unless a GTID or thread filter is given (the time window judges them
      by their own time); a statement outside any transaction when its database may hold a
      selected table.
    * Errors and skipped ranges always pass (every byte accounted for), and with them the
      transaction they are in (damage may hide its selected change).

    Until a transaction holds a selected change (or ends), its events wait, in memory up to
    ``limit`` bytes, the rest in a temporary file (:class:`HeldRecords`)."""
    from ..format.facts.codes import (ROWS_KINDS, STATEMENT_KINDS, TABLE_MAP_EVENT,
                               TRANSACTION_PAYLOAD_EVENT)
    from ..format.values.rows import operation_of
    from .statements import BEGINS
    from .transactions import (ALONE, BOUNDARY_KINDS, CLOSES, INSIDE, OPENS, OUTSIDE,
                               HeldRecords, Transactions, event_time, record_role)
    txs = Transactions()
    maps: dict = {}           # table id -> selected (the table maps of the transaction)
    by_tx = selection.filters_transactions
    by_id = selection.gtids is not None or selection.thread_ids is not None
    # (--where: the rows events that reach here hold matching rows, changes/row_match.py's
    # RowMatcher.events took the others out; a statement holds none)
    by_content = selection.filters_tables or selection.operations is not None or \
        selection.where is not None
    held = HeldRecords(limit)
    group = None              # the open transaction
    mode = _DROP              # _WAIT (its events held), _KEEP or _DROP
    opening = True            # only its opening events (GTID, BEGIN) seen so far

    def tx_ok(tx) -> bool:
        return not by_tx or selection.transaction(tx.gtid, tx.thread_id, tx.timestamp)

    def end_group():
        nonlocal group
        if group is not None and mode == _WAIT:
            if not by_content and tx_ok(group):
                yield from held.drain()
            held.clear()
        group = None

    def content(r) -> bool | None:
        """True: a selected change; False: a change not selected, or a table map of a table
        not selected (never printed); None: an event of the transaction itself."""
        k = r.kind
        if k == TABLE_MAP_EVENT:
            body = r.value["body"] if r.value is not None else None
            if body is None:
                return None
            ok = maps[body["table_id"]] = selection.table(body.get("database"),
                                                          body.get("table"))
            return None if ok else False
        if k in ROWS_KINDS:
            body = r.value["body"] if r.value is not None else None
            return body is None or (maps.get(body["table_id"], not selection.filters_tables)
                                    and selection.operation(operation_of(k)))
        if k in STATEMENT_KINDS and record_role(r) is None:
            return _query_db_ok(r, selection) and selection.where is None
        if k == TRANSACTION_PAYLOAD_EVENT and r.inner is not None:
            return any(r.error is not None or content(x) for x in r.inner)
        return None

    for rec in records:
        if rec.gap is not None or rec.error is not None:
            if group is not None and mode == _WAIT:   # (damage: the transaction is printed)
                yield from held.drain()
                mode = _KEEP
            yield rec
            continue
        kind = rec.kind
        ended = None
        if kind in BOUNDARY_KINDS:
            ended = txs.feed(rec, rec.offset)
            step = txs.last
        elif kind == TRANSACTION_PAYLOAD_EVENT and rec.inner is not None:
            if txs.open is None:
                txs.current(rec.offset, event_time(rec))
            step = INSIDE
            for r in rec.inner:    # (its events: BEGIN, ..., the XID that ends it)
                if r.error is None and r.kind in BOUNDARY_KINDS:
                    txs.feed(r, rec.offset)
                    if txs.last == CLOSES:
                        step = CLOSES
        elif txs.boundary.open:
            step = INSIDE
        elif kind in ROWS_KINDS or kind == TABLE_MAP_EVENT:   # (read from a transaction's
            txs.current(rec.offset, event_time(rec))            # middle: it begins here)
            step = INSIDE
        else:
            step = OUTSIDE
        if step == OPENS or (step != OUTSIDE and step != ALONE and group is None):
            yield from end_group()
            group = txs.open if txs.open is not None else ended   # (an end met alone)
            maps.clear()
            mode, opening = _WAIT, True
        elif step == OUTSIDE or step == ALONE:
            yield from end_group()
            ts = event_time(rec)
            if by_id or (selection.start_time is not None and ts < selection.start_time) \
                    or (selection.stop_time is not None and ts >= selection.stop_time):
                continue
            if step == OUTSIDE or _query_db_ok(rec, selection):
                yield rec
            continue
        if mode == _DROP:
            pass
        elif mode == _KEEP:
            if content(rec) is not False:
                yield rec
        else:
            got = content(rec)
            if opening and (step == OPENS or (kind in STATEMENT_KINDS and
                                              record_role(rec) is BEGINS)):
                held.add(rec)   # (its GTID, BEGIN: the thread and GTID are known after them)
            else:
                opening = False
                if not tx_ok(group):
                    held.clear()
                    mode = _DROP
                elif got or (got is None and not by_content):
                    yield from held.drain()
                    mode = _KEEP
                    yield rec
                elif got is None:
                    held.add(rec)
        if step == CLOSES:
            yield from end_group()
    yield from end_group()


_WAIT, _KEEP, _DROP = range(3)   # select_events: a transaction's events held, printed, dropped


def _query_db_ok(rec, selection) -> bool:
    """A statement's default database selected (it may hold a selected table)."""
    if not selection.filters_tables:
        return True
    body = rec.value["body"] if rec.value is not None else None
    return body is None or selection.database(body.get("database") or None)


def _listed(value) -> list:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [v for v in value if v is not None and v != ""]
    return [value]


__all__ = ["GtidSet", "OPERATIONS", "Selection", "SelectionError", "parse_datetime",
           "select_events"]

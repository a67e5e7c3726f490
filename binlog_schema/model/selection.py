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

from ..records import record

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
    GTID strings :class:`~binlog_schema.model.transactions.Transaction` carries."""

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
    def from_encoded(cls, value: dict) -> "GtidSet":
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

    def covers(self, other: "GtidSet") -> bool:
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

    @classmethod
    def from_options(cls, *, start_datetime=None, stop_datetime=None, database=None,
                     table=None, gtid=None, operation=None, thread_id=None) -> "Selection":
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
        if sel.start_time is not None and sel.stop_time is not None and \
                sel.stop_time <= sel.start_time:
            raise SelectionError("--stop-datetime is not after --start-datetime: nothing "
                                 "would be selected")
        return sel

    # ---------------------------------------------------------------- questions

    @property
    def any(self) -> bool:
        """Whether anything is filtered."""
        return self.filters_tables or self.filters_transactions or self.operations is not None

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


def select_events(records, selection: Selection):
    """The records of a stream that ``decode`` prints under ``selection``: rows events of
    selected tables and operations, the table maps of selected tables, QUERY events whose
    database is selected, in selected transactions (GTID set, thread, the time window on the
    transaction's first event); events outside transactions (FORMAT_DESCRIPTION, ROTATE...)
    stay unless a GTID or thread filter is given (the time window judges them by their own
    time). Errors and skipped ranges always pass (every byte accounted for). A GTID event
    waits for the BEGIN that says its transaction's thread. A compressed transaction
    (TRANSACTION_PAYLOAD) is judged whole, by its transaction."""
    from ..mysql.codes import GTID_KINDS, QUERY_EVENT, ROWS_KINDS, TABLE_MAP_EVENT
    from ..values.rows import operation_of
    from .transactions import BOUNDARY_KINDS, Transactions, event_time
    txs = Transactions()
    maps: dict = {}
    held = None           # a GTID event waiting for the BEGIN that says its thread
    by_tx = selection.filters_transactions
    by_id = selection.gtids is not None or selection.thread_ids is not None

    def tx_ok(tx) -> bool:
        return not by_tx or selection.transaction(tx.gtid, tx.thread_id, tx.timestamp)

    for rec in records:
        if rec.gap is not None or rec.error is not None:
            if held is not None:
                yield held
                held = None
            yield rec
            continue
        kind = rec.kind
        ended = txs.feed(rec, rec.offset) if kind in BOUNDARY_KINDS else None
        tx = txs.open
        if held is not None:
            gtid_rec, held = held, None
            subject = ended if ended is not None and (tx is None or kind in GTID_KINDS) \
                else tx
            if subject is None or tx_ok(subject):
                yield gtid_rec
        if kind in GTID_KINDS:
            held = rec
            continue
        if tx is None:
            if ended is not None:            # a commit: with its transaction
                if tx_ok(ended):
                    yield rec
                continue
            if kind in ROWS_KINDS or kind == TABLE_MAP_EVENT:
                tx = txs.current(rec.offset, event_time(rec))
            else:                            # outside transactions: context events, DDL
                ts = event_time(rec)
                if by_id or (selection.start_time is not None and ts < selection.start_time) \
                        or (selection.stop_time is not None and ts >= selection.stop_time):
                    continue
                if kind != QUERY_EVENT or _query_db_ok(rec, selection):
                    yield rec
                continue
        if not tx_ok(tx):
            continue
        if kind == TABLE_MAP_EVENT:
            body = rec.value["body"] if rec.value is not None else None
            ok = body is None or selection.table(body.get("database"), body.get("table"))
            if body is not None:
                maps[body["table_id"]] = ok
            if ok:
                yield rec
        elif kind in ROWS_KINDS:
            body = rec.value["body"] if rec.value is not None else None
            if body is None or (maps.get(body["table_id"], not selection.filters_tables)
                                and selection.operation(operation_of(kind))):
                yield rec
        elif kind != QUERY_EVENT or _query_db_ok(rec, selection):
            yield rec
    if held is not None:
        yield held


def _query_db_ok(rec, selection) -> bool:
    """A QUERY's default database selected (BEGIN/COMMIT always are)."""
    if not selection.filters_tables:
        return True
    from .row_change import query_verb
    verb = query_verb(rec, False)
    if verb in ("begin", "commit", "rollback"):
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

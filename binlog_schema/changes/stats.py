"""What a binlog holds, counted: the figures of ``binlog-schema stats`` (and ``spark stats``).

:class:`Stats` is fed event records (:meth:`Stats.count`) and merges with another
(:meth:`Stats.merge`: the parts of a file read by several processes, the files of an
archive), then gives one JSON-safe dict (:meth:`Stats.to_dict`, the keys docs/insight.md
documents):

* per table: row changes by operation, rows events and their bytes;
* per transaction (transactions as :class:`~.transactions.Transactions` follows them, the one
  boundary rule): its bytes (first event to its XID/COMMIT, both included), row changes,
  tables and duration (its commit event's time less its first event's, in seconds); the
  largest and the longest named by GTID or file and position, and histograms of both;
* events per type (count and bytes; the events inside a TRANSACTION_PAYLOAD too, with their
  uncompressed sizes);
* row changes per minute (of the rows events' header times), per table;
* GTIDs per source (MySQL server UUID, with its tag; MariaDB domain-server), as ranges;
* per file: size, events, first and last event times;
* events larger than a limit (``max_allowed_packet``-like, 16 MiB by default);
* what could not be read: byte ranges skipped, events that do not decode, rows events whose
  rows cannot be counted; and the statement-based changes (QUERY events: counted, no rows).

Rows are counted without making their values (:func:`..format.values.row_count.count_rows`). With a
row predicate (``--where``: :class:`.row_match.RowMatcher`) only the matching row changes
count, and only the transactions holding one.
"""

from __future__ import annotations

import heapq
import os

from ..format.facts.codes import (GTID_KINDS, QUERY_KINDS, ROWS_KINDS, TABLE_MAP_EVENT,
                           TRANSACTION_PAYLOAD_EVENT, type_name)
from .row_change import STATEMENT_QUERY_KINDS
from .transactions import (ALONE, BOUNDARY_KINDS, CLOSES, INSIDE, OPENS, Transaction,
                           Transactions)

STATS_VERSION = 1
DEFAULT_TOP = 10
DEFAULT_MAX_EVENT_SIZE = 16 << 20   # MySQL's and MariaDB's default max_allowed_packet
_INSERT, _UPDATE, _DELETE, _EVENTS, _BYTES = range(5)


def table_name(value) -> str:
    """A database or table name as text (a name that is not UTF-8: its hex)."""
    if isinstance(value, str):
        return value
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        return bytes(value).hex()


def _bucket(n: int) -> int:
    """The histogram bucket of ``n`` (>= 0): 0 for 0, else k with 2^(k-1) <= n < 2^k."""
    return n.bit_length()


class Stats:
    """The counts of one or more files (or parts of files). ``top``: how many of the largest
    and longest transactions are named; ``max_event_size``: events larger are listed."""

    def __init__(self, top: int = DEFAULT_TOP, max_event_size: int = DEFAULT_MAX_EVENT_SIZE):
        self.top, self.max_event_size = top, max_event_size
        self.files: list = []          # [path, size, events, first time, last time, status]
        self.types: dict = {}          # kind -> [events, bytes]
        self.tables: dict = {}         # (db, table) -> [inserts, updates, deletes, events, bytes]
        self.minutes: dict = {}        # minute (Unix seconds) -> {(db, table): changes}
        self.transactions = [0, 0, 0, 0]   # count, committed, bytes, changes
        self.largest: list = []        # a heap of (bytes, order, summary)
        self.longest: list = []        # a heap of (duration, order, summary)
        self.size_histogram: dict = {}      # bucket -> transactions
        self.duration_histogram: dict = {}  # bucket -> transactions (committed ones)
        self.gtids: dict = {}          # (flavor, source) -> [[lo, hi], ...]
        self.large: list = []          # [file, offset, type, size]
        self.skipped: list = []        # [file, start, end, reason]
        self.undecodable: list = []    # [file, offset, type, reason]
        self.statements: dict = {}     # statement-based changes by verb

    # ------------------------------------------------------------------ counting

    def count(self, records, file: str, decoder, matcher=None, file_index: int = 0,
              transactions: Transactions | None = None):
        """Count one file's (or one part's) ``records`` (a :class:`~..stream.BinlogReader`'s,
        lazy; with recovery, its SKIPPED records and events with errors are counted as
        such). ``decoder``: a :class:`~.row_change.RowDecoder` for ``file`` (table maps,
        statement-based changes); ``matcher``: a :class:`~.row_match.RowMatcher` (only the
        row changes it matches count); ``file_index``: the file's place among the files (the
        order of transactions of equal size or duration among the largest and longest);
        ``transactions``: the :class:`~.transactions.Transactions` that follows the records
        (its boundary state at their end is then the caller's to see). Returns the
        transaction the records ended inside (counted, uncommitted), or None."""
        from ..format.facts.framing import crc_ok
        from ..format.values.row_count import RowCounter, split_rows_event
        from ..format.values.rows import operation_of
        txs = Transactions(xids=False) if transactions is None else transactions
        types, tables, minutes, large = self.types, self.tables, self.minutes, self.large
        limit = self.max_event_size
        feed_map = decoder.feed_one
        maps = decoder.table_maps
        codec_by_id = decoder.codec_by_id
        count_rows = RowCounter().count
        open_bytes = [0]      # the bytes of the open transaction so far
        first = last = None
        events = 0

        def finish(tx, size):
            if tx is not None and (matcher is None or tx.rows):
                self._transaction(tx, size, file, file_index)

        def rows_event(r, offset, ts, size, kind):
            split = split_rows_event(r)
            if split is None:
                self._undecodable(file, r, r.error or "its CRC32 does not match")
                return
            body, data = split
            tid = body["table_id"]
            tm = maps.get(tid)
            if tm is None:
                self._rows_undecodable(file, r, decoder)
                return
            if matcher is not None:
                if not matcher.wanted(tm):
                    return
                n = matcher.count(decoder, r)
                if n is None:   # (rows that do not decode: said by the matcher's decoder)
                    self._rows_undecodable(file, r, decoder)
                    return
                if not n:
                    return
            else:
                try:
                    n = count_rows(codec_by_id(tid), body, kind, data)
                except Exception:  # noqa: BLE001 - decoded again, for the precise error
                    self._rows_undecodable(file, r, decoder)
                    return
            key = (tm.database, tm.table)
            t = tables.get(key)
            if t is None:
                t = tables[key] = [0, 0, 0, 0, 0]
            op = operation_of(kind)
            t[_INSERT if op == "insert" else _UPDATE if op == "update" else _DELETE] += n
            t[_EVENTS] += 1
            t[_BYTES] += size
            tx = txs.open if txs.open is not None else txs.current(offset, ts)
            tx.rows += n
            tx.tables[key] = tx.tables.get(key, 0) + n
            minute = ts - ts % 60
            m = minutes.get(minute)
            if m is None:
                m = minutes[minute] = {}
            m[key] = m.get(key, 0) + n

        feed_statement = decoder.feed_statement

        def statement(r, kind):
            """A QUERY (statement-based changes counted); one whose statement the undecoded
            read does not name (none of BEGIN, COMMIT, DML: a schema change, or bytes that
            are no statement) is parsed: one whose body does not decode is said, not
            counted as read. (ROWS_QUERY and ANNOTATE_ROWS are not read.)"""
            if kind in STATEMENT_QUERY_KINDS and feed_statement(r) is None and \
                    r.error is not None:
                self._undecodable(file, r, r.error)

        def one(r, offset, size, ts, kind):
            """One event (of the file, or inside a payload at ``offset``: its bytes are the
            payload's, counted with it)."""
            own = size if r.parent_offset is None else 0
            if kind in ROWS_KINDS:
                if not txs.boundary.open:   # (read from a transaction's middle: it begins here)
                    txs.current(offset, ts)
                    open_bytes[0] = 0
                open_bytes[0] += own
                rows_event(r, offset, ts, size, kind)
                return
            if r.unparsed and not crc_ok(r.raw, kind, r.ctx) and r.error is not None:
                # (an event not parsed here is still checked: its CRC32, else it is parsed
                # for the error that says what is wrong)
                self._undecodable(file, r, r.error)
                return
            if kind in BOUNDARY_KINDS:
                # (a statement's role is read from its bytes, an XID needs none of its own:
                # neither is decoded here; a GTID is, for its GTID)
                if kind in GTID_KINDS and r.error is not None:
                    self._undecodable(file, r, r.error)
                    return
                ended = txs.feed(r, offset)
                step = txs.last
                if step == OPENS:
                    finish(ended, open_bytes[0])
                    open_bytes[0] = own
                elif step == CLOSES:
                    finish(ended, open_bytes[0] + own)
                    open_bytes[0] = 0
                elif step == INSIDE:
                    open_bytes[0] += own
                elif step == ALONE:   # (a statement outside any transaction: one of its own)
                    finish(Transaction(offset, committed=True, commit_timestamp=ts,
                                       timestamp=ts), own)
                if kind in QUERY_KINDS:
                    statement(r, kind)
                return
            if txs.boundary.open:
                open_bytes[0] += own
            if kind == TABLE_MAP_EVENT:
                feed_map(r)   # (parsed once per distinct map)
                if not r.unparsed and r.error is not None:
                    self._undecodable(file, r, r.error)
            elif kind in QUERY_KINDS:
                statement(r, kind)
            elif not r.unparsed and r.error is not None:
                self._undecodable(file, r, r.error)

        for rec in records:
            if rec.gap is not None:
                start, end = rec.gap
                self.skipped.append([file, start, end, str(rec.error)])
                continue
            raw = rec.raw
            size = len(raw)
            ts = int.from_bytes(raw[:4], "little")
            kind = rec.kind
            t = types.get(kind)
            if t is None:
                t = types[kind] = [0, 0]
            t[0] += 1
            t[1] += size
            events += 1
            if first is None or ts < first:
                first = ts
            if last is None or ts > last:
                last = ts
            if size > limit:
                large.append([file, rec.offset, type_name(kind), size])
            if kind == TRANSACTION_PAYLOAD_EVENT:
                if rec.error is not None or rec.inner is None:
                    self._undecodable(file, rec, rec.error or "its events could not be read")
                    continue
                if not txs.boundary.open:
                    txs.current(rec.offset, ts)
                    open_bytes[0] = 0
                open_bytes[0] += size
                for r in rec.inner:
                    n = len(r.raw)
                    k = r.kind
                    t = types.get(k)
                    if t is None:
                        t = types[k] = [0, 0]
                    t[0] += 1
                    t[1] += n
                    events += 1
                    one(r, rec.offset, n, int.from_bytes(r.raw[:4], "little"), k)
                continue
            one(rec, rec.offset, size, ts, kind)
        ended = txs.close()
        finish(ended, open_bytes[0])
        for verb, n in decoder.statements.items():
            self.statements[verb] = self.statements.get(verb, 0) + n
        decoder.statements = {}
        self._file_part(file, events, first, last)
        return ended

    def _file_part(self, file, events, first, last) -> None:
        for f in self.files:
            if f[0] == file:
                f[2] += events
                f[3] = first if f[3] is None else f[3] if first is None else min(f[3], first)
                f[4] = last if f[4] is None else f[4] if last is None else max(f[4], last)
                return
        self.files.append([file, None, events, first, last])

    def _transaction(self, tx, size: int, file: str, file_index: int) -> None:
        t = self.transactions
        t[0] += 1
        t[2] += size
        t[3] += tx.rows
        duration = None
        if tx.committed:
            t[1] += 1
            if tx.commit_timestamp is not None and tx.timestamp is not None:
                duration = max(tx.commit_timestamp - tx.timestamp, 0)
                b = _bucket(duration)
                self.duration_histogram[b] = self.duration_histogram.get(b, 0) + 1
        b = _bucket(size)
        self.size_histogram[b] = self.size_histogram.get(b, 0) + 1
        if tx.gtid:
            self._gtid(tx.gtid)
        summary = None
        order = (-file_index, -tx.begin)   # (of equal ones, the first in the files)
        for heap, key in ((self.largest, size), (self.longest, duration)):
            if key is None or self.top <= 0:
                continue
            if len(heap) < self.top or (key, order) > heap[0][:2]:
                if summary is None:
                    summary = (file, tx.begin, tx.gtid, size, tx.rows,
                               sorted(f"{table_name(d)}.{table_name(n)}" for d, n in tx.tables),
                               duration, tx.timestamp, tx.committed)
                item = (key, order, summary)
                if len(heap) < self.top:
                    heapq.heappush(heap, item)
                else:
                    heapq.heapreplace(heap, item)

    def _gtid(self, gtid: str) -> None:
        if ":" in gtid:
            source, _, n = gtid.rpartition(":")
            flavor = "mysql"
        else:
            parts = gtid.split("-")
            if len(parts) != 3:
                return
            source, n, flavor = f"{parts[0]}-{parts[1]}", parts[2], "mariadb"
        try:
            n = int(n)
        except ValueError:
            return
        ranges = self.gtids.get((flavor, source))
        if ranges is None:
            self.gtids[(flavor, source)] = [[n, n]]
        elif ranges[-1][1] + 1 == n:
            ranges[-1][1] = n
        else:
            ranges.append([n, n])

    def _undecodable(self, file, rec, error) -> None:
        where = rec.offset if rec.parent_offset is None else rec.parent_offset
        self.undecodable.append([file, where, rec.type_name, str(error)])

    def _rows_undecodable(self, file, rec, decoder) -> None:
        """A rows event whose rows cannot be counted: decoded, for the error that says why
        (the decoder's :class:`~..errors.RowsError`: offset, table, column, reason)."""
        from ..format.errors import BinlogError
        try:
            decoder.rows_of(rec)
        except BinlogError as e:
            self._undecodable(file, rec, getattr(e, "message", None) or e)
        else:  # (the counting walk failed where the decoding did not: no such case known)
            self._undecodable(file, rec, "rows could not be counted")

    # ------------------------------------------------------------------ merging

    def set_file_size(self, file: str, size: int) -> None:
        for f in self.files:
            if f[0] == file:
                f[1] = size
                return
        self.files.append([file, size, 0, None, None])

    def merge(self, other: Stats) -> Stats:
        """Add ``other``'s counts (another file, or another part of a file) to these."""
        for f in other.files:
            self._file_part(f[0], f[2], f[3], f[4])
            if f[1] is not None:
                self.set_file_size(f[0], f[1])
        for k, (n, b) in other.types.items():
            t = self.types.setdefault(k, [0, 0])
            t[0] += n
            t[1] += b
        for k, v in other.tables.items():
            t = self.tables.setdefault(k, [0, 0, 0, 0, 0])
            for i, x in enumerate(v):
                t[i] += x
        for minute, by in other.minutes.items():
            m = self.minutes.setdefault(minute, {})
            for k, n in by.items():
                m[k] = m.get(k, 0) + n
        for i, x in enumerate(other.transactions):
            self.transactions[i] += x
        for mine, theirs in ((self.largest, other.largest), (self.longest, other.longest)):
            for item in theirs:
                if len(mine) < self.top:
                    heapq.heappush(mine, item)
                elif item[:2] > mine[0][:2]:
                    heapq.heapreplace(mine, item)
        for hist, theirs in ((self.size_histogram, other.size_histogram),
                             (self.duration_histogram, other.duration_histogram)):
            for b, n in theirs.items():
                hist[b] = hist.get(b, 0) + n
        for key, ranges in other.gtids.items():
            self.gtids.setdefault(key, []).extend([list(r) for r in ranges])
        self.large.extend(other.large)
        self.skipped.extend(other.skipped)
        self.undecodable.extend(other.undecodable)
        for verb, n in other.statements.items():
            self.statements[verb] = self.statements.get(verb, 0) + n
        return self

    # ------------------------------------------------------------------ the figures

    @property
    def damaged(self) -> bool:
        """Whether anything was skipped or could not be decoded."""
        return bool(self.skipped or self.undecodable)

    def to_dict(self) -> dict:
        """The figures as JSON-safe values, with the keys docs/insight.md documents (sorted
        as it says, so that equal counts give equal documents)."""
        files = [{"file": f, "size": size, "events": n, "first_timestamp": a,
                  "last_timestamp": b} for f, size, n, a, b in self.files]
        firsts = [f[3] for f in self.files if f[3] is not None]
        lasts = [f[4] for f in self.files if f[4] is not None]
        tables = []
        for (db, name), (ins, upd, dele, events, size) in self.tables.items():
            tables.append({"database": table_name(db), "table": table_name(name),
                           "inserts": ins, "updates": upd, "deletes": dele,
                           "changes": ins + upd + dele, "rows_events": events,
                           "bytes": size})
        tables.sort(key=lambda t: (-t["changes"], -t["bytes"], t["database"], t["table"]))
        count, committed, size, changes = self.transactions
        minutes = []
        for minute in sorted(self.minutes):
            by = {f"{table_name(d)}.{table_name(n)}": c
                  for (d, n), c in self.minutes[minute].items()}
            minutes.append({"minute": minute, "changes": sum(by.values()),
                            "tables": dict(sorted(by.items()))})
        gtids = []
        for (flavor, source), ranges in sorted(self.gtids.items()):
            merged = _merged(ranges)
            sep = ":" if flavor == "mysql" else ","
            prefix = f"{source}:" if flavor == "mysql" else f"{source}-"
            text = sep.join(f"{lo}-{hi}" if hi > lo else f"{lo}" for lo, hi in merged)
            if flavor == "mariadb":
                text = ",".join(prefix + (f"{lo}-{hi}" if hi > lo else f"{lo}")
                                for lo, hi in merged)
            else:
                text = prefix + text
            gtids.append({"flavor": flavor, "source": source,
                          "transactions": sum(hi - lo + 1 for lo, hi in merged),
                          "ranges": merged, "text": text})
        return {
            "version": STATS_VERSION,
            "files": files,
            "span": {"first_timestamp": min(firsts) if firsts else None,
                     "last_timestamp": max(lasts) if lasts else None},
            "events": {"count": sum(n for n, _ in self.types.values()),
                       "bytes": sum(b for _, b in self.types.values())},
            "event_types": sorted(({"type": type_name(k), "events": n, "bytes": b}
                                   for k, (n, b) in self.types.items()),
                                  key=lambda t: (-t["events"], t["type"])),
            "tables": tables,
            "changes": {"inserts": sum(t["inserts"] for t in tables),
                        "updates": sum(t["updates"] for t in tables),
                        "deletes": sum(t["deletes"] for t in tables),
                        "total": sum(t["changes"] for t in tables)},
            "transactions": {
                "count": count, "committed": committed, "uncommitted": count - committed,
                "bytes": size, "changes": changes,
                "largest": [_tx_dict(s) for _, _, s in sorted(self.largest, reverse=True)],
                "longest": [_tx_dict(s) for _, _, s in sorted(self.longest, reverse=True)],
                "size_histogram": _histogram(self.size_histogram),
                "duration_histogram": _histogram(self.duration_histogram),
            },
            "per_minute": minutes,
            "gtids": gtids,
            "large_events": {"limit": self.max_event_size,
                             "events": [{"file": f, "offset": o, "type": t, "size": s}
                                        for f, o, t, s in self.large]},
            "statement_changes": dict(sorted(self.statements.items())),
            "skipped": [{"file": f, "start": a, "end": b, "bytes": b - a, "reason": r}
                        for f, a, b, r in self.skipped],
            "undecodable": [{"file": f, "offset": o, "type": t, "reason": r}
                            for f, o, t, r in self.undecodable],
        }


def _merged(ranges) -> list:
    out: list = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def _histogram(hist: dict) -> list:
    """Buckets in order: ``min`` and ``max`` (both included) and the transactions between."""
    return [{"min": 0 if b == 0 else 1 << (b - 1), "max": 0 if b == 0 else (1 << b) - 1,
             "transactions": hist[b]} for b in sorted(hist)]


def _tx_dict(s) -> dict:
    file, begin, gtid, size, rows, tables, duration, ts, committed = s
    return {"id": gtid if gtid else f"{os.path.basename(file)}:{begin}", "gtid": gtid,
            "file": file,
            "offset": begin, "bytes": size, "changes": rows, "tables": tables,
            "duration": duration, "timestamp": ts, "committed": committed}


__all__ = ["DEFAULT_MAX_EVENT_SIZE", "DEFAULT_TOP", "STATS_VERSION", "Stats", "table_name"]

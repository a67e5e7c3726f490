"""The binlog folder a :mod:`.server` serves, and the facts its answers come from: the binlog
files in name order (a file counts when it starts with the magic number; index files and
others are ignored), their sizes, the server id and checksum setting of their
FORMAT_DESCRIPTION, the GTID state at a file position (MariaDB: the file's GTID_LIST and the
GTID events before it), the transaction after a GTID state, the file a MySQL GTID dump
starts from (PREVIOUS_GTIDS), and the row metadata the files'
TABLE_MAPs hold. Files are read event by event (:class:`~binlog_schema.format.stream.BinlogReader`),
never whole; answers are cached per (file, size)."""

from __future__ import annotations

import os
import threading

from ...format.facts import codes
from ...format.scanning import MAGIC
from ...format.stream import BinlogReader

_LOCK = threading.Lock()


def gtid_text(state: dict) -> str:
    """MariaDB's text of a GTID state: ``domain-server-seq`` per domain, by domain."""
    return ",".join(f"{d}-{s}-{n}" for d, (s, n) in sorted(state.items()))


def parse_gtid_state(text: str) -> dict:
    """``{domain: (server_id, seq_no)}`` of MariaDB's GTID state text (``0-1-5,1-2-9``);
    an empty text is the empty state. Raises ValueError for anything else."""
    state = {}
    for item in filter(None, (t.strip() for t in (text or "").split(","))):
        domain, server, seq = (int(x) for x in item.split("-"))
        state[domain] = (server, seq)
    return state


class BinlogFolder:
    """The binlog files of one folder, and what the server answers from them."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._cache: dict = {}

    # ------------------------------------------------------------------ files

    def names(self) -> list:
        """The binlog files' names, in name order."""
        out = []
        for name in sorted(os.listdir(self.path)):
            full = os.path.join(self.path, name)
            if not os.path.isfile(full):
                continue
            try:
                with open(full, "rb") as f:
                    if f.read(4) != MAGIC:
                        continue
            except OSError:
                continue
            out.append(name)
        return out

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def exists(self, name: str) -> bool:
        return os.path.basename(name) == name and name in self.names()

    def size(self, name: str) -> int:
        return os.path.getsize(self.file(name))

    def after(self, name: str, named: str | None = None, offset: int | None = None):
        """What is served after ``name`` once its last event is sent: ``(file, None)`` the
        file to serve; ``(None, None)`` none yet (a blocking dump waits, a non-blocking one
        ends); ``(None, reason)`` refused, never a repeat or a skip. ``named``: the file the
        ROTATE at ``offset`` (the file's last event) names; None: the file has no ROTATE.

        The folder's order (the names') is the order of the files; a ROTATE must agree with
        it: it names the next file, or a file not in the folder that would not sort between
        this one and the next (renamed copies: ``a.000001`` whose ROTATE names
        ``mysql-bin.000002``, then ``a.000002``: the next file is served), or a file not
        there yet after the last one (waited for). A ROTATE naming the file itself, an
        earlier file or one past the next, or a file missing between this one and the next,
        is refused."""
        names = self.names()
        later = [n for n in names if n > name]
        following = later[0] if later else None
        if named is None or named == following:
            return following, None
        where = f"{name}: the ROTATE at offset {offset} names {named}"
        if named == name:
            return None, (f"{where}, the file itself: serving it again would repeat its "
                          "events (copies renamed? name each file as the ROTATE before it "
                          "does)")
        if named in names:
            return None, (f"{where}, which comes before it in the folder: serving it again "
                          "would repeat its events" if named < name else
                          f"{where}, but {following} comes between: serving {named} next "
                          f"would skip {following}")
        if following is None:
            return None, None
        if name < named < following:
            return None, (f"{where}, which is not in the folder, while a later file is "
                          f"({following}): a file is missing")
        return following, None

    # ------------------------------------------------------------------ facts

    def _scan(self, name: str, key: str, fn):
        """``fn(name)`` cached while the file keeps its size."""
        stamp = (name, key, self.size(name))
        with _LOCK:
            if stamp in self._cache:
                return self._cache[stamp]
        value = fn(name)
        with _LOCK:
            self._cache[stamp] = value
        return value

    def description(self, name: str) -> dict:
        """``{server_id, checksum, server_version}`` from the file's FORMAT_DESCRIPTION."""
        def scan(n):
            for rec in BinlogReader(self.file(n), types=[codes.FORMAT_DESCRIPTION_EVENT]):
                body = rec.value["body"]
                return {"server_id": rec.value["header"]["server_id"],
                        "checksum": body.get("checksum_alg") == 1,
                        "server_version": body.get("server_version")}
            return {"server_id": 1, "checksum": False, "server_version": None}
        return self._scan(name, "fde", scan)

    def first_description(self) -> dict:
        names = self.names()
        return self.description(names[0]) if names else {
            "server_id": 1, "checksum": False, "server_version": None}

    def gtid_events(self, name: str) -> tuple:
        """``(start state, [(offset, domain, server_id, seq_no)...])``: the file's GTID_LIST
        (the state before it) and its MariaDB GTID events."""
        def scan(n):
            start, gtids = {}, []
            for rec in BinlogReader(self.file(n), types=[codes.GTID_LIST_EVENT,
                                                         codes.MARIA_GTID_EVENT]):
                v = rec.value
                if rec.type_code == codes.GTID_LIST_EVENT:
                    if not gtids:
                        start = {g["domain_id"]: (g["server_id"], g["seq_no"])
                                 for g in v["body"]["gtids"]}
                else:
                    gtids.append((rec.offset, v["body"]["domain_id"], v["header"]["server_id"],
                                  v["body"]["seq_no"]))
            return start, gtids
        return self._scan(name, "gtid", scan)

    def gtid_state_at(self, name: str, position: int) -> dict:
        """The GTID state of the events before ``position`` of ``name``."""
        start, gtids = self.gtid_events(name)
        state = dict(start)
        for offset, domain, server, seq in gtids:
            if offset < position:
                state[domain] = (server, seq)
        return state

    def gtid_binlog_pos(self) -> str:
        names = self.names()
        if not names:
            return ""
        last = names[-1]
        return gtid_text(self.gtid_state_at(last, self.size(last) + 1))

    def start_after(self, state: dict):
        """``(file, position)`` where the transaction after the GTID ``state`` starts: the
        first GTID event, in file order, that the state does not hold (a domain's seq_no above
        the state's). None when the state is ahead of every file (then the caller waits at the
        end of the last). The empty state: the first file at 4."""
        names = self.names()
        if not state:
            return (names[0], 4) if names else None
        for name in names:
            for offset, domain, _server, seq in self.gtid_events(name)[1]:
                if domain not in state or seq > state[domain][1]:
                    return name, offset
        return (names[-1], self.size(names[-1])) if names else None

    def purged(self, state: dict) -> dict:
        """``{domain: (state's seq_no, first file's)}`` of the domains whose transactions
        after the MariaDB GTID ``state`` begin before the first file: its GTID_LIST (the state
        before it) is past the state's seq_no there, so they are gone with files no longer
        served. (A domain the state does not hold starts where the files do.)"""
        names = self.names()
        if not names:
            return {}
        before = self.gtid_events(names[0])[0]
        return {d: (state[d][1], n) for d, (_s, n) in sorted(before.items())
                if d in state and state[d][1] < n}

    def previous_gtids(self, name: str):
        """The MySQL GTID set of the file's PREVIOUS_GTIDS event (a
        :class:`~binlog_schema.changes.selection.GtidSet`; None when the file has none: MariaDB,
        or MySQL before 5.6)."""
        from ...changes.selection import GtidSet

        def scan(n):
            for rec in BinlogReader(self.file(n), types=[codes.PREVIOUS_GTIDS_LOG_EVENT]):
                return GtidSet.from_encoded(rec.value["body"])
            return None
        return self._scan(name, "previous", scan)

    def gtid_purged(self) -> str:
        """MySQL's gtid_purged: the first file's PREVIOUS_GTIDS (what came before the files
        served), as text; empty without."""
        names = self.names()
        previous = self.previous_gtids(names[0]) if names else None
        return previous.text if previous is not None else ""

    def gtid_executed(self) -> str:
        """MySQL's gtid_executed: the last file's PREVIOUS_GTIDS and the GTIDs of its
        transactions, as text (intervals merged); empty when the files have none."""
        from ...changes.row_change import gtid_text as event_gtid
        from ...changes.selection import GtidSet
        names = self.names()
        if not names:
            return ""
        last = names[-1]

        def scan(n):
            found = []
            for rec in BinlogReader(self.file(n), types=[codes.GTID_LOG_EVENT,
                                                         codes.GTID_TAGGED_LOG_EVENT]):
                text = event_gtid(rec.type_code, rec.value["header"]["server_id"],
                                  rec.value["body"])
                if text is not None:
                    found.append(text)
            return found
        previous = self.previous_gtids(last)
        executed = GtidSet.from_encoded(previous.encoded() if previous is not None else
                                        {"sids": []})   # (a copy: the cached set stays)
        for text in self._scan(last, "gtids", scan):
            sid, *tag, gno = text.split(":")
            executed.mysql.setdefault((sid.replace("-", "").lower(),
                                       (tag[0] if tag else "").lower()), []).append(
                (int(gno), int(gno)))
        return GtidSet.from_encoded(executed.encoded()).text

    def mysql_start(self, executed):
        """The file a MySQL GTID dump of a replica that executed ``executed`` (a GtidSet)
        starts from: the last file whose PREVIOUS_GTIDS the set covers (so no transaction it
        lacks is in an earlier file). None when even the first file's is not covered: the
        transactions the replica lacks are gone with files no longer served (purged)."""
        start = None
        for name in self.names():
            previous = self.previous_gtids(name)
            if previous is not None and not executed.covers(previous):
                break
            start = name
        return start

    def row_metadata(self) -> str:
        """BINLOG_ROW_METADATA as the files' TABLE_MAPs hold it: FULL when they carry column
        names, MINIMAL when they carry other optional metadata only, NO_LOG when none."""
        found = "NO_LOG"
        for name in self.names():
            def scan(n):
                for rec in BinlogReader(self.file(n), types=[codes.TABLE_MAP_EVENT]):
                    meta = rec.value["body"].get("optional_metadata") or []
                    kinds = {m.get("type") for m in meta if isinstance(m, dict)}
                    return "FULL" if "COLUMN_NAME" in kinds else (
                        "MINIMAL" if kinds else "NO_LOG")
                return None
            value = self._scan(name, "rowmeta", scan)
            if value is not None:
                return value
        return found

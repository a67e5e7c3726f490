"""The schema a :mod:`.server` answers ``INFORMATION_SCHEMA.COLUMNS`` from: the history of the
DDL in the files it serves (:class:`~binlog_schema.changes.schema.history.SchemaHistory`, seeded
with ``serve --schema FILE`` for the tables created before them), replayed in name order as far as a
question needs, and the point of that history a question is answered at.

The point. A CDC client asks for a table's columns when a TABLE_MAP without names reaches it,
on a second connection (python-mysql-replication's "ctl" connection). Its dump is the dump of
the same client: under way on a connection from the same address whose client sent the same
``_pid`` connection attribute (PyMySQL, the MariaDB and MySQL connectors send it), or, when
either sent none, the only dump under way from that address; a dump of that client that just
ended counts too (a non-blocking client reads what it was sent after the server is done). The
answer is then the table as of the first TABLE_MAP of it that dump sent and no question was
answered from yet: each TABLE_MAP asked about once, in order, gets the table its rows were
written with, even when the server has sent events past an ALTER. With no TABLE_MAP of it left
(asked about unprompted), as of what the dump has sent. Without a dump of that client: as of
the end of the served files, as the writing server answered once it had written them; when the
table changed within the files, serve says so on stderr (once per table), since a client
reading events before that change would get names that do not fit them.

Not answered (an ERR, and a stderr line): a table the history does not know at that point
(created before the files without ``--schema``, dropped, or made unknown by DDL it refused:
the ERR says which).
"""

from __future__ import annotations

import collections
import logging
import math
import threading

from ...format.errors import BinlogError
from ...format.facts import codes
from ...format.stream import BinlogReader

log = logging.getLogger(__name__.rsplit(".", 1)[0] + ".server")

ER_NO_SUCH_TABLE = 1146
RECENT = 64        # the ended dumps kept for their clients' questions
TABLE_MAPS = 4096  # the TABLE_MAPs a dump keeps the place of (the oldest are forgotten)
QUERY_KINDS = (codes.QUERY_EVENT, codes.QUERY_COMPRESSED_EVENT,
               codes.EXECUTE_LOAD_QUERY_EVENT, codes.TRANSACTION_PAYLOAD_EVENT)


class Sent:
    """What one dump sent that a question about a table may refer to: the places (file,
    offset) of its last TABLE_MAPs, and for each table the place answered from last."""

    def __init__(self, peer: str | None, pid: str | None):
        self.peer, self.pid = peer, pid
        self.maps: collections.deque = collections.deque(maxlen=TABLE_MAPS)
        self.answered: dict = {}   # (database, table) -> the (file, offset) answered from
        self.at = None             # (file, position): what the dump has sent
        self.lock = threading.Lock()
        self.names: dict = {}      # (file, offset) -> (database, table) of a TABLE_MAP read

    def table_map(self, name: str, offset: int) -> None:
        """A TABLE_MAP at ``offset`` of ``name`` was sent (the dump's thread)."""
        self.maps.append((name, offset))


class ServedSchema:
    """The schema history of a :class:`~.server_files.BinlogFolder`'s files, and the
    INFORMATION_SCHEMA.COLUMNS answers from it."""

    def __init__(self, folder, schema_files=()):
        self.folder = folder
        self.schema_files = tuple(schema_files)
        self.history = None
        self.done: dict = {}       # file -> the offset its DDL is replayed to
        self.warned: set = set()
        self.lock = threading.Lock()
        self.recent: collections.deque = collections.deque(maxlen=RECENT)   # ended dumps

    # ------------------------------------------------------------------ the history

    def _history(self):
        if self.history is None:
            from ...changes.schema.building import history_for
            names = self.folder.names()
            self.history = history_for([self.folder.file(n) for n in names[:1]],
                                       self.schema_files)
        return self.history

    def check(self) -> None:
        """Read the ``--schema`` files now (serve's start: a bad one is said at once).
        Raises OSError, DDLRefused."""
        with self.lock:
            self._history()

    def replay_to(self, name: str | None, offset: float) -> None:
        """The DDL of the files replayed up to ``offset`` of ``name`` (the events that start
        before it; None: every whole event of every file)."""
        history = self._history()
        names = self.folder.names()
        for index, n in enumerate(names):
            if name is not None and n > name:
                break
            stop = offset if n == name else None
            start = self.done.get(n, 4)
            if start >= self.folder.size(n) or (stop is not None and start >= stop):
                continue
            reader = BinlogReader(self.folder.file(n), start=start if start > 4 else None,
                                  stop=None if stop is None or stop == math.inf else int(stop),
                                  types=QUERY_KINDS, payloads=True)
            last = start
            try:
                for rec, _outcome in history.replay(reader, file_index=index):
                    last = rec.offset + len(rec.raw)
            except BinlogError:   # (a last file still being written, cut inside an event)
                pass
            whole = n != names[-1] and (stop is None or stop == math.inf)
            self.done[n] = self.folder.size(n) if whole else max(
                last, int(stop) if stop not in (None, math.inf) else last)

    # ------------------------------------------------------------------ the dumps

    def sent(self, client) -> Sent:
        """The record of a dump that ``client`` (a :class:`.server_connection.Connection`)
        begins."""
        return Sent(_peer(client), client.attributes.get("_pid"))

    def ended(self, sent: Sent) -> None:
        with self.lock:
            self.recent.append(sent)

    def _dump_of(self, client):
        """The :class:`Sent` of the dump of the same client as ``client`` (see the module's
        docstring), or None."""
        peer, pid = _peer(client), client.attributes.get("_pid")
        live = [c.streamer.sent for c in client.server.clients()
                if c is not client and c.streamer is not None and c.streamer.sent.peer == peer]
        if pid is not None:
            same = [s for s in live if s.pid == pid]
            if len(same) == 1:
                return same[0]
            if not same:
                with self.lock:
                    ended = [s for s in self.recent if s.peer == peer and s.pid == pid]
                return ended[-1] if ended else None
            return None
        return live[0] if len(live) == 1 else None

    # ------------------------------------------------------------------ the answer

    def columns(self, client, database: str, table: str, names: list):
        """INFORMATION_SCHEMA.COLUMNS of ``database``.``table`` asked by ``client``: a
        :class:`~.server_sql.Result` of the columns ``names`` (of
        :data:`~binlog_schema.changes.schema.information_schema.COLUMNS`), or an
        :class:`~.server_sql.Err`."""
        from ...changes.schema.session import DDLRefused
        from ...changes.schema.information_schema import NUMERIC, column_rows
        from .server_sql import TYPE_LONGLONG, TYPE_VAR_STRING, Result
        sent = self._dump_of(client)
        with self.lock:
            try:
                history = self._history()
            except (OSError, DDLRefused) as e:
                return self._refuse(f"the schema could not be read: {e}")
            where, at = self._point(sent, database, table)
            if at is None:
                self.replay_to(None, math.inf)
                found = history.table(database, table)
                place = "the end of the served files"
            else:
                self.replay_to(*at)
                index = self.folder.names().index(at[0])
                found = history.table(database, table, at=(index, at[1] - 1, math.inf))
                place = f"{at[0]}:{at[1]}"
            key = history.key(database, table)
            if found is None:
                why = history.unknown.get(key)
                return self._refuse(
                    f"{database}.{table} is not known at {place} of the served files" + (
                        f": {why}" if why else ": created before them? (give its CREATE "
                        "TABLE with serve --schema)"), database, table)
            if at is None:
                self._warn_changed(history, key, database, table, client)
        rows = column_rows(found, history.flavor, history.server_version)
        return Result(list(names), [[None if r[n] is None else str(r[n]) for n in names]
                                    for r in rows],
                      [TYPE_LONGLONG if n in NUMERIC else TYPE_VAR_STRING for n in names],
                      table="COLUMNS", schema="information_schema")

    def _point(self, sent: Sent | None, database: str, table: str):
        """``(why, (file, offset) or None)``: the place of the dump's history a question
        about ``database``.``table`` is answered at (None: the end of the files)."""
        if sent is None:
            return "no dump", None
        with sent.lock:
            done = sent.answered.get((database, table))
            places = list(sent.maps)
            if len(sent.names) > 2 * TABLE_MAPS:   # (those fallen out of the maps)
                kept = set(places)
                sent.names = {k: v for k, v in sent.names.items() if k in kept}
            for place in places:
                if done is not None and place <= done:
                    continue
                if place not in sent.names:
                    sent.names[place] = self._table_of(*place)
                if sent.names[place] == (database, table):
                    sent.answered[(database, table)] = place
                    return "table map", (place[0], place[1] + 1)
            return "dump", sent.at

    def _table_of(self, name: str, offset: int):
        """``(database, table)`` the TABLE_MAP at ``offset`` of ``name`` maps (None: none
        there)."""
        try:
            for rec in BinlogReader(self.folder.file(name), start=offset, stop=offset + 1,
                                    types=[codes.TABLE_MAP_EVENT]):
                body = rec.value["body"]
                return body.get("database"), body.get("table")
        except (BinlogError, OSError):
            return None
        return None

    def _warn_changed(self, history, key, database, table, client) -> None:
        changes = [pos for pos, _t in history.versions(*key) if pos is not None]
        if len(changes) > 0 and key not in self.warned and len(history.versions(*key)) > 1:
            self.warned.add(key)
            names = self.folder.names()
            first = changes[-1]
            log.warning("INFORMATION_SCHEMA.COLUMNS of %s.%s asked by connection %s, which "
                        "has no dump under way: answered as of the end of the served files; "
                        "the table changed within them (last at %s:%s), so a client reading "
                        "events before that gets names that may not fit them", database,
                        table, client.conn_id,
                        names[first[0]] if first[0] < len(names) else first[0], first[1])

    def _refuse(self, message: str, database: str | None = None, table: str | None = None):
        """The ERR of a question not answered; said on stderr once per table (a client
        without names may ask again for each row)."""
        from .server_sql import Err
        if ("refused", database, table) not in self.warned:
            self.warned.add(("refused", database, table))
            log.warning("INFORMATION_SCHEMA.COLUMNS: %s (said once for this table)", message)
        return Err(ER_NO_SUCH_TABLE, f"serve: {message}", "42S02")


def _peer(client) -> str | None:
    try:
        return client.sock.getpeername()[0]
    except OSError:
        return None

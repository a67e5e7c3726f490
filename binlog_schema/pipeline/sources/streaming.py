"""The ``binlog`` format as a stream: ``spark.readStream.format("binlog").load(folder)`` over a
folder (or a glob of names in one folder) where binlog files appear in name order and the
last one grows, read one whole transaction at a time.

An offset is ``{"file": name, "position": N}``: every byte of the files named before
``file`` (base names, in name order) and of ``file`` before ``N`` has been read. ``N`` is
always a transaction boundary (:func:`boundaries`), never inside a transaction: a
transaction still being written is not read until its end is. An offset also carries
``"gtid_at"`` when a GTID event precedes ``N`` in its file: the last one, whose GTID a split
starting at ``N`` carries in, as the decode job's splits do.

* :meth:`StreamReader.initialOffset`: the first file at 4 (before its FORMAT_DESCRIPTION),
  or ``startingFile`` at ``startingPosition`` (which must be a boundary); with no file yet,
  ``{"file": "", "position": 4}`` (before any).
* :meth:`StreamReader.latestOffset`: the last boundary of the last file, its bytes walked
  from the last boundary found (in this process, or the start offset). Files before the last
  are complete (a server writes a new file after it closed the previous one): they are read
  to their end.
* :meth:`StreamReader.partitions`: each file's share of the range; from a file's start, the
  decode job's splits of it (:func:`~binlog_schema.pipeline.tasks.prescan.prescan`), else one
  split from the start offset
  (a boundary: the split needs no transaction before it).
* :meth:`StreamReader.read`: the record batches of a batch read's split
  (:func:`.partition.read_split`). :meth:`StreamReader.commit` has nothing to clean.

Files whose first four bytes are not a binlog's magic number are not read (a server's
``binlog.index`` sorts after its binlogs), nor files shorter than that yet.

The schema history is on, as in batch reads and ``decode``: each trigger's splits carry the
plan of the files' DDL up to the trigger's end (:mod:`..tasks.history`, seeded by the ``schema``
option), each file's statements read once (the last file's again when it has grown).
"""

from __future__ import annotations

from pyspark.sql.datasource import DataSourceStreamReader

from binlog_schema.format.errors import BinlogError
from binlog_schema.format.facts.codes import GTID_KINDS, STATEMENT_KINDS
from binlog_schema.changes.transactions import Boundary
from binlog_schema.pipeline.tasks.decode import follow_transaction
from binlog_schema.pipeline.tasks.prescan import REAL_GTID_KINDS, prescan
from binlog_schema.pipeline.tasks.reading import split_records
from binlog_schema.pipeline.tasks.split import Split
from binlog_schema.pipeline.tasks.split_context import file_context
from binlog_schema.pipeline.fsio import list_files, open_input
from binlog_schema.pipeline.sources.partition import SplitPartition, read_split
from binlog_schema.format.stream import MAGIC

try:   # (Spark 4.2+: Trigger.AvailableNow)
    from pyspark.sql.streaming.datasource import SupportsTriggerAvailableNow
except ImportError:  # pragma: no cover - older Spark 4
    SupportsTriggerAvailableNow = object

START = 4   # a file's first event: the position before anything of it is read


class _Transaction:
    """What :func:`~binlog_schema.pipeline.tasks.decode.follow_transaction` follows (as a
    split's state does)."""

    def __init__(self):
        self.gtid = self.txn = None
        self.open = False
        self.boundary = Boundary()   # (the one rule: changes/transactions.py)


def boundaries(uri: str, size: int, start: int = START, gtid_at: int | None = None):
    """The transaction boundaries of a file's first ``size`` bytes after ``start`` (itself
    one), in order: ``(position, the last GTID event before it)``. The file is read as a
    split is (:func:`~binlog_schema.pipeline.tasks.reading.split_records` from ``start``), and
    transactions are followed as the ``events`` table follows them
    (:func:`~binlog_schema.pipeline.tasks.decode.follow_transaction`): a position is a
    boundary where no transaction is open, before an event that opens one (a GTID, a BEGIN
    outside one) and after one that closes it (XID, COMMIT, ROLLBACK, XA PREPARE, a DDL
    statement). The walk ends at the first record that is not a whole event (the event
    being written, or damage: while the file grows, nothing past it is a boundary)."""
    split = Split(uri, size, 0, start if start > START else 0, size)
    tx = _Transaction()
    last = start
    with open_input(uri) as f:
        ctx = file_context(f) if split.start else None
        try:
            for rec in split_records(f, split, ctx):
                if rec.gap is not None or rec.error is not None:
                    return
                kind = rec.kind
                if (not tx.open or kind in GTID_KINDS) and rec.offset > last:
                    last = rec.offset
                    yield last, gtid_at
                for r in (rec, *(rec.inner or ())):
                    k = r.kind
                    if r.error is not None:
                        continue
                    body = r.value["body"] if k in GTID_KINDS or k in STATEMENT_KINDS else None
                    if follow_transaction(tx, r, k, body if type(body) is dict else {},
                                                rec):
                        tx.open = False
                if kind in REAL_GTID_KINDS:
                    gtid_at = rec.offset
                end = rec.offset + len(rec.raw)
                if not tx.open and end > last:
                    last = end
                    yield last, gtid_at
        except BinlogError:   # (not a binlog: refused at its magic number)
            return


def offset(name: str, position: int, gtid_at: int | None = None) -> dict:
    out = {"file": name, "position": position}
    if gtid_at is not None:
        out["gtid_at"] = gtid_at
    return out


def _place(o: dict) -> tuple:
    return o["file"], o["position"]


class StreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """The stream of one folder's binlogs (see the module); ``options``: a
    :class:`source.Options`."""

    def __init__(self, options):
        if len(options.paths) != 1:
            raise ValueError("binlog stream: one folder, or a glob of names in one folder")
        self.path = options.paths[0]
        self.seed = []   # (the schema files' texts, read here: the driver's files)
        for path in options.schema_files:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                self.seed.append(f.read())
        self.statements: dict = {}   # name -> (size read, history.statements_of's)
        self.table = options.table
        self.split_bytes = options.split_bytes
        self.starting = (options.starting_file, options.starting_position)
        self.magic: dict = {}     # name -> whether it starts as a binlog does
        self.scanned: dict = {}   # name -> (position, gtid_at): its last boundary found
        self.latest = None        # the last offset given (Spark 4.0 asks without a start)
        self.target = None        # Trigger.AvailableNow: the offset to stop at

    def files(self) -> list:
        """(name, uri, size) of the binlogs of the folder, in name order."""
        found, _ = list_files([self.path], recursive=False)
        out = {}
        for uri, size in found:
            name = uri.rstrip("/").rsplit("/", 1)[-1]
            if name in out:
                raise ValueError(f"binlog stream: two files named {name} under {self.path}")
            if self.is_binlog(name, uri, size):
                out[name] = (name, uri, size)
        return [out[n] for n in sorted(out)]

    def is_binlog(self, name: str, uri: str, size: int) -> bool:
        """Whether a file starts with a binlog's magic number (one shorter than that is not
        in the stream yet: were it the last, the file before it would be read to its end)."""
        known = self.magic.get(name)
        if known is None:
            if size < len(MAGIC):
                return False
            with open_input(uri) as f:
                known = self.magic[name] = f.read(len(MAGIC)) == MAGIC
        return known

    def initialOffset(self) -> dict:
        name, position = self.starting
        if name is None:
            files = self.files()
            return offset(files[0][0] if files else "", START)
        if position <= START:
            return offset(name, START)
        uri = next((u for n, u, _ in self.files() if n == name), None)
        if uri is None:
            raise ValueError(f"binlog stream: startingFile {name} is not in {self.path}")
        with open_input(uri) as f:
            size = f.seek(0, 2)
        before = None
        for at, gtid_at in boundaries(uri, size):
            if at == position:
                return offset(name, at, gtid_at)
            if at > position:
                break
            before = at
        raise ValueError(f"binlog stream: startingPosition {position} is not a transaction "
                         f"boundary of {name} (the last one before it: {before or START})")

    def latestOffset(self, start: dict | None = None, limit=None) -> dict:
        start = start or self.latest or self.initialOffset()
        files = self.files()
        if not files or files[-1][0] < start["file"]:
            return start
        name, uri, size = files[-1]
        at, gtid_at = (start["position"], start.get("gtid_at")) if name == start["file"] \
            else (START, None)
        seen = self.scanned.get(name)
        if seen is not None and seen[0] > at:
            at, gtid_at = seen
        for at, gtid_at in boundaries(uri, size, at, gtid_at):  # noqa: B007, B020 - the last one
            pass
        self.scanned[name] = (at, gtid_at)
        latest = offset(name, at, gtid_at)
        if self.target is not None and _place(latest) > _place(self.target):
            latest = self.target
        if _place(latest) <= _place(start):
            return start
        self.latest = latest
        return latest

    def prepareForTriggerAvailableNow(self) -> None:
        self.target = self.latestOffset(self.latest or self.initialOffset())

    def partitions(self, start: dict, end: dict) -> list:
        out = []
        files = self.files()
        plan = self.plan([f for f in files if f[0] <= end["file"]])
        for name, uri, size in files:
            if not start["file"] <= name <= end["file"]:
                continue
            lo = start["position"] if name == start["file"] else START
            hi = end["position"] if name == end["file"] else size
            if hi <= lo:
                continue
            if lo <= START:
                splits = prescan(uri, hi, self.split_bytes)
            else:
                splits = [Split(uri, hi, 0, lo, hi, gtid_at=start.get("gtid_at"))]
            out += [SplitPartition((s, plan)) for s in splits]
        return out

    def plan(self, files):
        """The schema plan of ``files`` ((name, uri, size), in stream order): the seed and
        every file's schema statements (:func:`history.statements_of`, read again only for a
        file that has grown since)."""
        from binlog_schema.pipeline.tasks.history import SchemaPlan, statements_of
        found = []
        for name, uri, size in files:
            known = self.statements.get(name)
            if known is None or known[0] != size:
                known = self.statements[name] = (size, statements_of(uri))
            found.append(known[1])
        return SchemaPlan.make(self.seed, found)

    def read(self, partition):
        split, plan = partition.value
        return read_split(split, self.table, plan)

    def commit(self, end: dict) -> None:
        pass

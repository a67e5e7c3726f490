"""What the decode job reads and how it is cut: the inputs listed through Hadoop's
FileSystem API (:func:`list_inputs`) and sorted into binlogs, in the server's order where a
binlog index gives it, and the companion files a server keeps beside them
(:func:`binlog_inputs`, :class:`Inputs`), the splits of each file (:func:`plan_splits`: large
files pre-scanned as a Spark job, or by :class:`EarlyPrescan` on the driver while its JVM
starts; :func:`plan_here` without Spark), and the splits packed into tasks
(:func:`task_count`, :func:`pack`)."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

from binlog_schema.pipeline.tasks.prescan import prescan
from binlog_schema.pipeline.tasks.split import Split
from binlog_schema.pipeline.fsio import list_local

DEFAULT_SPLIT = 8 << 20
TASK_WORK = 64 << 20   # splits are grouped into tasks of about this much work


def list_inputs(spark, inputs, include_hidden: bool = False):
    """(files, missing): (uri, size) of every file named by the inputs (files, directories
    listed recursively, globs) on any Hadoop filesystem, listed on the driver."""
    jvm = getattr(spark, "_jvm", None) or getattr(spark.sparkContext, "_jvm", None)
    if jvm is None:  # Spark Connect: no gateway; local paths only
        return list_local(inputs, include_hidden)
    # (pyspark's gateway to the JVM, ``_jvm``/``_jsc``: Hadoop's API has no Python face)
    hconf = spark.sparkContext._jsc.hadoopConfiguration()
    Path = jvm.org.apache.hadoop.fs.Path
    files, missing, seen = [], [], set()
    for item in inputs:
        p = Path(item)
        try:
            fs = p.getFileSystem(hconf)
            statuses = fs.globStatus(p)
        except Exception as e:  # noqa: BLE001 - py4j errors: report the input, go on
            missing.append((item, f"cannot list: {str(e).splitlines()[0]}"))
            continue
        if statuses is None or len(statuses) == 0:
            missing.append((item, "no such file or directory"))
            continue
        for s in statuses:
            if s.isDirectory():
                root = s.getPath().toString().rstrip("/") + "/"
                it = fs.listFiles(s.getPath(), True)
                while it.hasNext():
                    f = it.next()
                    uri = f.getPath().toString()
                    rel = uri[len(root):] if uri.startswith(root) else f.getPath().getName()
                    if not include_hidden and any(
                            part.startswith((".", "_")) for part in rel.split("/")):
                        continue
                    if uri not in seen:
                        seen.add(uri)
                        files.append((uri, f.getLen()))
            else:
                uri = s.getPath().toString()
                if uri not in seen:
                    seen.add(uri)
                    files.append((uri, s.getLen()))
    return files, missing


class NoInputError(ValueError):
    """No file to read among the inputs (an empty folder, a glob that matches nothing, only
    a server's companion files): the message says what was given."""


@dataclass
class Inputs:
    """The inputs of a job, listed: ``files`` ((uri, size)) to read as binlogs, in stream
    order (name order, but the files a binlog index names in its order); ``missing``
    ((input, reason)): inputs that name nothing; ``companions`` ((uri, kind, what)): the
    files a server keeps beside its binlogs (:mod:`binlog_schema.format.facts.companions`), not
    read as binlogs; ``notes`` ((where, message)): what an index said that cannot be
    followed (a file it names that is not there, an index that cannot be read)."""

    given: list
    files: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    companions: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def check(self):
        """Raises :class:`NoInputError` when there is no file to read."""
        if self.files:
            return self
        why = dict(self.missing)
        parts = [f"{g!r}: {why[g]}" if g in why else f"{g!r}: no binlog file there"
                 for g in self.given] or ["no input given"]
        text = "no input file found: " + "; ".join(parts)
        if self.companions:
            text += (f" (only {len(self.companions)} companion files of a server's binlogs: "
                     + ", ".join(c[0].rstrip("/").rsplit("/", 1)[-1]
                                 for c in self.companions[:5])
                     + (", ..." if len(self.companions) > 5 else "") + "; no binlog)")
        raise NoInputError(text)


def arrange(given, files, missing, read_text) -> Inputs:
    """:class:`Inputs` of a listing (``files`` and ``missing`` as :func:`list_inputs` gives
    them); ``read_text(uri)``: the text of a small file (an index), raising OSError."""
    from binlog_schema.format.facts.companions import (companion, index_entries, is_order_index,
                                                resolve_entry)
    out = Inputs(list(given), missing=list(missing))
    binlogs = []
    for uri, size in files:
        what = companion(uri)
        if what is None:
            binlogs.append((uri, size))
        else:
            out.companions.append((uri, *what))
    binlogs.sort(key=lambda f: f[0])
    out.companions.sort()
    where = {uri: i for i, (uri, _) in enumerate(binlogs)}
    placed = set()
    for n, (uri, kind, what) in enumerate(out.companions):
        if not is_order_index(uri):
            continue
        folder = uri.rstrip("/").rsplit("/", 1)[0]
        try:
            entries = index_entries(read_text(uri))
        except (OSError, UnicodeDecodeError) as e:
            out.notes.append((uri, f"binlog index not read ({_reason(e)}): the files keep "
                                   "their name order"))
            continue
        named = []
        for entry in entries:
            found = resolve_entry(entry, folder, where)
            if found is None:
                out.notes.append((uri, f"names {entry}, which is not among the inputs: "
                                       "not read"))
            elif found not in placed:
                placed.add(found)
                named.append(found)
        out.companions[n] = (uri, kind, f"{what}: the order of {len(named)} files")
        slots = sorted(where[u] for u in named)   # (the index's files take its order)
        items = [binlogs[where[u]] for u in named]
        for slot, item in zip(slots, items):
            binlogs[slot] = item
        where = {u: i for i, (u, _) in enumerate(binlogs)}
    out.files = binlogs
    return out


def _reason(e) -> str:
    if isinstance(e, OSError):
        from binlog_schema.output.write import os_problem
        return os_problem(e)
    return f"not text: {e}"


def binlog_inputs(spark, inputs, include_hidden: bool = False) -> Inputs:
    """The inputs listed (:func:`list_inputs`) and arranged (:func:`arrange`); index files
    read on the driver."""
    files, missing = list_inputs(spark, list(inputs), include_hidden)
    return arrange(inputs, files, missing, lambda uri: read_small(spark, uri))


def read_small(spark, uri: str, limit: int = 16 << 20) -> str:
    """The text of a small file (an index) on the driver: local paths directly, others
    through Hadoop's FileSystem API (or :func:`~.fsio.open_input` without a JVM)."""
    from binlog_schema.pipeline.fsio import local_path, open_input
    if local_path(uri) is None and getattr(spark, "_jvm", None) is not None:
        from binlog_schema.pipeline.tables.result import hadoop_fs
        try:
            fs, p = hadoop_fs(spark, uri)
            stream = fs.open(p)
            try:
                data = bytes(stream.readNBytes(limit))   # (Java's InputStream)
            finally:
                stream.close()
        except Exception as e:  # noqa: BLE001 - py4j's errors: a file that cannot be read
            raise OSError(str(e).strip().splitlines()[0]) from None
    else:
        with open_input(uri) as f:
            data = f.read(limit)
    return data.decode("utf-8")


def plan_splits(spark, files, missing=(), split_bytes: int = DEFAULT_SPLIT,
                known: dict | None = None) -> list:
    """The splits of every file: small files whole, large ones cut by a pre-scan that runs
    as a Spark job (one task per large file), unless ``known`` has them already (splits by
    (local path, size), see :class:`EarlyPrescan`)."""
    from dataclasses import replace
    from binlog_schema.pipeline.fsio import local_path
    known = known or {}
    splits = [Split(uri, 0, problem=why) for uri, why in missing]
    large = []
    for u, s in files:
        if s <= split_bytes // 2:
            splits.append(Split(u, s, 0, 0, s))
        elif (local_path(u), s) in known:
            splits += [replace(sp, uri=u) for sp in known[(local_path(u), s)]]
        else:
            large.append((u, s))
    if large:
        sc = spark.sparkContext
        sc.setJobDescription(f"pre-scan {len(large)} large files")
        sb = split_bytes
        splits += sc.parallelize(large, len(large)).flatMap(
            lambda us: prescan(us[0], us[1], sb)).collect()
    return splits


def plan_here(files, missing=(), split_bytes: int = DEFAULT_SPLIT) -> list:
    """The splits of :func:`plan_splits` made in this process, without Spark (each large
    file pre-scanned here, one after the other): where a Python data source plans its
    reads (:mod:`binlog_schema.pipeline.sources.batch`), no SparkSession at hand."""
    return [Split(uri, 0, problem=why) for uri, why in missing] + [
        split for uri, size in files for split in prescan(uri, size, split_bytes)]


class EarlyPrescan(threading.Thread):
    """The pre-scan of the large local files among some inputs, in this process while Spark
    starts (a command's driver waits seconds for its JVM, a core idle). :meth:`result`
    stops it after the file in hand: files it did not reach are pre-scanned by the Spark
    job, as are files the driver's listing shows otherwise (another size)."""

    def __init__(self, inputs, split_bytes: int = DEFAULT_SPLIT, include_hidden: bool = False):
        super().__init__(daemon=True, name="early pre-scan")
        self.inputs, self.split_bytes, self.include_hidden = inputs, split_bytes, include_hidden
        self.splits: dict = {}
        self.halt = threading.Event()

    def run(self):
        try:
            files, _ = list_local(self.inputs, self.include_hidden)
            for path, size in files:
                if self.halt.is_set():
                    return
                if size > self.split_bytes // 2:
                    self.splits[(path, size)] = prescan(path, size, self.split_bytes)
        except Exception:  # noqa: BLE001 - an optimisation: the Spark job does it otherwise
            return

    def result(self) -> dict:
        self.halt.set()
        self.join()
        return dict(self.splits)


def task_count(splits, cores: int, split_bytes: int = DEFAULT_SPLIT) -> int:
    """How many tasks: about TASK_WORK of work each, and at least eight per core, so that the
    last tasks (largest first) leave no core idle for long; every split its own task when
    there are not many more splits than that (grouping a few equal splits into fewer tasks
    would leave some tasks twice as long as others)."""
    total = sum(s.work for s in splits)
    target = max(8 * cores, math.ceil(total / max(split_bytes, TASK_WORK)))
    return len(splits) if len(splits) <= 2 * target else target


def pack(splits, partitions: int) -> list:
    """Largest first onto the least loaded partition (bytes as the measure of work)."""
    import heapq
    partitions = max(1, min(partitions, len(splits)))
    heap = [(0, i, []) for i in range(partitions)]
    for s in sorted(splits, key=lambda s: -s.work):
        load, i, group = heapq.heappop(heap)
        group.append(s)
        heapq.heappush(heap, (load + s.work, i, group))
    groups = [g for _, _, g in sorted(heap, key=lambda x: -x[0]) if g]
    return groups


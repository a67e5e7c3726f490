"""What the decode job reads and how it is cut: the inputs listed through Hadoop's
FileSystem API (:func:`list_inputs`), the splits of each file (:func:`plan_splits`: large
files pre-scanned as a Spark job, or by :class:`EarlyPrescan` on the driver while its JVM
starts; :func:`plan_here` without Spark), and the splits packed into tasks
(:func:`task_count`, :func:`pack`)."""

from __future__ import annotations

import math
import threading

from binlog_schema.pipeline import tasks
from binlog_schema.pipeline.fsio import list_local

DEFAULT_SPLIT = 8 << 20
TASK_WORK = 64 << 20   # splits are grouped into tasks of about this much work


def parse_size(text) -> int:
    """``16m``, ``512k``, ``1g`` or a number of bytes."""
    if isinstance(text, int):
        return text
    t = str(text).strip().lower().rstrip("b")
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(t[-1:], 1)
    return int(float(t[:-1] if mult != 1 else t) * mult)


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


def plan_splits(spark, files, missing=(), split_bytes: int = DEFAULT_SPLIT,
                known: dict | None = None) -> list:
    """The splits of every file: small files whole, large ones cut by a pre-scan that runs
    as a Spark job (one task per large file), unless ``known`` has them already (splits by
    (local path, size), see :class:`EarlyPrescan`)."""
    from dataclasses import replace
    from binlog_schema.pipeline.fsio import local_path
    known = known or {}
    splits = [tasks.Split(uri, 0, problem=why) for uri, why in missing]
    large = []
    for u, s in files:
        if s <= split_bytes // 2:
            splits.append(tasks.Split(u, s, 0, 0, s))
        elif (local_path(u), s) in known:
            splits += [replace(sp, uri=u) for sp in known[(local_path(u), s)]]
        else:
            large.append((u, s))
    if large:
        sc = spark.sparkContext
        sc.setJobDescription(f"pre-scan {len(large)} large files")
        sb = split_bytes
        splits += sc.parallelize(large, len(large)).flatMap(
            lambda us: tasks.prescan(us[0], us[1], sb)).collect()
    return splits


def plan_here(files, missing=(), split_bytes: int = DEFAULT_SPLIT) -> list:
    """The splits of :func:`plan_splits` made in this process, without Spark (each large
    file pre-scanned here, one after the other): where a Python data source plans its
    reads (:mod:`binlog_schema.pipeline.source`), no SparkSession at hand."""
    return [tasks.Split(uri, 0, problem=why) for uri, why in missing] + [
        split for uri, size in files for split in tasks.prescan(uri, size, split_bytes)]


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
                    self.splits[(path, size)] = tasks.prescan(path, size, self.split_bytes)
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


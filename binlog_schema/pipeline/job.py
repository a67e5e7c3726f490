"""The driver side of the pipeline: a Spark session (and its JVM's start-up: a class-data
archive, C1 for commands), input listing through Hadoop's FileSystem API, split planning
(pre-scan of large files as a Spark job, or on the driver while its JVM starts), the decode
job and its output DataFrames, the per-file reconciliation, progress and the summary table.

Run it as ``binlog-schema spark decode ...``, ``python -m binlog_schema.pipeline.job decode
...`` or ``spark-submit .../binlog_schema/pipeline/job.py decode ...`` (the driver and the
workers need this package importable: same virtual environment, or installed on every node).
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time

if __name__ == "__main__":  # run as a script (spark-submit): this directory is no package root
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]

from binlog_schema.pipeline import tasks
from binlog_schema.pipeline.fsio import list_local

DEFAULT_SPLIT = 8 << 20
TASK_WORK = 64 << 20   # splits are grouped into tasks of about this much work
# the errors rows that stand for bytes not decoded: quarantined events, skipped ranges (a
# last event cut short: ``tail``)
EVENT_STAGES = ("event", "skipped", "tail")
# the errors rows that say a file was not read, or not all of it: it cannot reconcile
FAILURE_STAGES = ("input", "file", "split")
MAGIC_SIZE = 4
# exit statuses of ``spark decode``, as the single-process commands' (serial.write)
CLEAN, NOT_RECONCILED, USAGE, DAMAGED = 0, 1, 2, 3


def parse_size(text) -> int:
    """``16m``, ``512k``, ``1g`` or a number of bytes."""
    if isinstance(text, int):
        return text
    t = str(text).strip().lower().rstrip("b")
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(t[-1:], 1)
    return int(float(t[:-1] if mult != 1 else t) * mult)


# ---------------------------------------------------------------------------------------
# session


def find_java() -> str | None:
    """The java Spark will start: ``$JAVA_HOME/bin/java``, else the JAVA_HOME that
    ``scripts/setup.sh`` recorded in the virtual environment (``<venv>/java-home``, then
    exported here), else ``java`` on PATH."""
    import shutil
    if os.environ.get("JAVA_HOME"):
        java = os.path.join(os.environ["JAVA_HOME"], "bin", "java")
        return java if os.path.exists(java) else None
    recorded = os.path.join(sys.prefix, "java-home")
    if os.path.exists(recorded):
        with open(recorded) as f:
            home = f.read().strip()
        if home and os.path.exists(os.path.join(home, "bin", "java")):
            os.environ["JAVA_HOME"] = home
            return os.path.join(home, "bin", "java")
    return shutil.which("java")


def start_session(master: str | None = None, conf: dict | None = None,
                  app_name: str = "binlog-schema", quiet: bool = True,
                  class_cache: str = "use", short_lived: bool = False):
    """A SparkSession: ``master`` when given; else the one spark-submit configured; else
    ``local[*]`` (embedded, started here). The workers run this Python (``sys.executable``)
    unless ``PYSPARK_PYTHON``/``spark.pyspark.python`` says otherwise.

    When the driver JVM starts here, it starts from the class-data archive of this Java and
    Spark (``class_cache="use"``: when one was recorded; ``"create"``: record it in this run
    when missing, written when :func:`finish_session` stops the session; ``"off"``), and a
    ``short_lived`` one (a command) compiles with C1 only: the driver's own work is small,
    its start-up is what costs (see :func:`driver_java_options`)."""
    from pyspark import SparkConf
    from pyspark.sql import SparkSession
    if find_java() is None:
        raise RuntimeError("Spark needs Java 17+: none on JAVA_HOME or PATH "
                           "(scripts/setup.sh finds or installs one)")
    base = SparkConf()
    # under spark-submit the JVM is already up with the submitted configuration (master
    # included), which a SparkConf made before the context cannot see yet
    submitted = "PYSPARK_GATEWAY_PORT" in os.environ
    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    elif not submitted and not base.contains("spark.master"):
        builder = builder.master("local[*]")
    defaults = {
        "spark.sql.session.timeZone": "UTC",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
        # executors' Python: pyspark from its package, not compiled from Spark's zip
        "spark.python.daemon.module": "binlog_schema.pipeline.daemon",
    }
    if not os.environ.get("PYSPARK_PYTHON") and not base.contains("spark.pyspark.python"):
        # the workers run the driver's interpreter (this package and its dependencies)
        os.environ["PYSPARK_PYTHON"] = sys.executable
    if not submitted and (master or base.get("spark.master", "local")).startswith("local"):
        defaults["spark.ui.enabled"] = "false"
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # embedded: loopback only
    conf = dict(conf or {})
    if not submitted and _jvm_starts_here():
        flags = driver_java_options(class_cache, short_lived)
        if flags:
            key = "spark.driver.extraJavaOptions"
            if key in conf or base.contains(key):
                conf[key] = " ".join(flags + [conf.get(key) or base.get(key)])
            elif not _in_spark_defaults(key):
                conf[key] = " ".join(flags)
    for k, v in {**defaults, **conf}.items():
        if not base.contains(k) or k in conf:
            builder = builder.config(k, v)
    spark = builder.getOrCreate()
    if quiet:
        spark.sparkContext.setLogLevel("ERROR")
    return spark


# ---------------------------------------------------------------------------------------
# the driver JVM's start-up: a class-data archive, C1 for commands
#
# Starting Spark's JVM loads and verifies some 10,000 classes from 280 jars: most of the
# seconds a short command costs before any work. A dynamic class-data-sharing archive
# (HotSpot's -XX:ArchiveClassesAtExit / -XX:SharedArchiveFile, JDK 13+) maps them instead,
# already parsed and verified: recorded once per Java and Spark installation (the first
# ``spark decode`` writes it as its JVM exits), in the cache folder of the compiled
# declarations (``$BINLOG_SCHEMA_CACHE``..., ``jvm/``; ``BINLOG_SCHEMA_CACHE=off`` or
# ``BINLOG_SCHEMA_JVM_CACHE=off``: none). A new archive is installed only after a JVM
# started from it (an archive cut short would crash the JVM that maps it).

_ARCHIVE_PENDING: list = []   # (temporary file the JVM writes at exit, final name)


def _jvm_starts_here() -> bool:
    try:
        from pyspark import SparkContext
    except ImportError:
        return False
    return SparkContext._gateway is None


def _in_spark_defaults(key: str) -> bool:
    """Whether Spark's own configuration file sets ``key`` (then it is left alone)."""
    conf_dir = os.environ.get("SPARK_CONF_DIR") or os.path.join(
        os.environ.get("SPARK_HOME") or _spark_home() or "", "conf")
    try:
        with open(os.path.join(conf_dir, "spark-defaults.conf")) as f:
            return any(line.split(None, 1)[:1] == [key] for line in f)
    except OSError:
        return False


def _spark_home() -> str | None:
    try:
        from pyspark.find_spark_home import _find_spark_home
        return _find_spark_home()
    except Exception:  # noqa: BLE001 - no pyspark, or an unusual install
        return None


def _java_version(java: str) -> tuple:
    """(major version, full version text) of a JDK from its ``release`` file."""
    home = os.path.dirname(os.path.dirname(os.path.realpath(java)))
    fields = {}
    try:
        with open(os.path.join(home, "release")) as f:
            for line in f:
                k, _, v = line.partition("=")
                fields[k.strip()] = v.strip().strip('"')
    except OSError:
        return 0, ""
    version = fields.get("JAVA_VERSION", "")
    parts = version.split(".")
    try:
        major = int(parts[1] if parts[0] == "1" else parts[0])
    except (ValueError, IndexError):
        major = 0
    return major, fields.get("JAVA_RUNTIME_VERSION", version)


def class_archive() -> str | None:
    """Where the class-data archive of this Java and Spark installation is (or would be);
    None when archives are off or this Java has none."""
    if os.environ.get("BINLOG_SCHEMA_JVM_CACHE", "").lower() in ("off", "0", "no"):
        return None
    from binlog_schema.construct_ext.cache import cache_dir
    folder, java, home = cache_dir(), find_java(), _spark_home()
    if folder is None or java is None or home is None:
        return None
    major, version = _java_version(java)
    if major < 13:
        return None
    import hashlib
    import pyspark
    h = hashlib.sha1(f"{os.path.realpath(java)}|{version}|{pyspark.__version__}|"
                     f"{os.path.realpath(home)}".encode())
    try:
        with os.scandir(os.path.join(home, "jars")) as it:
            for e in sorted(it, key=lambda e: e.name):
                h.update(f"|{e.name}:{e.stat().st_size}".encode())
    except OSError:
        return None
    return os.path.join(folder, "jvm", f"spark-classes-{h.hexdigest()[:16]}.jsa")


def driver_java_options(class_cache: str = "use", short_lived: bool = False) -> list:
    """The options of a driver JVM started here: the class-data archive (or, with
    ``class_cache="create"`` and none yet, the recording of it), C1 only when
    ``short_lived``."""
    flags = ["-XX:TieredStopAtLevel=1"] if short_lived else []
    archive = class_archive() if class_cache in ("use", "create") else None
    if archive is None:
        return flags
    if os.path.exists(archive):
        flags.append(f"-XX:SharedArchiveFile={archive}")
    elif class_cache == "create":
        try:
            os.makedirs(os.path.dirname(archive), exist_ok=True)
        except OSError:
            return flags
        _remove_stale(os.path.dirname(archive))
        tmp = f"{archive}.{os.getpid()}.tmp"
        flags.append(f"-XX:ArchiveClassesAtExit={tmp}")
        _ARCHIVE_PENDING[:] = [(tmp, archive)]
    else:
        return flags
    return flags + ["-Xlog:cds=off", "-Xlog:cds+dynamic=off"]


def _remove_stale(folder: str, keep: int = 3) -> None:
    """Recordings left by runs that did not finish (over an hour old), and archives beyond
    the ``keep`` newest (other installations, or older ones of this)."""
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith("spark-classes-")]
        now = time.time()
        done = sorted((e for e in entries if e.name.endswith(".jsa")),
                      key=lambda e: -e.stat().st_mtime)
        for e in done[keep - 1:] + [e for e in entries if e.name.endswith(".tmp")
                                    and now - e.stat().st_mtime > 3600]:
            os.unlink(e.path)
    except OSError:
        pass


def finish_session(spark, ok: bool = True, timeout: float = 120.0) -> None:
    """The end of a command whose driver JVM started here. The JVM is let go: it exits when
    this process does (closing the gateway now spares the interpreter's exit half a
    second of waiting on it). When this run records the class-data archive and did its
    work (``ok``), the JVM is stopped and waited for instead (it writes the archive as it
    exits), and the archive is installed once a JVM started from it; a run that failed
    records none (its JVM loaded only some of the classes)."""
    from pyspark import SparkContext
    gateway = SparkContext._gateway
    proc = getattr(gateway, "proc", None)
    if not _ARCHIVE_PENDING or not ok:
        if _ARCHIVE_PENDING and proc is not None:
            _ARCHIVE_PENDING.clear()
            proc.kill()   # (an exit would write the recording)
        if gateway is not None:
            try:
                gateway.shutdown()
            except Exception:  # noqa: BLE001 - exiting anyway
                pass
        return
    tmp, final = _ARCHIVE_PENDING.pop()
    import subprocess
    spark.stop()
    try:
        if proc is None or proc.stdin is None:
            return
        proc.stdin.close()   # the gateway exits when its input ends
        if proc.wait(timeout=timeout) != 0 or not os.path.exists(tmp):
            return
        check = subprocess.run([find_java(), f"-XX:SharedArchiveFile={tmp}",
                                "-Xlog:cds=off", "-Xlog:cds+dynamic=off", "-version"],
                               capture_output=True, timeout=timeout)
        if check.returncode == 0:
            os.replace(tmp, final)
    except (OSError, subprocess.SubprocessError):
        pass
    finally:
        if os.path.exists(tmp):
            try:
                os.unlink(tmp)
            except OSError:
                pass


# ---------------------------------------------------------------------------------------
# listing and planning


def list_inputs(spark, inputs, include_hidden: bool = False):
    """(files, missing): (uri, size) of every file named by the inputs (files, directories
    listed recursively, globs) on any Hadoop filesystem, listed on the driver."""
    jvm = getattr(spark, "_jvm", None) or getattr(spark.sparkContext, "_jvm", None)
    if jvm is None:  # Spark Connect: no gateway; local paths only
        return list_local(inputs, include_hidden)
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


# ---------------------------------------------------------------------------------------
# the result

TABLES = ("events", "table_maps", "row_changes", "errors", "files")


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class BinlogTables:
    """The DataFrames of one decode run: ``events``, ``table_maps``, ``row_changes``,
    ``errors``, ``files`` (the per-file reconciliation) and ``split_stats``."""

    spark = None
    splits: list = []

    def tables(self) -> dict:
        return {"events": self.events, "table_maps": self.table_maps,
                "row_changes": self.row_changes, "errors": self.errors, "files": self.files}

    def table(self, database: str, table: str):
        """One table's row changes with typed structs (see :func:`table_view`)."""
        return table_view(self, database, table)

    def write(self, out: str, fmt: str = "parquet", mode: str = "errorifexists",
              progress=None) -> dict:
        """Write every table through Spark under ``out`` (``out/events``, ...)."""
        check_format(self.spark, fmt)
        paths = {}
        for name, df in self.tables().items():
            path = out.rstrip("/") + "/" + name
            self.spark.sparkContext.setJobDescription(f"write {name}")
            with progress.stage(f"write {name}") if progress else _null():
                df.write.mode(mode).format(fmt).save(path)
            paths[name] = path
        return paths

    def unpersist(self):
        pass


class CachedTables(BinlogTables):
    """Engine ``spark``: the tasks' rows cross into the JVM (pickled) as one DataFrame,
    cached (memory and disk); every table is a view of it. Needs nothing but pyspark and
    writes through Spark's own writers (any Hadoop filesystem, any format)."""

    def __init__(self, spark, unified, splits):
        self.spark, self.unified, self.splits = spark, unified, splits

    def _part(self, kind, column):
        from pyspark.sql import functions as F
        return self.unified.where(F.col("kind") == kind).select(f"{column}.*")

    @property
    def events(self):
        return self._part(tasks.EVENT, "event")

    @property
    def row_changes(self):
        return self._part(tasks.ROW, "row")

    @property
    def errors(self):
        return self._part(tasks.ERROR, "error")

    @property
    def split_stats(self):
        return self._part(tasks.STAT, "stat")

    @property
    def table_maps(self):
        return aggregate_shapes(self._part(tasks.TABLE_MAP, "table_map"))

    @property
    def files(self):
        from binlog_schema.pipeline import schema
        stats = [tuple(r) for r in self.split_stats.collect()]
        shapes = [(r["first_file"], r["shape_id"]) for r in
                  self._part(tasks.TABLE_MAP, "table_map").select(
                      "first_file", "shape_id").collect()]
        counts = count_by_file(self.events, self.errors, self.row_changes)
        return self.spark.createDataFrame(files_rows(stats, shapes, counts),
                                          schema.FILES).orderBy("file")

    def unpersist(self):
        self.unified.unpersist()


class ParquetTables(BinlogTables):
    """Engine ``arrow`` (default): the tasks wrote ``events``, ``row_changes`` and
    ``errors`` as Parquet parts under ``location``; the driver wrote ``table_maps`` and
    ``files``. Every table is read back from there."""

    file_rows: list | None = None   # the ``files`` rows as written (schema.FILES tuples)

    def __init__(self, spark, location, splits, split_rows):
        self.spark, self.location, self.splits = spark, location.rstrip("/"), splits
        from binlog_schema.pipeline import schema
        self._split_rows = split_rows
        self._stats = None
        self._schemas = {"events": schema.EVENTS, "row_changes": schema.ROW_CHANGES,
                         "errors": schema.ERRORS, "table_maps": schema.TABLE_MAPS,
                         "files": schema.FILES}

    @property
    def split_stats(self):
        if self._stats is None:   # (a DataFrame made only when asked for)
            from binlog_schema.pipeline import schema
            self._stats = self.spark.createDataFrame(self._split_rows, schema.SPLIT_STATS)
        return self._stats

    def _read(self, name):
        return self.spark.read.schema(self._schemas[name]).parquet(f"{self.location}/{name}")

    events = property(lambda self: self._read("events"))
    row_changes = property(lambda self: self._read("row_changes"))
    errors = property(lambda self: self._read("errors"))
    table_maps = property(lambda self: self._read("table_maps").orderBy(
        "first_file", "first_offset"))
    files = property(lambda self: self._read("files").orderBy("file"))


def aggregate_shapes(tm):
    """One row per distinct table-map shape, with where it was first seen (files in name
    order, then offsets) and how many TABLE_MAP events had it."""
    from pyspark.sql import functions as F
    shape_cols = [c for c in tm.columns if c not in (
        "first_file", "first_offset", "first_timestamp", "occurrences", "shape_id")]
    first = F.min_by(F.struct(*shape_cols, "first_file", "first_offset", "first_timestamp"),
                     F.struct("first_file", "first_offset"))
    out = tm.groupBy("shape_id").agg(first.alias("s"),
                                     F.sum("occurrences").alias("occurrences"))
    return out.select("s.database", "s.table", "shape_id",
                      *[f"s.{c}" for c in shape_cols if c not in ("database", "table")],
                      "s.first_file", "s.first_offset", "s.first_timestamp",
                      "occurrences").orderBy("first_file", "first_offset")


def first_shapes(shapes) -> list:
    """:func:`aggregate_shapes` on the driver, for the (few) rows the tasks returned."""
    best, total = {}, {}
    for r in shapes:  # schema.TABLE_MAPS order: ..., first_file, first_offset, ts, count
        shape = r[2]
        total[shape] = total.get(shape, 0) + r[-1]
        if shape not in best or (r[-4], r[-3]) < (best[shape][-4], best[shape][-3]):
            best[shape] = r
    rows = [tuple(best[s][:-1]) + (total[s],) for s in best]
    return sorted(rows, key=lambda r: (r[-4], r[-3]))


def count_by_file(events, errors, row_changes) -> dict:
    """file -> (events decoded, events quarantined, error rows, row changes, bytes decoded,
    bytes skipped, failures), counted from the tables themselves (one Spark job; as
    :func:`binlog_schema.pipeline.parts.count_parts`)."""
    from pyspark.sql import functions as F
    quarantined = F.col("stage").isin(*EVENT_STAGES).cast("int")
    failed = F.col("stage").isin(*FAILURE_STAGES).cast("int")
    top = F.col("in_payload_at").isNull()
    zero = F.lit(0).cast("long")
    u = (events.select("file", F.lit(1).alias("e"), F.lit(0).alias("q"), F.lit(0).alias("x"),
                       F.lit(0).alias("r"),
                       F.when(top, F.col("size")).otherwise(zero).alias("bd"),
                       zero.alias("bs"), F.lit(0).alias("ff"))
         .unionByName(errors.select(
             "file", F.lit(0).alias("e"), quarantined.alias("q"), F.lit(1).alias("x"),
             F.lit(0).alias("r"), zero.alias("bd"),
             F.when(top & (quarantined == 1), F.coalesce(F.col("size"), zero))
             .otherwise(zero).alias("bs"), failed.alias("ff")))
         .unionByName(row_changes.select("file", F.lit(0).alias("e"), F.lit(0).alias("q"),
                                         F.lit(0).alias("x"), F.lit(1).alias("r"),
                                         zero.alias("bd"), zero.alias("bs"),
                                         F.lit(0).alias("ff"))))
    cols = ("e", "q", "x", "r", "bd", "bs", "ff")
    rows = u.groupBy("file").agg(*[F.sum(c).alias(c) for c in cols]).collect()
    return {r["file"]: tuple(r[c] or 0 for c in cols) for r in rows}


def files_rows(stats, shapes, counts) -> list:
    """Per file (tuples in schema.FILES order): events read (framed by the tasks' readers)
    against events decoded (rows of ``events``) + quarantined (``errors`` of the stages
    event, skipped and tail: quarantined events and skipped ranges), and the file's bytes
    against the magic number + bytes decoded (the sizes of its ``events`` rows) + bytes
    skipped (the sizes of those ``errors`` rows), both counted from the written tables
    (``reconciled`` when both hold and no ``errors`` row says the file, or a split of it,
    could not be read); rows, table-map shapes, errors, task time and peak task memory."""
    per = {}
    for st in stats:  # schema.SPLIT_STATS order
        f = per.setdefault(st[0], {"size": 0, "splits": 0, "read": 0, "rows_failed": 0,
                                   "carried": 0, "seconds": 0.0, "cpu": 0.0, "rss": None,
                                   "shapes": set()})
        f["size"] = max(f["size"], st[1] or 0)
        f["splits"] += 1
        f["read"] += st[5]
        f["rows_failed"] += st[9]
        f["carried"] += st[11]
        f["seconds"] += st[13]
        f["cpu"] += st[14]
        if st[15] is not None:
            f["rss"] = max(f["rss"] or 0, st[15])
    for file, shape in shapes:
        if file in per:
            per[file]["shapes"].add(shape)
    out = []
    for file in sorted(per):
        f = per[file]
        decoded, quarantined, errors, rows, bytes_decoded, bytes_skipped, failures = \
            counts.get(file, (0, 0, 0, 0, 0, 0, 0))
        size = f["size"]
        reconciled = f["read"] == decoded + quarantined and not failures and \
            bytes_decoded + bytes_skipped + MAGIC_SIZE == size
        out.append((file, size, f["splits"], f["read"], decoded, quarantined, size,
                    bytes_decoded, bytes_skipped, reconciled, rows, f["rows_failed"],
                    len(f["shapes"]), f["carried"], errors, f["seconds"], f["cpu"], f["rss"]))
    return out


def check_format(spark, fmt: str):
    if fmt == "parquet":
        return
    if fmt != "delta":
        raise ValueError(f"unknown output format {fmt!r} (parquet or delta)")
    jvm = getattr(spark, "_jvm", None)
    try:
        jvm.java.lang.Class.forName("org.apache.spark.sql.delta.sources.DeltaDataSource")
    except Exception:  # noqa: BLE001 - py4j wraps ClassNotFoundException
        raise RuntimeError(
            "--format delta needs the Delta Lake jars on Spark's classpath (e.g. spark-submit "
            "--packages io.delta:delta-spark_2.13:<version> with the matching delta-spark "
            "pip package and spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension); "
            "they are not bundled with pyspark and this session does not have them. "
            "Use --format parquet.") from None


def _hadoop_fs(spark, path: str):
    jvm = spark._jvm
    p = jvm.org.apache.hadoop.fs.Path(path)
    return p.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), p


def qualify(spark, path: str) -> str:
    """An absolute URI for a path (relative local paths against the driver's directory),
    so that workers with another working directory find it."""
    if getattr(spark, "_jvm", None) is None:
        return os.path.abspath(path)
    fs, p = _hadoop_fs(spark, path)
    return fs.makeQualified(p).toString()


def prepare_out(spark, out: str, mode: str, names=TABLES):
    """``out/<table>`` for each table: removed (overwrite) or refused (errorifexists) when
    present, then created empty."""
    fs, root = _hadoop_fs(spark, out)
    Path = spark._jvm.org.apache.hadoop.fs.Path
    for name in names:
        p = Path(root, name)
        if fs.exists(p):
            if mode == "overwrite":
                fs.delete(p, True)
            else:
                raise FileExistsError(f"{out}/{name} exists (use --overwrite)")
    for name in names:
        fs.mkdirs(Path(root, name))


def decode(inputs, spark=None, *, out: str | None = None, engine: str = "auto",
           split_size=DEFAULT_SPLIT, rows: bool = True, partitions: int | None = None,
           include_hidden: bool = False, mode: str = "errorifexists",
           progress=None, prescan: EarlyPrescan | None = None) -> BinlogTables:
    """Decode binlog files (paths, directories, globs, any Hadoop filesystem) into
    DataFrames: ``events``, ``table_maps``, ``row_changes``, ``errors``, ``files``.

    ``engine="arrow"`` (the default when pyarrow is installed; the workers need it too): the
    tasks write Parquet parts under ``out`` (default: a new temporary directory; on a cluster
    give a path every worker can write, local/shared or reachable by ``pyarrow.fs``),
    decoding runs now, and the tables are read back from there. ``engine="spark"``: rows
    cross into the JVM and are cached; nothing runs until a table is used; write with
    :meth:`BinlogTables.write`."""
    spark = spark or start_session()
    if engine == "auto":
        engine = "arrow" if have_pyarrow() else "spark"
    if engine not in ("arrow", "spark"):
        raise ValueError(f"engine {engine!r}: auto, arrow or spark")
    split_bytes = parse_size(split_size)
    if isinstance(inputs, str):
        inputs = [inputs]
    files, missing = list_inputs(spark, list(inputs), include_hidden)
    with progress.stage("pre-scan") if progress else _null():
        splits = plan_splits(spark, files, missing, split_bytes,
                             prescan.result() if prescan is not None else None)
    sc = spark.sparkContext
    if partitions is None:
        partitions = task_count(splits, sc.defaultParallelism, split_bytes)
    groups = pack(splits, partitions)
    if progress:
        progress.say(f"{len({s.uri for s in splits})} files, {len(splits)} splits in "
                     f"{len(groups)} tasks, {sum(s.length for s in splits) / (1 << 20):.1f} "
                     "MiB")
    if engine == "spark":
        return _decode_cached(spark, groups, splits, rows)
    return _decode_arrow(spark, groups, splits, rows, out, mode, progress)


def _decode_cached(spark, groups, splits, want_rows):
    from pyspark import StorageLevel
    from binlog_schema.pipeline import schema
    sc = spark.sparkContext
    rdd = sc.parallelize(groups, max(1, len(groups))).flatMap(
        lambda g: tasks.decode_group(g, want_rows))
    unified = _frame(spark, rdd, schema.UNIFIED).persist(StorageLevel.MEMORY_AND_DISK)
    return CachedTables(spark, unified, splits)


def _decode_arrow(spark, groups, splits, want_rows, out, mode, progress):
    import tempfile
    from binlog_schema.pipeline import arrow, parts, schema
    if out is None:
        out = tempfile.mkdtemp(prefix="binlog-schema-tables-")
    out = qualify(spark, out)
    prepare_out(spark, out, mode)
    tz = session_time_zone(spark)
    arrow_schemas = arrow.task_schemas(tz)
    spark_json = {"events": schema.EVENTS.json(), "row_changes": schema.ROW_CHANGES.json(),
                  "errors": schema.ERRORS.json()}
    sc = spark.sparkContext
    sc.setJobDescription(f"decode {len(splits)} splits")
    with progress.stage("decode") if progress else _null():
        small = sc.parallelize(list(enumerate(groups)), max(1, len(groups))).flatMap(
            lambda ig: parts.write_group(ig[0], ig[1], out, arrow_schemas, spark_json,
                                         want_rows)).collect()
    shapes = [row for tag, row in small if tag == tasks.TABLE_MAP]  # (Spark's internal form)
    stats = [row for tag, row in small if tag == tasks.STAT]
    with progress.stage("table_maps, files") if progress else _null():
        # small tables: written here by pyarrow as the tasks write theirs (a Spark job each
        # would cost more than the data, and it is time no core can share)
        parts.write_table(out, "table_maps", arrow.arrow_schema(schema.TABLE_MAPS, tz),
                          schema.TABLE_MAPS.json(), first_shapes(shapes))
        tables = ParquetTables(spark, out, splits, stats)
        try:  # counted from the part files themselves (pyarrow, on the driver)
            counts = parts.count_parts(out, EVENT_STAGES, FAILURE_STAGES)
        except Exception:  # noqa: BLE001 - a location pyarrow cannot read: Spark counts
            sc.setJobDescription("files (reconciliation)")
            counts = count_by_file(tables.events, tables.errors, tables.row_changes)
        rows = files_rows(stats, [(r[-4], r[2]) for r in shapes], counts)
        parts.write_table(out, "files", arrow.arrow_schema(schema.FILES, tz),
                          schema.FILES.json(), rows)
        tables.file_rows = rows
    return tables


def session_time_zone(spark) -> str:
    """The session time zone: from the context's configuration when it is set there (asking
    the session itself would build its SQL state, a second of start-up a command that uses
    no SQL need not pay)."""
    tz = spark.sparkContext.getConf().get("spark.sql.session.timeZone", None)
    return tz or spark.conf.get("spark.sql.session.timeZone")


def have_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


def _frame(spark, rdd, struct):
    """A DataFrame from an RDD of tuples already in Spark's internal form (the tasks produce
    dates as days and timestamps as microseconds): no per-row conversion in Python."""
    from pyspark.sql import DataFrame
    jvm = spark._jvm
    jrdd = jvm.SerDeUtil.toJavaArray(rdd._to_java_object_rdd())
    jdf = spark._jsparkSession.applySchemaToPythonRDD(jrdd.rdd(), struct.json())
    df = DataFrame(jdf, spark)
    df._schema = struct
    return df


# ---------------------------------------------------------------------------------------
# typed view of one table


def spark_type_of(col: dict):
    """The exact Spark type of a column from its table-map description, and how to take it
    from a ``Value`` struct."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T
    t = col["type"]
    real = col.get("real_type")

    def expr(v):
        if real == "ENUM" or real == "SET":
            return F.coalesce(v["string"], v["long"].cast("string")), T.StringType()
        if t in ("TINY", "SHORT", "INT24", "LONG", "YEAR"):
            return v["long"], T.LongType()
        if t == "LONGLONG" or (t == "BIT" and (col.get("bits") or 0) > 63):
            if col.get("unsigned") or t == "BIT":
                d = T.DecimalType(20, 0)
                return F.coalesce(v["long"].cast(d), v["decimal"].cast(d)), d
            return v["long"], T.LongType()
        if t == "BIT":
            return v["long"], T.LongType()
        if t == "NEWDECIMAL" and col.get("precision") and col["precision"] <= 38:
            d = T.DecimalType(col["precision"], col.get("scale") or 0)
            return F.coalesce(v["decimal"].cast(d), v["text"].cast(d)), d
        if t in ("FLOAT", "DOUBLE"):
            return v["double"], T.DoubleType()
        if t in ("DATE", "NEWDATE"):
            return v["date"], T.DateType()
        if t in ("DATETIME", "DATETIME2"):
            return v["datetime"], T.TimestampNTZType()
        if t in ("TIMESTAMP", "TIMESTAMP2"):
            return v["timestamp"], T.TimestampType()
        if t in ("TIME", "TIME2"):
            return v["time"], T.DayTimeIntervalType(0, 3)
        if t == "JSON":
            return F.coalesce(v["json"], v["string"]), T.StringType()
        if t == "GEOMETRY":
            return v["binary"], T.BinaryType()
        if t == "VECTOR":
            return v["vector"], T.ArrayType(T.DoubleType())
        if t in ("VARCHAR", "VAR_STRING", "STRING", "BLOB", "TINY_BLOB", "MEDIUM_BLOB",
                 "LONG_BLOB"):
            if col.get("collation_id") == 63:
                return v["binary"], T.BinaryType()
            return F.coalesce(v["string"], v["binary"].cast("string")), T.StringType()
        return F.coalesce(v["text"], v["string"], v["json"],
                          v["decimal"].cast("string"), v["long"].cast("string")), T.StringType()
    return expr


def table_view(tables: BinlogTables, database: str, table: str):
    """The row changes of one table with ``before``/``after`` as structs of the exact column
    types (the latest table-map shape gives each column's type; columns of earlier shapes
    are kept). Values with no Spark form (zero dates) are null here, lossless in
    ``row_changes``."""
    from pyspark.sql import functions as F
    shapes = (tables.table_maps.where((F.col("database") == database)
                                      & (F.col("table") == table))
              .orderBy("first_file", "first_offset").collect())
    if not shapes:
        raise KeyError(f"no table map for {database}.{table}")
    columns = {}
    for s in shapes:  # later shapes win
        for c in s["columns"]:
            name = c["name"] or f"@{c['index'] + 1}"
            columns.pop(name, None)
            columns[name] = c.asDict()
    rc = tables.row_changes.where((F.col("database") == database) & (F.col("table") == table))

    def image(side):
        fields = []
        for name, col in columns.items():
            expr, dtype = spark_type_of(col)(F.col(side)[name])
            fields.append(expr.cast(dtype).alias(name))
        return F.when(F.col(side).isNull(), F.lit(None)).otherwise(F.struct(*fields))
    return rc.select("file", "offset", "inner_offset", "gtid", "timestamp", "operation",
                     "row_index", image("before").alias("before"),
                     image("after").alias("after"))


# ---------------------------------------------------------------------------------------
# progress and summary


class Progress:
    """Prints, while Spark jobs run, how many tasks of the active stages are done (polled
    from the status tracker every ``every`` seconds, on stderr)."""

    def __init__(self, spark, out=sys.stderr, every: float = 2.0, enabled: bool = True):
        self.sc = spark.sparkContext
        self.out = out
        self.every = every
        self.enabled = enabled
        self.t0 = time.time()
        self.lines = []

    def say(self, text: str):
        line = f"[{time.time() - self.t0:6.1f}s] {text}"
        self.lines.append(line)
        if self.enabled:
            print(line, file=self.out, flush=True)

    def stage(self, label: str):
        return _Watch(self, label)


class _Watch:
    def __init__(self, progress: Progress, label: str):
        self.p = progress
        self.label = label
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self.t0 = time.time()
        self.thread.start()
        return self

    def _run(self):
        last = None
        tracker = self.p.sc.statusTracker()
        while not self.stop.wait(self.p.every):
            try:
                stages = [tracker.getStageInfo(i) for i in tracker.getActiveStageIds()]
            except Exception:  # noqa: BLE001 - the context may be stopping
                return
            stages = [s for s in stages if s is not None]
            if not stages:
                continue
            done = sum(s.numCompletedTasks for s in stages)
            total = sum(s.numTasks for s in stages)
            running = sum(s.numActiveTasks for s in stages)
            state = (done, total, running)
            if state != last:
                self.p.say(f"{self.label}: {done}/{total} tasks done, {running} running")
                last = state

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        self.p.say(f"{self.label}: done in {time.time() - self.t0:.1f}s")
        return False


def summary_lines(files_rows, width: int = 60) -> list:
    """The per-file summary table and the reconciliation line: events read = decoded +
    quarantined, and bytes = magic numbers + decoded + skipped."""
    head = (f"{'file':<{width}} {'splits':>6} {'read':>9} {'decoded':>9} {'quarant.':>8} "
            f"{'bytes':>12} {'skipped':>10} {'rows':>9} {'shapes':>6} {'errors':>6}  ok")
    out = [head, "-" * len(head)]
    tot = dict(files=0, read=0, decoded=0, quarantined=0, rows=0, errors=0, bad=0, bytes=0,
               bytes_decoded=0, bytes_skipped=0)
    cwd = os.getcwd() + os.sep
    for r in files_rows:
        name = r["file"][len(cwd):] if r["file"].startswith(cwd) else r["file"]
        name = name if len(name) <= width else "..." + name[-(width - 3):]
        ok = bool(r["reconciled"])
        out.append(f"{name:<{width}} {r['splits']:>6} {r['events_read'] or 0:>9} "
                   f"{r['events_decoded']:>9} {r['events_quarantined']:>8} "
                   f"{r['bytes'] or 0:>12} {r['bytes_skipped'] or 0:>10} {r['rows']:>9} "
                   f"{r['table_map_shapes']:>6} {r['errors']:>6}  {'yes' if ok else 'NO'}")
        tot["files"] += 1
        tot["read"] += r["events_read"] or 0
        tot["decoded"] += r["events_decoded"]
        tot["quarantined"] += r["events_quarantined"]
        tot["rows"] += r["rows"]
        tot["errors"] += r["errors"]
        tot["bad"] += not ok
        for k in ("bytes", "bytes_decoded", "bytes_skipped"):
            tot[k] += r[k] or 0
    out.append("-" * len(head))
    out.append(f"reconciliation: {tot['files']} files, events read {tot['read']} = decoded "
               f"{tot['decoded']} + quarantined {tot['quarantined']}, bytes {tot['bytes']} = "
               f"{MAGIC_SIZE} x {tot['files']} + decoded {tot['bytes_decoded']} + skipped "
               f"{tot['bytes_skipped']}: "
               + ("OK" if not tot["bad"] else f"MISMATCH in {tot['bad']} files")
               + f"; rows {tot['rows']}, error rows {tot['errors']}")
    return out


def exit_status(files_rows) -> int:
    """``spark decode``'s exit status, as the single-process commands' with
    ``--skip-errors`` (:mod:`binlog_schema.serial.write`): 1 when a file does not reconcile
    (its bytes or events are not all accounted for: a file that is not a binlog, an input
    that could not be read, a task that failed), else 3 when a file is damaged (an ``errors``
    row: a quarantined event, a skipped range, a rows event that could not be decoded),
    else 0."""
    if any(not r["reconciled"] for r in files_rows):
        return NOT_RECONCILED
    return DAMAGED if any(r["errors"] for r in files_rows) else CLEAN


def status_line(files_rows) -> str | None:
    """What a status other than 0 means, for the end of the summary."""
    bad = sum(not r["reconciled"] for r in files_rows)
    damaged = sum(bool(r["errors"]) for r in files_rows)
    if bad:
        return (f"exit status {NOT_RECONCILED}: {bad} files not reconciled (not binlogs, "
                "unreadable, or not every byte accounted for: see the errors table)")
    if damaged:
        return (f"exit status {DAMAGED}: {damaged} files damaged, every byte accounted for "
                "(quarantined events and skipped ranges: the errors table, with offset and "
                "size)")
    return None


def run_decode(args) -> int:
    """``spark decode``: decode, write the tables, print the summary."""
    from binlog_schema.pipeline.cli import parse_conf
    own_jvm = "PYSPARK_GATEWAY_PORT" not in os.environ and _jvm_starts_here()
    early = None
    if own_jvm:   # the pre-scan of local files while the JVM starts
        early = EarlyPrescan(args.inputs, parse_size(args.split_size), args.include_hidden)
        early.start()
    if args.engine == "auto":
        args.engine = "arrow" if have_pyarrow() else "spark"
    # C1 only when the JVM merely schedules (rows through the JVM and Spark's writers are
    # JVM work that C2's code does faster)
    spark = start_session(args.master, parse_conf(args.conf), class_cache="create",
                          short_lived=args.engine == "arrow" and args.format == "parquet")
    rc = None
    try:
        rc = _run_decode(spark, args, early)
    finally:
        if own_jvm:
            ok = rc is not None and rc != 2
            if ok and _ARCHIVE_PENDING and not args.quiet:
                print("binlog-schema spark: recording the JVM's class-data archive (once per "
                      "Java and Spark installation: later commands start faster)",
                      file=sys.stderr, flush=True)
            finish_session(spark, ok=ok)
    return rc


def _run_decode(spark, args, early=None) -> int:
    progress = Progress(spark, enabled=not args.quiet)
    try:
        check_format(spark, args.format)
    except RuntimeError as e:
        print(f"binlog-schema spark decode: {e}", file=sys.stderr)
        return USAGE
    mode = "overwrite" if args.overwrite else "errorifexists"
    out = args.out.rstrip("/")
    progress.say(f"Spark {spark.version}, master {spark.sparkContext.master}, "
                 f"{spark.sparkContext.defaultParallelism} cores, engine {args.engine}")
    try:
        if args.engine == "arrow" and args.format == "parquet":
            tables = decode(args.inputs, spark, out=out, engine="arrow",
                            split_size=args.split_size, rows=not args.no_rows,
                            include_hidden=args.include_hidden, mode=mode, progress=progress,
                            prescan=early)
        else:
            staging = out + "/_staging" if args.engine == "arrow" else None
            tables = decode(args.inputs, spark, out=staging, engine=args.engine,
                            split_size=args.split_size, rows=not args.no_rows,
                            include_hidden=args.include_hidden, mode="overwrite",
                            progress=progress, prescan=early)
            if args.engine == "spark":
                with progress.stage("decode"):
                    spark.sparkContext.setJobDescription("decode")
                    tables.unified.count()
            tables.write(out, args.format, mode, progress)
            tables.unpersist()
            if staging:
                fs, p = _hadoop_fs(spark, staging)
                fs.delete(p, True)
    except FileExistsError as e:
        print(f"binlog-schema spark decode: {e}", file=sys.stderr)
        return USAGE
    if getattr(tables, "file_rows", None) is not None:   # as written, without reading back
        from binlog_schema.pipeline import schema
        names = schema.FILES.fieldNames()
        rows = [dict(zip(names, r)) for r in tables.file_rows]
    else:
        rows = spark.read.format(args.format).load(out + "/files").orderBy("file").collect()
    for line in summary_lines(rows):
        print(line)
    print(f"tables written under {out}: {', '.join(TABLES)} ({args.format})", flush=True)
    status = status_line(rows)
    if status:
        print(status, flush=True)
    return exit_status(rows)


def main(argv=None) -> int:
    """``python -m binlog_schema.pipeline.job decode|fixtures|validate ...`` (spark-submit)."""
    import argparse
    from binlog_schema.pipeline.cli import add_commands
    p = argparse.ArgumentParser(prog="binlog_schema.pipeline.job",
                                description="binlog files to typed tables on Spark")
    add_commands(p.add_subparsers(dest="command", required=True))
    args = p.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())

"""The driver's Spark session: which Java Spark starts (:func:`find_java`), the session
itself (:func:`start_session`, :func:`finish_session`, :func:`session_time_zone`) and its
JVM's start-up (the JVM options of a command: a class-data archive per Java and Spark
installation, C1 only for short-lived drivers; quiet unless verbose: log4j at errors only,
the JVM's own start-up warnings left out of stderr)."""

from __future__ import annotations

import os
import sys
import time


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
                  class_cache: str = "use", short_lived: bool = False,
                  verbose: bool = False):
    """A SparkSession: ``master`` when given; else the one spark-submit configured; else
    ``local[*]`` (embedded, started here). The workers run this Python (``sys.executable``)
    unless ``PYSPARK_PYTHON``/``spark.pyspark.python`` says otherwise.

    When the driver JVM starts here, it starts from the class-data archive of this Java and
    Spark (``class_cache="use"``: when one was recorded; ``"create"``: record it in this run
    when missing, written when :func:`finish_session` stops the session; ``"off"``), and a
    ``short_lived`` one (a command) compiles with C1 only: the driver's own work is small,
    its start-up is what costs (see :func:`driver_java_options`).

    Unless ``verbose``, a JVM started here logs errors only (:data:`QUIET_LOG4J`, Spark's
    default profile at level error: no "Using Spark's default log4j profile", no
    NativeCodeLoader warning) and its stderr passes through a filter that leaves out the
    JVM's own start-up warnings (:func:`jvm_noise`: "WARNING: Using incubator modules"...);
    everything else it says (errors, the workers' tracebacks) is passed on. ``verbose``:
    Spark's own logging, at its level (WARN), and the JVM's stderr as it is."""
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
        "spark.python.daemon.module": "binlog_schema.pipeline.tasks.daemon",
    }
    if not os.environ.get("PYSPARK_PYTHON") and not base.contains("spark.pyspark.python"):
        # the workers run the driver's interpreter (this package and its dependencies)
        os.environ["PYSPARK_PYTHON"] = sys.executable
    if not submitted and (master or base.get("spark.master", "local")).startswith("local"):
        defaults["spark.ui.enabled"] = "false"
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # embedded: loopback only
    conf = dict(conf or {})
    starts = not submitted and jvm_starts_here()
    if starts:
        flags = driver_java_options(class_cache, short_lived)
        if not verbose and os.path.exists(QUIET_LOG4J):
            flags.append(f"-Dlog4j2.configurationFile={QUIET_LOG4J}")
        if flags:
            key = "spark.driver.extraJavaOptions"
            if key in conf or base.contains(key):
                conf[key] = " ".join(flags + [conf.get(key) or base.get(key)])
            elif not _in_spark_defaults(key):
                conf[key] = " ".join(flags)
    for k, v in {**defaults, **conf}.items():
        if not base.contains(k) or k in conf:
            builder = builder.config(k, v)
    if starts and not verbose:
        with _filtered_stderr():
            spark = builder.getOrCreate()
    else:
        spark = builder.getOrCreate()
    if quiet and not verbose:
        spark.sparkContext.setLogLevel("ERROR")
    return spark


# ---------------------------------------------------------------------------------------
# quiet by default

QUIET_LOG4J = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "log4j2-quiet.properties")
# what a JVM says on its stderr before (and beside) any logger: warnings about its own
# start-up a user cannot act on ("WARNING: Using incubator modules: jdk.incubator.vector",
# the lines of an illegal-access or sun.misc.Unsafe warning, a HotSpot "VM warning")
_JVM_NOISE = ("WARNING: ", "OpenJDK 64-Bit Server VM warning:",
              "Java HotSpot(TM) 64-Bit Server VM warning:")


def jvm_noise(line: str) -> bool:
    """Whether a line of the JVM's stderr is start-up noise (left out unless verbose)."""
    return line.startswith(_JVM_NOISE)


class _filtered_stderr:
    """While the JVM starts (inside the ``with``), file descriptor 2 is a pipe: the JVM (and
    the Python workers it starts) inherit it as their stderr; a thread passes on to this
    process's stderr every line read from it but :func:`jvm_noise`'s."""

    def __enter__(self):
        import threading
        sys.stderr.flush()
        self.read, write = os.pipe()
        self.saved = os.dup(2)
        out = os.dup(2)      # (the thread's own copy of the real stderr)
        os.dup2(write, 2)
        os.close(write)
        threading.Thread(target=_pass_on, args=(self.read, out), daemon=True,
                         name="jvm-stderr").start()
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        return False


def _pass_on(read: int, out: int) -> None:
    with os.fdopen(read, "rb") as pipe:
        for line in pipe:
            if not jvm_noise(line.decode("utf-8", "replace")):
                try:
                    os.write(out, line)
                except OSError:
                    return


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


def jvm_starts_here() -> bool:
    """Whether a session made now starts its JVM in this process (no gateway yet, and not
    under spark-submit's)."""
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
        # pyspark's own (private) lookup, the one its launcher uses (SPARK_HOME, else the
        # pip package): pyspark has no public function for it
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


def records_class_archive() -> bool:
    """Whether this run's JVM records the class-data archive as it exits (see
    :func:`finish_session`)."""
    return bool(_ARCHIVE_PENDING)


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



def session_time_zone(spark) -> str:
    """The session time zone: from the context's configuration when it is set there (asking
    the session itself would build its SQL state, a second of start-up a command that uses
    no SQL need not pay)."""
    tz = spark.sparkContext.getConf().get("spark.sql.session.timeZone", None)
    return tz or spark.conf.get("spark.sql.session.timeZone")

"""Server tier, Spark inputs (issue 26): the binlog folder a real MariaDB server leaves, as it
is. A private server (scripts/mariadb.sh) writes its binlogs, its relay log and a replica's
info files into one folder (``--relay-log``, ``--master-info-file``,
``--relay-log-info-file`` there; a CHANGE MASTER makes them), rotates its binlog and is
stopped (it saves its GTID state, ``mariadb-bin.state``). The folder, copied elsewhere (its
index then names paths of the server's folder), is given to ``spark decode`` and ``spark
current`` in this process: the binlogs decode in the index's order, the index, state and
replica info files are listed as companions (no error, exit status 0), and the current state
is the server's SELECT.

Without ``mariadbd`` the tier is skipped with a warning (failed under CI=true); without
pyspark or Java, likewise.
"""

import os
import shutil
import subprocess

import pytest

from binlog_schema.output.statuses import CLEAN

from ..conftest import ROOT, unavailable

pytestmark = [pytest.mark.server, pytest.mark.spark]

NAME = f"spark-folder-{os.getpid()}"
WORKLOAD = """
CREATE DATABASE bs_folder;
CREATE TABLE bs_folder.t (id INT PRIMARY KEY, v VARCHAR(10));
INSERT INTO bs_folder.t VALUES (1, 'one'), (2, 'two');
FLUSH BINARY LOGS;
UPDATE bs_folder.t SET v = 'deux' WHERE id = 2;
INSERT INTO bs_folder.t VALUES (3, 'three');
FLUSH BINARY LOGS;
DELETE FROM bs_folder.t WHERE id = 1;
CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = 1, MASTER_USER = 'nobody';
"""
COMPANIONS = {"mariadb-bin.index", "mariadb-bin.state", "master.info", "multi-master.info",
              "relay-bin.index", "relay-log.info"}


def _sh(*args, stdin=None):
    r = subprocess.run(["bash", str(ROOT / "scripts" / "mariadb.sh"), *args], cwd=ROOT,
                       input=stdin, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return r.stdout


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """(the copy of the server's binlog folder, the server's rows of bs_folder.t)."""
    if not (shutil.which("mariadbd") or os.path.exists("/usr/sbin/mariadbd")):
        unavailable("mariadbd not installed (apt-get install mariadb-server): Spark folder "
                    "server tier not run")
    from ..spark.pipeline_support import spark_missing
    missing = spark_missing()
    if missing:
        unavailable(f"Spark folder server tier not run: {missing}")
    _sh("destroy", NAME)
    binlogs = ROOT / ".work" / "mariadb" / NAME / "binlog"
    try:
        _sh("start", NAME, f"--relay-log={binlogs}/relay-bin",
            f"--master-info-file={binlogs}/master.info",
            f"--relay-log-info-file={binlogs}/relay-log.info")
        _sh("sql", NAME, stdin=WORKLOAD)
        rows = _sh("sql", NAME, "-N", "-B", stdin="SELECT id, v FROM bs_folder.t ORDER BY id")
        _sh("stop", NAME)
        copy = tmp_path_factory.mktemp("server") / "binlog"
        shutil.copytree(binlogs, copy)
    finally:
        _sh("destroy", NAME)
    names = set(os.listdir(copy))
    assert COMPANIONS <= names, names     # (what this server version keeps there)
    assert str(binlogs) in (copy / "mariadb-bin.index").read_text()
    return copy, [tuple(line.split("\t")) for line in rows.splitlines() if line]


@pytest.fixture(scope="module")
def spark():
    from binlog_schema.pipeline.driver.session import start_session
    s = start_session("local[2]", {"spark.sql.shuffle.partitions": "2"})
    yield s
    s.stop()


def _run(capfd, *argv):
    from binlog_schema.cli import main
    capfd.readouterr()
    rc = main(list(argv))
    out, err = capfd.readouterr()
    assert "Traceback" not in err, err[-3000:]
    return rc, out, err


def test_decode_a_server_binlog_folder(folder, spark, tmp_path, capfd):
    path, _ = folder
    rc, out, err = _run(capfd, "spark", "decode", str(path), "--out", str(tmp_path / "t"),
                        "--quiet")
    assert rc == CLEAN, (out, err[-3000:])
    assert "not a binlog" not in err, err[-3000:]
    listed = [os.path.basename(line.split()[0]) for line in out.splitlines()
              if line.split() and os.path.basename(line.split()[0]).startswith(
                  ("mariadb-bin.", "relay-bin.")) and not line.startswith("companion")]
    binlogs = sorted(n for n in os.listdir(path) if n.split(".")[-1].isdigit())
    assert listed == binlogs and len(binlogs) >= 4, out   # (the index's order: the names')
    companions = [line for line in out.splitlines() if line.startswith("companion")]
    for name in COMPANIONS:
        assert [c for c in companions if f"/{name}: " in c], (name, out)
    assert len(companions) == len(COMPANIONS), out
    assert ": OK;" in out and "rows 5," in out, out


def test_current_of_a_server_binlog_folder(folder, spark, tmp_path, capfd):
    path, rows = folder
    rc, out, err = _run(capfd, "spark", "current", str(path), "--out", str(tmp_path / "c"),
                        "--quiet")
    assert rc == CLEAN, (out, err[-3000:])
    import pyarrow.parquet as pq
    got = pq.read_table(str(tmp_path / "c" / "bs_folder" / "t")).to_pylist()
    assert sorted((str(r["id"]), r["v"]) for r in got) == rows == [
        ("2", "deux"), ("3", "three")]
    assert len([line for line in out.splitlines() if line.startswith("companion")]) == len(
        COMPANIONS)

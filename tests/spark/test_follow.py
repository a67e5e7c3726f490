"""``spark follow``: a folder of binlogs followed by ``spark.readStream.format("binlog")``
into the current tables (Delta), micro-batch by micro-batch, restart-safe through Spark's
checkpoint, must give the tables of ``spark current --format delta`` over the same files:
every table (columns, Arrow types, rows as a multiset, ``_order_key`` too) and the same set
of tables (a dropped one absent, a renamed one under its new name).

The files (tests/spark/follow_fixtures.py, from the synthetic generator's declarations): a
MariaDB sequence of three files with CREATE TABLE of a keyed and a keyless table (duplicate
rows: a change applied twice shows there), ALTER TABLE ADD COLUMN with a DEFAULT, CREATE,
DROP and RENAME TABLE between row changes.

(a) ``--once`` (Trigger.AvailableNow) over the folder; then the batch run again by Spark as
    after a crash before its commit (the checkpoint's last ``commits/`` entry removed):
    nothing applied twice, no table gets a new version;
(b) a file that grows between triggers (whole transactions, then the start of one: the
    state stops at the boundary), a running query (processing-time trigger);
(c) the command killed with SIGKILL in the middle of a micro-batch (after one committed),
    then started again with the same checkpoint: the tables equal the batch run's, the
    keyless table's duplicates included (a change applied twice shows there).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from ..conftest import unavailable
from .follow_fixtures import write_files
from .pipeline_support import spark_missing

pytestmark = pytest.mark.spark

MISSING = spark_missing()
if not MISSING:
    try:
        import deltalake  # noqa: F401
    except ImportError as e:
        MISSING = f"{e.name} is not installed (pip install -e '.[spark]')"
if MISSING:
    unavailable(f"Spark tier (follow) not run: {MISSING}", module=True)

from binlog_schema.pipeline.current.job import current  # noqa: E402
from binlog_schema.pipeline.follow.job import follow  # noqa: E402
from binlog_schema.pipeline.sources.streaming import boundaries  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRANSACTIONS = 16   # per file


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_files(tmp_path_factory.mktemp("binlogs"), transactions=TRANSACTIONS)


@pytest.fixture(scope="module")
def whole(spark, files, tmp_path_factory):
    """``spark current --format delta`` over the folder: (its out, its state)."""
    out = str(tmp_path_factory.mktemp("current") / "out")
    result = current([os.path.dirname(files[0])], spark, out=out, fmt="delta")
    assert result.problems == [] and result.status == 0
    assert sorted(result.tables) == ["shop.extra2", "shop.items", "shop.log"]
    return out, state_of(out)


def state_of(out: str) -> dict:
    with open(os.path.join(out, "_binlog_schema", "state.json"), encoding="utf-8") as f:
        return json.load(f)


def tables_of(out: str) -> dict:
    """"db.table" -> the Delta table read back (deltalake, its latest version) as (schema,
    sorted rows)."""
    from deltalake import DeltaTable
    found = {}
    for db in sorted(os.listdir(out)):
        if db.startswith(("_", ".")):
            continue
        for tb in sorted(os.listdir(os.path.join(out, db))):
            t = DeltaTable(os.path.join(out, db, tb)).to_pyarrow_table()
            rows = sorted(tuple(sorted(r.items())) for r in t.to_pylist())
            found[f"{db}.{tb}"] = ([(f.name, str(f.type)) for f in t.schema], rows)
    return found


def assert_same_tables(got_out: str, want_out: str):
    got, want = tables_of(got_out), tables_of(want_out)
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name][0] == want[name][0], f"{name}: columns or types differ"
        assert len(got[name][1]) == len(want[name][1]), f"{name}: row counts differ"
        assert got[name][1] == want[name][1], f"{name}: rows differ"
    assert sum(len(rows) for _, rows in want.values()) > 40


def assert_same_state(got: dict, want: dict):
    """The follow run's state holds what the batch run's holds: rows per table; applied to
    the same file, at the end of its last transaction or later (the stream's offset is the
    last boundary, after events outside any transaction: a file's ROTATE, STOP)."""
    assert {n: t["rows"] for n, t in got["tables"].items()} == \
        {n: t["rows"] for n, t in want["tables"].items()}
    assert got["applied"]["file"] == want["applied"]["file"]
    assert got["applied"]["position"] >= want["applied"]["position"]
    assert got["applied"]["okey"] >= want["applied"]["okey"]


def versions(out: str) -> dict:
    from deltalake import DeltaTable
    return {n: DeltaTable(os.path.join(out, *n.split("."))).version()
            for n in state_of(out)["tables"]}


def test_follow_once_equals_spark_current(spark, files, whole, tmp_path, capsys):
    """``spark follow --once`` (in this process: it uses the running session)."""
    from binlog_schema.cli import main
    out, checkpoint = str(tmp_path / "out"), str(tmp_path / "checkpoint")
    assert main(["spark", "follow", os.path.dirname(files[0]), "--out", out,
                 "--checkpoint", checkpoint, "--once"]) == 0
    said = capsys.readouterr()
    assert [x.split(": ")[1] for x in said.err.splitlines()
            if x.startswith("binlog-schema spark follow: batch ")] == ["batch 0"]
    lines = said.out.splitlines()
    assert lines[0].split() == ["table", "inserted", "updated", "deleted", "rows"]
    assert [x.split()[0] for x in lines[1:4]] == ["shop.extra2", "shop.items", "shop.log"]
    assert lines[4].startswith("applied to mariadb-bin.000003 position ")
    assert_same_tables(out, whole[0])
    assert_same_state(state_of(out), whole[1])
    assert state_of(out)["stream"]["batch"] == 0
    # Spark runs the batch again when its commit is not in the checkpoint (a crash after
    # the state was written): nothing is applied again, no table gets a new version
    before = versions(out)
    for name in ("0", ".0.crc"):   # (the commit and its checksum: as never written)
        os.remove(os.path.join(checkpoint, "commits", name))
    again = follow(os.path.dirname(files[0]), spark, out=out, checkpoint=checkpoint,
                   once=True)
    again.wait()
    assert [(n.batch, n.applied) for n in again.notes] == [(0, False)]
    assert versions(out) == before
    assert_same_tables(out, whole[0])
    assert os.path.exists(os.path.join(checkpoint, "commits", "0"))
    # a table the state no longer lists (as after a batch killed between writing a state
    # that drops it and removing it) is removed by the next batch; another folder is not
    state = state_of(out)
    del state["tables"]["shop.log"]
    with open(os.path.join(out, "_binlog_schema", "state.json"), "w") as f:
        json.dump(state, f)
    os.remove(os.path.join(out, "_binlog_schema", ".state.json.crc"))   # (Hadoop's checksum)
    os.makedirs(os.path.join(out, "shop", "mine"))
    for name in ("0", ".0.crc"):
        os.remove(os.path.join(checkpoint, "commits", name))
    follow(os.path.dirname(files[0]), spark, out=out, checkpoint=checkpoint, once=True).wait()
    assert sorted(os.listdir(os.path.join(out, "shop"))) == ["extra2", "items", "mine"]


def test_follow_rejects_parquet_and_foreign_out(spark, files, tmp_path):
    from binlog_schema.pipeline.current.job import CurrentError
    folder = os.path.dirname(files[0])
    with pytest.raises(CurrentError, match="only Delta"):
        follow(folder, spark, out=str(tmp_path / "o"), checkpoint=str(tmp_path / "c"),
               fmt="parquet")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("x")
    with pytest.raises(CurrentError, match="not the output"):
        follow(folder, spark, out=str(tmp_path / "taken"), checkpoint=str(tmp_path / "c"))


def _cuts(path: str) -> list:
    """Two transaction boundaries of a file, a third and two thirds through."""
    marks = [b for b, _ in boundaries(path, os.path.getsize(path))]
    return [marks[len(marks) // 3], marks[2 * len(marks) // 3]]


def test_follow_a_growing_file(spark, files, whole, tmp_path):
    inbox, out, checkpoint = (str(tmp_path / d) for d in ("in", "out", "checkpoint"))
    os.mkdir(inbox)
    shutil.copy(files[0], inbox)
    data = open(files[1], "rb").read()
    growing = os.path.join(inbox, os.path.basename(files[1]))
    cuts = _cuts(files[1])
    with open(growing, "wb") as f:
        f.write(data[:cuts[0]])
    following = follow(inbox, spark, out=out, checkpoint=checkpoint, trigger_interval=0.2)
    try:
        following.query.processAllAvailable()
        assert state_of(out)["applied"]["position"] == cuts[0]
        # the next transactions whole, then the first bytes of the one after: the batch
        # stops at the boundary before it
        with open(growing, "ab") as f:
            f.write(data[cuts[0]:cuts[1] + 30])
        following.query.processAllAvailable()
        assert state_of(out)["applied"] == {**state_of(out)["applied"],
                                            "file": os.path.basename(growing),
                                            "position": cuts[1]}
        with open(growing, "ab") as f:
            f.write(data[cuts[1] + 30:])
        shutil.copy(files[2], inbox)
        following.query.processAllAvailable()
    finally:
        following.wait(until_idle=0)
    assert len([n for n in following.notes if n.applied]) >= 3
    assert following.problems == []
    assert_same_tables(out, whole[0])
    assert_same_state(state_of(out), whole[1])


def _follow_command(inbox, out, checkpoint, *options):
    argv = [sys.executable, "-m", "binlog_schema", "spark", "follow", inbox, "--out", out,
            "--checkpoint", checkpoint, "--master", "local[2]", *options]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _entries(checkpoint: str, log: str) -> set:
    d = os.path.join(checkpoint, log)
    return {int(n) for n in os.listdir(d) if n.isdigit()} if os.path.isdir(d) else set()


def _until(test, timeout: float, what: str, proc):
    t0 = time.monotonic()
    while not test():
        if proc.poll() is not None:
            pytest.fail(f"{what}: the command ended first ({proc.returncode}): "
                        f"{proc.stderr.read()[-3000:]}")
        if time.monotonic() - t0 > timeout:
            proc.kill()
            pytest.fail(f"{what}: not in {timeout}s")
        time.sleep(0.05)


def test_killed_mid_batch_and_restarted(spark, files, whole, tmp_path):
    """SIGKILL of the command's process (its driver) while a batch is applied, after one
    committed; started again (``--once``) on the same checkpoint: the tables are the batch
    run's (the keyless table's duplicates counted: nothing applied twice)."""
    inbox, out, checkpoint = (str(tmp_path / d) for d in ("in", "out", "checkpoint"))
    os.mkdir(inbox)
    shutil.copy(files[0], inbox)
    data = open(files[1], "rb").read()
    growing = os.path.join(inbox, os.path.basename(files[1]))
    cut = _cuts(files[1])[0]
    with open(growing, "wb") as f:
        f.write(data[:cut])
    proc = _follow_command(inbox, out, checkpoint, "--trigger-interval", "0.5")
    try:
        _until(lambda: 0 in _entries(checkpoint, "commits"), 300, "batch 0 committed", proc)
        with open(growing, "ab") as f:   # (the rest of the file: batch 1)
            f.write(data[cut:])
        _until(lambda: 1 in _entries(checkpoint, "offsets"), 120, "batch 1 started", proc)
        first = state_of(out)
        # in the middle of batch 1: its state not written yet (a batch takes seconds)
        _until(lambda: os.path.isdir(os.path.join(out, "_binlog_schema", "work")), 120,
               "batch 1 writing", proc)
        time.sleep(0.2)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(60)
    assert 1 not in _entries(checkpoint, "commits")
    assert state_of(out)["stream"]["batch"] == 0 == first["stream"]["batch"]
    shutil.copy(files[2], inbox)
    # started again (in this process): batch 1 again, whole, then what came since
    following = follow(inbox, spark, out=out, checkpoint=checkpoint, once=True)
    following.wait()
    assert following.notes[0].batch == 1 and all(n.applied for n in following.notes)
    assert following.problems == []
    assert_same_tables(out, whole[0])
    assert_same_state(state_of(out), whole[1])


def test_sigterm_stops_the_command_after_its_batch(spark, files, tmp_path, capsys):
    """SIGTERM while the command follows (no --once, no --until-idle): the query stops after
    the batch being applied, the command prints its summary and exits 0 (in this process:
    the signal is sent to it once the first batch has committed)."""
    import threading
    from binlog_schema.cli import main
    inbox, out, checkpoint = (str(tmp_path / d) for d in ("in", "out", "checkpoint"))
    os.mkdir(inbox)
    shutil.copy(files[0], inbox)
    t0 = time.monotonic()

    def signal_when_committed():
        while 0 not in _entries(checkpoint, "commits") and time.monotonic() - t0 < 300:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)
    sender = threading.Thread(target=signal_when_committed, daemon=True)
    sender.start()
    assert main(["spark", "follow", inbox, "--out", out, "--checkpoint", checkpoint,
                 "--trigger-interval", "0.2", "--quiet"]) == 0
    sender.join(10)
    assert not spark.streams.active
    lines = capsys.readouterr().out.splitlines()
    assert [x.split()[0] for x in lines[1:3]] == ["shop.items", "shop.log"]
    assert lines[3].startswith(f"applied to {os.path.basename(files[0])} position ")
    assert state_of(out)["applied"]["position"] == os.path.getsize(files[0])

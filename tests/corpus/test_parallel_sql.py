"""``sql``, ``sql --flashback`` and ``decode --format maxwell`` by worker processes over the
corpus: the script (or the records), stderr and status are one process's, on every file cut
into small segments, with the default schema history, on damaged files, and through the
command."""

import os
import shutil
import subprocess
import sys

import pytest

from binlog_schema.changes.selection import Selection
from binlog_schema.output import parallel
from binlog_schema.output.sql_script import write_sql
from binlog_schema.output.write import Output

from .test_parallel import _damaged, _largest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the workers fork")


def _sql(paths, tmp_path, **options):
    from binlog_schema.changes.schema.building import history_for
    outp, errp = tmp_path / "out.sql", tmp_path / "err"
    with open(outp, "wb") as fo, open(errp, "w") as fe:
        status = write_sql([str(p) for p in paths], Output(fo), Selection(), err=fe,
                           schema=history_for([str(p) for p in paths]), **options)
    return status, outp.read_bytes(), errp.read_bytes()


def _both(paths, tmp_path, segment=20_000, flashback=False):
    return (_sql(paths, tmp_path, workers=1, flashback=flashback),
            _sql(paths, tmp_path, workers=3, min_size=0, segment=segment,
                 flashback=flashback))


def test_the_flashback_script_is_one_process_s(corpus, tmp_path):
    from binlog_schema.changes.backwards import index_files
    from binlog_schema.output.sql_script import flashback_parts
    from binlog_schema.format.errors import BinlogError
    cut = 0
    for path in corpus:
        want, got = _both([path], tmp_path, segment=2_000, flashback=True)
        assert got == want, path
        try:   # (the files indexed, whose inversion the workers share)
            cut += len(flashback_parts(index_files([str(path)], Selection()), 2_000)) > 1
        except BinlogError:
            pass
    assert cut >= 3


def test_the_flashback_file_is_one_process_s(corpus, tmp_path):
    from binlog_schema.changes.schema.building import history_for
    from binlog_schema.output.flashback_file import write_flashback

    def run(path, **options):
        target = tmp_path / "undo.bin"
        if target.exists():
            target.unlink()
        with open(tmp_path / "err", "w") as fe:
            status = write_flashback([str(path)], str(target), Selection(), err=fe,
                                     schema=history_for([str(path)]), **options)
        return (status, target.read_bytes() if target.exists() else None,
                (tmp_path / "err").read_bytes())

    written = 0
    for path in corpus:
        want = run(path, workers=1)
        assert run(path, workers=3, min_size=0, segment=2_000) == want, path
        written += want[1] is not None and len(want[1]) > 4_000
    assert written >= 3


def test_the_script_is_one_process_s(corpus, tmp_path):
    cut = refused = written = 0
    for path in corpus:
        want, got = _both([path], tmp_path)
        assert got == want, path
        cut += len(list(parallel.plan(str(path), 20_000, transactions=True))) > 1
        refused += want[0] == 1
        written += want[0] == 0 and want[1].count(b"COMMIT;") > 3
    assert cut >= 5 and refused >= 5 and written >= 2


def test_several_files_one_history(corpus, tmp_path):
    """Files in a row, each large one shared: the history carried from file to file."""
    paths = [p for p in corpus if p.parent.name == "folder"][:3] or _largest(corpus, 2)
    want, got = _both(paths, tmp_path)
    assert got == want


@pytest.mark.parametrize("how", ["crc", "size", "tail"])
def test_damaged_files_say_what_one_process_says(corpus, tmp_path, how):
    path = _damaged(corpus, tmp_path, how)
    want, got = _both([path], tmp_path, segment=30_000)
    assert want[0] == 1 and want[1] == b"" and want[2].count(b"\n") == 1
    assert got == want


@pytest.mark.parametrize("command", [["sql"], ["sql", "--flashback"], ["flashback"],
                                     ["decode", "--format", "maxwell"]])
def test_the_command_uses_workers_with_the_same_output(corpus, tmp_path, command):
    path = _largest(corpus, 1)[0]
    big = tmp_path / path.name
    shutil.copy(path, big)
    assert os.path.getsize(big) >= parallel.MIN_SIZE
    runs = {}
    for n in ("1", "3"):
        env = dict(os.environ, BINLOG_SCHEMA_WORKERS=n)
        args = ["-o", str(tmp_path / f"undo-{n}.bin")] if command == ["flashback"] else []
        runs[n] = subprocess.run([sys.executable, "-m", "binlog_schema", *command, *args,
                                  str(big)], capture_output=True, env=env, timeout=300)
    assert runs["1"].returncode == runs["3"].returncode
    if command == ["flashback"]:
        assert (tmp_path / "undo-1.bin").read_bytes() == (tmp_path / "undo-3.bin").read_bytes()
        assert runs["1"].stderr == runs["3"].stderr.replace(b"undo-3", b"undo-1")
        return
    assert runs["1"].stdout == runs["3"].stdout and runs["1"].stdout
    assert runs["1"].stderr == runs["3"].stderr

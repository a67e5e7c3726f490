"""Files decoded by several processes write what one process writes, byte for byte: the
same lines, the same messages, the same status, on every corpus file cut into small segments,
in each format, and on damaged files; a reader that leaves or a worker that fails stops the
others without a hang."""

import io
import os
import shutil

import pytest

from binlog_schema.output import parallel
from binlog_schema.output.write import Output
from ..decode_both import sequential, shared




def _largest(corpus, n):
    return sorted(corpus, key=lambda p: -p.stat().st_size)[:n]


def test_several_segments_are_planned_at_transaction_starts(corpus):
    path = _largest(corpus, 1)[0]
    segments = list(parallel.plan(str(path), 50_000))
    assert len(segments) > 5
    assert segments[0][0] is None and segments[-1][1] is None
    for (_, stop, _), (start, _, _) in zip(segments, segments[1:]):
        assert stop == start
    data = path.read_bytes()
    from binlog_schema.format.facts.codes import GTID_KINDS, STATEMENT_KINDS
    assert all(data[start + 4] in GTID_KINDS | STATEMENT_KINDS for start, _, _ in segments[1:])


@pytest.mark.parametrize("options", [
    dict(fmt="jsonl"), dict(fmt="jsonl", rows=True), dict(fmt="text", rows=True),
    dict(fmt="jsonl", rows=True, binary="base64")])
def test_the_output_is_the_sequential_output(corpus, tmp_path, options):
    files = _largest(corpus, 12) if options != dict(fmt="jsonl") else corpus
    cut = 0
    for path in files:
        want = sequential(path, **options)
        got = shared(path, tmp_path, **options)
        assert got == want, path
        cut += len(list(parallel.plan(str(path), 20_000))) > 1
    assert cut >= 5  # (the larger files were really cut)


def _damaged(corpus, tmp_path, how):
    src = _largest(corpus, 1)[0]
    data = bytearray(src.read_bytes())
    segs = [s for s, _, _ in parallel.plan(str(src), 50_000)][1:]
    at = segs[len(segs) // 2] + 5_000  # inside a middle segment
    # find an event start near there by walking the sizes from a segment start
    pos = segs[len(segs) // 2]
    while pos < at:
        pos += int.from_bytes(data[pos + 9:pos + 13], "little")
    if how == "crc":
        data[pos + 20] ^= 0xFF
    elif how == "size":
        data[pos + 9:pos + 13] = (7).to_bytes(4, "little")
    elif how == "tail":
        del data[pos + 30:]
    path = tmp_path / f"damaged-{how}.bin"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("how", ["crc", "size", "tail"])
def test_damaged_files_say_what_one_process_says(corpus, tmp_path, how):
    path = _damaged(corpus, tmp_path, how)
    for options in (dict(fmt="jsonl"), dict(fmt="jsonl", rows=True), dict(fmt="text")):
        want = sequential(path, **options)
        got = shared(path, tmp_path, segment=30_000, **options)
        assert got == want
        assert want[0] == 1 and want[2].count(b"\n") == 1  # (stopped, and said where)
    # with skip_errors, one process gives the file's one account
    assert parallel.write_file(str(path), Output(io.StringIO()), workers=2, min_size=0,
                               fmt="jsonl", skip_errors=True) is None


def test_a_reader_that_leaves_stops_every_worker(corpus, tmp_path):
    path = _largest(corpus, 1)[0]
    r, w = os.pipe()
    os.close(r)  # nobody reads: every write fails (EPIPE)
    errp = tmp_path / "err"
    with open(errp, "wb") as fe:
        status = parallel.write_file(str(path), Output(io.StringIO()), workers=3, min_size=0,
                                     segment=20_000, fds=(w, fe.fileno()), fmt="jsonl")
    os.close(w)
    assert status == 0  # (as the command does on a broken pipe)
    assert errp.read_bytes() == b""


def test_a_failing_worker_is_reported_and_stops_the_others(corpus, tmp_path, monkeypatch):
    path = _largest(corpus, 1)[0]
    real = parallel.write_events

    def failing(p, out, **kw):
        if (kw.get("resume") or (0,))[0] == list(parallel.plan(str(path), 20_000))[3][0]:
            raise RuntimeError("boom")
        return real(p, out, **kw)

    monkeypatch.setattr(parallel, "write_events", failing)
    status, out, err = shared(path, tmp_path, fmt="jsonl")
    assert status == 1
    assert b"a decoding worker failed" in err and b"boom" in err
    seq = sequential(path, fmt="jsonl")[1]
    assert seq.startswith(out) and len(out) < len(seq)  # (the segments before it, then none)


def test_small_files_and_single_cores_are_left_to_the_caller(corpus, tmp_path, monkeypatch):
    path = _largest(corpus, 1)[0]
    out = Output(io.StringIO())
    assert parallel.write_file(str(path), out, workers=1, fmt="jsonl") is None
    assert parallel.write_file(str(path), out, workers=2, min_size=1 << 40,
                               fmt="jsonl") is None
    monkeypatch.setenv("BINLOG_SCHEMA_WORKERS", "3")
    assert parallel.worker_count() == 3
    monkeypatch.setenv("BINLOG_SCHEMA_WORKERS", "x")
    assert parallel.worker_count() == 1
    monkeypatch.delenv("BINLOG_SCHEMA_WORKERS")
    assert 1 <= parallel.worker_count() <= 4


def test_the_command_decodes_a_large_file_with_workers(corpus, tmp_path):
    """End to end: the command's output with workers is the output without."""
    import subprocess
    import sys
    path = _largest(corpus, 1)[0]
    big = tmp_path / "big.bin"
    shutil.copy(path, big)
    runs = {}
    for n in ("1", "2"):
        env = dict(os.environ, BINLOG_SCHEMA_WORKERS=n)
        runs[n] = subprocess.run([sys.executable, "-m", "binlog_schema", "decode", "--rows",
                                  str(big)], capture_output=True, env=env, timeout=300)
    assert runs["1"].returncode == runs["2"].returncode == 0
    assert runs["1"].stdout == runs["2"].stdout and runs["1"].stdout


def _history(path, seed=None):
    from binlog_schema.changes.schema.building import history_for
    return history_for([str(path)], text=seed)


def test_with_the_schema_history_the_output_is_the_sequential_output(corpus, tmp_path):
    """The default schema history (the files' DDL replayed from nothing) names the rows of
    MINIMAL table maps whose CREATE TABLE is in the file, in every segment as in one
    process; a disagreement (a seeded schema that a table map contradicts) is said once,
    where one process says it, with the same summary line and status; the history is left
    at the file's end."""
    named = 0
    for path in _largest(corpus, 6):
        for options in (dict(fmt="jsonl", rows=True), dict(fmt="text", rows=True)):
            seq_history, par_history = _history(path), _history(path)
            want = sequential(path, schema=seq_history, **options)
            got = shared(path, tmp_path, schema=par_history, **options)
            assert got == want, path
            assert sorted(par_history.tables) == sorted(seq_history.tables), path
            named += b"table map shapes named" in want[2]
    assert named >= 2
    # a seeded table that the file's table maps contradict (the file's CREATE TABLE IF NOT
    # EXISTS leaves it as it is)
    path = next(p for p in _largest(corpus, 6) if p.name == "binlog.000693")
    history = _history(path)
    from binlog_schema.changes.row_change import RowDecoder
    from binlog_schema.format.stream import BinlogReader
    decoder = RowDecoder(str(path), schema=history)
    for rec in BinlogReader(str(path)):
        decoder.feed(rec)
    mapped = {(tm.database, tm.table) for tm in decoder.table_maps.values()}
    table = next(t for t in history.tables.values() if "varchar(128)" in t.statement
                 and (t.database, t.name) in mapped)
    wrong = table.statement.replace("varchar(128)", "varchar(129)", 1)
    seed = f"CREATE DATABASE IF NOT EXISTS `{table.database}`; USE `{table.database}`; {wrong};"
    want = sequential(path, fmt="jsonl", rows=True, schema=_history(path, seed))
    got = shared(path, tmp_path, fmt="jsonl", rows=True, schema=_history(path, seed))
    assert want[0] == 3 and b"disagrees with the schema history" in want[2]
    assert got == want


def test_an_output_in_memory_is_written_by_one_process(corpus, capsys, monkeypatch):
    """decode called in-process with stdout a stream in memory (a caller's, a test's): the
    workers write to file descriptors, which would miss it; the file is decoded by the
    calling process, into that stream, as with one worker."""
    from binlog_schema import cli
    path = _largest(corpus, 1)[0]
    assert parallel.write_file(str(path), Output(io.StringIO()), workers=2, min_size=0,
                               fmt="text") is None
    got = {}
    for workers in ("1", "2"):
        monkeypatch.setenv("BINLOG_SCHEMA_WORKERS", workers)
        assert cli.main(["decode", "--format", "text", str(path)]) == 0
        got[workers] = capsys.readouterr().out
    assert got["2"] == got["1"] and got["1"].startswith("# at 4\n")

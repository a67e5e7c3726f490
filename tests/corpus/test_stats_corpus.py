"""``binlog-schema stats`` against an independent count: decode's JSON Lines (``--rows``)
summed by the test (tests/stats_count.py), on every corpus file that decodes cleanly, the
files together, and on damaged copies read with recovery."""

import json
import subprocess
import sys

from binlog_schema.output.stats_read import read_stats
from binlog_schema.output.statuses import CLEAN, DAMAGED, STOPPED

from tests.stats_count import count, decoded_lines, of_stats


def _stats(paths, **kw):
    stats, status = read_stats([str(p) for p in paths], top=5, max_event_size=16 << 20,
                               err=sys.stderr, **kw)
    return stats.to_dict(), status


def test_the_figures_of_every_clean_corpus_file_equal_decodes_json_summed(corpus):
    clean = []
    for path in corpus:
        lines, status = decoded_lines(path)
        if status != CLEAN:
            continue
        clean.append((path, lines))
        d, st = _stats([path])
        assert st == CLEAN, path
        assert of_stats(d) == count([(path, lines)]), path
        assert d["transactions"]["changes"] == d["changes"]["total"], path
    assert len(clean) >= 60
    assert sum(sum(t[k] for k in ("inserts", "updates", "deletes"))
               for t in count(clean)["tables"].values()) > 1000
    # the files together: one document, the counts of each added
    d, st = _stats([p for p, _ in clean])
    assert st == CLEAN
    assert of_stats(d) == count(clean)


def test_damaged_files_count_what_can_be_read(corpus, tmp_path):
    """A file cut short and one with bytes overwritten in its middle: status 3, the ranges
    skipped and the events not decoded listed, the rest counted as decode --skip-errors
    reads it."""
    path = max(corpus, key=lambda p: p.stat().st_size)
    data = bytearray(path.read_bytes())
    cut = tmp_path / "cut.000001"
    cut.write_bytes(data[:len(data) * 2 // 3])
    hit = tmp_path / "hit.000001"
    middle = len(data) // 2
    data[middle:middle + 40] = b"\xa5" * 40
    hit.write_bytes(bytes(data))
    for damaged in (cut, hit):
        lines, status = decoded_lines(damaged, skip_errors=True)
        assert status == DAMAGED
        d, st = _stats([damaged])
        assert st == DAMAGED
        assert d["skipped"] or d["undecodable"]
        assert of_stats(d) == count([(damaged, lines)]), damaged


def test_the_command_says_each_problem_on_stderr_and_in_its_json(corpus, tmp_path):
    path = max(corpus, key=lambda p: p.stat().st_size)
    data = path.read_bytes()
    cut = tmp_path / "cut.000001"
    cut.write_bytes(data[:len(data) // 2 + 7])
    r = subprocess.run([sys.executable, "-m", "binlog_schema", "stats", "--format", "json",
                        str(cut)], capture_output=True, text=True)
    assert r.returncode == DAMAGED
    d = json.loads(r.stdout)
    assert len(d["skipped"]) == 1
    s = d["skipped"][0]
    assert f"{cut}: skipped bytes {s['start']} to {s['end']}" in r.stderr
    assert s["end"] == len(data) // 2 + 7


def test_every_corpus_file_has_decodes_status_and_figures(corpus):
    """Every corpus file: stats' status is decode's (0 clean; 3 damaged, with recovery), and
    the command says each problem of a damaged one on stderr and counts what decode
    --skip-errors reads (an event whose body does not decode, a QUERY among them, is one of
    them: not counted as read)."""
    damaged = 0
    for path in corpus:
        if decoded_lines(path)[1] == CLEAN:
            assert _stats([path])[1] == CLEAN, path
            continue
        lines, status = decoded_lines(path, skip_errors=True)
        assert status == DAMAGED, path
        r = subprocess.run([sys.executable, "-m", "binlog_schema", "stats", "--format", "json",
                            str(path)], capture_output=True, text=True)
        assert r.returncode == DAMAGED, (path, r.returncode, r.stderr[-2000:])
        assert "Traceback" not in r.stderr, r.stderr[-2000:]
        damaged += 1
        d = json.loads(r.stdout)
        assert d["skipped"] or d["undecodable"], path
        assert len(r.stderr.splitlines()) == len(d["skipped"]) + len(d["undecodable"]) + 1
        assert of_stats(d) == count([(path, lines)]), path
    assert damaged >= 3


def test_a_file_read_through_an_opener_counts_as_by_its_path(corpus, tmp_path):
    """file_stats(opener=...) (how a Spark task reads a file of a remote filesystem): the
    figures, status and lines of the file read by its path, for a clean file, a damaged one
    and one that is no binlog."""
    from binlog_schema.output.stats_read import file_stats
    path = max(corpus, key=lambda p: p.stat().st_size)
    cut = tmp_path / "cut.000001"
    cut.write_bytes(path.read_bytes()[:path.stat().st_size // 2 + 7])
    text = tmp_path / "notes.000001"
    text.write_text("not a binlog\n")
    for p, status in ((path, CLEAN), (cut, DAMAGED), (text, STOPPED)):
        by_path = file_stats(str(p), top=5, max_event_size=1 << 20, workers=1)
        opened = file_stats(str(p), top=5, max_event_size=1 << 20,
                            opener=lambda p=p: open(p, "rb"))
        assert opened[1:] == by_path[1:] and by_path[1] == status, p
        assert (opened[0] and opened[0].to_dict()) == (by_path[0] and by_path[0].to_dict())


def test_worker_processes_give_the_figures_of_one_process(corpus, monkeypatch):
    """The files together, each large one counted by two worker processes or by this one
    alone: one document. (Ties among the longest transactions go to the first file: a
    worker counting a later file as the first named its transactions instead.)"""
    alone = {}
    for workers in ("1", "2"):
        monkeypatch.setenv("BINLOG_SCHEMA_WORKERS", workers)
        alone[workers] = _stats(corpus)
    assert alone["2"] == alone["1"]
    longest = alone["1"][0]["transactions"]["longest"]
    assert len({t["duration"] for t in longest}) < len(longest)   # (ties were broken)

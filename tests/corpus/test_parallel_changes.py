"""The change-record formats (``decode --format maxwell|debezium``) written by worker
processes write what one process writes, byte for byte (lines, stderr, status): on every
corpus file cut into small segments, with the default schema history and a given one, and on
damaged files. The segments hold whole transactions (a change record carries its
transaction: XID, ``"commit": true`` on its last row, the transaction's counters): the checks
are shown to see a cut inside a transaction and a wrong order of segments."""

import os

import pytest

from binlog_schema.output import parallel
from ..decode_both import sequential, shared

from .test_parallel import _damaged, _largest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the workers fork")

FORMATS = ("maxwell", "debezium")


def _history(path, seed=None):
    from binlog_schema.changes.schema.building import history_for
    return history_for([str(path)], text=seed)




def _both(path, tmp_path, seed=None, **options):
    """(one process's, the workers') output, each with a history of its own."""
    return (sequential(path, schema=_history(path, seed), **options),
            shared(path, tmp_path, schema=_history(path, seed), **options))


def test_segments_of_whole_transactions(corpus):
    """Without GTIDs a statement cuts only where no transaction is open: a segment never
    starts at a COMMIT or inside BEGIN ... COMMIT (the plain plan does cut there)."""
    from binlog_schema.changes.transactions import Boundary
    from binlog_schema.format.stream import BinlogReader
    checked = 0
    for path in corpus:
        starts = {s for s, _, _ in parallel.plan(str(path), 1, transactions=True)} - {None}
        if len(starts) < 2:
            continue
        boundary = Boundary()
        for rec in BinlogReader(str(path), decode="lazy"):
            if rec.offset in starts:
                assert not boundary.open or rec.raw[4] in (
                    parallel.GTID_KINDS), (path, rec.offset)
                checked += 1
            boundary.feed(rec)
    assert checked > 100


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_change_records_are_one_process_s(corpus, tmp_path, fmt):
    cut = 0
    for path in corpus:
        want, got = _both(path, tmp_path, fmt=fmt)
        assert got == want, path
        cut += len(list(parallel.plan(str(path), 20_000, transactions=True))) > 1
    assert cut >= 5   # (files really cut)


@pytest.mark.parametrize("fmt", FORMATS)
def test_with_a_given_schema_the_change_records_are_one_process_s(corpus, tmp_path, fmt):
    """A given schema (seeded): each record's ``schema_id`` and the keys the history names,
    in every segment as in one process."""
    versions = 0
    for path in _largest(corpus, 8):
        want, got = _both(path, tmp_path, seed="CREATE DATABASE IF NOT EXISTS seeded;",
                          fmt=fmt)
        assert got == want, path
        versions += b'"schema_id"' in want[1]
    assert fmt == "debezium" or versions >= 2


@pytest.mark.parametrize("how", ["crc", "size", "tail"])
def test_damaged_files_say_what_one_process_says(corpus, tmp_path, how):
    path = _damaged(corpus, tmp_path, how)
    for fmt in FORMATS:
        want, got = _both(path, tmp_path, fmt=fmt)
        assert got == want
        assert want[0] == 1 and want[1]   # (records before the damage, then stopped)


def test_the_check_sees_a_wrong_cut_and_a_wrong_order(corpus, tmp_path, monkeypatch):
    """The comparison above fails when a segment starts inside a transaction (the plain
    plan's statement cuts) and when segments are written out of order."""
    plain = parallel.plan
    files = [p for p in corpus if p.name in ("update-full-row.binlog", "write-full-row.binlog")]
    files.append(_largest(corpus, 1)[0])
    monkeypatch.setattr(parallel, "plan", lambda path, target, transactions=False:
                        plain(path, target))
    assert any(_both(p, tmp_path, fmt="maxwell")[0] != _both(p, tmp_path, fmt="maxwell")[1]
               for p in files)

    def reversed_plan(path, target, transactions=False):
        segments = list(plain(path, target, transactions))
        return segments[:1] + segments[1:][::-1]

    monkeypatch.setattr(parallel, "plan", reversed_plan)
    want, got = _both(files[-1], tmp_path, fmt="debezium")
    assert got[1] != want[1] and sorted(got[1].split(b"\n")) == sorted(want[1].split(b"\n"))

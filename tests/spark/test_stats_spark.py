"""``binlog-schema spark stats``: the document of ``binlog-schema stats --format json`` on the
same files, byte for byte, counted split by split on Spark.

The task-level tests run without Spark: the job's own functions (the pre-scan's splits, each
counted by :func:`count_split`, files counted whole by :func:`count_whole` where a split
cannot vouch for its count, merged by :func:`merge_counts`) against the single-process
``read_stats``, on every corpus file in splits of 2 KiB, on the damaged files of
tests/damage.py in splits of 300 bytes, and on two files made so that merging the splits'
counts as they are would count a transaction twice: damage between a GTID event and its
BEGIN (after damage the pre-scan cuts at the BEGIN; the whole reading takes it as the GTID's),
and a BEGIN whose transaction holds nothing and never ends (the whole reading drops it when
the next BEGIN opens; a split that ends with it open would count it).

The others run the command in this process (``binlog_schema.cli.main``, one Spark session for
the module) and compare its standard output with ``binlog-schema stats`` run as a process on
the files the inputs name, in the same order: the corpus folder (clean files, damaged ones,
files that are no binlogs) at split sizes of 2 KiB and the default, a server's folder of
several binlogs (index, companions: listed on stderr, not read) at three split sizes, the
damaged files of this module; its exit statuses (0, 1, 3, with each problem on stderr; never
a traceback) and its ``--html`` page (the CLI's, byte for byte).
"""

import io
import json
import os
import shutil
import subprocess
import sys

import pytest

from binlog_schema.format.facts.codes import GTID_KINDS, QUERY_EVENT, TABLE_MAP_EVENT, XID_EVENT
from binlog_schema.changes.stats import Stats
from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.pipeline.jobs import stats as stats_job
from binlog_schema.pipeline.tasks.prescan import prescan
from binlog_schema.pipeline.tasks.reading import split_records
from binlog_schema.pipeline.tasks.split_context import file_context
from binlog_schema.pipeline.fsio import open_input
from binlog_schema.pipeline.driver.plan import arrange
from binlog_schema.output.stats_read import read_stats
from binlog_schema.output.statuses import CLEAN, DAMAGED, STOPPED
from binlog_schema.format.stream import BinlogReader

from .. import damage
from ..conftest import CORPUS, ROOT, unavailable
from .pipeline_support import spark_missing, write_shop

TOP, MAX_EVENT = 10, 16 << 20


def _want(paths):
    """The single-process figures of ``paths`` (a dict) and status."""
    stats, status = read_stats([str(p) for p in paths], top=TOP, max_event_size=MAX_EVENT,
                               err=io.StringIO())
    return stats.to_dict(), status


def _in_splits(path, split_bytes, merge_as_is=False):
    """The figures of one file as the job counts them, without Spark (``merge_as_is``: the
    splits' counts merged even where the job counts the file whole); and whether it was
    counted whole, and in how many splits."""
    path = str(path)
    size = os.path.getsize(path)
    splits = prescan(path, size, split_bytes)
    if merge_as_is:
        total = Stats(TOP, MAX_EVENT)
        for s in splits:
            part = Stats(TOP, MAX_EVENT)
            with open_input(path) as f:
                ctx = file_context(f) if s.start else None
                part.count(split_records(f, s, ctx), path, RowDecoder(path))
            total.merge(part)
        total.set_file_size(path, size)
        return total.to_dict(), len(splits)
    parts = [(0, s.index, stats_job.count_split(s, 0, s.index == len(splits) - 1, TOP,
                                                MAX_EVENT)) for s in splits]
    counted = {}
    if any(p is None for _, _, p in parts):
        counted[0] = stats_job.count_whole(path, 0, TOP, MAX_EVENT)
    run = stats_job.merge_counts(arrange([path], [(path, size)], [], None), parts, counted,
                                 TOP, MAX_EVENT)
    return run.stats.to_dict(), bool(counted), len(splits)


def gtid_garbage_begin(corpus_dir, out_dir):
    """Copies of a MySQL 5.7 file (ANONYMOUS_GTID, BEGIN, ..., XID) with 50 bytes of garbage
    between a GTID event and its BEGIN: paths."""
    src = corpus_dir / "canal/binlog/tsdb/mysql-bin.000003"
    data = src.read_bytes()
    recs = list(BinlogReader(str(src), decode="lazy"))
    out = []
    for k, r in enumerate(recs[:-1]):
        if r.kind in GTID_KINDS and recs[k + 1].kind == QUERY_EVENT and k > 10:
            at = recs[k + 1].offset
            p = out_dir / f"gtid-garbage-begin-{at}.000003"
            p.write_bytes(data[:at] + bytes(range(7, 57)) + data[at:])
            out.append(p)
    return out


def lone_begins(corpus_dir, out_dir):
    """Copies of a MySQL 5.1 file (no GTIDs, no checksums) where one transaction's events
    after its BEGIN are taken out, its TABLE_MAP to its XID (a file that reads clean: a BEGIN
    that never ends): paths."""
    src = corpus_dir / "canal/binlog/mysql-bin.000001"
    data = src.read_bytes()
    recs = list(BinlogReader(str(src), decode="lazy"))
    out = []
    for k, r in enumerate(recs[:-4]):
        if r.kind == QUERY_EVENT and r.value["body"]["query"] == "BEGIN" and \
                recs[k + 1].kind == TABLE_MAP_EVENT and recs[k + 3].kind == XID_EVENT:
            a, b = recs[k + 1].offset, recs[k + 4].offset
            p = out_dir / f"lone-begin-{r.offset}.000001"
            p.write_bytes(data[:a] + data[b:])
            out.append(p)
    return out


# ---------------------------------------------------------------------------------------
# the tasks, without Spark


def test_every_corpus_file_in_splits_is_counted_as_stats_counts_it(corpus):
    split = 0
    for path in corpus:
        got, whole, n = _in_splits(path, 2048)
        assert got == _want([path])[0], path
        split += not whole and n > 1
    assert split >= 15


def test_damaged_files_in_splits_are_counted_as_stats_counts_them(corpus, tmp_path):
    originals = damage.load_originals(corpus)
    n = 0
    for key, d in damage.suite(originals):
        path = tmp_path / f"{key}-{d.name}"
        path.write_bytes(d.data)
        want, status = _want([path])
        got, whole, _ = _in_splits(path, 300)
        assert got == want, path.name
        assert whole == (status != CLEAN), path.name
        n += 1
    assert n > 30


@pytest.mark.parametrize("make", [gtid_garbage_begin, lone_begins])
def test_where_split_counts_would_differ_the_file_is_counted_whole(corpus, tmp_path, make):
    """Files where the splits' counts merged as they are differ from the whole file's (a
    transaction counted twice): the job's counts are the whole file's."""
    differ = 0
    for path in make(CORPUS, tmp_path)[::6]:
        want, _ = _want([path])
        for split_bytes in (300, 2048):
            got = _in_splits(path, split_bytes)[0]
            assert got == want, (path.name, split_bytes)
            as_is, _ = _in_splits(path, split_bytes, merge_as_is=True)
            if as_is != want:
                differ += 1
                assert as_is["transactions"]["count"] == want["transactions"]["count"] + 1
    assert differ >= 2


# ---------------------------------------------------------------------------------------
# the command, on Spark


@pytest.fixture(scope="module")
def spark():
    missing = spark_missing()
    if missing:
        unavailable(f"Spark tier not run: {missing}")
    from binlog_schema.pipeline.driver.session import start_session
    s = start_session("local[2]", {"spark.sql.shuffle.partitions": "2"})
    yield s
    s.stop()


def _spark_stats(capfd, *argv):
    """(status, stdout, stderr) of ``binlog-schema spark stats ARGV`` in this process."""
    from binlog_schema.cli import main
    capfd.readouterr()
    rc = main(["spark", "stats", "--quiet", *map(str, argv)])
    out, err = capfd.readouterr()
    assert isinstance(rc, int), (rc, err[-2000:])
    assert "Traceback" not in err and "Traceback" not in out, err[-3000:]
    return rc, out, err


def _cli_stats(paths, *argv):
    """(status, stdout, stderr) of ``binlog-schema stats ARGV PATHS``, a process."""
    r = subprocess.run([sys.executable, "-m", "binlog_schema", "stats", *map(str, argv),
                        *map(str, paths)], capture_output=True, text=True, cwd=ROOT)
    return r.returncode, r.stdout, r.stderr


def _problems(err):
    """The stderr lines that say a file's problem (not Spark's own)."""
    return [x for x in err.splitlines() if x.startswith("/")]


def _named(folder):
    """The files under ``folder`` in name order, as the job lists them (hidden names left
    out)."""
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs
                  if not f.startswith((".", "_")))


def test_the_corpus_folder_gives_the_documents_of_stats(spark, corpus, capfd):
    root = os.path.abspath(CORPUS)
    want = _cli_stats(_named(root), "--format", "json")
    assert want[0] == STOPPED   # (PROVENANCE.md and INVENTORY.txt are no binlogs)
    damaged = [x for x in _problems(want[2]) if "counted what could be read" in x]
    assert len(damaged) >= 3
    for split in ("2k", "8m"):
        rc, out, err = _spark_stats(capfd, "--format", "json", "--split-size", split, root)
        assert (rc, out) == want[:2], split
        assert _problems(err) == _problems(want[2]), split
    d = json.loads(out)
    assert len(d["files"]) > 70 and d["changes"]["total"] > 1000


def test_a_server_folder_gives_the_documents_of_stats(spark, corpus, capfd, tmp_path):
    """Four MariaDB binlogs with their index and companions, a synthetic file whose splits
    need table maps from before them (counted whole) and the damaged files of this module:
    the table, the JSON and the page of stats, at three split sizes; the companions listed
    on stderr, not read; the damaged files said, status 3."""
    folder = tmp_path / "server"
    folder.mkdir()
    for name in os.listdir(CORPUS / "mariadb-poc" / "domain_id_0"):
        shutil.copyfile(CORPUS / "mariadb-poc" / "domain_id_0" / name, folder / name)
    (folder / "mariadb-repl-bin.index").write_text(
        "".join(f"./{n}\n" for n in sorted(os.listdir(folder))))
    (folder / "mariadb-repl-bin.state").write_text("0-10-87\n")
    write_shop(folder / "shop-bin.000001", seed=3, transactions=120, table_maps="once")
    clean = [str(p) for p in _named(folder) if "-bin." in p and not p.endswith(
        (".index", ".state"))]
    rc, out, err = _spark_stats(capfd, "--format", "json", str(folder))
    assert rc == CLEAN, err[-3000:]
    companions = [x for x in err.splitlines() if x.startswith("companion")]
    assert len(companions) == 2, err[-3000:]
    assert out == _cli_stats(clean, "--format", "json")[1]
    made = gtid_garbage_begin(CORPUS, folder)[:2] + lone_begins(CORPUS, folder)[:2]
    files = [str(p) for p in _named(folder) if not p.endswith((".index", ".state"))]
    want = {fmt: _cli_stats(files, "--format", fmt) for fmt in ("json", "table")}
    assert want["json"][0] == DAMAGED
    for split, fmt in (("300", "json"), ("64k", "table")):
        got = _spark_stats(capfd, "--format", fmt, "--split-size", split, str(folder))
        assert got[:2] == want[fmt][:2], (split, fmt)
        assert _problems(got[2]) == _problems(want[fmt][2])
        assert all(str(p) in got[2] for p in made[:2])   # (the damaged ones, said)
    page, cli_page = tmp_path / "spark.html", tmp_path / "cli.html"
    rc, out, err = _spark_stats(capfd, "--html", page, "--top", "3", "--max-event-size", "1k",
                                str(folder / "*.0*"))
    want = _cli_stats(files, "--html", cli_page, "--top", "3", "--max-event-size", "1k")
    assert (rc, out) == want[:2]
    assert page.read_bytes() == cli_page.read_bytes()
    assert f"wrote the report {page}" in err


def test_statuses(spark, tmp_path, capfd):
    """No input: 1 (said); a file that is no binlog beside a good one: 1, said in the words
    of stats; an index naming a file not there: 3."""
    rc, out, err = _spark_stats(capfd, str(tmp_path / "nothing-*.000001"))
    assert rc == STOPPED and out == "" and "no input file found" in err
    good = write_shop(tmp_path / "a" / "shop-bin.000001", seed=1, transactions=10)
    text = tmp_path / "a" / "notes.000002"
    text.write_text("not a binlog\n")
    rc, out, err = _spark_stats(capfd, "--format", "json", str(tmp_path / "a"))
    want = _cli_stats(_named(tmp_path / "a"), "--format", "json")
    assert want[0] == rc == STOPPED and out == want[1]
    assert _problems(err) == _problems(want[2]) and len(_problems(err)) == 1
    (tmp_path / "a" / "shop-bin.index").write_text("./shop-bin.000001\n./shop-bin.000009\n")
    os.remove(text)
    rc, out, err = _spark_stats(capfd, "--format", "json", str(tmp_path / "a"))
    assert rc == DAMAGED and out == _cli_stats([good], "--format", "json")[1]
    assert [x for x in err.splitlines() if "shop-bin.000009" in x]

"""The Spark pipeline on damaged files: every byte of every file accounted for, every event the
damage did not touch kept, split by split.

Damaged files are made from corpus files by the generators of tests/damage.py (event sizes
that lie, a zeroed block, garbage inserted, a CRC32 flip, a cut in the middle of an event,
two files concatenated, the FORMAT_DESCRIPTION removed), and more damage is put where the
pre-scan cuts a clean file (across a split boundary, a size that runs into the next split,
garbage just before a cut...). Each file is cut into small splits, and what the splits
give together must be what the single-process reader gives for the whole file
(``BinlogReader(path, skip_errors=True)``, with recovery): the same events at the same
offsets, the same quarantined events and skipped ranges (``errors`` rows with offset and
size), and the ranges of events and errors tile ``[4, size)`` with no gap and no overlap.

The task-level tests run without Spark; the others run the job in local mode (one session
for the module) and the ``spark decode`` command (its exit statuses: 3 damaged, 1 not
reconciled, 0 clean)."""

import os
import shutil
import subprocess
import sys

import pytest

from binlog_schema.format import scanning
from binlog_schema.pipeline.tasks.decode import decode_split
from binlog_schema.pipeline.tasks.prescan import prescan
from binlog_schema.format.stream import MAX_EVENT_SIZE, BinlogReader

from .. import damage
from ..conftest import unavailable
from .pipeline_support import reference_counts, reference_records, spark_missing
from .test_pipeline_tasks import decode_file

QUARANTINE = ("event", "skipped", "tail")   # the errors rows that stand for bytes
FIELDS = {  # the first fields of schema.EVENTS and schema.ERRORS (no pyspark needed here)
    "event": ("file", "offset", "in_payload_at", "timestamp", "type", "type_code",
              "server_id", "size"),
    "error": ("file", "offset", "in_payload_at", "stage", "kind", "path", "message",
              "expected", "type", "type_code", "size")}
CORRUPT_QUERY = "rust_mysql_common/corrupt-relay-bin.000624"


@pytest.fixture(scope="module")
def originals(corpus):
    return damage.load_originals(corpus)


def _tiles(ranges, size):
    """(offset, size) ranges, sorted, tile [4, size) exactly."""
    pos = 4
    for off, n in sorted(ranges):
        assert off == pos, (off, pos)
        pos += n
    assert pos == size


def _light(path, split_bytes):
    """Every split of a file decoded as a task does, without row changes (tuples: what this
    module looks at is framing and accounting), as :func:`decode_file` returns them."""
    splits = prescan(str(path), os.path.getsize(path), split_bytes)
    out = {"row": [], "event": [], "error": [], "stat": [], "table_map": []}
    for s in splits:
        for t in decode_split(s, rows=False):
            row = t[{"event": 2, "table_map": 3, "row": 4, "error": 5, "stat": 6}[t[0]]]
            if t[0] in FIELDS:
                row = dict(zip(FIELDS[t[0]], row))
            out[t[0]].append(row)
    return splits, out


def _check_tasks(path, split_bytes, ref=None, rows=True):
    """A file decoded split by split as the tasks do (``rows``: with row changes, into
    Arrow batches): the single-process account, the tiling, the bytes of the split
    statistics; returns the splits."""
    ref = ref or reference_records(str(path))
    size = os.path.getsize(path)
    if rows:
        pytest.importorskip("pyarrow")
        splits, out = decode_file(path, split_bytes)
    else:
        splits, out = _light(path, split_bytes)
    events = sorted((e["offset"], e["type"]) for e in out["event"] if e["in_payload_at"] is None)
    problems = sorted((e["offset"], e["size"]) for e in out["error"]
                      if e["stage"] in QUARANTINE and e["in_payload_at"] is None)
    where = (path.name, split_bytes, len(splits))
    assert events == ref["events"], where
    assert problems == sorted(ref["problems"]), where
    inner = sorted((e["in_payload_at"], e["offset"], e["type"]) for e in out["event"]
                   if e["in_payload_at"] is not None)
    assert inner == sorted(ref["inner"]), where
    assert not [e for e in out["error"] if e["stage"] not in QUARANTINE + ("rows",)], where
    sizes = {e["offset"]: e["size"] for e in out["event"] if e["in_payload_at"] is None}
    _tiles([(o, sizes[o]) for o, _ in events] + problems, size)
    decoded = sum(s[16] for s in out["stat"])
    skipped = sum(s[17] for s in out["stat"])
    assert decoded + skipped + 4 == size, where
    assert skipped == sum(n for _, n in problems)
    read, dec, quarantined, _ = reference_counts(str(path))
    assert sum(s[5] for s in out["stat"]) == read == dec + quarantined, where
    return splits


# ---------------------------------------------------------------------------------------
# the tasks, without Spark


def test_split_tasks_account_for_every_byte(originals, tmp_path):
    """Every damaged file of the suite, in splits of a few hundred bytes and of 4 KiB: the
    splits together give the whole-file reader's records, and tile the file."""
    many = 0
    for key, d in damage.suite(originals):
        path = tmp_path / f"{key}-{d.name}"
        path.write_bytes(d.data)
        ref = reference_records(str(path))
        for split_bytes in (300, 4096):
            many += len(_check_tasks(path, split_bytes, ref)) > 3
    assert many >= 30


def _boundary_damage(data, events, cut):
    """Damage at a split boundary ``cut`` of the clean file (where an event starts)."""
    prev = {o + len(r): o for o, r in events}[cut]   # the event that ends there
    size = cut - prev
    out = []
    b = bytearray(data)
    b[cut - 50:cut + 50] = bytes(100)
    out.append(("zeroed-across", bytes(b)))
    for lie in (size + 100, size + 3, size - 5, 7):   # into the next split, or short of it
        b = bytearray(data)
        b[prev + 9:prev + 13] = lie.to_bytes(4, "little")
        out.append((f"size-{lie}-before", bytes(b)))
    junk = bytes((i * 151 + 7) % 256 for i in range(200))
    out.append(("garbage-at", data[:cut] + junk + data[cut:]))
    out.append(("garbage-before", data[:cut - 7] + junk + data[cut - 7:]))
    b = bytearray(data)
    b[cut + 4] = 0xEE
    out.append(("bad-type-at", bytes(b)))
    b = bytearray(data)
    b[cut + 25] ^= 1
    out.append(("flip-at", bytes(b)))
    out.append(("ends-after", data[:cut + 5]))
    return out


@pytest.mark.parametrize("key", ["crc32", "none", "mariadb"])
def test_damage_at_split_boundaries(originals, tmp_path, key):
    """Damage where the pre-scan cuts the clean file: the damaged file's splits (cut
    elsewhere now, or at the same place) still give the whole-file reader's records; a
    skipped range is never counted by two splits."""
    data, events = originals[key]
    clean = tmp_path / "clean"
    clean.write_bytes(data)
    cuts = [s.start for s in prescan(str(clean), len(data), 1000)][1:]
    assert len(cuts) > 20
    for cut in cuts[::len(cuts) // 4][:4]:
        for name, bad in _boundary_damage(data, events, cut):
            path = tmp_path / f"{key}-{cut}-{name}"
            path.write_bytes(bad)
            ref = reference_records(str(path))
            for split_bytes in (300, 1000):
                _check_tasks(path, split_bytes, ref, rows=False)


def test_prescan_cuts_only_at_confirmed_events(originals, tmp_path):
    """On damaged files the pre-scan goes on past the damage, and every split starts where
    the whole-file reader has an event that is confirmed (its CRC32, its log position or the
    header after it)."""
    from binlog_schema.pipeline.tasks.split_context import _file_context
    passed = 0
    for key, d in damage.suite(originals, keys={"crc32", "none", "mariadb"}):
        path = tmp_path / f"{key}-{d.name}"
        path.write_bytes(d.data)
        splits = prescan(str(path), len(d.data), 1000)
        assert splits[0].start == 0 and splits[-1].end == len(d.data)
        assert all(a.end == b.start for a, b in zip(splits, splits[1:]))
        starts = {o for o, _ in reference_records(str(path))["events"]}
        with open(path, "rb") as f:
            ctx = _file_context(f)
            blocks = scanning.Blocks(f)
            for s in splits[1:]:
                assert s.start in starts, (path.name, s.start)
                assert scanning.event_at(blocks, s.start, len(d.data), ctx,
                                         MAX_EVENT_SIZE) is not None
        if d.name.startswith("concatenated"):   # (no cut in the second file: its context)
            assert splits[-1].start < d.at, path.name
        else:
            passed += d.at is not None and splits[-1].start > d.at   # cuts after the damage
    assert passed >= 12


@pytest.mark.parametrize("first,second", [("none", "crc32"), ("crc32", "mariadb"),
                                          ("v51", "none")])
def test_a_file_cut_and_another_appended(originals, tmp_path, first, second):
    """A file cut inside an event and another appended (a half-copied file, then the next):
    the pre-scan makes no cut after the second file's start, even where the cut event's size
    (or a log position) runs over it, and the splits give the whole-file reader's records."""
    a, events = originals[first]
    b, _ = originals[second]
    off, raw = events[len(events) * 2 // 3]
    data = a[:off + len(raw) // 2] + b
    path = tmp_path / "cut-and-appended"
    path.write_bytes(data)
    for split_bytes in (300, 1000):
        splits = _check_tasks(path, split_bytes, rows=False)
        assert splits[-1].start <= off


@pytest.mark.parametrize("key", ["v51", "none"])
def test_a_file_without_checksums_cut_then_one_with_them_without_its_magic(originals,
                                                                          tmp_path, key):
    """A file without checksums cut 20 bytes before an event ends, then a file with checksums
    from its FORMAT_DESCRIPTION on (no magic number): the cut event's size and log position
    say it ends inside that FORMAT_DESCRIPTION, whose CRC32 verifies. The pre-scan's
    confirmed events follow the reader's rule (no event no CRC32 proves over one a CRC32
    does): at every split size the splits give the whole-file reader's records."""
    first, first_events = originals[key]
    second, _ = originals["crc32"]
    o, raw = first_events[len(first_events) // 2]
    path = tmp_path / "cut-then-checksummed"
    path.write_bytes(first[:o + len(raw) - 20] + second[4:])
    for split_bytes in range(200, 2400, 100):
        _check_tasks(path, split_bytes, rows=False)


@pytest.fixture(scope="module")
def unchecked(corpus):
    return damage.load_originals(corpus, files=damage.UNCHECKED)


@pytest.mark.parametrize("key", list(damage.UNCHECKED))
def test_without_checksums_every_split_keeps_the_untouched_events(unchecked, tmp_path, key):
    """A MySQL 5.1/5.5 file without checksums with a rows event's size overwritten with a
    huge value, a zeroed block of 421 bytes, both with a cut tail (issue 26): at three split
    sizes, the pre-scan's cuts and each split's reading give the whole-file reader's records,
    and every event the damage did not touch is among them (the log positions prove where
    events start; before, hundreds were lost inside SKIPPED ranges, split by split too)."""
    data, events = unchecked[key]
    for d in damage.without_checksums(data, events, damage.UNCHECKED[key][1]):
        path = tmp_path / f"{key}-{d.name}"
        path.write_bytes(d.data)
        ref = reference_records(str(path))
        for split_bytes in (len(data) // 150, len(data) // 15, len(data) // 3):
            splits, out = _light(path, split_bytes)
            assert len(splits) > 1
            _check_tasks(path, split_bytes, ref, rows=False)
            found = {e["offset"] for e in out["event"] if e["in_payload_at"] is None}
            for off, raw in events:
                if not d.touched(off, len(raw)):
                    assert off in found, (d.name, split_bytes, off)


def test_no_format_description_is_one_skipped_range(originals, tmp_path):
    data, events = originals["crc32"]
    d = damage.without_format_description(data, events)
    path = tmp_path / "no-fde"
    path.write_bytes(d.data)
    splits, out = _light(path, 300)
    assert len(splits) == 1 and not out["event"]
    (e,) = out["error"]
    assert (e["offset"], e["size"], e["stage"], e["type"]) == (4, len(d.data) - 4, "skipped",
                                                               "SKIPPED")
    assert "FORMAT_DESCRIPTION" in e["message"]


def test_corrupt_query_is_quarantined(corpus):
    """The corpus's corrupt QUERY (MariaDB's own tool fails there) is an errors row with its
    offset and size, as the single-process commands flag it; its bytes count as skipped."""
    path = next(p for p in corpus if str(p).endswith(CORRUPT_QUERY))
    ref = reference_records(str(path))
    (bad,) = ref["problems"]
    splits, out = decode_file(path, 4096)
    (e,) = [e for e in out["error"] if e["stage"] == "event"]
    assert (e["offset"], e["size"], e["type"], e["kind"]) == (*bad, "QUERY_EVENT", "format")
    assert sum(s[17] for s in out["stat"]) == bad[1]
    assert bad[0] not in {x["offset"] for x in out["event"]}


def test_empty_and_foreign_files_are_refused(tmp_path):
    """An empty file and a file that is not a binlog: one ``file`` errors row each (no
    bytes accounted for: the job does not reconcile them)."""
    for name, data, message in (("empty", b"", "empty file"), ("short", b"\xfeb", "2 bytes"),
                                ("text", b"hello, world\n", "not a binlog"),
                                ("gzip", b"\x1f\x8b\x08\x00rest", "not a binlog")):
        path = tmp_path / name
        path.write_bytes(data)
        _, out = _light(path, 300)
        assert [(e["stage"], e["offset"]) for e in out["error"]] == [("file", 0)], name
        assert message in out["error"][0]["message"]
        assert not out["event"] and sum(s[16] + s[17] for s in out["stat"]) == 0


# ---------------------------------------------------------------------------------------
# on Spark


@pytest.fixture(scope="module")
def spark():
    missing = spark_missing()
    if missing:
        unavailable(f"Spark tier not run: {missing}")
    from binlog_schema.pipeline.driver.session import start_session
    s = start_session("local[2]", {"spark.sql.shuffle.partitions": "4"})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def folder(originals, corpus, tmp_path_factory):
    """The damaged suite in one folder, with the corpus's corrupt QUERY file; and, per file,
    the original it came from (for the untouched events)."""
    root = tmp_path_factory.mktemp("damaged")
    made = {}
    for i, (key, d) in enumerate(damage.suite(originals)):
        path = root / f"{i:02d}-{key}-{d.name}"
        path.write_bytes(d.data)
        made[str(path)] = (key, d)
    src = next(p for p in corpus if str(p).endswith(CORRUPT_QUERY))
    shutil.copy(src, root / "corrupt-relay-bin.000624")
    made[str(root / "corrupt-relay-bin.000624")] = (None, None)
    return root, made


def _spark_tables(tables):
    events = tables.events.select("file", "offset", "in_payload_at", "type", "size").collect()
    errors = tables.errors.select("file", "offset", "in_payload_at", "stage", "type",
                                  "size").collect()
    return events, errors


@pytest.mark.spark
def test_damaged_folder_reconciles_by_bytes(spark, folder, originals, tmp_path):
    """The folder through the job in splits of 2 KiB: every file reconciles by events and by
    bytes; its events are the whole-file reader's, its quarantined events and skipped ranges
    are errors rows with offset and size, the ranges tile the file; every event of the
    original that the damage did not touch is there, at its new offset, with its type."""
    from binlog_schema.pipeline.jobs.decode import decode
    from binlog_schema.pipeline.driver.report import DAMAGED, exit_status
    root, made = folder
    tables = decode([str(root)], spark, out=str(tmp_path / "t"), split_size="2k")
    files = {r["file"]: r for r in tables.files.collect()}
    assert set(files) == set(made)
    events, errors = _spark_tables(tables)
    by_file = {}
    for r in events:
        by_file.setdefault(r["file"], ([], []))[0].append(r)
    for r in errors:
        by_file.setdefault(r["file"], ([], []))[1].append(r)
    split_files = 0
    for name, (key, d) in made.items():
        f = files[name]
        size = os.path.getsize(name)
        assert f["reconciled"] and f["bytes"] == size, f
        assert f["bytes_decoded"] + f["bytes_skipped"] + 4 == size, f
        split_files += f["splits"] > 3
        ev, er = by_file.get(name, ([], []))
        ref = reference_records(name)
        top = sorted((r["offset"], r["type"]) for r in ev if r["in_payload_at"] is None)
        assert top == ref["events"], name
        problems = sorted((r["offset"], r["size"]) for r in er
                          if r["stage"] in QUARANTINE and r["in_payload_at"] is None)
        assert problems == sorted(ref["problems"]), name
        assert all(r["type"] == "SKIPPED" for r in er if r["stage"] in ("skipped", "tail"))
        assert f["bytes_skipped"] == sum(n for _, n in problems)
        sizes = {r["offset"]: r["size"] for r in ev if r["in_payload_at"] is None}
        _tiles([(o, sizes[o]) for o, _ in top] + problems, size)
        assert len(top) == len({o for o, _ in top})   # (no event twice)
        read, decoded, quarantined, _ = reference_counts(name)
        assert (f["events_read"], f["events_decoded"], f["events_quarantined"]) == (
            read, decoded, quarantined), name
        if d is not None:   # the original's untouched events, where the damage moved them
            data, orig_events = originals[key]
            types = {r.offset: r.type_name for r in BinlogReader(data, skip_errors=True)}
            kept = dict(top)
            for off, raw in orig_events:
                if not d.touched(off, len(raw)):
                    assert kept.get(d.moved(off)) == types[off], (name, off)
    assert split_files >= 25
    # the corrupt QUERY: quarantined, not an event
    relay = str(root / "corrupt-relay-bin.000624")
    assert [(r["stage"], r["type"]) for r in by_file[relay][1]] == [("event", "QUERY_EVENT")]
    # a file without its FORMAT_DESCRIPTION: one skipped range, accounted for
    for name, (_key, d) in made.items():
        if d is not None and d.name == "no-format-description":
            assert files[name]["reconciled"] and files[name]["events_decoded"] == 0
            assert [(r["offset"], r["size"]) for r in by_file[name][1]] == [
                (4, os.path.getsize(name) - 4)]
    assert exit_status(list(files.values())) == DAMAGED


@pytest.mark.spark
def test_damaged_folder_command(folder, tmp_path):
    """``binlog-schema spark decode`` on the damaged folder in its own process: exit status
    3 (damaged, every file reconciled), the bytes in the reconciliation line, no
    traceback."""
    root, made = folder
    env = dict(os.environ)
    env.pop("PYSPARK_PYTHON", None)
    r = subprocess.run([sys.executable, "-m", "binlog_schema", "spark", "decode", str(root),
                        "--out", str(tmp_path / "t"), "--split-size", "2k", "--quiet"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert "Traceback" not in r.stderr + r.stdout, r.stderr[-3000:]
    assert r.returncode == 3, (r.stdout[-2000:], r.stderr[-2000:])
    line = next(x for x in r.stdout.splitlines() if x.startswith("reconciliation:"))
    total = sum(os.path.getsize(p) for p in made)
    assert f"reconciliation: {len(made)} files," in line and ": OK;" in line
    assert f"bytes {total} = 4 x {len(made)} + decoded " in line
    assert "exit status 3" in r.stdout


@pytest.mark.spark
def test_exit_statuses(spark, folder, originals, tmp_path, capsys):
    """In this process (the running session): 0 for clean files, 3 for damaged ones that
    reconcile (here through the ``spark`` engine, whose files table Spark counts), 1 when a
    file does not reconcile (a file that is not a binlog)."""
    from binlog_schema.cli import main
    root, made = folder
    clean = tmp_path / "clean"
    clean.mkdir()
    for key in ("crc32", "none"):
        (clean / key).write_bytes(originals[key][0])
    assert main(["spark", "decode", str(clean), "--out", str(tmp_path / "a"), "--split-size",
                 "2k", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert ": OK;" in out and "exit status" not in out
    some = tmp_path / "some"
    some.mkdir()
    for name in list(made)[:6]:
        shutil.copy(name, some / os.path.basename(name))
    assert main(["spark", "decode", str(some), "--out", str(tmp_path / "b"), "--split-size",
                 "2k", "--engine", "spark", "--quiet"]) == 3
    out = capsys.readouterr().out
    assert ": OK;" in out and "exit status 3" in out
    (some / "notes.txt").write_text("not a binlog\n")
    assert main(["spark", "decode", str(some), "--out", str(tmp_path / "c"), "--split-size",
                 "2k", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH in 1 files" in out and "exit status 1" in out


@pytest.mark.spark
def test_spark_decode_without_checksums_keeps_the_untouched_events(spark, unchecked, tmp_path,
                                                                   capsys):
    """``spark decode`` (in this process's session) over the files without checksums damaged
    as issue 26 has it (a huge size, a zeroed block, both with a cut tail), at two split
    sizes: exit status 3, and every event the damage did not touch is in the events table
    at its offset."""
    from binlog_schema.cli import main
    folder = tmp_path / "in"
    folder.mkdir()
    made = {}
    for key, (data, events) in unchecked.items():
        for d in damage.without_checksums(data, events, damage.UNCHECKED[key][1]):
            path = folder / f"{key}-{d.name}"
            path.write_bytes(d.data)
            made[str(path)] = (d, events)
    for split in ("8k", "128k"):
        out = tmp_path / f"out-{split}"
        assert main(["spark", "decode", str(folder), "--out", str(out), "--split-size", split,
                     "--no-rows", "--quiet"]) == 3
        assert ": OK;" in capsys.readouterr().out
        found = {}
        for r in spark.read.parquet(str(out / "events")).select(
                "file", "offset", "in_payload_at").collect():
            if r["in_payload_at"] is None:
                found.setdefault(r["file"], set()).add(r["offset"])
        for name, (d, events) in made.items():
            for off, raw in events:
                if not d.touched(off, len(raw)):
                    assert off in found[name], (name, split, off)


@pytest.mark.parametrize("rel", ["mysql-5.1-facebookarchive/std_data/trunc_binlog.000001",
                                 "mysql-5.1-facebookarchive/std_data/bug47142_master-bin.000001"])
def test_a_start_event_v3_whose_size_is_not_its_formats(corpus, tmp_path, rel):
    """(Found by the split fuzz target.) A v3 file whose START_EVENT_V3 has 3 bytes more in
    its server version, its size 78 (its format's is 75), the event after it in place: the
    whole-file reader confirms no such event (then no context: the file is one SKIPPED
    range); the split reader took it for one, as the header after it is plausible. Every
    split now gives the whole-file reader's records."""
    data = next(p for p in corpus if str(p).endswith(rel)).read_bytes()
    bad = bytearray(data[:40] + b"-x-" + data[40:])
    bad[13:17] = (75 + 3).to_bytes(4, "little")
    path = tmp_path / "start-v3"
    path.write_bytes(bytes(bad))
    for split_bytes in (64, 300, 4096):
        _check_tasks(path, split_bytes, rows=False)

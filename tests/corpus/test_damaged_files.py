"""Damaged files, made from corpus files (the generators of tests/damage.py): every byte
accounted for, every untouched event kept, the damage told on stderr, the exit status right,
never a traceback.

Each case damages a real file (an event size that lies, a zeroed block, inserted garbage, a
CRC32 flip, a cut in the middle of an event, two files concatenated, the FORMAT_DESCRIPTION
removed) and runs ``binlog-schema decode --skip-errors`` on it. Its JSON Lines must tile the
file: each top-level record covers ``[offset, offset + header.event_size)`` (an event, with or
without an error) or ``[offset, offset + size)`` (a SKIPPED range), from byte 4 to the end,
in order. Every event of the original whose bytes the damage did not touch appears, at its
new offset, with the same header and body as in the original's decoding."""

import json
import subprocess
import sys

import pytest

from binlog_schema.format.facts.codes import (FORMAT_DESCRIPTION_EVENT, ROWS_KINDS,
                                       START_ENCRYPTION_EVENT, START_EVENT_V3)
from binlog_schema.format.stream import BinlogReader

from .. import damage
from ..damage import FILES


@pytest.fixture(scope="module")
def originals(corpus):
    return damage.load_originals(corpus)


def _decode(tmp_path, data, name="damaged.bin", *extra):
    path = tmp_path / name
    path.write_bytes(data)
    run = subprocess.run([sys.executable, "-m", "binlog_schema", "decode", "--skip-errors",
                          *extra, str(path)], capture_output=True, timeout=120)
    assert b"Traceback" not in run.stderr, run.stderr.decode()
    lines = [json.loads(x) for x in run.stdout.decode().splitlines()]
    return run, lines


def _tiles(lines, size):
    pos = 4
    for d in lines:
        if "in_payload_at" in d:
            continue
        assert d["offset"] == pos, (d["offset"], pos, d.get("type"))
        pos += d["size"] if "size" in d else d["header"]["event_size"]
    assert pos == size


def _same(line, want):
    """The same event: every field but where it is."""
    return {k: v for k, v in line.items() if k not in ("file", "offset")} == \
        {k: v for k, v in want.items() if k not in ("file", "offset")}


def _reference(tmp_path, data, name):
    run, lines = _decode(tmp_path, data, name)
    return {d["offset"]: d for d in lines if "in_payload_at" not in d}


def _check(tmp_path, original, data, moved, touched, status=3):
    """Decode the damaged ``data``; ``moved(offset)``: an original event's new offset;
    ``touched(offset, size)``: whether the damage reached that original event's bytes."""
    src, events = original
    ref = _reference(tmp_path, src, "original.bin")
    run, lines = _decode(tmp_path, data)
    _tiles(lines, len(data))
    if status is not None:
        assert run.returncode == status, run.stderr.decode()
    else:  # (damage inside a body of a file without checksums may not show)
        assert run.returncode in (0, 3)
    by_offset = {d["offset"]: d for d in lines if "in_payload_at" not in d}
    kept = 0
    for off, raw in events:
        if touched(off, len(raw)):
            continue
        got = by_offset.get(moved(off))
        assert got is not None and _same(got, ref[off]), (off, moved(off), got and got["type"])
        kept += 1
    problems = [d for d in lines if "error" in d and "in_payload_at" not in d]
    err = run.stderr.decode().splitlines()
    assert len(err) == len(problems) + 1  # a line per problem, and the summary
    assert "bytes skipped" in err[-1]
    for d, text in zip(problems, err):
        assert f"{d['offset']}" in text
    return lines, kept


@pytest.mark.parametrize("key", list(FILES))
def test_an_event_size_that_lies(originals, tmp_path, key):
    data, events = originals[key]
    for d in damage.size_lies(data, events):
        lines, _ = _check(tmp_path, originals[key], d.data, d.moved, d.touched)
        skipped = [x for x in lines if x["type"] == "SKIPPED"]
        assert skipped and skipped[0]["offset"] == d.at  # (the lie is where the range starts)


@pytest.mark.parametrize("key", list(FILES))
def test_a_zeroed_block(originals, tmp_path, key):
    data, events = originals[key]
    d = damage.zeroed_block(data, checksums=key in damage.CHECKSUMS)
    _check(tmp_path, originals[key], d.data, d.moved, d.touched, status=d.status)


@pytest.mark.parametrize("key", list(FILES))
def test_inserted_garbage(originals, tmp_path, key):
    data, events = originals[key]
    for d in damage.garbage_insertions(data, events):
        _check(tmp_path, originals[key], d.data, d.moved, d.touched)


@pytest.mark.parametrize("key", ["crc32", "mariadb"])
def test_a_crc_flip_keeps_the_event_with_its_error(originals, tmp_path, key):
    data, events = originals[key]
    off, raw = events[len(events) // 2]
    d = damage.crc_flip(data, off)
    lines, kept = _check(tmp_path, originals[key], d.data, d.moved, d.touched)
    hit = next(x for x in lines if x["offset"] == off)
    assert hit["error"]["kind"] == "checksum" and hit["header"]["event_size"] == len(raw)
    assert bytes.fromhex(hit["raw"]["hex"]) == d.data[off:off + len(raw)]  # (lossless)
    assert not [d for d in lines if d["type"] == "SKIPPED"]
    assert kept == len(events) - 1


@pytest.mark.parametrize("key", list(FILES))
def test_a_cut_in_the_middle_of_an_event(originals, tmp_path, key):
    data, events = originals[key]
    d = damage.cut(data, events)
    lines, _ = _check(tmp_path, originals[key], d.data, d.moved, d.touched)
    last = lines[-1]
    assert last["type"] == "SKIPPED" and last["error"]["kind"] == "truncated"
    assert last["offset"] == d.at


@pytest.mark.parametrize("first,second", [("crc32", "none"), ("none", "mariadb"),
                                          ("v51", "v51")])
def test_two_files_concatenated(originals, tmp_path, first, second):
    a, ea = originals[first]
    b, eb = originals[second]
    data = damage.concatenated(a, b).data
    ref_b = _reference(tmp_path, b, "second.bin")
    run, lines = _decode(tmp_path, data)
    _tiles(lines, len(data))
    by_offset = {d["offset"]: d for d in lines if "in_payload_at" not in d}
    ref_a = _reference(tmp_path, a, "first.bin")
    for off, _ in ea:
        assert _same(by_offset[off], ref_a[off])
    magic = by_offset[len(a)]
    assert magic["type"] == "SKIPPED" and magic["size"] == 4 and "magic" in magic["error"]["path"]
    for off, _ in eb:  # the second file's events, in the second file's context
        assert _same(by_offset[len(a) + off], ref_b[off])
    assert run.returncode == 3


@pytest.mark.parametrize("key", list(FILES))
def test_no_format_description(originals, tmp_path, key):
    data, events = originals[key]
    bad = damage.without_format_description(data, events).data
    run, lines = _decode(tmp_path, bad)
    assert [d["type"] for d in lines] == ["SKIPPED"]
    assert lines[0]["offset"] == 4 and lines[0]["size"] == len(bad) - 4
    assert "FORMAT_DESCRIPTION" in lines[0]["error"]["message"]
    assert run.returncode == 3
    strict = subprocess.run([sys.executable, "-m", "binlog_schema", "decode",
                             str(tmp_path / "damaged.bin")], capture_output=True, timeout=60)
    assert strict.returncode == 1 and strict.stdout == b""
    assert b"FORMAT_DESCRIPTION" in strict.stderr and b"Traceback" not in strict.stderr


def test_without_skip_errors_the_good_events_then_one_line_and_status_1(originals, tmp_path):
    data, events = originals["crc32"]
    off, raw = events[len(events) // 2]
    bad = bytearray(data)
    bad[off + 9:off + 13] = (7).to_bytes(4, "little")
    path = tmp_path / "bad.bin"
    path.write_bytes(bytes(bad))
    for extra in ([], ["--rows"], ["--format", "text"]):
        run = subprocess.run([sys.executable, "-m", "binlog_schema", "decode", *extra,
                              str(path)], capture_output=True, timeout=60)
        assert run.returncode == 1
        err = run.stderr.decode().splitlines()
        assert len(err) == 1 and str(off + 9) in err[0] and "event_size" in err[0]
        if not extra:
            offs = [json.loads(x)["offset"] for x in run.stdout.decode().splitlines()]
            assert offs == [o for o, _ in events if o < off]


def test_a_format_description_that_cannot_be_honoured(originals, tmp_path):
    """An FDE announcing a longer common header stops the file (typed error); with
    --skip-errors the rest of the file is one SKIPPED range."""
    data, events = originals["none"]
    fde_off, fde = events[0]
    from binlog_schema.format.facts.framing import event_crc
    bad = bytearray(data)
    bad[fde_off + 19 + 2 + 50 + 4] = 21  # header_length: 19 -> 21 (and its CRC32 made anew)
    end = fde_off + len(fde)
    bad[end - 4:end] = event_crc(bytes(bad[fde_off:fde_off + 19]),
                                 bytes(bad[fde_off + 19:end - 4])).to_bytes(4, "little")
    run, lines = _decode(tmp_path, bytes(bad))
    _tiles(lines, len(bad))
    assert lines[0]["type"] == "FORMAT_DESCRIPTION_EVENT" and "error" in lines[0]
    assert [d["type"] for d in lines[1:]] == ["SKIPPED"] and run.returncode == 3
    strict = subprocess.run([sys.executable, "-m", "binlog_schema", "decode",
                             str(tmp_path / "damaged.bin")], capture_output=True, timeout=60)
    assert strict.returncode == 1 and b"header" in strict.stderr


def test_table_maps_and_roundtrip_go_on_with_skip_errors(originals, tmp_path):
    data, events = originals["crc32"]
    off, raw = events[len(events) // 2]
    bad = bytearray(data)
    bad[off + 9:off + 13] = (1 << 29).to_bytes(4, "little")
    path = tmp_path / "bad.bin"
    path.write_bytes(bytes(bad))
    good = tmp_path / "good.bin"
    good.write_bytes(data)
    ref = subprocess.run([sys.executable, "-m", "binlog_schema", "table-maps", str(good)],
                         capture_output=True, timeout=60).stdout.splitlines()
    tm = subprocess.run([sys.executable, "-m", "binlog_schema", "table-maps", "--skip-errors",
                         str(path)], capture_output=True, timeout=60)
    got = tm.stdout.splitlines()
    assert tm.returncode == 3 and b"Traceback" not in tm.stderr
    lost = [x for x in ref if json.loads(x)["offset"] == off]
    assert len(got) == len(ref) - len(lost)
    rt = subprocess.run([sys.executable, "-m", "binlog_schema", "roundtrip", "--skip-errors",
                         str(path)], capture_output=True, timeout=60)
    assert rt.returncode == 3 and b"SKIPPED" in rt.stdout and b"Traceback" not in rt.stderr


@pytest.mark.parametrize("key", ["crc32", "mariadb", "payload"])   # (files with CRC32s)
@pytest.mark.parametrize("past", [5, 0])
def test_a_format_description_header_over_checksummed_events(originals, tmp_path, key, past):
    """(Found by the damage fuzz target, twice.) Garbage whose header says
    FORMAT_DESCRIPTION, its size covering good events after it: its body names no server
    version with CRC32s, so no CRC32 proves that size; the events inside, whose CRC32s do
    verify, are kept (the fake event's bytes up to them SKIPPED), never swallowed by an
    event with an error. Its size ends ``past`` bytes into the third event after it (0:
    exactly where that event starts, so a plausible header follows it and its log position
    says it ends there)."""
    data, events = originals[key]
    (o1, r1), (o2, r2) = events[2:4]
    junk = bytes(range(60, 90))                  # no server version in it
    size = 19 + len(junk) + len(r1) + len(r2) + past
    fake = (0).to_bytes(4, "little") + bytes((FORMAT_DESCRIPTION_EVENT,)) \
        + (1).to_bytes(4, "little") + size.to_bytes(4, "little") \
        + (o1 + size).to_bytes(4, "little") + b"\0\0"
    insert = fake + junk
    damaged = data[:o1] + insert + data[o1:]
    lines, kept = _check(tmp_path, (data, events), damaged,
                         lambda off: off + len(insert) if off >= o1 else off,
                         lambda off, n: False)
    assert kept == len(events)
    skipped = [d for d in lines if d["type"] == "SKIPPED"]
    assert [(d["offset"], d["size"]) for d in skipped] == [(o1, len(insert))]


def test_a_format_description_without_checksum_after_a_cut_stands(originals, tmp_path):
    """(Found by the damage fuzz target.) A file with checksums cut inside an event, then the
    FORMAT_DESCRIPTION of a file without them (no magic number): that FDE has no CRC32 to
    verify and the bytes after it are not events, but its body is one this reader can use,
    so it stands as an event (the cut event's bytes before it SKIPPED)."""
    data, events = originals["crc32"]
    other, other_events = originals["v51"]   # (5.1: an FDE with no CRC32 at all)
    o, raw = events[6]
    cut = o + len(raw) // 2
    fde = other_events[0][1]
    damaged = data[:cut] + fde + bytes(40)   # (no header follows it: zeros)
    run, lines = _decode(tmp_path, damaged)
    _tiles(lines, len(damaged))
    assert run.returncode == 3
    by_offset = {d["offset"]: d for d in lines}
    assert by_offset[cut]["type"] == "FORMAT_DESCRIPTION_EVENT" and "error" not in by_offset[cut]
    assert by_offset[o]["type"] == "SKIPPED" and by_offset[o]["size"] == cut - o


def test_a_v3_file_cut_then_read_again_keeps_its_second_start_event(corpus, tmp_path):
    """(Found by the damage fuzz target.) A binlog v3 file (4.x: START_EVENT_V3, no
    FORMAT_DESCRIPTION) cut inside an event, then its events again from the start: the
    second START_EVENT_V3 is an event (a v1/v3 relay log holds one after each rotation),
    found by the resynchronisation, and every event after it too."""
    path = next(p for p in corpus if p.name == "bug47142_master-bin.000001")
    data = path.read_bytes()
    from binlog_schema.format.stream import BinlogReader
    events = [(r.offset, r.raw) for r in BinlogReader(data, skip_errors=True)]
    assert events[0][1][4] == START_EVENT_V3 and len(events) > 3
    o, raw = events[2]
    cut = o + len(raw) // 2
    damaged = data[:cut] + data[4:]
    run, lines = _decode(tmp_path, damaged)
    _tiles(lines, len(damaged))
    assert run.returncode == 3
    by_offset = {d["offset"]: d for d in lines}
    for off, raw in events:
        got = by_offset.get(cut - 4 + off)
        assert got is not None and "error" not in got and \
            got["header"]["event_size"] == len(raw), (off, got)


@pytest.mark.parametrize("key", ["crc32", "mariadb"])
def test_a_type_code_damaged_into_start_encryption(originals, tmp_path, key):
    """(Found by the damage fuzz target.) An event whose type code byte is damaged into
    START_ENCRYPTION's: its CRC32 fails, so it is an error record, not the start of
    ciphertext; every other event is kept, read in the context it verifies in."""
    data, events = originals[key]
    o, raw = next((o, r) for o, r in events[3:] if r[4] != START_ENCRYPTION_EVENT)
    damaged = bytearray(data)
    damaged[o + 4] = START_ENCRYPTION_EVENT
    lines, kept = _check(tmp_path, (data, events), bytes(damaged), lambda off: off,
                         lambda off, n: off == o)
    assert kept == len(events) - 1
    hit = next(d for d in lines if d["offset"] == o)
    assert hit["error"]["kind"] == "checksum"


def test_a_format_description_without_checksum_whose_size_lies(originals, corpus, tmp_path):
    """(Found by the damage fuzz target.) The FORMAT_DESCRIPTION of a file without checksums,
    its event_size raised past any FORMAT_DESCRIPTION's (at most 255 post-header lengths),
    then a binlog v3 file (whose magic number starts no FORMAT_DESCRIPTION) and a file with
    checksums appended: no FORMAT_DESCRIPTION that large exists, so it does not swallow the
    third file; every event of the third file is kept."""
    first, first_events = originals["v51"]
    v3 = next(p for p in corpus if p.name == "bug47142_master-bin.000001").read_bytes()
    third, third_events = originals["crc32"]
    base = len(first) + len(v3)
    hit_off, hit = third_events[2]
    end = base + hit_off + 10                 # where the lie ends: inside the third file's
    damaged = bytearray(first + v3 + third)   # third event, zeroed there (no header follows)
    damaged[end:end + 19] = bytes(19)
    damaged[4 + 9:4 + 13] = (end - 4).to_bytes(4, "little")
    run, lines = _decode(tmp_path, bytes(damaged))
    _tiles(lines, len(damaged))
    assert run.returncode == 3
    by_offset = {d["offset"]: d for d in lines}
    for off, _raw in third_events:
        if off == hit_off:
            continue
        got = by_offset.get(base + off)
        assert got is not None and "error" not in got, (off, got and got["type"])


@pytest.mark.parametrize("key", ["crc32", "mariadb"])
def test_garbage_with_a_start_event_v3_header_before_the_format_description(originals, tmp_path,
                                                                            key):
    """(Found by the damage fuzz target.) Garbage at the file's start whose header says
    START_EVENT_V3, its size ending where a real event starts: every START_EVENT_V3 is 75
    bytes (69 in binlog v1), so it is no context event; the FORMAT_DESCRIPTION after it is
    found and every event of the file kept."""
    data, events = originals[key]
    fde = events[0][1]
    junk = bytes(range(100, 140))
    size = 19 + len(junk) + len(fde)           # ends where the original's second event starts
    fake = (0).to_bytes(4, "little") + bytes((START_EVENT_V3,)) + (1).to_bytes(4, "little") \
        + size.to_bytes(4, "little") + (0).to_bytes(4, "little") + b"\0\0"
    insert = fake + junk
    damaged = data[:4] + insert + data[4:]
    lines, kept = _check(tmp_path, (data, events), damaged, lambda off: off + len(insert),
                         lambda off, n: False)
    assert kept == len(events)


def test_a_format_description_without_checksum_cut_short_over_a_checksummed_one(originals,
                                                                                  tmp_path):
    """(Found by the damage fuzz target.) A file without checksums cut three bytes before
    its FORMAT_DESCRIPTION ends, then a file with checksums (no magic number): the cut FDE
    would end inside the second one's, whose CRC32 verifies; that one is the event, and
    every event of the second file is kept."""
    first, first_events = originals["v51"]
    second, second_events = originals["crc32"]
    prefix = first[:4 + len(first_events[0][1]) - 3]
    damaged = prefix + second[4:]
    run, lines = _decode(tmp_path, damaged)
    _tiles(lines, len(damaged))
    assert run.returncode == 3
    by_offset = {d["offset"]: d for d in lines}
    for off, _raw in second_events:
        got = by_offset.get(len(prefix) - 4 + off)
        assert got is not None and "error" not in got, (off, got and got["type"])


@pytest.mark.parametrize("key", ["v51", "none"])
def test_an_event_over_a_cut_file_then_a_whole_one_keeps_the_whole_ones_events(originals,
                                                                               tmp_path, key):
    """(Found by the damage fuzz target.) In a file without checksums an event whose size
    lies runs over a second file cut inside its FORMAT_DESCRIPTION (its magic number starts
    no second file) and then over a whole file with checksums, to a plausible header in it:
    the magic number after the first one inside the event starts a second file too, so the
    event's size is not taken; the whole file's FORMAT_DESCRIPTION and every event after it
    are kept."""
    first, first_events = originals[key]
    second, second_events = originals["crc32"]
    o, raw = first_events[len(first_events) // 2]
    head = first[:o + len(raw)] + second[:4 + 30]   # (the second file cut inside its FDE)
    base = len(head)
    damaged = bytearray(head + second)
    lie = base + second_events[2][0] - o            # ends where the whole file's 3rd event starts
    damaged[o + 9:o + 13] = lie.to_bytes(4, "little")
    run, lines = _decode(tmp_path, bytes(damaged))
    _tiles(lines, len(damaged))
    assert run.returncode == 3
    by_offset = {d["offset"]: d for d in lines}
    ref_first = _reference(tmp_path, first, "first.bin")
    for off, _ in first_events:
        if off < o:
            assert _same(by_offset[off], ref_first[off])
    ref = _reference(tmp_path, second, "second.bin")
    for off, _raw in second_events:
        got = by_offset.get(base + off)
        assert got is not None and _same(got, ref[off]), (off, got and got["type"])


@pytest.mark.parametrize("key", ["v51", "none"])
def test_a_file_without_checksums_cut_then_one_with_them_without_its_magic(originals,
                                                                          tmp_path, key):
    """(Found by the damage fuzz target.) A file without checksums cut 20 bytes before an
    event ends, then a file with checksums from its FORMAT_DESCRIPTION on (no magic number):
    the cut event's size and log position still say it ends inside that FORMAT_DESCRIPTION,
    but nothing proves it, while the FDE's CRC32 verifies: the cut event's bytes are
    SKIPPED and the second file's FDE and every event after it are kept, without error."""
    first, first_events = originals[key]
    second, second_events = originals["crc32"]
    o, raw = first_events[len(first_events) // 2]
    prefix = first[:o + len(raw) - 20]
    damaged = prefix + second[4:]
    run, lines = _decode(tmp_path, damaged)
    _tiles(lines, len(damaged))
    assert run.returncode == 3
    by_offset = {d["offset"]: d for d in lines}
    assert by_offset[o]["type"] == "SKIPPED" and by_offset[o]["size"] == len(prefix) - o
    ref = _reference(tmp_path, second, "second.bin")
    for off, _ in second_events:
        got = by_offset.get(len(prefix) - 4 + off)
        assert got is not None and _same(got, ref[off]), (off, got and got["type"])


@pytest.mark.parametrize("key", ["v51", "none"])
def test_a_lying_event_over_good_ones_then_a_checksummed_format_description(originals,
                                                                           tmp_path, key):
    """(Found by the damage fuzz target.) As above, but the event whose size (and log
    position) runs into the second file's FORMAT_DESCRIPTION starts two whole events before
    the cut: those two are kept (found as after any damage), not skipped with it."""
    first, first_events = originals[key]
    second, second_events = originals["crc32"]
    k = len(first_events) // 2
    (o, raw), (o1, r1), (o2, r2) = first_events[k:k + 3]
    cut = o2 + len(r2)
    damaged = bytearray(first[:cut] + second[4:])
    size = cut - o + 20
    damaged[o + 9:o + 13] = size.to_bytes(4, "little")
    damaged[o + 13:o + 17] = (o + size).to_bytes(4, "little")
    run, lines = _decode(tmp_path, bytes(damaged))
    _tiles(lines, len(damaged))
    assert run.returncode == 3
    by_offset = {d["offset"]: d for d in lines}
    ref_first = _reference(tmp_path, first, "first.bin")
    for off in (o1, o2):
        assert _same(by_offset[off], ref_first[off])
    ref = _reference(tmp_path, second, "second.bin")
    for off, _ in second_events:
        got = by_offset.get(cut - 4 + off)
        assert got is not None and _same(got, ref[off]), (off, got and got["type"])


# ---------------------------------------------------------------------------------------
# files without checksums: the log positions prove sizes (issue 26)


@pytest.fixture(scope="module")
def unchecked(corpus):
    return damage.load_originals(corpus, files=damage.UNCHECKED)


def _tiling_events(d):
    """{offset: record} of the events the recovering reader reads from the damaged file
    ``d``, after checking that its records tile the file from 4 to its end."""
    records = list(BinlogReader(d.data, skip_errors=True))
    pos = 4
    for r in records:
        assert r.offset == pos, d.name
        pos = r.gap[1] if r.gap is not None else pos + len(r.raw)
    assert pos == len(d.data), d.name
    return {r.offset: r for r in records if r.gap is None}


@pytest.mark.parametrize("key", list(damage.UNCHECKED))
def test_without_checksums_the_log_positions_keep_every_untouched_event(unchecked, tmp_path,
                                                                        key):
    """A MySQL 5.1/5.5 file without checksums: a rows event's size overwritten with a huge
    value (beyond the limit, or running to 10 bytes before the end), a zeroed block of 421
    bytes, both with a cut tail. Every event the damage did not touch is delivered by
    ``decode --skip-errors`` at its offset, as in the original and without error; the damage
    is SKIPPED (status 3). Before, the reader took header-like bytes after the damage (or
    the end of the file) for proof of a size, and lost hundreds of events in SKIPPED
    ranges: the log positions (each names where the next event starts) now decide."""
    data, events = unchecked[key]
    for d in damage.without_checksums(data, events, damage.UNCHECKED[key][1]):
        lines, kept = _check(tmp_path, unchecked[key], d.data, d.moved, d.touched)
        skipped = [x for x in lines if x["type"] == "SKIPPED"]
        assert skipped and skipped[0]["offset"] >= d.at, d.name
        assert sum(x["size"] for x in skipped) < 3000, (d.name, skipped)   # (the damage only)


@pytest.mark.parametrize("key", list(damage.UNCHECKED))
def test_without_checksums_no_untouched_event_is_lost_wherever_the_damage(unchecked, key):
    """The same damage at many places (a huge size at every tenth rows event; a zeroed block
    of 421 bytes at a hundred places after the FORMAT_DESCRIPTION), read by the recovering
    reader: the records tile the file and every untouched event is one of them, with its
    bytes and without error."""
    data, events = unchecked[key]
    rows = [o for o, r in events if r[4] in ROWS_KINDS]
    cases = [damage.huge_size(data, events, k / len(rows), lie)
             for k in range(0, len(rows), max(len(rows) // 10, 1))
             for lie in (0x7FFFFFFF, None)]
    fde_end = events[0][0] + len(events[0][1])
    step = (len(data) - fde_end - 421) // 100
    cases += [damage.zeroed_block(data, start, 421, checksums=False)
              for start in range(fde_end, len(data) - 421, step)]
    for d in cases:
        by_offset = _tiling_events(d)
        for off, raw in events:
            if not d.touched(off, len(raw)):
                got = by_offset.get(off)
                assert got is not None and got.raw == raw and got.error is None, (d.name, off)


NOT_OFFSETS = [  # files whose log positions are not all file offsets
    "rust_mysql_common/bug33029-slave-relay-bin.000001",   # relay log: its source's numbering
    "rust_mysql_common/corrupt-relay-bin.000624",   # relay log, 5.0: positions in transactions
    "rust_mysql_common/binlog_savepoint.000001",   # relay log with a second FORMAT_DESCRIPTION
    "mysql-5.1-facebookarchive/suite/binlog/std_data/binlog_old_version_4_1.000001",   # v3
    # MariaDB 11.8 written anew without checksums: 0 inside GTID groups
    "mariadb-poc/domain_id_0/mariadb-repl-bin.000005",
]


@pytest.mark.parametrize("rel", NOT_OFFSETS)
def test_where_log_positions_are_not_offsets_the_chain_proves_only_where_it_holds(corpus,
                                                                                   rel):
    """Relay logs (their source's numbering, a relay log's own events at 0, a 5.0 relay
    log's positions counted inside transactions), a v3 file (each log position is its
    event's start) and MariaDB's end_log_pos 0 inside GTID groups (a file with checksums
    written anew without them): clean, the recovering reader gives the plain reader's
    events; damaged (an event's size overwritten at 40 events, a zeroed block at 40
    places), the records tile the file and an untouched event is lost only where the log
    positions cannot prove its size (a log position of 0, or a chain the damage broke: the
    fuzz harness's rule, :func:`fuzz.harness.proven_by_log_positions`)."""
    from fuzz.harness import binlog_version_of, proven_by_log_positions
    path = next(p for p in corpus if str(p).endswith(rel))
    data = path.read_bytes()
    if rel.startswith("mariadb"):
        data = damage.unchecked_copy(data)
    plain = [(r.offset, r.raw, r.error is None)
             for r in BinlogReader(data, skip_errors=True, recover=False)]
    clean = [(r.offset, r.raw, r.error is None) for r in BinlogReader(data, skip_errors=True)]
    assert clean == plain   # (the corrupt relay log's QUERY: an error, in both)
    events = [(o, raw) for o, raw, _ in clean]
    good = {o for o, _, ok in clean if ok}
    version = binlog_version_of(events)
    cases = [damage.size_lie(data, events, k, lie)
             for k in range(2, len(events), max(len(events) // 40, 3))
             for lie in (0x7FFFFFFF, len(data) - 10 - events[k][0], len(events[k][1]) + 7)]
    fde_end = events[0][0] + len(events[0][1])
    cases += [damage.zeroed_block(data, start, size, checksums=False)
              for size in (421, 30)
              for start in range(fde_end, len(data) - size, (len(data) - fde_end) // 40)]
    lost = 0
    for d in cases:
        by_offset = _tiling_events(d)
        ends = {o + len(r.raw): o for o, r in by_offset.items()}
        untouched = {o: (raw,) for o, raw in events if not d.touched(o, len(raw))}
        for off, (raw,) in untouched.items():
            got = by_offset.get(off)
            if got is not None and got.raw == raw and (got.error is None or off not in good):
                continue
            assert got is None or got.raw != raw, (d.name, off, got.error)
            assert not proven_by_log_positions(d.data, off, raw, version, untouched, ends), \
                (d.name, off)
            lost += 1
    assert lost <= len(cases)   # (at most the event before the damage, on average)


# ---------------------------------------------------------------------------------------
# compressed events: the sizes they state are checked (issue 26)


def _payload_changes():
    """(name, field the error names, change) for the corpus's TRANSACTION_PAYLOAD: its
    compressed bytes cut short (PAYLOAD_SIZE then disagrees), cut short with PAYLOAD_SIZE
    made to agree (UNCOMPRESSED_SIZE disagrees with what the rest decompresses to),
    UNCOMPRESSED_SIZE one too many, and inner events that leave 5 bytes of the decompressed
    data to no event."""
    from binlog_schema.format.facts.compression import payload_body, payload_events_bytes

    def fields(body, **values):
        return [dict(f, value=values.get(f["type"], f["value"])) for f in body["fields"]]

    def cut(body):
        return dict(body, payload=body["payload"][:-10])

    def cut_agreeing(body):
        body = cut(body)
        return dict(body, fields=fields(body, PAYLOAD_SIZE=len(body["payload"])))

    def more(body):
        size = next(f["value"] for f in body["fields"] if f["type"] == "UNCOMPRESSED_SIZE")
        return dict(body, fields=fields(body, UNCOMPRESSED_SIZE=size + 1))

    def untiled(body):
        return payload_body(payload_events_bytes(body) + bytes(5))

    return [("cut", "body.fields.PAYLOAD_SIZE", cut),
            ("cut-agreeing", "body.fields.UNCOMPRESSED_SIZE", cut_agreeing),
            ("uncompressed-size", "body.fields.UNCOMPRESSED_SIZE", more),
            ("untiled", "payload[", untiled)]


@pytest.mark.parametrize("name,field,change", _payload_changes(),
                         ids=[c[0] for c in _payload_changes()])
def test_a_transaction_payload_whose_sizes_disagree_is_an_error_with_its_bytes(
        corpus, tmp_path, name, field, change):
    """MySQL 8.0's TRANSACTION_PAYLOAD in a file without checksums (the corpus's, written
    anew without them): compressed bytes cut short were read as a payload with no inner
    events and no error (a whole transaction gone). A payload whose stated sizes disagree
    with its bytes, or whose inner events do not tile the decompressed bytes, is an error
    record naming its offset and the field, its bytes kept (status 3; 1 without
    --skip-errors); the events around it are read as in the undamaged copy."""
    from binlog_schema.format.facts.codes import TRANSACTION_PAYLOAD_EVENT
    data = next(p for p in corpus if str(p).endswith(FILES["payload"])).read_bytes()
    clean = damage.unchecked_copy(data)
    bad = damage.unchecked_copy(data, lambda rec: dict(rec.value, body=change(
        rec.value["body"])) if rec.kind == TRANSACTION_PAYLOAD_EVENT else None)
    ref = _reference(tmp_path, clean, "clean.bin")
    payload = next(o for o, d in ref.items() if d["type"] == "TRANSACTION_PAYLOAD_EVENT")
    assert "error" not in ref[payload] and "in_payload_at" not in ref[payload]
    run, lines = _decode(tmp_path, bad)
    _tiles(lines, len(bad))
    assert run.returncode == 3, run.stderr.decode()
    hit = next(d for d in lines if d["offset"] == payload and "in_payload_at" not in d)
    assert hit["type"] == "TRANSACTION_PAYLOAD_EVENT" and hit["error"]["offset"] == payload
    assert hit["error"]["path"].startswith(field), hit["error"]
    size = hit["header"]["event_size"]
    assert bytes.fromhex(hit["raw"]["hex"]) == bad[payload:payload + size]
    assert f"at {payload}" in run.stderr.decode() and field in run.stderr.decode()
    for d in lines:   # the others, as in the undamaged copy (where the payload ends moved)
        if "in_payload_at" in d:
            continue
        if d["offset"] < payload:
            assert _same(d, ref[d["offset"]])
        elif d["offset"] > payload:
            assert d["type"] == ref[d["offset"] - len(bad) + len(clean)]["type"]
    path = tmp_path / "plain.bin"
    path.write_bytes(bad)
    plain = subprocess.run([sys.executable, "-m", "binlog_schema", "decode", str(path)],
                           capture_output=True, timeout=120)
    assert plain.returncode == 1 and field in plain.stderr.decode()


def _mariadb_compressed():
    """A MariaDB file (log_bin_compress, no checksums) from the synthetic writer: its bytes
    and (offset, raw) of its compressed events (QUERY_COMPRESSED, *_ROWS_COMPRESSED)."""
    from binlog_schema.format.facts.codes import COMPRESSED_ROWS_KINDS, QUERY_COMPRESSED_EVENT
    from binlog_schema.synthetic.writer import generate
    spec = {"name": "compressed", "server": "mariadb-10.11",
            "settings": {"compression": True, "compression_min_length": 8,
                         "checksum": "NONE"},
            "database": "fx",
            "tables": [{"name": "t", "columns": [{"name": "id", "type": "INT"},
                                                 {"name": "note", "type": "VARCHAR(200)"}],
                        "primary_key": ["id"]}],
            "transactions": [{"insert": "t", "rows": [[1, "x" * 60], [2, "y" * 60]]},
                             {"ddl": "CREATE TABLE u (a INT, b VARCHAR(100))"}]}
    data = generate(spec)
    blocks = []   # (offset, raw, where its compressed block starts: the rest of the event)
    for r in BinlogReader(data):
        body = r.value["body"]
        if r.kind in COMPRESSED_ROWS_KINDS:
            blocks.append((r.offset, r.raw, len(r.raw) - len(body["rows"]["compressed"])))
        elif r.kind == QUERY_COMPRESSED_EVENT:
            blocks.append((r.offset, r.raw, len(r.raw) - len(body["compressed"])))
    return data, blocks


def test_mariadb_compressed_events_whose_length_disagrees_are_errors_with_their_bytes(
        tmp_path):
    """MariaDB's compressed events (log_bin_compress) state the uncompressed length: a
    length one too many or too few, and a zlib stream cut short (its last 4 bytes, the
    Adler-32, gone: the data whole, read before as if nothing were missing), are error
    records naming the offset and the field, with their bytes kept (status 3)."""
    data, compressed = _mariadb_compressed()
    assert len(compressed) >= 2
    for off, _raw, block in compressed:
        at = off + block
        n = data[at] & 7
        stated = int.from_bytes(data[at + 1:at + 1 + n], "big")
        for case in ("more", "fewer", "cut"):
            if case == "cut":   # (the event 4 bytes shorter: its header says so)
                bad = damage.unchecked_copy(data, lambda rec, off=off: rec.raw[:-4]
                                            if rec.offset == off else None)
            else:
                b = bytearray(data)
                b[at + 1:at + 1 + n] = (stated + (1 if case == "more" else -1)).to_bytes(
                    n, "big")
                bad = bytes(b)
            run, lines = _decode(tmp_path, bad)
            _tiles(lines, len(bad))
            assert run.returncode == 3, (off, case, run.stderr.decode())
            hit = next(d for d in lines if d["offset"] == off)
            size = hit["header"]["event_size"]
            assert "error" in hit and hit["error"]["path"].startswith("body."), (off, case)
            assert bytes.fromhex(hit["raw"]["hex"]) == bad[off:off + size]
            assert not [d for d in lines if d["offset"] != off and "error" in d]


@pytest.mark.parametrize("proof,server_id,kept", [
    ("event", 7, True), ("event", 8, False), ("fde", 7, True), ("fde", 8, False),
    ("fde", "proof's", True), ("file", 7, True), ("file", "proof's", True)])
def test_after_damage_a_header_consistent_with_its_neighbours_is_an_event(corpus, proof,
                                                                          server_id, kept):
    """Without checksums, after a damaged event: an event no log position proves (MariaDB's
    0), whose sizes do not lead exactly to the next proof (the event after it is damaged
    too), is taken when its header is consistent with the damaged one's or the proof's (the
    same server id, a timestamp within a day): it is no stray bytes. With another server id
    it is not (the bytes up to the proof are SKIPPED). Whatever the proof: an event its log
    position proves, a FORMAT_DESCRIPTION, a second file (its FORMAT_DESCRIPTION's header)."""
    from binlog_schema.format.context import Context
    from binlog_schema.format.event_codec import frame_event
    from binlog_schema.format.facts.codes import XID_EVENT
    data = next(p for p in corpus if str(p).endswith(damage.UNCHECKED["canal"][0])).read_bytes()
    fde_end = 4 + int.from_bytes(data[13:17], "little")
    out = bytearray(data[:fde_end])
    ctx = Context(checksum=False)
    stamp = 0x65AAFF00   # (its second byte, 0xff, is no type code: see the gap below)

    def xid(sid=7, zero=False, ts=stamp):
        raw = bytearray(frame_event({"type_code": XID_EVENT, "timestamp": ts,
                                     "server_id": sid}, bytes(8), ctx.replace(offset=len(out))))
        if zero:
            raw[13:17] = bytes(4)
        out.extend(raw)
        return len(out) - len(raw)

    xid()                                   # an event its log position proves
    d = xid()                               # the damaged one: its size a lie
    out[d + 9:d + 13] = (0x7FFFFFFF).to_bytes(4, "little")
    if server_id == "proof's":              # (the FORMAT_DESCRIPTION's server and time)
        w = xid(int.from_bytes(data[9:13], "little"), True, int.from_bytes(data[4:8], "little"))
    else:                                   # no proof; the header after it is plausible
        w = xid(server_id, zero=True)
    xid(7, zero=True)                       # no proof, and no plausible header after it:
    out.extend(bytes(3))                    # three stray bytes
    if proof == "event":
        t = xid()                           # proven: its log position is its end
    else:                                   # a FORMAT_DESCRIPTION (a second file's)
        t = len(out)
        out.extend(data[4 if proof == "fde" else 0:fde_end])
    xid()
    records = list(BinlogReader(bytes(out), skip_errors=True))
    by = {r.offset: r for r in records}
    head = t + 4 if proof == "file" else t  # (a second file's magic: SKIPPED, told)
    assert by[d].gap is not None and by[head].gap is None and by[head].error is None
    if kept:
        assert by[d].gap == (d, w) and by[w].gap is None and by[w].error is None
    else:
        assert by[d].gap == (d, t) and w not in by

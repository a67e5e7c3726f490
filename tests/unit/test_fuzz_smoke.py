"""The fuzz campaign's short version, for every test run (scripts/fuzz_campaign.sh runs the
long one): each target of fuzz/harness.py on its seeds and a few thousand mutants in-process,
and, when atheris is installed, each target for a few hundred coverage-guided executions.
Also: the harness really reports crashes, hangs and lossy rebuilds (planted ones), and the
findings reported for files owned by other work still reproduce (strict xfail: the day they
are fixed, these tests say so)."""

from __future__ import annotations

import os
import pathlib
import random
import subprocess
import sys

import pytest

from binlog_schema.construct_ext import errors

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from fuzz import harness  # noqa: E402

EXECS = int(os.environ.get("FUZZ_SMOKE_EXECS", "2000"))
# targets whose inputs come from the corpus (the stream target's seeds, the files the damage
# target damages): without it they are skipped loudly, and fail in CI (the ``corpus`` fixture)
NEEDS_CORPUS = frozenset({"stream", "damage", "split"})


def mutants(seeds, n, rnd):
    """Byte-level mutants of the seeds (flips, interesting values, cuts, inserts, splices),
    the mutations libFuzzer starts from."""
    interesting = [b"\x00", b"\xff", b"\xfb", b"\xfc\xff\xff", b"\xfe" + b"\xff" * 8,
                   b"\x7f", b"\x80", b"\x00\x00\x00\x00", b"\xff\xff\xff\xff"]
    for _ in range(n):
        data = bytearray(rnd.choice(seeds))
        for _ in range(rnd.randint(1, 4)):
            op = rnd.randrange(6)
            pos = rnd.randint(0, len(data))
            if op == 0 and data:
                data[min(pos, len(data) - 1)] ^= 1 << rnd.randrange(8)
            elif op == 1:
                data[pos:pos + 1] = rnd.choice(interesting)
            elif op == 2:
                del data[pos:]
            elif op == 3:
                data[pos:pos] = rnd.randbytes(rnd.randint(1, 8))
            elif op == 4:
                other = rnd.choice(seeds)
                data[pos:] = other[rnd.randint(0, len(other)):]
            elif data:
                data[min(pos, len(data) - 1)] = rnd.randrange(256)
        yield bytes(data)


@pytest.fixture(scope="module")
def loaded():
    harness.warm_up("rows")  # compiled code and table maps: once, outside the time limit


@pytest.mark.parametrize("name", sorted(harness.TARGETS))
def test_target_in_process(name, loaded, request):
    if name in NEEDS_CORPUS:
        request.getfixturevalue("corpus")
    target = harness.guarded(harness.TARGETS[name][0])
    seeds = [data for _, data in harness.seeds(name, small=True)]
    assert seeds, f"no seeds for {name}"
    for data in seeds:
        target(data)  # a Finding fails the test, with its message
    rnd = random.Random(f"smoke-{name}")
    runs = EXECS // 3 if name in ("build", "stream") else \
        EXECS // 20 if name in ("damage", "split") \
        else EXECS
    for data in mutants(seeds, runs, rnd):
        try:
            target(data)
        except harness.Finding as e:
            raise AssertionError(f"{name}: {e}\ninput: {data.hex()}") from None


@pytest.mark.skipif(not any(
    (pathlib.Path(p) / "atheris").exists() for p in sys.path if p), reason="atheris not installed")
@pytest.mark.parametrize("name", sorted(harness.TARGETS))
def test_target_under_atheris(name, tmp_path, request):
    if name in NEEDS_CORPUS:
        request.getfixturevalue("corpus")
    seeds = tmp_path / "seeds"
    n = harness.write_seeds(name, seeds, small=True)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    runs = n + EXECS // 2
    # (libFuzzer's own RSS limit reads getrusage's peak, which Linux carries over an exec: a
    # fuzzer started by a large test process would start over it. The harness's limit,
    # FUZZ_RSS_LIMIT_MB, reads the fuzzer's own peak: it holds the ceiling here)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / "run.py"), name, f"-runs={runs}",
         "-rss_limit_mb=0", "-timeout=10", f"-artifact_prefix={tmp_path}/",
         str(corpus), str(seeds)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert f"Done {runs} runs" in out, out[-2000:]
    assert " cov: " in out
    assert not list(tmp_path.glob("crash-*"))


# ---------------------------------------------------------------------- the harness finds


class _CrashingContext(harness.Context):
    def __getitem__(self, key):  # a crash inside parsing (both the compiled and interpreted
        raise IndexError("planted")  # code read the TABLE_MAP's table id width this way


def test_planted_crash_converted_by_parse_event_is_found():
    """parse_event turns every exception into a typed error; one that was a crash keeps it
    as ``.original``, and the harness reports it."""
    from binlog_schema import parse_event
    from binlog_schema.format.errors import BinlogError
    data = harness.make_event(19, bytes(20), harness.Context())
    with pytest.raises(BinlogError) as e:
        parse_event(data, _CrashingContext())
    assert isinstance(e.value.original, IndexError)
    with pytest.raises(harness.Finding, match="IndexError converted"):
        harness.check_typed(e.value, data, "parse_event")
    # a construct error (bad input, not a crash) is no finding
    with pytest.raises(BinlogError) as e:
        parse_event(data[:30], harness.Context())
    harness.check_typed(e.value, data[:30], "parse_event")


def test_planted_lossy_build_is_found(monkeypatch):
    """A model that loses a fact (here: the table map's flags) is reported by the
    table_map target."""
    from binlog_schema.changes import table_map as model
    real = model.TableMap.body
    monkeypatch.setattr(model.TableMap, "body", lambda self: {**real(self), "flags": []})
    with pytest.raises(harness.Finding, match="does not rebuild"):
        for _, data in harness.seeds("table_map", small=True):
            harness.table_map(data)


def test_planted_hang_is_found(monkeypatch):
    monkeypatch.setattr(harness, "TIME_LIMIT", 0.2)

    def spins(data):
        while True:
            pass
    with pytest.raises(harness.Finding, match="hang"):
        harness.guarded(spins)(b"x")


def test_planted_allocation_is_found_and_an_earlier_peak_is_not_blamed(monkeypatch):
    """An input that raises the process's peak RSS past the limit is a finding; in a process
    already past it (a test run that read large files before), an input that allocates
    little is not."""
    peak = harness.peak_rss_mb()
    monkeypatch.setattr(harness, "RSS_LIMIT_MB", peak + 16)
    with open("/proc/self/statm") as f:   # (resident pages now: the peak may be far above)
        now = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)
    size = int(peak - now + 64) << 20

    def allocates(data):
        block = bytearray(size)
        block[::4096] = b"x" * len(block[::4096])   # (every page touched)
    with pytest.raises(harness.Finding, match="peak RSS"):
        harness.guarded(allocates)(b"x")
    monkeypatch.setattr(harness, "RSS_LIMIT_MB", 1)
    harness.guarded(lambda data: bytes(data))(b"x")


def test_a_fuzzer_started_by_a_large_process_measures_its_own_peak():
    """Linux carries getrusage's peak RSS over an exec: a fuzzer started by a test process of
    1 GiB started "over the limit" (CI's atheris tests died of out-of-memory at their first
    input). The harness reads the fuzzer's own high-water mark."""
    block = bytearray(384 << 20)
    block[::4096] = b"x" * len(block[::4096])   # (this process now holds 384 MiB more)
    probe = ("import resource, sys; sys.path.insert(0, sys.argv[1]); "
             "from fuzz.harness import peak_rss_mb; "
             "print(peak_rss_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)")
    out = subprocess.run([sys.executable, "-c", probe, str(ROOT)], capture_output=True,
                         text=True, check=True).stdout.split()
    del block
    own, inherited = float(out[0]), float(out[1])
    assert inherited >= 384 and own < 256, (own, inherited)


def test_stream_target_checks_coverage_of_the_file(monkeypatch, corpus):
    """Recovery mode must account for every byte: a reader that silently drops a range is a
    finding."""
    from binlog_schema.format import stream
    seeds = [d for _, d in harness.seeds("stream", small=True)]
    real = stream.BinlogReader._skipped

    def silent_gap(self, start, end, err):  # skips the range but its record is an event's
        rec = real(self, start, end, err)
        rec.gap = None
        return rec

    monkeypatch.setattr(stream.BinlogReader, "_skipped", silent_gap)
    data = bytearray(seeds[0] if seeds[0].startswith(b"\xfebin") else b"\xfebin" + seeds[0])
    data[160:170] = b"\xff" * 10  # an event's size field damaged: a range to skip
    with pytest.raises(harness.Finding, match="recovery"):
        harness.stream(bytes(data))


# ---------------------------------------------------------------------- reported findings
# Findings in files that were owned by other work in progress at the time; the fixed ones
# stay here as regression tests, the open ones are strict xfails (harness.KNOWN).


def test_known_float_snan():
    from binlog_schema.changes.table_map import Column
    from binlog_schema.format.values.codecs import codec_for
    codec = codec_for(Column(0, "FLOAT", pack_length=4))
    value, _ = codec.parse(bytes.fromhex("0100807f"), 0)
    out = bytearray()
    codec.build(value, out)
    assert out.hex() == "0100807f"


@pytest.mark.parametrize("real, value", [("ENUM", -1), ("ENUM", 70000), ("SET", -1),
                                         ("SET", 1 << 16)])
def test_known_codecs_overflow(real, value):
    from binlog_schema.changes.table_map import Column
    from binlog_schema.format.values.codecs import EnumValue, SetValue, codec_for
    codec = codec_for(Column(0, "STRING", real_type=real, pack_length=2))
    v = EnumValue(value) if real == "ENUM" else SetValue(value)
    with pytest.raises(errors.LayoutError):
        codec.build(v, bytearray())


@pytest.mark.parametrize("ty, value", [("GEOMETRY", "srid"), ("VECTOR", [1e39])])
def test_known_geometry_vector_overflow(ty, value):
    from binlog_schema.changes.table_map import Column
    from binlog_schema.format.values.codecs import Geometry, codec_for
    codec = codec_for(Column(0, ty, pack_length=4))
    v = Geometry(1 << 32, b"") if value == "srid" else value
    with pytest.raises(errors.LayoutError):
        codec.build(v, bytearray())


def test_known_vector_snan():
    from binlog_schema.changes.table_map import Column
    from binlog_schema.format.values.codecs import codec_for
    codec = codec_for(Column(0, "VECTOR", pack_length=4))
    data = b"\x04\x00\x00\x00" + bytes.fromhex("0100807f")
    value, _ = codec.parse(data, 0)
    out = bytearray()
    codec.build(value, out)
    assert bytes(out) == data


def test_known_rows_query_length():
    from binlog_schema import Context, build_event, parse_event
    from binlog_schema.format.errors import BinlogError
    # a ROWS_QUERY whose length byte (0x61) is not its text's length (5)
    ctx = Context(checksum=False)
    data = harness.make_event(29, b"\x61hello", ctx)
    try:
        value = parse_event(data, ctx)
    except BinlogError:
        return  # refusing it would be a fix too
    assert build_event(value, ctx) == data

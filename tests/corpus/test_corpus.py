"""Corpus tier: every real binlog file of the shared corpus (MySQL 4.0 to 9.6, MariaDB)."""

import json
import subprocess
import sys


from binlog_schema.output.roundtrip import roundtrip_file
from binlog_schema.changes.table_map import TableMap, table_map_from_event
from binlog_schema.format.stream import BinlogReader


def test_every_file_round_trips_byte_for_byte(corpus):
    problems = []
    rows_failed = []  # rows events whose row images do not decode (and so do not rebuild)
    events = rows = 0
    for path in corpus:
        r = roundtrip_file(str(path))
        events += r["events"]
        rows += r["rows"]
        if r["differ"] or r["failed"]:
            problems.append((path.name, r["differ"][:1], r["failed"][:1]))
        rows_failed += [f"{path.name}@{f['offset']}: {f['error']}" for f in r["rows_failed"]]
    assert not problems
    assert not rows_failed, f"{len(rows_failed)} rows events fail to decode: {rows_failed[:10]}"
    assert events > 7800
    assert rows > 50000


def test_truncated_files_report_their_tail(corpus):
    tails = {}
    for path in corpus:
        if "truncated" in path.name:
            reader = BinlogReader(path)
            list(reader)
            tails[path.name] = reader.tail
    assert tails["binlog_truncated_prev_gtid_event.000001"].offset == 120
    assert tails["binlog_truncated_prev_gtid_event.000001"].have == 9
    assert tails["binlog_truncated_event.000001"].offset == 4


def test_every_table_map_rebuilds_from_its_typed_model(corpus):
    n = 0
    for path in corpus:
        for rec in BinlogReader(path, skip_errors=True):
            for r in [rec] + list(rec.inner or []):
                if rec.gap is not None or r.kind != 19:
                    continue
                d = json.loads(json.dumps(table_map_from_event(r.value, r.ctx).to_dict()))
                assert TableMap.from_dict(d).to_bytes() == r.raw, (path.name, r.offset)
                n += 1
    assert n >= 830


def test_known_facts_of_the_corpus(corpus):
    by_name = {p.name: p for p in corpus}

    def maps(name):
        out = []
        for rec in BinlogReader(by_name[name]):
            for r in [rec] + list(rec.inner or []):
                if r.kind == 19:
                    out.append(table_map_from_event(r.value, r.ctx))
        return out
    vec = [c.vector_dimensions for m in maps("vector.binlog") for c in m.columns
           if c.type == "VECTOR"]
    assert sorted(set(vec)) == [2, 3, 4]
    ess = maps("mysql-enum-string-set.000001")
    assert ["var1", "variant2", "foo"] in [c.enum_values for m in ess for c in m.columns]
    assert ["one", "two", "three", "four"] in [c.set_values for m in ess for c in m.columns]
    assert any(c.max_length == 512 for m in ess for c in m.columns)  # Bug37426 CHAR(128)
    inv = maps("binlog-invisible-columns.000001")
    assert False in [c.visible for m in inv for c in m.columns]
    wl = maps("ver_5_1-wl2325_r.001")
    assert wl[0].table_id_size == 4 and wl[0].table == "t1"
    pre_ga = maps("ver_5_1_17.001")
    assert all(m.layout == "pre_ga" for m in pre_ga)
    inner = maps("transaction_compression.000001")
    assert len(inner) == 1
    maria = maps("mariadb-bin.000001")
    assert maria[0].flavor == "mariadb" and maria[0].row_metadata == "full"


def test_cli_table_maps_pipe_into_build_table_map(corpus, tmp_path):
    files = [str(p) for p in corpus]
    tm = subprocess.run([sys.executable, "-m", "binlog_schema", "table-maps", *files],
                        capture_output=True)
    # (two corpus files end in a truncated event: said, status 1, every table map printed)
    assert tm.returncode == 1
    assert sorted(line.split(":")[0].rsplit("/", 1)[-1]
                  for line in tm.stderr.decode().splitlines()) == \
        ["binlog_truncated_event.000001", "binlog_truncated_prev_gtid_event.000001"]
    lines = tm.stdout.decode().splitlines()
    assert len(lines) >= 830
    built = subprocess.run([sys.executable, "-m", "binlog_schema", "build-table-map"],
                           input=tm.stdout, capture_output=True, check=True)
    hexes = built.stdout.decode().splitlines()
    assert len(hexes) == len(lines)
    raw = {}
    for path in corpus:
        for rec in BinlogReader(path, skip_errors=True):
            raw[(str(path), rec.offset, None)] = rec.raw
            for i in rec.inner or []:
                raw[(str(path), i.offset, rec.offset)] = i.raw
    for line, hexed in zip(lines, hexes):
        d = json.loads(line)
        assert raw[(d["file"], d["offset"], d.get("in_payload_at"))].hex() == hexed
        for key in ("file", "offset", "server_version", "flavor", "header", "table_id",
                    "flags", "database", "table", "row_metadata", "primary_key", "columns"):
            assert key in d
        for c in d["columns"]:
            for key in ("index", "name", "type", "real_type", "nullable", "unsigned",
                        "collation_id", "max_length", "precision", "scale", "fsp", "bits",
                        "pack_length", "enum_values", "set_values", "geometry_type",
                        "visible", "vector_dimensions"):
                assert key in c


def test_valid_events_never_fall_back_to_interpreted_code(corpus):
    """Every event that parses, parses (and builds) through the compiled declarations: a
    declaration piece that does not compile would silently run ~10x slower."""
    from binlog_schema.format import event_codec as envelope
    from binlog_schema.format.event_codec import build_event
    before = dict(envelope.FALLBACKS)
    n = 0
    for path in corpus:
        for rec in BinlogReader(path, skip_errors=True):
            for r in [rec] + list(rec.inner or []):
                if r.error is None and r.value is not None:
                    build_event(r.value, r.ctx.replace(offset=r.offset))
                    n += 1
    assert n > 7800
    assert envelope.FALLBACKS == before, envelope.FALLBACKS

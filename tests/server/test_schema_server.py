"""Server tier, schema at event time (issue 14): a private, real MariaDB server
(scripts/make_schema_binlogs.sh) runs scripts/workloads/schema.sql -- tables created, changed,
ALTERed between DML (columns added, dropped, modified, renamed; ENUM/SET members changed and
reordered; the primary key changed), renamed, statement-based changes -- once with
binlog_row_metadata=FULL and once with MINIMAL, each of its three parts into binlog files of
its own, with ``mariadb-dump --no-data`` after parts a and b. Checked here:

(a) every row change decoded from the MINIMAL binlogs through the schema history (replayed
    from the binlogs alone) equals the FULL binlogs' row change: database, table, operation,
    column names, values (ENUM/SET members by name), primary key;
(b) the same from a dump taken mid-way plus only the binlogs after it;
(c) the FULL binlogs' table maps all agree with the history (it is checked, never used);
(d) a stale schema (the dump before the ALTERs, given to the later binlog) gives reported
    errors (SchemaMismatch naming the table, the TABLE_MAP's offset and the differences) or
    notes, and rows with @N names: never a wrong name;
(e) the command line (``decode --rows --schema``) writes the FULL binlog's rows, and exit 3
    with the stale schema;
(f) the statement-based changes are counted, not decoded.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from binlog_schema.format.errors import SchemaMismatch
from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.changes.schema import history_for
from binlog_schema.format.stream import BinlogReader

from ..conftest import ROOT, unavailable

pytestmark = pytest.mark.server


def _have_server():
    return shutil.which("mariadbd") or os.path.exists("/usr/sbin/mariadbd")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    if not _have_server():
        msg = "mariadbd not installed (apt-get install mariadb-server): schema server tier " \
              "not run"
        unavailable(msg)
    out_dir = tmp_path_factory.mktemp("binlogs-schema")
    env = dict(os.environ, SCHEMA_SERVER_NAME=f"schema-test-{os.getpid()}")
    out = subprocess.run(["bash", str(ROOT / "scripts" / "make_schema_binlogs.sh"),
                          str(out_dir)], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    found = {"dir": out_dir}
    for meta in ("full", "minimal"):
        doc = json.loads((out_dir / f"schema-{meta}.json").read_text(encoding="utf-8"))
        found[meta] = {part: [out_dir / f for f in files.split(",")]
                       for part, files in doc["parts"].items()}
    for part in ("a", "b"):
        found[f"dump-{part}"] = out_dir / f"dump-after-{part}.sql"
        assert found[f"dump-{part}"].stat().st_size > 0
    return found


def files(run, meta, parts):
    return [f for p in parts for f in run[meta][p]]


def decode(paths, history=None):
    """(row changes as comparable tuples, the decoders) of ``paths`` in order, through one
    schema history."""
    changes, decoders = [], []
    for i, path in enumerate(paths):
        decoder = RowDecoder(str(path), schema=history, file_index=i)
        decoders.append(decoder)
        for rec in BinlogReader(str(path), decode="lazy"):
            for ch in decoder.feed(rec):
                d = ch.to_dict()
                changes.append((d["database"], d["table"], d["operation"], d["row_index"],
                                tuple(ch.columns), d["before"], d["after"],
                                tuple(ch.primary_key or ())))
    return changes, decoders


def named(change) -> bool:
    return not any(c.startswith("@") for c in change[4])


def indexed(change) -> bool:
    return all(c == f"@{i + 1}" for i, c in enumerate(change[4]))


def _problems(decoders):
    return [p for d in decoders for p in d.problems]


def _notices(decoders):
    return [n for d in decoders for n in d.notices]


# ------------------------------------------------------------------------ (a), (c), (f)


def test_minimal_through_the_history_equals_full(run):
    full, _ = decode(files(run, "full", "abc"))
    assert len(full) >= 25 and all(named(c) for c in full)
    plain, _ = decode(files(run, "minimal", "abc"))
    assert all(indexed(c) for c in plain)        # (MINIMAL alone: no names)
    history = history_for(files(run, "minimal", "a"))
    got, decoders = decode(files(run, "minimal", "abc"), history)
    assert not _problems(decoders), _problems(decoders)
    assert not _notices(decoders), _notices(decoders)
    assert len(got) == len(full)
    for g, f in zip(got, full):
        assert g == f
    # what the workload does: each table across its ALTERs and renames, ENUM/SET by name,
    # a primary key changed, a table without one whose UNIQUE NOT NULL key stands for it
    tables = {c[1] for c in got}
    assert tables == {"customers", "orders", "purchases", "orders_archive", "log"}
    keys = {(c[1], c[7]) for c in got}
    assert ("orders", ("id",)) in keys and ("purchases", ("customer", "id")) in keys
    assert ("log", ("k", "seq")) in keys and ("log", ("id",)) in keys
    tiers = {(c[6] or {}).get("tier") for c in got if c[1] == "customers"}
    assert {"gold", "platinum", "diamond"} <= tiers
    assert any("DB_ROW_HASH_1" in c[4] for c in got)
    # the statement-based INSERT and UPDATE: counted, no rows
    counted = {}
    for d in decoders:
        for verb, n in d.statements.items():
            counted[verb] = counted.get(verb, 0) + n
    assert counted == {"insert": 1, "update": 1}
    assert not any(c[1] == "log" and (c[6] or {}).get("k") == "stmt" for c in got)
    print(f"{len(got)} row changes of MINIMAL binlogs equal FULL's")


def test_full_maps_are_checked_against_the_history(run):
    plain, _ = decode(files(run, "full", "abc"))
    history = history_for(files(run, "full", "a"))
    got, decoders = decode(files(run, "full", "abc"), history)
    assert not _problems(decoders), _problems(decoders)
    assert got == plain
    assert sum(d.named for d in decoders) == 0   # (FULL maps keep their own names)


# ------------------------------------------------------------------------ (b)


@pytest.mark.parametrize("dump,parts", [("dump-b", "c"), ("dump-a", "bc")])
def test_dump_mid_way_plus_the_later_binlog(run, dump, parts):
    full, _ = decode(files(run, "full", parts))
    history = history_for(files(run, "minimal", parts), [run[dump]])
    got, decoders = decode(files(run, "minimal", parts), history)
    assert not _problems(decoders), _problems(decoders)
    assert not _notices(decoders), _notices(decoders)
    assert got == full and len(got) >= 10


# ------------------------------------------------------------------------ (d)


def test_a_stale_schema_gives_reported_errors_never_wrong_names(run):
    full, _ = decode(files(run, "full", "c"))
    history = history_for(files(run, "minimal", "c"), [run["dump-a"]])  # before part b
    got, decoders = decode(files(run, "minimal", "c"), history)
    assert len(got) == len(full)
    wrong = [(g, f) for g, f in zip(got, full) if not indexed(g) and g != f]
    assert not wrong, wrong[:3]
    assert any(indexed(g) for g in got)
    problems = _problems(decoders)
    assert problems and all(isinstance(p, SchemaMismatch) for p in problems)
    for p in problems:
        assert p.offset and p.table and p.differences and p.names == "@N"
        assert p.file and p.file.endswith(".000001")
        d = p.to_dict()
        assert d["kind"] == "schema" and d["table"] == p.table
    assert any(p.table == "bs_schema.orders" or p.table.startswith("bs_schema.purchases")
               for p in problems)


# ------------------------------------------------------------------------ (e)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "binlog_schema", *map(str, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def _rows(stdout):
    out = []
    for line in stdout.splitlines():
        d = json.loads(line)
        if "rows" in d and isinstance(d["rows"], list):
            out.append(d["rows"])
    return out


def test_decode_rows_with_schema(run):
    full = _cli("decode", "--rows", *files(run, "full", "c"))
    assert full.returncode == 0, full.stderr
    got = _cli("decode", "--rows", "--schema", run["dump-b"], *files(run, "minimal", "c"))
    assert got.returncode == 0, got.stderr
    assert _rows(got.stdout) == _rows(full.stdout) and _rows(full.stdout)
    assert "2 statement-based changes (INSERT 1, UPDATE 1)" in got.stderr
    assert "schema history: " in got.stderr and "0 disagreeing" in got.stderr
    stale = _cli("decode", "--rows", "--schema", run["dump-a"], *files(run, "minimal", "c"))
    assert stale.returncode == 3, stale.stderr
    lines = [json.loads(x) for x in stale.stdout.splitlines()]
    errors = [d for d in lines if "schema_error" in d]
    assert errors and all(d["type"] == "TABLE_MAP_EVENT" for d in errors)
    for d in errors:
        e = d["schema_error"]
        assert e["offset"] == d["offset"] and e["kind"] == "schema" and e["differences"]
        assert f"schema at offset {d['offset']}" in stale.stderr
    text = _cli("decode", "--rows", "--format", "text", "--schema", run["dump-a"],
                *files(run, "minimal", "c"))
    assert text.returncode == 3 and "# schema error: " in text.stdout

"""Careless input, through the command line as a user types it: never a traceback, one line
saying what is wrong and with what (the file, the line, the option), and the exit status the
help documents (1: an input that cannot be used; 2: a wrong command line).

Each case runs ``python -m binlog_schema`` in a subprocess. Binlogs come from the corpus
(a small file, compressed, cut, ...) or are made here."""

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys

import pytest

from binlog_schema.format.stream import BinlogReader

SMALL = "mysql-binlog-connector-java/mysql-bin.checksum-none"  # 37 KB, no checksums


def run(*args, cwd=None, input=None, env=None):
    """The command's (status, stdout, stderr); no traceback, whatever happened."""
    out = subprocess.run([sys.executable, "-m", "binlog_schema", *map(str, args)],
                         capture_output=True, cwd=cwd, input=input, timeout=60,
                         env=env)
    err = out.stderr.decode()
    assert "Traceback" not in err, err
    return out.returncode, out.stdout.decode(), err


@pytest.fixture(scope="module")
def small(corpus):
    return next(p for p in corpus if str(p).endswith(SMALL))


@pytest.fixture(scope="module")
def offsets(small):
    """(offset, size) of the small file's events."""
    return [(r.offset, r.size) for r in BinlogReader(str(small), decode=False)]


# ------------------------------------------------------------------ paths that are no binlog

READERS = [("decode",), ("decode", "--skip-errors"), ("decode", "--format", "text"),
           ("table-maps",), ("table-maps", "--skip-errors"), ("roundtrip",),
           ("roundtrip", "--skip-errors")]


@pytest.mark.parametrize("command", READERS, ids=" ".join)
def test_a_missing_path(tmp_path, command):
    missing = tmp_path / "binlog.000009"
    status, _, err = run(*command, missing)
    assert status == 1
    assert f"{missing}: no such file or directory" in err


@pytest.mark.parametrize("command", READERS, ids=" ".join)
def test_a_directory_is_refused(tmp_path, command):
    status, _, err = run(*command, tmp_path)
    assert status == 1
    assert f"{tmp_path}: is a directory" in err and "give the files in it" in err


@pytest.mark.parametrize("command", READERS, ids=" ".join)
def test_an_empty_file(tmp_path, command):
    empty = tmp_path / "empty.000001"
    empty.write_bytes(b"")
    status, out, err = run(*command, empty)
    assert status == 1
    assert f"{empty}: empty file: not a binlog" in err
    assert "truncated" not in err


def test_dev_null():
    if not os.path.exists(os.devnull):
        pytest.skip("no null device")
    status, out, err = run("decode", os.devnull)
    assert status == 1 and out == ""
    assert err.strip() == f"{os.devnull}: empty file: not a binlog"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root reads any file")
def test_an_unreadable_file(tmp_path, small):
    path = tmp_path / "locked.000001"
    path.write_bytes(small.read_bytes())
    path.chmod(0)
    status, _, err = run("decode", path)
    assert status == 1 and f"{path}: permission denied" in err


def test_a_path_through_a_file(tmp_path, small):
    status, _, err = run("decode", f"{small}/binlog.000001")
    assert status == 1 and "not a directory" in err


def test_good_files_are_still_decoded_around_a_bad_one(tmp_path, small, offsets):
    status, out, err = run("decode", tmp_path / "missing", small)
    assert status == 1
    assert len(out.splitlines()) == len(offsets)
    assert "missing: no such file or directory" in err


# ------------------------------------------------------------------ files that are not binlogs

def test_a_file_that_is_not_a_binlog(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes([0, 1, 2, 3, 4, 5, 6, 7]))
    status, out, err = run("decode", path)
    assert status == 1 and out == ""
    assert err.strip() == (f"{path}: not a binlog: it starts with 00 01 02 03, not the magic "
                           "number fe 62 69 6e")


COMPRESSORS = {"gzip": (gzip.compress, "gunzip"), "xz": (lzma.compress, "unxz"),
               "bzip2": (bz2.compress, "bunzip2")}


@pytest.mark.parametrize("name", sorted(COMPRESSORS) + ["zstd"])
def test_a_compressed_binlog_gets_a_hint(tmp_path, small, name):
    if name == "zstd":
        zstandard = pytest.importorskip("zstandard")
        compress, tool = zstandard.ZstdCompressor().compress, "unzstd"
    else:
        compress, tool = COMPRESSORS[name]
    path = tmp_path / f"binlog.000001.{name}"
    data = compress(small.read_bytes())
    path.write_bytes(data)
    for command in (("decode",), ("decode", "--skip-errors"), ("table-maps",), ("roundtrip",)):
        status, _, err = run(*command, path)
        assert status == 1, command
        assert f"{path}: not a binlog: it starts with {data[:4].hex(' ')}" in err
        assert f"compressed with {name}: decompress it first ({tool})" in err


def test_text_gets_a_hint(tmp_path):
    index = tmp_path / "binlog.index"
    index.write_text("./binlog.000001\n./binlog.000002\n")
    status, _, err = run("decode", index)
    assert status == 1
    assert "not a binlog: it starts with 2e 2f 62 69" in err and "looks like text" in err


def test_a_file_cut_inside_the_magic_number(tmp_path):
    path = tmp_path / "cut.000001"
    path.write_bytes(b"\xfebi")
    status, _, err = run("decode", "--skip-errors", path)
    assert status == 1
    assert str(path) in err and "ends after 3 bytes, inside the magic number" in err


# ------------------------------------------------------------------ --types

def test_an_unknown_type_name_lists_the_known_ones(small):
    status, out, err = run("decode", "--types", "TABLE_MAP,FOO", small)
    assert status == 2 and out == ""
    line = err.strip().splitlines()[-1]
    assert line.startswith("binlog-schema decode: error: argument --types: unknown event "
                           "type 'FOO'; known types")
    assert "TABLE_MAP_EVENT" in line and "WRITE_ROWS_EVENT" in line and "usage:" in err


@pytest.mark.parametrize("value, said", [("999", "an event type code is 0 to 255"),
                                         (",", "no event type given")])
def test_other_bad_types(small, value, said):
    status, _, err = run("decode", f"--types={value}", small)
    assert status == 2 and said in err


def test_types_by_name_short_name_and_code(small):
    outs = [run("decode", "--types", t, small)[1] for t in ("TABLE_MAP_EVENT", "table_map",
                                                            "19")]
    assert outs[0] and outs[0] == outs[1] == outs[2]
    assert {json.loads(x)["type"] for x in outs[0].splitlines()} == {"TABLE_MAP_EVENT"}


# ------------------------------------------------------------------ positions

@pytest.mark.parametrize("option", ["--start-position", "--stop-position"])
@pytest.mark.parametrize("value", ["-5", "abc", "1.5"])
def test_a_position_that_is_no_position(small, option, value):
    status, out, err = run("decode", option, value, small)
    assert status == 2 and out == ""
    assert f"argument {option}: '{value}': a byte position is a whole number from 0" in err


def test_a_start_inside_an_event_snaps_to_the_next_with_a_note(small, offsets):
    (at, size), (nxt, _) = offsets[3], offsets[4]
    start = at + size // 2
    for fmt in ("jsonl", "text"):
        status, out, err = run("decode", "--format", fmt, "--start-position", start, small)
        assert status == 0
        assert err.strip() == (f"{small}: --start-position {start} is inside the event at "
                               f"{at} (size {size}); starting at the next event at {nxt}")
        assert out == run("decode", "--format", fmt, "--start-position", nxt, small)[1]
    first = json.loads(run("decode", "--start-position", start, small)[1].splitlines()[0])
    assert first["offset"] == nxt


def test_a_start_at_an_event_has_no_note(small, offsets):
    at = offsets[5][0]
    status, out, err = run("decode", "--start-position", at, small)
    assert status == 0 and err == ""
    assert json.loads(out.splitlines()[0])["offset"] == at
    assert len(out.splitlines()) == len(offsets) - 5


def test_a_start_inside_an_event_with_types_and_skip_errors(small, offsets):
    (at, size), (nxt, _) = offsets[3], offsets[4]
    status, out, err = run("decode", "--skip-errors", "--types", "QUERY",
                           "--start-position", at + 1, small)
    assert status == 0
    assert f"--start-position {at + 1} is inside the event at {at} (size {size}); starting " \
           f"at the next event at {nxt}" in err
    assert all(json.loads(x)["offset"] >= nxt for x in out.splitlines())


def test_a_start_past_the_end(small):
    size = small.stat().st_size
    status, out, err = run("decode", "--start-position", size + 1, small)
    assert status == 1 and out == ""
    assert err.strip() == (f"{small}: --start-position {size + 1} is past the end of the file "
                           f"({size} bytes)")
    assert run("decode", "--start-position", size, small)[:2] == (0, "")  # (the end: nothing)


def test_a_stop_not_after_the_start(small):
    status, out, err = run("decode", "--start-position", 500, "--stop-position", 400, small)
    assert status == 2 and out == ""
    assert "--stop-position 400 is not after --start-position 500" in err


def test_the_stop_position_includes_an_event_that_starts_before_it(small, offsets):
    at = offsets[6][0]
    printed = [json.loads(x)["offset"] for x in
               run("decode", "--stop-position", at, small)[1].splitlines()]
    assert printed == [o for o, _ in offsets[:6]]  # (the event at the stop: not printed)
    printed = [json.loads(x)["offset"] for x in
               run("decode", "--stop-position", at + 1, small)[1].splitlines()]
    assert printed == [o for o, _ in offsets[:7]]  # (it starts before the stop: printed whole)


# ------------------------------------------------------------------ build-table-map

def test_build_table_map_says_which_line_cannot_be_built(tmp_path, small):
    good = run("table-maps", small)[1].splitlines()[0]
    lines = [good, "{not json", "[1, 2]", "42", '{"table": "t"}', ""]
    status, out, err = run("build-table-map", input=("\n".join(lines) + "\n").encode()
                           + b"\xff\xfe\n")
    assert status == 3   # (lines refused, each reported, the others built: statuses.py)
    hexed = out.split("\n")
    assert hexed[0] and all(h == "" for h in hexed[1:])
    for n in (2, 3, 4, 5, 7):
        assert f"line {n}: cannot build:" in err
    assert "expected an object" in err
    path = tmp_path / "maps.jsonl"
    path.write_text(good + "\n")
    assert run("build-table-map", path)[:2] == (0, hexed[0] + "\n")
    status, _, err = run("build-table-map", tmp_path / "nope.jsonl")
    assert status == 1 and "nope.jsonl: no such file or directory" in err


# ------------------------------------------------------------------ validate

VECTOR = ("name: raw-7\ncontext: {{checksum: false}}\nhex: '{hex}'\nexpect: {{header: "
          "{{timestamp: 1, type_code: 7, server_id: 1, event_size: 21, log_pos: 0, flags: []}}, "
          "body: {{hex: '0102'}}}}\n")


def _vector_text():
    from binlog_schema.format.context import Context
    from binlog_schema.format.event_codec import build_event
    ev = build_event({"header": {"timestamp": 1, "type_code": 7, "server_id": 1, "log_pos": 0,
                                 "flags": []}, "body": b"\x01\x02"}, Context(checksum=False))
    return VECTOR.format(hex=ev.hex())


def test_validate_a_folder_with_a_malformed_file_checks_the_others(tmp_path):
    (tmp_path / "a_good.yaml").write_text(_vector_text())
    (tmp_path / "b_bad.yaml").write_text("name: x\nhex: [01, 02\nexpect: 3\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c_good.yml").write_text(_vector_text())
    status, out, err = run("validate", tmp_path)
    assert status == 1
    fails = [x for x in out.splitlines() if x.startswith("FAIL")]
    assert fails == [f"FAIL {tmp_path / 'b_bad.yaml'}, line 3: not YAML: while parsing a flow "
                     "sequence; expected ',' or ']', but got ':'"]
    assert out.splitlines()[-1] == "2 passed, 1 failed"
    assert "<unicode string>" not in out + err


@pytest.mark.parametrize("text, said", [
    ("42\n", "document 2: a YAML int (42), expected a vector"),
    ("just words\n", "document 2: a YAML str ('just words'), expected a vector"),
    ("- a\n- b\n", "document 2: a YAML list (['a', 'b']), expected a vector"),
    ("name: no-hex\nexpect: {}\n", "document 2: no hex: a vector is a mapping with hex"),
])
def test_validate_a_document_of_the_wrong_shape(tmp_path, text, said):
    (tmp_path / "good.yaml").write_text(_vector_text())
    bad = tmp_path / "wrong.yaml"
    bad.write_text("---\n" + _vector_text() + "---\n" + text)
    status, out, _ = run("validate", tmp_path)
    assert status == 1
    assert f"FAIL {bad}, line 7: {said}" in out  # (the second document starts at line 7)
    assert out.splitlines()[-1] == "2 passed, 1 failed"


def test_validate_bytes_that_are_not_text(tmp_path):
    (tmp_path / "binary.yaml").write_bytes(b"name: a\n\x00\x01\x02")
    status, out, _ = run("validate", tmp_path)
    assert status == 1
    assert f"FAIL {tmp_path / 'binary.yaml'}: not YAML: not text" in out


def test_validate_from_a_folder_without_specs(tmp_path):
    status, out, err = run("validate", cwd=tmp_path)
    assert status == 1 and out == ""
    assert err.strip() == ("no such folder: specs (validate reads the YAML vectors under DIR, "
                           "default ./specs)")


def test_validate_a_missing_file_or_folder(tmp_path):
    status, _, err = run("validate", tmp_path / "vectors.yaml")
    assert status == 1 and err.strip() == f"no such file: {tmp_path / 'vectors.yaml'}"
    status, _, err = run("validate", tmp_path / "vectors")
    assert status == 1 and err.strip() == f"no such file or folder: {tmp_path / 'vectors'}"


def test_validate_a_folder_without_vectors(tmp_path):
    status, out, err = run("validate", tmp_path)
    assert status == 1 and "0 passed" not in out
    assert f"no vectors in {tmp_path}" in err


# ------------------------------------------------------------------ fixtures

SPEC = """server: mysql-8.0
database: d
tables:
  - name: t1
    columns:
      - {name: id, type: INT}
transactions:
  - changes:
      - insert: t1
        rows: [{id: 1}]
"""


def _fixture(tmp_path, text, name="spec.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return run("fixtures", path, "-o", tmp_path / "out.bin"), path


def test_fixtures_a_good_spec(tmp_path):
    (status, out, _), _ = _fixture(tmp_path, SPEC)
    assert status == 0 and "out.bin" in out


@pytest.mark.parametrize("text, said", [
    ("server: mysql-8.0\ntables: [\n  {name: t1\n",
     ", line 4, column 1: not YAML: while parsing a flow mapping; expected ',' or '}', but got "
     "'<stream end>'"),
    ("42\n", ", line 1: a YAML int (42), expected a spec: a mapping (server, settings, "
             "database, tables, transactions)"),
    ("", ": an empty document, expected a spec"),
    ("server: mysql-8.0\ntables: 5\n",
     ", line 2: tables: a YAML int, expected a list of tables"),
    ("server: mysql-8.0\ntables: [5]\n",
     ", line 2: tables, item 1: a YAML int, expected a table"),
    ("server: mysql-8.0\ntransactions: {a: 1}\n",
     ", line 2: transactions: a YAML dict, expected a list of transactions"),
    (SPEC.replace("{id: 1}", "{nope: 1}"),
     ", line 8: transaction 1, change 1, table t1, insert row 1: table t1 has no column 'nope'"),
    (SPEC + "  - {changes: [{insert: t1, rows: [{id: 2}]}], timestamp: soon}\n",
     ", line 11: transaction 2: timestamp: a whole number"),
])
def test_fixtures_a_spec_of_the_wrong_shape(tmp_path, text, said):
    (status, out, err), path = _fixture(tmp_path, text)
    assert status == 1 and out == ""
    assert err.strip().startswith(f"fixtures: {path}{said}"), err


@pytest.mark.parametrize("server, said", [
    ("mysql-12.9", "unknown server 'mysql-12.9': newer than the newest mysql profile, "
                   "mysql-9.6"),
    ("mariadb-13.0", "unknown server 'mariadb-13.0': newer than the newest mariadb profile"),
    ("mysq-8.0", "unknown server 'mysq-8.0' (did you mean mysql-8.0?)"),
    ("postgres-16", "unknown server 'postgres-16'"),
])
def test_fixtures_an_unknown_server_is_refused(tmp_path, server, said):
    (status, out, err), path = _fixture(tmp_path, SPEC.replace("mysql-8.0", server))
    assert status == 1 and not (tmp_path / "out.bin").exists()
    assert err.startswith(f"fixtures: {path}, line 1: {said}")
    assert "known servers: mysql-5.7, mysql-8.0" in err and "mariadb-11.8" in err


def test_fixtures_a_server_between_profiles_is_the_one_below(tmp_path):
    (status, out, _), _ = _fixture(tmp_path, SPEC.replace("mysql-8.0", "mysql-8.0.36"))
    assert status == 0 and "(mysql-8.0, 8.0.36)" in out


def test_fixtures_a_missing_spec_file(tmp_path):
    status, out, err = run("fixtures", tmp_path / "spec.yaml", "-o", tmp_path / "x.bin")
    assert status == 1 and err.strip() == f"fixtures: {tmp_path / 'spec.yaml'}: no such file"
    status, out, err = run("fixtures", tmp_path, "-o", tmp_path / "x.bin")
    assert status == 1 and "is a directory" in err
    status, out, err = run("fixtures", "--from-ddl", tmp_path / "t.sql")
    assert status == 1 and err.strip() == f"fixtures: {tmp_path / 't.sql'}: no such file or " \
                                          "directory"


@pytest.mark.parametrize("args, said", [
    (("--random", "--tables", "-2"), "argument --tables: '-2': a whole number from 1"),
    (("--random", "--types", "foo"), "unknown column-type family 'foo'"),
    (("--random", "--types", "int:x"), "'int:x': a weight is a whole number"),
    (("--random", "--flavor", "mysql-12"), "unknown server 'mysql-12'"),
])
def test_fixtures_bad_random_options(tmp_path, args, said):
    status, _, err = run("fixtures", *args, "-o", tmp_path / "r")
    assert status in (1, 2) and said in err


# ------------------------------------------------------------------ spark (argument checks)

@pytest.mark.parametrize("args, said", [
    (("decode", "--split-size", "lots", "--out", "o", "x"), "argument --split-size: 'lots'"),
    (("decode", "--split-size", "0", "--out", "o", "x"), "argument --split-size: '0'"),
    (("fixtures", "--files", "-3", "--out", "o"), "argument --files: '-3'"),
    (("stats", "--top", "-1", "x"), "argument --top: '-1': a whole number from 0"),
    (("stats", "--max-event-size", "lots", "x"), "argument --max-event-size: 'lots'"),
])
def test_spark_bad_values_are_usage_errors(args, said):
    status, out, err = run("spark", *args)
    assert status == 2 and said in err


def test_the_file_spark_submit_runs_parses_its_commands():
    """``spark-submit .../binlog_schema/cli/spark.py decode ...`` runs the file as a script
    (its folder, which holds modules named like standard ones, is no package root then)."""
    import binlog_schema.cli.spark as spark_cli
    out = subprocess.run([sys.executable, spark_cli.__file__, "decode", "--help"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: binlog_schema.cli.spark decode [-h] --out OUT")
    out = subprocess.run([sys.executable, spark_cli.__file__, "stats", "--top", "-1", "x"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "argument --top: '-1'" in out.stderr


# ------------------------------------------------------------------ --help, --version

def _without_help(top) -> list:
    """The options and positionals of a command, and of its subcommands (``spark decode``,
    ...), declared without help text."""
    from binlog_schema.cli.declare import walk
    return [f"{' '.join(path)} {list(o.names)}" for path, cmd in walk(top) for o in cmd.opts
            if not o.kw.get("help")]


def test_every_option_of_every_command_has_help():
    from binlog_schema.cli.registry import root
    top = root()
    assert {"spark", "decode", "fixtures"} <= {c.name for c in top.subs}
    assert _without_help(top) == []


def test_the_help_check_finds_an_option_without_help():
    from binlog_schema.cli.declare import Cmd, Opt
    top = Cmd("t", None, subs=[Cmd("x", "x", opts=[Opt("--y", choices=("a", "b")),
                                                   Opt("z")])])
    assert _without_help(top) == ["x ['--y']", "x ['z']"]


def test_help_says_what_the_options_do():
    status, out, _ = run("decode", "--help")
    assert status == 0
    text = " ".join(out.split())
    assert "stop before the first event that starts at or after byte N" in text
    assert "N inside an event is not an error" in text
    assert "exit status: 0 clean" in text and "3 something was skipped" in text
    text = " ".join(run("validate", "--help")[1].split())
    assert "default: ./specs" in text
    text = " ".join(run("build-table-map", "--help")[1].split())
    assert "(default: stdin)" in text and "table-maps" in text


def test_a_required_option_missing_is_a_usage_error(small, tmp_path):
    """``flashback FILE`` without ``-o`` (and ``serve DIR`` without ``--port``): status 2
    naming the option, nothing written (the fast scan once let it through, and flashback
    wrote its undo to a file named None)."""
    status, out, err = run("flashback", small, cwd=tmp_path)
    assert status == 2 and "-o/--output" in err and out == ""
    assert list(tmp_path.iterdir()) == []
    status, _, err = run("serve", tmp_path, cwd=tmp_path)
    assert status == 2 and "--port" in err


def test_version():
    status, out, err = run("--version")
    assert status == 0 and err == ""
    from importlib.metadata import version
    assert out == f"binlog-schema {version('binlog-schema')}\n"


def test_decode_starts_without_argparse_or_package_metadata(small):
    out = subprocess.run([sys.executable, "-X", "importtime", "-m", "binlog_schema", "decode",
                          str(small)], capture_output=True, timeout=60)
    assert out.returncode == 0
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.decode().splitlines()
                if line.startswith("import time:")}
    assert "binlog_schema.format.stream" in imported
    assert not {"argparse", "importlib.metadata"} & imported

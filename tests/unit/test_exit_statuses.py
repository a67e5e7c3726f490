"""Issue 26: one exit-status table for every command (``binlog_schema/output/statuses.py``), checked
command by command on a clean input, a damaged one (cut inside its last event; and with
``--skip-errors`` where the command has it) and one whose rows cannot be decoded
(``tests/undecodable.py``): the status, and the stderr line that names the file, the offset
and the reason. The commands run in this process (``cli.main``), their output captured at the
file descriptors; ``stream`` reads a folder ``serve`` serves on loopback.

``stream`` is run on the clean and the undecodable inputs only: a file whose last event is
cut is, to ``serve``, a live file whose last event is still being written (it waits for the
rest, as a master does), so a cut file is no damage a stream can see."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

import pytest

from binlog_schema import cli
from binlog_schema.output import statuses
from binlog_schema.output.statuses import CLEAN, DAMAGED, STOPPED, USAGE
from binlog_schema.synthetic import generate
from binlog_schema.format.stream import BinlogReader

from .. import undecodable

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("statuses")
    clean = d / "clean.000001"
    clean.write_bytes(generate(undecodable.spec()))
    data = clean.read_bytes()
    last = list(BinlogReader(data))[-1]
    cut = d / "cut.000001"
    cut.write_bytes(data[:last.offset + 25])     # (the last event cut inside its body)
    bad = undecodable.write(d / "bad.000001")
    tm = d / "maps.jsonl"
    tm.write_text("".join(json.dumps(json.loads(line)) + "\n" for line in _table_maps(clean)))
    broken_tm = d / "broken.jsonl"
    broken_tm.write_text(tm.read_text()[:40] + "\n")
    spec = d / "spec.yaml"
    spec.write_text(json.dumps(undecodable.spec()))   # (JSON is YAML)
    bad_spec = d / "bad-spec.yaml"
    bad_spec.write_text("server: mysql-8.0\ntables: 7\n")
    not_yaml = d / "not-a-vector.yaml"
    not_yaml.write_text("- [unclosed\n")
    return {"clean": str(clean), "cut": str(cut), "cut_at": last.offset, "bad": bad,
            "maps": str(tm), "broken_maps": str(broken_tm), "spec": str(spec),
            "bad_spec": str(bad_spec), "not_yaml": str(not_yaml), "dir": d}


def _table_maps(path):
    r = subprocess.run([sys.executable, "-m", "binlog_schema", "table-maps", str(path)],
                       capture_output=True, text=True, check=True)
    return r.stdout.splitlines()


def run(capfd, *argv):
    """``binlog-schema ARGV`` in this process: (status, stdout, stderr)."""
    capfd.readouterr()
    try:
        status = cli.main([str(a) for a in argv])
    except SystemExit as e:   # (argparse: a usage error)
        status = e.code
    out, err = capfd.readouterr()
    return status, out, err


# what reads binlog files: (name, arguments before the file, has --skip-errors, status on the
# undecodable input, what its output is)
READERS = [
    ("decode", ["decode"], True, CLEAN),                 # (rows not asked for: not decoded)
    ("decode text", ["decode", "--format", "text"], True, CLEAN),
    ("decode --rows", ["decode", "--rows"], True, DAMAGED),
    ("decode --rows text", ["decode", "--rows", "--format", "text"], True, DAMAGED),
    ("decode maxwell", ["decode", "--format", "maxwell"], True, DAMAGED),
    ("decode debezium", ["decode", "--format", "debezium"], True, DAMAGED),
    ("table-maps", ["table-maps"], True, CLEAN),       # (the maps themselves decode)
    ("roundtrip", ["roundtrip"], True, DAMAGED),
    ("sql", ["sql"], False, STOPPED),
    ("sql --flashback", ["sql", "--flashback"], False, STOPPED),
    ("flashback", ["flashback", "-o", "{out}"], False, STOPPED),
]


def _args(args, inputs):
    return [a.replace("{out}", str(inputs["dir"] / "undo.bin")) for a in args]


@pytest.mark.parametrize("name,args,skip,undecoded", READERS, ids=[r[0] for r in READERS])
def test_every_reading_command_follows_the_table(capfd, inputs, name, args, skip, undecoded):
    args = _args(args, inputs)
    # clean: 0, nothing on stderr but notes and summaries
    status, out, err = run(capfd, *args, inputs["clean"])
    assert status == CLEAN, err
    # cut inside its last event: 1, the file and the cut event's offset named
    status, out, err = run(capfd, *args, inputs["cut"])
    assert status == STOPPED, (name, err)
    assert any(inputs["cut"] in line and str(inputs["cut_at"]) in line and
               ("truncated" in line or "cut" in line) for line in err.splitlines()), err
    if name.startswith("sql"):
        assert out == "", "a script of a cut file is withheld whole"
    if skip:   # with --skip-errors: 3, the range skipped named
        status, out, err = run(capfd, *args, "--skip-errors", inputs["cut"])
        assert status == DAMAGED, (name, err)
        assert re.search(rf"{re.escape(inputs['cut'])}: .*(skipped bytes {inputs['cut_at']} "
                         rf"|truncated last event at {inputs['cut_at']})", err), err
    # rows that cannot be decoded
    bad = inputs["bad"]
    status, out, err = run(capfd, *args, bad.path)
    assert status == undecoded, (name, err)
    if undecoded != CLEAN:
        assert bad.said(err), err
    if undecoded == STOPPED:
        assert out == "" or name == "flashback", "a script without a change is withheld"


def test_a_refused_flashback_leaves_its_output_as_it_was(capfd, inputs):
    target = inputs["dir"] / "kept.bin"
    target.write_bytes(b"what was there")
    status, _, err = run(capfd, "flashback", "-o", target, inputs["bad"].path)
    assert status == STOPPED and inputs["bad"].said(err.replace("its rows do not decode: ", ""))
    assert target.read_bytes() == b"what was there"
    assert not [p for p in target.parent.iterdir() if p.name.startswith("kept.bin.")]


def test_build_table_map_validate_and_fixtures_follow_the_table(capfd, inputs, tmp_path):
    status, out, err = run(capfd, "build-table-map", inputs["maps"])
    assert status == CLEAN and len(out.splitlines()) == 3, err
    status, out, err = run(capfd, "build-table-map", inputs["broken_maps"])   # a line cut
    assert status == DAMAGED and out == "\n", err
    assert f"{inputs['broken_maps']}, line 1: cannot build" in err
    status, _, err = run(capfd, "build-table-map", inputs["dir"] / "missing.jsonl")
    assert status == STOPPED and "missing.jsonl: no such file" in err
    status, out, err = run(capfd, "validate", ROOT / "specs" / "events" / "gtid.yaml")
    assert status == CLEAN, out + err
    status, out, err = run(capfd, "validate", inputs["not_yaml"])
    assert status == STOPPED and f"FAIL {inputs['not_yaml']}, line" in out
    status, out, err = run(capfd, "fixtures", inputs["spec"], "-o", tmp_path / "f.000001")
    assert status == CLEAN and (tmp_path / "f.000001").read_bytes()[:4] == b"\xfebin", err
    status, out, err = run(capfd, "fixtures", inputs["bad_spec"], "-o", tmp_path / "g.000001")
    assert status == STOPPED and inputs["bad_spec"] in err and "line 2" in err
    assert not (tmp_path / "g.000001").exists()
    status, _, err = run(capfd, "decode", "--stop-position", "3", "--start-position", "9",
                         inputs["clean"])
    assert status == USAGE and "usage:" in err


class Served:
    """``binlog-schema serve FOLDER --port 0`` in a subprocess (loopback), its port read from
    its first stderr line."""

    def __init__(self, folder):
        self.proc = subprocess.Popen([sys.executable, "-m", "binlog_schema", "serve",
                                      str(folder), "--port", "0"], cwd=ROOT,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        assert " on 127.0.0.1:" in line, line + self.proc.stderr.read()
        self.port = int(line.split(" on 127.0.0.1:")[1].split()[0])

    def stop(self) -> int:
        self.proc.terminate()
        try:
            return self.proc.wait(timeout=20)
        finally:
            self.proc.stderr.close()


@pytest.mark.parametrize("fmt", ["jsonl", "maxwell"])
def test_stream_of_a_served_folder_follows_the_table(capfd, inputs, tmp_path, fmt):
    for which, want in (("clean", CLEAN), ("bad", DAMAGED)):
        folder = tmp_path / which
        folder.mkdir()
        src = inputs["clean"] if which == "clean" else inputs["bad"].path
        (folder / "binlog.000001").write_bytes(pathlib.Path(src).read_bytes())
        served = Served(folder)
        try:
            status, out, err = run(capfd, "stream", "--port", served.port, "--rows",
                                   "--format", fmt)
        finally:
            assert served.stop() == CLEAN   # (stopped by SIGTERM)
        assert status == want, err
        if which == "bad":
            bad = inputs["bad"]
            assert re.search(rf"^binlog\.000001: rows not decoded at offset {bad.offset} "
                             rf"\(WRITE_ROWS_EVENT, table {bad.table}, column {bad.column}\)",
                             err, re.M), err
        if fmt == "maxwell":   # (the row change that cannot be decoded is not written)
            assert len(out.splitlines()) == (3 if which == "clean" else 2), out
    # a folder that cannot be served: 1
    r = subprocess.run([sys.executable, "-m", "binlog_schema", "serve",
                        str(tmp_path / "no-such-folder"), "--port", "0"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == STOPPED and "no-such-folder" in r.stderr


# ------------------------------------------------------------------ the one table, documented


def _helps():
    from binlog_schema.cli.parser import parsers
    return {path[0]: p.format_help() for path, p in parsers().items()
            if len(path) == 1 and path != ("spark",)}


def test_every_command_help_gives_the_one_table():
    """Each command's --help holds the table's sentences (argparse re-wraps them, breaking
    lines at spaces and hyphens: compared without white space)."""
    helps = _helps()
    assert set(helps) >= {"decode", "sql", "flashback", "roundtrip", "table-maps",
                          "build-table-map", "validate", "fixtures", "stream", "serve"}
    for name, text in helps.items():
        flat = "".join(text.split())
        for code, meaning in statuses.TABLE:
            assert f"{code}{''.join(meaning.split())}" in flat, (name, code)


def test_no_command_keeps_its_own_copy_of_the_table():
    from binlog_schema.cli import sql as sql_cli
    assert not hasattr(sql_cli, "STATUSES")
    assert "exit status" not in sql_cli.SQL_NOTES
    for path in (ROOT / "binlog_schema" / "cli").glob("*.py"):
        assert "exit status:" not in path.read_text(), path
    for path in ("binlog_schema/wire/replication/stream_command.py",
                 "binlog_schema/wire/replication/serve_command.py",
                 "binlog_schema/synthetic/fixtures_command.py"):
        text = (ROOT / path).read_text()
        assert "exit status:" not in text, path


def test_the_documented_table_is_the_one_table():
    page = (ROOT / "docs" / "exit-statuses.md").read_text()
    assert statuses.markdown() in page
    readme = (ROOT / "README.md").read_text()
    assert "(docs/exit-statuses.md)" in readme.split("## Exit statuses", 1)[1]


def test_worst_orders_the_statuses():
    assert statuses.worst(CLEAN, DAMAGED) == DAMAGED
    assert statuses.worst(DAMAGED, STOPPED) == STOPPED == statuses.worst(STOPPED, CLEAN)
    assert statuses.worst(CLEAN, CLEAN) == CLEAN

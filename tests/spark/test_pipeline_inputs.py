"""Spark commands over inputs as users give them (issue 26): nothing to read, files that are
no binlogs, a folder that holds a server's binlogs with the files the server keeps beside
them. Each command runs in this process (``binlog_schema.cli.main``, the module's Spark
session) and must end with a status of the one table (binlog_schema/output/statuses.py) and say on
stderr what it could not read, naming the file, in the words of the single-process
``decode`` (errors.not_a_binlog, os_problem); never a traceback.

Needs pyspark (and pyarrow) and Java 17+; without them the tier is skipped with a warning,
and fails under CI=true.
"""

import gzip
import os
import shutil

import pytest

from binlog_schema.format.errors import not_a_binlog
from binlog_schema.output.statuses import CLEAN, DAMAGED, STOPPED

from ..conftest import unavailable
from .pipeline_support import spark_missing, write_shop

pytestmark = pytest.mark.spark

MISSING = spark_missing()
if MISSING:
    unavailable(f"Spark tier not run: {MISSING}", module=True)

from binlog_schema.cli import main  # noqa: E402

GTID_INDEX_HEAD = b"MDBBLIDX\x01\x00\x00\x00\x00\x10\x00\x00"   # MariaDB 11.4+ *.idx


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Bad inputs, one each, and a server's binlog folder: three binlogs whose names sort
    against their order (999999 before 1000000), the index giving it (one entry an absolute
    path of the server's machine, two relative), MariaDB's GTID state and GTID index,
    replica info files."""
    root = tmp_path_factory.mktemp("inputs")
    good = write_shop(root / "good" / "shop-bin.000001", seed=5, transactions=20)
    (root / "empty-folder").mkdir()
    (root / "empty.000001").write_bytes(b"")
    (root / "gzip.000001.gz").write_bytes(gzip.compress(open(good, "rb").read()))
    (root / "text.txt").write_text("not a binlog\n")
    server = root / "server"
    names = ["mysql-bin.999999", "mysql-bin.1000000", "mysql-bin.1000001"]
    for i, name in enumerate(names):
        write_shop(server / name, seed=11, transactions=15, index=i)
    (server / "mysql-bin.index").write_text(
        f"/var/lib/mysql/{names[0]}\n./{names[1]}\n./{names[2]}\n")
    (server / "mysql-bin.state").write_text("0-1-45\n")
    (server / f"{names[0]}.idx").write_bytes(GTID_INDEX_HEAD + bytes(4096 - 16))
    (server / "relay-log.info").write_text("5\n./relay-bin.000001\n4\n\n0\n0\n")
    (server / "master.info").write_text("33\n\n4\n127.0.0.1\n")
    (server / "multi-master.info").write_bytes(b"")
    return {"root": root, "good": good, "server": server, "binlogs": names,
            "bad": {"missing": str(root / "missing.000001"),
                    "empty": str(root / "empty.000001"),
                    "gzip": str(root / "gzip.000001.gz"),
                    "text": str(root / "text.txt")},
            "nothing": {"empty folder": str(root / "empty-folder"),
                        "glob matching nothing": str(root / "good" / "*.bin"),
                        "companions only": None}}


def _reason(path) -> str:
    """What the single-process decode says of a file that is no binlog."""
    if not os.path.exists(path):
        return "no such file or directory"
    with open(path, "rb") as f:
        return str(not_a_binlog(f.read(4)))


def _run(capfd, *argv):
    """(status, stdout, stderr) of ``binlog-schema ARGV`` in this process."""
    capfd.readouterr()
    rc = main(list(argv))
    out, err = capfd.readouterr()
    assert isinstance(rc, int), (rc, err[-2000:])
    assert "Traceback" not in err and "Traceback" not in out, err[-3000:]
    return rc, out, err


def _commands(inp, tmp_path, what):
    """Every spark command that reads inputs, over the inputs ``what``."""
    return {
        "decode": ["spark", "decode", *what, "--out", str(tmp_path / "d"), "--quiet"],
        "current": ["spark", "current", *what, "--out", str(tmp_path / "c"), "--quiet",
                    "--assume-empty"],
        "validate": ["spark", "validate", "--roundtrip", *what],
        "stats": ["spark", "stats", *what, "--quiet"],
    }


def _companions_only(inp, tmp_path):
    d = tmp_path / "companions-only"
    d.mkdir(exist_ok=True)
    for n in os.listdir(inp["server"]):
        if n not in inp["binlogs"]:
            shutil.copy(inp["server"] / n, d / n)
    return str(d)


@pytest.mark.parametrize("command", ["decode", "current", "validate", "stats"])
def test_no_input_file_is_status_1(spark, inputs, tmp_path, capfd, command):
    """An empty folder, a glob that matches nothing, a folder of companion files only: no
    binlog to read. Status 1, one stderr line saying no input file was found and what was
    given; nothing written."""
    for label, given in inputs["nothing"].items():
        given = given or _companions_only(inputs, tmp_path)
        argv = _commands(inputs, tmp_path, [given])[command]
        rc, out, err = _run(capfd, *argv)
        assert rc == STOPPED, (label, rc, out, err[-2000:])
        said = [line for line in err.splitlines() if "no input file found" in line]
        assert len(said) == 1 and repr(given) in said[0], (label, err[-2000:])
        assert not (tmp_path / "d").exists() and not (tmp_path / "c").exists(), label


@pytest.mark.parametrize("command", ["decode", "current", "validate", "stats"])
def test_a_file_that_is_no_binlog_is_said_on_stderr(spark, inputs, tmp_path, capfd, command):
    """A missing, an empty, a gzip'ed and a text file beside a good binlog: status 1 and,
    for each, one stderr line naming the file with the single-process decode's reason; the
    good file read."""
    bad = inputs["bad"]
    argv = _commands(inputs, tmp_path, [*bad.values(), inputs["good"]])[command]
    rc, out, err = _run(capfd, *argv)
    assert rc == STOPPED, (rc, out, err[-2000:])
    for label, path in bad.items():
        lines = [line for line in err.splitlines() if line.endswith(_reason(path))
                 and os.path.basename(path) in line]
        assert len(lines) == 1, (label, err[-3000:])
    if command == "decode":
        assert "reconciliation: 5 files" in out, out
    elif command == "validate":
        assert "roundtrip: 1 passed, 4 failed" in out, out
    elif command == "stats":   # (the good file counted, alone)
        assert "1 file," in out and "shop-bin.000001" in out, out
    else:
        assert "applied to shop-bin.000001" in out, out   # (the good file read)


def test_decode_a_server_binlog_folder(spark, inputs, tmp_path, capfd):
    """A folder as a server leaves it: the binlogs decode, in the index's order (not their
    names'), and the index, GTID state, GTID index and replica info files are listed as
    companions, neither read as binlogs nor errors: status 0, nothing on stderr but
    progress. A stray text file in it: said on stderr with its reason, status 1."""
    server = inputs["server"]
    rc, out, err = _run(capfd, "spark", "decode", str(server), "--out", str(tmp_path / "a"),
                        "--quiet")
    assert rc == CLEAN, (out, err[-3000:])
    assert err.strip() == "" or all("WARN" in x for x in err.strip().splitlines()), err
    rows = [line.split()[0] for line in out.splitlines() if "mysql-bin." in line
            and not line.startswith("companion")]
    assert [os.path.basename(r) for r in rows] == inputs["binlogs"], out
    assert "reconciliation: 3 files" in out and ": OK;" in out, out
    companions = [line for line in out.splitlines() if line.startswith("companion")]
    others = sorted(n for n in os.listdir(server) if n not in inputs["binlogs"])
    assert len(companions) == len(others) == 6, out
    for n in others:
        assert [c for c in companions if f"/{n}: " in c], (n, out)
    assert "the order of 3 files" in out
    import pyarrow.parquet as pq
    files = pq.read_table(str(tmp_path / "a" / "files")).to_pylist()
    assert sorted(os.path.basename(f["file"]) for f in files) == sorted(inputs["binlogs"])
    # a stray file: not a companion, said
    shutil.copy(inputs["bad"]["text"], server / "notes.txt")
    try:
        rc, out, err = _run(capfd, "spark", "decode", str(server), "--out",
                            str(tmp_path / "b"), "--quiet")
    finally:
        os.remove(server / "notes.txt")
    assert rc == STOPPED
    assert [x for x in err.splitlines() if x.endswith(_reason(inputs["bad"]["text"]))
            and "notes.txt" in x], err[-2000:]


def test_an_index_naming_a_file_not_there(spark, inputs, tmp_path, capfd):
    """An index that names a binlog the folder does not hold: the others decode, the file
    it names is said on stderr (the index, the name), status 3."""
    d = tmp_path / "gap"
    shutil.copytree(inputs["server"], d)
    os.remove(d / inputs["binlogs"][1])
    rc, out, err = _run(capfd, "spark", "decode", str(d), "--out", str(tmp_path / "t"),
                        "--quiet")
    assert rc == DAMAGED, (out, err[-2000:])
    said = [x for x in err.splitlines() if "mysql-bin.index" in x
            and inputs["binlogs"][1] in x]
    assert len(said) == 1, err[-2000:]


def test_validate_counts_rows_not_decodable_as_not_passed(spark, inputs, tmp_path, capfd):
    """A binlog whose first TABLE_MAP is gone: every event rebuilds, but the rows of the
    rows event after it cannot be decoded. Not passed: a stderr line (file, offset, "rows
    not decodable", reason), status 3 (beside a file that passes)."""
    from binlog_schema.format.facts.codes import TABLE_MAP_EVENT
    from binlog_schema.output.roundtrip import roundtrip_file
    from binlog_schema.format.stream import BinlogReader
    good = inputs["good"]
    tm = next(r for r in BinlogReader(good) if r.type_code == TABLE_MAP_EVENT)
    data = open(good, "rb").read()
    bad = tmp_path / "no-map.000001"
    bad.write_bytes(data[:tm.offset] + data[tm.offset + len(tm.raw):])
    want = roundtrip_file(str(bad))
    assert want["rows_failed"] and not want["differ"] and not want["failed"]
    at = want["rows_failed"][0]["offset"]
    rc, out, err = _run(capfd, "spark", "validate", "--roundtrip", str(bad), good)
    assert rc == DAMAGED, (rc, out, err[-2000:])
    said = [x for x in err.splitlines()
            if x.startswith(f"{bad}: rows not decodable at {at}: ") and "TABLE_MAP" in x]
    assert len(said) == 1, err[-2000:]
    assert "roundtrip: 1 passed, 1 failed" in out and "rows not decodable in 1 events" in out


@pytest.mark.parametrize("command", ["current", "validate"])
def test_current_and_validate_pass_companions_by(spark, inputs, tmp_path, capfd, command):
    """``spark current`` and ``spark validate`` over a server's binlog folder: its binlogs
    read, its companion files listed, none said to be no binlog."""
    argv = _commands(inputs, tmp_path, [str(inputs["server"])])[command]
    rc, out, err = _run(capfd, *argv)
    companions = [line for line in out.splitlines() if line.startswith("companion")]
    assert len(companions) == 6, out
    assert "not a binlog: it starts with" not in err, err[-2000:]
    if command == "validate":
        assert rc == CLEAN and "roundtrip: 3 passed, 0 failed" in out, (rc, out, err[-2000:])
    else:   # (the shop's tables are created before its binlogs: not known, said)
        assert rc == DAMAGED and "applied to mysql-bin.1000001" in out, (rc, out, err[-2000:])


@pytest.mark.parametrize("command", ["decode", "current"])
def test_rows_that_cannot_be_decoded_are_said_and_status_3(spark, tmp_path, capfd, command):
    """The input of every command's undecodable-rows case (tests/undecodable.py: a TABLE_MAP
    that declares an INT column BIGINT): spark decode and spark current give the rows they
    can and end with status 3, a stderr line naming the file and the rows event's offset;
    never status 0 with the change gone."""
    from ..undecodable import write
    bad = write(tmp_path / "bad.000001", bad="middle", transactions=4)
    argv = _commands({}, tmp_path, [bad.path])[command]
    rc, out, err = _run(capfd, *argv)
    assert rc == DAMAGED, (rc, out[-2000:], err[-2000:])
    said = [x for x in err.splitlines() if bad.path in x and str(bad.offset) in x]
    assert said, err[-3000:]

"""The progress line of long commands: on a pseudo-terminal (stderr a terminal) it appears
(bytes done of the total, rate); on a pipe nothing is written, unless --progress asks; and the
output on stdout is the same either way."""

import os
import pty
import subprocess
import sys

import pytest

from binlog_schema.format.facts.codes import FORMAT_DESCRIPTION_EVENT, QUERY_EVENT
from binlog_schema.output.progress import MIN_TOTAL
from binlog_schema.format.writer import BinlogWriter


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    """A binlog of more than MIN_TOTAL bytes: an FDE and statements of 1 MiB."""
    path = tmp_path_factory.mktemp("progress") / "large.000001"
    with BinlogWriter(path) as w:
        w.write({"header": {"timestamp": 1700000000, "type_code": FORMAT_DESCRIPTION_EVENT,
                            "server_id": 1, "log_pos": None, "flags": []},
                 "body": {"binlog_version": 4, "server_version": "8.0.40",
                          "create_timestamp": 1700000000, "header_length": 19,
                          "post_header_lengths": [0] * 40, "checksum_alg": 1}})
        statement = "INSERT INTO t VALUES ('" + "x" * (1 << 20) + "')"
        for i in range((MIN_TOTAL >> 20) + 2):
            w.write({"header": {"timestamp": 1700000000 + i, "type_code": QUERY_EVENT,
                                "server_id": 1, "log_pos": None, "flags": []},
                     "body": {"thread_id": 1, "exec_time": 0, "error_code": 0,
                              "status_vars": [], "database": "d", "query": statement}})
    assert path.stat().st_size > MIN_TOTAL
    return path


def _on_pty(args):
    """(stdout, what reached the terminal) of the command with stderr on a pseudo-terminal."""
    import tempfile
    master, slave = pty.openpty()
    stdout = tempfile.TemporaryFile()   # (not a pipe: the output is larger than its buffer)
    p = subprocess.Popen([sys.executable, "-m", "binlog_schema", *args],
                         stdout=stdout, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:   # (the terminal closed: the command is done)
            break
        if not chunk:
            break
        seen += chunk
    p.wait()
    os.close(master)
    stdout.seek(0)
    return stdout.read(), seen.decode("utf-8", "replace")


@pytest.mark.parametrize("command", [["stats"], ["decode"], ["roundtrip", "--no-rows"]])
def test_progress_on_a_terminal_not_on_a_pipe(large, command):
    out_tty, seen = _on_pty([*command, str(large)])
    assert "B/s" in seen and f"{command[0]}:" in seen, seen[-500:]
    r = subprocess.run([sys.executable, "-m", "binlog_schema", *command, str(large)],
                       capture_output=True)
    assert b"B/s" not in r.stderr and b"\r" not in r.stderr
    assert r.stdout == out_tty
    forced = subprocess.run([sys.executable, "-m", "binlog_schema", *command, "--progress",
                             str(large)], capture_output=True)
    assert b"B/s" in forced.stderr
    assert forced.stdout == r.stdout


def test_small_inputs_show_none_on_a_terminal(tmp_path):
    from tests.conftest import ROOT
    path = tmp_path / "demo.binlog"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_demo_binlog.py"), str(path)],
                   check=True, capture_output=True)
    _out, seen = _on_pty(["decode", str(path)])
    assert "B/s" not in seen

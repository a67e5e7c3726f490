"""``serve`` is safe by default: beyond loopback it needs ``--user`` (or an explicit
``--no-auth``), since a binlog holds every row of every table; a password file others may read
gets a warning. (No test listens beyond loopback: the refusals come before any socket.)"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from binlog_schema.wire.replication.serve_command import loopback
from binlog_schema.output.statuses import STOPPED, USAGE

from ..conftest import ROOT


def _serve(folder, *options):
    return subprocess.run([sys.executable, "-m", "binlog_schema", "serve", str(folder),
                           "--port", "0", *options], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


@pytest.mark.parametrize("host, want", [
    ("127.0.0.1", True), ("127.0.0.2", True), ("::1", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("", False), ("192.0.2.1", False),
    ("no-such-host.invalid", False)])
def test_loopback_addresses(host, want):
    assert loopback(host) is want


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.1"])
def test_a_host_beyond_loopback_needs_a_user(tmp_path, host):
    out = _serve(tmp_path, "--host", host)
    assert out.returncode == USAGE, out.stderr
    assert out.stderr.count("\n") == 1 and "not a loopback address" in out.stderr \
        and "--user" in out.stderr and "--no-auth" in out.stderr, out.stderr


def test_no_auth_is_not_with_a_user(tmp_path):
    out = _serve(tmp_path, "--host", "0.0.0.0", "--no-auth", "--user", "repl")
    assert out.returncode == USAGE and "--no-auth" in out.stderr, out.stderr


def test_a_user_or_no_auth_lets_the_host_pass(tmp_path):
    # (an address of no interface here: past the host check, serve cannot listen on it)
    for options in (["--user", "repl"], ["--no-auth"]):
        out = _serve(tmp_path, "--host", "192.0.2.1", *options)
        assert out.returncode == STOPPED and "cannot listen on 192.0.2.1" in out.stderr, \
            out.stderr


@pytest.mark.parametrize("mode, warned", [(0o644, True), (0o640, True), (0o600, False),
                                          (0o400, False)])
def test_a_password_file_others_may_read_is_warned_of(tmp_path, mode, warned):
    pw = tmp_path / "pw"
    pw.write_text("secret\n")
    os.chmod(pw, mode)
    folder = tmp_path / "served"
    folder.mkdir()
    out = _serve(folder, "--user", "repl", "--password-file", str(pw))
    assert out.returncode == STOPPED, out.stderr   # (the empty folder)
    warning = [line for line in out.stderr.splitlines() if "warning" in line]
    if warned:
        assert warning == [f"serve: warning: {pw} is readable by others than its owner "
                           f"(mode {mode:04o}): chmod 600 it"], out.stderr
    else:
        assert not warning, out.stderr

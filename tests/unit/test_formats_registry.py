"""The one registry of output formats (``binlog_schema/output/formats.py``): every format it
lists is a ``--format`` of ``decode`` and of ``stream`` (and nothing else is), and runs through
both: ``decode`` of a synthetic binlog, and ``stream`` of an in-process ``serve`` of the same
file, which writes exactly what ``decode`` writes. A format registered but missed by a reader
(the CLI's choices, the decode loop's dispatch, stream) fails here."""

from __future__ import annotations

import re

import pytest

from binlog_schema import cli
from binlog_schema.wire.replication.server import BinlogServer, ServerConfig
from binlog_schema.output.formats import FORMATS, STREAM_FORMATS
from binlog_schema.synthetic.randomspec import random_spec
from binlog_schema.synthetic.writer import generate

NAME = "binlog.000001"


def _choices(capsys, command: str) -> list:
    """The ``--format`` choices ``command``'s parser accepts, as its usage error lists them."""
    with pytest.raises(SystemExit):
        cli.main([command, "--format", "no-such-format", NAME])
    err = capsys.readouterr().err
    m = re.search(r"argument --format: invalid choice: .*\(choose from (.*)\)", err)
    assert m is not None, err
    return re.findall(r"'([^']*)'", m.group(1))


def test_the_format_choices_are_the_registrys(capsys):
    assert _choices(capsys, "decode") == list(FORMATS)
    assert _choices(capsys, "stream") == list(STREAM_FORMATS)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A folder with one synthetic binlog with row changes, served in-process."""
    folder = tmp_path_factory.mktemp("served")
    spec = random_spec(seed=3, tables=2, transactions=3, flavor="mariadb-10.11", rows=2)
    generate(spec, folder / NAME)
    server = BinlogServer(ServerConfig(folder=str(folder))).start()
    yield folder, server
    server.close()


def _run(capfd, argv) -> str:
    status = cli.main(argv)
    out, err = capfd.readouterr()
    assert status == 0, (argv, err)
    return out


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_format_runs_through_decode_and_stream(fmt, served, capfd, monkeypatch):
    folder, server = served
    monkeypatch.chdir(folder)   # (decode's file names as stream's: the file's base name)
    decoded = _run(capfd, ["decode", "--format", fmt, NAME])
    assert decoded.strip(), f"decode --format {fmt} wrote nothing"
    if FORMATS[fmt].changes:   # (one record per row change: the file has some)
        assert len(decoded.splitlines()) >= 2
    if fmt in STREAM_FORMATS:
        streamed = _run(capfd, ["stream", "--port", str(server.port), "--format", fmt])
        assert streamed == decoded

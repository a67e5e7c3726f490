"""What ``binlog-schema spark``'s commands say on stderr, and the status they return, when
they stop short (``cli/spark_runs.py``): each line byte for byte, driven without Spark (the
session and the jobs replaced by stand-ins that raise what the real ones would)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from binlog_schema.cli import spark_runs
from binlog_schema.pipeline.driver import plan, session
from binlog_schema.pipeline.jobs import decode as decode_job
from binlog_schema.pipeline.jobs import fixtures as fixtures_job
from binlog_schema.pipeline.jobs import stats as stats_job
from binlog_schema.pipeline.jobs import validate as validate_job
from binlog_schema.pipeline.tables import result
from binlog_schema.output.statuses import STOPPED, USAGE

SPARK = SimpleNamespace(version="0", sparkContext=SimpleNamespace(master="local",
                                                                  defaultParallelism=1))


def raising(error):
    def stand_in(*args, **kwargs):
        raise error
    return stand_in


@pytest.fixture
def no_spark(monkeypatch):
    monkeypatch.setattr(session, "start_session", lambda *a, **k: SPARK)
    monkeypatch.setattr(session, "jvm_starts_here", lambda: False)
    return monkeypatch


def decode_args(**kw):
    return SimpleNamespace(**{"format": "parquet", "overwrite": False, "out": "o/",
                              "verbose": False,
                              "engine": "arrow", "quiet": True, "inputs": ["x"],
                              "split_size": "8m", "no_rows": False, "include_hidden": False,
                              "schema": None, "master": None, "conf": None, **kw})


@pytest.mark.parametrize("where, error, said, status", [
    ("format", RuntimeError("delta needs deltalake"),
     "binlog-schema spark decode: delta needs deltalake\n", USAGE),
    ("decode", FileExistsError("o/events exists: --overwrite"),
     "binlog-schema spark decode: o/events exists: --overwrite\n", USAGE),
    ("decode", decode_job.SchemaFileError("s.sql: no such file"),
     "binlog-schema spark decode: --schema s.sql: no such file\n", STOPPED),
    ("decode", plan.NoInputError("no input file found: 'x'"),
     "binlog-schema spark decode: no input file found: 'x'\n", STOPPED),
])
def test_spark_decode_refusals(no_spark, capsys, where, error, said, status):
    if where == "format":
        no_spark.setattr(result, "check_format", raising(error))
    else:
        no_spark.setattr(decode_job, "decode", raising(error))
    assert spark_runs.run_decode(decode_args()) == status
    out, err = capsys.readouterr()
    assert (out, err) == ("", said)


def test_spark_stats_without_inputs(no_spark, capsys):
    no_spark.setattr(stats_job, "stats", raising(plan.NoInputError("no input file found")))
    args = SimpleNamespace(html=None, master=None, conf=None, quiet=True, verbose=False,
                           inputs=["x"], top=3,
                           max_event_size=1 << 20, split_size="8m", include_hidden=False)
    assert spark_runs.run_stats(args) == STOPPED
    assert capsys.readouterr() == ("", "binlog-schema spark stats: no input file found\n")


def test_spark_fixtures_bad_value(no_spark, capsys):
    no_spark.setattr(fixtures_job, "generate", raising(ValueError("unknown server 'x'")))
    args = SimpleNamespace(master=None, conf=None, verbose=False, out="o", files=1, seed=1,
                           flavor="x",
                           transactions=1, table_maps=1)
    assert spark_runs.run_fixtures(args) == USAGE
    assert capsys.readouterr() == ("", "binlog-schema spark fixtures: unknown server 'x'\n")


@pytest.mark.parametrize("specs, roundtrip, where, error, said, status", [
    (None, None, None, None,
     "binlog-schema spark validate: give --specs DIR and/or --roundtrip INPUT...\n", USAGE),
    (None, ["x"], "inputs", plan.NoInputError("no input file found: 'x'"),
     "binlog-schema spark validate: --roundtrip: no input file found: 'x'\n", STOPPED),
    ("specs", None, "validate", PermissionError(13, "Permission denied", "specs/a.yaml"),
     "binlog-schema spark validate: specs/a.yaml: permission denied\n", STOPPED),
])
def test_spark_validate_refusals(no_spark, capsys, specs, roundtrip, where, error, said,
                                 status):
    if where == "inputs":
        no_spark.setattr(plan, "binlog_inputs", raising(error))
    elif where == "validate":
        no_spark.setattr(validate_job, "validate", raising(error))
    args = SimpleNamespace(specs=specs, roundtrip=roundtrip, master=None, conf=None,
                           verbose=False, out=None,
                           overwrite=False)
    assert spark_runs.run_validate(args) == status
    assert capsys.readouterr() == ("", said)


"""The schema history is on by default: a file's own CREATE TABLEs name the rows of table maps
that carry no names (MINIMAL metadata, or none: older servers), in every command, without
``--schema``; files whose table maps carry names decode as they do without a history."""

import io
import json
import os
import subprocess
import sys

from binlog_schema.changes.schema.building import history_for
from binlog_schema.output.write import Output, write_events

from ..conftest import ROOT, corpus_file

CLI = [sys.executable, "-m", "binlog_schema"]
SAKILA = "mysql-binlog-connector-java/mysql-bin.sakila"      # MySQL 5.5: no metadata
MINIMAL = "mysql-cdc-rs/8.0/folder/binlog.000693"            # MySQL 8.0.31, MINIMAL


def _cli(*args):
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env=dict(os.environ, TZ="UTC"))


def _row_keys(stdout):
    keys = set()
    for d in map(json.loads, stdout.splitlines()):
        for r in d.get("rows") or ():
            for image in ((r["before"], r["after"]) if "before" in r else (r,)):
                keys |= set(image or ())
    return keys


def test_create_tables_in_the_files_name_the_rows_in_every_command():
    path = corpus_file(SAKILA)
    run = _cli("decode", "--rows", path)
    assert run.returncode == 0, run.stderr
    keys = _row_keys(run.stdout)
    assert {"film_id", "title", "rating", "special_features"} <= keys
    assert not any(k.startswith("@") for k in keys)
    film = next(r for d in map(json.loads, run.stdout.splitlines())
                for r in d.get("rows") or () if "rating" in r)
    assert film["rating"] in ("G", "PG", "PG-13", "R", "NC-17")   # (ENUM members, too)
    assert "schema history: 16 table map shapes named from it" in run.stderr
    for fmt in ("maxwell", "debezium"):
        out = _cli("decode", "--format", fmt, path)
        assert out.returncode == 0 and '"film_id":' in out.stdout and '"@1"' not in out.stdout
    sql = _cli("sql", path)   # (refused without names before: it needs them)
    assert sql.returncode == 0, sql.stderr
    assert "INSERT INTO `sakila`.`film` (`film_id`, `title`" in sql.stdout


def test_filters_do_not_hide_the_ddl_from_the_history():
    """Rows after a --start-datetime that leaves every CREATE TABLE out are named."""
    run = _cli("decode", "--rows", "--start-datetime", "2023-12-04 01:52:00",
               corpus_file(MINIMAL))
    assert run.returncode == 0, run.stderr
    keys = _row_keys(run.stdout)
    assert "CLUSTER_NAME" in keys and not any(k.startswith("@") for k in keys)


def test_files_with_names_decode_as_without_a_history(corpus):
    """Every corpus file whose table maps carry names: the same lines, messages and status
    with the default history as without one (and no summary line)."""
    checked = 0
    for path in corpus:
        plain, err = io.StringIO(), io.StringIO()
        o = Output(plain)
        want = write_events(str(path), o, rows=True, err=err)
        o.flush()
        if '"TABLE_MAP_EVENT"' not in plain.getvalue() or any(
                '"TABLE_MAP_EVENT"' in line and '"COLUMN_NAME"' not in line
                for line in plain.getvalue().splitlines()):
            continue
        got_out, got_err = io.StringIO(), io.StringIO()
        o = Output(got_out)
        got = write_events(str(path), o, rows=True, err=got_err,
                           schema=history_for([str(path)]))
        o.flush()
        assert (got, got_out.getvalue(), got_err.getvalue()) == \
            (want, plain.getvalue(), err.getvalue()), path
        checked += 1
    assert checked >= 5

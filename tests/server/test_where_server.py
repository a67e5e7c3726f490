"""Server tier, a row's history (``--where``): a private, real MariaDB (scripts/mariadb.sh) runs
the workload of tests/server/where_workload.py -- one watched row per table, keyed by an
integer, a decimal, a utf8mb4 string, a latin1 string, a date, a datetime, and a table that is
1% of the rows events; the row updated alone and with others by multi-row events, moved to
another key (the matched column changed), inserted again, deleted with a neighbour, among
other rows' changes, over two binlog files -- under binlog_row_metadata FULL and MINIMAL
(``--schema`` then names the columns). For each watched row's ``--where``:

* ``decode --rows``, ``decode --format maxwell``, ``sql`` and ``sql --flashback`` give exactly
  the row changes of the full output (``decode --rows`` and the others without --where) that
  the test finds with the row's key in their before or after image: the same rows, the same
  records (each change's position, GTID, time, order key), the same statements with the same
  comments; ``stats --where`` counts them and their transactions;
* ``sql --where ... | mariadb`` on the tables as they were before the workload (S0) gives
  them as they were after it (S1) for the keys the row had, and leaves every other row at S0;
  ``sql --flashback --where ... | mariadb`` on S1 gives the row back its earlier values
  (S0 for those keys) and touches no other row.

Run: ``.venv/bin/python -m pytest tests/server/test_where_server.py`` (one private server, the
workload twice).
"""

from __future__ import annotations

import collections
import json
import os
import re

import pytest

from . import flashback_workload as fw
from . import where_workload as ww
from ..conftest import unavailable

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def server():
    missing = [t for t in ("mariadbd", "mariadb", "mariadb-dump") if not fw.tool(t)]
    msg = None
    if missing:
        msg = (f"{', '.join(missing)} not installed (apt-get install mariadb-server "
               "mariadb-client): --where server tier not run")
    else:
        try:
            import pymysql  # noqa: F401
        except ImportError:
            msg = "pymysql missing: --where server tier not run"
    if msg:
        unavailable(msg)
    try:
        srv = fw.Server(f"where-test-{os.getpid()}", "--binlog-checksum=CRC32",
                        "--binlog-row-image=FULL")
    except RuntimeError as e:
        unavailable(f"the private MariaDB did not start: --where server tier not run: {e}")
    try:
        yield srv
    finally:
        srv.destroy()


_runs: dict = {}


@pytest.fixture(scope="module", params=["full", "minimal"])
def run(request, server, tmp_path_factory):
    """The workload of a configuration and the full outputs of its files."""
    config = request.param
    if config not in _runs:
        w = ww.run_workload(server, config, tmp_path_factory.mktemp(f"where-{config}"))
        full = Full(w)
        _runs[config] = (w, full)
    return _runs[config]


def _out(*args) -> str:
    r = fw.binlog_schema(*args)
    assert r.returncode == 0, (args, r.stderr.decode(errors="replace")[-2000:])
    return r.stdout.decode("utf-8")


def _schema(w) -> list:
    return ["--schema", w.schema] if w.config == "minimal" else []


def _images(row):
    return [row] if "before" not in row and "after" not in row else \
        [x for x in (row.get("before"), row.get("after")) if x is not None]


class Full:
    """The full outputs of a workload's files (no --where), and the row changes of a watched
    row found in them by this test."""

    def __init__(self, w):
        self.w = w
        files, schema = w.files, _schema(w)
        self.decoded = [json.loads(x) for x in _out("decode", "--rows", *schema, *files)
                        .splitlines()]
        self.maxwell = [json.loads(x) for x in _out("decode", "--format", "maxwell", *schema,
                                                    *files).splitlines()]
        self.sql = _out("sql", *schema, *files)
        self.flashback = _out("sql", "--flashback", *schema, *files)

    def changes(self, watched):
        """[(file name, offset, row index, row JSON)] of the changes whose before or after
        image has the watched key, in binlog order (decode --rows, filtered here)."""
        want = watched.exact(watched.key)
        maps, out = {}, []
        for d in self.decoded:
            if d["type"] == "TABLE_MAP_EVENT":
                body = d["body"]
                maps[(d["file"], body["table_id"])] = (body["database"], body["table"])
            elif d.get("rows"):
                if maps[(d["file"], d["body"]["table_id"])] != (ww.DB, watched.table):
                    continue
                for i, row in enumerate(d["rows"]):
                    if any(_text(watched, im.get(watched.column)) == want
                           for im in _images(row)):
                        out.append((os.path.basename(d["file"]), d.get("in_payload_at",
                                                                       d["offset"]), i, row))
        return out


def _text(watched, v):
    """A key value of decode's JSON as the exact text of the state (None for NULL)."""
    return None if v is None else watched.exact(v)


def _maxwell_matches(watched, rec) -> bool:
    if (rec["database"], rec["table"]) != (ww.DB, watched.table):
        return False
    before = {**rec["data"], **(rec.get("old") or {})}
    want = watched.exact(watched.key)
    return want in (_text(watched, rec["data"].get(watched.column)),
                    _text(watched, before.get(watched.column)))


_COMMENT = re.compile(r"^-- (\S+):(\d+) row (\d+), ")


def _statements(text):
    """[(comment, statement)] of a SQL script of binlog-schema sql: each row change's
    comment line (``-- FILE:OFFSET row N, TIME``) and the statement after it."""
    lines = text.splitlines()
    return [(c, s) for c, s in zip(lines, lines[1:]) if _COMMENT.match(c)]


def _key_of(comment):
    m = _COMMENT.match(comment)
    return (m.group(1), int(m.group(2)), int(m.group(3)) - 1)


# ------------------------------------------------------------------------ what is found


@pytest.mark.parametrize("watched", ww.WATCHED, ids=lambda w: w.table)
def test_where_finds_exactly_the_filtered_changes(run, watched):
    w, full = run
    files, schema = w.files, _schema(w)
    want = full.changes(watched)
    assert len(want) >= (3 if watched is ww.RARE else 5), want
    keys = [k[:3] for k in want]
    ops = collections.Counter("update" if "before" in r else "other" for *_, r in want)
    assert ops["update"] >= (2 if watched is ww.RARE else 3)

    # decode --rows: the rows events of the transactions that hold one, with those rows alone
    got = [json.loads(x) for x in _out("decode", "--rows", "--where", watched.where, *schema,
                                       *files).splitlines()]
    rows = [(os.path.basename(d["file"]), d.get("in_payload_at", d["offset"]), row)
            for d in got if d.get("rows") for row in d["rows"]]
    assert rows == [(f, o, r) for f, o, _, r in want]

    # maxwell: the full output's records of those changes (position, GTID, time, order key)
    records = [json.loads(x) for x in _out("decode", "--format", "maxwell", "--where",
                                           watched.where, *schema, *files).splitlines()]
    chosen = _chosen(full, watched)
    assert [(r["position"], int(r["order_key"].rsplit(".", 1)[1])) for r in chosen] == [
        (f"{f}:{o}", i) for f, o, i, _ in want]   # (the test's two filters agree)
    assert [_no_commit(r) for r in records] == [_no_commit(r) for r in chosen]
    last = {}
    for n, r in enumerate(records):   # (commit: on the last record of each transaction)
        last[r["xid"]] = n
    assert [n for n, r in enumerate(records) if r.get("commit")] == sorted(last.values())

    # sql and sql --flashback: the full script's statements of those changes, comments and all
    for flashback, text in ((False, full.sql), (True, full.flashback)):
        extra = ["--flashback"] if flashback else []
        got = _statements(_out("sql", *extra, "--where", watched.where, *schema, *files))
        assert got == [p for p in _statements(text) if _key_of(p[0]) in keys], flashback
        assert len(got) == len(want)

    # stats: the changes counted, by operation, and the transactions that hold them
    d = json.loads(_out("stats", "--format", "json", "--where", watched.where, *schema,
                        *files))
    by_op = collections.Counter(r["type"] for r in chosen)
    assert [(t["database"], t["table"]) for t in d["tables"]] == [(ww.DB, watched.table)]
    assert {k: d["changes"][k] for k in ("inserts", "updates", "deletes")} == {
        "inserts": by_op["insert"], "updates": by_op["update"], "deletes": by_op["delete"]}
    assert d["transactions"]["count"] == len({r["gtid"] for r in chosen})


def _chosen(full, watched):
    """The full maxwell output's records of the watched row (before or after image)."""
    return [r for r in full.maxwell if _maxwell_matches(watched, r)]


def _no_commit(rec):
    return {k: v for k, v in rec.items() if k != "commit"}


# ------------------------------------------------------------------------ what it does


def _mixed(base, other, watched):
    """``base``'s rows, but those of the watched table whose keys the watched row had taken
    from ``other``: {table: sorted rows}."""
    out = {}
    name = f"{ww.DB}.{watched.table}"
    for table, st in base.items():
        rows = st["rows"]
        if table == name:
            rows = [r for r in rows if r[0] not in watched.keys] + [
                r for r in other[table]["rows"] if r[0] in watched.keys]
        out[table] = sorted(rows, key=repr)
    return out


def _rows(state):
    return {table: sorted(st["rows"], key=repr) for table, st in state.items()}


@pytest.mark.parametrize("watched", ww.WATCHED, ids=lambda w: w.table)
def test_where_scripts_replay_and_undo_only_that_row(server, run, watched):
    w, _ = run
    files, schema = w.files, _schema(w)
    name = f"{ww.DB}.{watched.table}"
    assert [r for r in w.s0[name]["rows"] if r[0] in watched.keys] != \
        [r for r in w.s1[name]["rows"] if r[0] in watched.keys]
    # replayed on S0: the row's keys as at S1, every other row as at S0
    ww.restore(server, w.copies["s0"])
    script = fw.binlog_schema("sql", "--where", watched.where, *schema, *files)
    assert script.returncode == 0, script.stderr.decode(errors="replace")
    rc, err = server.apply_sql(script.stdout)
    assert rc == 0, err
    got = fw.exact_state(server, (ww.DB,))
    assert _rows(got) == _mixed(w.s0, w.s1, watched)
    # undone on S1: the row's earlier values back (S0 for its keys), no other row touched
    ww.restore(server, w.copies["s1"])
    script = fw.binlog_schema("sql", "--flashback", "--where", watched.where, *schema, *files)
    assert script.returncode == 0, script.stderr.decode(errors="replace")
    rc, err = server.apply_sql(script.stdout)
    assert rc == 0, err
    got = fw.exact_state(server, (ww.DB,))
    assert _rows(got) == _mixed(w.s1, w.s0, watched)

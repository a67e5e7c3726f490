"""--where in sql, sql --flashback, flashback and decode on the demo binlog (a shop, made
from the declarations): exactly the statements of the full output that touch the row, and a
usage error (2) for a column the named table does not have."""

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = tmp_path_factory.mktemp("where") / "demo.000001"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_demo_binlog.py"), str(path)],
                   check=True, capture_output=True)
    return path


def _run(*args):
    return subprocess.run([sys.executable, "-m", "binlog_schema", *map(str, args)],
                          capture_output=True, text=True)


def _statements(text, row=None):
    """The statement lines of a SQL script (``row``: only those of shop.orders row 1002)."""
    out = [x for x in text.splitlines() if x.startswith(("INSERT", "UPDATE", "DELETE"))]
    if row:
        out = [x for x in out if "`shop`.`orders`" in x and (
            "VALUES (1002," in x or "WHERE `id` = 1002;" in x)]
    return out


@pytest.mark.parametrize("flashback", [False, True])
def test_sql_where_is_the_full_script_filtered(demo, flashback):
    extra = ["--flashback"] if flashback else []
    full = _run("sql", *extra, demo)
    got = _run("sql", *extra, "--where", "id=1002", "--table", "shop.orders", demo)
    assert full.returncode == got.returncode == 0, got.stderr
    want = _statements(full.stdout, row=True)
    assert len(want) >= 3   # (inserted, updated, deleted)
    assert _statements(got.stdout) == want


def test_flashback_where_inverts_only_the_row(demo, tmp_path):
    out = tmp_path / "undo.bin"
    r = _run("flashback", "--where", "id=1002", "--table", "shop.orders", demo, "-o", out)
    assert r.returncode == 0, r.stderr
    changes = [json.loads(x) for x in _run("decode", "--format", "maxwell", out).stdout
               .splitlines()]
    assert changes and all(c["table"] == "orders" and c["data"]["id"] == 1002
                           for c in changes)
    assert [c["type"] for c in changes][0] == "insert"   # (the delete, undone first)


def test_decode_where_keeps_only_matching_transactions(demo):
    got = [json.loads(x) for x in _run("decode", "--rows", "--where", "customer=3",
                                       "--table", "shop.orders", demo).stdout.splitlines()]
    rows = [r for d in got for r in d.get("rows") or ()]
    assert rows and all(any((im or {}).get("customer") == 3 for im in
                            ((r.get("before"), r.get("after")) if "after" in r else (r,)))
                        for r in rows)
    gtids = [d for d in got if d["type"] == "GTID_EVENT"]
    xids = [d for d in got if d["type"] == "XID_EVENT"]
    assert len(gtids) == len(xids) == len({d["offset"] for d in got if d.get("rows")})


def test_a_column_the_table_lacks_is_a_usage_error(demo, tmp_path):
    for args in (["decode"], ["sql"], ["sql", "--flashback"], ["stats"],
                 ["flashback", "-o", tmp_path / "x.bin"]):
        table = [] if args == ["stats"] else ["--table", "shop.orders"]
        r = _run(*args, "--where", "sku=1" if table else "nosuch=1", *table, demo)
        assert r.returncode == 2, (args, r.stderr)
        assert ("no column sku" in r.stderr) if table else ("nosuch" in r.stderr), r.stderr
    assert not (tmp_path / "x.bin").exists()


def test_a_change_keeps_its_row_index_in_its_event(demo):
    """A change found by --where in a rows event of several rows keeps its place in that
    event: the order key (maxwell), ``source.row`` (debezium) and the SQL comment of the
    full output (not the place among the rows kept)."""
    def matches(rec):
        return rec["table"] == "inventory" and 3 in (rec["data"]["sku"],
                                                   (rec.get("old") or {}).get("sku"))
    full = [json.loads(x) for x in _run("decode", "--format", "maxwell", demo).stdout
            .splitlines()]
    want = [r["order_key"] for r in full if matches(r)]
    got = [json.loads(x)["order_key"] for x in _run(
        "decode", "--format", "maxwell", "--where", "sku=3", demo).stdout.splitlines()]
    assert got == want and any(not k.endswith(".0000000000") for k in want)
    rows = [json.loads(x)["source"]["row"] for x in _run(
        "decode", "--format", "debezium", "--where", "sku=3", demo).stdout.splitlines()]
    assert rows == [int(k.rsplit(".", 1)[1]) for k in want]
    for extra in ([], ["--flashback"]):
        lines = _run("sql", *extra, demo).stdout.splitlines()
        comments = [c for c, s in zip(lines, lines[1:]) if "`shop`.`inventory`" in s and (
            "VALUES (3," in s or "WHERE `sku` = 3;" in s)]
        got = [x for x in _run("sql", *extra, "--where", "sku=3", demo).stdout.splitlines()
               if x.startswith("-- ") and " row " in x]
        assert got == comments and len(got) == len(want)

"""decode under the filters it shares with sql and flashback (--gtid, --operation, --table,
--database, the time window), on the example fixture: GTID 0-1-1 inserts into shop.orders,
0-1-2 is an ALTER TABLE, 0-1-3 updates the row."""

from __future__ import annotations

import json

import pytest

from binlog_schema import cli
from binlog_schema.synthetic import generate, load_spec

from ..conftest import ROOT

SPEC = ROOT / "specs" / "fixtures" / "examples" / "shop-minimal.fixture"


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    path = tmp_path_factory.mktemp("filters") / "shop.000001"
    path.write_bytes(generate(load_spec(SPEC)))
    return path


def decode(capsys, *args):
    status = cli.main(["decode", *map(str, args)])
    out = capsys.readouterr().out
    return status, [json.loads(line) for line in out.splitlines()]


def types(lines):
    return [(x["offset"], x["type"]) for x in lines]


def test_no_filter_prints_every_event(shop, capsys):
    status, lines = decode(capsys, shop)
    assert status == 0 and len(lines) == 16


def test_gtid_selects_one_transaction(shop, capsys):
    status, lines = decode(capsys, shop, "--gtid", "0-1-3")
    assert status == 0
    assert [t for _, t in types(lines)] == ["GTID_EVENT", "ANNOTATE_ROWS_EVENT",
                                            "TABLE_MAP_EVENT", "UPDATE_ROWS_EVENT_V1",
                                            "XID_EVENT"]
    assert lines[0]["offset"] == 780


def test_operation_keeps_the_rows_events_of_that_operation(shop, capsys):
    _, lines = decode(capsys, shop, "--operation", "update")
    rows = [t for _, t in types(lines) if "ROWS_EVENT" in t and "ANNOTATE" not in t]
    assert rows == ["UPDATE_ROWS_EVENT_V1"]
    # context events and the schema change stay (no transaction filter)
    assert "FORMAT_DESCRIPTION_EVENT" in [t for _, t in types(lines)]


def test_table_and_database_filters(shop, capsys):
    _, lines = decode(capsys, shop, "--table", "other.*")
    assert not [t for _, t in types(lines) if t in ("TABLE_MAP_EVENT", "QUERY_EVENT")]
    assert not [t for _, t in types(lines) if t.endswith("ROWS_EVENT_V1")]
    _, lines = decode(capsys, shop, "--database", "shop")
    assert [t for _, t in types(lines)].count("TABLE_MAP_EVENT") == 2


def test_time_window(shop, capsys):
    # the transactions begin at 1700000000 (0-1-1), ...1 (the ALTER), ...2 (0-1-3)
    _, lines = decode(capsys, shop, "--start-datetime", "2023-11-14 22:13:22")
    assert [t for _, t in types(lines)].count("TABLE_MAP_EVENT") == 1
    assert "UPDATE_ROWS_EVENT_V1" in [t for _, t in types(lines)]
    assert "WRITE_ROWS_EVENT_V1" not in [t for _, t in types(lines)]


def test_a_bad_filter_is_a_usage_error(shop, capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["decode", str(shop), "--gtid", "nope"])
    assert e.value.code == 2
    assert "--gtid" in capsys.readouterr().err

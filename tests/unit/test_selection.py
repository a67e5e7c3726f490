"""The filters decode, sql and flashback share (changes/selection.py): GTID sets, tables,
operations, time windows, and decode's event filter on a synthetic binlog."""

from __future__ import annotations

import pytest

from binlog_schema.changes.selection import GtidSet, Selection, SelectionError, parse_datetime

UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"


def test_mysql_gtid_set_intervals_and_tags():
    s = GtidSet(f"{UUID}:1-5:7,{UUID.upper()}:tag_a:3")
    assert f"{UUID}:1" in s and f"{UUID}:5" in s and f"{UUID}:7" in s
    assert f"{UUID}:6" not in s and f"{UUID}:8" not in s
    # the GTID event body gives the sid without dashes: the same server
    assert f"{UUID.replace('-', '')}:3" in s
    assert f"{UUID}:tag_a:3" in s and f"{UUID}:tag_a:4" not in s and f"{UUID}:tag_b:3" not in s
    assert None not in s


def test_mariadb_gtid_set_items_and_ranges():
    s = GtidSet("0-1-5,0-1-10-12,1-2-3")
    assert "0-1-5" in s and "0-1-11" in s and "1-2-3" in s
    assert "0-1-6" not in s and "0-2-5" not in s and "0-1-13" not in s


@pytest.mark.parametrize("text", ["", "nope", f"{UUID}", f"{UUID}:5-3", "0-1", "0-1-9-2",
                                  "zz:1"])
def test_bad_gtid_sets_are_refused(text):
    with pytest.raises(SelectionError):
        Selection.from_options(gtid=text)


def test_tables_databases_and_globs():
    s = Selection.from_options(table=["shop.order_*", "users"])
    assert s.table("shop", "order_items") and s.table("crm", "users")
    assert not s.table("shop", "customers") and not s.table("crm", "orders")
    d = Selection.from_options(database=["shop"])
    assert d.table("shop", "x") and not d.table("crm", "x")
    assert d.database("shop") and not d.database("crm") and d.database(None)


def test_operations_and_threads():
    s = Selection.from_options(operation="insert,DELETE", thread_id=["7", "9"])
    assert s.operation("insert") and s.operation("delete") and not s.operation("update")
    assert s.transaction(None, 7, 0) and not s.transaction(None, 8, 0)
    with pytest.raises(SelectionError):
        Selection.from_options(operation="upsert")
    with pytest.raises(SelectionError):
        Selection.from_options(thread_id="x")


def test_time_window_is_utc_unless_an_offset_says_otherwise():
    assert parse_datetime("1970-01-01 00:01:00") == 60
    assert parse_datetime("1970-01-01 01:01:00+01:00") == 60
    s = Selection.from_options(start_datetime="1970-01-01 00:01:00",
                               stop_datetime="1970-01-01 00:02:00")
    assert s.transaction(None, None, 60) and s.transaction(None, None, 119)
    assert not s.transaction(None, None, 59) and not s.transaction(None, None, 120)
    with pytest.raises(SelectionError):
        Selection.from_options(start_datetime="1970-01-01 00:02:00",
                               stop_datetime="1970-01-01 00:01:00")
    with pytest.raises(SelectionError):
        parse_datetime("yesterday")


def test_nothing_selected_means_everything():
    s = Selection()
    assert not s.any and s.table("a", "b") and s.operation("update")
    assert s.transaction(None, None, None)

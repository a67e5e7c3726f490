"""Row changes as SQL statements and their inverses (output/sql_statements.py): keys, keyless
tables, partial images refused with the missing columns named, MySQL partial JSON applied to
the before document."""

from __future__ import annotations

import pytest

from binlog_schema.changes.row_change import RowChange
from binlog_schema.changes.table_map import Column, TableMap
from binlog_schema.output.sql_statements import SqlRefused, SqlTable
from binlog_schema.format.values.image import JsonDiff
from binlog_schema.format.values.json_binary import JsonDiffOp

UTF8MB4 = 255


def table(key=True):
    cols = [Column(0, "LONG", "id", unsigned=False), Column(1, "VARCHAR", "name",
                                                             collation_id=UTF8MB4,
                                                             max_length=80),
            Column(2, "JSON", "doc", pack_length=4)]
    tm = TableMap(7, "shop", "t", cols, primary_key=[{"column": 0, "prefix": 0}] if key
                  else None, flavor="mysql")
    return SqlTable(tm, ["id", "name", "doc"], "mysql")


def change(op, before=None, after=None):
    return RowChange("shop", "t", op, 0, before, after, 100)


def test_insert_delete_update_by_primary_key():
    t = table()
    assert t.statement(change("insert", after={"id": 1, "name": "a", "doc": None})) == \
        "INSERT INTO `shop`.`t` (`id`, `name`, `doc`) VALUES (1, _utf8mb4'a', NULL)"
    assert t.statement(change("delete", before={"id": 1, "name": "a", "doc": None})) == \
        "DELETE FROM `shop`.`t` WHERE `id` = 1"
    up = change("update", {"id": 1, "name": "a", "doc": None}, {"id": 1, "name": "b",
                                                               "doc": None})
    assert t.statement(up) == "UPDATE `shop`.`t` SET `name` = _utf8mb4'b' WHERE `id` = 1"
    assert t.inverse(up) == "UPDATE `shop`.`t` SET `name` = _utf8mb4'a' WHERE `id` = 1"


def test_keyless_tables_match_every_column_and_limit_one():
    t = table(key=False)
    text = t.statement(change("delete", before={"id": 1, "name": "a", "doc": None}))
    assert text.startswith("DELETE FROM `shop`.`t` WHERE `id` <=> 1 AND ")
    assert "`doc` <=> NULL" in text or "`doc` IS NULL" in text
    assert text.endswith(" LIMIT 1")


def test_partial_images_are_refused_naming_the_columns():
    t = table(key=False)
    with pytest.raises(SqlRefused, match="lacks name, doc"):
        t.statement(change("delete", before={"id": 1}))
    with pytest.raises(SqlRefused, match="lacks name, doc"):
        table().inverse(change("delete", before={"id": 1}))
    # an update whose before image lacks a column it changed cannot be undone
    with pytest.raises(SqlRefused, match="lacks name"):
        table().inverse(change("update", {"id": 1}, {"id": 1, "name": "b"}))


def test_partial_json_is_applied_to_the_before_document():
    t = table()
    up = change("update", {"id": 1, "name": "a", "doc": {"x": 1, "y": [1, 2]}},
                {"id": 1, "name": "a", "doc": JsonDiff([JsonDiffOp("REPLACE", "$.x", 5)])})
    text = t.statement(up)
    assert text.startswith("UPDATE `shop`.`t` SET `doc` = ") and "WHERE `id` = 1" in text
    assert '"x": 5' in text or '"x":5' in text
    back = t.inverse(up)
    assert '"x": 1' in back or '"x":1' in back
    with pytest.raises(SqlRefused, match="no before document"):
        t.statement(change("update", {"id": 1}, {"id": 1, "doc": JsonDiff([JsonDiffOp(
            "REPLACE", "$.x", 5)])}))


def test_a_table_without_names_is_refused():
    tm = TableMap(7, "shop", "t", [Column(0, "LONG")], flavor="mysql")
    with pytest.raises(SqlRefused, match="--schema"):
        SqlTable(tm, ["@1"], "mysql")


def test_literal_writers_are_chosen_once_and_fail_only_for_a_value():
    """Each column's literal and WHERE-term writers are made with the table (sql_text's
    literal_of / condition_of); what they cannot write (an unknown collation, a NaN) is
    refused for the value that needs it, naming the column, and a NULL of such a column is
    still written: the same statements as the writers made per value."""
    cols = [Column(0, "LONG", "id"), Column(1, "VARCHAR", "odd", collation_id=9999,
                                            max_length=10),
            Column(2, "DOUBLE", "x", pack_length=8)]
    tm = TableMap(7, "shop", "t", cols, primary_key=[{"column": 0, "prefix": 0}],
                  flavor="mysql")
    t = SqlTable(tm, ["id", "odd", "x"], "mysql")
    assert t.insert({"id": 1, "odd": None, "x": 1.5}) == \
        "INSERT INTO `shop`.`t` (`id`, `odd`, `x`) VALUES (1, NULL, 1.5e0)"
    assert t.insert({"id": 1, "x": None}) == "INSERT INTO `shop`.`t` (`id`, `x`) VALUES (1, NULL)"
    with pytest.raises(SqlRefused, match=r"`shop`.`t`.`odd`: .*unknown collation id 9999"):
        t.insert({"id": 1, "odd": "a", "x": 1.0})
    with pytest.raises(SqlRefused, match=r"`shop`.`t`.`x`: .*NaN"):
        t.insert({"id": 1, "odd": None, "x": float("nan")})
    keyless = SqlTable(TableMap(8, "shop", "u", cols, flavor="mysql"), ["id", "odd", "x"],
                       "mysql")
    assert keyless.delete({"id": 2, "odd": None, "x": None}) == (
        "DELETE FROM `shop`.`u` WHERE `id` <=> 2 AND `odd` IS NULL AND `x` IS NULL LIMIT 1")
    with pytest.raises(SqlRefused, match=r"`shop`.`u`.`odd`: .*unknown collation id 9999"):
        keyless.delete({"id": 2, "odd": b"z", "x": None})

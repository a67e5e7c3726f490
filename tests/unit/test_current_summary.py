"""The summary every job over one server's binlogs prints (spark current, history, changes):
one table, the counts' headings and the last lines by command."""

import pytest

from binlog_schema.pipeline.current.command import summary_lines
from binlog_schema.pipeline.current.job import CurrentResult


def _result(command):
    r = CurrentResult("lake", "delta", command=command, pending=2,
                      applied={"file": "mariadb-bin.000002", "position": 900})
    r.tables = {"shop.orders": {"inserted": 3, "updated": 1, "deleted": 1, "rows": 7},
                "shop.t": {"inserted": 0, "updated": 0, "deleted": 0, "rows": 0}}
    return r


@pytest.mark.parametrize("command, heads, upto, left", [
    ("current", "inserted updated deleted rows", "applied to", "left for the next run"),
    ("history", "inserted updated deleted versions", "applied to", "left for the next run"),
    ("changes", "inserts updates deletes rows", "changes up to", "not written"),
])
def test_each_command_says_its_own_words(command, heads, upto, left):
    lines = summary_lines(_result(command))
    assert lines[0].split() == ["table", *heads.split()]
    assert lines[1].split() == ["shop.orders", "3", "1", "1", "7"]
    assert lines[3] == (f"{upto} mariadb-bin.000002 position 900 (2 tables, delta, "
                        "under lake)")
    assert lines[4] == f"2 row changes after the last complete transaction: {left}"
    assert len({len(x) for x in lines[:3]}) == 1   # (one table: the columns aligned)

"""Server tier, ``spark changes`` (issue 30): the current-state workload
(tests/server/current_workload.py: a private MariaDB server, every common column type, keyed
and keyless tables, ALTERs, RENAME, TRUNCATE, DROP and CREATE again; FULL and MINIMAL) through
``binlog-schema spark changes`` (a subprocess, ``--master local[2]``, a time zone other than
UTC), and every change table replayed as docs/spark.md says (in ``_commit_version``,
``_order_key`` order; a delete removes a row equal in the columns it holds; a TRUNCATE of
changes.json removes every row held): the replay equals the server's final SELECT (the set
of tables, every column's type, every row), but for what the documentation says the feed
does not hold: the value a column an ALTER added gave the rows already there (those cells,
and only in the columns changes.json lists as added, are taken from the server before
comparing). The workload's refused statement (a PERIOD FOR) makes the run exit 3 with one
stderr line, as ``spark current``'s."""

from __future__ import annotations

import json
import os

import pytest

from ..spark.pipeline_support import ABSENT, replay_changes
from .current_workload import (PASSES, REFUSED, compare_table, output_tables, read_parquet,
                               spark_current, status_problems, stderr_summary, table_dir,
                               workload_binlogs)

pytestmark = [pytest.mark.server, pytest.mark.spark]

RUN_TZ = os.environ.get("CURRENT_TEST_TZ", "Asia/Kolkata")


@pytest.fixture(scope="module")
def binlogs(tmp_path_factory):
    return workload_binlogs(tmp_path_factory, "changes", "binlogs-changes")


@pytest.mark.parametrize("name", PASSES)
def test_the_changes_replayed_give_the_final_state(binlogs, tmp_path, name):
    out = tmp_path / "changes"
    proc = spark_current([binlogs[name]["folder"]], out, env=dict(os.environ, TZ=RUN_TZ),
                         command="changes")
    assert out.is_dir(), f"exit {proc.returncode}:\n{stderr_summary(proc.stderr)}"
    problems = status_problems(proc.returncode, proc.stderr, f"spark changes ({name})",
                               command="changes")
    final = binlogs[name]["after-b"]["tables"]
    doc = json.loads((out / "_binlog_schema" / "changes.json").read_text(encoding="utf-8"))
    got = set(output_tables(out))
    want = set(final) - set(REFUSED)
    if got != want:
        problems.append(f"tables: only in ours {sorted(got - want)}, only on the server "
                        f"{sorted(want - got)}")
    filled = 0
    for table in sorted(got & want):
        schema, rows = read_parquet(table_dir(out, table))
        server = final[table]
        entry = doc["tables"][table]
        held = replay_changes(rows, entry["truncates"])
        added = {c["column"] for c in entry["columns_added"]}
        names = [c["name"] for c in server["columns"]]
        by_key = {tuple(r[names.index(k)] for k in server["primary_key"]): r
                  for r in server["rows"]} if server["primary_key"] else {}
        for row in held:
            absent = [c for c, v in row.items() if v is ABSENT]
            if not absent:
                continue
            wrong = [c for c in absent if c not in added]
            if wrong or not by_key:
                problems.append(f"{table}: a replayed row holds no value of {absent} (not "
                                f"columns added by an ALTER: {sorted(added)}): {row}")
                continue
            them = by_key.get(tuple(row[k] for k in server["primary_key"]))
            for c in absent:   # (the DEFAULT the ALTER gave: not in the feed, said so)
                row[c] = None if them is None else _as_read(them[names.index(c)], schema, c)
                filled += 1
        problems += compare_table(table, schema, held, server)
    print(f"{name}: {filled} cells of columns added to rows already there taken from the "
          "server")
    assert not problems, f"spark changes ({name}) replayed != the server's final state:\n" \
        + "\n".join(problems)


def _as_read(value, schema, column):
    """A server value (the snapshot's JSON form) as our Parquet would give it, for a cell
    the feed does not hold (compare_table then converts both alike)."""
    import decimal
    import pyarrow as pa
    t = schema.field(column).type
    if value is None:
        return None
    if pa.types.is_decimal(t):
        return decimal.Decimal(value)
    if pa.types.is_integer(t):
        return int(value)
    return value

"""The DDL vectors of specs/ddl/: statements replayed into the schema history must leave the
table models the vectors give (and be refused where they say so)."""

import pathlib

import pytest
import yaml

from binlog_schema.schema.vectors import check_ddl_vector, run_ddl_vector, table_dict

DDL = pathlib.Path(__file__).resolve().parents[2] / "specs" / "ddl"
FILES = sorted(DDL.glob("*.ddl"))


def test_there_is_a_vector_for_every_ddl_form():
    sql = " ".join(" ".join(s if isinstance(s, str) else s["sql"]
                            for s in yaml.safe_load(f.read_text())["statements"])
                   for f in FILES).upper()
    for form in ("CREATE TABLE IF NOT EXISTS", "LIKE", ") SELECT", "CREATE SEQUENCE",
                 "ADD COLUMN", "DROP COLUMN", "MODIFY", "CHANGE", "RENAME COLUMN", " FIRST",
                 " AFTER ", "SET DEFAULT", "DROP DEFAULT", "CONVERT TO CHARACTER SET",
                 "DEFAULT CHARACTER SET", "DROP PRIMARY KEY", "ADD PRIMARY KEY",
                 "ALGORITHM=INSTANT", "RENAME TABLE", "RENAME TO", "DROP TABLE",
                 "DROP DATABASE", "CREATE DATABASE", "TRUNCATE", "WITH SYSTEM VERSIONING",
                 "ADD SYSTEM VERSIONING", "DROP SYSTEM VERSIONING", "INVISIBLE", " AS (",
                 "USING HASH", "CREATE UNIQUE INDEX", "DROP INDEX", "ALTER DATABASE"):
        assert form in sql, form
    assert any("seed" in yaml.safe_load(f.read_text()) for f in FILES)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_ddl_vector(path):
    problems = check_ddl_vector(yaml.safe_load(path.read_text()))
    assert not problems, "\n".join(problems)


def test_a_changed_expectation_fails():
    doc = yaml.safe_load((DDL / "alter-add-column-first-after.ddl").read_text())
    doc["expect"]["hist.t1"]["columns"][0]["type"] = "LONG"
    assert any("a1" in p for p in check_ddl_vector(doc))
    doc = yaml.safe_load((DDL / "refusals.ddl").read_text())
    doc["statements"][1] = {"sql": "CREATE TABLE f (a INT)", "refused": "functional"}
    assert any("was not refused" in p for p in check_ddl_vector(doc))


def test_the_vectors_expectations_are_what_the_history_gives():
    """(the form the vectors were written in: Table.to_dict without database and name)"""
    doc = yaml.safe_load((DDL / "mariadb-system-versioning.ddl").read_text())
    history, problems = run_ddl_vector(doc)
    assert not problems
    assert table_dict(history.table("hist", "sv")) == doc["expect"]["hist.sv"]

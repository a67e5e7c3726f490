"""The DDL vectors of specs/ddl/: statements replayed into the schema history must leave the
table models the vectors give (and be refused where they say so)."""

import pathlib

import pytest
import yaml

from binlog_schema.changes.schema.ddl_vectors import check_ddl_vector, run_ddl_vector, table_dict

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


# ------------------------------------------------------------------ binlog-schema validate


def _validate(path):
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "binlog_schema", "validate", str(path)],
                         capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def test_validate_checks_the_ddl_vectors_by_kind():
    from binlog_schema.synthetic.vector_checks import summary, validate
    results = validate(DDL.parent)
    ddl = [r for r in results if r.kind == "ddl"]
    assert sorted(r.file for r in ddl) == [str(f) for f in FILES]
    assert all(r.ok for r in ddl), [(r.file, r.problems) for r in ddl if not r.ok]
    events = [r for r in results if r.kind == "event"]
    assert len(events) > 150 and not any(r.file.endswith(".ddl") for r in events)
    packets = [r for r in results if r.kind == "packet"]
    assert packets and all(r.file.endswith(".yaml") and "/protocol/" in r.file for r in packets)
    assert summary(results) == (f"{len(results)} passed, 0 failed ({len(events)} event "
                                f"vectors, {len(ddl)} DDL vectors, {len(packets)} packet "
                                "vectors)")
    assert summary(events) == f"{len(events)} passed, 0 failed"   # (as before: events only)


def test_validate_fails_a_wrong_ddl_vector_with_the_file_and_the_difference(tmp_path):
    text = (DDL / "alter-add-column-first-after.ddl").read_text()
    doc = yaml.safe_load(text)
    (tmp_path / "good.ddl").write_text(text)
    doc["expect"]["hist.t1"]["columns"][0]["type"] = "LONG"      # (it is a LONGLONG)
    wrong = tmp_path / "wrong.ddl"
    wrong.write_text(yaml.safe_dump(doc, sort_keys=False))
    (tmp_path / "shape.ddl").write_text("- just\n- a list\n")
    event = next(DDL.parent.glob("events/*.yaml"))
    (tmp_path / event.name).write_text(event.read_text())
    n_events = sum(1 for d in yaml.safe_load_all(event.read_text()) if d)
    status, out, err = _validate(tmp_path)
    assert status == 1 and err == ""
    lines = out.splitlines()
    assert f"FAIL {wrong}, line 1 [{doc['name']}]" in lines
    first = lines.index(f"FAIL {wrong}, line 1 [{doc['name']}]")
    difference = lines[first + 1]
    assert difference.startswith("    hist.t1 column 'a1': ")
    assert "'LONGLONG'" in difference and "expected {'name': 'a1', 'sql_type': 'BIGINT', " \
        "'type': 'LONG', " in difference
    assert any(x.startswith(f"FAIL {tmp_path / 'shape.ddl'}, line 1: document 1: a YAML list")
               and "expected a DDL vector" in x for x in lines)
    assert lines[-1] == (f"{n_events + 1} passed, 2 failed ({n_events} event vector"
                         f"{'' if n_events == 1 else 's'}, 3 DDL vectors)")
    status, out, _ = _validate(tmp_path / "good.ddl")   # one file, told by its suffix
    assert status == 0 and out == "1 passed, 0 failed (1 DDL vector)\n"

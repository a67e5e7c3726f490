"""The schema history's API: replay, versions and positions, sessions from QUERY status
variables, seeds, refusals, and agreement with TABLE_MAPs."""

import pytest

from binlog_schema.changes.table_map import Column as MapColumn, TableMap
from binlog_schema.changes.schema import DDLRefused, SchemaHistory, Session
from binlog_schema.changes.schema.ddl.statements import parse_statement
from binlog_schema.changes.schema.ddl.tables import tables_from_ddl
from binlog_schema.changes.schema.ddl.tokens import DDLError
from binlog_schema.changes.schema.seed import seed_statements, split_statements


def mariadb():
    return SchemaHistory("mariadb", "10.11.6-MariaDB-log")


def test_replay_gives_columns_key_and_a_version_per_change():
    h = mariadb()
    h.apply("CREATE DATABASE shop CHARACTER SET utf8mb4")
    out = h.apply("CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b'), v VARCHAR(5))",
                  database="shop", position=(0, 100))
    assert out.kind == "changed" and out.tables == [("shop", "t")]
    t = h.table("shop", "t")
    assert t.version == 1 and t.column_names == ["id", "e", "v"]
    assert t.primary_key == ["id"] and t.columns[0].nullable is False
    assert t.columns[1].type == "STRING" and t.columns[1].real_type == "ENUM"
    assert t.columns[1].enum_values == ["a", "b"] and t.columns[2].max_length == 20
    assert t.columns[2].collation_id == 45      # utf8mb4_general_ci, the database's
    h.apply("ALTER TABLE t DROP COLUMN e", database="shop", position=(0, 200))
    h.apply("TRUNCATE t", database="shop", position=(0, 300))
    assert h.table("shop", "t").version == 2
    assert h.table("shop", "t", at=(0, 150)).column_names == ["id", "e", "v"]
    assert h.table("shop", "t", at=(0, 250)).column_names == ["id", "v"]
    assert h.table("shop", "t", at=(0, 50)) is None
    h.apply("DROP TABLE t", database="shop", position=(1, 4))
    h.apply("CREATE TABLE t (x INT)", database="shop", position=(1, 90))
    assert h.table("shop", "t").version == 3       # a new table of the name counts on
    assert [v for _, v in h.versions("shop", "t")][2] is None


def test_plain_statements_ignored_and_use_sets_the_database():
    h = SchemaHistory()
    for sql in ("BEGIN", "INSERT INTO t VALUES (1)", "GRANT ALL ON *.* TO u",
                "CREATE DEFINER=`a`@`%` TRIGGER x BEFORE INSERT ON t FOR EACH ROW SET @a=1",
                "CREATE VIEW v AS SELECT 1", "ALTER USER u IDENTIFIED BY 'p'", "COMMIT"):
        assert h.apply(sql).kind == "ignored", sql
    h.apply("USE d")
    h.apply("CREATE TABLE t (a INT)")
    assert h.table("d", "t") is not None


def test_session_from_query_status_variables():
    body = {"database": "shop", "query": "CREATE TABLE t (a VARCHAR(2), b TIMESTAMP)",
            "status_vars": [{"code": "CHARSET", "value": {"client": 33, "connection": 33,
                                                          "server": 8}},
                            {"code": "DEFAULT_COLLATION_FOR_UTF8MB4", "value": 45},
                            {"code": "EXPLICIT_DEFAULTS_FOR_TIMESTAMP", "value": 0}]}
    s = Session.from_query(body, "mysql")
    assert s.database == "shop" and s.collation_server == "latin1_swedish_ci"
    assert s.overrides == (("utf8mb4", "utf8mb4_general_ci"),)
    h = SchemaHistory("mysql", "8.0.40")
    h.apply_query(body)
    t = h.table("shop", "t")
    assert t.charset == "latin1" and t.columns[0].collation_id == 8
    assert t.columns[1].nullable is False          # explicit_defaults_for_timestamp=0
    h.apply_query(dict(body, query="CREATE TABLE u (a VARCHAR(2)) CHARSET utf8mb4"))
    assert h.table("shop", "u").columns[0].collation_id == 45   # the 5.7 primary's default


def test_mariadb_hidden_columns_and_mysql_visibility():
    h = mariadb()
    h.apply("CREATE TABLE t (id INT PRIMARY KEY, b BLOB, UNIQUE (b)) WITH SYSTEM VERSIONING",
            database="d")
    t = h.table("d", "t")
    assert t.column_names == ["id", "b", "row_start", "row_end", "DB_ROW_HASH_1"]
    assert [c.hidden for c in t.columns] == [None, None, "row_start", "row_end",
                                             "long_unique_hash"]
    assert t.primary_key == ["id", "row_end"]
    m = SchemaHistory("mysql", "8.0.30")
    m.apply("CREATE TABLE t (a INT, b INT INVISIBLE, c INT AS (a + 1) STORED)", database="d")
    cols = m.table("d", "t").binlog_columns("mysql")
    assert [c.visible for c in cols] == [True, False, True]
    assert m.table("d", "t").columns[2].generated == "stored"
    assert m.table("d", "t").columns[2].expression == "a + 1"


def test_check_against_a_table_map():
    h = mariadb()
    h.apply("CREATE TABLE t (id INT UNSIGNED PRIMARY KEY, s VARCHAR(3) CHARACTER SET latin1)",
            database="d")
    t = h.table("d", "t")
    tm = TableMap(table_id=1, database="d", table="t",
                  columns=[MapColumn(index=0, type="LONG", unsigned=True, nullable=False),
                           MapColumn(index=1, type="VARCHAR", max_length=3, collation_id=8,
                                     nullable=True)])
    assert t.check(tm) == []
    tm.columns[1].max_length = 9
    assert any("max_length" in p for p in t.check(tm))
    tm.columns.pop()
    assert "2 columns" not in t.check(tm)[0] and "1 columns" in t.check(tm)[0]
    assert [c.name for c in t.binlog_columns()] == ["id", "s"]


def test_refusals_are_typed_and_make_the_table_unknown():
    h = SchemaHistory("mysql", "8.0.40")
    h.apply("CREATE TABLE t (a INT)", database="d")
    with pytest.raises(DDLRefused, match="not understood"):
        h.apply("ALTER TABLE t ADD COLUMN (b INT", database="d")
    assert h.table("d", "t") is None and ("d", "t") in h.unknown
    with pytest.raises(DDLRefused, match="unknown since"):
        h.apply("ALTER TABLE t ADD COLUMN c INT", database="d")
    h.apply("DROP TABLE t", database="d")
    assert ("d", "t") not in h.unknown
    with pytest.raises(DDLRefused, match="not in the history"):
        h.apply("ALTER TABLE nothere ADD COLUMN c INT", database="d")
    with pytest.raises(DDLRefused, match="functional key part"):
        h.apply("CREATE TABLE f (a INT, INDEX ((a * 2)))", database="d")
    assert isinstance(DDLRefused("x"), DDLError)


def test_the_generators_grammar_still_refuses_what_it_cannot_produce():
    for ddl, why in (("CREATE TABLE t (a INT, b INT AS (a + 1))", "generated columns"),
                     ("CREATE TABLE t (a INT) WITH SYSTEM VERSIONING", "SYSTEM VERSIONING"),
                     ("CREATE TABLE t LIKE u", "LIKE"),
                     ("CREATE TABLE t (a INT, KEY ((a + 1)))", "functional")):
        with pytest.raises(DDLError, match=why):
            tables_from_ddl(ddl, "d")
    assert parse_statement("CREATE TABLE t (a INT, b INT AS (a + 1))")["kind"] == \
        "create_table"


def test_seed_from_a_dump_and_from_show_create_table_output():
    dump = ("CREATE DATABASE `a` /*!40100 DEFAULT CHARACTER SET latin1 */;\nUSE `a`;\n"
            "/*!40101 SET NAMES utf8 */;\nCREATE TABLE `t` (`x` int, `s` varchar(2) "
            "DEFAULT ';') ENGINE=InnoDB;\nDELIMITER ;;\nCREATE PROCEDURE p() BEGIN SELECT 1; "
            "END ;;\nDELIMITER ;\n")
    assert len(split_statements(dump)) == 5
    h = SchemaHistory("mysql", "5.7.44")
    h.seed(dump)
    t = h.table("a", "t")
    assert t.columns[1].default == ";" and t.columns[1].collation_id == 8
    vertical = ("*************************** 1. row ***************************\n"
                "       Table: u\nCreate Table: CREATE TABLE `u` (\n  `a` int(11) DEFAULT NULL"
                "\n) ENGINE=InnoDB DEFAULT CHARSET=latin1\n")
    tabular = "Table\tCreate Table\nv\tCREATE TABLE `v` (\\n  `b` int\\n)\n"
    h.seed(vertical, database="b")
    h.seed(tabular, database="b")
    assert h.table("b", "u").column_names == ["a"] and h.table("b", "v").column_names == ["b"]
    assert [s for s, _ in seed_statements(vertical)] == [
        "CREATE TABLE `u` (\n  `a` int(11) DEFAULT NULL\n) ENGINE=InnoDB DEFAULT CHARSET=latin1"]


def test_seed_file_and_the_readme_example(tmp_path):
    f = tmp_path / "schema.sql"
    f.write_text("CREATE TABLE shop.orders (id BIGINT UNSIGNED PRIMARY KEY, state "
                 "ENUM('new','paid') NOT NULL);\n")
    h = SchemaHistory("mariadb", "10.11.6-MariaDB")
    h.seed_file(f)
    h.apply("ALTER TABLE orders ADD COLUMN note VARCHAR(20) AFTER id", database="shop")
    t = h.table("shop", "orders")
    assert (t.version, t.column_names, t.primary_key) == (2, ["id", "note", "state"], ["id"])

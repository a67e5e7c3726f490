"""spark current's fold without Spark: table lives replayed from real DDL by the schema
history (binlog_schema.changes.schema.lives), the fold plan made of them (pipeline.current.plan),
and row changes keyed and folded (pipeline.current.fold) as the tasks do, checked against
what a server would hold."""

import pytest

pytest.importorskip("pyarrow")

from binlog_schema.pipeline.current.fold import fold_rows, key_rows
from binlog_schema.pipeline.current.plan import fold_plan
from binlog_schema.changes.schema.history import SchemaHistory
from binlog_schema.changes.schema.lives import Lives


def _vtype():
    import pyarrow as pa
    return pa.struct([("long", pa.int64()), ("decimal", pa.decimal128(38, 18)),
                      ("double", pa.float64()), ("string", pa.string()),
                      ("binary", pa.binary()), ("date", pa.date32()),
                      ("datetime", pa.timestamp("us")), ("timestamp", pa.timestamp("us", "UTC")),
                      ("time", pa.duration("us")), ("vector", pa.list_(pa.float64())),
                      ("json", pa.string()), ("text", pa.string())])


def L(x):
    """A Value holding an integer, as the tasks read one from Arrow."""
    v = dict.fromkeys(_vtype().names)
    v["long"] = x
    return v


def S(x):
    v = dict.fromkeys(_vtype().names)
    v["string"] = x
    return v


class World:
    """Statements and row changes at increasing order keys; :meth:`state` folds them."""

    def __init__(self, *ddl):
        self.lives = Lives(SchemaHistory("mariadb", "10.11.6"), start="")
        self.n = 0
        self.changes = []
        for sql in ddl:
            self.ddl(sql)

    def _okey(self):
        self.n += 1
        return f"{self.n:010d}"

    def ddl(self, sql):
        out = self.lives.replay({"database": "d", "query": sql}, self._okey())
        assert not isinstance(out, Exception), out

    def change(self, table, op, before=None, after=None):
        self.changes.append({"database": "d", "table": table, "okey": self._okey(),
                             "operation": op,
                             "before": None if before is None else list(before.items()),
                             "after": None if after is None else list(after.items())})

    def state(self, table):
        plan = fold_plan(self.lives, _vtype())
        keyed = list(key_rows(self.changes, plan))
        assert not [k["problem"] for k in keyed if k["problem"]]
        whole = {k["origin"] for k in keyed if k["op"] == "move"}   # (as the driver does)
        whole |= {o for o, t in plan.tables.items() if getattr(t, "key_changes", False)}
        for k in keyed:
            if k["origin"] in whole:
                k["gkey"] = b""
        keyed.sort(key=lambda k: (k["origin"], k["gkey"], k["okey"], k["sub"]))
        origin = self.lives.origin_at(("d", table))
        t = plan.tables[origin]
        names = dict((o, n) for n, o in t.final)
        rows = []
        for o, img, _, problem in fold_rows(keyed, plan):
            assert problem is None
            if o == origin and img is not None:
                rows.append({names[c]: _plain(v) for c, v in img.items()})
        return sorted(rows, key=repr)


def _plain(v):
    if v is None:
        return None
    return next((x for x in v.values() if x is not None), None)


def test_insert_delete_insert_of_one_key_keeps_the_last():
    w = World("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10))")
    w.change("t", "insert", after={"id": L(1), "a": S("x")})
    w.change("t", "delete", before={"id": L(1), "a": S("x")})
    w.change("t", "insert", after={"id": L(1), "a": S("y")})
    w.change("t", "insert", after={"id": L(2), "a": S("z")})
    assert w.state("t") == [{"id": 1, "a": "y"}, {"id": 2, "a": "z"}]


def test_an_update_that_changes_the_key_moves_the_row():
    w = World("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10))")
    w.change("t", "insert", after={"id": L(1), "a": S("x")})
    w.change("t", "update", before={"id": L(1), "a": S("x")}, after={"id": L(5), "a": S("x")})
    w.change("t", "insert", after={"id": L(1), "a": S("new")})
    assert w.state("t") == [{"id": 1, "a": "new"}, {"id": 5, "a": "x"}]


def test_minimal_images_update_only_their_columns_even_when_the_key_moves():
    w = World("CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)")
    w.change("t", "insert", after={"id": L(1), "a": L(10), "b": L(20)})
    w.change("t", "update", before={"id": L(1)}, after={"a": L(11)})
    w.change("t", "update", before={"id": L(1)}, after={"id": L(7)})
    assert w.state("t") == [{"id": 7, "a": 11, "b": 20}]


def test_a_primary_key_added_later_keys_only_the_changes_after_it():
    """Changes made while the table had no key are a multiset's (issue 26: the key an ALTER
    adds later folded them, (1, 11) replacing (1, 10) and both gone with its delete)."""
    w = World("CREATE TABLE t (id INT NOT NULL, v INT)")
    for row in ((1, 10), (1, 11), (3, 30), (3, 30)):
        w.change("t", "insert", after={"id": L(row[0]), "v": L(row[1])})
    w.change("t", "delete", before={"id": L(1), "v": L(11)})
    w.change("t", "delete", before={"id": L(3), "v": L(30)})
    w.ddl("ALTER TABLE t ADD PRIMARY KEY (id)")
    w.change("t", "insert", after={"id": L(4), "v": L(40)})
    w.change("t", "update", before={"id": L(4)}, after={"v": L(41)})   # (MINIMAL: by key)
    assert w.state("t") == [{"id": 1, "v": 10}, {"id": 3, "v": 30}, {"id": 4, "v": 41}]


def test_a_table_without_a_key_is_a_multiset():
    w = World("CREATE TABLE t (a INT, b VARCHAR(5))")
    row = {"a": L(1), "b": S("q")}
    for _ in range(3):
        w.change("t", "insert", after=row)
    w.change("t", "delete", before=row)
    w.change("t", "update", before=row, after={"a": L(2), "b": S("q")})
    assert w.state("t") == [{"a": 1, "b": "q"}, {"a": 2, "b": "q"}]


def test_ddl_applies_where_it_falls():
    w = World("CREATE TABLE t (id INT PRIMARY KEY, a INT, gone INT)")
    w.change("t", "insert", after={"id": L(1), "a": L(1), "gone": L(9)})
    w.ddl("ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 5, DROP COLUMN gone")
    w.change("t", "insert", after={"id": L(2), "a": L(2), "c": L(6)})
    w.ddl("ALTER TABLE t CHANGE a aa BIGINT, ADD COLUMN n VARCHAR(3) NOT NULL")
    w.change("t", "update", before={"id": L(1), "aa": L(1), "c": L(5), "n": S("")},
             after={"id": L(1), "aa": L(100), "c": L(5), "n": S("")})
    w.ddl("RENAME TABLE t TO u")
    assert w.state("u") == [{"id": 1, "aa": 100, "c": 5, "n": ""},
                            {"id": 2, "aa": 2, "c": 6, "n": ""}]
    assert w.lives.origin_at(("d", "t")) is None


def test_an_insert_without_a_column_takes_its_default_then():
    w = World("CREATE TABLE t (id INT PRIMARY KEY, a INT DEFAULT 7, s ENUM('x','y') NOT NULL)")
    w.change("t", "insert", after={"id": L(1)})
    w.ddl("ALTER TABLE t ALTER COLUMN a SET DEFAULT 8")
    w.change("t", "insert", after={"id": L(2)})
    got = w.state("t")
    assert [r["a"] for r in got] == [7, 8]
    assert [r["s"] for r in got] == [1, 1]   # (an ENUM NOT NULL's first member: index 1)


def test_truncate_and_drop_then_create_again():
    w = World("CREATE TABLE t (id INT PRIMARY KEY)")
    w.change("t", "insert", after={"id": L(1)})
    w.ddl("TRUNCATE TABLE t")
    w.change("t", "insert", after={"id": L(2)})
    assert w.state("t") == [{"id": 2}]
    w.ddl("DROP TABLE t")
    w.ddl("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    w.change("t", "insert", after={"id": L(3), "v": L(4)})
    assert w.state("t") == [{"id": 3, "v": 4}]


def test_a_change_of_a_table_nobody_created_is_a_problem():
    w = World()
    w.change("t", "insert", after={"id": L(1)})
    plan = fold_plan(w.lives, _vtype())
    keyed = list(key_rows(w.changes, plan))
    assert keyed[0]["op"] == "problem" and "d.t" in keyed[0]["problem"]


def test_a_unique_key_of_not_null_columns_keys_a_table_without_a_primary_key():
    """(As the server identifies its rows: MariaDB's MINIMAL before image holds that key.)"""
    w = World("CREATE TABLE t (k VARCHAR(5) NOT NULL, v INT, UNIQUE KEY (k))")
    w.change("t", "insert", after={"k": S("a"), "v": L(1)})
    w.change("t", "insert", after={"k": S("b"), "v": L(2)})
    w.change("t", "update", before={"k": S("a")}, after={"k": S("aa")})
    w.change("t", "delete", before={"k": S("b")})
    assert w.state("t") == [{"k": "aa", "v": 1}]

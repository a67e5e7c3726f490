"""``spark current``'s fold in Spark SQL (pipeline/current/keying.py, versions.py,
folding.py) against the Python fold of pipeline/current/fold.py, on the scenarios of
tests/unit/test_current_fold.py and more (partial images, multisets with MINIMAL updates,
truncations, deletes of rows not held, a base's rows): the same rows, order keys and
problems; and its versions (spark history's) against the current state of every prefix."""

from __future__ import annotations

import datetime as dt

import pytest

from .pipeline_support import spark_missing

pytestmark = pytest.mark.spark

MISSING = spark_missing()
if MISSING:
    pytest.skip(MISSING, allow_module_level=True)

from binlog_schema.pipeline.current.fold import fold_rows, key_rows  # noqa: E402
from binlog_schema.pipeline.current.plan import fold_plan  # noqa: E402

from ..unit.test_current_fold import L, S, World, _vtype  # noqa: E402


def _frame(spark, changes):
    from pyspark.sql import types as T
    from binlog_schema.pipeline.tables.schema import IMAGE
    schema = T.StructType([T.StructField(n, t) for n, t in (
        ("database", T.StringType()), ("table", T.StringType()), ("okey", T.StringType()),
        ("operation", T.StringType()), ("before", IMAGE), ("after", IMAGE),
        ("ts", T.TimestampType()))])
    rows = [{**c, "before": None if c["before"] is None else dict(c["before"]),
             "after": None if c["after"] is None else dict(c["after"]),
             "ts": _ts(c["okey"])} for c in changes]
    return spark.createDataFrame(rows, schema)


def _ts(okey):
    return dt.datetime(2024, 1, 1) + dt.timedelta(seconds=int(okey))


def python_fold(w: World, plan=None, changes=None):
    """(origin, image, okey, problem) of fold.py's fold, as the driver ran it."""
    plan = plan or fold_plan(w.lives, _vtype())
    keyed = [k for k in key_rows(w.changes if changes is None else changes, plan)
             if k["op"] != "problem"]
    whole = {k["origin"] for k in keyed if k["op"] == "move"}
    whole |= {o for o, t in plan.tables.items() if t.key_changes}
    for k in keyed:
        if k["origin"] in whole:
            k["gkey"] = b""
    keyed.sort(key=lambda k: (k["origin"], k["gkey"], k["okey"], k["sub"]))
    return sorted(((o, _norm(img), ok, p) for o, img, ok, p in fold_rows(keyed, plan)),
                  key=repr)


def _norm(img):
    return None if img is None else tuple(sorted((str(k), repr(v)) for k, v in img.items()))


def spark_fold(spark, w: World, base=None):
    from binlog_schema.pipeline.current.folding import fold_changes
    plan = fold_plan(w.lives, _vtype())
    changes = _frame(spark, w.changes)
    got = fold_changes(spark, changes, plan, w.lives, base).collect()
    return sorted(((r["origin"], _norm(None if r["image"] is None else
                                      {k: v.asDict() if v is not None else None
                                       for k, v in r["image"].items()}), r["okey"],
                   r["problem"]) for r in got), key=repr)


SCENARIOS = {}


def scenario(f):
    SCENARIOS[f.__name__] = f
    return f


@scenario
def keys_deleted_and_inserted_again():
    w = World("CREATE TABLE t (id INT PRIMARY KEY, a VARCHAR(10))")
    w.change("t", "insert", after={"id": L(1), "a": S("x")})
    w.change("t", "delete", before={"id": L(1), "a": S("x")})
    w.change("t", "insert", after={"id": L(1), "a": S("y")})
    w.change("t", "insert", after={"id": L(2), "a": S("z")})
    w.change("t", "update", before={"id": L(2), "a": S("z")}, after={"id": L(9), "a": S("z")})
    return w


@scenario
def minimal_images():
    w = World("CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)")
    w.change("t", "insert", after={"id": L(1), "a": L(10), "b": L(20)})
    w.change("t", "insert", after={"id": L(2), "a": L(30)})       # (b: its DEFAULT, NULL)
    w.change("t", "update", before={"id": L(1)}, after={"a": L(11)})
    w.change("t", "update", before={"id": L(1)}, after={"b": L(21)})
    w.change("t", "update", before={"id": L(2)}, after={"b": L(5)})
    w.change("t", "delete", before={"id": L(2)})
    return w


@scenario
def minimal_move_of_a_key():   # (sequential: the table is folded in Python)
    w = World("CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)",
              "CREATE TABLE u (id INT PRIMARY KEY, a INT)")
    w.change("t", "insert", after={"id": L(1), "a": L(10), "b": L(20)})
    w.change("t", "update", before={"id": L(1)}, after={"a": L(11)})
    w.change("t", "update", before={"id": L(1)}, after={"id": L(7)})
    w.change("u", "insert", after={"id": L(1), "a": L(1)})
    return w


@scenario
def multisets():
    w = World("CREATE TABLE t (a INT, b VARCHAR(5))")
    row = {"a": L(1), "b": S("q")}
    for _ in range(3):
        w.change("t", "insert", after=row)
    w.change("t", "delete", before=row)
    w.change("t", "update", before=row, after={"a": L(2), "b": S("q")})
    w.change("t", "update", before={"a": L(2), "b": S("q")}, after={"a": L(3)})  # MINIMAL
    w.change("t", "delete", before={"a": L(8), "b": S("q")})    # (not held: a problem)
    return w


@scenario
def key_added_later_and_ddl():
    w = World("CREATE TABLE t (id INT NOT NULL, v INT)",
              "CREATE TABLE k (id INT PRIMARY KEY, a INT, gone INT)")
    for row in ((1, 10), (1, 11), (3, 30), (3, 30)):
        w.change("t", "insert", after={"id": L(row[0]), "v": L(row[1])})
    w.change("t", "delete", before={"id": L(1), "v": L(11)})
    w.ddl("ALTER TABLE t ADD PRIMARY KEY (id)")
    w.change("t", "insert", after={"id": L(4), "v": L(40)})
    w.change("k", "insert", after={"id": L(1), "a": L(1), "gone": L(9)})
    w.ddl("ALTER TABLE k ADD COLUMN c INT NOT NULL DEFAULT 5, DROP COLUMN gone")
    w.change("k", "insert", after={"id": L(2), "a": L(2), "c": L(6)})
    w.ddl("ALTER TABLE k CHANGE a aa BIGINT, ADD COLUMN n VARCHAR(3) NOT NULL")
    w.change("k", "update", before={"id": L(1), "aa": L(1), "c": L(5), "n": S("")},
             after={"id": L(1), "aa": L(100), "c": L(5), "n": S("")})
    w.ddl("RENAME TABLE k TO u")
    w.change("u", "insert", after={"id": L(3), "aa": L(3), "c": L(7), "n": S("z")})
    return w


@scenario
def truncate_drop_create():
    w = World("CREATE TABLE t (id INT PRIMARY KEY)", "CREATE TABLE m (a INT)")
    w.change("t", "insert", after={"id": L(1)})
    w.change("t", "insert", after={"id": L(5)})
    w.change("m", "insert", after={"a": L(1)})
    w.ddl("TRUNCATE TABLE t")
    w.change("t", "insert", after={"id": L(2)})
    w.change("t", "delete", before={"id": L(5)})                # (not held: a problem)
    w.ddl("TRUNCATE TABLE m")
    w.ddl("DROP TABLE t")
    w.ddl("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    w.change("t", "insert", after={"id": L(3), "v": L(4)})
    w.change("x", "insert", after={"id": L(3)})                 # (no such table)
    return w


@scenario
def partial_update_of_a_row_not_held():
    w = World("CREATE TABLE t (id INT PRIMARY KEY, a INT)")
    w.change("t", "update", before={"id": L(1)}, after={"a": L(2)})
    w.change("t", "insert", after={"id": L(2), "a": L(1)})
    return w


@scenario
def full_and_partial_images_in_one_batch():
    """Changes of several tables in one Arrow batch (keyed per span of rows there): full
    images (puts and deletes; an update that keeps its key, one that moves it, a key that is
    a pair of columns of different types), partial ones (merges), a column not in the
    table's schema, a key column missing from a partial image, a NULL value in a key-less
    table."""
    w = World("CREATE TABLE f (id INT PRIMARY KEY, a VARCHAR(10), b INT)",
              "CREATE TABLE p (id INT PRIMARY KEY, a INT, b INT)",
              "CREATE TABLE k (x INT NOT NULL, y VARCHAR(3) NOT NULL, v INT, PRIMARY KEY (x, y))",
              "CREATE TABLE m (a INT, b VARCHAR(5))")
    for i in range(4):
        w.change("f", "insert", after={"id": L(i), "a": S(f"r{i}"), "b": L(i)})
        w.change("p", "insert", after={"id": L(i), "a": L(i), "b": L(10 * i)})
        w.change("k", "insert", after={"x": L(i), "y": S("q"), "v": L(i)})
    w.change("f", "update", before={"id": L(0), "a": S("r0"), "b": L(0)},
             after={"id": L(0), "a": S("s0"), "b": L(0)})
    w.change("f", "update", before={"id": L(1), "a": S("r1"), "b": L(1)},
             after={"id": L(7), "a": S("r1"), "b": L(1)})
    w.change("f", "delete", before={"id": L(2), "a": S("r2"), "b": L(2)})
    w.change("f", "insert", after={"id": L(9), "a": S("z"), "b": L(9), "zz": L(1)})
    w.change("p", "update", before={"id": L(0)}, after={"b": L(5)})
    w.change("p", "update", before={"id": L(1)}, after={"a": L(6), "b": L(7)})
    w.change("p", "update", before={"a": L(2)}, after={"b": L(8)})     # (no key: a problem)
    w.change("p", "delete", before={"id": L(3)})
    w.change("k", "update", before={"x": L(1), "y": S("q"), "v": L(1)},
             after={"x": L(1), "y": S("q"), "v": L(2)})
    w.change("k", "update", before={"x": L(2), "y": S("q"), "v": L(2)},
             after={"x": L(2), "y": S("r"), "v": L(2)})
    w.change("m", "insert", after={"a": L(1), "b": None})
    w.change("m", "insert", after={"a": L(1), "b": None})
    w.change("m", "delete", before={"a": L(1), "b": None})
    w.change("m", "update", before={"a": L(1), "b": None}, after={"a": L(1), "b": S("n")})
    return w


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_sql_fold_is_the_python_fold(spark, name):
    """The same rows (image and order key) and the same problems per table (a problem is
    shown on a row of its key here, of its table in a table fold.py folded whole)."""
    w = SCENARIOS[name]()
    got, want = spark_fold(spark, w), python_fold(w)
    assert _rows(got) == _rows(want)
    assert _problems(got) == _problems(want)


def _rows(folded):
    return [(o, img, ok) for o, img, ok, _ in folded if img is not None]


def _problems(folded):
    return sorted({(o, x) for o, _, _, p in folded if p for x in p.split("; ")})


def test_a_bases_rows_come_first(spark):
    """Rows of a previous run (folded rows) are the state the changes apply to."""
    from binlog_schema.pipeline.current.io import folded_schema
    w = World("CREATE TABLE t (id INT PRIMARY KEY, a INT)", "CREATE TABLE m (a INT)")
    origin_t, origin_m = w.lives.origin_at(("d", "t")), w.lives.origin_at(("d", "m"))
    plan = fold_plan(w.lives, _vtype())
    col = {n: str(o) for n, o in plan.tables[origin_t].final}
    colm = {n: str(o) for n, o in plan.tables[origin_m].final}
    base_rows = [(origin_t, "0", None, {col["id"]: L(1), col["a"]: L(1)}),
                 (origin_t, "0", None, {col["id"]: L(2), col["a"]: L(2)}),
                 (origin_m, "0", None, {colm["a"]: L(7)}),
                 (origin_m, "0", None, {colm["a"]: L(7)})]
    base = spark.createDataFrame(base_rows, folded_schema())
    w.change("t", "update", before={"id": L(1)}, after={"a": L(5)})
    w.change("t", "delete", before={"id": L(2)})
    w.change("m", "delete", before={"a": L(7)})
    got = spark_fold(spark, w, base)
    rows = sorted((o, dict(img)[col["a"] if o == origin_t else colm["a"]])
                  for o, img, _, _ in got if img is not None)
    assert rows == sorted([(origin_m, repr(L(7))), (origin_t, repr(L(5)))])


# ---------------------------------------------------------------------------------------
# versions (spark history's): at each point, the versions valid then are the current state
# of the changes up to it


def _versions(spark, w: World):
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.current.folding import fold_versions
    plan = fold_plan(w.lives, _vtype())
    trunc_ts = {k: _ts(k) for t in plan.tables.values() for k in t.truncates}
    v = fold_versions(spark, _frame(spark, w.changes), plan, F.col("ts"), trunc_ts)
    return [r.asDict(recursive=True) for r in v.collect()]


@pytest.mark.parametrize("name", sorted(n for n in SCENARIOS if n != "minimal_move_of_a_key"))
def test_versions_at_each_point_are_the_state_then(spark, name):
    """For every change of the scenario: the versions valid just after it (valid_from <= t
    < valid_to) are the rows fold.py's fold gives over the changes up to it; those current
    at the end are the rows of the SQL fold."""
    w = SCENARIOS[name]()
    versions = _versions(spark, w)
    plan = fold_plan(w.lives, _vtype())
    assert versions, name
    points = sorted({c["okey"] for c in w.changes})
    for okey in points:
        t = _ts(okey)
        upto = [c for c in w.changes if c["okey"] <= okey]
        # (truncations up to here count; those after do not: the fold is cut by order key)
        state = python_fold(w, _plan_upto(plan, okey), upto)
        want = sorted((o, img) for o, img, _, _ in state
                      if img is not None and o in _alive(w, okey))
        got = sorted((v["origin"], _norm(v["image"])) for v in versions
                     if v["valid_from"] <= t and (v["valid_to"] is None or t < v["valid_to"])
                     and v["origin"] in _alive(w, okey))
        assert got == want, (name, okey)
    current = sorted((v["origin"], _norm(v["image"])) for v in versions if v["is_current"])
    final = sorted((o, img) for o, img, _, _ in spark_fold(spark, w) if img is not None)
    assert current == final


def _plan_upto(plan, okey):
    import copy
    cut = copy.deepcopy(plan)
    for t in cut.tables.values():
        t.truncates = [k for k in t.truncates if k <= okey]
    return cut


def _alive(w: World, okey) -> set:
    """The tables not dropped at ``okey``."""
    return {o for o, life in w.lives.lives.items() if life.end is None or life.end > okey}

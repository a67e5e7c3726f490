"""``spark current --format delta`` continuing its own output (``--base`` is ``--out``):
a table with a primary key whose shape the run leaves gets ONE MERGE of the keys it changed
(the Delta log's last commit: operation MERGE, its metrics counting the changed keys only,
its change data feed exactly the run's changes); a run that changes nothing commits nothing;
a table an ALTER reshapes is rewritten whole. Every incremental table equals the one a whole
run over the same files writes.

Fixtures: synthetic binlogs (:mod:`binlog_schema.synthetic`) of one MariaDB server, file 1
creating and filling the tables, file 2 (``binlog_row_image=MINIMAL``: partial images)
changing some rows of some tables (updates, deletes, inserts, an insert deleted again in
the run, a TRUNCATE), file 3 an ALTER.

Needs pyspark (and pyarrow, deltalake) and Java 17+; without them the tier is skipped with a
warning, and fails under CI=true.
"""

import json
import os
import shutil

import pytest

from ..conftest import unavailable
from .pipeline_support import BASE_TS, SHOP_SERVERS, spark_missing

pytestmark = pytest.mark.spark

MISSING = spark_missing()
if MISSING:
    unavailable(f"Spark tier not run: {MISSING}", module=True)

deltalake = pytest.importorskip("deltalake")
pa = pytest.importorskip("pyarrow")

from binlog_schema.pipeline.current.job import current  # noqa: E402

DB = "lake"
TABLES = {   # name: (columns DDL, key columns)
    "items": ("id INT NOT NULL, name VARCHAR(20), qty INT, price DECIMAL(8,2), "
              "seen DATETIME(6), PRIMARY KEY (id)", ["id"]),
    "pairs": ("a INT NOT NULL, b VARCHAR(8) NOT NULL, v INT, PRIMARY KEY (a, b)", ["a", "b"]),
    "still": ("id INT NOT NULL, v INT, PRIMARY KEY (id)", ["id"]),
    "cleared": ("id INT NOT NULL, v INT, PRIMARY KEY (id)", ["id"]),
    "bag": ("x INT, y VARCHAR(8)", []),
}
# file 2's changes of the keyed tables, by key: (updated, deleted, inserted); the key 95 of
# items inserted and deleted in the run (a change counted, no row changed)
ITEMS = ({3, 5, 7, 20}, {10, 11}, {41, 42})
PAIRS = ({(2, "b")}, {(4, "a")}, {(9, "z")})


def _item(i, k=0):
    return {"id": i, "name": f"item {i}.{k}", "qty": i * 3 + k,
            "price": f"{i}.{k:02d}", "seen": f"2024-01-{1 + i % 28:02d} 10:00:0{k}.000123"}


def _file1():
    txs = [{"ddl": f"CREATE TABLE {n} ({cols})"} for n, (cols, _) in TABLES.items()]
    txs += [{"changes": [{"insert": "items", "rows": [_item(i) for i in range(1, 41)]}]},
            {"changes": [{"insert": "pairs", "rows": [
                {"a": a, "b": b, "v": a * 10} for a in range(1, 6) for b in "ab"]}]},
            {"changes": [{"insert": "still", "rows": [{"id": i, "v": i} for i in range(5)]},
                         {"insert": "cleared", "rows": [{"id": i, "v": i} for i in range(6)]},
                         {"insert": "bag", "rows": [{"x": 1, "y": "p"}, {"x": 1, "y": "p"},
                                                    {"x": 2, "y": "q"}]}]}]
    return _spec(1, txs, {})


def _state1():
    """The rows file 1 leaves, as file 2's spec declares them (``initial_rows``)."""
    return {"items": [_item(i) for i in range(1, 41)],
            "pairs": [{"a": a, "b": b, "v": a * 10} for a in range(1, 6) for b in "ab"],
            "still": [{"id": i, "v": i} for i in range(5)],
            "cleared": [{"id": i, "v": i} for i in range(6)],
            "bag": [{"x": 1, "y": "p"}, {"x": 1, "y": "p"}, {"x": 2, "y": "q"}]}


def _file2():
    updated, deleted, inserted = ITEMS
    pu, pd, pi = PAIRS
    txs = [
        {"changes": [{"update": "items", "rows": [
            {"where": {"id": i}, "set": {"qty": 1000 + i}} for i in sorted(updated)]}]},
        {"changes": [{"delete": "items", "rows": [{"id": i} for i in sorted(deleted)]},
                     {"insert": "items", "rows": [_item(i, 1) for i in sorted(inserted)]}]},
        {"changes": [{"update": "items", "rows": [{"where": {"id": 5},
                                                   "set": {"name": "twice"}}]}]},
        {"changes": [{"insert": "items", "rows": [_item(95)]}]},
        {"changes": [{"delete": "items", "rows": [{"id": 95}]}]},
        {"changes": [{"update": "pairs", "rows": [
            {"where": {"a": a, "b": b}, "set": {"v": -1}} for a, b in sorted(pu)]},
            {"delete": "pairs", "rows": [{"a": a, "b": b} for a, b in sorted(pd)]},
            {"insert": "pairs", "rows": [{"a": a, "b": b, "v": 0} for a, b in sorted(pi)]}]},
        {"ddl": "TRUNCATE TABLE cleared"},
        {"changes": [{"insert": "cleared", "rows": [{"id": 100, "v": 1}]}]},
        {"changes": [{"insert": "bag", "rows": [{"x": 3, "y": "r"}]}]},
    ]
    return _spec(2, txs, _state1(), row_image="MINIMAL")


def _file3():
    state = _state1()   # (the rows file 3 touches are file 1's, as file 2 left them)
    txs = [{"ddl": "ALTER TABLE pairs ADD COLUMN note VARCHAR(8)"},
           {"changes": [{"insert": "pairs", "rows": [{"a": 7, "b": "n", "v": 7,
                                                     "note": "new"}]}]},
           {"changes": [{"update": "still", "rows": [{"where": {"id": 1}, "set": {"v": 9}}]}]}]
    return _spec(3, txs, {"pairs": state["pairs"][:1], "still": state["still"]})


def _spec(n, txs, initial, row_image="FULL"):
    from binlog_schema.changes.schema.ddl.tables import tables_from_ddl
    tables = []
    for name, rows in initial.items():
        table = tables_from_ddl(f"CREATE TABLE {name} ({TABLES[name][0]})", DB)[0]
        tables.append({**table, "initial_rows": rows})
    return {"name": f"lake-{n}", "server": SHOP_SERVERS["mariadb"], "database": DB,
            "settings": {"binlog_row_metadata": "FULL", "binlog_row_image": row_image,
                         "server_id": 1, "timestamp": BASE_TS + n * 3600},
            "tables": tables, "transactions": txs}


@pytest.fixture(scope="module")
def binlogs(tmp_path_factory):
    from binlog_schema.synthetic import generate
    root = tmp_path_factory.mktemp("lake")
    files = []
    for n, spec in enumerate([_file1(), _file2(), _file3()], 1):
        path = str(root / f"mariadb-bin.{n:06d}")
        generate(spec, path)
        files.append(path)
    return files


@pytest.fixture(scope="module")
def runs(spark, binlogs, tmp_path_factory):
    """lake: file 1, then file 2 with --base itself (the MERGE run), then file 2 again (no
    change); whole: files 1 and 2 in one run; copies of lake after each step."""
    root = tmp_path_factory.mktemp("runs")
    lake = str(root / "lake")
    out = {}
    for step, inputs, base in [("r1", binlogs[:1], None), ("r2", binlogs[1:2], lake),
                               ("again", binlogs[1:2], lake)]:
        r = current(inputs, spark, out=lake, base=base, fmt="delta")
        assert not r.problems and r.status == 0, (step, r.problem_lines())
        out[step] = r
        shutil.copytree(lake, root / step)
    r = current(binlogs[:2], spark, out=str(root / "whole"), fmt="delta")
    assert not r.problems and r.status == 0, r.problem_lines()
    out["whole"] = r
    out["root"] = root
    return out


def _table(root, step, name):
    return str(root / step / DB / name)


def _rows(path, version=None, drop=("_order_key",)):
    t = pa.table(deltalake.DeltaTable(path, version=version).to_pyarrow_table())
    return sorted(({k: v for k, v in r.items() if k not in drop} for r in t.to_pylist()),
                  key=repr)


def _log(path):
    """The commits of a Delta table's log, oldest first."""
    log = os.path.join(path, "_delta_log")
    out = []
    for name in sorted(n for n in os.listdir(log) if n.endswith(".json")):
        with open(os.path.join(log, name)) as f:
            out.append([json.loads(line) for line in f if line.strip()])
    return out


def _info(commit):
    return next(a["commitInfo"] for a in commit if "commitInfo" in a)


def _key_of(row, name):
    keys = TABLES[name][1]
    return tuple(row[k] for k in keys) if len(keys) > 1 else row[keys[0]]


@pytest.mark.parametrize("name", ["items", "pairs", "cleared"])
def test_changed_keys_commit_by_merge(runs, name):
    """The run over file 2 commits one MERGE per changed keyed table: its metrics count the
    keys changed (as file 2 changed them) and no other source row; the change data feed of
    that version holds exactly those keys' changes (pre- and post-images as the tables of
    r1 and r2 hold them)."""
    root = runs["root"]
    before = {_key_of(r, name): r for r in _rows(_table(root, "r1", name))}
    after = {_key_of(r, name): r for r in _rows(_table(root, "r2", name))}
    if name == "items":
        updated, deleted, inserted = ITEMS
        updated = updated | {5}
    elif name == "pairs":
        updated, deleted, inserted = PAIRS
    else:   # (TRUNCATE: every key held is deleted; one inserted after)
        updated, deleted, inserted = set(), set(before), {100}
    assert set(after) == (set(before) - deleted) | inserted
    commits = _log(_table(root, "r2", name))
    info = _info(commits[-1])
    assert info["operation"] == "MERGE", info
    m = info["operationMetrics"]
    assert (m["num_target_rows_updated"], m["num_target_rows_deleted"],
            m["num_target_rows_inserted"]) == (len(updated), len(deleted), len(inserted)), m
    assert m["num_source_rows"] == len(updated) + len(deleted) + len(inserted), m
    assert json.loads(info["userMetadata"]) == {"binlog_schema": f"{DB}.{name}"}
    version = len(commits) - 1
    table = deltalake.DeltaTable(_table(root, "r2", name))
    cdf = pa.table(table.load_cdf(starting_version=version, ending_version=version)
                   .read_all()).to_pylist()
    got = sorted(((r["_change_type"], _key_of(r, name),
                   {k: v for k, v in r.items() if not k.startswith("_")}) for r in cdf),
                 key=repr)
    want = [("insert", k, _bare(after[k])) for k in inserted] + \
        [("delete", k, _bare(before[k])) for k in deleted] + \
        [("update_preimage", k, _bare(before[k])) for k in updated] + \
        [("update_postimage", k, _bare(after[k])) for k in updated]
    assert got == sorted(want, key=repr)
    assert runs["r2"].tables[f"{DB}.{name}"]["version"] == version


def _bare(row):
    return {k: v for k, v in row.items() if not k.startswith("_")}


def test_other_tables_and_a_run_that_changes_nothing(runs):
    """Every table equals the one a run over files 1 and 2 at once writes (order keys
    included; the state's rows counted alike) and has the change data feed on. A table file 2
    leaves alone gets no commit; the keyless table is rewritten whole (its change data feed:
    every row deleted and inserted). File 2 again on r2 (every change at or before the
    base's last one): no table gets a new version."""
    root = runs["root"]
    for name in TABLES:
        got = _rows(_table(root, "r2", name), drop=())
        assert got == _rows(_table(root, "whole", name), drop=()), name
        assert runs["r2"].tables[f"{DB}.{name}"]["rows"] == \
            runs["whole"].tables[f"{DB}.{name}"]["rows"] == len(got), name
        config = deltalake.DeltaTable(_table(root, "r2", name)).metadata().configuration
        assert config.get("delta.enableChangeDataFeed") == "true", (name, config)
        assert len(_log(_table(root, "again", name))) == len(_log(_table(root, "r2", name))), \
            name
        assert runs["again"].tables[f"{DB}.{name}"]["version"] == \
            runs["r2"].tables[f"{DB}.{name}"]["version"]
    assert len(_log(_table(root, "r2", "still"))) == len(_log(_table(root, "r1", "still")))
    commits = _log(_table(root, "r2", "bag"))
    assert _info(commits[-1])["operation"] != "MERGE"
    version = len(commits) - 1
    cdf = pa.table(deltalake.DeltaTable(_table(root, "r2", "bag")).load_cdf(
        starting_version=version, ending_version=version).read_all()).to_pylist()
    assert sorted(r["_change_type"] for r in cdf) == ["delete"] * 3 + ["insert"] * 4


def test_an_alter_rewrites_the_table_whole(spark, runs, binlogs, tmp_path):
    """File 3 on a copy of r2: the ALTERed table is rewritten whole (not a MERGE) with its
    new column; the table beside it, updated, is merged."""
    lake = tmp_path / "lake"
    shutil.copytree(runs["root"] / "r2", lake)
    r = current(binlogs[2:], spark, out=str(lake), base=str(lake), fmt="delta")
    assert not r.problems and r.status == 0, r.problem_lines()
    pairs = str(lake / DB / "pairs")
    info = _info(_log(pairs)[-1])
    assert info["operation"] != "MERGE", info
    assert "note" in _rows(pairs)[0]
    assert {"a": 7, "b": "n", "v": 7, "note": "new"} in _rows(pairs)
    version = len(_log(pairs)) - 1   # (its feed: every row deleted, every row inserted)
    cdf = pa.table(deltalake.DeltaTable(pairs).load_cdf(
        starting_version=version, ending_version=version).read_all()).to_pylist()
    old = len(_rows(_table(runs["root"], "r2", "pairs")))
    assert sorted(r["_change_type"] for r in cdf) == ["delete"] * old + ["insert"] * (old + 1)
    still = _info(_log(str(lake / DB / "still"))[-1])
    assert still["operation"] == "MERGE" and \
        still["operationMetrics"]["num_target_rows_updated"] == 1, still

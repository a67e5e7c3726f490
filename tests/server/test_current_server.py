"""Server tier, current-state tables (issue 16): a private, real MariaDB server
(scripts/make_current_binlogs.sh) runs scripts/workloads/current.sql -- every common column
type, keyed and keyless tables (a multiset of duplicate rows), keys deleted and inserted again,
primary keys changed, ALTERs between DML, RENAME TABLE, TRUNCATE, DROP and CREATE again,
rolled-back transactions -- twice (binlog_row_image and binlog_row_metadata FULL; both
MINIMAL), each of its two parts a and b over several binlog files, and saves every table's
rows, typed, after part a and at the end. ``binlog-schema spark current`` (run as a user runs
it: a subprocess, ``--master local[2]``, in a time zone other than UTC) must give, for each
pass:

(a) over all the files: every table equal to the server's final SELECT (columns in table
    order, the promised types, the rows as a multiset, every column; the "_" columns
    ignored), and the set of tables equal to the server's (dropped ones absent, a renamed one
    under its new name); the Parquet tables also read back through Spark;
(b) ``--format delta``: (a) again, and part a into r1 (== the state after part a), then part b
    with ``--base r1`` into r2 (== the final state), read back with deltalake and with DuckDB;
    and part b on a copy of r1 in place (``--base`` and ``--out`` one folder): the final
    state again, each table the run commits by MERGE counting, in its Delta log, the keys
    the server's states after a and after b say were deleted and inserted, and no more
    source rows than keys changed;
    ``--format iceberg``: (a) again, and part a into r1, then part b with ``--base r1`` into
    r1 itself (an upsert of the keys part b changed): the table's snapshot before is the
    state after part a, its current one the final state, read back with pyiceberg and with
    DuckDB (over pyiceberg's scan plan); at most one new snapshot per table, none for a
    table part b left as it was, and a keyed table's is an upsert; part b again in place
    changes nothing and makes no snapshot;
(c) incremental == whole, as a property (in this process, one Spark session for every run):
    for every split point at a file boundary, the files after it with ``--base`` of the run
    over the files before it (itself a chain of runs of one file each, ``--base`` the run
    before) give exactly the tables of (a) (every column and ``_order_key``), and the
    server's; the chain over all files too; the run over the files of part a the server's
    state after part a; the files after the a/b boundary again on their own result change
    nothing (idempotent), and state.json's row counts are the server's COUNT(*).

The workload's statement the schema history refuses (a PERIOD FOR) makes every run exit 3,
with one stderr line naming its file, offset, statement and reason; its table is not written.

Without ``mariadbd`` the tier is skipped with a warning (failed under CI=true); without pyspark
or Java, likewise.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import shutil
import threading
import time

import pytest

from .current_workload import (PASSES, REFUSED, compare_output, compare_table, data_rows,
                               duckdb_how, output_tables, read_delta, read_delta_duckdb,
                               read_iceberg, read_iceberg_duckdb, spark_current, state_doc,
                               status_problems, stderr_summary, table_dir, versions_at,
                               workload_binlogs)

pytestmark = [pytest.mark.server, pytest.mark.spark]

# the runs' time zone: not UTC, so that a DATETIME or TIMESTAMP shifted by the machine's zone
# shows (no daylight saving time: the offset is the same all year)
RUN_TZ = os.environ.get("CURRENT_TEST_TZ", "Asia/Kolkata")


@pytest.fixture(scope="module")
def binlogs(tmp_path_factory):
    found = workload_binlogs(tmp_path_factory, "current-state", "binlogs-current")
    print(f"workload: {found['full']['seconds']:.1f}s for both passes")
    return found


class Runs:
    """``spark current`` runs of each pass. The runs the selected tests need are started when
    the fixture is made, CURRENT_TEST_JOBS (default 2) at a time, each chain of runs that
    continue one another (``--base``) in order; a run no test asked for first is made when
    asked."""

    PLAN = {  # name: (inputs, base run or None, extra options)
        "all": ("ab", None, ()),
        "delta-all": ("ab", None, ("--format", "delta")),
        "delta-r1": ("a", None, ("--format", "delta")),
        "delta-r2": ("b", "delta-r1", ("--format", "delta")),
        "delta-merge": ("b", "delta-r1", ("--format", "delta")),
        "iceberg-all": ("ab", None, ("--format", "iceberg")),
        "iceberg-r1": ("a", None, ("--format", "iceberg")),
        "iceberg-r2": ("b", "iceberg-r1", ("--format", "iceberg")),
        "iceberg-r3": ("b", "iceberg-r2", ("--format", "iceberg")),
    }
    ON_COPY = {"delta-merge"}   # runs on a copy of their base, in it (Delta's MERGE)
    # runs whose --out is their --base (its state.json kept as BASE_STATE beside it first)
    IN_PLACE = {"iceberg-r2", "iceberg-r3"}
    BASE_STATE = "base-state.json"

    def __init__(self, binlogs, tmp):
        self.binlogs, self.tmp, self.done = binlogs, tmp, {}
        self.events = {}                # (pass, run) -> set when the run is made
        self.pool = None

    def inputs(self, name, parts):
        if parts == "ab":                        # all of a pass: given as its folder
            return [self.binlogs[name]["folder"]]
        return [f for p in parts for f in self.binlogs[name]["parts"][p]]

    def chain(self, run):
        out = [run]
        while self.PLAN[out[0]][1]:
            out.insert(0, self.PLAN[out[0]][1])
        return out

    def _make(self, name, runs):
        for run in runs:
            key = (name, run)
            if key in self.done:
                continue
            parts, base, options = self.PLAN[run]
            extra = list(options)
            out, proc, t = None, None, time.perf_counter()
            try:
                base_out = self.done[(name, base)][0] if base else None
                if not base or (base_out is not None and
                                (base_out / "_binlog_schema" / "state.json").exists()):
                    out = self.tmp / f"{name}-{run}"
                    if base and run in self.ON_COPY:
                        shutil.copytree(base_out, out)
                        base_out = out
                    if base:
                        extra += ["--base", base_out]
                    if run in self.IN_PLACE:
                        out = base_out
                        shutil.copy(base_out / "_binlog_schema" / "state.json",
                                    self.tmp / f"{name}-{run}-{self.BASE_STATE}")
                    proc = spark_current(self.inputs(name, parts), out, *extra,
                                         env=dict(os.environ, TZ=RUN_TZ))
            except Exception as e:  # noqa: BLE001 - (a timeout): said by get()
                proc = e
            finally:
                self.done[key] = (out, proc, time.perf_counter() - t)
                self.events.setdefault(key, threading.Event()).set()

    def start(self, wanted, jobs):
        """Start the chains that make ``wanted`` [(pass, run)], longest first."""
        chains = {}
        for name, run in wanted:
            c = self.chain(run)
            key = (name, c[0])
            if len(c) > len(chains.get(key, [])):
                chains[key] = c
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        for (name, _), c in sorted(chains.items(), key=lambda kv: -len(kv[1])):
            for run in c:
                self.events.setdefault((name, run), threading.Event())
            self.pool.submit(self._make, name, c)

    def get(self, name, run):
        """(the output folder of a run, and [what was wrong with its exit]): the run made
        first (and its base: a run whose base exited non-zero still runs when the base
        wrote its state, so that its tables can be compared too)."""
        if (name, run) in self.events:
            self.events[(name, run)].wait()
        else:
            self._make(name, self.chain(run))
        out, proc, _ = self.done[(name, run)]
        if proc is None:
            pytest.fail(f"spark current ({name}, {run}) not run: its --base run "
                        f"({self.PLAN[run][1]}) wrote no state.json")
        if isinstance(proc, Exception):
            pytest.fail(f"spark current ({name}, {run}): {proc!r}")
        if not out.is_dir():
            pytest.fail(f"spark current ({name}, {run}) exited {proc.returncode} and wrote "
                        f"nothing:\n{stderr_summary(proc.stderr)}")
        wrong = status_problems(proc.returncode, proc.stderr, f"spark current ({name}, {run})")
        if wrong:
            return out, wrong + [stderr_summary(proc.stderr)]
        return out, []

    def close(self):
        if self.pool:
            self.pool.shutdown(wait=True)
        for (name, run), (_, proc, secs) in sorted(self.done.items()):
            if proc is not None:
                print(f"spark current ({name}, {run}): {secs:.1f}s, exit "
                      f"{getattr(proc, 'returncode', proc)}")


# the runs each test needs ("all" of the pass it is given, unless a pass is named)
NEEDS = {
    "test_all_files_give_the_final_state": ["all"],
    "test_spark_reads_the_parquet_tables": [("full", "all")],
    "test_state_counts_are_the_servers": ["all"],
    "test_every_split_gives_the_single_run": ["all"],
    "test_delta_gives_the_final_state": ["delta-all"],
    "test_delta_incremental_gives_the_final_state": ["delta-r2"],
    "test_delta_in_place_commits_changed_keys_by_merge": ["delta-merge"],
    "test_iceberg_gives_the_final_state": ["iceberg-all"],
    "test_iceberg_upserts_in_place": ["iceberg-r3"],
}


@pytest.fixture(scope="module")
def runs(binlogs, tmp_path_factory, request):
    made = Runs(binlogs, tmp_path_factory.mktemp("current-runs"))
    wanted = set()
    for item in request.session.items:
        if item.module is not request.module or item.originalname not in NEEDS:
            continue
        params = getattr(item, "callspec", None)
        params = params.params if params else {}
        for need in NEEDS[item.originalname] + ([params["run"]] if "run" in params else []):
            wanted.add(need if isinstance(need, tuple) else (params["name"], need))
    made.start(sorted(wanted), int(os.environ.get("CURRENT_TEST_JOBS", "2")))
    yield made
    made.close()


def _no_problems(problems, what):
    assert not problems, f"{what}:\n" + "\n".join(problems)




# ------------------------------------------------------------------ the workload itself


def test_the_workload_covers_what_it_says(binlogs):
    for name in PASSES:
        run = binlogs[name]
        assert len(run["parts"]["a"]) >= 2 and len(run["parts"]["b"]) >= 2
        # the server's own names: part b's files after part a's, in name and in number
        names = [f.name for f in run["parts"]["a"] + run["parts"]["b"]]
        assert names == sorted(names) and len(set(names)) == len(names)
        assert sorted(f.name for f in run["folder"].iterdir()) == names
        final, after_a = run["after-b"]["tables"], run["after-a"]["tables"]
        # both passes leave the same rows (the workload writes literals)
        assert final == binlogs["full"]["after-b"]["tables"]
        assert "bs_current.t_new" in final and "bs_current.t_old" not in final
        assert "bs_current.t_gone" not in final and "bs_current.t_gone" not in after_a
        assert "bs_current.t_old" in after_a
        assert "bs_current_x.kv" in final
        types = {c["type"] for t in final.values() for c in t["columns"]}
        assert {"tinyint", "smallint", "mediumint", "int", "bigint", "decimal", "float",
                "double", "char", "varchar", "binary", "varbinary", "text", "blob", "date",
                "datetime", "timestamp", "time", "year", "enum", "set", "bit",
                "json"} <= types
        multi = [tuple(r) for r in final["bs_current.t_multi"]["rows"]]
        assert len(set(multi)) < len(multi)                  # duplicate identical rows
        assert not final["bs_current.t_multi"]["primary_key"]
        spans = [r[4] for r in final["bs_current.t_time"]["rows"] if r[4] is not None]
        assert min(spans) < 0 and max(spans) >= 86_400_000_000
        assert final["bs_current.t_alter"]["columns"] != after_a["bs_current.t_alter"][
            "columns"]
        for t in final.values():
            assert t["count"] == len(t["rows"])
        # (issue 26) columns added with a DEFAULT, NULL and the implicit default to rows of
        # an earlier file; a primary key added to a keyless table whose rows its key would
        # have folded wrongly before; the refused statement's table holds rows
        dflt = final["bs_current.t_dflt"]
        assert [c["name"] for c in dflt["columns"]] == ["id", "v", "d", "z", "nn", "k",
                                                        "late"]
        assert [1, "one", 42, 0, None, "p", "9.50"] in dflt["rows"]
        assert final["bs_current.t_later"]["primary_key"] == ["id"]
        assert not after_a["bs_current.t_later"]["primary_key"]
        assert [1, 10] in final["bs_current.t_later"]["rows"]
        assert all(final[t]["count"] > 0 for t in REFUSED)


# ------------------------------------------------------------------ (a)


@pytest.mark.parametrize("name", PASSES)
def test_all_files_give_the_final_state(binlogs, runs, name):
    out, problems = runs.get(name, "all")
    _no_problems(problems + compare_output(out, binlogs[name]["after-b"]),
                 f"spark current over all of the {name} pass != the server's final state")


def test_spark_reads_the_parquet_tables(binlogs, runs):
    """The tables of (a), FULL pass, read back by Spark (spark.read.parquet, default
    configuration but a UTC session and Spark's TIME type on, as the README says:
    ``spark.sql.timeType.enabled``), equal the server's final state (values; Spark's own
    types)."""
    out, _ = runs.get("full", "all")
    from binlog_schema.pipeline.driver.session import start_session
    spark = start_session("local[2]", {"spark.sql.session.timeZone": "UTC",
                                       "spark.sql.shuffle.partitions": "2",
                                       "spark.sql.timeType.enabled": "true"})
    problems = []
    try:
        final = binlogs["full"]["after-b"]["tables"]
        for name in sorted(set(final) & set(output_tables(out))):
            try:
                t = spark.read.parquet(table_dir(out, name)).toArrow()
            except Exception as e:  # noqa: BLE001 - the reader's refusal is the finding
                problems.append(f"{name}: spark.read.parquet failed: "
                                f"{str(e).strip().splitlines()[0][:400]}")
                continue
            problems += compare_table(name, t.schema, t.to_pylist(), final[name],
                                      check_types=False)
    finally:
        spark.stop()
    _no_problems(problems, "spark.read.parquet of spark current's tables != the server's")


@pytest.mark.parametrize("name", PASSES)
def test_state_counts_are_the_servers(binlogs, runs, name):
    out, _ = runs.get(name, "all")          # (its exit is the other tests' business)
    problems = _state_counts(out, binlogs[name]["after-b"]["tables"], "all")
    _no_problems(problems, f"state.json of the run over all files ({name} pass)")


def _state_counts(out, final, label) -> list:
    """state.json's counts against the server's: rows == COUNT(*) for every table, none
    for tables the server no longer has, every count a non-negative int."""
    state = state_doc(out)
    problems = [] if "applied" in state else [f"{label}: state.json has no 'applied'"]
    tables = state["tables"]
    wrong = {t: (tables.get(t, {}).get("rows"), s["count"]) for t, s in final.items()
             if t not in REFUSED and tables.get(t, {}).get("rows") != s["count"]}
    if wrong:
        problems.append(f"{label}: state.json rows != COUNT(*) (table: (ours, server)): "
                        f"{wrong}")
    gone = {t: s.get("rows") for t, s in tables.items() if t not in final and s.get("rows")}
    if gone:
        problems.append(f"{label}: state.json counts rows of tables the server no longer "
                        f"has: {gone}")
    problems += [f"{label}: state.json {t}.{k} = {s.get(k)!r}" for t, s in tables.items()
                 for k in ("rows", "inserted", "updated", "deleted")
                 if not (isinstance(s.get(k), int) and s[k] >= 0)]
    return problems


# ------------------------------------------------------------------ (b)


def _final_state(binlogs, runs, name, fmt, engine, duckdb):
    """The run of ``fmt`` over all of a pass, read by its engine's package and by DuckDB
    (each a (label, reader)), equals the server's final state."""
    out, problems = runs.get(name, f"{fmt}-all")
    final = binlogs[name]["after-b"]
    problems += [f"({engine[0]}) {p}" for p in
                 compare_output(out, final, reader=engine[1], time_forms="any")]
    problems += [f"({duckdb[0]}) {p}" for p in
                 compare_output(out, final, reader=duckdb[1], check_types=False)]
    _no_problems(problems, f"--format {fmt} over all of the {name} pass != the server's "
                 "final state")


@pytest.mark.parametrize("name", PASSES)
def test_delta_gives_the_final_state(binlogs, runs, name):
    _final_state(binlogs, runs, name, "delta", ("deltalake", read_delta),
                 (f"DuckDB, {duckdb_how()}", read_delta_duckdb))


@pytest.mark.parametrize("name", PASSES)
def test_delta_incremental_gives_the_final_state(binlogs, runs, name):
    r1, problems = runs.get(name, "delta-r1")
    problems += [f"(r1, deltalake) {p}" for p in compare_output(
        r1, binlogs[name]["after-a"], reader=read_delta, time_forms="any")]
    r2, more = runs.get(name, "delta-r2")
    problems += [f"(r2) {p}" for p in more]
    problems += [f"(r2, deltalake) {p}" for p in compare_output(
        r2, binlogs[name]["after-b"], reader=read_delta, time_forms="any")]
    problems += [f"(r2, DuckDB, {duckdb_how()}) {p}" for p in compare_output(
        r2, binlogs[name]["after-b"], reader=read_delta_duckdb, check_types=False)]
    _no_problems(problems, f"--format delta: part a into r1, part b with --base r1 into r2 "
                 f"({name} pass)")


@pytest.mark.parametrize("name", PASSES)
def test_delta_in_place_commits_changed_keys_by_merge(binlogs, runs, name):
    """Part b on a copy of r1, in it: the final state (deltalake, DuckDB); a table the run
    commits by MERGE has the same columns after a and after b, its MERGE's key is a key of
    the server's rows in both, and its
    MERGE deletes and inserts the keys the server's two states say were deleted and
    inserted, updates at most the keys held in both (at least those whose row differs), and
    is given no other row."""
    r1, problems = runs.get(name, "delta-r1")
    out, more = runs.get(name, "delta-merge")
    problems += [f"(in place) {p}" for p in more]
    after_a, after_b = binlogs[name]["after-a"]["tables"], binlogs[name]["after-b"]["tables"]
    problems += [f"(in place, deltalake) {p}" for p in compare_output(
        out, binlogs[name]["after-b"], reader=read_delta, time_forms="any")]
    problems += [f"(in place, DuckDB, {duckdb_how()}) {p}" for p in compare_output(
        out, binlogs[name]["after-b"], reader=read_delta_duckdb, check_types=False)]
    merged = []
    for table in output_tables(out):
        before = len(_delta_log(table_dir(r1, table))) if table in after_a else 0
        new = _delta_log(table_dir(out, table))[before:]
        merges = [c for c in new if c["operation"] == "MERGE"]
        if not merges:
            continue
        merged.append(table)
        a, b = after_a.get(table), after_b[table]
        key = [k[1:-1].replace('""', '"') if k.startswith('"') else k for k in re.findall(
            r't\.("(?:[^"]|"")+"|\w+) IS NOT DISTINCT FROM',
            merges[-1]["operationParameters"]["mergePredicate"])]   # (as deltalake says it)
        if a is None or not key or a["columns"] != b["columns"]:
            problems.append(f"{table}: committed by MERGE by {key}, but its columns changed")
            continue
        ka, kb = _keyed_rows(a, key), _keyed_rows(b, key)
        if len(ka) != len(a["rows"]) or len(kb) != len(b["rows"]):
            problems.append(f"{table}: committed by MERGE by {key}, not a key on the server")
            continue
        m = merges[-1]["operationMetrics"]
        differ = {k for k in ka.keys() & kb.keys() if ka[k] != kb[k]}
        got = (m["num_target_rows_deleted"], m["num_target_rows_inserted"])
        want = (len(ka.keys() - kb.keys()), len(kb.keys() - ka.keys()))
        if len(merges) != 1 or got != want or not \
                len(differ) <= m["num_target_rows_updated"] <= len(ka.keys() & kb.keys()) or \
                m["num_source_rows"] != sum(got) + m["num_target_rows_updated"]:
            problems.append(f"{table}: {len(merges)} MERGE commits, (deleted, inserted) "
                            f"{got} != the server's {want}, or updated "
                            f"{m['num_target_rows_updated']} not within [{len(differ)}, "
                            f"{len(ka.keys() & kb.keys())}], or source rows "
                            f"{m['num_source_rows']} not those: {m}")
    if not merged:
        problems.append("no table committed by MERGE")
    _no_problems(problems, f"--format delta: part b on r1 in place ({name} pass)")


def _delta_log(path) -> list:
    """The commitInfo of each commit of a Delta table's log, oldest first."""
    log = os.path.join(path, "_delta_log")
    out = []
    for entry in sorted(n for n in os.listdir(log) if n.endswith(".json")):
        with open(os.path.join(log, entry)) as f:
            out += [json.loads(x)["commitInfo"] for x in f if '"commitInfo"' in x]
    return out


def _keyed_rows(snapshot, key) -> dict:
    """A server snapshot's rows of a table by the columns ``key``: key -> row."""
    names = [c["name"] for c in snapshot["columns"]]
    at = [names.index(k) for k in key]
    return {json.dumps([r[i] for i in at]): json.dumps(r) for r in snapshot["rows"]}


@pytest.mark.parametrize("name", PASSES)
def test_iceberg_gives_the_final_state(binlogs, runs, name):
    _final_state(binlogs, runs, name, "iceberg", ("pyiceberg", read_iceberg),
                 ("DuckDB over pyiceberg's scan", read_iceberg_duckdb))


@pytest.mark.parametrize("name", PASSES)
def test_iceberg_upserts_in_place(binlogs, runs, name):
    """Part a into r1, then part b with --base r1 --out r1: each table's snapshot of the
    first run is the state after part a, its current one the final state; the second run
    made at most one snapshot per table, none for a table part b left as it was (the
    server's rows and columns the same after a and after b), and a keyed table that part b
    changed got an upsert. Part b again (--base r1 --out r1): no snapshot at all."""
    from binlog_schema.pipeline.tables import iceberg
    r2, problems = runs.get(name, "iceberg-r2")
    r3, more = runs.get(name, "iceberg-r3")
    problems += [f"(part b again) {p}" for p in more]
    before = json.loads((runs.tmp / f"{name}-iceberg-r2-{Runs.BASE_STATE}").read_text())
    second = json.loads((runs.tmp / f"{name}-iceberg-r3-{Runs.BASE_STATE}").read_text())
    for table, info in sorted(state_doc(r3)["tables"].items()):
        ident = tuple(table.split(".", 1))
        current = iceberg.load(str(r3), ident).current_snapshot().snapshot_id
        if info["version"] != second["tables"][table]["version"] or \
                current != info["version"]:
            problems.append(f"{table}: part b again made a snapshot")
    after, final = binlogs[name]["after-a"], binlogs[name]["after-b"]
    problems += [f"(pyiceberg) {p}" for p in
                 compare_output(r2, final, reader=read_iceberg, time_forms="any")]
    problems += [f"(DuckDB over pyiceberg's scan) {p}" for p in
                 compare_output(r2, final, reader=read_iceberg_duckdb, check_types=False)]
    now = second["tables"]
    upserts = 0
    for table, info in sorted(before["tables"].items()):
        ident = tuple(table.split(".", 1))
        if table not in now or table not in after["tables"]:
            continue
        schema, rows = read_iceberg(table_dir(r2, table), info["version"])
        problems += [f"(r1's snapshot) {p}" for p in
                     compare_table(table, schema, rows, after["tables"][table],
                                   time_forms="any")]
        ids = [s.snapshot_id for s in iceberg.snapshots(str(r2), ident)]
        new = iceberg.snapshots(str(r2), ident)[ids.index(info["version"]) + 1:]
        if len(new) > 1:
            problems.append(f"{table}: {len(new)} snapshots in one run")
        if new and after["tables"][table] == final["tables"].get(table):
            problems.append(f"{table}: part b left it as it was, yet a snapshot was made")
        meta = iceberg.last_metadata(str(r2), ident) if new else {}
        if meta.get("commit") == "upsert":
            upserts += 1
            summary = new[0].summary
            if int(summary["total-records"]) != now[table]["rows"]:
                problems.append(f"{table}: the upsert's snapshot holds "
                                f"{summary['total-records']} rows, state.json {now[table]}")
    if not upserts:
        problems.append("no table was upserted by the second run")
    _no_problems(problems, f"--format iceberg: part a into r1, part b with --base r1 into r1 "
                 f"({name} pass)")


# ------------------------------------------------------------------ (c)


@pytest.fixture(scope="module")
def session(binlogs):
    """One Spark session in this process for every run of (c)."""
    from binlog_schema.pipeline.driver.session import start_session
    spark = start_session("local[2]", {"spark.sql.shuffle.partitions": "2"})
    yield spark
    spark.stop()


@pytest.mark.parametrize("name", PASSES)
def test_every_split_gives_the_single_run(binlogs, runs, session, tmp_path, name):
    """(c): ``spark current`` split at any file boundary, ``--base`` the run before, gives
    the single run's tables, which are the server's."""
    from binlog_schema.pipeline.current.job import current
    parts = binlogs[name]["parts"]
    files = [str(f) for f in parts["a"] + parts["b"]]
    single, problems = runs.get(name, "all")
    problems += [f"(all) {p}" for p in compare_output(single, binlogs[name]["after-b"])]
    want = {t: data_rows(single, t) for t in output_tables(single)}

    def run(label, inputs, base=None):
        result = current(inputs, session, out=str(tmp_path / label),
                         base=str(base) if base else None)
        problems.extend(status_problems(result.status, "\n".join(result.problem_lines()),
                                        label))
        return tmp_path / label

    def same_as_single(out, label):
        got = output_tables(out)
        if got != sorted(want):
            problems.append(f"{label}: tables {got}, the single run's {sorted(want)}")
        differ = [t for t in sorted(set(got) & set(want)) if data_rows(out, t) != want[t]]
        if differ:
            problems.append(f"{label}: tables differ from the single run's: {differ}")
            problems.extend(f"{label}: {p}" for p in compare_output(
                out, binlogs[name]["after-b"]))
        problems.extend(_state_counts(out, binlogs[name]["after-b"]["tables"], label))

    first = None
    for k in range(1, len(files)):
        first = run(f"first-{k}", files[k - 1:k], first)     # files[:k], a file a run
        if k == len(parts["a"]):
            problems.extend(f"first-{k}: {p}" for p in compare_output(
                first, binlogs[name]["after-a"]))
        rest = run(f"rest-{k}", files[k:], first)
        same_as_single(rest, f"rest-{k} (--base first-{k})")
        if k == len(parts["a"]):   # (part b again on its own result: changes nothing)
            same_as_single(run("again", files[k:], rest), f"again (--base rest-{k})")
    same_as_single(run("chain", files[-1:], first), f"chain (--base first-{len(files) - 1})")
    _no_problems(problems, f"{name} pass: a run split at a file boundary != the single run")


# ------------------------------------------------------------------ (d): spark follow


@pytest.mark.parametrize("name", PASSES)
def test_follow_gives_the_server_state(binlogs, session, tmp_path, name):
    """(d): ``spark follow`` (binlog_schema.pipeline.follow) of a folder the pass's binlogs
    appear in, part a then part b, a query started again on the same checkpoint for each:
    the Delta tables equal the server's state after part a, then its final state; state.json's
    rows are the server's COUNT(*); the only problems said are the refused table's (its
    statement, and its row changes as those of a table not known)."""
    import shutil
    from binlog_schema.pipeline.follow.job import follow
    parts = binlogs[name]["parts"]
    inbox, out, checkpoint = (tmp_path / d for d in ("in", "out", "checkpoint"))
    inbox.mkdir()
    problems = []
    for part, snapshot in (("a", "after-a"), ("b", "after-b")):
        for f in parts[part]:
            shutil.copy(f, inbox / f.name)
        following = follow(str(inbox), session, out=str(out), checkpoint=str(checkpoint),
                           once=True)
        following.wait()
        problems += [f"(follow, part {part}) {t}: {m}" for t, m in following.problems
                     if not any(r in f"{t}: {m}" for r in REFUSED)]
        problems += [f"(follow, part {part}) {p}" for p in compare_output(
            out, binlogs[name][snapshot], reader=read_delta, time_forms="any")]
    problems.extend(_state_counts(out, binlogs[name]["after-b"]["tables"], "follow"))
    _no_problems(problems, f"spark follow of the {name} pass != the server's state")


# ------------------------------------------------------------------ spark history


@pytest.mark.parametrize("name", PASSES)
def test_history_as_of_each_snapshot_is_the_servers_state(binlogs, tmp_path, name):
    """``spark history`` over all the files of a pass: the versions held at the time of each
    snapshot (after part a, whose commits are all seconds before part b's; at the end) are
    the server's tables then (every column, rows as multisets: at part a's end, the tables
    whose name and columns stay to the end); those held at the end are the ones
    ``_is_current``. A table the history does not write (its primary key changes
    in its life, or a partial image moves a keyed row) is said on stderr, and only it is
    missing."""
    out = tmp_path / "history"
    proc = spark_current([binlogs[name]["folder"]], out, env=dict(os.environ, TZ=RUN_TZ),
                         command="history")
    assert proc.returncode == 3, stderr_summary(proc.stderr)
    unwritten = set()
    for line in proc.stderr.splitlines():
        if "its history is not written" in line:
            unwritten.add(line.split(": ")[1])
    problems = []
    final = binlogs[name]["after-b"]["tables"]
    for state in ("after-a", "after-b"):
        snap = binlogs[name][state]
        # (the tables in the shape they end in: a table renamed, altered or created anew
        # since is the final table's history, compared at the end only)
        same = {t: v for t, v in snap["tables"].items() if t not in unwritten and t in final
                and [c["name"] for c in v["columns"]] ==
                [c["name"] for c in final[t]["columns"]]}
        problems += [f"{state}: {p}" for p in compare_output(
            out, dict(snap, tables=same), reader=versions_at(snap["at"]))
            if not p.startswith("tables:")]
        if state == "after-b":
            problems += [p for p in compare_output(out, dict(snap, tables={
                t: v for t, v in snap["tables"].items() if t not in unwritten}),
                reader=versions_at(snap["at"])) if p.startswith("tables:")]
        assert len(same) >= 5, (state, sorted(same))
    for table in output_tables(out):
        _, rows = versions_at(binlogs[name]["after-b"]["at"])(table_dir(out, table))
        from .current_workload import read_parquet
        _, every = read_parquet(table_dir(out, table))
        if sorted(map(repr, rows)) != sorted(repr(r) for r in every if r["_is_current"]):
            problems.append(f"{table}: the versions held at the end are not _is_current")
    _no_problems(problems, f"spark history of the {name} pass != the server's states")

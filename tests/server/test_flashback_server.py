"""Server tier, SQL and flashback: a private, real MariaDB (scripts/mariadb.sh) runs the workload
of tests/server/flashback_workload.py -- every column type the server has, keyed, composite-key
and keyless tables, DML over three binlog files -- and saves the exact states S0 (before the
DML), SA, SB (between its phases, at whole seconds T1 and T2) and S1 (after). Then:

  binlog-schema sql FILES                applied to S0 gives S1
  binlog-schema sql --flashback FILES    applied to S1 gives S0
  binlog-schema flashback FILES -o OUT   ``mariadb-binlog OUT | mariadb`` on S1 gives S0

each compared per table (CHECKSUM TABLE and every row in exact forms), and with the filters:
--table (globs, repeated), --database, --thread-id (the second connection's: it alone changes
fb_other.kv), --gtid / --start-datetime+--stop-datetime / --start-position+--stop-position
around phase B (SA <-> SB), --operation (statement counts). Their printed row changes are
counted against ``mariadb-binlog [--flashback] -v``. The MINIMAL-metadata configuration runs
the same workload under binlog_row_metadata=MINIMAL; ``sql`` gets ``--schema`` from a
``mariadb-dump --no-data`` taken before the DML.

The harness checks itself with the vendor's tool (the ``test_harness_*`` tests: they pass
without binlog-schema's commands; ``pytest -k harness``): ``mariadb-binlog FILES | mariadb``
on S0 gives S1, ``mariadb-binlog --flashback`` on S1 gives S0, and the vendor's own filters
give the expected partial states, so that every expected state below is known to be
reachable. The comparison is exact (one FLOAT moved by one ulp is a difference).

Run: ``.venv/bin/python -m pytest tests/server/test_flashback_server.py`` (about 15 s: one
private server, the workload twice, FULL and MINIMAL metadata).

Time window: ``--start-datetime``/``--stop-datetime`` take 'YYYY-MM-DD HH:MM:SS'.
``mariadb-binlog`` reads it in the client's local time zone; binlog-schema in UTC (binlog
timestamps are UTC seconds). Every command here runs with TZ=UTC and the bounds are written
in UTC, so both readings are the same instant. Both select start <= time < stop; T1 and T2 are
whole seconds no event of the workload straddles (the workload waits past them).

Vendor flashback findings (MariaDB 10.11.19, Debian 12's mariadb-binlog 3.5):
``mariadb-binlog --flashback`` restores S0 exactly for every table and type of this workload
under FULL and MINIMAL metadata (BINARY(8) with trailing 0x00, keyless duplicate rows, primary
key changes, zero dates, negative fractional TIME, FLOAT, geometry with SRID, INET4/INET6/UUID
included), and its filters --table (one table at a time), --database, --start/stop-datetime,
--start/stop-position and GTID positions all give the expected partial states: MDEV-23077
(--flashback with --table) did not show here. VENDOR_FLASHBACK_DIFFERENCES lists the tables
whose state it does not restore, per configuration (none on that version); the test fails only
on a difference not listed there, and warns for a listed one. What the workload cannot
exercise: negative zero (MariaDB stores -0e0 as +0) and VECTOR (MariaDB 11.7+; created only
when the server has it: 10.11 does not).
"""

from __future__ import annotations

import os
import warnings

import pytest

from . import flashback_workload as fw
from ..conftest import unavailable

pytestmark = pytest.mark.server

# configuration -> {table: what differs} after ``mariadb-binlog --flashback FILES | mariadb``
# on S1 (compared with S0): the vendor's known failures, a finding rather than a failing test
VENDOR_FLASHBACK_DIFFERENCES: dict = {"full": {}, "minimal": {}}


# ------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def server():
    missing = [t for t in ("mariadbd", "mariadb-binlog", "mariadb", "mariadb-dump")
               if not fw.tool(t)]
    msg = None
    if missing:
        msg = (f"{', '.join(missing)} not installed (apt-get install mariadb-server "
               "mariadb-client): SQL/flashback server tier not run")
    else:
        try:
            import pymysql  # noqa: F401
        except ImportError:
            msg = "pymysql missing: SQL/flashback server tier not run"
    if msg:
        unavailable(msg)
    try:
        srv = fw.Server(f"flashback-test-{os.getpid()}", "--binlog-checksum=CRC32",
                        "--binlog-row-image=FULL")
    except RuntimeError as e:
        unavailable(f"the private MariaDB did not start: SQL/flashback server tier not run: "
                    f"{e}")
    try:
        yield srv
    finally:
        srv.destroy()


_workloads: dict = {}


def _workload(server, config, tmp_path_factory):
    if config not in _workloads:
        _workloads[config] = fw.run_workload(server, config,
                                             tmp_path_factory.mktemp(f"flashback-{config}"))
    return _workloads[config]


@pytest.fixture(scope="module")
def full(server, tmp_path_factory):
    return _workload(server, "full", tmp_path_factory)


@pytest.fixture(scope="module")
def minimal(server, tmp_path_factory):
    return _workload(server, "minimal", tmp_path_factory)


@pytest.fixture(scope="module", params=["full", "minimal"])
def workload(request, server, tmp_path_factory):
    return _workload(server, request.param, tmp_path_factory)


# ------------------------------------------------------------------------ helpers


def state(w, label):
    return w.snapshots[label].state


def assert_state(server, want, what):
    got = fw.exact_state(server)
    diffs = fw.state_differences(got, want)
    assert not diffs, f"{what}: {len(diffs)} table(s) differ:\n" + "\n".join(diffs)


def ours(*args):
    """``binlog-schema ARGS``: its standard output; it must exit 0."""
    run = fw.binlog_schema(*args)
    assert run.returncode == 0, (f"binlog-schema {' '.join(map(str, args))} exited "
                                 f"{run.returncode}: {run.stderr.decode(errors='replace')[-3000:]}")
    return run.stdout


def apply_sql(server, sql, what):
    rc, err = server.apply_sql(sql)
    assert rc == 0, f"{what}: the mariadb client failed ({rc}): {err[-3000:]}"


def apply_binlog(server, files, *options, what=""):
    rc, err = server.apply_binlog(files, *options)
    assert rc == 0, f"{what}: mariadb-binlog | mariadb failed ({rc}): {err[-3000:]}"


def schema_args(w):
    return ["--schema", w.schema] if w.config == "minimal" else []


# ------------------------------------------------------------------------ the harness itself


def test_harness_workload_shape(workload):
    """Three binlog files; every table changes between S0 and S1 (but t_nokey, whose one
    changed duplicate row is deleted again) and most between SA and SB; S0 has the edge
    values."""
    w = workload
    assert len(w.files) == 3
    changed = fw.differing_tables(state(w, "s0"), state(w, "s1"))
    assert set(changed) >= {"fb.t_num", "fb.t_str", "fb.t_time", "fb.t_geo", "fb.t_comp",
                            "fb_other.kv"}, changed
    assert len(fw.differing_tables(state(w, "sa"), state(w, "sb"))) >= 6
    assert w.window[0] < w.window[1]
    nokey = state(w, "s0")["fb.t_nokey"]["rows"]
    assert len(nokey) != len(set(nokey)), "the keyless table has duplicate rows"
    # the --thread-id case's premise: MariaDB starts a row-based transaction with a GTID event,
    # not a BEGIN query, so the binlog names no thread for it
    assert b"thread_id=" not in fw.vendor_binlog(w.files).stdout
    if not w.vector:
        warnings.warn(f"MariaDB {w.version} has no VECTOR type (11.7+): no VECTOR column in "
                      "the SQL/flashback workload")


def test_harness_detects_one_float_ulp(server, full):
    """The comparison is exact: S1 with one FLOAT moved by one unit in the last place (and
    nothing else) differs from S1, in that table only."""
    fw.restore(server, full.snapshots["s1"])
    server.q("SET SESSION sql_log_bin = 0")
    try:
        server.q("UPDATE fb.t_nokey SET f = f + 1e-8 WHERE n = 1 LIMIT 1")
    finally:
        server.q("SET SESSION sql_log_bin = 1")
    assert fw.differing_tables(fw.exact_state(server), state(full, "s1")) == ["fb.t_nokey"]


def test_harness_vendor_replay_gives_s1(server, workload):
    """``mariadb-binlog FILES | mariadb`` on S0 leaves S1."""
    w = workload
    fw.restore(server, w.snapshots["s0"])
    apply_binlog(server, w.files, what="vendor replay")
    assert_state(server, state(w, "s1"), f"{w.config}: mariadb-binlog FILES | mariadb on S0")


def test_harness_vendor_flashback_gives_s0(server, workload):
    """``mariadb-binlog --flashback FILES | mariadb`` on S1 leaves S0, but for the tables of
    VENDOR_FLASHBACK_DIFFERENCES (its known failures: reported, not failed)."""
    w = workload
    known = VENDOR_FLASHBACK_DIFFERENCES[w.config]
    fw.restore(server, w.snapshots["s1"])
    apply_binlog(server, w.files, "--flashback", what="vendor flashback")
    got, want = fw.exact_state(server), state(w, "s0")
    differ = fw.differing_tables(got, want)
    unknown = [t for t in differ if t not in known]
    assert not unknown, "\n".join(fw.state_differences(got, want, unknown))
    for t in differ:
        warnings.warn(f"mariadb-binlog --flashback ({w.config}) does not restore {t}: "
                      f"{known[t]}")
    fixed = [t for t in known if t not in differ]
    if fixed:
        warnings.warn(f"mariadb-binlog --flashback ({w.config}) now restores {fixed}: update "
                      "VENDOR_FLASHBACK_DIFFERENCES")


# (name, vendor options, files: "all" or "position", start label, expected label or tables
# restored to S0 from S1)
def _vendor_cases(w):
    t1, t2 = w.window
    sa, sb = w.snapshots["sa"], w.snapshots["sb"]
    pos = [f"--start-position={w.positions[0]}", f"--stop-position={w.positions[1]}"]
    gtid = [f"--start-position={sa.gtid}", f"--stop-position={sb.gtid}"]
    window = ["--start-datetime", t1, "--stop-datetime", t2]
    return {
        "window-forward": (window, w.files, "sa", "sb"),
        "window-flashback": (["--flashback", *window], w.files, "sb", "sa"),
        "position-forward": (pos, [w.position_file], "sa", "sb"),
        "position-flashback": (["--flashback", *pos], [w.position_file], "sb", "sa"),
        "gtid-forward": (gtid, w.files, "sa", "sb"),
        "database-flashback": (["--flashback", "--database=fb"], w.files, "s1",
                               [t for t in w.tables if t.startswith("fb.")]),
        "table-flashback": (["--flashback", "--table=t_num"], w.files, "s1", ["fb.t_num"]),
    }


VENDOR_CASES = ["window-forward", "window-flashback", "position-forward", "position-flashback",
                "gtid-forward", "database-flashback", "table-flashback"]


def _expected(w, start, want):
    if isinstance(want, str):
        return state(w, want)
    return fw.mixed(state(w, "s0"), state(w, start), want)


@pytest.mark.parametrize("case", VENDOR_CASES)
def test_harness_vendor_filters_reach_the_expected_states(server, full, case):
    """The expected partial states are reachable: the vendor's own filters reach them (the
    time window and positions: phase B exactly; --database / --table with --flashback: those
    tables at S0, the others at S1; MDEV-23077 did not show for one table)."""
    options, files, start, want = _vendor_cases(full)[case]
    fw.restore(server, full.snapshots[start])
    apply_binlog(server, files, *options, what=case)
    assert_state(server, _expected(full, start, want), f"mariadb-binlog {' '.join(options)}")


def test_harness_vendor_verbose_flashback_inverts_forward(workload):
    """``mariadb-binlog --flashback -v`` prints the forward row changes inverted: per table,
    its DELETEs are the forward INSERTs, its INSERTs the DELETEs, as many UPDATEs."""
    w = workload
    fwd = fw.verbose_counts(fw.vendor_binlog(w.files, "-v").stdout.decode(errors="replace"))
    back = fw.verbose_counts(fw.vendor_binlog(w.files, "-v", "--flashback").stdout
                             .decode(errors="replace"))
    assert sum(fwd.values()) >= 35 and {t for _, t in fwd} == set(w.tables), fwd
    assert fw.inverted(fwd) == back


# ---------------------------------------------------------------- binlog-schema: whole files


def test_flashback_file_round_trip(server, full, tmp_path):
    """``binlog-schema flashback FILES -o OUT``; ``mariadb-binlog OUT | mariadb`` on S1 gives
    S0."""
    out = tmp_path / "flashback.bin"
    ours("flashback", *full.files, "-o", out)
    assert out.is_file() and out.stat().st_size > 0
    fw.restore(server, full.snapshots["s1"])
    apply_binlog(server, [out], what="flashback OUT")
    assert_state(server, state(full, "s0"), "binlog-schema flashback, applied to S1")


def test_flashback_file_counts_match_mariadb_binlog(full, tmp_path):
    """``mariadb-binlog -v OUT`` prints, per table, as many inverted INSERTs, UPDATEs and
    DELETEs as ``mariadb-binlog --flashback -v FILES``."""
    out = tmp_path / "flashback.bin"
    ours("flashback", *full.files, "-o", out)
    got = fw.verbose_counts(fw.vendor_binlog([out], "-v").stdout.decode(errors="replace"))
    want = fw.verbose_counts(fw.vendor_binlog(full.files, "-v", "--flashback").stdout
                             .decode(errors="replace"))
    assert got == want


def test_sql_flashback_round_trip(server, workload):
    """``binlog-schema sql --flashback FILES`` (with --schema under MINIMAL metadata) through
    ``mariadb`` on S1 gives S0."""
    w = workload
    sql = ours("sql", "--flashback", *schema_args(w), *w.files)
    fw.restore(server, w.snapshots["s1"])
    apply_sql(server, sql, "sql --flashback")
    assert_state(server, state(w, "s0"), f"{w.config}: sql --flashback, applied to S1")


def test_sql_forward_round_trip(server, workload):
    """``binlog-schema sql FILES`` (with --schema under MINIMAL metadata) through ``mariadb``
    on S0 gives S1."""
    w = workload
    sql = ours("sql", *schema_args(w), *w.files)
    fw.restore(server, w.snapshots["s0"])
    apply_sql(server, sql, "sql")
    assert_state(server, state(w, "s1"), f"{w.config}: sql, applied to S0")


def test_sql_counts_match_mariadb_binlog(full):
    """One statement per row change: ``sql`` has, per table, the INSERTs, UPDATEs and DELETEs
    ``mariadb-binlog -v`` prints; ``sql --flashback`` those of ``mariadb-binlog --flashback
    -v``; every transaction is BEGIN ... COMMIT."""
    fwd = ours("sql", *full.files).decode("utf-8", "replace")
    back = ours("sql", "--flashback", *full.files).decode("utf-8", "replace")
    want_fwd = fw.verbose_counts(fw.vendor_binlog(full.files, "-v").stdout
                                 .decode(errors="replace"))
    want_back = fw.verbose_counts(fw.vendor_binlog(full.files, "-v", "--flashback").stdout
                                  .decode(errors="replace"))
    assert fw.sql_counts(fwd) == want_fwd
    assert fw.sql_counts(back) == want_back
    for text in (fwd, back):
        begins = len([ln for ln in text.splitlines() if ln.strip().upper() == "BEGIN;"])
        commits = len([ln for ln in text.splitlines() if ln.strip().upper() == "COMMIT;"])
        assert begins == commits >= 20, (begins, commits)


# ------------------------------------------------------------------------ binlog-schema: filters


def _filter_cases(w):
    t1, t2 = w.window
    sa, sb = w.snapshots["sa"], w.snapshots["sb"]
    first = int(sa.gtid.rsplit("-", 1)[1]) + 1
    last = int(sb.gtid.rsplit("-", 1)[1])
    domain_server = sa.gtid.rsplit("-", 1)[0]
    fb_tables = [t for t in w.tables if t.startswith("fb.")]
    return {
        # name: (options, files, start state, expected: a label, or the tables at S0 from S1)
        "table": (["--table", "fb.t_num", "--table", "fb.t_s*"], w.files, "s1",
                  ["fb.t_num", "fb.t_str"]),
        "database": (["--database", "fb"], w.files, "s1", fb_tables),
        # MariaDB logs no thread id for row-based transactions (a GTID event, not a BEGIN
        # query, starts them; the vendor's output has no thread_id= for them): --thread-id
        # of the connection that changed fb_other.kv selects nothing, and S1 stays S1
        "thread-id": (["--thread-id", str(w.thread_id)], w.files, "s1", []),
        "window": (["--start-datetime", t1, "--stop-datetime", t2], w.files, "sb", "sa"),
        "position": (["--start-position", str(w.positions[0]), "--stop-position",
                      str(w.positions[1])], [w.position_file], "sb", "sa"),
        "gtid": (["--gtid", f"{domain_server}-{first}-{last}"], w.files, "sb", "sa"),
    }


FILTERS = ["table", "database", "thread-id", "window", "position", "gtid"]


@pytest.mark.parametrize("name", FILTERS)
def test_sql_flashback_with_filter(server, full, name):
    """``sql --flashback`` with one filter undoes exactly the selected changes: --table (two
    patterns, one a glob) / --database from S1 leave the selected tables at S0 and the others
    at S1; the window of phase B (time, positions in its one file, its GTIDs) takes SB back to
    SA; --thread-id selects nothing in a MariaDB binlog (no thread id is logged for
    row-based transactions), so S1 stays."""
    options, files, start, want = _filter_cases(full)[name]
    sql = ours("sql", "--flashback", *options, *files)
    fw.restore(server, full.snapshots[start])
    apply_sql(server, sql, f"sql --flashback {' '.join(options)}")
    assert_state(server, _expected(full, start, want), f"sql --flashback {' '.join(options)}")


@pytest.mark.parametrize("name", FILTERS)
def test_flashback_file_with_filter(server, full, tmp_path, name):
    """``flashback -o OUT`` with the same filters, applied with ``mariadb-binlog OUT |
    mariadb``."""
    options, files, start, want = _filter_cases(full)[name]
    out = tmp_path / "flashback.bin"
    ours("flashback", *options, *files, "-o", out)
    fw.restore(server, full.snapshots[start])
    apply_binlog(server, [out], what=f"flashback {' '.join(options)}")
    assert_state(server, _expected(full, start, want), f"flashback {' '.join(options)}")


@pytest.mark.parametrize("name", ["window", "position", "gtid"])
def test_sql_forward_with_window(server, full, name):
    """``sql`` of phase B only (time window, positions, GTIDs) takes SA to SB."""
    options, files, _, _ = _filter_cases(full)[name]
    sql = ours("sql", *options, *files)
    fw.restore(server, full.snapshots["sa"])
    apply_sql(server, sql, f"sql {' '.join(options)}")
    assert_state(server, state(full, "sb"), f"sql {' '.join(options)}")


@pytest.mark.parametrize("ops", ["delete", "insert,update"])
def test_sql_operation_filter(full, ops):
    """``sql --operation OPS`` writes the statements of those operations only, as many per
    table as ``mariadb-binlog -v`` prints. (Forward only: whether --flashback's --operation
    names the logged or the inverted operation is the command's to document.)"""
    text = ours("sql", "--operation", ops, *full.files).decode("utf-8", "replace")
    want = {k: n for k, n in fw.verbose_counts(fw.vendor_binlog(full.files, "-v").stdout
                                               .decode(errors="replace")).items()
            if k[0].lower() in ops.split(",")}
    assert want and fw.sql_counts(text) == want


# ------------------------------------------------------------------------ MINIMAL metadata


def test_minimal_metadata_flashback_file_round_trip(server, minimal, tmp_path):
    """Under MINIMAL metadata, ``flashback -o OUT`` (rows events are inverted as bytes: no
    names needed) applied with mariadb-binlog on S1 gives S0."""
    out = tmp_path / "flashback.bin"
    ours("flashback", *minimal.files, "-o", out)
    fw.restore(server, minimal.snapshots["s1"])
    apply_binlog(server, [out], what="flashback OUT (minimal)")
    assert_state(server, state(minimal, "s0"), "minimal: binlog-schema flashback, applied to S1")

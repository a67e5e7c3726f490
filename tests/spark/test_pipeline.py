"""The Spark pipeline end to end: local mode over the shared corpus and over generated files
(counts reconcile with the single-process reader and ``roundtrip``, row changes equal the
single-process RowDecoder), a folder of damaged files, the commands, and a real standalone
master and worker on loopback.

Needs pyspark (and pyarrow) and Java 17+, which ``scripts/setup.sh`` installs; without them
the tier is skipped with a warning, and fails under CI=true.
"""

import os
import shutil
import subprocess
import sys

import pytest

from binlog_schema.format.event_codec import HEADER_SIZE
from binlog_schema.format.facts.codes import QUERY_EVENT, WRITE_ROWS_EVENT
from binlog_schema.output.roundtrip import roundtrip_file
from binlog_schema.format.stream import BinlogReader

from ..conftest import ROOT, unavailable
from .pipeline_support import (reference_counts, reference_rows, same_row, spark_missing,
                               write_shop)

pytestmark = pytest.mark.spark

MISSING = spark_missing()
if MISSING:
    unavailable(f"Spark tier not run: {MISSING}", module=True)

from binlog_schema.cli import spark as spark_cli  # noqa: E402
from binlog_schema.pipeline.driver.plan import list_inputs  # noqa: E402
from binlog_schema.pipeline.driver.session import start_session  # noqa: E402
from binlog_schema.pipeline.jobs import fixtures as fixtures_job  # noqa: E402
from binlog_schema.pipeline.jobs import validate as validate_job  # noqa: E402
from binlog_schema.pipeline.jobs.decode import decode  # noqa: E402
from binlog_schema.pipeline.tables.result import TABLES, ParquetTables, check_format  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    s = start_session("local[2]", {"spark.sql.shuffle.partitions": "4"})
    yield s
    s.stop()


def sort_key(r):
    return (r["file"], r["offset"], r["inner_offset"] if r["inner_offset"] is not None else -1,
            r["row_index"])


def collect_rows(tables):
    """The row_changes rows: read with pyarrow from the Parquet parts the tasks wrote (fast,
    and proof that other readers get the types), or collected through Spark."""
    if isinstance(tables, ParquetTables):
        import pyarrow.parquet as pq
        from binlog_schema.pipeline.fsio import local_path
        return pq.read_table(local_path(tables.location) + "/row_changes").to_pylist()
    return tables.row_changes.collect()


def check_rows(tables, paths, problems=None):
    """row_changes equal the single-process RowDecoder output, file by file, with the schema
    history on (the files' DDL replayed from nothing, in the pipeline's order: the paths'),
    as ``decode --rows`` decodes them."""
    from binlog_schema.changes.schema.building import given_history
    got = {}
    for r in collect_rows(tables):
        got.setdefault(r["file"], []).append(r)
    total = 0
    ordered = sorted(str(p) for p in paths)
    history = given_history(ordered)
    for index, p in enumerate(ordered):
        want = reference_rows(p, history, index, problems)
        mine = sorted(got.pop(p, []), key=sort_key)
        assert len(mine) == len(want), p
        for g, w in zip(mine, want):
            same_row(g, w, internal=False)
        total += len(want)
    assert not got, f"rows of files not asked for: {sorted(got)}"
    return total


def check_files(tables, paths):
    """The files table: every binlog reconciled (events and bytes: every byte of the file
    decoded or skipped), a file that is not one not reconciled, and its counts are the
    single-process reader's (and, where the file parses as a binlog, ``roundtrip``'s)."""
    files = {r["file"]: r for r in tables.files.collect()}
    assert set(files) == {str(p) for p in paths}
    for p in paths:
        f = files[str(p)]
        read, decoded, quarantined, refused = reference_counts(str(p))
        assert f["reconciled"] == (not refused), f
        assert f["bytes"] == f["size"] == os.path.getsize(p)
        if not refused:
            assert f["bytes_decoded"] + f["bytes_skipped"] + 4 == f["bytes"], f
        assert (f["events_read"], f["events_decoded"], f["events_quarantined"]) == (
            read, decoded, quarantined), p
        assert f["errors"] >= f["events_quarantined"] + int(refused)
        if refused:   # (roundtrip refuses it too)
            continue
        rt = roundtrip_file(str(p))
        assert rt["events"] + (1 if rt["tail"] else 0) == f["events_read"], p
        assert f["rows"] == rt["rows"] or f["rows_failed"], p
    return files


def test_corpus_local_mode(spark, corpus, tmp_path):
    tables = decode([str(p) for p in corpus], spark, out=str(tmp_path / "t"),
                        split_size="8k")
    files = check_files(tables, corpus)
    assert sum(f["splits"] > 1 for f in files.values()) >= 5  # files really were cut
    problems = []
    assert check_rows(tables, corpus, problems) > 50_000
    # errors: the quarantined events (the corpus' truncated tails) and the table maps the
    # schema history disagrees with (the corpus read as one sequence: unrelated files), as
    # the single-process decoder reports them; nothing else
    errors = tables.errors.collect()
    assert len(errors) == sum(f["errors"] for f in files.values())
    assert {e["stage"] for e in errors} <= {"event", "tail", "rows", "schema"}
    assert sorted((e["file"], e["offset"]) for e in errors if e["stage"] == "schema") == \
        sorted(problems)
    # table maps: each distinct shape once; occurrences add up to the TABLE_MAP events
    tm = tables.table_maps.collect()
    n_maps = tables.events.where("type = 'TABLE_MAP_EVENT'").count()
    assert sum(r["occurrences"] for r in tm) == n_maps > 0
    assert len({r["shape_id"] for r in tm}) == len(tm) < n_maps
    assert all(r["columns"] and r["first_file"] in files for r in tm)
    # events: typed columns filled from the decoded events
    ev = tables.events
    assert ev.where("type = 'GTID_LOG_EVENT' and gtid is null").count() == 0
    assert ev.where("type = 'XID_EVENT' and xid is null").count() == 0
    with_text = sum(1 for p in corpus for rec in BinlogReader(str(p), skip_errors=True)
                    for r in [rec, *(rec.inner or ())]
                    if r.kind == QUERY_EVENT and r.value is not None
                    and isinstance(r.value["body"], dict) and r.value["body"].get("query"))
    assert ev.where("type = 'QUERY_EVENT' and query is not null").count() == with_text > 0
    assert ev.where("in_payload_at is not null").count() > 0  # MySQL payload events inside


@pytest.fixture(scope="module")
def generated(spark, tmp_path_factory):
    """Synthetic files: written by the fixtures job (random specs, server profiles of both
    flavors, every other one compressed), two of the shop (a known schema, a mid-file
    ALTER; MySQL 8.0 and MariaDB 10.11), and one file of the shop whose table maps are
    written once (its splits are not self-contained). (root, paths: the fixtures job's,
    the shop's, the once file)."""
    root = tmp_path_factory.mktemp("gen")
    made = fixtures_job.generate(spark, str(root / "many"), 4, seed=42, flavor="mixed",
                                 transactions=150)
    shop = [write_shop(root / "shop" / f"{flavor}-bin.{i + 1:06d}", seed=42, flavor=flavor,
                       transactions=150, index=i)
            for i, flavor in enumerate(("mysql", "mariadb"))]
    once = write_shop(root / "once" / "once-bin.000001", seed=9, transactions=300,
                      table_maps="once")
    return root, sorted(m["file"] for m in made) + shop + [once]


def test_fixture_generator_every_server(spark, tmp_path):
    """Files of the project's fixture generator (random specs: every column-type family,
    every server profile, payloads and compressed events as those servers write them),
    written by the fixtures job, decoded in splits: reconciled, rows as single-process."""
    made = fixtures_job.generate(spark, str(tmp_path / "servers"), 9, seed=7,
                                 flavor="mixed", transactions=80)
    paths = sorted(m["file"] for m in made)
    assert len({m["flavor"] for m in made}) == 9
    tables = decode([str(tmp_path / "servers")], spark, out=str(tmp_path / "t"),
                        split_size="16k")
    files = check_files(tables, paths)
    assert sum(f["splits"] > 1 for f in files.values()) >= 6
    assert check_rows(tables, paths) > 1000
    assert tables.errors.count() == 0
    # odd-numbered files are compressed: MySQL payloads and MariaDB compressed rows events
    # were decoded inside the splits
    assert sum(m["compressed"] for m in made) == 4
    types = {r["type"] for r in tables.events.select("type").distinct().collect()}
    assert {"TRANSACTION_PAYLOAD_EVENT", "WRITE_ROWS_COMPRESSED_EVENT_V1"} <= types
    assert tables.events.where("in_payload_at is not null and rows > 0").count() > 50


def test_generated_files_split_and_reconcile(spark, generated, tmp_path):
    root, paths = generated
    tables = decode([str(root / "many"), str(root / "shop"), str(root / "once")], spark,
                    out=str(tmp_path / "t"), split_size="24k")
    files = check_files(tables, paths)
    assert all(f["splits"] > 3 for f in files.values())
    assert files[paths[-1]]["carried_table_maps"] > 0
    assert all(f["carried_table_maps"] == 0 for p, f in files.items() if p != paths[-1])
    assert check_rows(tables, paths) > 3000
    assert tables.errors.count() == 0
    # schema history: the shop's orders has two shapes (the mid-file ALTER adds `note`),
    # per flavor
    shapes = tables.table_maps.where("table = 'orders'").collect()
    assert sorted(len(r["columns"]) for r in shapes) == [9, 9, 10, 10]
    for flavor in ("mysql", "mariadb"):
        mine = [r for r in shapes if r["flavor"] == flavor]
        first, later = sorted(mine, key=lambda r: (r["first_file"], r["first_offset"]))
        assert [c["name"] for c in later["columns"]][-1] == "note"
        assert first["first_file"] == later["first_file"]
        assert first["first_offset"] < later["first_offset"]
    # the typed per-table view: exact column types
    view = tables.table("shop", "orders")
    types = {f.name: f.dataType.simpleString() for f in view.schema["after"].dataType.fields}
    assert types == {"id": "decimal(20,0)", "qty": "bigint", "price": "decimal(12,2)",
                     "name": "string", "created": "timestamp_ntz", "paid": "timestamp",
                     "day": "date", "score": "double", "data": "binary", "note": "string"}
    shop = str(root / "shop" / "mysql-bin.000001")
    want = {(ch.file, ch.offset, ch.row_index): ch.after for ch, _ in reference_rows(shop)
            if ch.table == "orders" and ch.after is not None}
    seen = 0
    for r in view.where(f"file = '{shop}' and after is not null").collect():
        w = want[(r["file"], r["offset"], r["row_index"])]
        assert r["after"]["price"] == w["price"] and r["after"]["id"] == w["id"]
        assert r["after"]["day"] == (w["day"].to_python() if w["day"] else None)
        seen += 1
    assert seen == len(want) > 100


def test_engines_agree(spark, generated, tmp_path):
    """The JVM path (rows pickled into a cached DataFrame, Spark's writers) gives the same
    tables as the default path (tasks write Parquet themselves)."""
    from pyspark.sql import functions as F
    root, paths = generated
    a = decode([str(root / "many")], spark, out=str(tmp_path / "a"), split_size="48k")
    b = decode([str(root / "many")], spark, engine="spark", split_size="48k")
    try:
        def norm(df):
            return df.select("file", "offset", "row_index", "gtid", "operation",
                             F.to_json(F.array_sort(F.map_entries("before"))).alias("b"),
                             F.to_json(F.array_sort(F.map_entries("after"))).alias("a"))
        assert norm(a.row_changes).exceptAll(norm(b.row_changes)).count() == 0
        assert a.row_changes.count() == b.row_changes.count() > 0
        assert a.events.exceptAll(b.events).count() == 0
        assert a.events.count() == b.events.count()
        assert a.table_maps.exceptAll(b.table_maps).count() == 0
        cols = ["file", "events_read", "events_decoded", "events_quarantined", "rows"]
        assert sorted(map(tuple, a.files.select(cols).collect())) == sorted(
            map(tuple, b.files.select(cols).collect()))
    finally:
        b.unpersist()


def _flip_in_event(path, data: bytearray, kind: int, nth: int) -> int:
    """Flip a byte in the body of the nth event of a type (of the file at ``path``, whose
    bytes ``data`` are); returns that event's offset."""
    at = [r.offset for r in BinlogReader(str(path), decode="lazy") if r.kind == kind][nth]
    data[at + HEADER_SIZE + 3] ^= 0x5A
    return at


def _last_event(path) -> int:
    return [r.offset for r in BinlogReader(str(path), decode="lazy")][-1]


def test_damaged_folder(spark, generated, tmp_path):
    """A truncated file, a CRC-corrupted event and a non-binlog file: exactly one error row
    each, and every other event and row is still there (the non-binlog file does not
    reconcile: none of its bytes is accounted for)."""
    root, _ = generated
    shop = root / "shop" / "mysql-bin.000001"
    good = shop.read_bytes()
    d = tmp_path / "damaged"
    d.mkdir()
    (d / "good.000001").write_bytes(good)
    last = _last_event(shop)
    (d / "truncated.000002").write_bytes(good[:last + 30])
    crc = bytearray(good)
    bad_at = _flip_in_event(shop, crc, WRITE_ROWS_EVENT, 40)
    (d / "crc.000003").write_bytes(bytes(crc))
    (d / "notes.txt").write_text("these are not the binlogs you are looking for\n")
    tables = decode([str(d)], spark, out=str(tmp_path / "t"), split_size="16k")
    errors = sorted((os.path.basename(e["file"]), e["stage"], e["kind"], e["offset"])
                    for e in tables.errors.collect())
    assert errors == [("crc.000003", "event", "checksum", bad_at),
                      ("notes.txt", "file", "format", 0),
                      ("truncated.000002", "tail", "truncated", last)]
    names = [d / n for n in ("crc.000003", "good.000001", "notes.txt", "truncated.000002")]
    files = check_files(tables, names)
    n_good = files[str(d / "good.000001")]["events_decoded"]
    assert files[str(d / "crc.000003")]["events_decoded"] == n_good - 1
    assert files[str(d / "truncated.000002")]["events_decoded"] == n_good - 1
    assert files[str(d / "notes.txt")]["events_read"] == 0
    assert files[str(d / "crc.000003")]["splits"] > 2  # the damage sits inside a split
    check_rows(tables, [n for n in names if n.suffix != ".txt"])
    good_rows = len(reference_rows(str(d / "good.000001")))
    lost = sum(1 for ch, _ in reference_rows(str(d / "good.000001")) if ch.offset == bad_at)
    assert lost > 0
    by_file = {r["file"]: r["rows"] for r in tables.files.collect()}
    assert by_file[str(d / "crc.000003")] == good_rows - lost


def test_formats_modes_and_missing_inputs(spark, generated, tmp_path):
    _, paths = generated
    with pytest.raises(ValueError, match="unknown output format"):
        check_format(spark, "orc")
    check_format(spark, "delta")   # deltalake, no jars (--format delta: tests/spark/test_delta.py)
    out = str(tmp_path / "t")
    decode([paths[0]], spark, out=out)
    with pytest.raises(FileExistsError):
        decode([paths[0]], spark, out=out)
    t = decode([paths[0], str(tmp_path / "nope-*.bin")], spark, out=out, mode="overwrite")
    errs = t.errors.collect()
    assert [(e["stage"], e["kind"]) for e in errs] == [("input", "io")]
    assert t.events.count() == reference_counts(paths[0])[1]


def test_listing_dirs_globs_hidden(spark, generated, tmp_path):
    """Inputs listed through Hadoop's FileSystem API (the driver) name the same files as a
    plain local walk: directories recursively, globs, hidden names skipped, no duplicates."""
    from binlog_schema.pipeline.fsio import list_local, local_path
    root, paths = generated
    d = tmp_path / "in"
    (d / "sub" / ".hidden").mkdir(parents=True)
    for i, p in enumerate(paths[:3]):
        shutil.copy(p, d / "sub" / f"bin.{i:06d}")
    shutil.copy(paths[0], d / "_SUCCESS")
    shutil.copy(paths[0], d / "sub" / ".hidden" / "x")
    inputs = [str(d), str(root / "many" / "*-bin.00000[12]"), str(d / "sub" / "bin.000000"),
              str(tmp_path / "absent")]
    files, missing = list_inputs(spark, inputs)
    local, local_missing = list_local(inputs)
    assert sorted((local_path(u), n) for u, n in files) == sorted(set(local))
    assert len(files) == 5 and [m[0] for m in missing] == [m[0] for m in local_missing] == [
        str(tmp_path / "absent")]


def test_validate_specs_and_corpus(spark, corpus):
    from binlog_schema.synthetic.vector_checks import validate
    sample = [str(p) for p in corpus[:25]]
    df = validate_job.validate(spark, specs=[str(ROOT / "specs")], roundtrip=sample)
    rows = df.collect()
    specs = [r for r in rows if r["check"] == "spec"]
    ref = validate(str(ROOT / "specs"))
    assert len(specs) == len(ref) > 0
    assert sum(r["ok"] for r in specs) == sum(r.ok for r in ref)
    rts = {r["file"]: r for r in rows if r["check"] == "roundtrip"}
    assert set(rts) == set(sample)
    for p in sample:
        want = roundtrip_file(p)
        got = rts[p]
        assert (got["events"], got["identical"], got["rows"], got["rows_identical"]) == (
            want["events"], want["identical"], want["rows"], want["rows_identical"])
        # (rows not decodable and a last event cut short fail the check, as a differing
        # byte does)
        assert got["ok"] == (not want["differ"] and not want["failed"]
                             and not want["rows_failed"] and want["tail"] is None)


def _run(*args, timeout=300, env_extra=None):
    env = dict(os.environ)
    env.pop("PYSPARK_PYTHON", None)
    env.update(env_extra or {})
    return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, env=env)


def test_commands_local(spark, tmp_path, capsys):
    """``binlog-schema spark fixtures`` (in this process: it reuses the running session),
    then ``spark decode`` in its own process (an embedded local master it starts itself)."""
    from binlog_schema.cli import main
    gen = tmp_path / "gen"
    assert main(["spark", "fixtures", "--out", str(gen), "--files", "4", "--transactions",
                 "60", "--seed", "3", "--flavor", "mariadb"]) == 0
    out = capsys.readouterr().out
    assert "4 files (1 mariadb-10.11, 1 mariadb-10.5, 1 mariadb-11.4, 1 mariadb-11.8)" in out
    assert "2 files compressed" in out
    names = sorted(os.listdir(gen))
    assert names == ["mariadb-10.11-bin.000002", "mariadb-10.5-bin.000001",
                     "mariadb-11.4-bin.000003", "mariadb-11.8-bin.000004"]
    again = tmp_path / "again"  # deterministic per (seed, index), wherever it is written
    other = tmp_path / "other"
    fixtures_job.write_one(str(again), 3, "mariadb", 60, "per_transaction", 1)
    fixtures_job.write_one(str(other), 4, "mariadb", 60, "per_transaction", 1)
    same = (gen / names[0]).read_bytes()
    assert (again / names[0]).read_bytes() == same
    assert (other / names[0]).read_bytes() != same
    r = _run(sys.executable, "-m", "binlog_schema", "spark", "decode", str(gen), "--out",
             str(tmp_path / "t"), "--split-size", "32k")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "reconciliation: 4 files" in r.stdout and ": OK;" in r.stdout
    assert "decode:" in r.stderr  # progress lines
    for t in TABLES:
        assert any(n.endswith(".parquet") for n in os.listdir(tmp_path / "t" / t)), t
    total = sum(reference_counts(str(gen / n))[0] for n in names)
    assert f"events read {total} =" in r.stdout


def test_standalone_cluster(tmp_path, generated):
    """A real standalone master and worker on 127.0.0.1 (started from the pyspark install,
    stopped by pid) run the same decode job, submitted by the command and by spark-submit."""
    from binlog_schema.pipeline.driver.cluster import LocalCluster, spark_home
    root, paths = generated
    cluster = LocalCluster(cores=2, memory="2g", log_dir=str(tmp_path / "cluster"))
    with cluster as url:
        pids = cluster.pids()
        assert len(pids) == 2 and all(os.path.exists(f"/proc/{p}") for p in pids)
        r = _run(sys.executable, "-m", "binlog_schema", "spark", "decode", str(root / "many"),
                 "--out", str(tmp_path / "t"), "--master", url, "--split-size", "32k")
        assert r.returncode == 0, r.stderr[-3000:]
        assert f"master {url}" in r.stderr
        total = sum(reference_counts(str(p))[0] for p in (root / "many").iterdir())
        assert f"events read {total} = decoded {total} + quarantined 0, bytes " in r.stdout
        assert ": OK;" in r.stdout and "exit status" not in r.stdout
        env = {"PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
        submit = os.path.join(spark_home(), "bin", "spark-submit")
        # spark-submit of the commands' module, rows through the JVM and Spark's writers
        r = _run("bash", submit, "--master", url, spark_cli.__file__, "decode",
                 str(root / "once"),
                 "--out", str(tmp_path / "s"), "--split-size", "16k", "--engine", "spark",
                 env_extra=env)
        assert r.returncode == 0, r.stderr[-3000:]
        assert "reconciliation: 1 files" in r.stdout and ": OK;" in r.stdout
        # (spark-submit merges the Python driver's stderr into its stdout)
        assert f"master {url}, 2 cores, engine spark" in r.stdout, r.stdout[-3000:]
        import pyarrow.parquet as pq
        rows = pq.read_table(str(tmp_path / "s" / "row_changes")).num_rows
        assert rows == len(reference_rows(paths[-1])) > 0
    assert not any(os.path.exists(f"/proc/{p}") for p in pids)

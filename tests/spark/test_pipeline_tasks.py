"""The pipeline's task side without Spark: pre-scan cuts, split reading, the fallback for
splits that are not self-contained, typed values. (tests/spark/test_pipeline.py runs it on
Spark.)"""

import datetime as dt
import decimal
import os

import pytest

from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.format.facts.codes import GTID_LOG_EVENT, MARIA_GTID_EVENT, TABLE_MAP_EVENT
from binlog_schema.pipeline.tasks.decode import decode_group, decode_split
from binlog_schema.pipeline.tasks.event_parser import _Bodies
from binlog_schema.pipeline.tasks.prescan import prescan
from binlog_schema.pipeline.tasks.reading import Clip
from binlog_schema.pipeline.tasks.spark_values import JsonDoc, to_value
from binlog_schema.pipeline.tasks.split import Split
from binlog_schema.format.stream import BinlogReader
from binlog_schema.format.values import temporal
from binlog_schema.format.values.codecs import Compressed, EnumValue, Geometry, NaNFloat, SetValue

from .pipeline_support import (got_fields, reference_counts, reference_rows, same_row,
                               write_shop)


def decode_file(path, split_bytes, engine="arrow"):
    """Every split of a file decoded as the tasks of an engine do: ``arrow``, record batches
    (small ones, several per split) read back as dicts; ``spark``, the tagged tuples in
    Spark's internal form."""
    splits = prescan(str(path), os.path.getsize(path), split_bytes)
    out = {"row": [], "event": [], "error": [], "stat": [], "table_map": []}
    if engine == "spark":
        for s in splits:
            for t in decode_split(s):
                out[t[0]].append(t[{"event": 2, "table_map": 3, "row": 4, "error": 5,
                                    "stat": 6}[t[0]]])
        return splits, out
    from binlog_schema.pipeline.tables.arrow import task_schemas
    from binlog_schema.pipeline.tasks.arrow_sink import ArrowSink
    tag = {"events": "event", "row_changes": "row", "errors": "error"}
    schemas = task_schemas()
    for s in splits:
        for table, item in decode_group([s], sink=ArrowSink(schemas, batch_rows=700)):
            if table in tag:
                assert item.schema.equals(schemas[table])
                out[tag[table]] += item.to_pylist()
            else:
                out[table].append(item)
    return splits, out


def headers(path):
    """(offset, type code) of every event (the whole-file reader's)."""
    return [(r.offset, r.kind) for r in BinlogReader(str(path), decode="lazy")]


@pytest.mark.parametrize("flavor,starts", [("mysql", {GTID_LOG_EVENT}),
                                           ("mariadb", {MARIA_GTID_EVENT})])
def test_prescan_cuts_at_transaction_starts(tmp_path, flavor, starts):
    path = tmp_path / "f.bin"
    write_shop(path, seed=3, flavor=flavor, transactions=150)
    size = os.path.getsize(path)
    splits = prescan(str(path), size, 20_000)
    assert len(splits) > 4
    kinds = dict(headers(path))
    assert splits[0].start == 0 and splits[-1].end == size
    for a, b in zip(splits, splits[1:]):
        assert a.end == b.start
        assert kinds[b.start] in starts, (b.start, kinds[b.start])
        assert b.gtid_at is not None and b.gtid_at < b.start and kinds[b.gtid_at] in starts
    # the cuts follow the work (bytes + events), not just bytes
    assert max(s.work for s in splits[:-1]) < 3 * 20_000


def test_small_file_is_one_split(tmp_path):
    path = tmp_path / "f.bin"
    write_shop(path, seed=1, transactions=5)
    assert len(prescan(str(path), os.path.getsize(path), 1 << 20)) == 1


@pytest.mark.parametrize("engine", ["arrow", "spark"])
@pytest.mark.parametrize("flavor", ["mysql", "mariadb"])
def test_splits_give_the_single_process_rows(tmp_path, flavor, engine):
    path = tmp_path / "f.bin"
    write_shop(path, seed=7, flavor=flavor, transactions=200)
    splits, out = decode_file(path, 15_000, engine)
    assert len(splits) > 5
    ref = reference_rows(str(path))
    assert len(out["row"]) == len(ref) > 500
    for got, want in zip(out["row"], ref):
        same_row(got, want, internal=engine == "spark")
    read, decoded, quarantined, _ = reference_counts(str(path))
    assert sum(s[5] for s in out["stat"]) == read
    assert len(out["event"]) == decoded and not out["error"] and quarantined == 0
    assert sum(s[11] for s in out["stat"]) == 0  # servers' layout: splits self-contained


def test_not_self_contained_splits_carry_table_maps(tmp_path):
    """TABLE_MAPs written once per file (not per transaction): each split after the first
    meets rows events whose table map is in an earlier split; the task must notice and carry
    the maps in force, and the rows must still equal the single-process decode."""
    path = tmp_path / "once.bin"
    write_shop(path, seed=5, transactions=200, table_maps="once")
    assert sum(1 for _, code in headers(path) if code == TABLE_MAP_EVENT) <= 4
    splits, out = decode_file(path, 10_000)
    assert len(splits) > 5
    carried = sum(s[11] for s in out["stat"])
    assert carried >= len(splits) - 1
    ref = reference_rows(str(path))
    assert len(out["row"]) == len(ref)
    for got, want in zip(out["row"], ref):
        same_row(got, want)
    assert not out["error"]


def test_without_the_fallback_rows_would_be_lost(tmp_path, monkeypatch):
    """The check is real: with the carried maps disabled, the same file loses rows to
    'no TABLE_MAP' errors."""
    path = tmp_path / "once.bin"
    write_shop(path, seed=5, transactions=200, table_maps="once")
    monkeypatch.setattr("binlog_schema.pipeline.tasks.decode.table_maps_before",
                        lambda f, start, ctx: {})
    _, out = decode_file(path, 10_000)
    assert len(out["row"]) < len(reference_rows(str(path)))
    assert {e["stage"] for e in out["error"]} == {"rows"}
    assert all("TABLE_MAP" in e["message"] for e in out["error"])


def test_corpus_files_split_small(corpus):
    """Every corpus file cut as finely as its transactions allow gives the single-process
    rows and counts (payloads, MariaDB events, old formats, relay logs, truncated tails)."""
    split_files = 0
    for path in corpus:
        splits, out = decode_file(path, 4096)
        split_files += len(splits) > 1
        read, decoded, quarantined, refused = reference_counts(str(path))
        assert sum(s[5] for s in out["stat"]) == read, path
        assert len(out["event"]) == decoded, path
        assert sum(1 for e in out["error"] if e["stage"] in ("event", "tail")) == \
            quarantined, path
        assert sum(1 for e in out["error"] if e["stage"] == "file") == int(refused), path
        ref = reference_rows(str(path))
        assert len(out["row"]) == len(ref), path
        for got, want in zip(out["row"], ref):
            same_row(got, want)
    assert split_files >= 8


def test_clip_ends_the_file_where_the_split_ends(tmp_path):
    data = bytes(range(256)) * 4
    path = tmp_path / "w"
    path.write_bytes(data)
    with open(path, "rb") as f:
        c = Clip(f, 520)
        assert c.seekable() and c.read(4) == data[:4]
        c.seek(500)
        assert c.read(10) == data[500:510]
        f.seek(0)  # another reader moved the file: the view still reads its own place
        assert c.read() == data[510:520]
        assert c.read(5) == b"" and c.tell() == 520
        assert c.seek(-30, 2) == 490 and c.read(40) == data[490:520]


def test_typed_values():
    """Each kind of column value in the field(s) of the Value struct that hold it: the same
    from the Arrow columns (values grouped by type) and from the spark engine's tuples."""
    pytest.importorskip("pyarrow")
    from binlog_schema.pipeline.tables.arrow import task_schemas
    from binlog_schema.pipeline.tasks.value_structs import value_struct
    vtype = task_schemas()["row_changes"].field("after").type.item_type

    def only(v, json_column=False, **want):
        fields = got_fields(value_struct([JsonDoc(v) if json_column else v],
                                         vtype).to_pylist()[0], internal=False)
        assert fields == want
        assert got_fields(to_value(v, json_column), internal=True) == want
    only(-5, long=-5)
    only((1 << 64) - 1, decimal=decimal.Decimal((1 << 64) - 1))
    only(1 << 70, text=str(1 << 70))
    only(True, long=1)
    only(decimal.Decimal("-12.34"), decimal=decimal.Decimal("-12.34"))
    only(decimal.Decimal("1.500000000000000000000000000000"),
         decimal=decimal.Decimal("1.500000000000000000"))
    only(decimal.Decimal("1.50000000000000000000000000000000000000000000"),
         decimal=decimal.Decimal("1.5"))
    only(decimal.Decimal("12345678901234567890123.5"), text="12345678901234567890123.5")
    only(decimal.Decimal("0.1234567890123456789"), text="0.1234567890123456789")
    only("é", string="é")
    only(b"\x00\xff", binary=b"\x00\xff")
    only(bytearray(b"\x01"), binary=b"\x01")
    only(2.5, double=2.5)
    nan = value_struct([NaNFloat(float("nan"), b"\x01\x00\x00\x00\x00\x00\xf8\x7f")],
                       vtype).to_pylist()[0]
    assert nan["double"] != nan["double"] and all(
        x is None for k, x in nan.items() if k != "double")
    only(temporal.Date(1970, 1, 2), date=dt.date(1970, 1, 2))
    only(temporal.Date(2000, 2, 29), date=dt.date(2000, 2, 29))
    only(temporal.Date(0, 0, 0), text="0000-00-00")
    only(temporal.Date(2024, 0, 15), text="2024-00-15")
    only(temporal.DateTime(1970, 1, 1, 0, 0, 1, 5), datetime=dt.datetime(1970, 1, 1, 0, 0, 1, 5))
    only(temporal.DateTime(0, 0, 0), text="0000-00-00 00:00:00")
    only(temporal.Timestamp(1_700_000_000, 250_000),
         timestamp=dt.datetime(2023, 11, 14, 22, 13, 20, 250_000, tzinfo=dt.timezone.utc))
    only(temporal.Timestamp(0, 0), text="0000-00-00 00:00:00")
    only(temporal.Time(True, 838, 59, 59, 0), time=-dt.timedelta(hours=838, minutes=59,
                                                                 seconds=59))
    only(EnumValue(2, "paid"), long=2, string="paid")
    only(EnumValue(3), long=3)
    only(SetValue(5, ("a", "c")), long=5, string="a,c")
    only(SetValue(1 << 63, ("z",)), decimal=decimal.Decimal(1 << 63), string="z")
    only(Geometry(4326, b"\x01"), long=4326, binary=b"\x01")
    only(Compressed(b"x", "abc"), string="abc")
    only([1.5, 2], vector=[1.5, 2.0])
    only({"a": [1, "x"]}, json_column=True, json='{"a":[1,"x"]}')
    only({"a": 1}, json='{"a":1}')
    assert to_value(None) is None
    assert value_struct([None], vtype).to_pylist() == [None]


def test_value_columns_as_value_by_value():
    """A batch of every kind of value, NULLs and odd ones among them (integers beyond 64
    bits in an int group, decimals beyond DECIMAL(38,18) in a decimal group, compressed
    values of several kinds), grouped and scattered back: each row holds what the one-by-one
    conversion gives, in its place."""
    pytest.importorskip("pyarrow")
    from binlog_schema.pipeline.tables.arrow import task_schemas
    from binlog_schema.pipeline.tasks.value_structs import value_struct
    vtype = task_schemas()["row_changes"].field("after").type.item_type
    kinds = [None, 7, -(1 << 63), 1 << 64, False, 0.25, "s", b"b", bytearray(b"a"),
             decimal.Decimal("3.5"), decimal.Decimal("1e30"), temporal.Date(2020, 2, 29),
             temporal.Date(2021, 2, 29), temporal.DateTime(1999, 12, 31, 23, 59, 59, 1),
             temporal.Timestamp(5, 6), temporal.Timestamp(0, 0), temporal.Time(False, 1, 2, 3),
             EnumValue(1, b"\xff"), EnumValue(2), SetValue(3, None),
             SetValue(1 << 63, ("z",)), SetValue(6, (b"a", "b")), Geometry(0, b""),
             Compressed(b"", b"raw"), Compressed(b"", "txt"), [1, 2.5], ["x"], {"k": None},
             JsonDoc([1]), NaNFloat(1.0, b"")]
    values = [kinds[(i * 7) % len(kinds)] for i in range(400)]
    got = value_struct(values, vtype).to_pylist()
    assert len(got) == len(values)
    for g, v in zip(got, values):
        assert got_fields(g, internal=False) == got_fields(to_value(v), internal=True), v


def test_shop_files_are_deterministic(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    write_shop(a, 11, index=3, transactions=40)
    write_shop(b, 11, index=3, transactions=40)
    write_shop(c, 12, index=3, transactions=40)
    assert a.read_bytes() == b.read_bytes() != c.read_bytes()
    assert sum(1 for _ in BinlogReader(str(a))) > 40
    assert RowDecoder  # the reference decoder the other tests use


@pytest.mark.parametrize("flavor", ["mysql", "mariadb"])
def test_events_carry_their_transaction(tmp_path, flavor):
    """Every event of a transaction names its GTID and the offset of the event that opened
    it (across split boundaries too); events outside transactions name none."""
    path = tmp_path / "f.bin"
    write_shop(path, seed=2, flavor=flavor, transactions=60)
    _, out = decode_file(path, 6_000)
    events = sorted(out["event"], key=lambda e: e["offset"])
    gtid_type = "GTID_LOG_EVENT" if flavor == "mysql" else "GTID_EVENT"
    current = None
    for e in events:
        (offset, typ, gtid, txn) = e["offset"], e["type"], e["gtid"], e["transaction_offset"]
        if typ == gtid_type:
            current = (gtid, offset)
            assert gtid and txn == offset
        elif current is None or typ == "ROTATE_EVENT":   # before the first transaction
            # (FORMAT_DESCRIPTION, PREVIOUS_GTIDS, GTID_LIST, ...), or after the last
            assert (gtid, txn) == (None, None), e
        else:
            assert current is not None and (gtid, txn) == current, e
        if typ == "QUERY_EVENT" and e["query"].startswith("ALTER"):
            assert e["database"] == "shop"
    assert sum(1 for e in events if e["type"] == gtid_type) == 60
    assert len({e["gtid"] for e in events if e["gtid"]}) == 60


def test_without_rows_events_and_shapes_remain(tmp_path):
    path = tmp_path / "f.bin"
    write_shop(path, seed=4, transactions=40)
    split = prescan(str(path), os.path.getsize(path), 1 << 30)[0]
    kinds = [t[0] for t in decode_split(split, rows=False)]
    assert "row" not in kinds and kinds.count("table_map") == 3
    assert kinds.count("event") == reference_counts(str(path))[1]


def test_task_count_one_split_per_task_unless_many():
    """Equal splits are never packed unevenly: with up to twice the target (eight per core)
    every split is a task; beyond, the target."""
    from binlog_schema.pipeline.driver.plan import pack, task_count
    mib = 1 << 20
    splits = [Split("f", 129 * mib, i, i * 8 * mib, (i + 1) * 8 * mib) for i in range(24)]
    assert task_count(splits, 2, 8 * mib) == 24
    assert len(pack(splits, task_count(splits, 2, 8 * mib))) == 24
    many = [Split(f"f{i}", mib // 2, 0, 0, mib // 2) for i in range(48)]
    n = task_count(many, 2, 8 * mib)
    assert n == 16
    groups = pack(many, n)
    assert sorted(len(g) for g in groups) == [3] * 16  # equal files: equal tasks


def test_count_parts_reads_what_the_part_files_hold(tmp_path):
    """The reconciliation counts come from the part files (file, stage, size and
    in_payload_at columns), per file; a location pyarrow cannot read raises (the job then
    counts with Spark)."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    from binlog_schema.pipeline.tasks import parts
    for table, cols in (("events", {"file": ["a", "a", "b"], "size": [10, 20, 30],
                                    "in_payload_at": [None, 7, None]}),
                        ("errors", {"file": ["a", "b", "b", "b", "b"],
                                    "stage": ["event", "rows", "tail", "skipped", "file"],
                                    "size": [5, 40, 6, 7, None],
                                    "in_payload_at": [None] * 5}),
                        ("row_changes", {"file": ["b"] * 4})):
        (tmp_path / table).mkdir()
        for i in (0, 1):  # two parts per table: the first row, then the others
            rows = {c: v[:1] if i == 0 else v[1:] for c, v in cols.items()}
            pq.write_table(pa.table(rows), tmp_path / table / f"part-{i:05d}.parquet")
        (tmp_path / table / ".part-x.tmp").write_bytes(b"not a part")
    stages = ("event", "skipped", "tail")
    counts = parts.count_parts(str(tmp_path), stages, ("file",))
    # (events decoded, quarantined: errors of those stages, error rows, row changes, bytes
    # decoded: sizes of file-level events, bytes skipped: sizes of those errors, failures)
    assert counts == {"a": (2, 1, 1, 0, 10, 5, 0), "b": (1, 2, 4, 4, 30, 13, 1)}
    with pytest.raises(FileNotFoundError):
        parts.count_parts(str(tmp_path / "missing"), stages)


def test_repeated_table_maps_parsed_once_and_still_checked(tmp_path):
    """A task parses each distinct TABLE_MAP body once (servers repeat them before every
    transaction), yet every TABLE_MAP's header and CRC32 are still checked: one whose CRC
    was damaged is quarantined like any bad event, the same maps around it decode."""
    path = tmp_path / "f.bin"
    write_shop(path, seed=6, flavor="mysql", transactions=80)
    data = bytearray(path.read_bytes())
    sizes = {r.offset: len(r.raw) for r in BinlogReader(str(path), decode="lazy")}
    maps = [pos for pos, code in headers(path) if code == TABLE_MAP_EVENT]
    assert len(maps) > 40
    bad = maps[30]
    size = sizes[bad]
    data[bad + size - 1] ^= 0xFF        # the CRC32 (the body is that of other maps)
    path.write_bytes(bytes(data))
    memo = []
    real = _Bodies.table_map

    def counting(self, stream, this):
        memo.append(1)
        return real(self, stream, this)
    _Bodies.table_map = counting
    try:
        _, out = decode_file(path, 1 << 30)
    finally:
        _Bodies.table_map = real
    assert [(e["offset"], e["stage"], e["kind"]) for e in out["error"]] == [
        (bad, "event", "checksum")]
    read, decoded, quarantined, _ = reference_counts(str(path))
    assert len(out["event"]) == decoded and quarantined == 1
    assert len(memo) > len(maps) * 3 // 4    # most bodies came from the memo

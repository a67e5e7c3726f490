"""Flashback inversion (binlog_schema.changes.flashback) on synthetic binlogs (binlog_schema.
synthetic specs): what the corpus lacks: MariaDB compressed rows events, statements split over
several rows events, MySQL GTIDs inside compressed payloads, MINIMAL / NOBLOB images of tables
whose maps name their columns, bitmaps that differ, a MariaDB 11.5+ GTID with its thread id,
transactions rolled back or cut short."""

from __future__ import annotations

import io

import pytest

from binlog_schema.format.event_codec import build_event
from binlog_schema.changes.flashback import (MARIADB_BEGIN_STATUS, FlashbackError,
                                           invert_rows_event, invert_transaction)
from binlog_schema.changes.table_map import table_map_from_event
from binlog_schema.format.facts import codes
from binlog_schema.format.facts.flavor import checksum_length
from binlog_schema.format.stream import BinlogReader
from binlog_schema.format.writer import BinlogWriter
from binlog_schema.synthetic import generate
from binlog_schema.format.values.rows import RowsCodec

TABLE = {"name": "t1", "columns": [
    {"name": "id", "type": "INT", "nullable": False},
    {"name": "s", "type": "VARCHAR(40)"},
    {"name": "b", "type": "BLOB"}], "primary_key": ["id"]}


def _changes():
    return [{"insert": "t1", "rows": [{"id": i, "s": f"row {i}", "b": "blob" * i}
                                      for i in range(1, 8)]},
            {"update": "t1", "rows": [{"where": {"id": i}, "set": {"s": f"upd {i}"}}
                                      for i in (2, 3, 4)]},
            {"delete": "t1", "rows": [{"id": 5}, {"id": 6}]}]


def _spec(server, **settings):
    return {"server": server, "settings": {"rows_event_max_size": 60, **settings},
            "database": "test", "tables": [TABLE], "transactions": [{"changes": _changes()}]}


def _read(data):
    return list(BinlogReader(io.BytesIO(data), decode=True))


def _transaction(recs):
    """The records of the spec's one transaction (its GTID to its commit)."""
    start = next(i for i, r in enumerate(recs) if r.kind in codes.GTID_KINDS)
    end = next(i for i, r in enumerate(recs) if i > start and r.kind in (
        codes.XID_EVENT, codes.TRANSACTION_PAYLOAD_EVENT))
    return recs[start:end + 1]


def _events(records):
    for r in records:
        yield from (r.inner if r.inner is not None else (r,))


def _write(fde, values):
    out = io.BytesIO()
    w = BinlogWriter(out)
    w.write_record(fde)
    for v in values:
        w.write(v)
    return out.getvalue()


def _plain(raw, ctx):
    return raw[:9] + bytes(8) + raw[17:len(raw) - checksum_length(raw[4], None, ctx)]


def _round_trip(spec):
    """(original transaction, inverted once and read back, inverted twice as values)."""
    recs = _read(generate(spec))
    fde = recs[0]
    tx = _transaction(recs)
    once = _read(_write(fde, invert_transaction(tx, "synthetic")))[1:]
    twice = invert_transaction(once, "synthetic")
    return tx, once, twice


def _data_events(records_or_values):
    keep = codes.ROWS_KINDS | {codes.TABLE_MAP_EVENT}
    return [x for x in records_or_values
            if (x["header"]["type_code"] if isinstance(x, dict) else x.kind) in keep]


@pytest.mark.parametrize("server,settings", [
    ("mariadb-10.11", {"compression": True, "compression_min_length": 10}),   # compressed v1
    ("mariadb-10.5", {}),
    ("mysql-8.0", {"gtid_mode": "ON", "compression": True}),   # GTID, zstd payload
    ("mysql-5.7", {"gtid_mode": "ON"}),
    ("mysql-9.0", {"gtid_tag": "fb", "gtid_mode": "ON", "binlog_row_metadata": "FULL"}),
])
def test_inverting_twice_gives_back_the_transaction(server, settings):
    tx, once, twice = _round_trip(_spec(server, **settings))
    orig = _data_events(_events(tx))
    got = _data_events(twice)
    assert len(orig) == len(got) and len(orig) > 6
    ctx = once[0].ctx
    for r, v in zip(orig, got):
        assert _plain(build_event(v, ctx.replace(offset=0)), ctx) == _plain(r.raw, r.ctx)
    # the statements: one split over several rows events each, STMT_END on each last one
    kinds = [r.kind for r in once]
    assert kinds[0] == codes.QUERY_EVENT and once[0].value["body"]["query"] == "BEGIN"
    assert kinds[-1] == codes.XID_EVENT
    assert not set(kinds) & (codes.GTID_KINDS | {codes.ANNOTATE_ROWS_EVENT,
                                                 codes.TRANSACTION_PAYLOAD_EVENT})
    rows = [r for r in once if r.kind in codes.ROWS_KINDS]
    ops = [("insert" if r.kind in codes.WRITE_KINDS else "delete"
            if r.kind in codes.DELETE_KINDS else "update") for r in rows]
    # the delete statement first (now inserts), then the updates, then the inserts (deletes)
    first_update = ops.index("update")
    assert set(ops[:first_update]) == {"insert"}
    assert set(ops[first_update:]) == {"update", "delete"}
    assert ops[first_update:] == sorted(ops[first_update:], key=lambda o: o != "update")
    for i, r in enumerate(once):
        if r.kind in codes.ROWS_KINDS:
            nxt = once[i + 1].kind
            assert ("STMT_END" in r.value["body"]["flags"]) == (nxt not in codes.ROWS_KINDS)
    if settings.get("compression") and server.startswith("mariadb"):
        assert any(r.kind in codes.COMPRESSED_ROWS_KINDS for r in rows)
        for r in rows:   # each kind keeps its version: a compressed one stays compressed
            assert r.kind in codes.COMPRESSED_ROWS_KINDS


def test_rows_of_a_split_statement_come_back_in_reverse():
    recs = _read(generate(_spec("mariadb-10.11")))
    tx = _transaction(recs)
    maps = {r.value["body"]["table_id"]: r for r in tx if r.kind == codes.TABLE_MAP_EVENT}
    inserts = [r for r in tx if r.kind in codes.WRITE_KINDS]
    tm = table_map_from_event(next(iter(maps.values())).value, tx[0].ctx)
    codec = RowsCodec(tm)
    ids = [row[0] for r in inserts for row in codec.decode(r.value["body"], r.kind)]
    assert ids == list(range(1, 8)) and len(inserts) > 1
    out = invert_transaction(tx)
    deletes = [v for v in out if v["header"]["type_code"] in codes.DELETE_KINDS]
    body_ids = [row[0] for v in deletes
                for row in codec.decode(v["body"], v["header"]["type_code"])]
    assert body_ids[-7:] == list(range(7, 0, -1))


def test_update_swaps_images_and_bitmaps():
    recs = _read(generate(_spec("mysql-8.0", rows_event_max_size=8192)))
    tx = _transaction(recs)
    tm_rec = next(r for r in tx if r.kind == codes.TABLE_MAP_EVENT)
    upd = next(r for r in tx if r.kind == codes.UPDATE_ROWS_EVENT)
    # a bitmap whose spare bits differ from the other's: the bitmaps must follow the images
    value = {**upd.value, "header": {**upd.value["header"], "log_pos": None},
             "body": {**upd.value["body"],
                      "columns_after": upd.value["body"]["columns_after"][:3] + [False] * 5}}
    value.pop("checksum", None)
    rec = _read(_write(recs[0], [value]))[1]
    body = rec.value["body"]
    assert body["columns_present"] != body["columns_after"]
    inv = invert_rows_event(rec, table_map_from_event(tm_rec.value, tm_rec.ctx))
    assert inv["body"]["columns_present"] == body["columns_after"]
    assert inv["body"]["columns_after"] == body["columns_present"]
    codec = RowsCodec(table_map_from_event(tm_rec.value, tm_rec.ctx))
    rows = codec.decode(body, rec.kind)
    assert len(rows) == 3
    got = codec.decode(inv["body"], inv["header"]["type_code"])
    assert got == [(a, b) for b, a in reversed(rows)]


@pytest.mark.parametrize("image,missing", [("MINIMAL", None), ("NOBLOB", ["b"])])
def test_partial_images_are_refused_by_column_name(image, missing):
    spec = _spec("mysql-8.0", binlog_row_image=image, binlog_row_metadata="FULL")
    spec["transactions"] = [{"changes": [{"update": "t1", "rows": [
        {"where": {"id": 1}, "set": {"s": "x"}}]}]}]
    spec["tables"] = [{**TABLE, "initial_rows": [{"id": 1, "s": "a", "b": "blob"}]}]
    recs = _read(generate(spec))
    tx = _transaction(recs)
    upd = next(r for r in tx if r.kind == codes.UPDATE_ROWS_EVENT)
    with pytest.raises(FlashbackError) as e:
        invert_transaction(tx, "minimal.000001")
    err = e.value
    assert err.offset == upd.offset and err.file == "minimal.000001"
    assert err.event_type == "UPDATE_ROWS_EVENT"
    if missing is None:   # MINIMAL: the before image is the key, the after image what changed
        assert err.missing == ["s", "b", "id"]   # (each once, the before image's first)
        assert "before image lacks s, b" in str(err) and "after image lacks id, b" in str(err)
    else:
        assert err.missing == missing and "lacks b" in str(err)
    assert "@" not in str(err)


def test_mariadb_begin_takes_the_gtid_timestamp_and_thread():
    recs = _read(generate(_spec("mariadb-11.8", thread_id=77)))
    tx = _transaction(recs)
    gtid = tx[0]
    assert gtid.value["body"]["thread_id"] == 77
    out = invert_transaction(tx)
    begin = out[0]
    assert begin["body"]["thread_id"] == 77 and begin["body"]["query"] == "BEGIN"
    assert begin["header"]["timestamp"] == gtid.value["header"]["timestamp"]
    assert begin["body"]["status_vars"] == list(MARIADB_BEGIN_STATUS)
    status = [{"code": "FLAGS2", "value": []}, {"code": "SQL_MODE", "value": 0},
              {"code": "CATALOG_NZ", "value": "std"},
              {"code": "CHARSET", "value": {"client": 33, "connection": 33, "server": 8}}]
    out = invert_transaction(tx, begin_status=status)
    back = _read(_write(recs[0], out[:1]))[1]
    assert back.value["body"]["status_vars"] == status and back.value["body"]["database"] == ""


def _with_end(recs, tx, query):
    """The transaction with its XID replaced by a QUERY ``query`` (or dropped: None)."""
    begin = next(r for r in recs if r.kind == codes.QUERY_EVENT)   # (a MySQL BEGIN)
    values = []
    for r in tx[1:-1]:
        v = {**r.value, "header": {**r.value["header"], "log_pos": None}}
        v.pop("checksum", None)
        values.append(v)
    if query is not None:
        end = {"header": {**begin.value["header"], "log_pos": None},
               "body": {**begin.value["body"], "query": query}}
        end.pop("checksum", None)
        values.append(end)
    return _read(_write(recs[0], values))[1:]


def test_rolled_back_and_cut_transactions_are_refused():
    recs = _read(generate(_spec("mysql-8.0")))
    tx = _transaction(recs)
    assert invert_transaction(_with_end(recs, tx, "COMMIT"))[-1]["body"]["query"] == "COMMIT"
    for query, why in (("ROLLBACK", "rolled back"), ("ROLLBACK TO sp1", "rolled back"),
                       (None, "commit")):
        got = _with_end(recs, tx, query)
        with pytest.raises(FlashbackError) as e:
            invert_transaction(got, "f")
        assert why in str(e.value)

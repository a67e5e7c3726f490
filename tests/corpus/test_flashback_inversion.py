"""Flashback inversion of one transaction (binlog_schema.changes.flashback) over real files:
every transaction with row events of a representative set of MySQL and MariaDB files is
inverted twice and must give back its rows events byte for byte (positions and CRC32 aside)
and its TABLE_MAPs unchanged; inverted once and written after the file's FORMAT_DESCRIPTION,
the output reads back as the original row changes undone (operations and images swapped, in
reverse order); what cannot be inverted (partial JSON updates, MINIMAL / NOBLOB images,
statement-based changes, DDL, INCIDENT) is refused with a FlashbackError naming the event."""

from __future__ import annotations

import io

import pytest

from binlog_schema.format.event_codec import build_event
from binlog_schema.format.facts import codes
from binlog_schema.format.facts.flavor import checksum_length
from binlog_schema.changes.flashback import (FlashbackError, invert_rows_event,
                                           invert_transaction)
from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.changes.statements import statement_head
from binlog_schema.changes.table_map import table_map_from_event
from binlog_schema.format.stream import BinlogReader
from binlog_schema.format.writer import BinlogWriter

from ..conftest import corpus_file

# (file, flavor): every row-event family the corpus has, kept small enough to run in seconds
FILES = [
    "canal/binlog/mysql-bin.000001",                       # 5.1 v1 rows, BEGIN ... XID
    "mysql-5.1-facebookarchive/suite/binlog/std_data/bug32407.001",  # pre-GA rows, no BEGIN
    "rust_mysql_common/ver_5_1_23.001",                    # 5.1 v1 autocommit (no BEGIN)
    "rust_mysql_common/ver_trunk_row_v2.001",              # 5.6.4 v2 rows, checksum OFF
    "mysql-binlog-connector-java/mysql-bin.checksum-crc32",  # 5.7 v2, CRC32, ANONYMOUS_GTID
    "mysql-binlog-connector-java/mysql-bin.checksum-none",
    "mysql-cdc-rs/5.7/29_row_query/log.bin",               # ROWS_QUERY (dropped), GTID
    "mysql-cdc-rs/8.0/02_query_bigger/binlog.000733",      # 8.0 write/update/delete
    "mysql-cdc-rs/8.0/folder/binlog.000693",               # 8.0, hundreds of transactions
    "rust_mysql_common/mysql-enum-string-set.000001",      # GTID, FULL metadata (names)
    "rust_mysql_common/binlog-invisible-columns.000001",
    "rust_mysql_common/binlog_transaction_with_GTID_TAG.000001",  # 9.6 GTID_TAGGED
    "rust_mysql_common/vector.binlog",                     # 9.0 VECTOR
    "rust_mysql_common/json-opaque.binlog",                # 9.0 JSON
    "rust_mysql_common/transaction_compression.000001",    # 8.0.32 TRANSACTION_PAYLOAD
    "rust_mysql_common/mariadb-bin.000001",                # MariaDB 10.5: GTID, ANNOTATE_ROWS
    "mysql-binlog-connector-java/mysql-bin.sakila",        # 5.5: statements of many events
]


# ------------------------------------------------------------------ helpers

def transactions(records):
    """The transactions of a file's records, each a list of records in file order: a GTID
    event or a BEGIN starts one (a MariaDB GTID not STANDALONE is its transaction's begin),
    an XID, a COMMIT / ROLLBACK query or a TRANSACTION_PAYLOAD (which holds the rest) ends it;
    a statement outside a BEGIN (DDL, autocommitted statement)
    is one alone; row events outside one (old servers' autocommitted non-transactional
    statements) form one until a boundary. Events about the file (FDE, ROTATE, STOP, GTID
    lists, checkpoints) belong to none."""
    outside = codes.CONTEXT_KINDS | {codes.ROTATE_EVENT, codes.STOP_EVENT,
                                     codes.PREVIOUS_GTIDS_LOG_EVENT, codes.GTID_LIST_EVENT,
                                     codes.BINLOG_CHECKPOINT_EVENT}
    cur = None
    for r in records:
        k = r.kind
        if k in outside:
            if cur and not any(x.kind in codes.GTID_KINDS for x in cur[:1]) and \
                    not _is_begin(cur[0]):
                yield cur     # (autocommitted rows events: a boundary ends them)
                cur = None
            continue
        if k in codes.GTID_KINDS:
            if cur:
                yield cur
            cur = [r]
            continue
        if k == codes.QUERY_EVENT:
            head = statement_head(r.value["body"].get("query") or "")
            if head.startswith("BEGIN"):
                if cur and any(x.kind not in codes.GTID_KINDS for x in cur):
                    yield cur
                    cur = None
                cur = (cur or []) + [r]
                continue
            if cur is None:
                yield [r]
                continue
            cur.append(r)
            ends = head.startswith("COMMIT") or (head.startswith("ROLLBACK")
                                                 and not head.startswith("ROLLBACK TO"))
            if ends or not any(_opens(x) for x in cur):
                yield cur       # (a GTID then a statement: DDL, standalone)
                cur = None
            continue
        if k in (codes.XID_EVENT, codes.TRANSACTION_PAYLOAD_EVENT):
            cur = (cur or []) + [r]
            yield cur
            cur = None
            continue
        cur = (cur or []) + [r]
    if cur:
        yield cur


def _opens(r):
    """A BEGIN, or a MariaDB GTID event that is not STANDALONE (its transaction start)."""
    if r.kind == codes.MARIA_GTID_EVENT:
        return "STANDALONE" not in (r.value["body"].get("flags2") or [])
    return _is_begin(r)


def _is_begin(r):
    return r.kind == codes.QUERY_EVENT and statement_head(
        r.value["body"].get("query") or "").startswith("BEGIN")


def _events(records):
    for r in records:
        yield from (r.inner if r.inner is not None else (r,))


def _has_rows(tx):
    return any(r.kind in codes.ROWS_KINDS for r in _events(tx))


def _plain(raw: bytes, ctx) -> bytes:
    """An event's bytes with its CRC32 stripped and the fields that depend on its place
    zeroed: log_pos, and event_size (which counts the CRC32: an event of a payload has none,
    the same event written in a checksummed file has one)."""
    crc = checksum_length(raw[4], None, ctx)
    return raw[:9] + bytes(8) + raw[17:len(raw) - crc]


def _write(fde_rec, transactions_values):
    """A whole file: the input's FORMAT_DESCRIPTION, then the events; its bytes."""
    out = io.BytesIO()
    w = BinlogWriter(out)
    w.write_record(fde_rec)
    for values in transactions_values:
        for v in values:
            w.write(v)
    return out.getvalue()


def _read(data):
    recs = list(BinlogReader(io.BytesIO(data), decode=True))
    return recs[0], recs[1:]


def _load(name):
    recs = list(BinlogReader(str(corpus_file(name)), decode=True))
    fde = next(r for r in recs if r.kind == codes.FORMAT_DESCRIPTION_EVENT)
    return recs, fde


def _swapped(changes):
    """Row changes undone: in reverse order, insert <-> delete, update images swapped."""
    op = {"insert": "delete", "delete": "insert", "update": "update"}
    return [(ch.database, ch.table, op[ch.operation], ch.after, ch.before)
            for ch in reversed(changes)]


def _changes(records, name):
    """Per rows event (in stream order, payload events in place), its row changes."""
    dec = RowDecoder(name)
    out = []
    for r in _events(records):
        got = dec.feed_one(r)
        if r.kind in codes.ROWS_KINDS:
            assert got, f"{name}: rows event at {r.offset} decoded to no rows"
            out.append(got)
    return out


# ------------------------------------------------------------------ inverting twice

@pytest.mark.parametrize("name", FILES)
def test_inverting_twice_gives_back_the_rows_events(name, corpus):
    recs, fde = _load(name)
    txs = [tx for tx in transactions(recs) if _has_rows(tx)]
    assert txs, f"{name}: no transaction with row events"
    for tx in txs:
        once = invert_transaction(tx, name)
        _, back = _read(_write(fde, [once]))
        twice = invert_transaction(back, name)
        out_ctx = back[0].ctx if back else fde.ctx
        orig = [r for r in _events(tx)
                if r.kind in codes.ROWS_KINDS or r.kind == codes.TABLE_MAP_EVENT]
        got = [v for v in twice
               if v["header"]["type_code"] in codes.ROWS_KINDS | {codes.TABLE_MAP_EVENT}]
        assert [r.kind for r in orig] == [v["header"]["type_code"] for v in got], \
            f"{name}: transaction at {tx[0].offset}: the events' kinds or order differ"
        for r, v in zip(orig, got):
            built = build_event(v, out_ctx.replace(offset=0))
            assert _plain(built, out_ctx) == _plain(r.raw, r.ctx), \
                f"{name}: {r.type_name} at {r.offset} is not given back byte for byte"
        # the inverted once differs where it must: every rows event's kind or images
        inverted_rows = [v for v in once if v["header"]["type_code"] in codes.ROWS_KINDS]
        for v, r in zip(inverted_rows, [r for r in reversed(orig)
                                        if r.kind in codes.ROWS_KINDS]):
            kind = r.kind
            if kind in codes.UPDATE_KINDS:
                assert v["header"]["type_code"] == kind
            else:
                assert v["header"]["type_code"] != kind
                assert (v["header"]["type_code"] in codes.WRITE_KINDS) == \
                    (kind in codes.DELETE_KINDS)


def test_the_begin_and_commit(corpus):
    """MySQL: the GTID events are dropped and BEGIN / the XID kept; MariaDB: the GTID event
    becomes a QUERY BEGIN with the GTID's timestamp, an empty default database; ROWS_QUERY
    and ANNOTATE_ROWS are dropped."""
    recs, fde = _load("mysql-cdc-rs/5.7/29_row_query/log.bin")
    tx = next(tx for tx in transactions(recs) if _has_rows(tx))
    assert {r.kind for r in tx} >= {codes.GTID_LOG_EVENT, codes.ROWS_QUERY_LOG_EVENT}
    out = invert_transaction(tx, "log.bin")
    kinds = [v["header"]["type_code"] for v in out]
    assert kinds[0] == codes.QUERY_EVENT and out[0]["body"]["query"] == "BEGIN"
    assert kinds[-1] == codes.XID_EVENT
    assert out[-1]["body"] == tx[-1].value["body"]
    assert not set(kinds) & (codes.GTID_KINDS | {codes.ROWS_QUERY_LOG_EVENT})
    assert all(v["header"]["log_pos"] is None and "checksum" not in v for v in out)

    recs, fde = _load("rust_mysql_common/mariadb-bin.000001")
    tx = next(tx for tx in transactions(recs) if _has_rows(tx))
    gtid = tx[0]
    assert gtid.kind == codes.MARIA_GTID_EVENT
    assert any(r.kind == codes.ANNOTATE_ROWS_EVENT for r in tx)
    out = invert_transaction(tx, "mariadb-bin.000001")
    _, back = _read(_write(fde, [out]))
    assert [r.kind for r in back] == [codes.QUERY_EVENT, codes.TABLE_MAP_EVENT,
                                      codes.DELETE_ROWS_EVENT_V1, codes.XID_EVENT]
    begin = back[0].value
    assert begin["body"]["query"] == "BEGIN" and begin["body"]["database"] == ""
    assert begin["header"]["timestamp"] == gtid.value["header"]["timestamp"]
    assert begin["header"]["server_id"] == gtid.value["header"]["server_id"]
    assert begin["header"]["flags"] == ["SUPPRESS_USE"]
    assert [v["code"] for v in begin["body"]["status_vars"]] == \
        ["FLAGS2", "SQL_MODE", "CATALOG_NZ", "CHARSET"]
    assert back[0].error is None and back[0].raw[-4:] != b"\0\0\0\0"   # (a CRC32 computed)


def test_payload_events_come_out_uncompressed(corpus):
    recs, fde = _load("rust_mysql_common/transaction_compression.000001")
    tx = next(tx for tx in transactions(recs) if _has_rows(tx))
    assert tx[-1].kind == codes.TRANSACTION_PAYLOAD_EVENT
    out = invert_transaction(tx, "transaction_compression.000001")
    assert codes.TRANSACTION_PAYLOAD_EVENT not in [v["header"]["type_code"] for v in out]
    _, back = _read(_write(fde, [out]))
    assert [r.kind for r in back] == [codes.QUERY_EVENT, codes.TABLE_MAP_EVENT,
                                      codes.DELETE_ROWS_EVENT, codes.XID_EVENT]
    assert all(r.error is None for r in back)


# ------------------------------------------------------------------ the whole output

@pytest.mark.parametrize("name", FILES)
def test_inverted_file_reads_back_as_the_changes_undone(name, corpus):
    recs, fde = _load(name)
    txs = [tx for tx in transactions(recs) if _has_rows(tx)]
    inverted = [invert_transaction(tx, name) for tx in reversed(txs)]
    data = _write(fde, inverted)
    _, back = _read(data)
    assert all(r.error is None for r in back)
    # the original's row changes (of these transactions), per rows event, undone in reverse
    original = _changes([r for tx in txs for r in tx], name)
    got = _changes(back, name)
    assert len(got) == len(original)
    for g, o in zip(got, reversed(original)):
        assert [(c.database, c.table, c.operation, c.before, c.after) for c in g] == \
            _swapped(o)
    # STMT_END: on the last rows event of each statement, as many as before; other flags kept
    orig_rows = [r for r in _events([r for tx in txs for r in tx])
                 if r.kind in codes.ROWS_KINDS]
    back_rows = [r for r in back if r.kind in codes.ROWS_KINDS]
    ends = sum("STMT_END" in r.value["body"]["flags"] for r in orig_rows)
    assert sum("STMT_END" in r.value["body"]["flags"] for r in back_rows) == ends
    for b, o in zip(back_rows, reversed(orig_rows)):
        assert [f for f in b.value["body"]["flags"] if f != "STMT_END"] == \
            [f for f in o.value["body"]["flags"] if f != "STMT_END"]
        assert b.value["header"]["timestamp"] == o.value["header"]["timestamp"]
        assert b.value["header"]["server_id"] == o.value["header"]["server_id"]
        assert b.value["body"].get("extra_data") == o.value["body"].get("extra_data")
    for i, r in enumerate(back):   # each statement's last rows event ends it
        if r.kind in codes.ROWS_KINDS:
            nxt = back[i + 1].kind if i + 1 < len(back) else None
            assert ("STMT_END" in r.value["body"]["flags"]) == (nxt not in codes.ROWS_KINDS)


# ------------------------------------------------------------------ refusals

def _tx_with(name, kind):
    recs, _ = _load(name)
    return next(tx for tx in transactions(recs) if any(r.kind == kind for r in _events(tx)))


def test_partial_json_update_is_refused(corpus):
    name = "rust_mysql_common/json.binlog.000001"
    tx = _tx_with(name, codes.PARTIAL_UPDATE_ROWS_EVENT)
    event = next(r for r in tx if r.kind == codes.PARTIAL_UPDATE_ROWS_EVENT)
    with pytest.raises(FlashbackError) as e:
        invert_transaction(tx, name)
    assert e.value.offset == event.offset and e.value.file == name
    assert e.value.event_type == "PARTIAL_UPDATE_ROWS_EVENT"
    assert "PARTIAL_UPDATE_ROWS_EVENT" in str(e.value) and str(event.offset) in str(e.value)


def _missing_of(rec, tm, bits_field):
    body = rec.value["body"]
    bits = body[bits_field][:body["column_count"]]
    return [f"@{i + 1}" for i in range(len(tm.columns)) if i >= len(bits) or not bits[i]]


def test_minimal_image_is_refused_naming_the_missing_columns(corpus):
    name = "rust_mysql_common/minimal_row_metadata.000001"
    tx = _tx_with(name, codes.WRITE_ROWS_EVENT)
    rec = next(r for r in tx if r.kind == codes.WRITE_ROWS_EVENT)
    tm_rec = next(r for r in tx if r.kind == codes.TABLE_MAP_EVENT)
    tm = table_map_from_event(tm_rec.value, tm_rec.ctx)
    expected = _missing_of(rec, tm, "columns_present")
    assert expected == ["@2", "@4"]   # (the table map carries no names: MINIMAL metadata)
    with pytest.raises(FlashbackError) as e:
        invert_transaction(tx, name)
    assert e.value.missing == expected and e.value.offset == rec.offset
    assert "@2, @4" in str(e.value) and "WRITE_ROWS_EVENT" in str(e.value)
    with pytest.raises(FlashbackError):
        invert_rows_event(rec, tm)


def test_partial_update_and_delete_images_are_refused(corpus):
    """NDB's partial images (5.1.37): an UPDATE and a DELETE whose images hold the key only."""
    name = "rust_mysql_common/update-partial-row.binlog"
    recs, _ = _load(name)
    tx = next(tx for tx in transactions(recs) if _has_rows(tx))
    with pytest.raises(FlashbackError) as e:
        invert_transaction(tx, name)
    assert e.value.missing
    maps = {}
    for r in tx:
        if r.kind == codes.TABLE_MAP_EVENT:
            maps[r.value["body"]["table_id"]] = table_map_from_event(r.value, r.ctx)
    update = next(r for r in tx if r.kind == codes.UPDATE_ROWS_EVENT_V1)
    tm = maps[update.value["body"]["table_id"]]
    with pytest.raises(FlashbackError) as e:
        invert_rows_event(update, tm, name)
    want = _missing_of(update, tm, "columns_present")
    assert want and e.value.missing[:len(want)] == want
    assert e.value.offset == update.offset and ", ".join(want) in str(e.value)


def test_statement_based_changes_and_ddl_are_refused(corpus):
    # BEGIN; INSERT ... (statement); INSERT ...; XID (5.1.23)
    name = "rust_mysql_common/ver_5_1_23.001"
    recs, _ = _load(name)
    txs = list(transactions(recs))
    stmt = next(tx for tx in txs if _is_begin(tx[0]))
    with pytest.raises(FlashbackError) as e:
        invert_transaction(stmt, name)
    assert "statement-based" in str(e.value) and e.value.offset == stmt[1].offset
    ddl = next(tx for tx in txs if tx[0].kind == codes.QUERY_EVENT
               and statement_head(tx[0].value["body"]["query"]).startswith("CREATE"))
    with pytest.raises(FlashbackError) as e:
        invert_transaction(ddl, name)
    assert e.value.event_type == "QUERY_EVENT" and "CREATE TABLE" in str(e.value)
    # MariaDB statement-based: GTID, then UPDATE / DELETE / INSERT statements, XID
    name = "mariadb-poc/domain_id_0/mariadb-repl-bin.000005"
    recs, _ = _load(name)
    tx = next(tx for tx in transactions(recs) if tx[0].kind == codes.MARIA_GTID_EVENT
              and tx[-1].kind == codes.XID_EVENT)
    with pytest.raises(FlashbackError) as e:
        invert_transaction(tx, name)
    assert "statement-based" in str(e.value) and e.value.offset == tx[1].offset


def test_incident_is_refused(corpus):
    name = "rust_mysql_common/bug40482-bin.000001"
    recs, _ = _load(name)
    incident = next(r for r in recs if r.kind == codes.INCIDENT_EVENT)
    with pytest.raises(FlashbackError) as e:
        invert_transaction([incident], name)
    assert e.value.event_type == "INCIDENT_EVENT" and e.value.offset == incident.offset

"""Change records (issue 14, part 3): ``decode --format maxwell`` and ``--format debezium``
checked field by field against the tools' documented examples (Maxwell's docs/dataformat.md:
the ``test.e`` table; Debezium's MySQL connector documentation: ``inventory.customers``),
reproduced with the synthetic generator; values adapted only where the documents' data is
arbitrary (binlog offsets, a Debezium version, its processing time). Then the order key, the
commit flag's place, XID and GTID, and the values per type."""

from __future__ import annotations

import io
import json

import pytest

from binlog_schema.changes.transactions import Pending, order_key, order_key_fields
from binlog_schema.output.write import Output, write_events
from binlog_schema.synthetic import generate


def lines(path, fmt, **kw) -> list:
    buf = io.StringIO()
    out = Output(buf)
    status = write_events(str(path), out, fmt=fmt, **kw)
    out.flush()
    assert status == 0
    return [json.loads(line) for line in buf.getvalue().splitlines()]


def events(path) -> list:
    return lines(path, "jsonl", rows=True)


def write(tmp_path, spec, name) -> str:
    path = tmp_path / name
    path.write_bytes(generate(spec))
    return str(path)


def rows_offsets(path) -> list:
    return [e["offset"] for e in events(path) if "rows" in e]


def assert_in_order(record: dict, documented: list) -> None:
    """The documented fields appear in the record in the documented order."""
    keys = [k for k in record if k in documented]
    assert keys == [k for k in documented if k in record]


# ------------------------------------------------------------------ Maxwell's example

MAXWELL_SPEC = {
    "server": "mysql-8.0",
    "settings": {"binlog_row_metadata": "FULL", "file_name": "master.000006",
                 "server_id": 23042, "thread_id": 108, "xid_start": 23396,
                 "timestamp": 1477053217},
    "database": "test",
    "tables": [{"name": "e", "columns": [
        {"name": "id", "type": "INT", "nullable": False},
        {"name": "m", "type": "DOUBLE"},
        {"name": "c", "type": "TIMESTAMP(6)", "nullable": False},
        {"name": "comment", "type": "VARCHAR(255)", "charset": "latin1"}],
        "primary_key": ["id", "c"]}],   # the document's primary_key_columns: ["id", "c"]
    "transactions": [
        {"changes": [{"insert": "e", "rows": [
            {"id": 1, "m": 4.2341, "c": "2016-10-21 05:33:37.523000",
             "comment": "I am a creature of light."}]}]},
        {"timestamp": 1477053234, "changes": [{"update": "e", "rows": [
            {"where": {"id": 1}, "set": {"m": 5.444, "c": "2016-10-21 05:33:54.631000"}}]}]},
        {"changes": [{"delete": "e", "rows": [{"id": 1}]}]},
    ],
}

# docs/dataformat.md (zendesk/maxwell), with output_binlog_position, output_server_id,
# output_thread_id, output_primary_keys and output_primary_key_columns on
MAXWELL_INSERT = {
    "database": "test", "table": "e", "type": "insert", "ts": 1477053217, "xid": 23396,
    "commit": True, "position": "master.000006:800911", "server_id": 23042, "thread_id": 108,
    "primary_key": [1, "2016-10-21 05:33:37.523000"], "primary_key_columns": ["id", "c"],
    "data": {"id": 1, "m": 4.2341, "c": "2016-10-21 05:33:37.523000",
             "comment": "I am a creature of light."}}
MAXWELL_UPDATE = {
    "database": "test", "table": "e", "type": "update", "ts": 1477053234,
    "data": {"id": 1, "m": 5.444, "c": "2016-10-21 05:33:54.631000",
             "comment": "I am a creature of light."},
    "old": {"m": 4.2341, "c": "2016-10-21 05:33:37.523000"}}
MAXWELL_DELETE = {
    "database": "test", "table": "e", "type": "delete",
    "data": {"id": 1, "m": 5.444, "c": "2016-10-21 05:33:54.631000",
             "comment": "I am a creature of light."}}
MAXWELL_ORDER = ["database", "table", "type", "ts", "xid", "commit", "position", "server_id",
                 "thread_id", "primary_key", "primary_key_columns", "data", "old"]


def test_maxwell_documented_example_field_by_field(tmp_path):
    path = write(tmp_path, MAXWELL_SPEC, "master.000006")
    got = lines(path, "maxwell")
    offsets = rows_offsets(path)
    assert len(got) == 3
    for record, documented, offset in zip(got, (MAXWELL_INSERT, MAXWELL_UPDATE, MAXWELL_DELETE),
                                          offsets):
        for field, value in documented.items():
            if field == "position":  # the offset is the document's binlog's: ours here
                assert record[field] == f"master.000006:{offset}"
                assert value.startswith("master.000006:")
            else:
                assert record[field] == value, field
        assert_in_order(record, MAXWELL_ORDER)
        # every transaction is one row: each row has its xid and commit
        assert record["commit"] is True and isinstance(record["xid"], int)
        assert record["position"] == f"master.000006:{offset}"
        # the extra fields: this package's order key (and no others)
        assert set(record) - set(MAXWELL_ORDER) == {"order_key"}
    assert got[0]["xid"] == 23396 and got[1]["xid"] == 23397
    assert "old" not in got[0] and "old" not in got[2]
    assert got[1]["primary_key"] == [1, "2016-10-21 05:33:54.631000"]


# ------------------------------------------------------------------ Debezium's example

DEBEZIUM_SPEC = {
    "server": "mysql-8.0",
    "settings": {"binlog_row_metadata": "FULL", "file_name": "mysql-bin.000003",
                 "server_id": 223344, "thread_id": 7, "timestamp": 1465491411},
    "database": "inventory",
    "tables": [{"name": "customers", "columns": [
        {"name": "id", "type": "INT", "nullable": False},
        {"name": "first_name", "type": "VARCHAR(255)", "nullable": False},
        {"name": "last_name", "type": "VARCHAR(255)", "nullable": False},
        {"name": "email", "type": "VARCHAR(255)", "nullable": False}],
        "primary_key": ["id"], "unique_keys": [["email"]]}],
    "transactions": [
        {"changes": [{"insert": "customers", "rows": [
            {"id": 1004, "first_name": "Anne", "last_name": "Kretchmar",
             "email": "annek@noanswer.org"}]}]},
        {"timestamp": 1465581029, "changes": [{"update": "customers", "rows": [
            {"where": {"id": 1004}, "set": {"first_name": "Anne Marie"}}]}]},
        {"timestamp": 1465581902, "changes": [{"delete": "customers", "rows": [
            {"id": 1004}]}]},
    ],
}
ANNE = {"id": 1004, "first_name": "Anne", "last_name": "Kretchmar",
        "email": "annek@noanswer.org"}
ANNE_MARIE = dict(ANNE, first_name="Anne Marie")


def debezium_source(ts_ms, server_id, pos, query):
    return {"version": "2.x", "connector": "mysql", "name": "mysql-server-1",
            "ts_ms": ts_ms, "snapshot": False, "db": "inventory", "table": "customers",
            "server_id": server_id, "gtid": None, "file": "mysql-bin.000003", "pos": pos,
            "row": 0, "thread": 7, "query": query}


# the documentation's create, update and delete event values (payload)
DEBEZIUM_CREATE = {"op": "c", "ts_ms": 1465491411815, "before": None, "after": ANNE,
                   "source": debezium_source(0, 0, 154, "INSERT INTO customers (first_name, "
                                             "last_name, email) VALUES ('Anne', 'Kretchmar', "
                                             "'annek@noanswer.org')")}
DEBEZIUM_UPDATE = {"before": ANNE, "after": ANNE_MARIE,
                   "source": debezium_source(1465581029100, 223344, 484,
                                             "UPDATE customers SET first_name='Anne Marie' "
                                             "WHERE id=1004"),
                   "op": "u", "ts_ms": 1465581029523}
DEBEZIUM_DELETE = {"before": ANNE_MARIE, "after": None,
                   "source": debezium_source(1465581902300, 223344, 805,
                                             "DELETE FROM customers WHERE id=1004"),
                   "op": "d", "ts_ms": 1465581902461}


def test_debezium_documented_example_field_by_field(tmp_path):
    path = write(tmp_path, DEBEZIUM_SPEC, "mysql-bin.000003")
    got = lines(path, "debezium")
    offsets = rows_offsets(path)
    times = [e["header"]["timestamp"] for e in events(path) if "rows" in e]
    assert len(got) == 3
    for record, documented, offset, ts in zip(
            got, (DEBEZIUM_CREATE, DEBEZIUM_UPDATE, DEBEZIUM_DELETE), offsets, times):
        assert record["op"] == documented["op"]
        assert record["before"] == documented["before"]
        assert record["after"] == documented["after"]
        source = record["source"]
        for field, value in documented["source"].items():
            if field == "version":  # Debezium's release: ours
                assert source[field].startswith("binlog-schema ")
            elif field == "name":  # the connector's logical name (topic.prefix): ours
                assert source[field] == "binlog-schema"
            elif field == "ts_ms":  # when the change was made: the rows event's time
                # (whole seconds without a GTID's commit time; the document's create event
                # is a snapshot's 0)
                assert source[field] == ts * 1000
                assert value in (0, ts * 1000 + value % 1000)
            elif field == "server_id":  # (the document's create event: 0, a snapshot's)
                assert source[field] == 223344
            elif field == "pos":  # the document's binlog's offset: ours
                assert source[field] == offset
            elif field == "query":  # include.query is off by default: null
                assert source[field] is None
            else:
                assert source[field] == value, field
        assert set(documented["source"]) | {"ts_us", "ts_ns", "sequence"} == set(source)
        assert source["ts_us"] == source["ts_ms"] * 1000
        # the connector's processing time: here the change's (the output is the file's)
        assert record["ts_ms"] == source["ts_ms"]
        assert record["transaction"] == {"id": f"mysql-bin.000003:{_begin(path, offset)}",
                                         "total_order": 1, "data_collection_order": 1}
        assert list(record) == ["before", "after", "source", "transaction", "op", "ts_ms",
                                "ts_us", "ts_ns"]


def _begin(path, offset) -> int:
    """The offset of the first event of the transaction of the rows event at ``offset``."""
    begin = None
    for e in events(path):
        if e["type"] in ("GTID_LOG_EVENT", "ANONYMOUS_GTID_LOG_EVENT"):
            begin = e["offset"]
        if e["offset"] == offset:
            return begin
    raise AssertionError(offset)


# ------------------------------------------------------------------ transactions

TX_SPEC = {
    "server": "mysql-8.0",
    "settings": {"binlog_row_metadata": "FULL", "gtid_mode": "ON", "rows_event_max_size": 256,
                 "xid_start": 500},
    "database": "d",
    "tables": [{"name": "t", "columns": [{"name": "id", "type": "INT", "nullable": False},
                                         {"name": "s", "type": "VARCHAR(40)"}],
                "primary_key": ["id"]},
               {"name": "u", "columns": [{"name": "k", "type": "INT"}]}],
    "transactions": [
        {"changes": [{"insert": "t", "rows": [{"id": i, "s": "x" * 30} for i in range(12)]},
                     {"insert": "u", "rows": [{"k": 1}, {"k": 2}]},
                     {"update": "t", "rows": [{"where": {"id": 3}, "set": {"s": "y"}}]}]},
        {"changes": [{"delete": "t", "rows": [{"id": 0}, {"id": 1}]}]},
    ],
}


@pytest.mark.parametrize("compression", [False, True])
def test_order_key_xid_gtid_and_commit_flag(tmp_path, compression):
    spec = dict(TX_SPEC, settings=dict(TX_SPEC["settings"], compression=compression))
    path = write(tmp_path, spec, "binlog.000042")
    got = lines(path, "maxwell")
    assert len(got) == 17
    keys = [r["order_key"] for r in got]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    ev = events(path)
    gtids = [e for e in ev if e["type"] == "GTID_LOG_EVENT" or e.get("body", {}).get("gno")]
    rows_events = [e for e in ev if "rows" in e]
    if compression:  # every row event inside a payload: the key's third part places it
        assert all(order_key_fields(k)[2] > 0 for k in keys)
    else:
        assert len(rows_events) > 3  # (the inserts split across events)
        assert [order_key_fields(k)[1] for k in keys] == sorted(
            e["offset"] for e in rows_events for _ in e["rows"])
    for r in got:
        seq, offset, payload, row = order_key_fields(r["order_key"])
        assert seq == 42 and r["position"] == f"binlog.000042:{offset}"
        assert r["order_key"] == order_key(seq, offset, payload, row)
    first, second = got[:15], got[15:]
    assert {r["xid"] for r in first} == {500} and {r["xid"] for r in second} == {501}
    assert [r.get("commit", False) for r in got] == [False] * 14 + [True] + [False, True]
    assert len({r["gtid"] for r in first}) == 1 and first[0]["gtid"] != second[0]["gtid"]
    assert first[0]["gtid"].startswith("3e11fa47-71ca-11e1-9e33-c80aa9429562:")
    assert "primary_key" in first[0] and first[0]["primary_key"] == [0]
    assert first[12]["primary_key"] == [] and first[12]["table"] == "u"  # no key: []
    deb = lines(path, "debezium")
    assert [d["source"]["sequence"] for d in deb] == keys
    assert [d["source"]["gtid"] for d in deb] == [r["gtid"] for r in got]
    assert [d["transaction"]["total_order"] for d in deb] == list(range(1, 16)) + [1, 2]
    assert [d["transaction"]["data_collection_order"] for d in deb][:15] == \
        list(range(1, 13)) + [1, 2, 13]
    assert {d["transaction"]["id"] for d in deb[:15]} == {first[0]["gtid"]}
    assert len(gtids) >= (0 if compression else 2)


def test_a_huge_transaction_spills_and_keeps_its_records(tmp_path):
    path = write(tmp_path, TX_SPEC, "binlog.000001")
    from binlog_schema.output import maxwell
    kept = lines(path, "maxwell")
    small = maxwell.MaxwellWriter.__init__.__defaults__
    try:
        maxwell.MaxwellWriter.__init__.__defaults__ = (200,)   # a 200-byte memory bound
        spilled = lines(path, "maxwell")
    finally:
        maxwell.MaxwellWriter.__init__.__defaults__ = small
    assert spilled == kept
    p = Pending(limit=10)
    for i in range(5):
        p.add(f"h{i}", f"t{i}")
    assert p.spill is not None and len(p) == 5
    assert list(p.drain()) == [(f"h{i}", f"t{i}", i == 4) for i in range(5)]
    assert len(p) == 0


def test_mariadb_gtid_and_minimal_metadata(tmp_path):
    spec = {"server": "mariadb-10.11", "settings": {"binlog_row_metadata": "MINIMAL"},
            "database": "d", "tables": TX_SPEC["tables"],
            "transactions": TX_SPEC["transactions"]}
    path = write(tmp_path, spec, "mariadb-bin.000007")
    got = lines(path, "maxwell")
    assert got[0]["gtid"] == "0-1-1" and got[-1]["gtid"] == "0-1-2"
    assert "primary_key" not in got[0]  # MINIMAL, no schema: the key is not known
    assert "thread_id" not in got[0]   # (MariaDB writes no BEGIN)
    deb = lines(path, "debezium")
    assert deb[0]["source"]["connector"] == "mariadb" and deb[0]["source"]["thread"] is None
    assert deb[0]["after"] == {"@1": 0, "@2": "x" * 30}


# ------------------------------------------------------------------ values per type

TYPES_SPEC = {
    "server": "mysql-8.0",
    "settings": {"binlog_row_metadata": "FULL"},
    "database": "d",
    "tables": [{"name": "v", "columns": [
        {"name": "d", "type": "DATE"}, {"name": "dn", "type": "DATE", "nullable": False},
        {"name": "dt3", "type": "DATETIME(3)"}, {"name": "dt6", "type": "DATETIME(6)"},
        {"name": "ts2", "type": "TIMESTAMP(2)", "nullable": True},
        {"name": "t6", "type": "TIME(6)"}, {"name": "dec", "type": "DECIMAL(10,3)"},
        {"name": "b1", "type": "BIT(1)"}, {"name": "b10", "type": "BIT(10)"},
        {"name": "e", "type": "ENUM('a','b')"}, {"name": "s", "type": "SET('x','y','z')"},
        {"name": "y", "type": "YEAR"}, {"name": "big", "type": "BIGINT UNSIGNED"},
        {"name": "bin", "type": "VARBINARY(8)"}, {"name": "j", "type": "JSON"},
        {"name": "f", "type": "FLOAT"}]}],
    "transactions": [{"changes": [{"insert": "v", "rows": [
        {"d": "2018-06-20", "dn": "0000-00-00", "dt3": "2018-06-20 06:37:03.25",
         "dt6": "2018-06-20 06:37:03.000001", "ts2": "2018-06-20 13:37:03.5",
         "t6": "-01:02:03.5", "dec": "-12.500", "b1": 1, "b10": 513, "e": "b",
         "s": ["x", "z"], "y": 2024, "big": 18446744073709551615, "bin": {"hex": "00ff"},
         "j": {"a": [1, 2]}, "f": 4.2341}]}]}],
}


def test_values_per_type(tmp_path):
    path = write(tmp_path, TYPES_SPEC, "binlog.000001")
    (deb,), (mx,) = lines(path, "debezium"), lines(path, "maxwell")
    assert deb["after"] == {
        "d": 17702, "dn": 0, "dt3": 1529476623250, "dt6": 1529476623000001,
        "ts2": "2018-06-20T13:37:03.50Z", "t6": -3723500000, "dec": "-12.500", "b1": True,
        "b10": "AQI=", "e": "b", "s": "x,z", "y": 2024, "big": -1, "bin": "AP8=",
        "j": '{"a":[1,2]}', "f": 4.2341}
    assert mx["data"] == {
        "d": "2018-06-20", "dn": "0000-00-00", "dt3": "2018-06-20 06:37:03.250",
        "dt6": "2018-06-20 06:37:03.000001", "ts2": "2018-06-20 13:37:03.50",
        "t6": "-01:02:03.500000", "dec": -12.5, "b1": 1, "b10": 513, "e": "b",
        "s": ["x", "z"], "y": 2024, "big": 18446744073709551615, "bin": "AP8=",
        "j": {"a": [1, 2]}, "f": 4.2341}


def test_minimal_file_with_the_schema_history(tmp_path):
    """``--schema`` (rows implied by the format): the history's names, primary key and the
    table's version as Maxwell's ``schema_id``."""
    import subprocess
    import sys
    from .test_schema_rows import SCHEMA, spec
    path = write(tmp_path, spec("mysql-8.0", "MINIMAL"), "binlog.000001")
    (tmp_path / "schema.sql").write_text(SCHEMA)
    run = subprocess.run([sys.executable, "-m", "binlog_schema", "decode", "--format",
                          "maxwell", "--schema", str(tmp_path / "schema.sql"), path],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    got = [json.loads(line) for line in run.stdout.splitlines()]
    assert [(r["table"], r["type"], r["schema_id"]) for r in got] == [
        ("orders", "insert", 1), ("orders", "insert", 1), ("orders", "update", 2),
        ("orders", "delete", 2), ("other", "insert", 1)]
    assert got[2]["primary_key"] == [1] and got[2]["primary_key_columns"] == ["id"]
    assert got[2]["old"] == {"state": "new", "qty": None}
    assert got[4]["primary_key"] == []  # a table without a key


# ------------------------------------------------------------------ the Python API


@pytest.mark.parametrize("server,compression", [("mysql-8.0", False), ("mysql-8.0", True),
                                                ("mysql-5.7", False),
                                                ("mariadb-10.11", False)])
def test_python_api_gives_the_maxwell_lines_fields(tmp_path, server, compression):
    """``change_records`` gives each change's order key, XID, GTID, thread and commit as
    ``--format maxwell`` writes them (the one transaction loop behind both)."""
    from binlog_schema import ChangeRecord, change_records
    from binlog_schema.format.stream import BinlogReader
    settings = dict(TX_SPEC["settings"], compression=compression)
    if server != "mysql-8.0":
        settings = {k: v for k, v in settings.items() if k != "compression"}
    if server == "mysql-5.7":   # (no binlog_row_metadata: @N names)
        settings = {k: v for k, v in settings.items() if k != "binlog_row_metadata"}
    spec = dict(TX_SPEC, server=server, settings=settings)
    path = write(tmp_path, spec, "binlog.000042")
    got = list(change_records(path))
    mx = lines(path, "maxwell")
    assert len(got) == len(mx) == 17 and all(isinstance(c, ChangeRecord) for c in got)
    assert [c.order_key for c in got] == [r["order_key"] for r in mx]
    assert [c.xid for c in got] == [r.get("xid") for r in mx]
    assert [c.gtid for c in got] == [r.get("gtid") for r in mx]
    assert [c.thread_id for c in got] == [r.get("thread_id") for r in mx]
    assert [c.timestamp for c in got] == [r["ts"] for r in mx]
    assert [(c.table, c.operation) for c in got] == [(r["table"], r["type"]) for r in mx]
    assert all(c.committed for c in got)   # every transaction's end is in the file
    assert got[0].after == ({"@1": 0, "@2": "x" * 30} if server == "mysql-5.7" else
                            {"id": 0, "s": "x" * 30})
    deb = lines(path, "debezium")
    assert [c.transaction_id for c in got] == [d["transaction"]["id"] for d in deb]
    assert [c.offset for c in got] == [d["source"]["pos"] for d in deb]
    assert all(c.commit_timestamp is not None for c in got)
    assert len({c.begin for c in got[:15]}) == 1 and got[15].begin > got[14].offset
    # a reader instead of a path: the same records
    assert list(change_records(BinlogReader(path, decode="lazy"))) == got


def test_python_api_bound_spills_and_keeps_its_records(tmp_path):
    """A transaction's records wait for its commit, at most ``limit`` in memory, the rest
    pickled to a temporary file; ``wait=False`` yields at once with ``committed=None``."""
    from binlog_schema.changes.transactions import Held, change_records
    path = write(tmp_path, TX_SPEC, "binlog.000001")
    kept = list(change_records(path))
    small = list(change_records(path, limit=2))
    assert small == kept and {c.xid for c in kept} == {500, 501}
    at_once = list(change_records(path, wait=False))
    assert [c.order_key for c in at_once] == [c.order_key for c in kept]
    assert {c.committed for c in at_once} == {None} and {c.xid for c in at_once} == {None}
    h = Held(limit=3)
    for i in range(8):
        h.add({"i": i})
    assert h.spill is not None and len(h) == 8 and len(h.items) == 2
    assert list(h.drain()) == [{"i": i} for i in range(8)] and len(h) == 0


def test_python_api_transaction_cut_by_the_end_of_the_file(tmp_path):
    """A file that ends inside a transaction: its records come without XID, uncommitted."""
    from binlog_schema.changes.transactions import change_records
    path = write(tmp_path, TX_SPEC, "binlog.000001")
    data = open(path, "rb").read()
    last_xid = max(e["offset"] for e in events(path) if e["type"] == "XID_EVENT")
    cut = tmp_path / "binlog.000002"
    cut.write_bytes(data[:last_xid])
    got = list(change_records(str(cut)))
    assert [c.committed for c in got] == [True] * 15 + [False] * 2
    assert [c.xid for c in got] == [500] * 15 + [None] * 2
    assert got[-1].commit_timestamp is None and got[-1].order_key.startswith("0000000002.")


def test_python_api_schema_versions_as_maxwell_schema_id(tmp_path):
    from binlog_schema.changes.transactions import change_records
    from binlog_schema.changes.schema import history_for
    from .test_schema_rows import SCHEMA, spec
    path = write(tmp_path, spec("mysql-8.0", "MINIMAL"), "binlog.000001")
    (tmp_path / "schema.sql").write_text(SCHEMA)
    history = history_for([path], [str(tmp_path / "schema.sql")])
    got = list(change_records(path, schema=history))
    assert [(c.table, c.operation, c.schema_version) for c in got] == [
        ("orders", "insert", 1), ("orders", "insert", 1), ("orders", "update", 2),
        ("orders", "delete", 2), ("other", "insert", 1)]
    assert got[2].primary_key == ["id"] and got[2].after["id"] == 1
    assert {c.schema_version for c in change_records(path)} == {None}

"""One transaction-boundary rule (changes/statements.py's table, changes/transactions.py's
Boundary), read the same by every reader: the table-driven check that the ``Transactions``
model, the Spark pre-scan (its byte-level recognition and its cuts) and split decoding (the
``events`` table's transaction column) place every statement of the table alike, in binlogs
built with the declarations (tests/spark/test_transaction_boundaries_spark.py adds the Spark
SQL form)."""

from __future__ import annotations

import io
import os

import pytest

from binlog_schema.changes.statements import BEGINS, BELONGS, ENDS, statement_role
from binlog_schema.changes.transactions import (CLOSES, INSIDE, OPENS, Transactions)
from binlog_schema.format.facts.codes import FORMAT_DESCRIPTION_EVENT, GTID_KINDS, QUERY_EVENT
from binlog_schema.pipeline.tasks.decode import decode_split
from binlog_schema.pipeline.tasks.prescan import _boundary_facts, prescan
from binlog_schema.pipeline.tasks.split import Split
from binlog_schema.pipeline.tasks.split_context import file_context
from binlog_schema.format.scanning import Blocks
from binlog_schema.format.stream import BinlogReader
from binlog_schema.format.writer import BinlogWriter
from binlog_schema.synthetic import generate

# (statement, its role): what MySQL and MariaDB write, and the forms a user types
STATEMENTS = [
    ("BEGIN", BEGINS), ("begin", BEGINS), ("BEGIN WORK", BEGINS), ("  /* c */ BEGIN", BEGINS),
    ("-- c\nBEGIN", BEGINS), ("# c\n\tBEGIN", BEGINS), ("START TRANSACTION", BEGINS),
    ("start transaction", BEGINS), ("START TRANSACTION WITH CONSISTENT SNAPSHOT", BEGINS),
    ("XA START X'7831',X'',1", BEGINS), ("xa begin 'x'", BEGINS),
    ("COMMIT", ENDS), ("commit", ENDS), ("COMMIT WORK", ENDS), ("/* c */ COMMIT", ENDS),
    ("ROLLBACK", ENDS), ("rollback work", ENDS), ("XA COMMIT X'7831',X'',1", ENDS),
    ("XA ROLLBACK X'7832',X'',1", ENDS), ("XA PREPARE 'x'", ENDS),
    ("SAVEPOINT `sp1`", BELONGS), ("savepoint a", BELONGS), ("ROLLBACK TO `sp1`", BELONGS),
    ("rollback to savepoint a", BELONGS), ("ROLLBACK WORK TO SAVEPOINT a", BELONGS),
    ("RELEASE SAVEPOINT a", BELONGS), ("XA END X'7831',X'',1", BELONGS),
    ("INSERT INTO t VALUES (1)", None), ("insert into t values (2)", None),
    ("ALTER TABLE t ADD COLUMN c INT", None), ("BEGIN NOT ATOMIC SELECT 1; END", None),
    ("CREATE TABLE begin_log (id INT)", None), ("/* BEGIN */ UPDATE t SET c = 1", None),
    ("BEGINNING", None), ("COMMITTED", None),
]
INSERT = "INSERT INTO t VALUES (9)"

# Scenarios: the events after the file's own (``S``: the statement under test), and for each
# role where the transactions are: per event, the index of the event that began its
# transaction, None outside any (a statement of its own, an end with none open...)
SCENARIOS = {
    "outside": (["S", INSERT, "XID", "BEGIN"], {
        BEGINS: [0, 0, 0, 3], ENDS: [None, None, None, 3],
        BELONGS: [None, None, None, 3], None: [None, None, None, 3]}),
    "begun": (["BEGIN", "S", INSERT, "XID"], {
        BEGINS: [0, 1, 1, 1], ENDS: [0, 0, None, None],
        BELONGS: [0, 0, 0, 0], None: [0, 0, 0, 0]}),
    "mysql gtid": (["GTID", "S", INSERT, "XID"], {   # (a DDL group unless BEGIN follows)
        BEGINS: [0, 0, 0, 0], ENDS: [0, 0, None, None],
        BELONGS: [0, 0, 0, None], None: [0, 0, None, None]}),
    "mariadb gtid": (["GTID", "S", INSERT, "XID"], {   # (no BEGIN: the GTID is it)
        BEGINS: [0, 0, 0, 0], ENDS: [0, 0, None, None],
        BELONGS: [0, 0, 0, 0], None: [0, 0, 0, 0]}),
    "mariadb standalone": (["GTID standalone", "S", INSERT, "XID"], {
        BEGINS: [0, 0, 0, 0], ENDS: [0, 0, None, None],
        BELONGS: [0, 0, 0, None], None: [0, 0, None, None]}),
}
SERVER = {"outside": "mysql-5.7", "begun": "mysql-5.7", "mysql gtid": "mysql-5.7",
          "mariadb gtid": "mariadb-10.11", "mariadb standalone": "mariadb-10.11"}


def _templates(server):
    """The records of a small synthetic file of ``server``: its FORMAT_DESCRIPTION, a GTID,
    a QUERY, an XID (values to build others from)."""
    spec = {"server": server, "settings": {"gtid_mode": "ON"} if "mysql" in server else {},
            "database": "shop",
            "tables": [{"name": "t", "columns": [{"name": "id", "type": "INT",
                                                  "nullable": False}], "primary_key": ["id"]}],
            "transactions": [{"changes": [{"insert": "t", "rows": [{"id": 1}]}]},
                             {"ddl": "ALTER TABLE t ADD COLUMN v INT"}]}
    out = {}
    for r in BinlogReader(io.BytesIO(generate(spec))):
        key = "GTID" if r.kind in GTID_KINDS else r.type_name
        out.setdefault(key, r)
    return out


_TEMPLATES: dict = {}


def write(path, server, events) -> list:
    """A binlog of ``server`` at ``path``: its FORMAT_DESCRIPTION, then ``events`` (a
    statement's text, or "GTID", "GTID standalone", "XID"), built by the declarations;
    returns their offsets."""
    t = _TEMPLATES.get(server) or _TEMPLATES.setdefault(server, _templates(server))
    offsets = []
    with BinlogWriter(str(path)) as w:
        w.write(t["FORMAT_DESCRIPTION_EVENT"].value)
        for e in events:
            if e.startswith("GTID"):
                rec = t["GTID"]
                body = dict(rec.value["body"])
                if "flags2" in body:
                    body["flags2"] = ["STANDALONE", "DDL"] if e.endswith("standalone") \
                        else ["TRANSACTIONAL"]
            elif e == "XID":
                rec, body = t["XID_EVENT"], t["XID_EVENT"].value["body"]
            else:
                rec = t["QUERY_EVENT"]
                body = dict(rec.value["body"], query=e)
            offsets.append(w.write_record(rec, {**rec.value, "body": body}))
    return offsets


def by_model(path) -> list:
    """Where the ``Transactions`` model places each event (its transaction's first offset)."""
    txs, out = Transactions(), []
    for rec in BinlogReader(str(path)):
        if rec.kind == FORMAT_DESCRIPTION_EVENT:
            continue
        was = txs.boundary.open
        ended = txs.feed(rec, rec.offset)
        step = txs.last
        out.append(txs.open.begin if step in (OPENS, INSIDE) else
                   ended.begin if step == CLOSES and was else None)
    return out


def by_split_decoding(path) -> list:
    """Where split decoding places each event: the ``events`` table's ``transaction``."""
    size = os.path.getsize(path)
    rows = [t[2] for t in decode_split(Split(str(path), size, 0, 0, size))
            if t[0] == "event"]
    return [r[12] for r in rows if r[4] != "FORMAT_DESCRIPTION_EVENT"]


def by_prescan(path, offset) -> object:
    """The role the pre-scan reads from the bytes of the QUERY at ``offset``."""
    ctx = file_context(open(path, "rb"))
    with open(path, "rb") as f:
        blocks = Blocks(f)
        _, code, size = blocks.header(offset)
        assert code == QUERY_EVENT
        return _boundary_facts(blocks, offset, size, QUERY_EVENT, ctx)[0]


@pytest.mark.parametrize("statement,role", STATEMENTS)
def test_every_reader_places_the_statement_alike(tmp_path, statement, role):
    assert statement_role(statement) is role
    assert statement_role(statement.encode()) is role
    for name, (events, expected) in SCENARIOS.items():
        path = tmp_path / f"{name.replace(' ', '-')}.bin"
        events = [statement if e == "S" else e for e in events]
        offsets = write(path, SERVER[name], events)
        want = [None if i is None else offsets[i] for i in expected[role]]
        assert by_model(path) == want, name
        assert by_split_decoding(path) == want, name
        assert by_prescan(path, offsets[events.index(statement)]) is role, name


@pytest.mark.parametrize("begin", ["START TRANSACTION", "begin", "/* app */ BEGIN"])
def test_prescan_cuts_where_a_statement_begins_a_transaction(tmp_path, begin):
    """A file whose transactions begin with another form of BEGIN (no GTIDs) is cut there,
    as at BEGIN (before, a START TRANSACTION file stayed one split)."""
    path = tmp_path / "f.bin"
    events = [e for _ in range(60) for e in (begin, INSERT, INSERT, "XID")]
    offsets = write(path, "mysql-5.7", events)
    begins = {o for o, e in zip(offsets, events) if e == begin}
    splits = prescan(str(path), os.path.getsize(path), 2000)
    assert len(splits) > 3
    assert all(s.start in begins for s in splits[1:])

"""The flashback and sql commands over real files: the files read backwards by transaction
(changes/backwards.py), the inverted binlog (flashback_file.py), the inverse SQL, the filters.

- ``flashback`` twice gives back every selected rows event byte for byte (positions and CRC32
  aside), for MySQL and MariaDB files, compressed payloads included;
- reading backwards a batch of rows events at a time (a tiny batch forces it on small files)
  writes the same bytes as reading each transaction whole;
- ``sql --flashback`` is the forward ``sql`` undone: per row, an INSERT's inverse is a DELETE
  of the same key, in reverse order;
- filters select what they say; refusals leave no output file."""

from __future__ import annotations

import os

import pytest

from binlog_schema.output.flashback_file import flashback
from binlog_schema.changes import backwards
from binlog_schema.changes.flashback import FlashbackError
from binlog_schema.changes.selection import Selection
from binlog_schema.format.facts import codes
from binlog_schema.format.facts.flavor import checksum_length
from binlog_schema.output.sql_write import sql_statements
from binlog_schema.format.stream import BinlogReader

from ..conftest import corpus_file

FILES = [
    "mysql-binlog-connector-java/mysql-bin.checksum-crc32",  # 5.7 v2, autocommit MyISAM
    "mysql-binlog-connector-java/mysql-bin.checksum-none",
    "canal/binlog/mysql-bin.000001",                        # 5.1 v1 rows, BEGIN ... XID
    "mysql-cdc-rs/8.0/02_query_bigger/binlog.000733",       # 8.0 write/update/delete
    "rust_mysql_common/json-opaque.binlog",                 # 8 rows events in one statement
    "rust_mysql_common/transaction_compression.000001",     # TRANSACTION_PAYLOAD
    "rust_mysql_common/mariadb-bin.000001",                 # MariaDB GTID -> BEGIN
    "rust_mysql_common/mysql-enum-string-set.000001",       # FULL metadata, updates
]


def rows_events(path):
    """The rows events of a file (those inside payloads too), each as its bytes without the
    header's event_size and log_pos and without the CRC32, in file order."""
    out = []
    for rec in BinlogReader(path):
        for r in (rec,) if rec.inner is None else rec.inner:
            if r.kind in codes.ROWS_KINDS:
                raw = bytes(r.raw)
                end = len(raw) - checksum_length(r.kind, None, r.ctx)
                out.append(raw[:9] + raw[17:end])   # (no event_size: payload events have no CRC)
    return out


@pytest.mark.parametrize("name", FILES)
def test_flashback_twice_gives_back_the_rows_events(name, tmp_path):
    path = corpus_file(name)
    once, twice = tmp_path / "once.bin", tmp_path / "twice.bin"
    counts = flashback([path], once)
    assert counts["transactions"] > 0
    flashback([once], twice)
    original = rows_events(path)
    if counts["stopped"] is not None:   # (a schema change ended the range: what is before it)
        original = [r for r in original][:counts["rows_events"]]
    assert len(rows_events(once)) == len(original) == counts["rows_events"]
    assert rows_events(twice) == original
    # the inverse is not the original (something was inverted)
    assert rows_events(once) != original


@pytest.mark.parametrize("name", FILES[2:5])
def test_reading_backwards_by_batches_writes_the_same_bytes(name, tmp_path, monkeypatch):
    path = corpus_file(name)
    whole, batched = tmp_path / "whole.bin", tmp_path / "batched.bin"
    flashback([path], whole)
    monkeypatch.setattr(backwards, "BATCH", 1)   # every transaction read statement by statement
    flashback([path], batched)
    assert batched.read_bytes() == whole.read_bytes()


def test_the_backward_pass_opens_each_file_once_and_reads_little(tmp_path, monkeypatch):
    """Reading back to front, each transaction is read from the file opened once for the
    pass (not opened anew per transaction), in a block of about its size, not the reader's
    64 KiB: over a file of sixty transactions, the bytes read stay near the file's."""
    from binlog_schema.format import scanning, stream
    path = corpus_file("mysql-binlog-connector-java/mysql-bin.checksum-crc32")
    index = backwards.index_files([path], Selection())
    opened, read = [], []
    real_open, real_read = stream._open, scanning.Blocks._read
    monkeypatch.setattr(stream, "_open", lambda source: opened.append(source) or
                        real_open(source))
    monkeypatch.setattr(scanning.Blocks, "_read", lambda self, pos, n: read.append(
        len(data := real_read(self, pos, n))) or data)
    txs = 0
    for tx in backwards.transactions_backwards(index):
        txs += 1
        for st in tx.statements():
            list(st.rows())
    assert txs >= 50
    assert not [s for s in opened if isinstance(s, (str, bytes)) or hasattr(s, "__fspath__")]
    size = os.path.getsize(path)
    assert sum(read) < 4 * size, (sum(read), size)   # (64 KiB blocks: 30 times)


def test_sql_flashback_undoes_the_forward_sql():
    path = corpus_file("rust_mysql_common/mariadb-bin.000001")
    forward = [s for s in sql_statements(path) if s.startswith(("INSERT", "UPDATE", "DELETE"))]
    back = [s for s in sql_statements(path, flashback=True)
            if s.startswith(("INSERT", "UPDATE", "DELETE"))]
    assert len(forward) == len(back) == 2
    # the last insert is undone first, by a delete of its primary key
    assert forward[-1].startswith("INSERT INTO `toddy_test`.`outbox`") and "(63," in forward[-1]
    assert back[0] == "DELETE FROM `toddy_test`.`outbox` WHERE `id` = 63;"
    assert back[1] == "DELETE FROM `toddy_test`.`outbox` WHERE `id` = 62;"


def test_sql_flashback_of_an_update_sets_the_before_image_back():
    path = corpus_file("rust_mysql_common/mysql-enum-string-set.000001")
    forward = [s for s in sql_statements(path) if s.startswith("UPDATE")]
    back = [s for s in sql_statements(path, flashback=True) if s.startswith("UPDATE")]
    assert len(forward) == len(back) == 1
    # forward sets f1 to 'field1' where it was the digits; the inverse sets the digits back
    assert "SET `f1` = _utf8mb4'field1'" in forward[0]
    assert "SET `f1` = _utf8mb4'0123456789" in back[0] and "`f1` <=> _utf8mb4'field1'" in back[0]


def test_filters_select_tables_and_operations(tmp_path):
    path = corpus_file("mysql-cdc-rs/8.0/02_query_bigger/binlog.000733")
    every = flashback([path], tmp_path / "all.bin")
    deletes = flashback([path], tmp_path / "ins.bin",
                        Selection.from_options(operation="insert"))
    assert 0 < deletes["rows_events"] < every["rows_events"]
    # inverted inserts are deletes only
    kinds = {r.kind for r in BinlogReader(tmp_path / "ins.bin") if r.kind in codes.ROWS_KINDS}
    assert kinds and kinds <= {codes.DELETE_ROWS_EVENT}
    none = flashback([path], tmp_path / "none.bin", Selection.from_options(table="no.such"))
    assert none["transactions"] == 0


def test_a_refusal_leaves_no_output(tmp_path):
    path = corpus_file("rust_mysql_common/json.binlog.000001")   # a PARTIAL_UPDATE_ROWS event
    out = tmp_path / "out.bin"
    with pytest.raises(FlashbackError) as e:
        flashback([path], out)
    assert "PARTIAL_UPDATE_ROWS" in str(e.value)
    assert not out.exists() and not list(tmp_path.iterdir())


def test_a_schema_change_ends_the_range(tmp_path):
    path = corpus_file("mysql-cdc-rs/8.0/folder/binlog.000693")
    said = []
    counts = flashback([path], tmp_path / "out.bin", note=said.append)
    assert counts["stopped"] is not None and counts["stopped"][1] == 53928
    assert "ALTER TABLE" in said[0] and "stops before it" in said[0]

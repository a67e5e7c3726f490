"""The connection-phase packets (binlog_schema.wire.protocol.connection) against the bytes a real
MariaDB server and real clients exchanged (specs/protocol/connection.yaml), both ways; the
password scrambles (binlog_schema.wire.protocol.auth) against a real client's; the SQL answers of
``serve`` (binlog_schema.wire.replication.server_sql) over a folder of synthetic fixtures."""

from __future__ import annotations

import pathlib

import construct as c
import pytest
import yaml

from binlog_schema.wire.protocol import auth, connection
from binlog_schema.wire.replication import server_sql
from binlog_schema.wire.replication.server_files import BinlogFolder, parse_gtid_state
from binlog_schema.format.event_forms import from_plain, to_plain

SPEC = pathlib.Path(__file__).resolve().parents[2] / "specs" / "protocol" / "connection.yaml"
VECTORS = [d for d in yaml.safe_load_all(SPEC.read_text(encoding="utf-8")) if d]


def _vector(name):
    return next(d for d in VECTORS if d["name"] == name)


@pytest.mark.parametrize("doc", VECTORS, ids=[d["name"] for d in VECTORS])
def test_vector_both_ways(doc):
    decl = getattr(connection, doc["packet"])
    data = bytes.fromhex(doc["hex"])
    context = doc.get("context") or {}
    assert to_plain(decl.parse(data, **context)) == doc["expect"]
    assert decl.build(from_plain(doc["expect"]), **context) == data


def test_every_declared_packet_has_a_vector():
    declared = {"HandshakeV10", "HandshakeResponse41", "AuthSwitchRequest", "OkPacket",
                "ErrPacket", "EofPacket", "ComQuery", "ComPing", "ComQuit", "ColumnCount",
                "ColumnDefinition41", "TextRow", "ComStmtPrepare", "StmtPrepareOk",
                "ComStmtExecute", "ComStmtClose", "ComStmtReset", "BinaryRow", "StatementHead"}
    assert declared <= {d["packet"] for d in VECTORS}


def test_native_scramble_is_the_real_clients():
    greeting = connection.HandshakeV10.parse(
        bytes.fromhex(_vector("handshake-v10-mariadb-10.11")["hex"]))
    nonce = greeting.auth_data_1 + greeting.auth_data_2[:12]
    reply = connection.HandshakeResponse41.parse(
        bytes.fromhex(_vector("handshake-response-41-pymysql")["hex"]))
    assert auth.native_scramble(b"secret", nonce) == reply.auth_response
    assert auth.native_check(reply.auth_response, nonce, b"secret")
    assert not auth.native_check(reply.auth_response, nonce, b"Secret")
    assert not auth.native_check(reply.auth_response[:-1], nonce, b"secret")
    assert auth.native_check(b"", nonce, b"") and not auth.native_check(b"x" * 20, nonce, b"")


def test_sha2_scramble_checks():
    nonce = auth.new_nonce()
    assert len(nonce) == 20 and b"\0" not in nonce
    token = auth.sha2_scramble(b"pw", nonce)
    assert len(token) == 32
    assert auth.sha2_check(token, nonce, b"pw") and not auth.sha2_check(token, nonce, b"pv")
    assert not auth.sha2_check(token, auth.new_nonce(), b"pw")


def test_result_set_packets_build_and_parse():
    row = {"values": ["1", None, "", "x" * 300, "✓"]}
    data = connection.TextRow.build(row, columns=5)
    assert data[:4] == b"\x011\xfb\x00" and data[4:7] == b"\xfc\x2c\x01"
    assert to_plain(connection.TextRow.parse(data, columns=5)) == row
    end = {"header": connection.EOF_HEADER, "affected_rows": 0, "last_insert_id": 0,
           "status": ["AUTOCOMMIT"], "warnings": 0, "info": ""}
    assert connection.OkPacket.build(end) == b"\xfe\x00\x00\x02\x00\x00\x00"
    with pytest.raises(c.ValidationError):
        connection.OkPacket.build(dict(end, header=0x42))
    err = {"error_code": 1236, "sql_state": None, "message": "no"}
    assert connection.ErrPacket.build(err) == b"\xff\xd4\x04no"


def test_truncated_packets_raise_typed_errors():
    from binlog_schema.format.errors import BinlogError
    from binlog_schema.wire.replication.server_auth import parse_packet
    data = bytes.fromhex(_vector("handshake-response-41-pymysql")["hex"])
    for cut in (0, 5, 33, 40, len(data) - 3):
        with pytest.raises(BinlogError):
            parse_packet(connection.HandshakeResponse41, data[:cut])
    with pytest.raises(BinlogError):
        parse_packet(connection.TextRow, b"\x05ab", columns=1)


# ------------------------------------------------------------------ serve's SQL answers


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    from binlog_schema.synthetic.writer import generate
    from binlog_schema.synthetic.randomspec import random_spec
    folder = tmp_path_factory.mktemp("served")
    spec = random_spec(seed=3, tables=2, transactions=6, flavor="mariadb-10.11")
    generate(spec, str(folder / "mariadb-bin.000001"))
    return server_sql.Session(BinlogFolder(folder), 9, "10.11.6-MariaDB-binlog-schema")


def test_connect_time_queries_are_answered(session):
    name = session.folder.names()[0]
    size = session.folder.size(name)
    answer = server_sql.answer
    assert answer(session, "SHOW VARIABLES LIKE 'SERVER_ID'").rows == [["server_id", "9"]]
    assert answer(session, "SET @master_binlog_checksum= @@global.binlog_checksum") == \
        server_sql.Ok()
    checksum = answer(session, "SELECT @master_binlog_checksum").rows[0][0]
    assert checksum == ("CRC32" if session.folder.description(name)["checksum"] else "NONE")
    assert answer(session, "SHOW GLOBAL VARIABLES LIKE 'BINLOG_CHECKSUM'").rows == [
        ["binlog_checksum", checksum]]
    assert answer(session, "SHOW MASTER STATUS").rows == [[name, str(size), "", ""]]
    assert answer(session, "SHOW BINARY LOGS").rows == [[name, str(size)]]
    assert int(answer(session, "SELECT UNIX_TIMESTAMP()").rows[0][0]) > 1_700_000_000
    assert answer(session, "SELECT @@version_comment limit 1").rows == [
        [server_sql.VERSION_COMMENT]]
    assert answer(session, "SET @slave_connect_state='0-1-5'") == server_sql.Ok()
    assert session.user_vars["slave_connect_state"] == "0-1-5"
    assert answer(session, f"SELECT binlog_gtid_pos('{name}',4)").rows == [[""]]
    assert answer(session, "SELECT binlog_gtid_pos('nope',4)").rows == [[None]]
    for ok in ("SET NAMES utf8", "SET AUTOCOMMIT = 0", "SET @mariadb_slave_capability=4",
               "SET @master_heartbeat_period= 30000001024"):
        assert answer(session, ok) == server_sql.Ok(), ok
    meta = answer(session, "SHOW VARIABLES LIKE 'BINLOG_ROW_METADATA';").rows
    assert meta[0][1] in ("FULL", "MINIMAL", "NO_LOG")


def test_other_queries_get_an_error_naming_them(session):
    for sql in ("SELECT * FROM mysql.user", "DROP TABLE x", "SET GLOBAL read_only=1",
                "SELECT @@no_such_variable"):
        got = server_sql.answer(session, sql)
        assert isinstance(got, server_sql.Err), sql
        assert got.code in (server_sql.ER_UNKNOWN_QUERY, server_sql.ER_UNKNOWN_SYSTEM_VARIABLE)
    assert "DROP TABLE x" in server_sql.answer(session, "DROP TABLE x").message


def test_gtid_state_text():
    assert parse_gtid_state("0-1-5, 2-3-9") == {0: (1, 5), 2: (3, 9)}
    assert parse_gtid_state("") == {}
    with pytest.raises(ValueError):
        parse_gtid_state("0-1")

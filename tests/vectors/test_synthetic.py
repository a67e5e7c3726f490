"""The fixture generator (binlog_schema/fixtures): the DDL parser, column resolution and value
checks, the rejection of impossible specs, the file layout of every server profile, what the
package reads back from a generated file, random mode, the CLI and the golden vectors."""

from __future__ import annotations

import collections
import decimal
import io
import subprocess
import sys

import pytest
import yaml

from binlog_schema.output.roundtrip import roundtrip_file
from binlog_schema.synthetic import (SERVERS, SpecError, generate, load_spec, random_spec,
                                    server_for, tables_from_ddl)
from binlog_schema.changes.schema.ddl.column_types import parse_column_type
from binlog_schema.changes.schema.ddl.tokens import DDLError
from binlog_schema.synthetic.writer import Generator
from binlog_schema.synthetic.sql import create_table, expected_text
from binlog_schema.synthetic.vector import event_vector
from binlog_schema.format.facts.charsets import collation_id, default_collation
from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.format.stream import BinlogReader
from binlog_schema.synthetic.vector_checks import check_vector, iter_vectors

from ..conftest import ROOT

EXAMPLES = ROOT / "specs" / "fixtures" / "examples"


def spec_of(server="mariadb-10.11", tables=None, transactions=(), **settings):
    return {"server": server, "settings": settings, "database": "db",
            "tables": tables or [T1], "transactions": list(transactions)}


T1 = {"name": "t1", "columns": [
    {"name": "id", "type": "INT", "nullable": False},
    {"name": "ti", "type": "TINYINT"},
    {"name": "s", "type": "VARCHAR(5)", "charset": "utf8mb4"},
    {"name": "e", "type": "ENUM('a','b')"},
    {"name": "d", "type": "DATE"}], "primary_key": ["id"]}


def records(data):
    for rec in BinlogReader(data):
        yield rec
        yield from rec.inner or ()


def kinds(data):
    return [r.type_name for r in records(data)]


# ====================================================================== DDL


DDL = """
/*!40101 SET NAMES utf8mb4 */;
CREATE DATABASE shop;
USE shop;
-- a comment
CREATE TABLE IF NOT EXISTS `orders` (
  `id` bigint unsigned NOT NULL AUTO_INCREMENT,
  `code` char(8) CHARACTER SET latin1 COLLATE latin1_bin NOT NULL DEFAULT 'x',
  `note` varchar(100) COLLATE utf8mb4_unicode_ci DEFAULT NULL COMMENT 'free ''text''',
  `price` decimal(10,2) unsigned zerofill,
  `state` enum('new','paid','sent') NOT NULL DEFAULT 'new',
  `tags` set('a','b') DEFAULT '',
  `body` mediumtext,
  `created` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  `flag` bit(3) DEFAULT b'101',
  `hidden` int INVISIBLE,
  `pos` point /*!80003 SRID 4326 */,
  PRIMARY KEY (`id`),
  UNIQUE KEY `uk_code` (`code`),
  KEY `ix_note` (`note`(10)),
  FULLTEXT KEY `ft` (`body`),
  CONSTRAINT `fk` FOREIGN KEY (`id`) REFERENCES `other` (`id`) ON DELETE CASCADE,
  CHECK (`price` > 0)
) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci
  ROW_FORMAT=DYNAMIC;
CREATE TABLE t2 (a INT KEY, b SERIAL, c TEXT(300), d DOUBLE PRECISION, e NATIONAL CHAR(3))
PARTITION BY HASH(a) PARTITIONS 4;
"""


def test_ddl_parser_reads_create_table_with_types_attributes_keys_and_options():
    t, t2 = tables_from_ddl(DDL)
    assert t["name"] == "orders" and t["database"] == "shop"
    assert t["charset"] == "utf8mb4" and t["collation"] == "utf8mb4_general_ci"
    cols = {c["name"]: c for c in t["columns"]}
    assert cols["id"] == {"name": "id", "type": "BIGINT", "unsigned": True, "nullable": False,
                          "auto_increment": True}
    assert cols["code"]["charset"] == "latin1" and cols["code"]["collation"] == "latin1_bin"
    assert cols["code"]["default"] == "x" and cols["note"]["comment"] == "free 'text'"
    assert cols["price"]["type"] == "DECIMAL(10,2)" and cols["price"]["zerofill"]
    assert cols["state"]["members"] == ["new", "paid", "sent"]
    assert cols["created"]["default"] == {"sql": "CURRENT_TIMESTAMP(3)"}
    assert cols["flag"]["default"] == 5 and cols["hidden"]["invisible"] is True
    assert cols["pos"]["srid"] == 4326 and cols["pos"]["type"] == "POINT"
    assert t["primary_key"] == ["id"] and t["unique_keys"] == [["code"]]
    assert t["indexes"] == [["note(10)"], ["body"]]
    assert t2["database"] == "shop" and t2["primary_key"] == ["a"]
    c2 = {c["name"]: c for c in t2["columns"]}
    assert c2["b"]["type"] == "BIGINT" and c2["b"]["unsigned"] and not c2["b"]["nullable"]
    assert t2["unique_keys"] == [["b"]]                       # SERIAL is UNIQUE
    assert c2["c"]["type"] == "TEXT(300)" and c2["d"]["type"] == "DOUBLE"
    assert c2["e"] == {"name": "e", "type": "CHAR(3)", "charset": "utf8mb3"}


def test_ddl_reads_show_create_table_output_and_every_type_name():
    show = ("Table\tCreate Table\nt\tCREATE TABLE `t` (\n  `a` int(11) DEFAULT NULL\n) "
            "ENGINE=InnoDB DEFAULT CHARSET=latin1")
    (t,) = tables_from_ddl(show, database="d")
    assert t["columns"] == [{"name": "a", "type": "INT(11)", "default": None}]
    names = ["TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT", "DECIMAL(5,2)",
             "NUMERIC(4)", "FLOAT", "FLOAT(30)", "DOUBLE", "REAL", "BIT(7)", "BOOL", "DATE",
             "TIME(2)", "DATETIME(6)", "TIMESTAMP(1)", "YEAR", "CHAR(3)", "VARCHAR(9)",
             "BINARY(2)", "VARBINARY(20)", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB",
             "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM('x')", "SET('y','z')", "JSON",
             "GEOMETRY", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING",
             "MULTIPOLYGON", "GEOMETRYCOLLECTION", "INET4", "INET6", "UUID", "VECTOR(3)",
             "CHARACTER VARYING(4)", "LONG VARCHAR", "INT1", "INT8", "FIXED(3,1)", "SERIAL"]
    ddl = "CREATE TABLE t (" + ", ".join(f"c{i} {n}" for i, n in enumerate(names)) + ")"
    (t,) = tables_from_ddl(ddl, "d")
    got = [c["type"] for c in t["columns"]]
    assert got[:4] == ["TINYINT", "SMALLINT", "MEDIUMINT", "INT"]
    assert got[names.index("INTEGER")] == "INT" and got[names.index("REAL")] == "DOUBLE"
    assert got[names.index("BOOL")] == "TINYINT(1)"
    assert got[names.index("CHARACTER VARYING(4)")] == "VARCHAR(4)"
    assert got[names.index("LONG VARCHAR")] == "MEDIUMTEXT"
    assert got[names.index("FIXED(3,1)")] == "DECIMAL(3,1)"
    assert got[names.index("SET('y','z')")] == "SET('y','z')"


@pytest.mark.parametrize("ddl, where", [
    ("CREATE TABLE t (a INT,\n b FOO)", "line 2"),
    ("CREATE TABLE t (a INT, b INT AS (a + 1))", "generated columns"),
    ("CREATE TABLE t (a VARCHAR(10) CHARACTER SET)", "line 1"),
    ("CREATE TABLE t (a INT", "expected"),
    ("CREATE TABLE t (a ENUM(1, 2))", "quoted strings"),
])
def test_ddl_errors_name_the_position(ddl, where):
    with pytest.raises(DDLError, match=where):
        tables_from_ddl(ddl, "d")


def test_column_type_grammar_is_shared_with_specs():
    assert parse_column_type("decimal(10, 2) unsigned") == {"type": "DECIMAL(10,2)",
                                                            "unsigned": True}
    assert parse_column_type("varchar(3) character set latin1 collate latin1_bin") == {
        "type": "VARCHAR(3)", "charset": "latin1", "collation": "latin1_bin"}
    assert parse_column_type("ENUM('it''s', 'b\\\\c')")["members"] == ["it's", "b\\c"]


# ====================================================================== collations, columns


def test_collation_names_map_to_ids_per_flavor():
    assert collation_id("utf8mb4_0900_ai_ci", "mysql") == 255
    assert collation_id("utf8mb4_ja_0900_as_cs", "mysql") == 303
    assert collation_id("utf8_general_ci", "mysql") == 33          # utf8 = utf8mb3
    assert collation_id("latin1_swedish_ci", "mariadb") == 8
    assert collation_id("utf8mb4_uca1400_ai_ci", "mariadb") == 2304
    assert collation_id("utf8mb4_nopad_bin", "mariadb") == 1070
    with pytest.raises(ValueError):
        collation_id("utf8mb4_0900_ai_ci", "mariadb")
    with pytest.raises(ValueError):
        collation_id("utf8mb4_uca1400_ai_ci", "mysql")
    for server, default in [("mysql-8.0", "utf8mb4_0900_ai_ci"),
                            ("mysql-5.7", "utf8mb4_general_ci"),
                            ("mariadb-10.11", "utf8mb4_general_ci")]:
        assert default_collation("utf8mb4", server_for(server).default_collations) == default


def columns_of(server, cols):
    fx = load_spec({"server": server, "database": "d",
                    "tables": [{"name": "t", "columns": cols}]})
    return [c.binlog for c in fx.tables[("d", "t")].columns]


def test_sql_types_become_the_table_map_columns_the_server_writes():
    cols = columns_of("mariadb-10.11", [
        {"name": "a", "type": "VARCHAR(10)", "charset": "utf8mb4"},
        {"name": "b", "type": "CHAR(10)"},
        {"name": "c", "type": "TEXT(300)", "charset": "latin1"},
        {"name": "d", "type": "BLOB(70000)"},
        {"name": "e", "type": "SET", "members": [f"m{i}" for i in range(33)]},
        {"name": "f", "type": "ENUM", "members": [f"m{i}" for i in range(300)]},
        {"name": "g", "type": "VARCHAR(100)", "compressed": True},
        {"name": "h", "type": "JSON"},
        {"name": "i", "type": "POINT"},
        {"name": "j", "type": "YEAR"},
        {"name": "k", "type": "INET6"},
        {"name": "l", "type": "FLOAT(30)"},
        {"name": "m", "type": "CHAR(4)", "binary": True, "charset": "utf8mb4"}])
    a, b, c, d, e, f, g, h, i, j, k, l, m = cols  # noqa: E741 - the columns' names
    assert (a.type, a.max_length, a.collation_id) == ("VARCHAR", 40, 45)
    assert (b.type, b.real_type, b.max_length, b.collation_id) == ("STRING", "STRING", 10, 8)
    assert (c.type, c.pack_length) == ("BLOB", 2) and (d.type, d.pack_length) == ("BLOB", 3)
    assert (e.real_type, e.pack_length) == ("SET", 8)     # 5 bytes round up to 8
    assert (f.real_type, f.pack_length) == ("ENUM", 2)
    assert (g.type, g.max_length) == ("VARCHAR_COMPRESSED", 101)
    assert (h.type, h.pack_length, h.collation_id) == ("BLOB", 4, 46)   # LONGTEXT utf8mb4_bin
    assert (i.type, i.geometry_type, i.collation_id) == ("GEOMETRY", 1, 63)
    assert j.unsigned is True and (k.type, k.max_length, k.collation_id) == ("STRING", 16, 63)
    assert l.type == "DOUBLE" and m.collation_id == 46
    my = columns_of("mysql-9.0", [{"name": "a", "type": "JSON"}, {"name": "b", "type": "POINT"},
                                  {"name": "c", "type": "VECTOR(3)"},
                                  {"name": "d", "type": "INT", "invisible": True}])
    assert (my[0].type, my[0].collation_id) == ("JSON", None)
    assert (my[1].type, my[1].collation_id) == ("GEOMETRY", None)
    assert (my[2].type, my[2].vector_dimensions, my[2].collation_id) == ("VECTOR", 3, 63)
    assert my[3].visible is False


@pytest.mark.parametrize("col, message", [
    ({"name": "a", "type": "INET4"}, "not a column type of mysql-8.0"),
    ({"name": "a", "type": "DECIMAL(66,2)"}, "out of range"),
    ({"name": "a", "type": "BIT(65)"}, "1-64"),
    ({"name": "a", "type": "VARCHAR(20000)", "charset": "utf8mb4"}, "at most 65535"),
    ({"name": "a", "type": "VARCHAR(10)", "compressed": True}, "MariaDB"),
    ({"name": "a", "type": "TEXT", "collation": "latin1_bin", "charset": "utf8mb4"},
     "not a collation of utf8mb4"),
    ({"name": "a", "type": "INT", "charset": "latin1"}, "no character set"),
    ({"name": "a", "type": "ENUM('x','X')"}, "declared twice"),
    ({"name": "a", "type": "VARCHAR(3)", "collation": "no_such_ci"}, "unknown collation"),
])
def test_impossible_columns_are_refused_naming_the_column(col, message):
    with pytest.raises(SpecError, match=f"table t, column a: .*{message}"):
        load_spec({"server": "mysql-8.0", "database": "d",
                   "tables": [{"name": "t", "columns": [col]}]})


# ====================================================================== impossible values


def reject(rows_item, message, table=T1, server="mariadb-10.11"):
    spec = spec_of(server, [table], [{"changes": [rows_item]}])
    with pytest.raises(SpecError) as e:
        load_spec(spec)
    assert message in str(e.value), str(e.value)
    return str(e.value)


def test_out_of_range_values_name_table_row_and_column():
    msg = reject({"insert": "t1", "rows": [[1, 1, "a", "a", None], [2, 128, "b", "a", None]]},
                 "transaction 1, change 1, table t1, insert row 2, column ti: 128 is out of "
                 "range for TINYINT (-128..127)")
    assert msg.startswith("transaction 1")


def test_undeclared_enum_member_is_refused():
    reject({"insert": "t1", "rows": [{"id": 1, "e": "c"}]},
           "table t1, insert row 1, column e: 'c' is not a member of ENUM('a', 'b')")


def test_wrong_column_count_is_refused():
    reject({"insert": "t1", "rows": [[1, 2, "x"]]},
           "table t1, insert row 1: 3 values for the 5 columns of t1")


@pytest.mark.parametrize("value, message", [
    ({"s": "toolong"}, "7 characters do not fit VARCHAR(5)"),
    ({"d": "2023-02-30"}, "does not exist"),
    ({"d": "2023-13-01"}, "is not a date"),
    ({"ti": "x"}, "is not an integer"),
    ({"e": 3}, "ENUM index 3 is not 1..2"),
    ({"nope": 1}, "has no column 'nope'"),
    ({"id": None}, "NULL in a NOT NULL column"),
])
def test_values_a_column_cannot_hold(value, message):
    reject({"insert": "t1", "rows": [{"id": 1, **value}]}, message)


@pytest.mark.parametrize("col, value, message", [
    ("DECIMAL(5,2)", "1234.5", "at most 3 digits before the point"),
    ("DECIMAL(5,2)", "1.234", "more than 2 digits after the point"),
    ("TIME(2)", "12:00:00.123", "more than 2 digits"),
    ("TIME", "839:00:00", "out of range for TIME"),
    ("TIMESTAMP", "2038-01-19 03:14:08", "out of range for TIMESTAMP"),
    ("TIMESTAMP", "1970-01-01 00:00:00", "out of range for TIMESTAMP"),
    ("YEAR", 1900, "out of range for YEAR"),
    ("FLOAT", 1e39, "out of range for FLOAT"),
    ("DOUBLE", float("nan"), "no NaN"),
    ("BIT(3)", 8, "out of range for BIT(3)"),
    ("SET('a','b')", ["a", "c"], "'c' is not a member of SET"),
    ("CHAR(2) CHARACTER SET utf8mb3", "😀", "outside the BMP"),
    ("VARCHAR(3) CHARACTER SET latin1", "☕", "cannot be written in latin1"),
    ("POINT", "LINESTRING(0 0, 1 1)", "a LINESTRING in a POINT column"),
    ("INET4", "300.1.1.1", "not an INET4"),
    ("BINARY(2)", {"hex": "010203"}, "3 characters do not fit BINARY(2)"),
    ("TINYBLOB", {"hex": "00" * 256}, "256 bytes do not fit TINYBLOB"),
])
def test_values_out_of_their_type(col, value, message):
    table = {"name": "t", "columns": [{"name": "id", "type": "INT", "nullable": False},
                                      {"name": "v", "type": col}], "primary_key": ["id"]}
    reject({"insert": "t", "rows": [{"id": 1, "v": value}]},
           "table t, insert row 1, column v: ", table)
    reject({"insert": "t", "rows": [{"id": 1, "v": value}]}, message, table)


def test_updates_and_deletes_must_find_their_rows_and_keys_stay_unique():
    rows = {"insert": "t1", "rows": [[1, 1, "a", "a", None]]}
    spec = spec_of(transactions=[{"changes": [rows]},
                                 {"update": "t1", "rows": [{"where": {"id": 2}, "set": {}}]}])
    with pytest.raises(SpecError, match=r"transaction 2, change 1, table t1, update row 1: "
                                        r"no row of t1 matches \{'id': 2\}"):
        load_spec(spec)
    spec = spec_of(transactions=[{"changes": [rows, rows]}])
    with pytest.raises(SpecError, match=r"change 2, table t1, insert row 1: duplicate key "
                                        r"\(id\)"):
        load_spec(spec)
    spec = spec_of(transactions=[{"delete": "t1", "rows": [{"id": 1}]}])
    with pytest.raises(SpecError, match="no row of t1 matches"):
        load_spec(spec)


def test_settings_a_server_cannot_have_are_refused():
    for server, settings, message in [
            ("mysql-5.7", {"binlog_row_metadata": "FULL"}, "has no binlog_row_metadata"),
            ("mysql-5.7", {"compression": True}, "no transaction compression"),
            ("mysql-8.0", {"gtid_mode": "ON", "gtid_tag": "x"}, "no GTID tags"),
            ("mysql-8.0", {"checksum": "MD5"}, "CRC32 or NONE"),
            ("mysql-8.0", {"binlog_row_image": "HALF"}, "binlog_row_image"),
            ("mysql-4.1", {}, "no profile"),
            ("oracle-1", {}, "unknown server")]:
        with pytest.raises(SpecError, match=message):
            load_spec({**spec_of(server), "settings": settings})


# ====================================================================== generated files


MIXED = [
    {"changes": [{"insert": "t1", "rows": [[1, -5, "é☕", "a", "2024-02-29"],
                                           {"id": 2, "s": "x"}]}]},
    {"update": "t1", "rows": [{"where": {"id": 1}, "set": {"ti": 7, "e": "b"}}]},
    {"changes": [{"delete": "t1", "rows": [{"id": 2}]},
                 {"insert": "t1", "rows": [[3, None, None, None, "0000-00-00"]]}]},
    {"ddl": "CREATE TABLE t2 (a INT PRIMARY KEY, b VARCHAR(3))"},
    {"insert": "t2", "rows": [[1, "abc"]]},
]

# the kinds of a transaction, as each server writes them
PATTERNS = {
    "mysql-5.7": ["ANONYMOUS_GTID_LOG_EVENT", "QUERY_EVENT", "TABLE_MAP_EVENT",
                  "WRITE_ROWS_EVENT", "XID_EVENT"],
    "mariadb-10.11": ["GTID_EVENT", "ANNOTATE_ROWS_EVENT", "TABLE_MAP_EVENT",
                      "WRITE_ROWS_EVENT_V1", "XID_EVENT"],
}


@pytest.mark.parametrize("server", sorted(SERVERS))
@pytest.mark.parametrize("settings", [
    {}, {"gtid_mode": "ON", "checksum": "NONE", "binlog_row_image": "MINIMAL"},
    {"compression": True, "binlog_row_metadata": "FULL", "end": "stop"},
    {"binlog_row_image": "NOBLOB", "end": "none", "compression_min_length": 1},
])
def test_every_server_profile_writes_a_file_the_package_reads_back_exactly(server, settings):
    srv = SERVERS[server]
    if not srv.row_metadata:
        settings = {k: v for k, v in settings.items() if k != "binlog_row_metadata"}
    if not (srv.transaction_compression or srv.mariadb):
        settings = {k: v for k, v in settings.items() if k != "compression"}
    spec = spec_of(server, transactions=MIXED, **settings)
    data = generate(load_spec(spec))
    res = roundtrip_file(data)
    assert res["failed"] == [] and res["differ"] == [] and res["tail"] is None, res
    assert res["events"] == res["identical"] and res["rows"] == res["rows_identical"] > 0
    seq = kinds(data)
    fde = next(iter(BinlogReader(data))).value["body"]
    assert seq[0] == "FORMAT_DESCRIPTION_EVENT"
    assert fde["post_header_lengths"] == list(srv.post_header_lengths)
    assert fde["server_version"] == srv.version
    assert fde["checksum_alg"] == (0 if settings.get("checksum") == "NONE" else 1)
    if srv.flavor == "mysql":
        assert seq[1] == "PREVIOUS_GTIDS_LOG_EVENT"
    else:
        assert seq[1:3] == ["GTID_LIST_EVENT", "BINLOG_CHECKPOINT_EVENT"]
    end = settings.get("end", "rotate")
    last = {"rotate": "ROTATE_EVENT", "stop": "STOP_EVENT", "none": "XID_EVENT"}[end]
    assert seq[-1] == last
    if srv.flavor == "mysql":
        rows = [k for k in seq if "ROWS" in k]
        assert all(k in ("WRITE_ROWS_EVENT", "UPDATE_ROWS_EVENT", "DELETE_ROWS_EVENT")
                   for k in rows)                                  # v2
        if settings.get("compression"):
            assert seq.count("TRANSACTION_PAYLOAD_EVENT") == 4     # the DML transactions
    else:
        rows = [k for k in seq if "ROWS_" in k and k != "ANNOTATE_ROWS_EVENT"]
        assert all(k.endswith("_V1") for k in rows)                # v1 (compressed or not)
        if settings.get("compression") and settings.get("compression_min_length") == 1:
            assert all("COMPRESSED" in k for k in rows)


def test_transaction_layout_and_gtid_fields():
    data = generate(spec_of("mysql-5.7", transactions=MIXED[:1]))
    assert kinds(data)[2:] == PATTERNS["mysql-5.7"] + ["ROTATE_EVENT"]
    data = generate(spec_of("mariadb-10.11", transactions=MIXED[:1]))
    assert kinds(data)[3:] == PATTERNS["mariadb-10.11"] + ["ROTATE_EVENT"]
    data = generate(spec_of("mysql-8.0", transactions=MIXED, gtid_mode="ON",
                            previous_gtids=["3e11fa47-71ca-11e1-9e33-c80aa9429562:1-7"]))
    recs = list(BinlogReader(data))
    gtids = [r for r in recs if r.kind == 33]
    assert [g.value["body"]["gno"] for g in gtids] == [8, 9, 10, 11, 12]
    assert [g.value["body"]["sequence_number"] for g in gtids] == [1, 2, 3, 4, 5]
    assert recs[1].value["body"]["sids"][0]["intervals"] == [{"start": 1, "end": 8}]
    # transaction_length: the GTID event and every event up to the next GTID
    offsets = [r.offset for r in gtids] + [recs[-1].offset]
    for g, nxt in zip(gtids, offsets[1:]):
        assert g.value["body"]["transaction_length"] == nxt - g.offset
        assert g.value["body"]["server_versions"]["immediate"] == 80040
    ddl = [r for r in recs if r.kind == 2 and r.value["body"]["query"].startswith("CREATE")]
    codes = [v["code"] for v in ddl[0].value["body"]["status_vars"]]
    assert "DDL_LOGGED_WITH_XID" in codes and gtids[3].value["body"]["flags"] == ["MAY_HAVE_SBR"]


def test_compressed_mysql_transaction_holds_the_transaction_without_crcs():
    data = generate(spec_of("mysql-8.0", transactions=MIXED[:2], compression=True))
    recs = list(BinlogReader(data))
    payloads = [r for r in recs if r.kind == 40]
    assert len(payloads) == 2
    inner = [i.type_name for i in payloads[0].inner]
    assert inner == ["QUERY_EVENT", "TABLE_MAP_EVENT", "WRITE_ROWS_EVENT", "XID_EVENT"]
    assert all(i.value["header"]["log_pos"] == 0 and "checksum" not in i.value
               for i in payloads[0].inner)
    gtid = recs[recs.index(payloads[0]) - 1]
    assert gtid.value["body"]["transaction_length"] == gtid.size + payloads[0].size


def test_mysql_gtid_tags_and_tagged_previous_gtids():
    sid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
    data = generate(spec_of("mysql-8.4", transactions=MIXED[:2], gtid_mode="ON",
                            gtid_tag="blue", previous_gtids=[f"{sid}:1-3", f"{sid}:blue:1-4"]))
    recs = list(BinlogReader(data))
    assert recs[1].value["body"]["format"] == "TAGGED"
    tagged = [r.value["body"] for r in recs if r.kind == 42]
    assert [(t["tag"], t["gno"]) for t in tagged] == [("blue", 5), ("blue", 6)]


def test_rows_events_split_at_the_maximum_size():
    rows = [[i, i % 100, "x" * 5, "a", None] for i in range(1, 401)]
    data = generate(spec_of("mysql-8.0", transactions=[{"insert": "t1", "rows": rows}],
                            rows_event_max_size=1024))
    events = [r for r in BinlogReader(data) if r.kind == 30]
    assert len(events) > 3
    assert all(len(r.value["body"]["rows"]) <= 1024 for r in events)
    assert [r.value["body"]["flags"] for r in events] == [[]] * (len(events) - 1) + [
        ["STMT_END"]]


def decoded_state(data):
    """Replay a generated file's row changes through the package's RowDecoder: the final
    rows per table, as column name -> JSON-safe value."""
    from binlog_schema.format.forms.json_safe import jsonable
    dec = RowDecoder()
    state = collections.defaultdict(list)
    for rec in BinlogReader(data):
        for ch in dec.feed(rec):
            rows = state[(ch.database, ch.table)]
            if ch.operation == "insert":
                rows.append(ch.after)
            else:
                i = rows.index(ch.before)
                if ch.operation == "update":
                    rows[i] = ch.after
                else:
                    del rows[i]
    return {k: sorted(repr({c: jsonable(v) for c, v in r.items()}) for r in rows)
            for k, rows in state.items()}


def spec_state(fx):
    from binlog_schema.format.forms.json_safe import jsonable
    out = {}
    for key, rows in fx.state.items():
        table = fx.tables[key]
        out[key] = sorted(repr({c.name: jsonable(c.image(r[c.index])) for c in table.columns})
                          for r in rows)
    return out


@pytest.mark.parametrize("server", ["mysql-8.0", "mysql-8.4", "mysql-9.0", "mariadb-10.11",
                                    "mariadb-11.4"])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_files_decode_to_the_spec_state(server, seed):
    """The package's row decoder, fed a random fixture, ends with exactly the rows the spec
    says the tables hold (FULL images and metadata; every column type family). (MySQL 5.7
    logs no metadata: no names, signedness or ENUM members to compare with.)"""
    spec = random_spec(seed, tables=3, transactions=25, flavor=server, rows=4)
    fx = load_spec(spec)
    data = generate(fx)
    got = decoded_state(data)
    want = spec_state(fx)
    assert {k: v for k, v in want.items() if v} == {k: v for k, v in got.items() if v}
    assert sum(len(v) for v in want.values()) > 10


def test_random_mode_is_deterministic():
    a = generate(random_spec(7, flavor="mariadb-10.11"))
    b = generate(random_spec(7, flavor="mariadb-10.11"))
    c = generate(random_spec(8, flavor="mariadb-10.11"))
    assert a == b and a != c
    mix = random_spec(3, tables=2, types="temporal:1", columns=(5, 5))
    types = {c["type"].split("(")[0] for t in mix["tables"] for c in t["columns"][1:]}
    assert types <= {"DATE", "TIME", "DATETIME", "TIMESTAMP", "YEAR"}


def test_minimal_and_noblob_images_hold_the_servers_columns():
    table = {"name": "t", "columns": [{"name": "id", "type": "INT", "nullable": False},
                                      {"name": "a", "type": "INT"},
                                      {"name": "b", "type": "TEXT"},
                                      {"name": "c", "type": "INT"}], "primary_key": ["id"]}
    txs = [{"insert": "t", "rows": [{"id": 1, "a": 2}]},
           {"update": "t", "rows": [{"where": {"id": 1}, "set": {"c": 5}}]},
           {"delete": "t", "rows": [{"id": 1}]}]

    def present(image):
        fx = load_spec(spec_of("mysql-8.0", [table], txs, binlog_row_image=image))
        out = []
        for rec in BinlogReader(generate(fx)):
            if rec.kind in (30, 31, 32):
                b = rec.value["body"]
                out.append((b["columns_present"][:4], (b.get("columns_after") or [])[:4]))
        return out
    assert present("MINIMAL") == [([True, True, False, False], []),
                                  ([True, False, False, False], [False, False, False, True]),
                                  ([True, False, False, False], [])]
    assert present("NOBLOB") == [([True, True, False, True], []),
                                 ([True, True, False, True], [True, True, False, True]),
                                 ([True, True, False, True], [])]
    assert present("FULL")[1] == ([True] * 4, [True] * 4)


def test_spec_settings_set_ids_times_and_names():
    fx = spec_of("mariadb-10.11", transactions=MIXED[:2], server_id=77, timestamp=1234567,
                 table_ids={"t1": 4242}, gtid_domain_id=3, gtid_start=50, xid_start=9,
                 file_name="log.000007")
    recs = list(BinlogReader(generate(fx)))
    assert {r.value["header"]["server_id"] for r in recs} == {77}
    assert recs[0].value["header"]["timestamp"] == 1234567
    assert [r.value["body"]["table_id"] for r in recs if r.kind == 19] == [4242, 4242]
    g = [r.value["body"] for r in recs if r.kind == 162]
    assert [(x["domain_id"], x["seq_no"]) for x in g] == [(3, 50), (3, 51)]
    assert [r.value["body"]["xid"] for r in recs if r.kind == 16] == [9, 10]
    assert recs[2].value["body"]["binlog_file"] == "log.000007"
    assert recs[-1].value["body"]["next_file"] == "log.000008"


def test_char_and_binary_images_drop_their_pad_as_the_server_does():
    table = {"name": "t", "columns": [{"name": "id", "type": "INT", "nullable": False},
                                      {"name": "c", "type": "CHAR(5)"},
                                      {"name": "b", "type": "BINARY(4)"}],
             "primary_key": ["id"]}
    fx = load_spec(spec_of("mariadb-10.11", [table], [
        {"insert": "t", "rows": [[1, "ab  ", {"hex": "01020000"}]]}],
        binlog_row_metadata="FULL"))
    dec = RowDecoder()
    changes = [ch for rec in BinlogReader(generate(fx)) for ch in dec.feed(rec)]
    assert changes[0].after == {"id": 1, "c": "ab", "b": b"\x01\x02"}
    c, b = fx.tables[("db", "t")].columns[1:]
    assert expected_text(b, fx.state[("db", "t")][0][2]) == "01020000"   # SELECT pads it


def test_create_table_renders_what_the_parser_reads_back():
    fx = load_spec(yaml.safe_load((EXAMPLES / "mariadb-all-types.fixture").read_text()))
    for key, table in fx.tables.items():
        (again,) = tables_from_ddl(create_table(table, fx.server))
        assert [c["name"] for c in again["columns"]] == table.names
        reparsed = load_spec({"server": fx.server.key, "database": key[0], "tables": [again]})
        assert [c.binlog for c in reparsed.tables[key].columns] == [
            c.binlog for c in table.columns], key


def test_ddl_statements_define_tables_for_the_changes_after_them():
    fx = load_spec(spec_of("mysql-8.0", transactions=MIXED))
    t2 = fx.tables[("db", "t2")]
    assert t2.table_id != fx.tables[("db", "t1")].table_id
    assert [c.name for c in t2.columns] == ["a", "b"] and fx.state[("db", "t2")] == [
        {0: 1, 1: "abc"}]
    with pytest.raises(SpecError, match="no table 't9'"):
        load_spec(spec_of("mysql-8.0", transactions=[{"insert": "t9", "rows": [[1]]}]))


def test_alter_table_add_column_redefines_the_table_and_keeps_its_rows():
    txs = [{"changes": [{"insert": "t1", "rows": [{"id": 1, "s": "a"}, {"id": 2}]}]},
           {"ddl": "ALTER TABLE t1 ADD COLUMN n INT NOT NULL DEFAULT 7"},
           {"changes": [{"update": "t1", "rows": [{"where": {"id": 1}, "set": {"n": 8}}]},
                        {"delete": "t1", "rows": [{"id": 2}]}]}]
    spec = spec_of("mysql-8.0", transactions=txs, binlog_row_metadata="FULL")
    fx = load_spec(spec)
    t1 = fx.tables[("db", "t1")]
    assert [c.name for c in t1.columns][-1] == "n" and t1.table_id == 101
    assert [r[5] for r in fx.state[("db", "t1")]] == [8]
    data = generate(spec)
    dec = RowDecoder(data)
    changes = [ch for rec in records(data) for ch in dec.feed(rec)]
    assert [(ch.operation, len(ch.columns)) for ch in changes] == [
        ("insert", 5), ("insert", 5), ("update", 6), ("delete", 6)]
    maps = [r.value["body"]["table_id"] for r in records(data) if r.type_name ==
            "TABLE_MAP_EVENT"]
    assert maps == [100, 101, 101]
    assert changes[2].before["n"] == 7 and changes[2].after["n"] == 8
    with pytest.raises(SpecError, match="needs a DEFAULT"):
        load_spec(spec_of(transactions=[{"ddl": "ALTER TABLE t1 ADD x INT NOT NULL"}]))


@pytest.mark.parametrize("server", ["mysql-8.0", "mariadb-10.11"])
def test_table_maps_once_writes_each_map_before_its_first_rows_event_only(server):
    txs = [{"changes": [{"insert": "t1", "rows": [{"id": i, "s": "x"}]}]}
           for i in range(1, 6)]
    txs[3:3] = [{"ddl": "ALTER TABLE t1 ADD COLUMN n INT"}]
    once = generate(spec_of(server, transactions=txs, table_maps="once"))
    every = generate(spec_of(server, transactions=txs))
    assert kinds(once).count("TABLE_MAP_EVENT") == 2      # before and after the ALTER
    assert kinds(every).count("TABLE_MAP_EVENT") == 5
    assert [k for k in kinds(every) if k != "TABLE_MAP_EVENT"] == [
        k for k in kinds(once) if k != "TABLE_MAP_EVENT"]
    dec_once, dec_every = RowDecoder(once), RowDecoder(every)
    assert [ch.after for rec in records(once) for ch in dec_once.feed(rec)] == [
        ch.after for rec in records(every) for ch in dec_every.feed(rec)]
    with pytest.raises(SpecError, match="table_maps"):
        load_spec(spec_of(table_maps="sometimes"))


def test_example_spec_round_trips_and_states_the_rows():
    fx = load_spec(EXAMPLES / "mariadb-all-types.fixture")
    data = generate(fx)
    res = roundtrip_file(data)
    assert res["differ"] == [] and res["failed"] == [] and res["rows"] == res["rows_identical"]
    assert len(fx.tables) == 12 and sum(len(r) for r in fx.state.values()) > 20
    amounts = {r[1] for r in fx.state[("fx_types", "t_num")]}
    assert decimal.Decimal("-12345678.99") in amounts


# ====================================================================== vectors, CLI


def test_golden_vectors_are_what_the_generator_writes():
    checked = 0
    for path, _, doc in iter_vectors(ROOT / "specs" / "fixtures"):
        fixture = doc["fixture"]
        again = event_vector(fixture["spec"], fixture["event"], doc["name"], doc["source"])
        assert again["hex"] == doc["hex"], (path.name, doc["name"])
        assert check_vector(doc) == [], doc["name"]
        checked += 1
    assert checked >= 20


def run_cli(*args, input=None):
    return subprocess.run([sys.executable, "-m", "binlog_schema", "fixtures", *args],
                          cwd=ROOT, capture_output=True, text=True, input=input, timeout=300)


def test_cli_spec_random_ddl_event_and_errors(tmp_path):
    out = tmp_path / "f.bin"
    r = run_cli(str(EXAMPLES / "mariadb-all-types.fixture"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == generate(EXAMPLES / "mariadb-all-types.fixture")
    for d in ("a", "b"):
        r = run_cli("--random", "--seed", "11", "--tables", "2", "--transactions", "5",
                    "--flavor", "mysql-8.4", "-o", str(tmp_path / d))
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "a" / "binlog.000001").read_bytes() == \
        (tmp_path / "b" / "binlog.000001").read_bytes()
    spec = yaml.safe_load((tmp_path / "a" / "spec.yaml").read_text())
    assert spec["server"] == "mysql-8.4" and len(spec["transactions"]) == 5
    r = run_cli("--from-ddl", str(EXAMPLES / "mariadb-all-types.sql"), "--flavor",
                "mariadb-10.11")
    assert r.returncode == 0, r.stderr
    doc = yaml.safe_load(r.stdout)
    assert doc["database"] == "fx_types" and len(doc["tables"]) == 11
    r = run_cli(str(EXAMPLES / "mariadb-all-types.fixture"), "--event", "4")
    vec = yaml.safe_load(r.stdout)
    assert vec["expect"]["header"]["type_code"] == 160 and check_vector(vec) == []
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(spec_of(transactions=[{"insert": "t1", "rows": [[1]]}])))
    r = run_cli(str(bad), "-o", str(tmp_path / "x"))
    assert r.returncode == 1 and "1 values for the 5 columns of t1" in r.stderr
    r = run_cli("--list-servers")
    assert "mariadb-10.11" in r.stdout and "mysql-5.7" in r.stdout


def test_generation_writes_to_files_and_streams(tmp_path):
    spec = spec_of("mysql-8.0", transactions=MIXED)
    buf = io.BytesIO()
    data = generate(spec, buf)
    generate(spec, tmp_path / "x.bin")
    assert buf.getvalue() == data == (tmp_path / "x.bin").read_bytes()
    gen = Generator(load_spec(spec))
    gen.write(io.BytesIO())
    assert len(gen.table_maps) == 5       # one per statement, as the servers write them

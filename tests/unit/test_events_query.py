"""Statement events (format/events/query.py): each declaration both ways on small values made here,
the layouts the context chooses (binlog v1/v3/v4, FDE post-header lengths, pre-GA numbering),
status variables (every code, unknown codes), QUERY_COMPRESSED, corrupt status blocks, typed
errors, the CLI, and (corpus tier) no raw bodies or trailing bytes on real events."""

import json
import subprocess
import sys

import construct as c
import pytest

from binlog_schema.format.facts.compression import mariadb_compress
from binlog_schema.format.context import Context
from binlog_schema.format.event_codec import build_event, parse_event
from binlog_schema.format.events.envelope import Event
from binlog_schema.format.errors import BinlogError, BuildError, FormatError, TruncatedError
from binlog_schema.format.events.query import BODIES, StatusVars
from binlog_schema.format.event_forms import to_plain
from binlog_schema.format.stream import BinlogReader
from binlog_schema.format.writer import BinlogWriter

V4 = Context(checksum=True, flavor="mysql", server_version="8.0.40")
MARIA = Context(checksum=True, flavor="mariadb", server_version="10.11.19-MariaDB-log")
V3 = Context(checksum=False, server_version="4.1.24-log", binlog_version=3)
V1 = Context(checksum=False, server_version="3.23.58-log", binlog_version=1)


def event(code, body, flags=()):
    return {"header": {"timestamp": 1700000000, "type_code": code, "server_id": 1,
                       "log_pos": 500, "flags": list(flags)}, "body": body}


def both_ways(code, body, ctx=V4):
    """build -> parse gives the body back (compiled and interpreted), and parse -> build gives
    the bytes back; returns the bytes."""
    data = build_event(event(code, body), ctx)
    value = parse_event(data, ctx)
    assert to_plain(value["body"]) == to_plain(body)
    assert "trailing" not in value
    assert build_event(value, ctx) == data
    interpreted = Event.parse(data, ctx=ctx)
    assert to_plain(interpreted["body"]) == to_plain(body)
    assert Event.build(interpreted, ctx=ctx) == data
    return data


STATUS = [
    {"code": "FLAGS2", "value": ["AUTO_IS_NULL", 0x1000000]},
    {"code": "SQL_MODE", "value": 0x40000000},
    {"code": "CATALOG_NZ", "value": "std"},
    {"code": "CHARSET", "value": {"client": 255, "connection": 255, "server": 8}},
]


def query(status_vars=STATUS, q="INSERT INTO t VALUES (1)", db="test", **more):
    body = {"thread_id": 9, "exec_time": 2, "db_len": len(db.encode()), "error_code": 0,
            "status_vars_len": None if status_vars is None else len(
                StatusVars.build(status_vars)),
            "post_header_extra": None, "status_vars": status_vars, "database": db, "query": q}
    body.update(more)
    return body


# ------------------------------------------------------------------------------ every body

SAMPLES = {
    3: {},
    4: {"position": 4, "post_header_extra": None, "next_file": "binlog.000002"},
    5: {"type": "INSERT_ID", "value": 2 ** 64 - 1},
    6: {"thread_id": 1, "exec_time": 0, "skip_lines": 0, "table_len": 1, "db_len": 2,
        "num_fields": 1,
        "sql_ex": {"field_term": "\t", "enclosed": "\0", "line_term": "\n", "line_start": "\0",
                   "escaped": "\\", "opt_flags": [], "empty_flags": ["ENCLOSED_EMPTY",
                                                                     "LINE_START_EMPTY"]},
        "field_lens": [2], "fields": ["ab"], "table": "t", "database": "db",
        "file_name": "in.txt"},
    8: {"thread_id": 1, "exec_time": 0, "skip_lines": 0, "table_len": 1, "db_len": 2,
        "num_fields": 0, "file_id": 3, "post_header_extra": None,
        "sql_ex": {"field_term": ",", "enclosed": "", "line_term": "\r\n", "line_start": "",
                   "escaped": "\\", "opt_flags": ["OPT_ENCLOSED"]},
        "field_lens": [], "fields": [], "table": "t", "database": "db", "file_name": "in.txt",
        "block": b"1,2\r\n3,4\r\n"},
    9: {"file_id": 3, "post_header_extra": None, "block": b"5,6\n"},
    10: {"file_id": 3},
    11: {"file_id": 3},
    12: {"thread_id": 1, "exec_time": 0, "skip_lines": 2, "table_len": 1, "db_len": 2,
         "num_fields": 2,
         "sql_ex": {"field_term": "||", "enclosed": "'", "line_term": "\n", "line_start": ">",
                    "escaped": "", "opt_flags": ["REPLACE"]},
         "field_lens": [1, 5], "fields": ["a", "café"], "table": "t", "database": "db",
         "file_name": b"in\xff.txt"},
    13: {"seed1": 123, "seed2": 456},
    14: {"name_len": 1, "name": "u", "is_null": 0,
         "value": {"type": "INT", "charset": 63, "length": 8, "data": b"\xff" * 8,
                   "flags": ["UNSIGNED"]}},
    16: {"xid": 42},
    17: {"file_id": 4, "post_header_extra": None, "block": b"a,b\n"},
    18: query(file_id=4, fn_pos_start=17, fn_pos_end=25, dup_handling="REPLACE",
              q="LOAD DATA INFILE 'x.csv' REPLACE INTO TABLE t"),
    26: {"incident": 1, "post_header_extra": None, "message": "error writing to the binary log"},
    28: {"data": b"\x00\x01"},
    29: {"length": 8, "query": "SELECT 1"},
    160: {"query": "INSERT INTO t VALUES (2)"},
}


def test_every_declared_type_has_a_sample():
    assert set(SAMPLES) | {2, 165} == set(BODIES)


@pytest.mark.parametrize("code", sorted(SAMPLES))
def test_each_body_both_ways(code):
    ctx = V3 if code in (6, 12) else V4
    both_ways(code, SAMPLES[code], ctx)


def test_query_both_ways_and_derived_lengths():
    body = query(q="SELECT 'ü'", db="dä")
    data = both_ways(2, body)
    assert data[19 + 8] == 3  # db_len counts bytes
    given = {k: v for k, v in body.items() if k not in ("db_len", "status_vars_len",
                                                        "post_header_extra")}
    assert build_event(event(2, given), V4) == data  # derived fields are never needed


def test_user_var_null_and_string_without_flags():
    both_ways(14, {"name_len": 4, "name": "none", "is_null": 1, "value": None})
    both_ways(14, {"name_len": 1, "name": "s", "is_null": 0,
                   "value": {"type": "STRING", "charset": 45, "length": 2, "data": b"hi",
                             "flags": None}})


# ------------------------------------------------------------------------------ context


def test_query_v3_has_no_status_block_v4_has():
    body3 = query(status_vars=None)
    data3 = both_ways(2, body3, V3)
    assert len(data3) == 19 + 11 + 5 + len(body3["query"])
    v4 = parse_event(data3, Context(checksum=False))  # the same bytes read as v4
    assert v4["body"] != to_plain(body3)  # status_vars_len would be read from db/query bytes


def test_query_post_header_from_the_fde():
    body = query(status_vars=None)
    data = build_event(event(2, body), V3)
    phl11 = Context(checksum=False, post_header_lengths=[56, 11, 0, 8], binlog_version=4)
    assert to_plain(parse_event(data, phl11)["body"]) == to_plain(body)
    longer = query(post_header_extra=b"\xaa\xbb")
    ctx15 = Context(checksum=True, post_header_lengths=[56, 15], binlog_version=4)
    both_ways(2, longer, ctx15)
    with pytest.raises(BuildError):  # a longer post-header needs its bytes
        build_event(event(2, query()), ctx15)


def test_pre_ga_numbering_reads_the_file_codes_post_header():
    remap = {16: 19, 17: 20, 18: 21, 19: 22, 20: 16, 21: 17, 22: 18}
    table = [56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 77, 6, 0, 0, 0, 0, 0, 30]
    ctx = Context(checksum=False, post_header_lengths=table, type_remap=remap)
    body = dict(SAMPLES[18], post_header_extra=b"\x01\x02\x03\x04")  # file code 22: 30 bytes
    data = build_event(event(22, body), ctx)
    assert to_plain(parse_event(data, ctx)["body"]) == to_plain(body)


def test_rotate_v1_has_no_position():
    both_ways(4, {"position": None, "post_header_extra": None, "next_file": "old.001"}, V1)
    data = both_ways(4, {"position": 4, "post_header_extra": None, "next_file": "b.002"}, V3)
    assert data[19:27] == (4).to_bytes(8, "little")


# ------------------------------------------------------------------------------ status variables

EVERY_STATUS = [
    {"code": "FLAGS2", "value": ["NOT_AUTOCOMMIT"]},
    {"code": "SQL_MODE", "value": 2 ** 63},
    {"code": "CATALOG", "value": "std"},
    {"code": "AUTO_INCREMENT", "value": {"increment": 5, "offset": 3}},
    {"code": "CHARSET", "value": {"client": 33, "connection": 33, "server": 8}},
    {"code": "TIME_ZONE", "value": "+02:00"},
    {"code": "CATALOG_NZ", "value": "std"},
    {"code": "LC_TIME_NAMES", "value": 4},
    {"code": "CHARSET_DATABASE", "value": 8},
    {"code": "TABLE_MAP_FOR_UPDATE", "value": 3},
    {"code": "MASTER_DATA_WRITTEN", "value": 345},
    {"code": "INVOKER", "value": {"user": "root", "host": "localhost"}},
    {"code": "UPDATED_DB_NAMES", "value": {"count": 2, "names": ["a", "bé"]}},
    {"code": "UPDATED_DB_NAMES", "value": {"count": 254, "names": None}},
    {"code": "MICROSECONDS", "value": 999999},
    {"code": "COMMIT_TS", "value": 7},
    {"code": "EXPLICIT_DEFAULTS_FOR_TIMESTAMP", "value": 1},
    {"code": "DDL_LOGGED_WITH_XID", "value": 2 ** 64 - 1},
    {"code": "DEFAULT_COLLATION_FOR_UTF8MB4", "value": 255},
    {"code": "SQL_REQUIRE_PRIMARY_KEY", "value": 0},
    {"code": "DEFAULT_TABLE_ENCRYPTION", "value": 0},
    {"code": "ENABLE_CASCADE_TRIGGERS", "value": 1},
    {"code": "HRNOW", "value": 654321},
    {"code": "XID", "value": 37},
    {"code": "GTID_FLAGS3", "value": {"flags": 2, "sa_seq_no": None}},
    {"code": "GTID_FLAGS3", "value": {"flags": 4, "sa_seq_no": 21}},
    {"code": "CHARACTER_SET_COLLATIONS", "value": {"count": 1, "map": [
        {"charset": 33, "collation": 2304}]}},
]


def test_every_status_variable_both_ways():
    data = both_ways(2, query(EVERY_STATUS))
    # spot checks of the encodings: GTID_FLAGS3 with COMMIT_ALTER carries 8 more bytes
    assert bytes.fromhex("8204" "1500000000000000") in data
    assert bytes.fromhex("0c02" "6100" "62c3a900") in data  # count, NUL-terminated names
    assert bytes.fromhex("0203" "737464" "00") in data  # Q_CATALOG keeps its NUL


def test_status_codes_may_be_given_as_numbers():
    named = build_event(event(2, query(STATUS)), V4)
    numbered = [dict(item, code=code) for item, code in zip(STATUS, (0, 1, 6, 4))]
    assert build_event(event(2, query(numbered)), V4) == named


def test_unknown_status_code_keeps_the_rest_raw():
    rest = bytes.fromhex("c8" "0102" "04210021000800")  # code 200, then a CHARSET nobody reads
    body = query(STATUS[:2] + [{"raw": rest}])
    both_ways(2, body)
    both_ways(2, query(STATUS[:1] + [{"raw": bytes.fromhex("0f00")}]))  # COMMIT_TS2 (15)
    for bad in ([{"raw": rest}] + STATUS[:1],  # raw must come last
                [{"raw": bytes.fromhex("1001")}]):  # and start with an unknown code
        with pytest.raises(BuildError):
            build_event(event(2, dict(query(), status_vars=bad)), V4)


def test_status_block_overrun_keeps_the_body_raw():
    data = bytearray(build_event(event(2, query()), Context(checksum=False)))
    data[19 + 11:19 + 13] = (5000).to_bytes(2, "little")  # status_vars_len past the body
    value = parse_event(bytes(data), Context(checksum=False))
    assert value["body"] == bytes(data[19:])
    assert build_event(value, Context(checksum=False)) == bytes(data)
    with pytest.raises(BuildError):  # a raw body only for a corrupt layout
        build_event(event(2, bytes(build_event(event(2, query()), V4)[19:-4])), V4)


# ------------------------------------------------------------------------------ compression


def test_query_compressed_keeps_bytes_and_gives_text():
    text = "INSERT INTO t VALUES ('" + "é" * 300 + "')"
    packed = mariadb_compress(text.encode(), level=1)  # not the level we would choose
    body = query(q=text, compressed=packed)
    data = both_ways(165, body, MARIA)
    assert packed in data
    value = parse_event(data, MARIA)
    assert value["body"]["query"] == text and value["body"]["compressed"] == packed
    # built from the text alone: compressed, and the parsed value gives both
    alone = {k: v for k, v in body.items() if k != "compressed"}
    again = parse_event(build_event(event(165, alone), MARIA), MARIA)["body"]
    assert again["query"] == text and again["compressed"] == mariadb_compress(text.encode())
    # an edited query with stale compressed bytes is refused, not silently dropped
    with pytest.raises(BuildError):
        build_event(event(165, dict(body, query="SELECT 2")), MARIA)


def test_query_compressed_header_that_lies_is_a_typed_error():
    packed = bytearray(mariadb_compress(b"SELECT 1"))
    packed[1] += 1
    body = bytes(build_event(event(165, query(q="x", compressed=None)), MARIA))[19:-4]
    prefix = body[:body.index(b"test\0") + 5]
    bad = build_event(event(7, prefix + bytes(packed)), MARIA)  # raw body, then the type
    bad = bad[:4] + b"\xa5" + bad[5:]
    import zlib
    bad = bad[:-4] + zlib.crc32(bad[:-4]).to_bytes(4, "little")
    with pytest.raises(FormatError) as e:
        parse_event(bad, MARIA)
    assert e.value.offset == 19 + len(prefix)


# ------------------------------------------------------------------------------ typed errors


@pytest.mark.parametrize("code,body,kind", [
    (2, query(), "truncated"),
    (14, SAMPLES[14], "truncated"),
    (6, SAMPLES[6], "truncated"),
    (8, SAMPLES[8], "truncated"),
    (4, SAMPLES[4], "truncated"),
])
def test_every_cut_is_a_typed_error(code, body, kind):
    ctx = V3 if code in (6, 8) else Context(checksum=False)
    data = build_event(event(code, body), ctx)
    for cut in range(20, len(data)):
        short = data[:9] + cut.to_bytes(4, "little") + data[13:cut]
        try:
            value = parse_event(short, ctx)
        except BinlogError as e:
            assert isinstance(e, (TruncatedError, FormatError))
        else:  # a shorter event may still be valid (text to the end): then it round-trips
            assert build_event(value, ctx) == short


def test_lying_lengths_fail_without_allocating():
    lying = (0xFFFFFFF0).to_bytes(4, "little") + b"abc"
    data = build_event(event(7, lying), Context(checksum=False))
    data = data[:4] + b"\x0e" + data[5:]  # USER_VAR with a 4 GiB name
    with pytest.raises(TruncatedError):
        parse_event(data, Context(checksum=False))


def test_build_errors_are_typed():
    with pytest.raises(BuildError):  # the name's length does not fit one byte
        build_event(event(26, dict(SAMPLES[26], message="m" * 300)), V4)
    with pytest.raises(BuildError):
        build_event(event(5, {"type": "NOPE", "value": 1}), V4)
    with pytest.raises(BuildError):
        build_event(event(8, dict(SAMPLES[8], file_name="a\0b")), V4)


def test_generated_code_imports_each_name_from_one_module():
    """The compiled Event imports parse/build functions and name tables into one namespace,
    each under an alias: two modules' objects of the same name must never share one (the
    later import would silently replace the earlier: wrong bytes)."""
    import re
    from collections import defaultdict
    from binlog_schema.construct_ext.codegen import module_source
    origins = defaultdict(set)
    imports = re.findall(r"^from (\S+) import (\w+)(?: as (\w+))?$", module_source(Event), re.M)
    assert len(imports) > 50
    for module, name, alias in imports:
        origins[alias or name].add((module, name))
    assert {k: v for k, v in origins.items() if len(v) > 1} == {}


def test_primitives_reject_bad_values():
    with pytest.raises(c.ConstructError):
        StatusVars.build([{"code": 200, "value": 1}])


# ------------------------------------------------------------------------------ CLI, corpus


def test_decode_shows_typed_bodies(tmp_path):
    path = tmp_path / "bin.000001"
    fde = {"binlog_version": 4, "server_version": "10.11.19-MariaDB-log", "create_timestamp": 0,
           "header_length": 19,
           "post_header_lengths": [0, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 0, 0, 4, 26],
           "checksum_alg": 1}
    with BinlogWriter(path) as w:
        w.write({"header": {"timestamp": 1, "type_code": 15, "server_id": 1, "log_pos": None,
                            "flags": []}, "body": fde})
        for code, body in ((14, SAMPLES[14]), (2, query()), (165, query(compressed=None)),
                           (16, SAMPLES[16]), (4, SAMPLES[4])):
            w.write(dict(event(code, body), header=dict(event(code, body)["header"],
                                                         log_pos=None)))
    out = subprocess.run([sys.executable, "-m", "binlog_schema", "decode", str(path)],
                         capture_output=True)
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert [e["type"] for e in events] == [
        "FORMAT_DESCRIPTION_EVENT", "USER_VAR_EVENT", "QUERY_EVENT", "QUERY_COMPRESSED_EVENT",
        "XID_EVENT", "ROTATE_EVENT"]
    assert events[1]["body"]["value"]["flags"] == ["UNSIGNED"]
    assert events[2]["body"]["status_vars"][2] == {"code": "CATALOG_NZ", "value": "std"}
    assert events[3]["body"]["query"] == "INSERT INTO t VALUES (1)"
    assert events[4]["body"] == {"xid": 42}
    assert events[5]["body"]["next_file"] == "binlog.000002"
    text = subprocess.run([sys.executable, "-m", "binlog_schema", "decode", "--format", "text",
                           str(path)], capture_output=True).stdout.decode()
    assert "Xid = 42" in text and "Rotate to binlog.000002  pos: 4" in text


def test_corpus_statement_events_are_typed_without_trailing_bytes(corpus):
    raw, trailing, seen = [], [], set()
    for path in corpus:
        for rec in BinlogReader(path, skip_errors=True):
            if rec.gap is not None or rec.kind not in BODIES:
                continue
            seen.add(rec.kind)
            if isinstance(rec.value["body"], (bytes, bytearray)):
                raw.append((path.name, rec.offset))
                # kept raw (lossless), and flagged: corruption is never dressed as unknown
                assert rec.error is not None and "does not fit" in rec.error.message
                continue
            assert rec.error is None, (path, rec.offset, rec.error)
            if rec.value.get("trailing"):
                trailing.append((path.name, rec.offset))
    assert raw == [("corrupt-relay-bin.000624", 91204)]  # status_vars_len runs past the body
    assert trailing == []
    assert {2, 3, 4, 5, 8, 9, 10, 13, 14, 16, 17, 18, 26, 29, 160} <= seen

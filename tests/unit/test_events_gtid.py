"""The GTID event family (binlog_schema/format/events/gtid.py): both directions on hand-made values,
the MySQL 5.6/5.7/8.0 layouts, presence bits, MariaDB flag variants, GTID-set formats, the
serialization-format integers, lying counts; and the corpus tier."""

import construct as c
import pytest

from binlog_schema.format.context import Context
from binlog_schema.format.event_codec import build_event, parse_event
from binlog_schema.format.errors import BinlogError, BuildError, FormatError, TruncatedError
from binlog_schema.construct_ext import serialization as ser
from binlog_schema.format.events import gtid as g
from binlog_schema.format.event_forms import to_plain
from binlog_schema.format.stream import BinlogReader

UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
SID = bytes.fromhex(UUID.replace("-", ""))
MYSQL = Context(checksum=True, server_version="8.0.40", flavor="mysql")
MARIA = Context(checksum=True, server_version="10.11.19-MariaDB-log", flavor="mariadb")


def event(type_code, body):
    return {"header": {"timestamp": 1700000000, "type_code": type_code, "server_id": 1,
                       "log_pos": 1000, "flags": []}, "body": body}


def body_bytes(type_code, body, ctx=MYSQL):
    data = build_event(event(type_code, body), ctx)
    return data[19:-4] if ctx.checksum else data[19:]


def both_ways(type_code, body, ctx=MYSQL):
    """Build the event, parse it back (compiled and interpreted), compare; return the body
    bytes."""
    data = build_event(event(type_code, body), ctx)
    value = parse_event(data, ctx)
    assert to_plain(value["body"]) == to_plain(body)
    assert "trailing" not in value
    assert build_event(value, ctx) == data
    interp = g.BODIES[type_code].parse(data[19:-4], ctx=ctx)
    assert to_plain(interp) == to_plain(body)
    return data[19:-4]


# ------------------------------------------------------------------ MySQL GTID layouts

GTID56 = {"flags": ["MAY_HAVE_SBR"], "sid": UUID, "gno": 7, "lt_type": None,
          "last_committed": None, "sequence_number": None, "commit_timestamps": None,
          "transaction_length": None, "server_versions": None, "commit_group_ticket": None}
GTID57 = dict(GTID56, lt_type=2, last_committed=3, sequence_number=4)
GTID80 = dict(GTID57, commit_timestamps={"immediate": 1700000000123456, "original": None},
              transaction_length=300, server_versions={"immediate": 80040, "original": None})


@pytest.mark.parametrize("type_code", [33, 34])
def test_gtid_56_57_80_layouts(type_code):
    assert len(both_ways(type_code, GTID56)) == 1 + 16 + 8
    assert len(both_ways(type_code, GTID57)) == 25 + 1 + 16
    b80 = both_ways(type_code, GTID80)
    assert len(b80) == 42 + 7 + 3 + 4                      # 300 packs as fc 2c 01
    assert b80[:25] == b"\x01" + SID + (7).to_bytes(8, "little")
    assert b80[25] == 2
    with_ticket = dict(GTID80, commit_group_ticket=9)
    assert both_ways(type_code, with_ticket)[-8:] == (9).to_bytes(8, "little")


def test_anonymous_gtid_zero_sid():
    body = dict(GTID57, flags=[], sid="00000000-0000-0000-0000-000000000000", gno=0)
    assert both_ways(34, body)[:25] == bytes(25)


def test_bit_55_and_bit_31_say_whether_the_originals_follow():
    immediate, original = 1700000000123456, 1600000000000001
    plain = both_ways(33, GTID80)
    ts = int.from_bytes(plain[42:49], "little")
    assert ts == immediate and not ts >> 55 & 1
    sv = int.from_bytes(plain[52:56], "little")
    assert sv == 80040 and not sv >> 31 & 1
    replica = dict(GTID80, commit_timestamps={"immediate": immediate, "original": original},
                   server_versions={"immediate": 80040, "original": 80036})
    b = both_ways(33, replica)
    assert len(b) == len(plain) + 7 + 4
    ts = int.from_bytes(b[42:49], "little")
    assert ts >> 55 == 1 and ts & ~(1 << 55) == immediate
    assert int.from_bytes(b[49:56], "little") == original
    sv = int.from_bytes(b[59:63], "little")
    assert sv >> 31 == 1 and sv & 0x7FFFFFFF == 80040
    assert int.from_bytes(b[63:67], "little") == 80036
    # an original equal to the immediate one is still written when given (lossless)
    same = dict(GTID80, commit_timestamps={"immediate": immediate, "original": immediate})
    assert len(both_ways(33, same)) == len(plain) + 7


def test_gtid_tail_fields_in_order_only():
    gap = dict(GTID57, transaction_length=5)          # no commit timestamps before it
    with pytest.raises(BuildError):
        build_event(event(33, gap), MYSQL)
    no_clock = dict(GTID56, commit_timestamps={"immediate": 1, "original": None})
    with pytest.raises(BuildError):
        build_event(event(33, no_clock), MYSQL)
    with pytest.raises(BuildError):                   # 56 bits do not fit before bit 55
        build_event(event(33, dict(GTID80, commit_timestamps={"immediate": 1 << 55,
                                                              "original": None})), MYSQL)


def test_unknown_logical_clock_type_stays_trailing():
    raw = b"\x01" + SID + (5).to_bytes(8, "little") + b"\x01" + bytes(8)
    value = parse_event(_raw_event(33, raw), MYSQL)
    assert value["body"]["lt_type"] == 1 and value["body"]["last_committed"] is None
    assert value["trailing"] == bytes(8)
    assert build_event(value, MYSQL) == _raw_event(33, raw)


def _raw_event(type_code, body, ctx=MYSQL):
    import zlib
    size = 19 + len(body) + (4 if ctx.checksum else 0)
    head = (bytes.fromhex("00f15365") + bytes((type_code,)) + (1).to_bytes(4, "little")
            + size.to_bytes(4, "little") + (1000).to_bytes(4, "little") + b"\0\0")
    crc = zlib.crc32(head + body).to_bytes(4, "little") if ctx.checksum else b""
    return head + body + crc


# ------------------------------------------------------------- serialization format (42)

@pytest.mark.parametrize("value,hexed", [
    (0, "00"), (1, "02"), (127, "fe"), (128, "0102"), (65535, "fbff07"),
    ((1 << 56) - 1, "7fffffffffffffff"), (1 << 56, "ff0000000000000001"),
    ((1 << 64) - 1, "ffffffffffffffffff")])
def test_varlen_unsigned(value, hexed):
    assert g.VarUInt.build(value) == bytes.fromhex(hexed)
    assert g.VarUInt.parse(bytes.fromhex(hexed)) == value
    assert g.VarUInt.compile().parse(bytes.fromhex(hexed)) == value


@pytest.mark.parametrize("value,hexed", [
    (0, "00"), (-1, "02"), (1, "04"), (65535, "f3ff0f"), (-65535, "ebff0f"),
    (-65536, "fbff0f"), (-(1 << 63), "ffffffffffffffffff"), ((1 << 63) - 1, "fffeffffffffffffff")])
def test_varlen_signed_zigzag(value, hexed):
    # the three 65535/-65535/-65536 encodings are the examples of MySQL's serialization readme
    assert g.VarSInt.build(value) == bytes.fromhex(hexed)
    assert g.VarSInt.parse(bytes.fromhex(hexed)) == value


def test_varlen_refuses_longer_than_needed_and_short_input():
    with pytest.raises(c.ValidationError):
        g.VarUInt.parse(bytes.fromhex("0100"))         # 0 in 2 bytes
    with pytest.raises(c.StreamError):
        g.VarUInt.parse(bytes.fromhex("fbff"))         # 3-byte integer, 2 bytes


TAGGED = {"last_non_ignorable_field_id": 0, "flags": [], "sid": UUID, "gno": 3, "tag": "mytag",
          "last_committed": 0, "sequence_number": 1, "immediate_commit_timestamp": 1770368687207196,
          "original_commit_timestamp": None, "transaction_length": 296,
          "immediate_server_version": 90600, "original_server_version": None,
          "commit_group_ticket": None, "unknown_fields": None}


def test_tagged_gtid_both_ways_and_absent_fields():
    b = both_ways(42, TAGGED)
    assert b[0] == 0x02 and b[1] >> 1 == len(b)      # version 1, then the whole size
    full = dict(TAGGED, original_commit_timestamp=1, original_server_version=80040,
                commit_group_ticket=12, flags=["MAY_HAVE_SBR"], gno=-5)
    assert len(both_ways(42, full)) > len(b)
    sparse = {k: None for k in TAGGED}
    sparse["last_non_ignorable_field_id"] = 0
    sparse["gno"] = 1
    assert both_ways(42, sparse) == bytes.fromhex("02" "0a" "00" "04" "04")


def test_tagged_gtid_keeps_unknown_fields_of_newer_servers():
    newer = dict(TAGGED, unknown_fields=bytes.fromhex("1801"))   # a field 12 = 0
    assert both_ways(42, newer).endswith(bytes.fromhex("1801"))


def test_tagged_message_size_follows_mysql_rule_at_the_varlen_boundary():
    # MySQL's size counts the size varint as long as the *payload* size needs: around a payload
    # of 127 bytes the written size (>= 128) takes one byte more than it counts
    for n in range(0, 33):
        for gno in (1, 1 << 40):
            body = dict(TAGGED, tag="t" * n, gno=gno, commit_group_ticket=(1 << 62))
            b = both_ways(42, body)
            size = ser.var_read(__import__("io").BytesIO(b[1:]))
            payload = len(b) - 1 - ser.var_size(size) - 1
            assert size == 1 + ser.var_size(payload) + 1 + payload


def test_tagged_gtid_tag_longer_than_32_bytes_refused():
    with pytest.raises(BuildError):
        build_event(event(42, dict(TAGGED, tag="x" * 33)), MYSQL)


# ---------------------------------------------------------------- PREVIOUS_GTIDS (35)

def test_previous_gtids_untagged_and_tagged_words():
    sids = [{"sid": UUID, "tag": None, "n_intervals": 2,
             "intervals": [{"start": 1, "end": 5}, {"start": 9, "end": 10}]}]
    b = both_ways(35, {"format": "UNTAGGED", "n_sids": 1, "sids": sids})
    assert b[:8] == (1).to_bytes(8, "little") and len(b) == 8 + 16 + 8 + 32
    tagged = [dict(sids[0], tag=""), {"sid": UUID, "tag": "mytag", "n_intervals": 1,
                                       "intervals": [{"start": 1, "end": 3}]}]
    t = both_ways(35, {"format": "TAGGED", "n_sids": 2, "sids": tagged})
    assert t[:8] == bytes.fromhex("0102000000000001")   # format, n_sids << 8, format << 56
    assert t[8 + 16] == 0                               # empty tag: varlen length 0
    assert both_ways(35, {"format": "UNTAGGED", "n_sids": 0, "sids": []}) == bytes(8)


def test_previous_gtids_counts_are_derived():
    value = {"format": "UNTAGGED", "sids": [{"sid": UUID, "tag": None,
                                             "intervals": [{"start": 1, "end": 2}]}]}
    b = body_bytes(35, value)
    assert b[:8] == (1).to_bytes(8, "little") and b[24:32] == (1).to_bytes(8, "little")


def test_previous_gtids_lying_counts_are_typed_errors():
    lying = (1).to_bytes(8, "little") + SID + (1 << 40).to_bytes(8, "little") + bytes(16)
    with pytest.raises(TruncatedError):
        parse_event(_raw_event(35, lying), MYSQL)
    with pytest.raises(TruncatedError):
        parse_event(_raw_event(35, ((1 << 56) - 1).to_bytes(8, "little")), MYSQL)
    with pytest.raises(FormatError):      # tagged word without the format in byte 0
        parse_event(_raw_event(35, bytes.fromhex("0001000000000001")), MYSQL)


# ------------------------------------------------------- group replication, XA, heartbeats

def test_transaction_context_view_change_xa_heartbeats_both_ways():
    both_ways(36, {"server_uuid_length": 36, "thread_id": 5, "gtid_specified": 1,
                   "snapshot_version_length": 0, "write_set_count": 2, "read_set_count": 0,
                   "server_uuid": UUID, "snapshot_version": b"", "write_set": ["1", "22"],
                   "read_set": []})
    v = both_ways(37, {"view_id": "1700:1", "seq_number": 3, "cert_info_count": 1,
                       "certification_info": [{"key": "k", "value": "v" * 300}]})
    assert v[:40] == b"1700:1" + bytes(34) and len(v) == 52 + 2 + 1 + 4 + 300
    x = both_ways(38, {"one_phase": 0, "format_id": 1, "gtrid_length": 3, "bqual_length": 1,
                       "gtrid": b"\x00\xff\x10", "bqual": "b"})
    assert x == b"\x00" + bytes.fromhex("01000000" "03000000" "01000000") + b"\x00\xff\x10b"
    assert both_ways(27, {"log_ident": "binlog.000001"}) == b"binlog.000001"
    hb = both_ways(41, {"fields": [{"type": "LOG_FILENAME", "value": "binlog.000001"},
                                   {"type": "LOG_POSITION", "value": 123456},
                                   {"type": 9, "value": b"\x01\x02"},
                                   {"type": "END", "value": None}]})
    assert hb.endswith(b"\x09\x02\x01\x02\x00")


def test_xa_prepare_lying_length_is_truncated_not_allocated():
    body = b"\x00" + (1).to_bytes(4, "little") + (0xFFFFFFFF).to_bytes(4, "little") + bytes(4)
    with pytest.raises(TruncatedError):
        parse_event(_raw_event(38, body), MYSQL)


# ------------------------------------------------------------------------ MariaDB

MGTID = {"seq_no": 5, "domain_id": 0, "flags2": ["TRANSACTIONAL", "ALLOW_PARALLEL"],
         "commit_id": None, "xid": None, "flags_extra": [], "extra_engines": None,
         "sa_seq_no": None, "thread_id": None}


def test_mariadb_gtid_plain_is_padded_to_19_bytes():
    b = both_ways(162, MGTID, MARIA)
    assert b == (5).to_bytes(8, "little") + bytes(4) + b"\x0c" + bytes(6)


@pytest.mark.parametrize("changes,size", [
    ({"flags2": ["GROUP_COMMIT_ID", "TRANSACTIONAL"], "commit_id": 62}, 21),
    ({"flags2": ["PREPARED_XA"], "xid": {"format_id": 1, "gtrid_length": 2, "bqual_length": 0,
                                         "gtrid": "x1", "bqual": ""},
      "flags_extra": ["MULTI_ENGINE"], "extra_engines": 255}, 13 + 6 + 2 + 2),
    ({"flags2": ["STANDALONE", "COMPLETED_XA"],
      "xid": {"format_id": 7, "gtrid_length": 2, "bqual_length": 8, "gtrid": "x2",
              "bqual": "branch-b"}}, 13 + 6 + 10),
    ({"flags2": ["STANDALONE", "DDL"], "flags_extra": ["START_ALTER"]}, 19),
    ({"flags2": ["STANDALONE", "DDL"], "flags_extra": ["COMMIT_ALTER"], "sa_seq_no": 18},
     13 + 1 + 8),
    ({"flags2": ["STANDALONE", "DDL"], "flags_extra": ["ROLLBACK_ALTER"], "sa_seq_no": 21},
     13 + 1 + 8),
    ({"flags_extra": ["THREAD_ID"], "thread_id": 1423}, 19),           # 11.5+: 18 + 1 pad
    ({"flags2": ["GROUP_COMMIT_ID"], "commit_id": 1,
      "flags_extra": ["MULTI_ENGINE", "ROLLBACK_ALTER", "THREAD_ID"], "extra_engines": 1,
      "sa_seq_no": 2, "thread_id": 3}, 21 + 1 + 1 + 8 + 4),
])
def test_mariadb_gtid_flag_variants(changes, size):
    assert len(both_ways(162, dict(MGTID, **changes), MARIA)) == size


def test_mariadb_gtid_thread_id_follows_the_flags_extra_byte():
    b = both_ways(162, dict(MGTID, flags_extra=["THREAD_ID"], thread_id=0x58F), MARIA)
    assert b[13:] == bytes.fromhex("10" "8f050000" "00")   # as MariaDB 11.8.5 writes it


def test_mariadb_gtid_field_and_flag_must_agree():
    for bad in ({"commit_id": 5}, {"flags2": ["GROUP_COMMIT_ID"]},
                {"flags_extra": ["THREAD_ID"]}, {"sa_seq_no": 3},
                {"flags2": ["PREPARED_XA"]}):
        with pytest.raises(BuildError):
            build_event(event(162, dict(MGTID, **bad)), MARIA)


def test_mariadb_gtid_flags_given_as_ints_build_the_same_bytes():
    named = body_bytes(162, dict(MGTID, flags2=["GROUP_COMMIT_ID", "TRANSACTIONAL"],
                                 commit_id=9), MARIA)
    as_int = body_bytes(162, dict(MGTID, flags2=0x06, commit_id=9), MARIA)
    assert named == as_int


def test_mariadb_gtid_nonzero_padding_is_a_format_error():
    body = (1).to_bytes(8, "little") + bytes(4) + b"\x0c" + bytes(5) + b"\x01"
    with pytest.raises(FormatError):
        parse_event(_raw_event(162, body), MARIA)


def test_mariadb_gtid_list_binlog_checkpoint_start_encryption():
    empty = both_ways(163, {"flags": [], "count": 0, "gtids": []}, MARIA)
    assert empty == bytes(6)                               # count, then 2 zero bytes
    gtids = [{"domain_id": d, "server_id": s, "seq_no": n}
             for d, s, n in ((1, 1, 1), (2, 1, 1), (2, 7, 2), (0, 1, 25))]
    b = both_ways(163, {"flags": ["IGN_GTIDS"], "count": 4, "gtids": gtids}, MARIA)
    assert int.from_bytes(b[:4], "little") == (0x2 << 28) | 4 and len(b) == 4 + 4 * 16
    assert both_ways(161, {"binlog_file": "mariadb-bin.000001"}, MARIA) == \
        (18).to_bytes(4, "little") + b"mariadb-bin.000001"
    assert len(both_ways(164, {"scheme": 1, "key_version": 1, "nonce": bytes(range(12))},
                         MARIA)) == 17


def test_mariadb_gtid_list_count_beyond_body():
    body = (3).to_bytes(4, "little") + bytes(16)
    with pytest.raises(TruncatedError) as e:
        parse_event(_raw_event(163, body, MARIA), MARIA)
    assert e.value.offset == 19 + 4 + 16


# ------------------------------------------------------------------------ corpus tier

MINE = set(g.BODIES)


def test_corpus_events_of_this_family_are_declared_not_raw(corpus):
    counts = {}
    for path in corpus:
        try:
            records = list(BinlogReader(path, skip_errors=True))
        except BinlogError:
            continue
        for rec in records:
            for r in [rec] + list(rec.inner or []):
                if r.kind not in MINE:
                    continue
                assert r.error is None, (path.name, r.offset, r.error)
                assert not isinstance(r.value["body"], (bytes, bytearray)), (path.name, r.offset)
                assert not r.value.get("trailing"), (path.name, r.offset)
                assert build_event(r.value, r.ctx.replace(offset=r.offset)) == r.raw
                counts[r.kind] = counts.get(r.kind, 0) + 1
    assert {33, 34, 35, 42, 161, 162, 163} <= set(counts)


# ------------------------------------------------------------------ compiled == interpreted

@pytest.mark.parametrize("type_code,body,ctx", [
    (33, GTID80, MYSQL), (42, TAGGED, MYSQL), (162, dict(MGTID, flags_extra=["THREAD_ID"],
                                                         thread_id=5), MARIA),
    (35, {"format": "TAGGED", "n_sids": 1, "sids": [
        {"sid": UUID, "tag": "a", "n_intervals": 1, "intervals": [{"start": 1, "end": 2}]}]},
     MYSQL),
    (163, {"flags": [], "count": 0, "gtids": []}, MARIA)])
def test_each_body_compiles_and_agrees_with_the_interpreter(type_code, body, ctx):
    decl = g.BODIES[type_code]
    data = decl.build(body, ctx=ctx)
    compiled = decl.compile()
    assert compiled.build(body, ctx=ctx) == data
    assert to_plain(compiled.parse(data, ctx=ctx)) == to_plain(decl.parse(data, ctx=ctx)) \
        == to_plain(body)


def test_bad_values_fail_the_same_way_interpreted():
    with pytest.raises(c.CheckError):
        g.GtidBody.build(dict(GTID56, commit_timestamps={"immediate": 1, "original": None}))
    with pytest.raises(c.CheckError):
        g.MariaGtidBody.build(dict(MGTID, commit_id=3))


def test_compiled_path_never_falls_back_for_this_family():
    """parse_event/build_event re-run the interpreter when compiled code raises: that must
    not happen for valid events (it would hide, e.g., a string constant emitted unquoted)."""
    import io
    from binlog_schema.format.compiled import unit
    cases = [(33, GTID80, MYSQL), (33, GTID56, MYSQL), (42, TAGGED, MYSQL),
             (35, {"format": "TAGGED", "n_sids": 1, "sids": [
                 {"sid": UUID, "tag": "a", "n_intervals": 1,
                  "intervals": [{"start": 1, "end": 2}]}]}, MYSQL),
             (41, {"fields": [{"type": "LOG_POSITION", "value": 4},
                              {"type": "END", "value": None}]}, MYSQL),
             (162, dict(MGTID, flags2=["PREPARED_XA"], xid={
                 "format_id": 1, "gtrid_length": 1, "bqual_length": 0, "gtrid": "x",
                 "bqual": ""}), MARIA),
             (163, {"flags": ["IGN_GTIDS"], "count": 1,
                    "gtids": [{"domain_id": 1, "server_id": 2, "seq_no": 3}]}, MARIA)]
    for type_code, body, ctx in cases:
        root = {"ctx": ctx}
        root["_params"] = root
        out = io.BytesIO()
        unit("event")["build"](event(type_code, body), out, root)
        value = unit("event")["parse"](io.BytesIO(out.getvalue()), root)
        assert to_plain(value["body"]) == to_plain(body), type_code


def test_compiled_flag_conditions_with_int_flags():
    import io
    from binlog_schema.format.compiled import unit
    root = {"ctx": MARIA}
    root["_params"] = root
    out = io.BytesIO()
    body = dict(MGTID, flags2=0x06, commit_id=9, flags_extra=0x10, thread_id=4)
    unit("event")["build"](event(162, body), out, root)
    named = dict(MGTID, flags2=["GROUP_COMMIT_ID", "TRANSACTIONAL"], commit_id=9,
                 flags_extra=["THREAD_ID"], thread_id=4)
    assert out.getvalue() == build_event(event(162, named), MARIA)
    assert out.getvalue()[19:-4] == bytes.fromhex("0500000000000000" "00000000" "06"
                                                  "0900000000000000" "10" "04000000")


def test_transaction_length_null_form_is_refused_not_dropped():
    raw = (b"\x01" + SID + (5).to_bytes(8, "little") + b"\x02" + bytes(16)
           + (123).to_bytes(7, "little") + b"\xfb")
    with pytest.raises(FormatError):
        parse_event(_raw_event(33, raw), MYSQL)

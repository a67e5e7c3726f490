"""Regression tests of the fuzz campaign's findings that are not single-event vectors (those
are in specs/negative/fuzz.yaml and specs/fuzz/lossless.yaml): row images, JSON-safe row
values, typed-value builders and the typed TABLE_MAP model."""

from __future__ import annotations

import decimal
import json
import struct
import time

from binlog_schema.construct_ext import errors
import pytest

from binlog_schema import Context, build_event, parse_event
from binlog_schema.format.errors import BuildError
from binlog_schema.format.forms.json_safe import from_jsonable, jsonable
from binlog_schema.changes.table_map import Column, TableMap
from binlog_schema.format.values import temporal as t
from binlog_schema.format.values.codecs import SetValue
from binlog_schema.format.values.decimal_bin import decimal_build
from binlog_schema.format.values.rows import JsonDiff, RowsCodec


def table(*cols, flavor="mysql"):
    return TableMap(table_id=1, database="d", table="t", flavor=flavor, columns=[
        Column(i, **kw) for i, kw in enumerate(cols)])


def test_rows_data_for_images_of_no_columns_is_refused_not_looped_on():
    """A rows event with column_count 0 and row bytes: each image takes 0 bytes, and the
    decoder looped forever."""
    codec = RowsCodec(table({"type": "LONG"}))
    body = {"column_count": 0, "columns_present": [], "rows": b"\x00\x01\x02"}
    t0 = time.process_time()
    with pytest.raises(errors.ValidationError, match="no columns"):
        codec.decode(body, 30)
    assert time.process_time() - t0 < 0.1
    assert codec.decode({**body, "rows": b""}, 30) == []


def test_value_options_null_is_refused():
    tm = table({"type": "LONG"}, {"type": "JSON", "pack_length": 4})
    body = {"column_count": 2, "columns_present": [True, False],
            "columns_after": [True, False], "rows": b"\x00\x01\x00\x00\x00\xfb"}
    with pytest.raises(errors.ValidationError, match="NULL"):
        RowsCodec(tm).decode(body, 39)


def test_partial_json_bits_of_absent_columns_are_kept():
    """PARTIAL_UPDATE_ROWS after image with PARTIAL_JSON and a partial bit set for a JSON
    column that is not in the image: the bit was dropped on rebuild."""
    tm = table({"type": "LONG"}, {"type": "JSON", "pack_length": 4})
    codec = RowsCodec(tm)
    before = b"\x00" + (7).to_bytes(4, "little")   # null bits, LONG 7
    after = b"\x01" + b"\x01" + b"\x00" + (8).to_bytes(4, "little")  # options, json bits
    body = {"column_count": 2, "columns_present": [True, False],
            "columns_after": [True, False], "rows": before + after}
    rows = codec.decode(body, 39)
    assert rows[0][1]["_partial_json_bits"] == 1
    assert codec.encode(rows, body, 39) == before + after
    # the usual case (no partial bit) keeps no extra key
    plain = before + b"\x01\x00\x00" + (8).to_bytes(4, "little")
    rows = codec.decode({**body, "rows": plain}, 39)
    assert "_partial_json_bits" not in rows[0][1]
    assert codec.encode(rows, body, 39) == plain
    assert not isinstance(rows[0][1][0], JsonDiff)


@pytest.mark.parametrize("value", [float("nan"), struct.unpack("<d", bytes.fromhex(
    "010000000000f87f"))[0], float("inf"), -float("inf"), -0.0, 1.5])
def test_json_safe_floats_keep_their_bits(value):
    col = Column(0, "DOUBLE")
    text = json.dumps(jsonable(value), allow_nan=False)  # strict JSON
    back = from_jsonable(col, json.loads(text))
    assert struct.pack("<d", back) == struct.pack("<d", value)


def test_json_safe_set_with_bits_past_its_members_is_a_number():
    col = Column(0, "STRING", real_type="SET", pack_length=2, set_values=["a", "b"])
    v = SetValue(0b101, ("a",))  # bit 2 has no member
    assert jsonable(v) == 0b101
    assert from_jsonable(col, jsonable(v)).bits == 0b101
    assert jsonable(SetValue(0b11, ("a", "b"))) == ["a", "b"]


@pytest.mark.parametrize("col, value", [
    (Column(0, "DATETIME2", fsp=2), t.DateTime(9999, 12, 31, 31, 45, 62, 1260000)),
    (Column(0, "DATETIME2", fsp=0), t.DateTime(-2210, 9, 31, 31, 59, 59)),
    (Column(0, "TIMESTAMP2", fsp=2), t.Timestamp(1700000000, 2550000)),
    (Column(0, "TIME2", fsp=4), t.Time(True, 1, 2, 3, 6553500)),
])
def test_json_safe_temporal_values_out_of_the_usual_ranges(col, value):
    """Stored fractions of 7 digits, negative years: their ISO text reads back."""
    back = from_jsonable(col, json.loads(json.dumps(jsonable(value))))
    assert back == value
    if isinstance(value, t.Timestamp):
        assert value.to_python() is not None


@pytest.mark.parametrize("build, value, fsp", [
    (t.time_old_build, t.Time(False, -2000, 0, 0), None),
    (t.time_old_build, t.Time(True, 0, 0, 0), None),           # negative zero
    (t.time_old_build, t.Time(False, 1, 2, 3, 5), None),       # a fraction TIME cannot hold
    (t.datetime_old_build, t.DateTime(2024, 1, 1, 0, 0, 0, 1), None),
    (t.datetime_old_build, t.DateTime(10 ** 20, 1, 1), None),
    (t.timestamp_old_build, t.Timestamp(-1), None),
    (t.timestamp2_build, t.Timestamp(1 << 32), 0),
    (t.timestamp2_build, t.Timestamp(1, 999999), 1),           # wrapped to 990000 before
    (t.timestamp2_build, t.Timestamp(1, 5), 0),
    (t.datetime2_build, t.DateTime(2024, 13, 1), 0),
    (t.datetime2_build, t.DateTime(1 << 30, 1, 1), 0),
    (t.time2_build, t.Time(False, 1 << 12, 0, 0), 0),
    (t.time2_build, t.Time(True, 0, 0, 0, 0), 3),
    (t.date_build, t.Date(2024, 16, 1), None),
])
def test_temporal_builders_refuse_what_they_cannot_store(build, value, fsp):
    with pytest.raises(errors.IntegerError):
        build(value, bytearray()) if fsp is None else build(value, bytearray(), fsp)


def test_time2_extremes_round_trip():
    for fsp in range(7):
        for v in (t.Time(True, 2048, 0, 0), t.Time(False, 2047, 63, 63, 999999 if fsp >= 5
                                                      else 0)):
            out = bytearray()
            t.time2_build(v, out, fsp)
            assert t.time2_parse(bytes(out), 0, fsp)[0] == v


@pytest.mark.parametrize("value, p, s", [
    (decimal.Decimal("1.5"), 220, 23),      # no such DECIMAL: parsing refused it
    (decimal.Decimal("1.005"), 5, 2),       # was rounded silently
    ("abc", 5, 2), (decimal.Decimal("NaN"), 5, 2)])
def test_decimal_build_refuses(value, p, s):
    with pytest.raises(errors.LayoutError):
        decimal_build(value, bytearray(), p, s)


def test_decimal_build_keeps_trailing_zeros_allowed():
    out = bytearray()
    decimal_build(decimal.Decimal("1.500"), out, 5, 2)
    from binlog_schema.format.values.decimal_bin import decimal_parse
    assert decimal_parse(bytes(out), 0, 5, 2)[0] == decimal.Decimal("1.50")


def test_enum_member_outside_its_charset_is_a_build_error():
    tm = TableMap(table_id=1, database="d", table="t", flavor="mysql",
                  server_version="8.0.40", row_metadata="full", columns=[
                      Column(0, "STRING", real_type="ENUM", pack_length=1, collation_id=11,
                             name="e", enum_values=["жあ"])])
    with pytest.raises(BuildError) as e:
        tm.to_bytes()
    assert e.value.path == "columns[0]"


def test_typed_table_map_keeps_every_tlv_it_cannot_regenerate():
    """Two SIGNEDNESS TLVs (the second wins on the columns): the first is kept raw at its
    position, and the model rebuilds the event."""
    from binlog_schema.changes.table_map import table_map_from_event
    ctx = Context(server_version="8.0.40", flavor="mysql")
    event = {"header": {"timestamp": 0, "type_code": 19, "server_id": 1, "log_pos": None,
                        "flags": []},
             "body": {"table_id": 1, "flags": [], "database": "d", "table": "t",
                      "column_types": ["LONG"], "column_metadata": [None],
                      "null_bitmap": [False],
                      "optional_metadata": [{"type": "SIGNEDNESS", "value": [True]},
                                            {"type": "SIGNEDNESS", "value": [False]}]}}
    raw = build_event(event, ctx)
    tm = table_map_from_event(parse_event(raw, ctx), ctx)
    assert tm.columns[0].unsigned is False
    assert tm.extra_optional_metadata == [{"position": 0, "type": 1, "hex": "80"}]
    assert TableMap.from_dict(tm.to_dict()).to_bytes() == raw


def test_a_bad_event_inside_a_transaction_payload_loses_no_other():
    """Eager decoding of a TRANSACTION_PAYLOAD: an inner event that does not parse lost
    every inner event (rec.inner stayed None); now it is delivered with its error (offsets in
    the payload's data, as lazy records have them) between the good ones."""
    import io

    from binlog_schema import BinlogReader, BinlogWriter
    from binlog_schema.format.errors import BinlogError as Typed
    from binlog_schema.format.facts.compression import payload_body
    ctx = Context(checksum=False)
    inner = [build_event(table(*[{"type": "LONG"}] * k).to_event(), ctx) for k in (1, 2, 3)]
    bad = bytearray(inner[1])
    bad[33] = 0xFB  # its column count: NULL
    events = inner[0] + bytes(bad) + inner[2]
    out = io.BytesIO()
    w = BinlogWriter(out)
    fde = {"binlog_version": 4, "server_version": "8.0.40", "create_timestamp": 0,
           "header_length": 19, "post_header_lengths": [0] * 41, "checksum_alg": 1}
    w.write({"header": {"timestamp": 1, "type_code": 15, "server_id": 1, "log_pos": None,
                        "flags": []}, "body": fde})
    at = w.write({"header": {"timestamp": 1, "type_code": 40, "server_id": 1,
                             "log_pos": None, "flags": []},
                  "body": payload_body(events, "NONE")})
    recs = list(BinlogReader(out.getvalue(), skip_errors=True))
    payload = recs[-1]
    assert payload.error is None and len(payload.inner) == 3
    assert [r.error is None for r in payload.inner] == [True, False, True]
    assert [r.offset for r in payload.inner] == [0, len(inner[0]), len(inner[0]) + len(bad)]
    assert payload.inner[1].error.offset == len(inner[0]) + 33
    assert payload.inner[2].value["body"]["column_count"] == 3
    with pytest.raises(Typed) as e:
        list(BinlogReader(out.getvalue()))
    assert e.value.offset == at and e.value.path.startswith(f"payload[{len(inner[0])}]")


@pytest.mark.parametrize("ty, raw", [("FLOAT", "0100807f"), ("FLOAT", "0000c0ff"),
                                     ("DOUBLE", "010000000000f07f"), ("VECTOR", None)])
def test_json_safe_stored_nans_rebuild_their_bytes(ty, raw):
    """A NaN read from a row keeps its stored bytes through the JSON-safe form (a VECTOR with
    a NaN: each element)."""
    from binlog_schema.format.values.codecs import codec_for
    col = Column(0, ty, pack_length={"FLOAT": 4, "DOUBLE": 8, "VECTOR": 4}[ty])
    codec = codec_for(col)
    data = bytes.fromhex(raw) if raw else b"\x0c\x00\x00\x00" + bytes.fromhex(
        "0000c07f" "cdcc0c40" "0000807f")
    value, _ = codec.parse(data, 0)
    back = from_jsonable(col, json.loads(json.dumps(jsonable(value), allow_nan=False)))
    out = bytearray()
    codec.build(back, out)
    assert bytes(out) == data


@pytest.mark.parametrize("raw", ["000080", "ffff7f", "000000", "010000", "ffffff"])
def test_old_time_every_three_byte_pattern_at_the_edges_rebuilds(raw):
    """Fuzz finding (rows target): the old TIME's most negative value, -2^23 (bytes 00 00
    80), decoded to -838:86:08 and was refused by the builder as out of range."""
    from binlog_schema.format.values import temporal as t
    data = bytes.fromhex(raw)
    value, end = t.time_old_parse(data, 0)
    out = bytearray()
    t.time_old_build(value, out)
    assert end == 3 and bytes(out) == data


def test_json_diff_in_a_non_canonical_encoding_survives_the_json_safe_form():
    """Fuzz finding (rows target): a PARTIAL_UPDATE JSON diff whose lengths are not in their
    shortest encoding decodes to a document holding the operations and the raw bytes (so it
    rebuilds exactly); its JSON-safe form assumed a plain list of operations."""
    from binlog_schema.format.values.json_binary import JsonDocument
    from binlog_schema.format.values.json_diff import decode_diff, encode_diff
    from binlog_schema.format.values.rows import JsonDiff
    # REPLACE at path "" with a JSON null literal; the path length 0 written in 3 bytes
    canonical = bytes([0, 0, 2, 4, 0])  # op, path length 0, value length 2, literal null
    longer = bytes([0, 0xfc, 0, 0, 2, 4, 0])
    assert isinstance(decode_diff(canonical), list)
    ops = decode_diff(longer)
    assert isinstance(ops, JsonDocument) and encode_diff(ops) == longer
    col = Column(0, "JSON", pack_length=4)
    back = from_jsonable(col, json.loads(json.dumps(jsonable(JsonDiff(ops)))))
    assert isinstance(back, JsonDiff) and encode_diff(back.ops) == longer


def test_columns_of_one_name_keep_a_key_each():
    """A table map whose two columns have one name (no server's; a damaged or built one):
    the row dict was keyed by the name, so the second column's value replaced the first's
    and the row rebuilt wrong (the mutation test's finding: NULL, 0 read as {'_': 0})."""
    from binlog_schema.changes.row_change import column_names
    tm = table({"type": "TINY", "name": "_", "nullable": True},
               {"type": "TINY", "name": "_", "nullable": True},
               {"type": "TINY", "name": "@2", "nullable": True})
    keys = column_names(tm)
    assert keys == ["_", "@2", "@3"]
    codec = RowsCodec(tm, keys)
    body = {"column_count": 3, "columns_present": [True] * 3}
    rows = [{"_": None, "@2": 0, "@3": 7}]
    data = codec.encode(rows, body, 30)
    assert codec.decode({**body, "rows": data}, 30) == rows
    assert codec.encode(codec.decode({**body, "rows": data}, 30), body, 30) == data


# inputs of the damage and split targets (fuzz/harness.py): the fuzzer's choices of a corpus
# file and its damage; each once a finding
DAMAGE_FINDINGS = {
    # a relay log without its FORMAT_DESCRIPTION, its last two events copied over a header:
    # the copy of the QUERY (no log position proves it) is lost to the damaged header's
    # event after it, which the log positions prove (it overlaps the copied STOP)
    # a relay log's last events copied from inside a QUERY (its body read as a damaged
    # header): a QUERY, then the relay log's own STOP, followed by a FORMAT_DESCRIPTION's
    # body. Only the header after it vouches for the QUERY; it ends by the next proof, a
    # FORMAT_DESCRIPTION with its server id and timestamp (before, only a proof by log
    # positions counted as a neighbour: the QUERY was SKIPPED)
    # a relay log's FORMAT_DESCRIPTION, ROTATE and FORMAT_DESCRIPTION copied after a QUERY
    # whose size lands inside the copy: the copied ROTATE ends on the copied
    # FORMAT_DESCRIPTION (its server id, its timestamp), but the damaged header is garbage
    # and the next proof's timestamp damaged (before, only those two were neighbours: the
    # ROTATE was SKIPPED)
    "damage": ["acc9eba7e4f8b2cdf6d818f92f",
               "010000001b083eac01a9963bd8927f000000002800001357d5225f5de0951db8fa07bb",
               "5069cd7954ab2c8fbf28ffffa0892805b3c85ed246a41ee4cbde91bc0d2fad1767b801000000"
               "000000005e5e5e5e5eab2c8fbfffffffa0895e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e56"
               "dfdfffffdfdfdfdfdfab18269a25",
               # a byte flipped into START_ENCRYPTION's type code, mid-file (log positions
               # prove its size): the events after it were taken as ciphertext, untouched
               # ones with them
               "c05acbffa5ffffffffff5aff478d1ff226",
               # (the harness's: a file without checksums, then a second file whose
               # FORMAT_DESCRIPTION is damaged, the first file's events copied after it: read
               # in no context, as the second file's magic number says, not the first file's)
               "404040404040404040404093bbbbbbbb0000000000000073697a6540404093bbbbbbbb000000"
               "00fbffff72697a6500bbbbbbbb9393ae683b76",
               # a v3 file cut, then a v4 file without checksums: the FORMAT_DESCRIPTION's
               # log position was read as a v3 one (its start), so it proved nothing of the
               # QUERY after it, whose next header is damaged: SKIPPED though proven
               "6826fc5b01000e4021279e96",
               # a relay log's ROTATE (artificial: timestamp 0) and the master's
               # FORMAT_DESCRIPTION copied inside a damaged event, garbage after them: only
               # the FORMAT_DESCRIPTION vouches for the ROTATE, and no neighbour shares its
               # timestamp (the ROTATE was SKIPPED)
               "d6d6d6d6d6d6d9d6d88e8ed6d6d6d671a36222a2228e8e8e228e3375",
               # a QUERY and the relay log's own STOP (another server id, a second later)
               # untouched after a damaged header; an INTVAR header spliced from the STOP's
               # last bytes and a copy, whose log positions chain with the copy after it,
               # was taken as proof over them (the QUERY was SKIPPED)
               "479340c2bfbfbfff93bbff40bbbbbbbbbbbbbbbbbbbbbb1fbbbbbbcfbbbbbbbbbbbbbbbbbbbb",
               # (the harness's) a v3 file's last event, a ROTATE, moved 44 bytes back by a
               # deleted range, the bytes after it from the middle of a QUERY: nothing can
               # confirm its size and the reader SKIPS it, rightly; the harness took its log
               # position (in v3 its original start) for its end, which it equals by chance
               "ffffffb2b2b27d090a00b2b2b2b221b247b2b2b2ffffffb2b2b27d0900e5000a00b24f"],
    # a v3 file whose START_EVENT_V3 has bytes inserted and its size 76: no event for the
    # whole-file reader, one for the split reader
    "split": ["59eaec711f0b65dc",
              "f66b25730b0091b689542d8639eb69ba659916eb11260c76c31c4caa44d773dc",
              # a file with checksums whose GTID event's CRC32 fails, a 5.1
              # FORMAT_DESCRIPTION copied inside it: the reader resynchronises onto it and
              # reads the rest in its context; the pre-scan, not checking CRC32s, walked on
              # and cut after it, so the later split was read in the file's first context
              "ae97976197976f97d0b0c7" + "ff" * 86 + "68c4769797959731"],
}


@pytest.mark.parametrize("name,hexed", [(n, h) for n, hs in DAMAGE_FINDINGS.items()
                                        for h in hs])
def test_damage_and_split_findings(corpus, name, hexed):
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
    from fuzz import harness
    harness.warm_up(name)
    harness.TARGETS[name][0](bytes.fromhex(hexed))   # (a Finding fails the test)


def test_the_walk_without_values_refuses_the_decimal_digits_the_codecs_refuse():
    """flashback cuts images by a walk that makes no values (row_spans): a DECIMAL group of
    more digits than it may hold (a damaged file without checksums) is refused there as the
    codecs refuse it, not copied into the inverted event."""
    from binlog_schema.format.values.decimal_bin import decimal_size
    from binlog_schema.format.values.row_count import row_spans
    tm = table({"type": "NEWDECIMAL", "precision": 10, "scale": 0}, {"type": "LONG"})
    codec = RowsCodec(tm)
    good = bytearray(b"\x00")
    decimal_build(decimal.Decimal(42), good, 10, 0)
    good += (7).to_bytes(4, "little")
    body = {"column_count": 2, "columns_present": [True, True], "rows": bytes(good)}
    assert row_spans(codec, body, 30, bytes(good)) == [(0, len(good), len(good))]
    size = decimal_size(10, 0)
    bad = bytes(good[:1]) + b"\xbb\xff\xff\xff\xff"[:size] + bytes(good[1 + size:])
    with pytest.raises(errors.ValidationError, match="digits"):
        codec.decode({**body, "rows": bad}, 30)
    with pytest.raises(errors.ValidationError, match="digits"):
        row_spans(codec, {**body, "rows": bad}, 30, bad)
    # (an event whose CRC32 was checked holds the server's bytes: its digits are passed over)
    assert row_spans(codec, {**body, "rows": bad}, 30, bad, verified=True) == \
        [(0, len(bad), len(bad))]

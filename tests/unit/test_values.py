"""Row values: each type's parse/build pair on known bytes and as properties, row images
(NULLs, spare bits, MINIMAL images, update pairs, pre-GA images)."""

import os
from decimal import Decimal

from binlog_schema.construct_ext import errors
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from binlog_schema.changes.table_map import Column, TableMap
from binlog_schema.format.values import temporal as t
from binlog_schema.format.values.codecs import EnumValue, SetValue, codec_for
from binlog_schema.format.values.decimal_bin import decimal_build, decimal_parse
from binlog_schema.format.values.rows import RowsCodec


def col(ty, **kw):
    return Column(index=kw.pop("index", 0), type=ty, **kw)


def both(column, value, hexed):
    codec = codec_for(column)
    out = bytearray()
    codec.build(value, out)
    assert out.hex() == hexed
    got, pos = codec.parse(bytes(out), 0)
    assert got == value and pos == len(out)


@pytest.mark.parametrize("ty,unsigned,value,hexed", [
    ("TINY", False, -128, "80"), ("TINY", True, 255, "ff"), ("SHORT", False, -2, "feff"),
    ("INT24", False, -8388608, "000080"), ("INT24", True, 16777215, "ffffff"),
    ("LONG", True, 4294967295, "ffffffff"), ("LONGLONG", False, -(1 << 63), "0000000000000080"),
])
def test_integers(ty, unsigned, value, hexed):
    both(col(ty, unsigned=unsigned), value, hexed)


def test_decimal_matches_mysql_documentation():
    # the example of MySQL's decimal2bin comment: 1234567890.1234 as DECIMAL(14,4)
    out = bytearray()
    decimal_build(Decimal("1234567890.1234"), out, 14, 4)
    assert out.hex() == "810dfb38d204d2"
    out = bytearray()
    decimal_build(Decimal("-1234567890.1234"), out, 14, 4)
    assert out.hex() == "7ef204c72dfb2d"
    assert decimal_parse(bytes.fromhex("7ef204c72dfb2d"), 0, 14, 4)[0] == \
        Decimal("-1234567890.1234")
    with pytest.raises(errors.IntegerError):
        decimal_build(Decimal("123456"), bytearray(), 5, 2)


@settings(max_examples=300)
@given(st.integers(1, 65).flatmap(lambda p: st.tuples(st.just(p), st.integers(0, min(p, 30)))),
       st.data())
def test_decimal_property(ps, data):
    p, s = ps
    digits = data.draw(st.integers(0, 10 ** p - 1))
    sign = data.draw(st.sampled_from(["", "-"]))
    text = str(digits).zfill(p)
    value = Decimal(sign + (text[:p - s] or "0") + ("." + text[p - s:] if s else ""))
    out = bytearray()
    decimal_build(value, out, p, s)
    got, _ = decimal_parse(bytes(out), 0, p, s)
    assert got == value and str(got).lstrip("-0") == str(value).lstrip("-0")


@pytest.mark.parametrize("fsp", range(7))
def test_temporal_byte_patterns_round_trip(fsp):
    for fn, bn, size in ((t.time2_parse, t.time2_build, 6 if fsp >= 5 else 3 + t.FRAC_BYTES[fsp]),
                         (t.datetime2_parse, t.datetime2_build, 5 + t.FRAC_BYTES[fsp]),
                         (t.timestamp2_parse, t.timestamp2_build, 4 + t.FRAC_BYTES[fsp])):
        for _ in range(3000):
            raw = os.urandom(size)
            value, pos = fn(raw, 0, fsp)
            out = bytearray()
            bn(value, out, fsp)
            assert bytes(out) == raw and pos == size


def test_known_temporal_values():
    both(col("TIME2", fsp=0), t.Time(True, 838, 59, 59), "4b9105")
    both(col("TIME2", fsp=1), t.Time(True, 0, 0, 1, 500000), "7ffffece")
    both(col("DATE"), t.Date(0, 0, 0), "000000")
    assert t.Date(2024, 0, 15).to_python() is None and t.Date(2024, 0, 15).isoformat() == \
        "2024-00-15"
    dt = t.DateTime(9999, 12, 31, 23, 59, 59, 999999)
    both(col("DATETIME2", fsp=6), dt, "fef3ff7efb0f423f")  # the largest DATETIME2
    assert dt.isoformat() == "9999-12-31 23:59:59.999999"
    both(col("TIMESTAMP2", fsp=3), t.Timestamp(1700000000, 123000), "6553f10004ce")


def test_strings_by_length_and_charset():
    both(col("VARCHAR", max_length=255, collation_id=8), "café", "04636166e9")
    both(col("VARCHAR", max_length=256, collation_id=255), "é", "0200c3a9")
    both(col("STRING", real_type="STRING", max_length=4, collation_id=63), b"\x00\xff", "0200ff")
    both(col("BLOB", pack_length=3, collation_id=45), "x" * 3, "030000787878")
    latin = codec_for(col("VARCHAR", max_length=10, collation_id=255))
    value, _ = latin.parse(b"\x02\xff\xfe", 0)  # not UTF-8: kept as bytes, never lossy
    assert value == b"\xff\xfe"


def test_enum_set_bit_year():
    both(col("STRING", real_type="ENUM", pack_length=1, enum_values=["a", "b"]),
         EnumValue(2, "b"), "02")
    both(col("STRING", real_type="SET", pack_length=2, set_values=[f"m{i}" for i in range(9)]),
         SetValue(0x101, ("m0", "m8")), "0101")
    both(col("BIT", bits=13), 0x1FFF, "1fff")
    both(col("YEAR"), 0, "00")
    both(col("YEAR"), 2155, "ff")


def _tm(columns):
    return TableMap(table_id=1, database="d", table="t",
                    columns=[Column(index=i, **c_) for i, c_ in enumerate(columns)],
                    flavor="mysql", server_version="8.0.40")


def test_row_images_nulls_spare_bits_minimal_and_updates():
    tm = _tm([dict(type="LONG", unsigned=False), dict(type="VARCHAR", max_length=10,
                                                       collation_id=255),
              dict(type="LONGLONG", unsigned=True)])
    codec = RowsCodec(tm)
    body = {"column_count": 3, "columns_present": [True, True, True], "columns_after": None,
            "rows": b""}
    rows = [{0: 1, 1: "a", 2: None}, {0: -1, 1: None, 2: 7}]
    raw = codec.encode(rows, body, 30)
    assert raw[0] == 0b11111100  # spare bits set, column 2 NULL
    assert codec.decode({**body, "rows": raw}, 30) == rows
    odd = bytes([0b00000100]) + raw[1:]  # spare bits cleared by some other writer
    again = codec.decode({**body, "rows": odd}, 30)
    assert again[0]["_null_bits"] == 0 and codec.encode(again, body, 30)[:1] == odd[:1]
    minimal = {"column_count": 3, "columns_present": [True, False, False],
               "columns_after": [False, True, True], "rows": b""}
    pairs = [({0: 5}, {1: "b", 2: 9})]
    raw = codec.encode(pairs, minimal, 31)
    assert codec.decode({**minimal, "rows": raw}, 31) == pairs
    assert 1 not in codec.decode({**minimal, "rows": raw}, 31)[0][0]  # absent, not NULL


def test_pre_ga_images_have_a_leading_bit():
    tm = _tm([dict(type="LONG", unsigned=False), dict(type="VARCHAR", max_length=10,
                                                       collation_id=8)])
    codec = RowsCodec(tm)
    body = {"column_count": 2, "columns_present": [True, True], "columns_after": None,
            "rows": bytes.fromhex("f900000000036f6e65")}  # from ver_5_1_17.001
    assert codec.decode(body, 20) == [{0: 0, 1: "one"}]
    assert codec.encode([{0: 0, 1: "one"}], body, 20) == body["rows"]


def test_truncated_values_are_stream_errors():
    codec = RowsCodec(_tm([dict(type="LONGLONG", unsigned=False)]))
    with pytest.raises(errors.StreamError):
        codec.decode({"column_count": 1, "columns_present": [True], "rows": b"\x00\x01\x02"},
                     30)


def test_one_plan_per_image_shape_gives_the_reader_the_builder_and_the_json():
    """Every direction of a row image comes from its ImagePlan: the codecs' reading and the
    generated reader give the same rows (with the null bitmap's unusual bits kept, pre-GA
    leading bit included), the rows build back to the bytes, and the JSON written straight
    from the bytes by the same plan is the typed rows' JSON."""
    from binlog_schema.output.row_images import images_json, rows_json_direct, rows_text
    from binlog_schema.format.values.image import NullBitmap
    tm = _tm([dict(type="LONG", unsigned=False), dict(type="VARCHAR", max_length=10,
                                                       collation_id=255),
              dict(type="DOUBLE"), dict(type="YEAR")])
    codec = RowsCodec(tm)
    body = {"column_count": 4, "columns_present": [True] * 4, "columns_after": None,
            "rows": b""}
    rows = [{0: 1, 1: "a", 2: 0.5, 3: 2024}, {0: None, 1: "b", 2: None, 3: 0},
            {0: 3, 1: None, 2: 1.5, 3: None}]
    for kind, shift in ((30, 0), (20, 1)):  # MySQL 5.1.18+ and pre-GA WRITE_ROWS
        nb = NullBitmap(4, shift)
        assert nb.size == 1 and len(nb.no_nulls) == 1 << (8 - 4)  # (all other-bit patterns)
        raw = b""
        for row in rows:  # each image's bitmap with its other bits cleared
            image = bytearray(codec.encode([row], body, kind))
            image[0] &= ((1 << 4) - 1) << shift
            raw += image
        event = {**body, "rows": raw}
        reference = codec.decode(event, kind, compiled=False)
        assert codec.decode(event, kind, compiled=True) == reference
        assert [{k: v for k, v in r.items() if k != "_null_bits"} for r in reference] == rows
        assert all("_null_bits" in r for r in reference)
        assert codec.encode(reference, body, kind) == raw
        assert rows_json_direct(codec, event, kind) == rows_text(reference,
                                                                 images_json(codec))
        plan, second = codec.plans(event, kind)
        assert second is None and {"row", "json"} <= set(plan.compiled)

"""MySQL binary JSON (binlog_schema.format.values: json_binary, json_scalars, json_document,
json_diff): known bytes, the serializer's choices, the lossless fallback, malformed input,
property tests and the shared corpus."""

import datetime as dt
import decimal
import math
import struct

from binlog_schema.construct_ext import errors
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from binlog_schema.format.values import temporal
from binlog_schema.format.values.json_binary import (
    MAX_DEPTH, JsonDate, JsonDateTime, JsonDecimal, JsonDiffOp, JsonDocument, JsonOpaque,
    JsonTimestamp, JsonUInt, JsonZeroTimestamp,
)
from binlog_schema.format.values.json_diff import decode_diff, encode_diff
from binlog_schema.format.values.json_document import decode, encode
from binlog_schema.format.forms.documents import from_typed_json, to_jsonable, to_typed_json
from binlog_schema.format.forms.json_safe import from_jsonable, jsonable

ERRORS = (errors.ValidationError, errors.StreamError)
H = bytes.fromhex


def roundtrip(data: bytes):
    v = decode(data)
    assert encode(v) == data
    return v


def same(a, b) -> bool:
    """Equality that also checks types (int vs JsonUInt, date vs datetime...), float bits and
    decimal precision."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, JsonDecimal):
        return str(a) == str(b) and a.precision == b.precision
    return a == b


# ------------------------------------------------------------------ known documents
# Bytes written by MySQL 8.0.22 / 9.0.1 (from the shared corpus, copied here so these tests run
# without it).

KNOWN = [
    ("0003003300190003001c000400200004000518000c24000c2f00616765646174616e616d650a7878787878"
     "7878787878034a6f65", {"age": 24, "data": "xxxxxxxxxx", "name": "Joe"}),
    ("0003003400190003001c000400200004000528000c24000c2f00616765646174616e616d650a7a7a7a7a7a"
     "7a7a7a7a7a0450657465", {"age": 40, "data": "zzzzzzzzzz", "name": "Pete"}),
    ("0001000c000b00010004000065", {"e": None}),
    ("0001001c000b000100020c006504001000050000050100040100040200", {"e": [0, 1, True, False]}),
    ("0001000f000b0001000f0c00610f0155", {"a": JsonOpaque(15, b"U")}),
    ("00010016000b0001000f0c00620a080000000000e48b19", {"b": dt.date(2012, 3, 18)}),
    ("00010016000b0001000f0c00630c08000000adb7e48b19", {"c": dt.datetime(2012, 3, 18, 11, 30, 45)}),
    ("00010016000b0001000f0c00630b08f1fb09ee77050000",
     {"c": dt.timedelta(hours=87, minutes=31, seconds=46, microseconds=654321)}),
    ("00010014000b0001000f0c0064f6060603807b01c8", {"d": JsonDecimal("123.456", 6)}),
    ("00010015000b0001000f0c0065f6070b028000000900", {"e": JsonDecimal("9.00", 11)}),
]


@pytest.mark.parametrize("hexdata,expected", KNOWN)
def test_known_documents(hexdata, expected):
    v = roundtrip(H(hexdata))
    assert same(v, expected)
    assert encode(expected) == H(hexdata)


def test_keys_sorted_by_length_then_bytes():
    b = encode({"b": 1, "aa": 2, "a": 3})
    assert b == H("00" "0300" "1d00" "19000100" "1a000100" "1b000200"
                  "050300" "050100" "050200" "61" "62" "6161")
    assert list(decode(b)) == ["a", "b", "aa"]
    # bytes, not code points: "é" (2 bytes) sorts after "z"; "Z" before "a"
    assert list(decode(encode({"é": 1, "z": 2, "a": 3, "Z": 4}))) == ["Z", "a", "z", "é"]


def test_scalars_and_integer_widths():
    assert encode(None) == H("0400") and encode(True) == H("0401") and encode(False) == H("0402")
    assert encode(5) == H("050500")                      # top level: never inlined
    assert encode(-32768) == H("050080")
    assert encode(32768) == H("0700800000")
    assert encode(-(2 ** 31)) == H("0700000080")
    assert encode(2 ** 31) == H("090000008000000000")
    assert encode(JsonUInt(65535)) == H("06ffff")
    assert encode(JsonUInt(65536)) == H("0800000100")
    assert encode(JsonUInt(2 ** 32)) == H("0a0000000001000000")
    assert encode(2 ** 64 - 1) == H("0a" + "ff" * 8)     # beyond int64: uint64
    assert type(decode(encode(2 ** 63))) is JsonUInt
    assert encode(1.5) == H("0b000000000000f83f")
    assert encode("") == H("0c00")
    assert encode("x" * 200)[:3] == H("0cc801")           # 7 bits a byte, low bits first
    for v in (0, -1, 32767, 70000, -70000, 2 ** 40, -(2 ** 63), JsonUInt(0), JsonUInt(2 ** 64 - 1),
              0.0, -0.0, 1e308, "ü", None, True):
        assert same(roundtrip(encode(v)), v)


def test_inlining_small_and_large():
    # small format: int16 inlined, int32 stored after the entries
    assert encode([1, 70000]) == H("02" "0200" "0e00" "050100" "070a00" "70110100")
    # large format: int16 inlined sign-extended to 4 bytes, uint16 zero-extended, int32 inlined
    big = "x" * 70000
    b = encode([-1, JsonUInt(65535), -70000, JsonUInt(70000), None, big])
    assert b[0] == 0x03
    entries = b[9:9 + 6 * 5]
    minus_70000 = (-70000).to_bytes(4, "little", signed=True).hex()
    assert entries[:25] == H("05ffffffff" "06ffff0000" "07" + minus_70000
                             + "0870110100" "0400000000")
    assert entries[25] == 0x0C
    assert same(roundtrip(b), [-1, JsonUInt(65535), -70000, JsonUInt(70000), None, big])


def test_small_unless_too_big():
    # the container's own size decides: 65535 is small, one byte more is large
    def doc(n):
        return ["x" * n]
    base = len(encode(doc(0))) - 1          # payload with an empty string
    n = 0xFFFF - base - 2                   # 2-byte variable length for the string
    assert len(encode(doc(n))) - 1 == 0xFFFF and encode(doc(n))[0] == 0x02
    assert encode(doc(n + 1))[0] == 0x03
    # a large parent lets each child choose; a small parent forces its children small
    v = {"big": "y" * 70000, "small": {"a": [1, 2, 3]}, "large": ["z" * 70000]}
    b = encode(v)
    assert b[0] == 0x01
    assert same(roundtrip(b), v)
    kinds = {k: code for k, code in _child_codes(b)}
    assert kinds == {"big": 0x0C, "small": 0x00, "large": 0x03}


def _child_codes(b):
    """(key, type code) of the members of a top-level large object."""
    n = int.from_bytes(b[1:5], "little")
    out = []
    for i in range(n):
        ke = 1 + 8 + i * 6
        koff = int.from_bytes(b[ke:ke + 4], "little")
        klen = int.from_bytes(b[ke + 4:ke + 6], "little")
        ve = 1 + 8 + n * 6 + i * 5
        out.append((b[1 + koff:1 + koff + klen].decode(), b[ve]))
    return out


def test_opaque_types():
    d = {"dec": JsonDecimal("-1.50", 10), "date": dt.date(1999, 12, 31),
         "dt": dt.datetime(2020, 2, 29, 23, 59, 59, 999999),
         "ts": JsonTimestamp(2038, 1, 19, 3, 14, 7),
         "t": -dt.timedelta(hours=838, minutes=59, seconds=59),
         "blob": JsonOpaque(252, b"\x00\xff"),
         "year": JsonOpaque(13, b"\x07\xe4")}
    v = roundtrip(encode(d))
    assert same(v, d)
    assert encode(JsonTimestamp(2000, 1, 1))[1] == 7 and encode(dt.datetime(2000, 1, 1))[1] == 12
    assert encode(dt.date(2000, 1, 1))[1] == 10 and encode(dt.timedelta(0))[1] == 11
    # a plain Decimal gets the precision of its digits (at least one integer digit)
    assert encode(decimal.Decimal("0.5")) == H("0ff6" "04" "0201" "8005")
    assert decode(encode(decimal.Decimal("1.50"))).precision == 3
    assert decode(encode(decimal.Decimal("1E+3"))) == 1000
    # typed bytes that do not rebuild stay opaque, inside a canonical document
    bad = [JsonOpaque(10, (((10000 * 13 + 1) << 5 | 1) << 41).to_bytes(8, "little")),  # 10000
           JsonOpaque(11, ((60 << 6) << 24).to_bytes(8, "little")),        # minute 60
           JsonOpaque(246, H("0201ff")),                                   # group of 3 digits > 99
           JsonOpaque(246, H("4201" + "00" * 30)),                         # precision 66
           JsonOpaque(12, b"\x00" * 7),                                    # 7 bytes
           JsonOpaque(7, (-1).to_bytes(8, "little", signed=True))]
    for o in bad:
        v = roundtrip(encode([o]))
        assert v == [o]
    with pytest.raises(errors.ValidationError):
        encode(JsonDecimal("123.4", 3))            # does not fit its precision
    with pytest.raises(errors.ValidationError):
        encode(decimal.Decimal("NaN"))
    with pytest.raises(errors.ValidationError):
        encode(dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc))
    with pytest.raises(errors.ValidationError):
        encode(dt.timedelta(hours=1024))


# ------------------------------------------------------------------ zero dates


def _packed(y, mo, d, h=0, mi=0, s=0, us=0) -> bytes:
    """MySQL's TIME_to_longlong_datetime_packed, int8store'd (my_time.cc)."""
    return (((((y * 13 + mo) << 5 | d) << 17 | h << 12 | mi << 6 | s) << 24) + us).to_bytes(
        8, "little")


def _scalar(field_type, *fields) -> bytes:
    return bytes((0x0F, field_type, 8)) + _packed(*fields)


def test_zero_dates_are_the_column_decoders_zero_values():
    """CAST(CAST('0000-00-00' AS DATE) AS JSON) and the zero DATETIME and TIMESTAMP: MySQL
    packs them as eight zero bytes; they read as the column decoder's temporal values, with
    MySQL's text of them inside JSON, and build back to the same bytes."""
    zero = H("0f0a08" "0000000000000000")
    assert _scalar(10, 0, 0, 0) == zero
    v = roundtrip(zero)
    assert type(v) is JsonDate and isinstance(v, temporal.Date)
    assert (v.year, v.month, v.day) == (0, 0, 0) and v.to_python() is None
    assert v.isoformat() == temporal.Date(0, 0, 0).isoformat() == "0000-00-00"
    v = roundtrip(H("0f0c08" "0000000000000000"))
    assert type(v) is JsonDateTime and isinstance(v, temporal.DateTime)
    assert v.isoformat() == "0000-00-00 00:00:00.000000"    # MySQL: always 6 digits in JSON
    v = roundtrip(H("0f0708" "0000000000000000"))
    assert type(v) is JsonZeroTimestamp and isinstance(v, temporal.Timestamp)
    assert (v.seconds, v.microsecond) == (0, 0) and v.to_python() is None
    assert v.isoformat() == "0000-00-00 00:00:00.000000"
    # the column decoder's own values encode the same
    assert encode(temporal.Date(0, 0, 0)) == zero
    assert encode(temporal.DateTime(0, 0, 0)) == H("0f0c08" "0000000000000000")
    assert encode(temporal.Timestamp(0, 0)) == H("0f0708" "0000000000000000")


def test_partly_zero_and_other_dates_python_cannot_hold():
    cases = [(_scalar(10, 2020, 0, 0), JsonDate(2020, 0, 0), "2020-00-00"),
             (_scalar(10, 2020, 1, 0), JsonDate(2020, 1, 0), "2020-01-00"),
             (_scalar(10, 2020, 0, 15), JsonDate(2020, 0, 15), "2020-00-15"),
             (_scalar(10, 0, 1, 1), JsonDate(0, 1, 1), "0000-01-01"),
             (_scalar(10, 2021, 2, 30), JsonDate(2021, 2, 30), "2021-02-30"),   # invalid dates
             (_scalar(12, 0, 0, 0, 10, 20, 30, 123456),
              JsonDateTime(0, 0, 0, 10, 20, 30, 123456), "0000-00-00 10:20:30.123456"),
             (_scalar(12, 2020, 0, 0, 23, 59, 59), JsonDateTime(2020, 0, 0, 23, 59, 59),
              "2020-00-00 23:59:59.000000")]
    for data, want, text in cases:
        v = roundtrip(data)
        assert same(v, want) and v == want, (data.hex(), v)
        assert v.isoformat() == text
        assert to_typed_json(v) == {"$date" if len(text) == 10 else "$datetime": text}
        assert same(from_typed_json(to_typed_json(v)), v)
        assert encode(want) == data
    # dates Python holds stay Python's
    assert same(decode(_scalar(10, 2020, 1, 1)), dt.date(2020, 1, 1))
    assert same(decode(_scalar(12, 2020, 1, 1, 1)), dt.datetime(2020, 1, 1, 1))


def test_zero_dates_inside_arrays_and_objects():
    doc = {"d": JsonDate(0, 0, 0), "dt": JsonDateTime(0, 0, 0), "ts": JsonZeroTimestamp(0, 0),
           "a": [JsonDate(2020, 0, 0), dt.date(2020, 1, 2), JsonDateTime(2020, 1, 0, 1, 2, 3),
                 {"x": [JsonDate(0, 0, 0)]}]}
    data = encode(doc)
    back = decode(data)
    assert not isinstance(back, JsonDocument) and same(back, doc)
    assert encode(back) == data
    # the opaque values are MySQL's bytes: zero dates are eight zero bytes after 0f/type/8
    assert data.count(bytes((10, 8)) + bytes(8)) == 2
    assert data.count(bytes((12, 8)) + bytes(8)) == 1 and data.count(bytes((7, 8)) + bytes(8)) == 1
    typed = to_typed_json(back)
    assert typed["d"] == {"$date": "0000-00-00"}
    assert typed["dt"] == {"$datetime": "0000-00-00 00:00:00.000000"}
    assert typed["ts"] == {"$timestamp": "0000-00-00 00:00:00.000000"}
    assert typed["a"][0] == {"$date": "2020-00-00"} and typed["a"][1] == {"$date": "2020-01-02"}
    assert typed["a"][2] == {"$datetime": "2020-01-00 01:02:03.000000"}
    assert same(from_typed_json(typed), back)
    assert to_jsonable(back)["a"][3] == {"x": ["0000-00-00"]}
    assert to_jsonable(back)["ts"] == "0000-00-00 00:00:00.000000"


def test_a_zero_date_document_in_a_row_keeps_its_json_type():
    """A JSON column whose whole document is a zero date: its row form is tagged (a DATE
    column's zero date is plain text), and reads back to the same bytes."""
    from binlog_schema.changes.table_map import Column
    col = Column(index=0, type="JSON")
    for data, form in ((H("0f0a08" + "00" * 8), {"$date": "0000-00-00"}),
                       (H("0f0c08" + "00" * 8), {"$datetime": "0000-00-00 00:00:00.000000"}),
                       (H("0f0708" + "00" * 8), {"$timestamp": "0000-00-00 00:00:00.000000"})):
        v = decode(data)
        assert jsonable(v) == form
        assert encode(from_jsonable(col, form)) == data
    assert jsonable(temporal.Date(0, 0, 0)) == "0000-00-00"      # (a DATE column's value)
    assert jsonable(temporal.Timestamp(0, 0)) == "0000-00-00 00:00:00"


def test_dates_mysql_cannot_hold_stay_opaque_and_are_refused():
    for data in (_scalar(10, 10000, 1, 1),                 # year past 9999
                 _scalar(12, 0, 0, 0, 24),                # hour 24
                 _scalar(12, 0, 0, 0, 0, 0, 0, 1000000),  # a microsecond field past 999999
                 _scalar(7, 2020, 0, 0),                  # a TIMESTAMP is zero or valid
                 _scalar(7, 0, 0, 0, 0, 0, 0, 1),
                 _scalar(10, 0, 0, 0, 1)):                # a DATE with a time
        v = roundtrip(data)
        assert type(v) is JsonOpaque and v.field_type == data[1], data.hex()
    for v in (JsonDate(0, 13, 0), JsonDate(10000, 0, 0), JsonDate(0, 0, 32),
              JsonDateTime(0, 0, 0, 24), JsonDateTime(0, 0, 0, 0, 60),
              JsonDateTime(0, 0, 0, 0, 0, 0, 1000000), JsonDate(-1, 0, 0),
              JsonZeroTimestamp(5, 0), temporal.Timestamp(0, 1)):
        with pytest.raises(errors.ValidationError):
            encode(v)


def test_encode_refuses():
    for v in (object(), {1: 2}, 2 ** 64, -(2 ** 63) - 1, {"k" * 65536: 1}, b"bytes",
              {"\udcc3\udca9": 1, "é": 2}):     # two keys with the same bytes
        with pytest.raises(errors.ValidationError):
            encode(v)


# ------------------------------------------------------------------ lossless fallback


def _small_object(pairs, header_override=None):
    """A small object with keys and inlined int16 values in the given (unsorted) order."""
    n = len(pairs)
    header = 4 + n * 7
    keys = b"".join(k for k, _ in pairs)
    out = bytearray(n.to_bytes(2, "little") + (header + len(keys)).to_bytes(2, "little"))
    off = header
    for k, _ in pairs:
        out += off.to_bytes(2, "little") + len(k).to_bytes(2, "little")
        off += len(k)
    for _, v in pairs:
        out += b"\x05" + v.to_bytes(2, "little", signed=True)
    return b"\x00" + bytes(out) + keys


@pytest.mark.parametrize("raw,value", [
    (_small_object([(b"b", 1), (b"a", 2)]), {"b": 1, "a": 2}),                  # unsorted keys
    (_small_object([(b"a", 1), (b"a", 2)]), {"a": 2}),                          # duplicate key
    (H("01" "01000000" "14000000" "130000000100" "0501000000" "61"), {"a": 1}),  # large, fits
    (H("09" "0500000000000000"), 5),                                            # int64 for 5
    (H("0c" "8500" "6162636465"), "abcde"),                                     # long varlen
    (H("0400") + b"\x00", None),                                                # trailing byte
    (H("02" "0100" "0700" "040001"), [None]),                                   # literal's 2nd byte
    (H("02" "0100" "0900" "0c0800" "00" "00"), [""]),                           # a gap
    (b"", None),                                                                # empty = null
])
def test_non_canonical_documents_keep_their_bytes(raw, value):
    v = decode(raw)
    assert isinstance(v, JsonDocument) and v.raw == raw
    assert same(v.value, value)
    assert encode(v) == raw
    assert decode(encode(v)) == v


# ------------------------------------------------------------------ malformed input


@pytest.mark.parametrize("raw", [
    H("0d00"), H("0403"), H("05ff"), H("0c05616263"), H("0c8080808080"), H("0cffffffff7f"),
    H("0f"), H("0f0c05"), H("00"), H("000100"), H("0001000a00"),
    H("02" "0100" "0700" "020000"),          # value offset inside the header
    H("02" "0100" "0700" "0cff00"),          # value offset past the end
    H("00" "0100" "0a00" "ff000100" "050100"),   # key past the end
    H("02" "0200" "0500" "040000"),          # entries larger than the size
])
def test_malformed_documents_raise_construct_errors(raw):
    with pytest.raises(ERRORS):
        decode(raw)


def _nested_arrays(depth: int) -> bytes:
    payload = H("0000" "0400")
    for _ in range(depth - 1):
        payload = H("0100") + (7 + len(payload)).to_bytes(2, "little") + H("020700") + payload
    return b"\x02" + payload


def test_depth_limit():
    ok = _nested_arrays(MAX_DEPTH)
    v = roundtrip(ok)
    deep = []
    for _ in range(MAX_DEPTH - 1):
        deep = [deep]
    assert v == deep
    with pytest.raises(errors.ValidationError):
        decode(_nested_arrays(MAX_DEPTH + 1))
    with pytest.raises(errors.ValidationError):
        encode([deep])


def test_shared_subtrees_are_bounded():
    # every level's two entries point at the same child: 2**40 nodes from ~400 bytes
    payload = H("0000" "0400")
    for _ in range(40):
        size = (10 + len(payload)).to_bytes(2, "little")
        payload = H("0200") + size + H("020a00020a00") + payload
    with pytest.raises(errors.ValidationError):
        decode(b"\x02" + payload)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_never_crash(raw):
    try:
        v = decode(raw)
    except ERRORS:
        return
    assert encode(v) == raw


json_scalars = st.one_of(
    st.none(), st.booleans(),
    st.integers(-(2 ** 63), 2 ** 63 - 1),
    st.integers(0, 2 ** 64 - 1).map(JsonUInt),
    st.floats(allow_nan=True),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=20),
)


@st.composite
def json_decimals(draw):
    scale = draw(st.integers(0, 30))
    precision = draw(st.integers(max(1, scale), 65))
    intg = precision - scale
    int_part = draw(st.integers(0, 10 ** intg - 1)) if intg else 0
    frac = draw(st.integers(0, 10 ** scale - 1)) if scale else 0
    sign = draw(st.sampled_from(["", "-"]))
    text = f"{sign}{int_part}" + (f".{frac:0{scale}d}" if scale else "")
    return JsonDecimal(text, precision)


def _python_cannot_hold(f):
    try:
        dt.date(*f[:3])
    except ValueError:
        return True
    return False


mysql_dates = st.one_of(
    st.tuples(st.integers(0, 9999), st.integers(0, 12), st.integers(0, 31)).filter(
        _python_cannot_hold).map(lambda f: JsonDate(*f)),
    st.tuples(st.integers(0, 9999), st.integers(0, 12), st.integers(0, 31), st.integers(0, 23),
              st.integers(0, 59), st.integers(0, 59), st.integers(0, 999999)).filter(
        _python_cannot_hold).map(lambda f: JsonDateTime(*f)),
    st.just(JsonZeroTimestamp(0, 0)),
)

opaque_scalars = st.one_of(
    json_decimals(),
    mysql_dates,
    st.dates(),
    st.datetimes(),
    st.datetimes().map(lambda d: JsonTimestamp(d.year, d.month, d.day, d.hour, d.minute,
                                               d.second, d.microsecond)),
    st.timedeltas(min_value=-dt.timedelta(hours=1023, minutes=59, seconds=59, microseconds=999999),
                  max_value=dt.timedelta(hours=1023, minutes=59, seconds=59, microseconds=999999)),
    st.builds(JsonOpaque, st.sampled_from([1, 13, 15, 16, 245, 252, 253, 254, 255]),
              st.binary(max_size=40)),
)
keys = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
json_values = st.recursive(
    st.one_of(json_scalars, opaque_scalars),
    lambda children: st.one_of(st.lists(children, max_size=6),
                               st.dictionaries(keys, children, max_size=6)),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_property_roundtrip(v):
    b = encode(v)
    back = decode(b)
    assert not isinstance(back, JsonDocument)
    assert same(back, v)
    assert encode(back) == b
    _check_formats(b)


@settings(max_examples=200, deadline=None)
@given(json_values, st.integers(0, 40), st.integers(0, 255))
def test_mutated_documents_decode_losslessly_or_raise(v, where, byte):
    b = bytearray(encode(v))
    b[where % len(b)] = byte
    for raw in (bytes(b), bytes(b[:where % len(b)])):
        try:
            got = decode(raw)
        except ERRORS:
            continue
        assert encode(got) == raw


# ---- large documents: an oracle for the small/large choice

def _int_width(v):
    if isinstance(v, JsonUInt) or not -(2 ** 63) <= v < 2 ** 63:
        return 2 if v <= 0xFFFF else 4 if v <= 0xFFFFFFFF else 8
    return 2 if -(2 ** 15) <= v < 2 ** 15 else 4 if -(2 ** 31) <= v < 2 ** 31 else 8


def _varlen_size(n):
    size = 1
    while n >= 0x80:
        n >>= 7
        size += 1
    return size


def _small_size(v):
    """Bytes of a container written small with all descendants small (after the type byte)."""
    if isinstance(v, dict):
        return 4 + 7 * len(v) + sum(len(k.encode()) for k in v) + sum(map(_in_small, v.values()))
    return 4 + 3 * len(v) + sum(map(_in_small, v))


def _in_small(v):
    if v is None or isinstance(v, bool):
        return 0
    if isinstance(v, int):
        w = _int_width(v)
        return 0 if w == 2 else w
    if isinstance(v, float):
        return 8
    if isinstance(v, str):
        n = len(v.encode("utf-8", "surrogateescape"))
        return _varlen_size(n) + n
    if isinstance(v, (dict, list)):
        return _small_size(v)
    n = len(encode(v)) - 1       # opaque scalars: as written
    return n


def _check_formats(b: bytes):
    """Every container is small exactly when its all-small size fits 16 bits."""
    def walk(code, start, end):
        if code > 3:
            return
        large = code & 1
        osz = 4 if large else 2
        n = int.from_bytes(b[start:start + osz], "little")
        size = int.from_bytes(b[start + osz:start + 2 * osz], "little")
        sub = decode(bytes((code,)) + b[start:start + size])
        assert large == (_small_size(sub) > 0xFFFF)
        ksz = osz + 2 if code in (0, 1) else 0
        for i in range(n):
            e = start + 2 * osz + n * ksz + i * (1 + osz)
            if b[e] <= 3:
                off = int.from_bytes(b[e + 1:e + 1 + osz], "little")
                walk(b[e], start + off, start + size)
    walk(b[0], 1, len(b))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large])
@given(json_values, st.integers(65400, 65560), st.integers(0, 3))
def test_property_large_documents(v, n, shape):
    pad = "p" * n
    doc = [{"pad": pad, "v": v}, [v, pad], {"a": [pad], "b": {"c": v, "d": pad}},
           [[[pad, v]]]][shape]
    b = encode(doc)
    back = decode(b)
    assert not isinstance(back, JsonDocument)
    assert same(back, doc)
    _check_formats(b)


def test_large_documents():
    v = {"rows": [{"id": i, "name": f"n{i}", "score": i * 1.5, "tags": ["a", "b"] * (i % 3)}
                  for i in range(3000)], "blob": "z" * 70000, "n": list(range(-40000, 40000, 7))}
    b = encode(v)
    assert len(b) > 1 << 17 and b[0] == 0x01
    assert same(roundtrip(b), v)
    _check_formats(b)


# ------------------------------------------------------------------ diffs


def test_diff_roundtrip():
    raw = H("0005242e61676503051a00")
    ops = roundtrip_diff(raw)
    assert ops == [JsonDiffOp("REPLACE", "$.age", 26)]
    ops = [JsonDiffOp("REPLACE", "$.a", {"x": [1, 2]}), JsonDiffOp("INSERT", "$.b[0]", "s"),
           JsonDiffOp("REMOVE", '$."k e y"'), JsonDiffOp("INSERT", "$.c", "x" * 300)]
    raw = encode_diff(ops)
    assert raw[raw.index(b"$.c") + 3] == 0xFC                 # 3-byte length-encoded length
    assert roundtrip_diff(raw) == ops
    assert encode_diff([("REMOVE", "$.a")]) == H("0203242e61")
    assert decode_diff(b"") == []


def roundtrip_diff(raw):
    ops = decode_diff(raw)
    assert encode_diff(ops) == raw
    return ops


def test_diff_non_canonical_and_malformed():
    raw = H("00fc0500242e61676503051a00")             # path length in 3 bytes
    v = decode_diff(raw)
    assert isinstance(v, JsonDocument) and v.value == [JsonDiffOp("REPLACE", "$.age", 26)]
    assert encode_diff(v) == raw
    v = decode_diff(H("0003242e6100"))                 # empty value: MySQL's null
    assert v[0].value == JsonDocument(None, b"") and encode_diff(v) == H("0003242e6100")
    for bad in (H("03"), H("0005242e61"), H("00fb"), H("00ff"), H("0003242e6105050100"),
                H("0003242e61020d00"), H("00fe01")):
        with pytest.raises(ERRORS):
            decode_diff(bad)
    with pytest.raises(errors.ValidationError):
        encode_diff([JsonDiffOp("MOVE", "$")])
    with pytest.raises(errors.ValidationError):
        encode_diff([JsonDiffOp("REMOVE", "$.a", 1)])


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=48))
def test_random_diffs_never_crash(raw):
    try:
        v = decode_diff(raw)
    except ERRORS:
        return
    assert encode_diff(v) == raw


# ------------------------------------------------------------------ rendering


def test_to_jsonable():
    import json
    v = decode(encode({"d": JsonDecimal("-0.000001", 7),
                       "t": dt.timedelta(hours=-30, microseconds=-5),
                       "ts": JsonTimestamp(2020, 1, 2, 3, 4, 5, 6), "day": dt.date(2020, 1, 2),
                       "o": JsonOpaque(252, b"\x01\x02"), "u": JsonUInt(7), "f": math.inf,
                       "l": [None, True, 1.5, "s"]}))
    j = to_jsonable(v)
    assert j == {"d": "-0.000001", "t": "-30:00:00.000005", "ts": "2020-01-02T03:04:05.000006",
                 "day": "2020-01-02", "o": {"opaque_type": 252, "hex": "0102"}, "u": 7,
                 "f": "Infinity", "l": [None, True, 1.5, "s"]}
    json.dumps(j)
    assert to_jsonable(JsonDocument({"a": 1}, b"")) == {"a": 1}
    ops = [JsonDiffOp("REMOVE", "$.a"), JsonDiffOp("REPLACE", "$.b", JsonDecimal("1.0", 2))]
    assert to_jsonable(ops) == [{"op": "REMOVE", "path": "$.a"},
                                {"op": "REPLACE", "path": "$.b", "value": "1.0"}]


# ------------------------------------------------------------------ corpus


FIXED_WIDTH = {"TINY": 1, "SHORT": 2, "INT24": 3, "LONG": 4, "LONGLONG": 8, "FLOAT": 4,
               "DOUBLE": 8, "YEAR": 1}


def _json_values(path):
    """(kind, bytes) of every JSON column value in the file's rows events: "doc" or "diff"."""
    from binlog_schema.changes.table_map import table_map_from_event
    from binlog_schema.format.stream import BinlogReader

    maps = {}
    for rec in BinlogReader(str(path)):
        for e in [rec] + (rec.inner or []):
            if e.value is None:
                continue
            if e.type_name == "TABLE_MAP_EVENT":
                maps[e.value["body"]["table_id"]] = table_map_from_event(e.value, e.ctx)
                continue
            if "ROWS" not in e.type_name:
                continue
            body = e.value["body"]
            tm = maps[body["table_id"]]
            if not all(col.type in FIXED_WIDTH or col.type in ("JSON", "VARCHAR")
                       for col in tm.columns):
                continue
            data = bytes(body["rows"])
            n = body["column_count"]
            images = [body["columns_present"][:n]]
            if body.get("columns_after") is not None:
                images.append(body["columns_after"][:n])
            partial_event = e.type_name == "PARTIAL_UPDATE_ROWS_EVENT"
            json_cols = [i for i, col in enumerate(tm.columns) if col.type == "JSON"]
            pos = 0
            while pos < len(data):
                for k, present in enumerate(images):
                    partial = set()
                    if partial_event and k == 1:
                        options = data[pos]           # value_options (< 251: one byte)
                        pos += 1
                        if options & 1:              # a bit per JSON column of the table
                            nb = (len(json_cols) + 7) // 8
                            bits = int.from_bytes(data[pos:pos + nb], "little")
                            pos += nb
                            partial = {c for j, c in enumerate(json_cols) if bits >> j & 1}
                    cols = [i for i, p in enumerate(present) if p]
                    nb = (len(cols) + 7) // 8
                    nulls = int.from_bytes(data[pos:pos + nb], "little")
                    pos += nb
                    for j, i in enumerate(cols):
                        if nulls >> j & 1:
                            continue
                        col = tm.columns[i]
                        if col.type in FIXED_WIDTH:
                            pos += FIXED_WIDTH[col.type]
                        elif col.type == "VARCHAR":
                            w = 1 if col.max_length < 256 else 2
                            pos += w + int.from_bytes(data[pos:pos + w], "little")
                        else:
                            w = 4 if i in partial else col.pack_length
                            size = int.from_bytes(data[pos:pos + w], "little")
                            pos += w
                            yield ("diff" if i in partial else "doc"), data[pos:pos + size]
                            pos += size
            assert pos == len(data)


def _corpus_file(corpus, name):
    for p in corpus:
        if p.name == name:
            return p
    pytest.skip(f"{name} is not in the corpus")


def test_corpus_json_8_0_22(corpus):
    values = list(_json_values(_corpus_file(corpus, "json.binlog.000001")))
    docs = [b for kind, b in values if kind == "doc"]
    diffs = [b for kind, b in values if kind == "diff"]
    assert len(docs) == 18 and len(diffs) == 6
    decoded = [roundtrip(b) for b in docs]
    assert all(type(v) is dict for v in decoded)
    assert {v["name"] for v in decoded} == {"Joe", "Sue", "Pete"}
    assert sorted({v["age"] for v in decoded}) == [24, 25, 32, 33, 40, 41]
    ops = [roundtrip_diff(b) for b in diffs]
    assert [o[0] for o in ops] == [JsonDiffOp("REPLACE", "$.age", a) for a in (26, 34, 42) * 2]


def test_corpus_json_opaque_9_0_1(corpus):
    values = list(_json_values(_corpus_file(corpus, "json-opaque.binlog")))
    assert len(values) == 8 and {k for k, _ in values} == {"doc"}
    decoded = [roundtrip(b) for _, b in values]
    merged = {}
    for v in decoded:
        assert type(v) is dict
        merged.setdefault(*next(iter(v.items())))
    assert merged["b"] == dt.date(2012, 3, 18)
    assert merged["d"] == JsonDecimal("123.456", 6) and merged["d"].precision == 6
    assert to_jsonable(decoded) == [
        {"a": {"opaque_type": 15, "hex": "55"}}, {"b": "2012-03-18"}, {"c": "2012-03-18T11:30:45"},
        {"c": "87:31:46.654321"}, {"d": "123.456"}, {"e": "9.00"}, {"e": [0, 1, True, False]},
        {"e": None}]

"""The construct primitives: both directions, boundaries, compiled == interpreted, and
lying lengths give typed errors."""


import construct as c
import pytest

from binlog_schema.construct_ext import errors
from binlog_schema.construct_ext.codegen import compile_declaration, module_source
from binlog_schema.construct_ext.names import NameTable
from binlog_schema.construct_ext.primitives import (Bitmap, Bounded, CodeList, Counted, FlagList,
                                                    GreedyList, IfMore, PackedInt,
                                                    RepeatUntilValue, Text, UIntLE)

PACKED = [
    (0, "00"), (250, "fa"), (251, "fcfb00"), (0xFFFF, "fcffff"), (0x10000, "fd000001"),
    (0xFFFFFF, "fdffffff"), (0x1000000, "fe0000000100000000"),
    ((1 << 64) - 1, "feffffffffffffffff"), (None, "fb"),
]


@pytest.mark.parametrize("value,hexed", PACKED)
def test_packed_int_both_ways(value, hexed):
    assert PackedInt.build(value) == bytes.fromhex(hexed)
    assert PackedInt.parse(bytes.fromhex(hexed)) == value
    compiled = compile_declaration(PackedInt)
    assert compiled.parse(bytes.fromhex(hexed)) == value
    assert compiled.build(value) == bytes.fromhex(hexed)


def test_packed_int_rejects_ff_and_short_and_out_of_range():
    with pytest.raises(c.ValidationError):
        PackedInt.parse(b"\xff" + b"\0" * 8)
    with pytest.raises(c.StreamError):
        PackedInt.parse(b"\xfc\x01")
    with pytest.raises(c.IntegerError):
        PackedInt.build(1 << 64)
    with pytest.raises(c.IntegerError):
        PackedInt.build(-1)


def test_uint_width_from_expression():
    s = c.Struct("w" / c.Int8ul, "v" / UIntLE(c.this.w))
    for w, v in ((4, 0xDEADBEEF), (6, 0x0000FFFFFFFFFF)):
        data = bytes([w]) + v.to_bytes(w, "little")
        assert s.parse(data).v == v
        assert compile_declaration(s).build({"w": w, "v": v}) == data
    with pytest.raises(c.IntegerError):
        s.build({"w": 4, "v": 1 << 32})


def test_bitmaps_lsb_and_msb_orders():
    lsb = Bitmap(10)
    msb = Bitmap(10, msb=True)
    bits = [True, False, False, False, False, False, False, False, False, True]
    assert lsb.build(bits) == bytes([0b00000001, 0b00000010])
    assert msb.build(bits) == bytes([0b10000000, 0b01000000])
    assert lsb.parse(bytes([1, 2])) == bits
    assert msb.parse(bytes([0x80, 0x40])) == bits


def test_bitmap_keeps_nonzero_padding():
    data = bytes([0x01, 0xFE])  # padding bits of a 9-bit map are set
    value = Bitmap(9).parse(data)
    assert len(value) == 16
    assert Bitmap(9).build(value) == data


def test_greedy_bitmap_takes_the_block_and_trims_exact_padding():
    g = Bounded(Bitmap(3, msb=True, greedy=True))
    assert g.parse(b"\x01\xa0") == [True, False, True]
    assert g.build([True, False, True]) == b"\x01\xa0"
    longer = g.parse(b"\x02\xa0\x00")  # more bytes than 3 bits need: all kept
    assert len(longer) == 16 and g.build(longer) == b"\x02\xa0\x00"


def test_bounded_lying_length_is_a_stream_error_in_both_modes():
    b = Bounded(GreedyList(PackedInt))
    assert b.parse(b"\x03\x01\x02\x03") == [1, 2, 3]
    with pytest.raises(c.StreamError):  # interpreted: construct's error, with the path
        b.parse(b"\x09\x01")
    with pytest.raises(errors.StreamError):  # compiled: the primitive's own
        compile_declaration(b).parse(b"\x09\x01")


def test_greedy_list_partial_item_is_an_error():
    pairs = Bounded(GreedyList(c.Struct("a" / PackedInt, "b" / PackedInt)))
    assert pairs.parse(b"\x02\x01\x02") == [{"a": 1, "b": 2}]
    with pytest.raises(c.StreamError):
        pairs.parse(b"\x03\x01\x02\x03")


def test_counted_list_with_a_lying_count_fails_without_allocating():
    con = Counted(PackedInt)
    assert con.build([5, 300]) == b"\x02\x05\xfc\x2c\x01"
    with pytest.raises(c.StreamError):
        con.parse(b"\xfe" + (10 ** 12).to_bytes(8, "little") + b"\x01")


def test_text_is_str_for_utf8_and_bytes_otherwise():
    t = Bounded(Text)
    assert t.parse(b"\x05caf\xc3\xa9") == "café"
    assert t.parse(b"\x04caf\xe9") == b"caf\xe9"
    assert t.build(b"caf\xe9") == b"\x04caf\xe9"
    assert t.build("café") == b"\x05caf\xc3\xa9"


def test_codes_and_flags_with_names():
    names = NameTable(__name__, "NAMES", {1: "ONE", 2: "TWO"})
    globals()["NAMES"] = names
    codes = CodeList(3, names)
    assert codes.parse(b"\x01\x02\x07") == ["ONE", "TWO", 7]
    assert compile_declaration(codes).build(["ONE", "TWO", 7]) == b"\x01\x02\x07"
    flags = FlagList(2, names)
    assert flags.parse(b"\x07\x00") == ["ONE", "TWO", 4]
    assert flags.build(["ONE", 4]) == b"\x05\x00"
    assert compile_declaration(flags).build(5) == b"\x05\x00"


def test_ifmore_and_repeat_until():
    s = c.Struct("a" / c.Int8ul, "b" / IfMore(c.Int8ul))
    assert s.parse(b"\x01") == {"a": 1, "b": None}
    assert s.parse(b"\x01\x02").b == 2
    assert s.build({"a": 1, "b": None}) == b"\x01"
    r = RepeatUntilValue(c.Struct("t" / c.Int8ul), "t", 0)
    assert r.parse(b"\x03\x02\x00\x09") == [{"t": 3}, {"t": 2}, {"t": 0}]
    with pytest.raises(c.RangeError):
        r.build([{"t": 1}])


def test_compiled_source_has_no_linked_fallbacks():
    """Every construct in the event declaration compiles (no interpreted links)."""
    from binlog_schema.format.events.envelope import Event
    src = module_source(Event)  # (it raises when anything would run linked, interpreted)
    assert "linkedparsers" not in src and "linkedbuilders" not in src
    assert "import construct" not in src and "from construct" not in src


FLAG_NAMES = NameTable(__name__, "FLAG_NAMES", {1: "ONE", 2: "TWO"})  # (compiled code imports it)


def test_expressions_emit_once_and_evaluate_the_same():
    """Every expression gives its source through emit(code), which the constructs holding it
    ask for (this package's If here); repr is a plain description, never code."""
    from binlog_schema.construct_ext import context_functions as exprs
    from binlog_schema.construct_ext.expressions import (Apply, Call, CtxKey, Expression,
                                                         Field, FieldIs, FlagSet)
    from binlog_schema.construct_ext.primitives import If
    table = FLAG_NAMES
    decl = c.Struct(
        "n" / c.Int8ul, "flags" / FlagList(1, table),
        "a" / If(FieldIs(("n",), 1), c.Int8ul),
        "b" / If(FlagSet("flags", table, 2), c.Int8ul),
        "c" / If(Apply(bool, "n"), c.Int8ul),
        "d" / If(Call(exprs.get_or_none, "n"), c.Int8ul),
        "e" / If(Field("n"), UIntLE(CtxKey("width", 2))),
    )
    data = b"\x01\x02\x05\x06\x07\x08\x09\x00"
    assert compile_declaration(decl).parse(data) == decl.parse(data)
    for e in (Field("n"), FieldIs(("n",), 1), FlagSet("flags", table, 2), CtxKey("w", 2)):
        assert isinstance(e, Expression) and "this" not in repr(e)
    e = FieldIs(("_", "x"), "s")
    assert e.emit(c.CodeGen()) == "(this['_']['x'] == 's')" and "this" not in repr(e)

"""The declaration vocabulary: every primitive the event declarations use, each once.

The primitives themselves (factories and constants: integers, text, bitmaps, blocks and
lists, the serialization format) are defined here, each a :class:`~.leaves.Leaf` or
:class:`~.leaves.Wrapper` around a pair of parse/build functions of the construct-free modules
(:mod:`.ints`, :mod:`.text`, :mod:`.bits`, :mod:`.blocks`, :mod:`.serialization`). The classes
they are made of and the other constructs and expressions declarations use are defined in
their own modules and imported here, so a declaration imports its whole vocabulary from this
one module:

* :mod:`.leaves` - ``Leaf``, ``BuildOnlyLeaf``, ``Wrapper`` (and the error bridge)
* :mod:`.expressions` - ``Call``, ``Apply``, ``Field``, ``FieldIs``, ``FlagSet``, ``CtxKey``,
  ``FuncRef``, ``ThisContext``, ``BuiltSize``
* :mod:`.structs` - the compiled ``Struct``
* :mod:`.containers` - ``Switch``, ``If``, ``Rebuild``, ``Default`` (declarations use these,
  not construct's: their code is emitted here), ``TaggedList``, ``CaseTable``, ``Framed``
"""

from __future__ import annotations

from . import bits, blocks, ints, jsontext, serialization, text
from .containers import (CaseTable, Default, Framed, If, IfMoreWrapper,  # noqa: F401
                         Rebuild, Switch, TaggedList)
from .expressions import (Apply, BuiltSize, Call, CtxKey, Expression, Field,  # noqa: F401
                          FieldIs, FlagSet, FuncRef, ThisContext)
from .leaves import BuildOnlyLeaf, LimitExceeded, Leaf, Wrapper  # noqa: F401
from .structs import Struct  # noqa: F401

# ------------------------------------------------------------------------------ integers

PackedInt = Leaf(ints.packed_parse, ints.packed_build)
"""MySQL's length-encoded integer: 1 byte below 251, else 0xfc+2, 0xfd+3, 0xfe+8 bytes.
0xfb is the 1-byte NULL form and parses to None."""

PackedNumber = Leaf(ints.number_parse, ints.number_build)
"""A packed integer that cannot be NULL: 0xfb is refused (a writer stores 251 as fc fb 00)."""


def LimitedCount(limit):
    """A packed-integer count refused (typed LimitError) above ``limit`` (a value or a
    context expression), before anything sized by it is read."""
    return Leaf(ints.count_parse, ints.count_build, limit)


def PackedCode(names):
    """A packed integer parsed to its name from ``names`` (unknown values stay ints)."""
    return Leaf(ints.packedcode_parse, ints.packedcode_build, names)


def UIntLE(width):
    """A little-endian unsigned int whose width may come from the context (4- or 6-byte ids)."""
    return Leaf(ints.uint_parse, ints.uint_build, width, size=width)


def Code(names):
    """One byte parsed to its name from ``names`` (unknown values stay ints)."""
    return Leaf(ints.code_parse, ints.code_build, names, size=1)


def CodeList(count, names):
    """``count`` one-byte codes, each parsed to its name (unknown codes stay ints)."""
    return Leaf(ints.codes_parse, ints.codes_build, count, names, size=count)


def FlagList(width: int, names):
    """A little-endian flags word parsed to the list of its set bits' names (unnamed bits stay
    as their int value). Builds from such a list or from an int."""
    return Leaf(ints.flags_parse, ints.flags_build, width, names, size=width,
                unpacked=({1: "B", 2: "H", 4: "L", 8: "Q"}.get(width), ints.flags_of,
                          jsontext.flags_json))


def NonZeroFlags(names):
    """A one-byte flags field written only when non-zero (a zero byte here is padding): the
    empty list when absent."""
    return Leaf(ints.nzflags_parse, ints.nzflags_build, names)


Uuid = Leaf(ints.uuid_parse, ints.uuid_build, size=16,
            unpacked=("16s", ints.uuid_of, jsontext.uuid_json))
"""16 bytes as the canonical UUID text ``xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx``."""


def FlaggedPair(width: int, bit: int):
    """``{immediate, original}``: an int of ``width`` bytes whose bit ``bit`` says a second one
    (the original) follows; None when not. The bit is set on build from the presence of
    ``original``."""
    return Leaf(ints.pair_parse, ints.pair_build, width, bit, json=jsontext.pair_json)


def PeekHigh(width: int, shift: int, names, flags: bool = False):
    """The bits from ``shift`` up of the ``width``-byte word that starts here, read without
    consuming it (a flags list when ``flags``, else a name); writes nothing: the field after it
    (:func:`LowBits`) writes the whole word."""
    return Leaf(ints.peekhigh_parse, ints.peekhigh_build, width, shift, names, flags, size=0)


def LowBits(width: int, shift: int, high, names, flags: bool = False):
    """The bits below ``shift`` of a ``width``-byte word; builds the word with ``high`` (the
    value of the :func:`PeekHigh` field before it) in the top bits."""
    return Leaf(ints.lowbits_parse, ints.lowbits_build, width, shift, high, names, flags,
                size=width)


def SidCount(fmt, formats):
    """The number of SIDs of an encoded GTID set, in the word whose format ``fmt`` names."""
    return Leaf(ints.sidcount_parse, ints.sidcount_build, fmt, formats, size=8)


# ----------------------------------------------------------------------------- serialization format

VarUInt = Leaf(serialization.varuint_parse, serialization.varuint_build)
"""MySQL serialization-format unsigned integer (1-9 bytes)."""
VarSInt = Leaf(serialization.varsint_parse, serialization.varsint_build)
"""MySQL serialization-format signed integer: zigzag (sign in bit 0), then as unsigned."""
VarUuid = Leaf(serialization.varuuid_parse, serialization.varuuid_build)
"""A UUID as a serialization-format fixed array: 16 bytes, each a varlen integer."""


def VarText(maxlen: int = 0):
    """A serialization-format string: varlen length, bytes (``str`` when UTF-8)."""
    return Leaf(serialization.vartext_parse, serialization.vartext_build, maxlen)


def VarFlags(names):
    """A serialization-format unsigned integer holding flags, as the list of their names."""
    return Leaf(serialization.varflags_parse, serialization.varflags_build, names)


def SerField(field_id: int, subcon):
    """A serialization-format optional field: present (its id, then its value) or absent
    (None). A field whose id is not next is absent, as in MySQL's decoder."""
    return Wrapper(serialization.serfield_parse, serialization.serfield_build, subcon,
                   field_id, buildnone=True)


def Message(version: int, subcon):
    """A serialization-format message (``Serializer<...>::operator<<``); its size is computed
    on build, and the message's fields parse inside their block only."""
    return Wrapper(serialization.message_parse, serialization.message_build, subcon, version,
                   buildnone=False)


# ------------------------------------------------------------------------------ bytes and text


def ByteString(length):
    """``length`` bytes, checked in compiled code too."""
    return Leaf(text.bytes_parse, text.bytes_build, length, size=length)


Raw = Leaf(text.greedybytes_parse, text.greedybytes_build)
"""The rest of the (bounded) stream as bytes."""

Text = Leaf(text.text_parse, text.text_build)
"""The rest of the stream as ``str`` when it is valid UTF-8, else as ``bytes`` (lossless)."""


def TextN(length):
    """``length`` bytes as ``str`` when UTF-8, else ``bytes`` (lossless)."""
    return Leaf(text.textn_parse, text.textn_build, length, size=length)


def SizedText(width: int):
    """A ``width``-byte little-endian length, then that many bytes (``str`` when UTF-8)."""
    return Leaf(text.sizedtext_parse, text.sizedtext_build, width)


CStr = Leaf(text.cstr_parse, text.cstr_build)
"""A NUL-terminated string (text when UTF-8, else bytes)."""


def ByteList(n):
    """``n`` bytes as a list of ints."""
    return Leaf(text.bytelist_parse, text.bytelist_build, n, size=n)


def ByteListLeaving(leave):
    """The rest of the stream as a list of byte values, except the last ``leave`` bytes."""
    return Leaf(text.leaving_parse, text.leaving_build, leave)


def NamesByLength(lens):
    """Names of the given byte lengths, each followed by NUL (LOAD's field names: the reader
    goes by the lengths, so a name is exactly its length)."""
    return Leaf(text.lennames_parse, text.lennames_build, lens)


def FixedText(size):
    """``size`` bytes holding NUL-padded ASCII: a ``str`` when the padding is all NUL, else the
    raw bytes (lossless)."""
    return Leaf(text.fixed_text_parse, text.fixed_text_build, size, size=size)


# ------------------------------------------------------------------------------ bitmaps


def Bitmap(count, msb: bool = False, greedy: bool = False, pad: bool = False):
    """A bitmap of ``count`` bits (a list of bools).

    ``msb``: bit order within each byte (MSB-first for SIGNEDNESS and COLUMN_VISIBILITY,
    LSB-first for null bits). ``greedy``: the bitmap runs to the end of its (bounded) stream,
    as in an optional-metadata TLV; otherwise it takes ``(count + 7) // 8`` bytes.
    ``pad``: the spare bits' usual filler is ones (rows events' column bitmaps).
    """
    return Leaf(bits.bitmap_parse, bits.bitmap_build, count, msb, greedy, pad,
                size=None if greedy else (count + 7) // 8)


# ------------------------------------------------------------------------------ blocks and lists


def Bounded(subcon, packed: bool = True, length=None):
    """A block prefixed by its length (a packed integer, one byte, or ``length``: a pair of
    module-level functions ``parse(io) -> n`` and ``build(n, io)``); the subcon parses only
    inside the block, so nothing it does can run past it. The length is computed on build."""
    lp, lb = length or ((ints.packed_parse, ints.packed_build) if packed
                        else (ints.u8_parse, ints.u8_build))
    if subcon is Text:
        return Wrapper(blocks.bounded_text_parse, blocks.bounded_text_build, subcon,
                       FuncRef(lp), FuncRef(lb))
    return Wrapper(blocks.bounded_parse, blocks.bounded_build, subcon, FuncRef(lp), FuncRef(lb))


def Sized(n, subcon):
    """A block of ``n`` bytes (its length stored elsewhere) that ``subcon`` parses whole."""
    return Wrapper(blocks.sized_parse, blocks.sized_build, subcon, n)


def GreedyList(subcon):
    """Items of ``subcon`` until the end of the (bounded) stream. Unlike construct's
    GreedyRange, a partial last item is an error, not silently dropped."""
    return Wrapper(blocks.greedylist_parse, blocks.greedylist_build, subcon, buildnone=False)


def Counted(subcon):
    """A packed-integer count followed by that many items."""
    return Wrapper(blocks.counted_parse, blocks.counted_build, subcon, buildnone=False)


def IfMore(subcon):
    """Present only when the stream has bytes left (None otherwise): for blocks that older
    servers did not write, such as the pre-GA 5.1 TABLE_MAP's metadata and null bits."""
    return IfMoreWrapper(blocks.ifmore_parse, blocks.ifmore_build, subcon, buildnone=True)


def RepeatUntilValue(subcon, key, value):
    """Items of ``subcon`` up to and including the first whose ``key`` equals ``value``."""
    return Wrapper(blocks.until_parse, blocks.until_build, subcon, key, value, buildnone=False)


def RawIfCorrupt(subcon, corrupt, *args):
    """``subcon``, unless ``corrupt(head, size, this, *args)`` says the servers reject the
    layout: then the body stays raw bytes (lossless, like an undeclared type). ``corrupt`` is
    asked when ``subcon`` fails, so it must only say so of layouts that cannot parse."""
    return Wrapper(blocks.salvage_parse, blocks.salvage_build, subcon, FuncRef(corrupt), *args)


def PadTo(total: int):
    """Zero bytes up to ``total`` bytes from the start of the (body) stream; checked on
    parse, written on build."""
    return Leaf(blocks.padto_parse, blocks.padto_build, total, buildnone=True)


NoLayout = Leaf(blocks.nolayout_parse, blocks.nolayout_build)
"""A tagged item's value whose code has no known layout (parse and build refuse it)."""


def BuildCheck(check, *args):
    """``check(context, *args)`` on build only (it raises a ``CheckError`` for a value that
    would not parse back); parsing reads nothing and costs nothing. Put it first in its Struct:
    there the context holds the values as given (later, an ``If`` that built nothing has
    replaced its field's value with None)."""
    return BuildOnlyLeaf(blocks.buildcheck_parse, blocks.buildcheck_build, ThisContext(),
                         FuncRef(check), args, size=0, buildnone=True)

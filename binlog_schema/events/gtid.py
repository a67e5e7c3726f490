"""GTID and replication-control events: MySQL's GTID family and MariaDB's GTID events.

MySQL::

    GTID_LOG (33), ANONYMOUS_GTID_LOG (34)
        flags 1, sid 16, gno 8                                             (5.6)
        lt_type 1 (2), last_committed 8, sequence_number 8                  (5.7, if more)
        immediate_commit_timestamp 7 (bit 55: the original one follows),
          original_commit_timestamp 7                                       (8.0, if more)
        transaction_length packed                                           (if more)
        immediate_server_version 4 (bit 31: the original one follows),
          original_server_version 4                                         (if more)
        commit_group_ticket 8                                               (8.0.33+, if more)
    GTID_TAGGED_LOG (42, 8.4+): the same fields in MySQL's serialization format
        (libs/mysql/serialization): format version and message size as variable-length
        integers, then "field id, value" pairs, each field optional, integers varlen (signed
        ones zigzag), the SID as 16 varlen bytes, the tag as a varlen-length string.
    PREVIOUS_GTIDS_LOG (35): an 8-byte word with the format in its top byte (0 untagged:
        n_sids in the low 7 bytes; 1 tagged: format, n_sids in bytes 1-6, format), then per
        SID: uuid 16, [tag, tagged format only], n_intervals 8, (start 8, end 8) * n.
    TRANSACTION_CONTEXT (36), VIEW_CHANGE (37), XA_PREPARE_LOG (38), HEARTBEAT_LOG (27),
    HEARTBEAT_LOG_V2 (41, TLV fields like TRANSACTION_PAYLOAD's).

MariaDB::

    BINLOG_CHECKPOINT (161): name length 4, name
    GTID (162): seq_no 8, domain_id 4, flags2 1, [commit_id 8], [xid: format_id 4,
        gtrid_length 1, bqual_length 1, data], [flags_extra 1 (written when non-zero),
        [extra_engines 1], [start-alter seq_no 8], [thread_id 4]], zero padding to 19 bytes
    GTID_LIST (163): count 28 bits + flags 4 bits, (domain_id 4, server_id 4, seq_no 8) * count
        (an empty list is followed by 2 zero bytes)
    START_ENCRYPTION (164): scheme 1, key_version 4, nonce 12 (the rest of the file is
        encrypted and stays raw: the reader has no key)

Presence bits, lengths and counts are computed on build. Where a value's presence is tied to a
flag the user writes (MariaDB's flags2/flags_extra), a ``Check`` refuses a value whose flag and
field disagree instead of dropping the field silently.

The primitives this module adds (UUIDs, MySQL serialization-format integers, messages and
fields, flagged pairs, peeked high bits, padding) are in the section "primitives" below; they
are written like those of ``primitives.py`` (plain parse/build functions, ``_Leaf``/``_Wrapper``)
so that the whole declaration compiles.
"""

from __future__ import annotations

import io as _io

import construct as c
from construct import this

from ..primitives import (Bounded, ByteString, FieldIs, expr_ref, FlagList, FuncRef, IfMore, NameTable,
                          PackedInt, Raw, RepeatUntilValue, Struct, Text, TrackingIO,
                          _flag_names, _Leaf, _Wrapper, packed_build, packed_parse, read_exact,
                          remaining, substream)
from .format_description import FixedText

_MOD = __name__

# ======================================================================================
# primitives (candidates for primitives.py; defined first because the declarations use them)
# ======================================================================================

# ---------------------------------------------------------------------------- UUID


def uuid_parse(io):
    return uuid_of(read_exact(io, 16))


_UUIDS: dict = {}  # a file names few servers: their UUIDs' text is kept


def uuid_of(data: bytes) -> str:
    text = _UUIDS.get(data)
    if text is None:
        h = data.hex()
        text = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        if len(_UUIDS) >= 1024:
            _UUIDS.clear()
        _UUIDS[bytes(data)] = text
    return text


def uuid_bytes(obj) -> bytes:
    if isinstance(obj, (bytes, bytearray)) and len(obj) == 16:
        return bytes(obj)
    if isinstance(obj, str):
        h = obj.replace("-", "")
        if len(h) == 32:
            try:
                return bytes.fromhex(h)
            except ValueError:
                pass
    raise c.StringError(f"{obj!r:.60} is not a UUID (32 hex digits, hyphens optional)")


def uuid_build(obj, io):
    io.write(uuid_bytes(obj))
    return obj


Uuid = _Leaf(uuid_parse, uuid_build, size=16, unpacked=("16s", uuid_of))
"""16 bytes as the canonical UUID text ``xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx``."""

# ---------------------------------------------------------------- MySQL serialization format
# (libs/mysql/serialization: variable-length integers, messages of optional fields)

U64 = 1 << 64


def var_size(value: int) -> int:
    """Bytes of a value in the serialization format: 1 + ceil((bits - 1) / 7), 9 at most."""
    return ((value.bit_length() * 575) >> 12) + 1


def var_encode(value: int) -> bytes:
    n = var_size(value)
    first = (((1 << (n - 1)) - 1) | (value << n)) & 0xFF
    if n == 1:
        return bytes((first,))
    rest = value >> (8 - n + (1 if n == 9 else 0))
    return bytes((first,)) + (rest & ((1 << (8 * (n - 1))) - 1)).to_bytes(n - 1, "little")


def _blame(io, pos):
    """Make an error name the offset ``pos`` of this stream (not that of its last read)."""
    if type(io) is TrackingIO:
        io.recorder[0] = io.base + pos


def var_read(io) -> int:
    """A variable-length unsigned integer: the count of trailing one bits of the first byte,
    plus one, is its length. Only the shortest encoding is accepted (the one servers write),
    so what parses rebuilds byte for byte."""
    start = io.tell()
    b = io.read(1)
    if not b:
        raise c.StreamError("variable-length integer: no bytes left")
    first = b[0]
    n = 1
    while n < 9 and first & (1 << (n - 1)):
        n += 1
    value = first >> n if n < 8 else 0
    if n > 1:
        rest = int.from_bytes(read_exact(io, n - 1), "little")
        value |= rest << (8 - n + (1 if n == 9 else 0))
    if value >= U64:
        _blame(io, start)
        raise c.ValidationError(f"variable-length integer {value} does not fit in 64 bits")
    if var_size(value) != n:
        _blame(io, start)
        raise c.ValidationError(f"variable-length integer {value} in {n} bytes is not the "
                                f"shortest encoding ({var_size(value)} bytes)")
    return value


def varuint_parse(io):
    return var_read(io)


def varuint_build(obj, io):
    if not isinstance(obj, int) or not 0 <= obj < U64:
        raise c.IntegerError(f"{obj!r} is not an unsigned 64-bit int")
    io.write(var_encode(obj))
    return obj


VarUInt = _Leaf(varuint_parse, varuint_build)
"""MySQL serialization-format unsigned integer (1-9 bytes)."""


def varsint_parse(io):
    u = var_read(io)
    return -(u >> 1) - 1 if u & 1 else u >> 1


def varsint_build(obj, io):
    if not isinstance(obj, int) or not -(1 << 63) <= obj < (1 << 63):
        raise c.IntegerError(f"{obj!r} is not a signed 64-bit int")
    io.write(var_encode(obj << 1 if obj >= 0 else ((-(obj + 1)) << 1) | 1))
    return obj


VarSInt = _Leaf(varsint_parse, varsint_build)
"""MySQL serialization-format signed integer: zigzag (sign in bit 0), then as unsigned."""


def vartext_parse(io, maxlen):
    n = var_read(io)
    if maxlen and n > maxlen:
        raise c.ValidationError(f"string of {n} bytes, at most {maxlen} allowed")
    data = read_exact(io, n)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def vartext_build(obj, io, maxlen):
    data = obj.encode("utf-8") if isinstance(obj, str) else obj
    if not isinstance(data, (bytes, bytearray)):
        raise c.StringError(f"expected str or bytes, got {obj!r:.40}")
    if maxlen and len(data) > maxlen:
        raise c.StringError(f"string of {len(data)} bytes, at most {maxlen} allowed")
    io.write(var_encode(len(data)) + data)
    return obj


def VarText(maxlen: int = 0):
    """A serialization-format string: varlen length, bytes (``str`` when UTF-8)."""
    return _Leaf(vartext_parse, vartext_build, maxlen)


def varuuid_parse(io):
    out = bytearray()
    for _ in range(16):
        v = var_read(io)
        if v > 255:
            raise c.ValidationError(f"UUID byte {v} does not fit in a byte")
        out.append(v)
    h = out.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def varuuid_build(obj, io):
    io.write(b"".join(var_encode(b) for b in uuid_bytes(obj)))
    return obj


VarUuid = _Leaf(varuuid_parse, varuuid_build)
"""A UUID as a serialization-format fixed array: 16 bytes, each a varlen integer."""


def flag_value(obj, names) -> int:
    if isinstance(obj, int):
        return obj
    if obj is None:
        return 0
    value = 0
    for item in obj:
        bit = names.get(item, item) if isinstance(item, str) else item
        if not isinstance(bit, int):
            raise c.MappingError(f"unknown flag {item!r}")
        value |= bit
    return value


def varflags_parse(io, names):
    return c.ListContainer(_flag_names(var_read(io), names))


def varflags_build(obj, io, names):
    varuint_build(flag_value(obj, names), io)
    return obj


def VarFlags(names: NameTable):
    """A serialization-format unsigned integer holding flags, as the list of their names."""
    return _Leaf(varflags_parse, varflags_build, names)


def _peek_var(io):
    pos = io.tell()
    try:
        return var_read(io)
    except c.ConstructError:
        return None
    finally:
        io.seek(pos)


def serfield_parse(io, this, sub, field_id):
    if not remaining(io) or _peek_var(io) != field_id:
        return None
    var_read(io)
    return sub(io, this)


def serfield_build(obj, io, this, sub, field_id):
    if obj is not None:
        io.write(var_encode(field_id))
        sub(obj, io, this)
    return obj


def Field(field_id: int, subcon):
    """A serialization-format optional field: present (its id, then its value) or absent
    (None). A field whose id is not next is absent, as in MySQL's decoder."""
    return _Wrapper(serfield_parse, serfield_build, subcon, field_id, buildnone=True)


def message_parse(io, this, sub, version):
    """``version`` (the top-level field id), the message size, then the message: its first
    varlen integer (last non-ignorable field id) and its fields. MySQL's size counts the
    version, the size varint *as long as the payload size would be*, that first integer and
    the payload (Serializer_default::get_size_serializable); the payload size is solved from
    that rule."""
    v = var_read(io)
    if v != version:
        raise c.ValidationError(f"serialization format version {v}, expected {version}")
    size = var_read(io)
    first = _peek_var(io)
    if first is None:
        raise c.StreamError("message: no last-non-ignorable-field id")
    lead = var_size(first)
    fixed = var_size(version) + lead
    for k in range(1, 10):
        payload = size - fixed - k
        if payload >= 0 and var_size(payload) == k:
            break
    else:
        raise c.ValidationError(f"message size {size} is too small for its header")
    data = read_exact(io, lead + payload)
    return sub(substream(io, data), this)


def message_build(obj, io, this, sub, version):
    buf = _io.BytesIO()
    sub(obj, buf, this)
    content = buf.getvalue()
    lead = var_size(var_read(_io.BytesIO(content)))
    payload = len(content) - lead
    size = var_size(version) + var_size(payload) + lead + payload
    io.write(var_encode(version) + var_encode(size) + content)
    return obj


def Message(version: int, subcon):
    """A serialization-format message (``Serializer<...>::operator<<``); its size is computed
    on build, and the message's fields parse inside their block only."""
    return _Wrapper(message_parse, message_build, subcon, version, buildnone=False)


# ------------------------------------------------------ an int and a second one that a bit calls


def pair_parse(io, width, bit):
    first = int.from_bytes(read_exact(io, width), "little")
    second = None
    if first >> bit & 1:
        first &= ~(1 << bit)
        second = int.from_bytes(read_exact(io, width), "little")
    return c.Container(immediate=first, original=second)


def pair_build(obj, io, width, bit):
    first, second = obj["immediate"], obj.get("original")
    if not isinstance(first, int) or not 0 <= first < 1 << bit:
        raise c.IntegerError(f"immediate value {first!r} does not fit in {bit} bits")
    if second is not None and (not isinstance(second, int) or not 0 <= second < 1 << 8 * width):
        raise c.IntegerError(f"original value {second!r} does not fit in {width} bytes")
    flag = 0 if second is None else 1 << bit
    io.write((first | flag).to_bytes(width, "little"))
    if second is not None:
        io.write(second.to_bytes(width, "little"))
    return obj


def FlaggedPair(width: int, bit: int):
    """``{immediate, original}``: an int of ``width`` bytes whose bit ``bit`` says a second one
    (the original) follows; None when not. The bit is set on build from the presence of
    ``original``."""
    return _Leaf(pair_parse, pair_build, width, bit)


# ---------------------------------------------------------- high bits of a word, read ahead


def _name_of(value, names, flags):
    if flags:
        return c.ListContainer(_flag_names(value, names))
    return names.get(value, value)


def _code_of(obj, names, flags):
    if flags:
        return flag_value(obj, names)
    return names.get(obj, obj) if isinstance(obj, str) else obj


def peekhigh_parse(io, width, shift, names, flags):
    word = int.from_bytes(read_exact(io, width), "little")
    io.seek(-width, 1)
    return _name_of(word >> shift, names, flags)


def peekhigh_build(obj, io, width, shift, names, flags):
    value = _code_of(obj, names, flags)
    if not isinstance(value, int) or not 0 <= value < 1 << (8 * width - shift):
        raise c.IntegerError(f"{obj!r} does not fit in the top {8 * width - shift} bits")
    return obj


def PeekHigh(width: int, shift: int, names: NameTable, flags: bool = False):
    """The bits from ``shift`` up of the ``width``-byte word that starts here, read without
    consuming it (a flags list when ``flags``, else a name); writes nothing: the field after it
    (:func:`LowBits`) writes the whole word."""
    return _Leaf(peekhigh_parse, peekhigh_build, width, shift, names, flags, size=0)


def lowbits_parse(io, width, shift, high, names, flags):
    word = int.from_bytes(read_exact(io, width), "little")
    return word & ((1 << shift) - 1)


def lowbits_build(obj, io, width, shift, high, names, flags):
    if not isinstance(obj, int) or not 0 <= obj < 1 << shift:
        raise c.IntegerError(f"{obj!r} does not fit in {shift} bits")
    top = _code_of(high, names, flags)
    io.write(((top << shift) | obj).to_bytes(width, "little"))
    return obj


def LowBits(width: int, shift: int, high, names: NameTable, flags: bool = False):
    """The bits below ``shift`` of a ``width``-byte word; builds the word with ``high`` (the
    value of the :func:`PeekHigh` field before it) in the top bits."""
    return _Leaf(lowbits_parse, lowbits_build, width, shift, high, names, flags, size=width)


def sidcount_parse(io, fmt):
    word = int.from_bytes(read_exact(io, 8), "little")
    if word >> 56 == 1:
        if word & 0xFF != 1:
            raise c.ValidationError(f"tagged GTID set: low byte {word & 0xFF}, expected 1")
        return (word >> 8) & ((1 << 48) - 1)
    return word & ((1 << 56) - 1)


def sidcount_build(obj, io, fmt):
    code = GTID_SET_FORMATS.get(fmt, fmt) if isinstance(fmt, str) else fmt
    if code == 1:
        if not isinstance(obj, int) or not 0 <= obj < 1 << 48:
            raise c.IntegerError(f"{obj!r} SIDs do not fit in 48 bits")
        word = 1 << 56 | obj << 8 | 1
    else:
        if not isinstance(obj, int) or not 0 <= obj < 1 << 56:
            raise c.IntegerError(f"{obj!r} SIDs do not fit in 56 bits")
        word = (code or 0) << 56 | obj
    io.write(word.to_bytes(8, "little"))
    return obj


def SidCount(fmt):
    """The number of SIDs of an encoded GTID set (Gtid_set::encode): the low 7 bytes of the
    word, or for the tagged format (1) bytes 1-6, with the format also in byte 0."""
    return _Leaf(sidcount_parse, sidcount_build, fmt, size=8)


# ------------------------------------------------------------------ strings with lengths


def byte_len(value) -> int:
    """Length in bytes of a str (UTF-8) or bytes value (for Rebuild)."""
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    return len(value)


def textn_parse(io, length):
    data = read_exact(io, length)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def textn_build(obj, io, length):
    data = obj.encode("utf-8") if isinstance(obj, str) else obj
    if not isinstance(data, (bytes, bytearray)) or len(data) != length:
        raise c.StringError(f"expected {length} bytes of text, got {obj!r:.40}")
    io.write(data)
    return obj


def TextN(length):
    """``length`` bytes as ``str`` when UTF-8, else ``bytes`` (lossless)."""
    return _Leaf(textn_parse, textn_build, length, size=length)


def sizedtext_parse(io, width):
    n = int.from_bytes(read_exact(io, width), "little")
    return textn_parse(io, n)


def sizedtext_build(obj, io, width):
    data = obj.encode("utf-8") if isinstance(obj, str) else obj
    if not isinstance(data, (bytes, bytearray)):
        raise c.StringError(f"expected str or bytes, got {obj!r:.40}")
    if len(data) >= 1 << (8 * width):
        raise c.StringError(f"{len(data)} bytes do not fit a {width}-byte length")
    io.write(len(data).to_bytes(width, "little") + data)
    return obj


def SizedText(width: int):
    """A ``width``-byte little-endian length, then that many bytes (``str`` when UTF-8)."""
    return _Leaf(sizedtext_parse, sizedtext_build, width)


class _ByteLen:
    """Expression: the byte length of the field ``key`` (str or bytes), for Rebuild."""

    def __init__(self, key):
        self.key = key

    def __call__(self, context):
        return byte_len(context[self.key])

    def __repr__(self):
        return f"{expr_ref(byte_len)}(this[{self.key!r}])"


# ------------------------------------------------------------------ flags, zeros, checks


def nzflags_parse(io, names):
    pos = io.tell()
    b = io.read(1)
    if not b or not b[0]:
        io.seek(pos)
        return c.ListContainer()
    return c.ListContainer(_flag_names(b[0], names))


def nzflags_build(obj, io, names):
    value = flag_value(obj, names)
    if not 0 <= value < 256:
        raise c.IntegerError(f"flags {obj!r} do not fit in one byte")
    if value:
        io.write(bytes((value,)))
    return obj


def NonZeroFlags(names: NameTable):
    """A one-byte flags field written only when non-zero (a zero byte here is padding): the
    empty list when absent."""
    return _Leaf(nzflags_parse, nzflags_build, names)


def padto_parse(io, total):
    n = total - io.tell()
    if n > 0:
        data = read_exact(io, n)
        if any(data):
            raise c.ValidationError(f"padding to {total} bytes is not zero: {data.hex()}")
    return None


def padto_build(obj, io, total):
    n = total - io.tell()
    if n > 0:
        io.write(bytes(n))
    return None


def PadTo(total: int):
    """Zero bytes up to ``total`` bytes from the start of the (body) stream; checked on
    parse, written on build."""
    leaf = _Leaf(padto_parse, padto_build, total)
    leaf.flagbuildnone = True
    return leaf


def flag_set(value, table: str, mask: int) -> bool:
    """Whether any bit of ``mask`` is set in a flags value (a list of names, or an int)."""
    return bool(flag_value(value, globals()[table]) & mask)


class _Flag:
    """Expression: a bit of ``mask`` is set in the flags field ``key`` (names in ``table``,
    a NameTable of this module)."""

    def __init__(self, key, table, mask):
        self.key, self.table, self.mask = key, table, mask

    def __call__(self, context):
        return flag_set(context[self.key], self.table, self.mask)

    def __repr__(self):
        # inline (no call): the value is a list of names and unnamed bits, or an int on build
        v = f"this[{self.key!r}]"
        table = globals()[self.table]
        tests = []
        for i in range(8 * 8):
            bit = 1 << i
            if self.mask & bit:
                if bit in table:
                    tests.append(f"{table[bit]!r} in {v}")
                tests.append(f"{bit} in {v}")
        return (f"((({v} & {self.mask}) != 0) if isinstance({v}, int) "
                f"else ({' or '.join(tests)}))")


def presence_ok(this, rules) -> bool:
    """Each (field, flags field, table, mask): the field is present iff a flag of mask is set.
    (On parse it always holds; on build it refuses a value that would not parse back.)"""
    for key, fkey, table, mask in rules:
        if (this.get(key) is not None) != flag_set(this.get(fkey), table, mask):
            raise c.CheckError(f"{key} must be given exactly when {fkey} has a flag of "
                               f"{mask:#x} set")
    return True


class _This:
    """Expression: the construct context itself (for :func:`BuildCheck`)."""

    def __call__(self, context):
        return context

    def emit(self, code):
        return "this"


class _BuildOnly(_Leaf):
    def _emitparse(self, code):  # parsing reads nothing: no code at all
        return "None"


def buildcheck_parse(io, this, check, args):
    return None


def buildcheck_build(obj, io, this, check, args):
    check(this, *args)
    return None


def BuildCheck(check, *args):
    """``check(context, *args)`` on build only (it raises a ``CheckError`` for a value that
    would not parse back); parsing reads nothing and costs nothing. Put it first in its Struct:
    there the context holds the values as given (later, an ``If`` that built nothing has
    replaced its field's value with None)."""
    leaf = _BuildOnly(buildcheck_parse, buildcheck_build, _This(), FuncRef(check), args,
                      size=0)
    leaf.flagbuildnone = True
    return leaf


def tail_ok(this, keys, lead_key=None, lead_value=None) -> bool:
    """Optional tail fields (``IfMore``): none may be given after one that is None, and none at
    all unless ``lead_key`` has ``lead_value``."""
    gap = lead_key is not None and this.get(lead_key) != lead_value
    for key in keys:
        if this.get(key) is None:
            gap = True
        elif gap:
            raise c.CheckError(f"{key} is given, but a field it follows is absent "
                               f"(optional tail fields are written in order)")
    return True


def packedcode_parse(io, names):
    v = packed_parse(io)
    return names.get(v, v)


def packedcode_build(obj, io, names):
    packed_build(names.get(obj, obj) if isinstance(obj, str) else obj, io)
    return obj


def packednn_parse(io):
    v = packed_parse(io)
    if v is None:
        raise c.ValidationError("packed length is NULL (0xfb)")
    return v


PackedLength = _Leaf(packednn_parse, packed_build)
"""A packed integer that may not be the NULL form 0xfb (which would parse to None and build
back to nothing)."""


def PackedCode(names: NameTable):
    """A packed integer parsed to its name from ``names`` (unknown values stay ints)."""
    return _Leaf(packedcode_parse, packedcode_build, names)


# ======================================================================================
# MySQL
# ======================================================================================

GTID_FLAGS = NameTable(_MOD, "GTID_FLAGS", {0x1: "MAY_HAVE_SBR"})

_LT2 = this.lt_type == 2
_GTID_TAIL = ("commit_timestamps", "transaction_length", "server_versions",
              "commit_group_ticket")


GtidBody = Struct(
    BuildCheck(tail_ok, ("last_committed", "sequence_number") + _GTID_TAIL, "lt_type", 2),
    "flags" / FlagList(1, GTID_FLAGS),
    "sid" / Uuid,
    "gno" / c.Int64sl,
    "lt_type" / IfMore(c.Int8ul),                       # 5.7+: 2 (LOGICAL_TIMESTAMP_TYPECODE)
    "last_committed" / c.If(_LT2, c.Int64sl),
    "sequence_number" / c.If(_LT2, c.Int64sl),
    "commit_timestamps" / c.If(_LT2, IfMore(FlaggedPair(7, 55))),  # 8.0: microseconds
    "transaction_length" / c.If(_LT2, IfMore(PackedLength)),
    "server_versions" / c.If(_LT2, IfMore(FlaggedPair(4, 31))),    # 8.0.14+
    "commit_group_ticket" / c.If(_LT2, IfMore(c.Int64ul)),         # 8.0.33+
)
"""GTID_LOG_EVENT (33) and ANONYMOUS_GTID_LOG_EVENT (34): 5.6 ends after ``gno``, 5.7 after
``sequence_number``; each later block is present only when bytes remain. A ``lt_type`` other
than 2 (5.7.4 and earlier) leaves what follows unparsed (the envelope's ``trailing``)."""

# GTID_TAGGED_LOG_EVENT: MySQL's Gtid_event::define_fields(), field ids 0-11.
TAG_MAX_LENGTH = 32
SERIALIZATION_FORMAT_VERSION = 1

TaggedGtidBody = Message(SERIALIZATION_FORMAT_VERSION, Struct(
    "last_non_ignorable_field_id" / VarUInt,
    "flags" / Field(0, VarFlags(GTID_FLAGS)),
    "sid" / Field(1, VarUuid),
    "gno" / Field(2, VarSInt),
    "tag" / Field(3, VarText(TAG_MAX_LENGTH)),
    "last_committed" / Field(4, VarSInt),
    "sequence_number" / Field(5, VarSInt),
    "immediate_commit_timestamp" / Field(6, VarUInt),
    "original_commit_timestamp" / Field(7, VarUInt),   # written when it differs
    "transaction_length" / Field(8, VarUInt),
    "immediate_server_version" / Field(9, VarUInt),
    "original_server_version" / Field(10, VarUInt),    # written when it differs
    "commit_group_ticket" / Field(11, VarUInt),        # written when set
    "unknown_fields" / IfMore(Raw),                    # fields of newer servers, kept raw
))
"""GTID_TAGGED_LOG_EVENT (42, MySQL 8.4+/9.x). Every field is optional (None when absent), as
in the format; the message size is computed on build."""

GTID_SET_FORMATS = NameTable(_MOD, "GTID_SET_FORMATS", {0: "UNTAGGED", 1: "TAGGED"})

GtidInterval = Struct("start" / c.Int64sl, "end" / c.Int64sl)   # [start, end)

GtidSetSid = Struct(
    "sid" / Uuid,
    "tag" / c.If(FieldIs(("_", "format"), "TAGGED"), VarText(TAG_MAX_LENGTH)),
    "n_intervals" / c.Rebuild(c.Int64ul, c.len_(this.intervals)),
    "intervals" / c.Array(this.n_intervals, GtidInterval),
)

PreviousGtidsBody = Struct(
    "format" / PeekHigh(8, 56, GTID_SET_FORMATS),
    "n_sids" / c.Rebuild(SidCount(this.format), c.len_(this.sids)),
    "sids" / c.Array(this.n_sids, GtidSetSid),
)
"""PREVIOUS_GTIDS_LOG_EVENT (35): the GTID set of the earlier files (Gtid_set::encode), in
the untagged or, from 8.4, the tagged format (which MySQL uses as soon as any SID it knows
has a tag, so a tagged set may hold only empty tags)."""

TransactionContextBody = Struct(
    "server_uuid_length" / c.Rebuild(c.Int8ul, _ByteLen("server_uuid")),
    "thread_id" / c.Int32ul,
    "gtid_specified" / c.Int8ul,
    "snapshot_version_length" / c.Rebuild(c.Int32ul, c.len_(this.snapshot_version)),
    "write_set_count" / c.Rebuild(c.Int32ul, c.len_(this.write_set)),
    "read_set_count" / c.Rebuild(c.Int32ul, c.len_(this.read_set)),
    "server_uuid" / TextN(this.server_uuid_length),
    "snapshot_version" / ByteString(this.snapshot_version_length),
    "write_set" / c.Array(this.write_set_count, SizedText(2)),
    "read_set" / c.Array(this.read_set_count, SizedText(2)),
)
"""TRANSACTION_CONTEXT_EVENT (36, group replication): 18-byte post-header, then the server
UUID, the encoded snapshot version and the write/read sets (2-byte length + hash each)."""

ViewChangeBody = Struct(
    "view_id" / FixedText(40),
    "seq_number" / c.Int64sl,
    "cert_info_count" / c.Rebuild(c.Int32ul, c.len_(this.certification_info)),
    "certification_info" / c.Array(this.cert_info_count,
                                   Struct("key" / SizedText(2), "value" / SizedText(4))),
)
"""VIEW_CHANGE_EVENT (37, group replication): 52-byte post-header (view id, NUL padded to 40
bytes; sequence number; count), then the certification map as (key, value) pairs in order."""

XaPrepareBody = Struct(
    "one_phase" / c.Int8ul,
    "format_id" / c.Int32ul,
    "gtrid_length" / c.Rebuild(c.Int32ul, _ByteLen("gtrid")),
    "bqual_length" / c.Rebuild(c.Int32ul, _ByteLen("bqual")),
    "gtrid" / TextN(this.gtrid_length),
    "bqual" / TextN(this.bqual_length),
)
"""XA_PREPARE_LOG_EVENT (38, MySQL 5.7+ and MariaDB 10.5+): the XID of an XA PREPARE (or
XA COMMIT ... ONE PHASE)."""

HeartbeatBody = Struct("log_ident" / Text)
"""HEARTBEAT_LOG_EVENT (27): the source's current binlog file name (sent, never logged)."""

HEARTBEAT_FIELDS = NameTable(_MOD, "HEARTBEAT_FIELDS", {
    0: "END", 1: "LOG_FILENAME", 2: "LOG_POSITION"})

HeartbeatField = Struct(
    "type" / PackedCode(HEARTBEAT_FIELDS),
    "value" / c.If(FieldIs(("type",), "END", negate=True), Bounded(c.Switch(this.type, {
        "LOG_FILENAME": Text,
        "LOG_POSITION": PackedInt,
    }, default=Raw))),
)

HeartbeatV2Body = Struct("fields" / RepeatUntilValue(HeartbeatField, "type", "END"))
"""HEARTBEAT_LOG_EVENT_V2 (41, 8.0.26+): TLV fields (packed type, packed length, value) up to
the END mark, like TRANSACTION_PAYLOAD's; unknown types keep their bytes."""

# ======================================================================================
# MariaDB
# ======================================================================================

BinlogCheckpointBody = Struct("binlog_file" / SizedText(4))
"""BINLOG_CHECKPOINT_EVENT (161): the oldest binlog file still needed for crash recovery."""

MARIA_GTID_FLAGS2 = NameTable(_MOD, "MARIA_GTID_FLAGS2", {
    0x01: "STANDALONE", 0x02: "GROUP_COMMIT_ID", 0x04: "TRANSACTIONAL",
    0x08: "ALLOW_PARALLEL", 0x10: "WAITED", 0x20: "DDL", 0x40: "PREPARED_XA",
    0x80: "COMPLETED_XA"})
MARIA_GTID_FLAGS_EXTRA = NameTable(_MOD, "MARIA_GTID_FLAGS_EXTRA", {
    0x01: "MULTI_ENGINE", 0x02: "START_ALTER", 0x04: "COMMIT_ALTER", 0x08: "ROLLBACK_ALTER",
    0x10: "THREAD_ID"})

MARIA_GTID_HEADER_LEN = 19

MariaXid = Struct(
    "format_id" / c.Int32ul,
    "gtrid_length" / c.Rebuild(c.Int8ul, _ByteLen("gtrid")),
    "bqual_length" / c.Rebuild(c.Int8ul, _ByteLen("bqual")),
    "gtrid" / TextN(this.gtrid_length),
    "bqual" / TextN(this.bqual_length),
)

_GROUP_COMMIT = _Flag("flags2", "MARIA_GTID_FLAGS2", 0x02)
_XA = _Flag("flags2", "MARIA_GTID_FLAGS2", 0xC0)
_MULTI_ENGINE = _Flag("flags_extra", "MARIA_GTID_FLAGS_EXTRA", 0x01)
_END_ALTER = _Flag("flags_extra", "MARIA_GTID_FLAGS_EXTRA", 0x0C)
_THREAD_ID = _Flag("flags_extra", "MARIA_GTID_FLAGS_EXTRA", 0x10)

MariaGtidBody = Struct(
    BuildCheck(presence_ok, (("commit_id", "flags2", "MARIA_GTID_FLAGS2", 0x02),
                             ("xid", "flags2", "MARIA_GTID_FLAGS2", 0xC0),
                             ("extra_engines", "flags_extra", "MARIA_GTID_FLAGS_EXTRA", 0x01),
                             ("sa_seq_no", "flags_extra", "MARIA_GTID_FLAGS_EXTRA", 0x0C),
                             ("thread_id", "flags_extra", "MARIA_GTID_FLAGS_EXTRA", 0x10))),
    "seq_no" / c.Int64ul,
    "domain_id" / c.Int32ul,
    "flags2" / FlagList(1, MARIA_GTID_FLAGS2),
    "commit_id" / c.If(_GROUP_COMMIT, c.Int64ul),
    "xid" / c.If(_XA, MariaXid),
    "flags_extra" / NonZeroFlags(MARIA_GTID_FLAGS_EXTRA),     # 10.5+
    "extra_engines" / c.If(_MULTI_ENGINE, c.Int8ul),
    "sa_seq_no" / c.If(_END_ALTER, c.Int64ul),                # 10.8+: the START ALTER's seq_no
    "thread_id" / c.If(_THREAD_ID, c.Int32ul),                # 11.5+
    PadTo(MARIA_GTID_HEADER_LEN),
)
"""GTID_EVENT (162): MariaDB's GTID (domain_id-server_id-seq_no, the server id from the
header), what flags2 and flags_extra announce, zero padding to the 19-byte post-header."""

MARIA_GTID_LIST_FLAGS = NameTable(_MOD, "MARIA_GTID_LIST_FLAGS", {
    0x1: "UNTIL_REACHED", 0x2: "IGN_GTIDS"})

MariaGtidListBody = Struct(
    "flags" / PeekHigh(4, 28, MARIA_GTID_LIST_FLAGS, flags=True),
    "count" / c.Rebuild(LowBits(4, 28, this.flags, MARIA_GTID_LIST_FLAGS, flags=True),
                        c.len_(this.gtids)),
    "gtids" / c.Array(this.count, Struct(
        "domain_id" / c.Int32ul, "server_id" / c.Int32ul, "seq_no" / c.Int64ul)),
    c.If(this.count == 0, c.Const(b"\x00\x00")),   # Gtid_list_log_event::to_packet
)
"""GTID_LIST_EVENT (163): the binlog state at the start of the file (last GTID per domain and
server); count in the low 28 bits of the first word, flags in the top 4."""

StartEncryptionBody = Struct(
    "scheme" / c.Int8ul,
    "key_version" / c.Int32ul,
    "nonce" / ByteString(12),
)
"""START_ENCRYPTION_EVENT (164): the events after it are encrypted (scheme 1: AES with a
key from the key-management plugin; not decrypted here)."""

BODIES = {
    27: HeartbeatBody,
    33: GtidBody,
    34: GtidBody,
    35: PreviousGtidsBody,
    36: TransactionContextBody,
    37: ViewChangeBody,
    38: XaPrepareBody,
    41: HeartbeatV2Body,
    42: TaggedGtidBody,
    161: BinlogCheckpointBody,
    162: MariaGtidBody,
    163: MariaGtidListBody,
    164: StartEncryptionBody,
}

"""Row values: one parse/build pair per column type, chosen by the table map's column.

``codec_for(column)`` returns a :class:`Codec` whose ``parse(data, pos) -> (value, pos)`` and
``build(value, out: bytearray)`` are the two directions of one layout, specialised once per
column (widths, signedness, lengths, charsets) so that decoding a row is a list of calls.
Text is read in its collation's character set by :func:`..facts.charsets.text_codec`.

These are hand-written parse/build pairs, not construct declarations, for speed (a value is
a few bytes: a construct call per value would cost more than the value): each is a primitive
with both directions made together in one factory, never one direction alone. A row image's
layout around them (null bitmap, present columns) is declared in :mod:`.image`.

Python values: int (integers, YEAR, BIT), float, ``decimal.Decimal``, str (text in the
column's charset) or bytes (binary), :mod:`temporal` dataclasses, :class:`EnumValue` /
:class:`SetValue`, :class:`Geometry`, a list of floats (VECTOR), JSON values
(:mod:`json_binary`) and :class:`Compressed` for MariaDB's compressed columns. Every value
builds back to the bytes it came from.
"""

from __future__ import annotations

import struct
from ..records import record

from ...construct_ext.errors import IntegerError, StreamError, ValidationError

from ..facts.charsets import UTF8MB4_BIN_ID, text_codec
from ..facts.flavor import json_is_binary
from . import temporal as t
from .decimal_bin import decimal_build, decimal_parse, decimal_size, decimal_text


@record(frozen=True)
class EnumValue:
    index: int                 # 1-based; 0 is the error value ''
    name: str | None = None    # from ENUM_STR_VALUE when it was logged

    def __str__(self):
        return self.name if self.name is not None else str(self.index)


@record(frozen=True)
class SetValue:
    bits: int
    names: tuple | None = None  # the members whose bits are set (SET_STR_VALUE logged)


@record(frozen=True)
class Geometry:
    srid: int
    wkb: bytes


@record(frozen=True)
class Compressed:
    """A MariaDB compressed column value: the stored bytes and what they decompress to."""
    stored: bytes
    data: bytes | str


@record(frozen=True)
class Codec:
    """One column type's layout, both ways: ``parse(data, pos) -> (value, pos)`` and
    ``build(value, out)``. For the row decoders compiled per table shape
    (:func:`binlog_schema.format.values.image.compile_image`), a codec also says what its parse is
    when it is a plain read: ``fixed`` = (struct format character, post) for a fixed-size
    value (post: None, "float" for a NaN that keeps its bits, "year"); ``prefixed`` = (length
    width, decode) for length-prefixed bytes turned into a value by ``decode(raw)``. The
    compiled code does what ``parse`` does (a test checks both agree on every corpus row)."""

    parse: object
    build: object
    type_name: str
    fixed: tuple | None = None
    prefixed: tuple | None = None
    # what the value is made of, read without making it: ``fields(data, pos) -> (fields,
    # pos)`` (a temporal value's fields, a decimal's text, an ENUM's index, SET bits, an
    # int), for writers that need its text and not the value; ``members``: ENUM/SET names
    fields: object = None
    members: tuple | None = None
    # the bytes every value takes, when the column's metadata fixes it (INT24, BIT, DECIMAL,
    # ENUM, SET, the temporal types): what a reader that passes values over needs
    # (:mod:`.row_count`); None for length-prefixed values
    width: int | None = None


def _need(data, pos, n):
    if pos + n > len(data):
        raise StreamError(f"value needs {n} bytes, {len(data) - pos} left")


# ----------------------------------------------------------------------------- numbers

def _fixed(fmt: str, name: str) -> Codec:
    s = struct.Struct(fmt)
    size = s.size
    unpack_from, pack = s.unpack_from, s.pack

    def parse(data, pos):
        if pos + size > len(data):
            raise StreamError(f"{name} needs {size} bytes, {len(data) - pos} left")
        return unpack_from(data, pos)[0], pos + size

    def build(value, out):
        try:
            out += pack(value)
        except struct.error as e:
            raise IntegerError(f"{name} {value!r}: {e}") from None
    return Codec(parse, build, name, fixed=(fmt[1], None))


class NaNFloat(float):
    """A NaN with the exact bits it was stored with (a signalling NaN or a payload would be
    changed by Python's float conversion)."""

    __slots__ = ("raw",)

    def __new__(cls, value: float, raw: bytes):
        self = super().__new__(cls, value)  # the NaN as unpacked (a double keeps its bits)
        self.raw = raw
        return self

    def __eq__(self, other):
        return isinstance(other, NaNFloat) and other.raw == self.raw

    __hash__ = float.__hash__

    def __repr__(self):
        return f"NaNFloat({self.raw.hex()})"


def _float(fmt: str, name: str) -> Codec:
    fixed = _fixed(fmt, name)
    size = struct.calcsize(fmt)

    def parse(data, pos):
        value, end = fixed.parse(data, pos)
        if value != value:
            return NaNFloat(value, bytes(data[pos:end])), end
        return value, end

    def build(value, out):
        if isinstance(value, NaNFloat) and len(value.raw) == size:
            out += value.raw
        else:
            fixed.build(value, out)
    return Codec(parse, build, name, fixed=(fmt[1], "float"))


def _int24(unsigned: bool) -> Codec:
    def parse(data, pos):
        _need(data, pos, 3)
        return int.from_bytes(data[pos:pos + 3], "little", signed=not unsigned), pos + 3

    def build(value, out):
        try:
            out += int(value).to_bytes(3, "little", signed=not unsigned)
        except OverflowError:
            raise IntegerError(f"INT24 {value!r} out of range") from None
    return Codec(parse, build, "INT24", fields=lambda d, p: parse(d, p), width=3)


def _year() -> Codec:
    def parse(data, pos):
        _need(data, pos, 1)
        v = data[pos]
        return (1900 + v if v else 0), pos + 1

    def build(value, out):
        if value != 0 and not 1901 <= value <= 2155:
            raise IntegerError(f"YEAR {value!r} out of range")
        out.append(value - 1900 if value else 0)
    return Codec(parse, build, "YEAR", fixed=("B", "year"))


def _bit(bits: int) -> Codec:
    n = (bits + 7) // 8

    def parse(data, pos):
        _need(data, pos, n)
        return int.from_bytes(data[pos:pos + n], "big"), pos + n

    def build(value, out):
        if not 0 <= value < 1 << (8 * n):
            raise IntegerError(f"BIT({bits}) value {value!r} out of range")
        out += value.to_bytes(n, "big")
    return Codec(parse, build, "BIT", fields=lambda d, p: parse(d, p), width=n)


def _newdecimal(precision, scale) -> Codec:
    return Codec(lambda d, p: decimal_parse(d, p, precision, scale),
                 lambda v, o: decimal_build(v, o, precision, scale), "NEWDECIMAL",
                 fields=lambda d, p: decimal_text(d, p, precision, scale),
                 width=decimal_size(precision, scale))


# ----------------------------------------------------------------------------- strings

def _length_prefixed(width: int):
    def read(data, pos):
        _need(data, pos, width)
        n = int.from_bytes(data[pos:pos + width], "little")
        pos += width
        if pos + n > len(data):
            raise StreamError(f"value of {n} bytes, {len(data) - pos} left")
        return data[pos:pos + n], pos + n

    def write(raw: bytes, out):
        if len(raw) >= 1 << (8 * width):
            raise IntegerError(f"{len(raw)} bytes do not fit a {width}-byte length")
        out += len(raw).to_bytes(width, "little")
        out += raw
    return read, write


_text = text_codec  # (also importable from here, as before it moved to ..facts.charsets)


def _string(width, collation_id, name) -> Codec:
    read, write = _length_prefixed(width)
    dec, enc = _text(collation_id)

    def parse(data, pos):
        raw, pos = read(data, pos)
        return dec(raw), pos

    def build(value, out):
        write(enc(value), out)
    return Codec(parse, build, name, prefixed=(width, dec))


def _enum(pack_length, names) -> Codec:
    def index(data, pos):
        _need(data, pos, pack_length)
        return int.from_bytes(data[pos:pos + pack_length], "little"), pos + pack_length

    def parse(data, pos):
        i, pos = index(data, pos)
        name = names[i - 1] if names and 0 < i <= len(names) else ("" if i == 0 and names
                                                                     else None)
        return EnumValue(i, name), pos

    def build(value, out):
        i = value.index if isinstance(value, EnumValue) else int(value)
        try:
            out += i.to_bytes(pack_length, "little")
        except OverflowError:
            raise IntegerError(f"ENUM index {i} does not fit {pack_length} bytes") from None
    return Codec(parse, build, "ENUM", fields=index,
                 members=None if names is None else tuple(names), width=pack_length)


def _set(pack_length, names) -> Codec:
    def read_bits(data, pos):
        _need(data, pos, pack_length)
        return int.from_bytes(data[pos:pos + pack_length], "little"), pos + pack_length

    def parse(data, pos):
        bits, pos = read_bits(data, pos)
        members = tuple(n for i, n in enumerate(names) if bits >> i & 1) if names else None
        return SetValue(bits, members), pos

    def build(value, out):
        bits = value.bits if isinstance(value, SetValue) else int(value)
        try:
            out += bits.to_bytes(pack_length, "little")
        except OverflowError:
            raise IntegerError(f"SET bits {bits} do not fit {pack_length} bytes") from None
    return Codec(parse, build, "SET", fields=read_bits,
                 members=None if names is None else tuple(names), width=pack_length)


def _blob(pack_length, collation_id, name) -> Codec:
    return _string(pack_length, collation_id, name)


def _json_mysql(pack_length) -> Codec:
    from .json_document import decode, encode  # (the module is loaded with the first such column)
    read, write = _length_prefixed(pack_length)

    def parse(data, pos):
        raw, pos = read(data, pos)
        return decode(bytes(raw)), pos

    def build(value, out):
        write(encode(value), out)
    return Codec(parse, build, "JSON")


def _geometry(pack_length) -> Codec:
    read, write = _length_prefixed(pack_length)

    def parse(data, pos):
        raw, pos = read(data, pos)
        if len(raw) < 4:
            raise ValidationError(f"GEOMETRY of {len(raw)} bytes has no SRID")
        return Geometry(int.from_bytes(raw[:4], "little"), bytes(raw[4:])), pos

    def build(value, out):
        try:
            write(value.srid.to_bytes(4, "little") + value.wkb, out)
        except (OverflowError, AttributeError, TypeError) as e:
            raise IntegerError(f"GEOMETRY {value!r:.60}: {e}") from None
    return Codec(parse, build, "GEOMETRY")


def _vector(pack_length) -> Codec:
    read, write = _length_prefixed(pack_length)

    def parse(data, pos):
        raw, pos = read(data, pos)
        if len(raw) % 4:
            raise ValidationError(f"VECTOR of {len(raw)} bytes is not float32s")
        values = list(struct.unpack(f"<{len(raw) // 4}f", raw))
        for i, v in enumerate(values):
            if v != v:  # a NaN keeps its stored bits (a signalling NaN would be quieted)
                values[i] = NaNFloat(v, bytes(raw[4 * i:4 * i + 4]))
        return values, pos

    def build(value, out):
        try:
            packed = struct.pack(f"<{len(value)}f", *value)
            if any(isinstance(v, NaNFloat) for v in value):
                b = bytearray(packed)
                for i, v in enumerate(value):
                    if isinstance(v, NaNFloat) and len(v.raw) == 4:
                        b[4 * i:4 * i + 4] = v.raw
                packed = bytes(b)
            write(packed, out)
        except (struct.error, OverflowError, TypeError) as e:
            raise IntegerError(f"VECTOR {value!r:.60}: {e}") from None
    return Codec(parse, build, "VECTOR")


def _compressed(width, collation_id, name) -> Codec:
    """MariaDB column compression: a header byte (0: stored as is; else 0x80 | n with the
    uncompressed length in n bytes, zlib data after), kept raw so it rebuilds exactly."""
    from ..facts.compression import mariadb_uncompress
    read, write = _length_prefixed(width)
    dec, _ = _text(collation_id)

    def parse(data, pos):
        raw, pos = read(data, pos)
        raw = bytes(raw)
        if not raw:
            return Compressed(raw, dec(b"")), pos
        if raw[0] == 0:
            return Compressed(raw, dec(raw[1:])), pos
        return Compressed(raw, dec(mariadb_uncompress(raw))), pos

    def build(value, out):
        write(value.stored, out)
    return Codec(parse, build, name)


# ----------------------------------------------------------------------------- dispatch

_NUMBERS = {
    ("TINY", False): "<b", ("TINY", True): "<B", ("SHORT", False): "<h",
    ("SHORT", True): "<H", ("LONG", False): "<i", ("LONG", True): "<I",
    ("LONGLONG", False): "<q", ("LONGLONG", True): "<Q",
}


def _width(fields) -> int:
    """The bytes a temporal value takes: what its reader passes over (its layout says it,
    whatever the bytes: read once, from zeros)."""
    return fields(bytes(16), 0)[1]


def codec_for(col, flavor: str = "mysql") -> Codec:
    """The value codec of one table-map column (a ``model.table_map.Column``)."""
    ty = col.type
    unsigned = bool(col.unsigned)
    if (ty, unsigned) in _NUMBERS:
        return _fixed(_NUMBERS[(ty, unsigned)], ty)
    if ty == "INT24":
        return _int24(unsigned)
    if ty == "FLOAT":
        return _float("<f", ty)
    if ty == "DOUBLE":
        return _float("<d", ty)
    if ty == "YEAR":
        return _year()
    if ty == "NEWDECIMAL":
        return _newdecimal(col.precision, col.scale)
    if ty == "BIT":
        return _bit(col.bits or 0)
    if ty in ("DATE", "NEWDATE"):
        return Codec(t.date_parse, _guarded(t.date_build, ty), ty, fields=t.date_fields,
                     width=_width(t.date_fields))
    if ty in _HIRES and col.fsp:  # (MariaDB's hi-res format: the fsp is the schema's)
        return _hires(ty, col.fsp)
    if ty == "TIME":
        return Codec(t.time_old_parse, _guarded(t.time_old_build, ty), ty,
                     fields=t.time_old_fields, width=_width(t.time_old_fields))
    if ty == "DATETIME":
        return Codec(t.datetime_old_parse, _guarded(t.datetime_old_build, ty), ty,
                     fields=t.datetime_old_fields, width=_width(t.datetime_old_fields))
    if ty == "TIMESTAMP":
        return Codec(t.timestamp_old_parse, _guarded(t.timestamp_old_build, ty), ty,
                     fields=t.timestamp_old_fields, width=_width(t.timestamp_old_fields))
    if ty in ("TIMESTAMP2", "DATETIME2", "TIME2"):
        fsp = col.fsp or 0
        t.check_fsp(fsp)
        p, b, f = {"TIMESTAMP2": (t.timestamp2_parse, t.timestamp2_build, t.timestamp2_fields),
                   "DATETIME2": (t.datetime2_parse, t.datetime2_build, t.datetime2_fields),
                   "TIME2": (t.time2_parse, t.time2_build, t.time2_fields)}[ty]
        read = f.readers[fsp] if hasattr(f, "readers") else (lambda d, pos: f(d, pos, fsp))
        return Codec(lambda d, pos: p(d, pos, fsp), _guarded(lambda v, o: b(v, o, fsp), ty), ty,
                     fields=read, width=_width(read))
    if ty == "VARCHAR":
        return _string(1 if (col.max_length or 0) < 256 else 2, col.collation_id, ty)
    if ty in ("STRING", "VAR_STRING", "ENUM", "SET"):
        real = col.real_type or ty
        if real == "ENUM":
            return _enum(col.pack_length or 1, col.enum_values)
        if real == "SET":
            return _set(col.pack_length or 1, col.set_values)
        return _string(1 if (col.max_length or 0) < 256 else 2, col.collation_id, ty)
    if ty in ("BLOB", "TINY_BLOB", "MEDIUM_BLOB", "LONG_BLOB"):
        return _blob(col.pack_length or 2, col.collation_id, ty)
    if ty == "JSON":
        if not json_is_binary(flavor):  # MariaDB's JSON is text, logged as a BLOB
            return _blob(col.pack_length or 4, UTF8MB4_BIN_ID, ty)
        return _json_mysql(col.pack_length or 4)
    if ty == "GEOMETRY":
        return _geometry(col.pack_length or 4)
    if ty == "VECTOR":
        return _vector(col.pack_length or 4)
    if ty == "VARCHAR_COMPRESSED":
        return _compressed(1 if (col.max_length or 0) < 256 else 2, col.collation_id, ty)
    if ty == "BLOB_COMPRESSED":
        return _compressed(col.pack_length or 2, col.collation_id, ty)
    if ty == "NULL":
        return Codec(lambda d, p: (None, p), lambda v, o: None, ty)
    return _unknown(ty)


# the old type codes that, with a precision of 1-6, are MariaDB's hi-res formats
_HIRES = {"TIME": (t.time_hires_parse, t.time_hires_build, t.time_hires_fields),
          "DATETIME": (t.datetime_hires_parse, t.datetime_hires_build, t.datetime_hires_fields),
          "TIMESTAMP": (t.timestamp_hires_parse, t.timestamp_hires_build,
                        t.timestamp_hires_fields)}


def _hires(ty, fsp) -> Codec:
    """A column of an old temporal type code with a precision (``fsp`` 1-6, which only the
    schema gives): MariaDB's hi-res layout (:mod:`.temporal`)."""
    t.check_fsp(fsp)
    p, b, f = _HIRES[ty]
    return Codec(lambda d, pos: p(d, pos, fsp), _guarded(lambda v, o: b(v, o, fsp), ty), ty,
                 fields=f.readers[fsp], width=_width(f.readers[fsp]))


def _guarded(build, name):
    """A temporal builder whose out-of-range fields give a typed error."""
    def guarded(value, out):
        try:
            build(value, out)
        except (OverflowError, AttributeError, TypeError) as e:
            raise IntegerError(f"{name} {value!r:.60} cannot be stored: {e}") from None
    return guarded


def _unknown(ty) -> Codec:
    def parse(data, pos):
        raise ValidationError(f"no row-value layout for column type {ty!r}")

    def build(value, out):
        raise ValidationError(f"no row-value layout for column type {ty!r}")
    return Codec(parse, build, str(ty))

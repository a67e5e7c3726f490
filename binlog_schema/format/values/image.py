"""A row image's layout, declared once per table shape: the :class:`ImagePlan` that reading,
building and the JSON writer are all made from.

One image of a rows event (per row: write and delete one, update two, before then after)::

    value_options          packed integer                  PARTIAL_UPDATE_ROWS after images only
    partial-JSON bitmap    (JSON columns + 7) / 8 bytes    only when value_options has
                                                           PARTIAL_JSON: one bit per JSON
                                                           column of the table, present or not
    null bitmap            (shift + n + 7) / 8 bytes       LSB first: ``shift`` leading bits
                                                           (pre-GA 5.1: one), then one bit per
                                                           present column (set: NULL)
    values                 each non-NULL present column's value, by its column's codec
                           (:mod:`.codecs`); a partial-JSON column's a diff list instead

The present columns are the rows event's ``columns_present`` (``columns_after`` for an update's
after image): with a MINIMAL or NOBLOB row image the others are absent, not NULL. The plan of
one set of present columns holds their codecs and keys, the null bitmap (:class:`NullBitmap`,
through the bitmap primitive of :mod:`...construct_ext.bits`) and, for partial after images,
:class:`PartialJson`. From it come:

* :meth:`ImagePlan.parse` and :meth:`ImagePlan.build`: the codecs one column after the
  other, both directions (the precise path: its errors name what is wrong);
* :func:`compile_image`: ``image(data, pos) -> (result, pos)`` generated from the plan,
  the fast path, given a :class:`ValueEmitter` that says what each value becomes: the typed
  row (:class:`RowEmitter`, here) or its JSON text (``output.row_images``). The walk (null
  bitmap, fixed-size values in one unpack, each value behind its null bit) is this one;
* :func:`read_rows`: the images of a rows event, one after the other.
"""

from __future__ import annotations

import struct as _struct

from ...construct_ext.bits import bits_of, bytes_of
from ...construct_ext.errors import IntegerError, StreamError, ValidationError
from ...construct_ext.ints import number_build, number_parse
from ...construct_ext.run import execute
from .codecs import NaNFloat

# the keys a row keeps beside its columns' (what rebuilds the image's bits exactly); a
# column's own name may start with "_" too, so readers drop these keys, not every "_" key
IMAGE_KEYS = frozenset({"_null_bits", "_value_options", "_partial_json_bits"})

PARTIAL_JSON = 1  # value_options: the after image may hold JSON diff lists


def _int_of(bits, size: int) -> int:
    """A bitmap's bits (LSB first) as the number a row keeps them as (``_null_bits``,
    ``_partial_json_bits``)."""
    return int.from_bytes(bytes_of(bits, size, False), "little")


def _bits_of_int(value, size: int, what: str) -> list:
    try:
        return bits_of(value.to_bytes(size, "little"), False)
    except (OverflowError, AttributeError, TypeError):
        raise IntegerError(f"{what} {value!r} do not fit {size} bytes") from None


class NullBitmap:
    """The null bitmap of images of ``columns`` present columns after ``shift`` leading bits
    (LSB first, by the bitmap primitive). Servers set every bit that is not a column's (the
    leading bit, the spare bits of the last byte: the bitmap starts all ones); when one of
    them is clear, the image keeps all of them, as ``_null_bits`` (the bitmap's bits with the
    columns' cleared, as a number), so that it rebuilds byte for byte."""

    __slots__ = ("columns", "shift", "size", "_seen", "_no_nulls")

    def __init__(self, columns: int, shift: int = 0):
        count = columns + shift
        self.columns, self.shift, self.size = columns, shift, (count + 7) >> 3
        self._seen: dict = {}  # bitmap bytes -> read (images repeat a few bitmaps)
        self._no_nulls = None

    @property
    def no_nulls(self) -> dict:
        """Every bitmap without a NULL (the other bits as they may be: at most 8 of them), as
        its bytes -> its ``_null_bits`` or None."""
        if self._no_nulls is None:
            s, n = self.shift, self.columns
            other = [i for i in range(8 * self.size) if not s <= i < s + n]
            out = {}
            for combo in range(1 << len(other)):
                bits = [False] * (8 * self.size)
                for k, i in enumerate(other):
                    bits[i] = bool(combo >> k & 1)
                raw = bytes_of(bits, self.size, False)
                out[raw] = self.read(raw)[1]
            self._no_nulls = out
        return self._no_nulls

    def read(self, raw) -> tuple:
        """``raw`` (``size`` bytes) -> (a NULL flag per column, ``_null_bits`` or None when the
        other bits are the usual ones)."""
        if type(raw) is not bytes:
            raw = bytes(raw)
        hit = self._seen.get(raw)
        if hit is None:
            bits = bits_of(raw, False)
            s, n = self.shift, self.columns
            nulls = tuple(bits[s:s + n])
            other = bits[:s] + bits[s + n:]
            kept = None if all(other) else _int_of(bits[:s] + [False] * n + bits[s + n:],
                                                   self.size)
            hit = (nulls, kept)
            if len(self._seen) < 1024:
                self._seen[raw] = hit
        return hit

    def write(self, nulls, kept=None) -> bytes:
        """The bitmap of ``nulls`` (a flag per column) with ``kept`` (``_null_bits``) or the
        usual other bits."""
        s = self.shift
        if kept is None:
            bits = [True] * s + list(nulls) + [True] * (8 * self.size - s - self.columns)
        else:
            bits = _bits_of_int(kept, self.size, "null bits")
            for k, null in enumerate(nulls):
                if null:
                    bits[s + k] = True
        return bytes_of(bits, self.size, False)


class JsonDiff:
    """A PARTIAL_UPDATE_ROWS JSON column value: a list of diff operations."""

    __slots__ = ("ops",)

    def __init__(self, ops):
        self.ops = ops

    def __eq__(self, other):
        return isinstance(other, JsonDiff) and other.ops == self.ops

    def __repr__(self):
        return f"JsonDiff({self.ops!r})"


class PartialJson:
    """What a PARTIAL_UPDATE_ROWS after image has before its null bitmap: ``value_options``
    (kept as the row's ``_value_options``) and, with PARTIAL_JSON set, the partial-JSON bitmap
    over the table's JSON columns (``json_keys``, in table order; ``widths``: each one's
    length width, its pack_length). A column whose bit is set holds a :class:`JsonDiff`
    (length, then the diff list). A bitmap that the diff lists do not explain (bits of absent
    or NULL columns, spare bits) is kept as ``_partial_json_bits``."""

    __slots__ = ("json_keys", "widths", "size")

    def __init__(self, json_keys, widths):
        self.json_keys, self.widths = tuple(json_keys), dict(widths)
        self.size = (len(self.json_keys) + 7) >> 3

    def bits_of_row(self, row) -> list:
        """The bitmap a writer gives an after image: the JSON columns holding a diff list."""
        return [isinstance(row.get(k), JsonDiff) for k in self.json_keys]

    def parse(self, data, pos) -> tuple:
        """-> (value_options, the keys of the columns holding a diff list, the bitmap's bits
        or None, pos)."""
        buf = _Buf(data, pos)
        options = number_parse(buf)  # never NULL
        pos = buf.pos
        diffs, bits = frozenset(), None
        if options & PARTIAL_JSON:
            if pos + self.size > len(data):
                raise StreamError("partial-JSON bitmap runs past the rows")
            bits = bits_of(bytes(data[pos:pos + self.size]), False)
            pos += self.size
            diffs = frozenset(k for k, bit in zip(self.json_keys, bits) if bit)
        return options, diffs, bits, pos

    def keep(self, row, options, bits):
        """The row's keys of what it was read with: ``_value_options``, and the bitmap when
        its diff lists do not explain it."""
        row["_value_options"] = options
        if bits is not None:
            written = self.bits_of_row(row)
            if bits != written + [False] * (len(bits) - len(written)):
                row["_partial_json_bits"] = _int_of(bits, self.size)

    def build(self, row, out):
        options = row.get("_value_options", 0)
        buf = _Buf(b"", 0)
        buf.write = out.extend  # number_build writes to a stream
        number_build(options, buf)
        if options & PARTIAL_JSON:
            bits = row.get("_partial_json_bits")
            bits = self.bits_of_row(row) if bits is None else _bits_of_int(
                bits, self.size, f"partial-JSON bits of {len(self.json_keys)} JSON columns:")
            out += bytes_of(bits, self.size, False)


class _Buf:
    """A bytes view with a read position for number_parse (which wants a stream)."""

    __slots__ = ("data", "pos", "write")

    def __init__(self, data, pos):
        self.data, self.pos = data, pos

    def read(self, n=-1):
        end = len(self.data) if n < 0 else self.pos + n
        out = self.data[self.pos:end]
        self.pos += len(out)
        return out


class ImagePlan:
    """The images of one table shape: the present columns' codecs and keys (what a row dict
    is keyed by), after ``shift`` leading null-bitmap bits, with ``partial`` (a
    :class:`PartialJson`) for PARTIAL_UPDATE_ROWS after images. Made once per shape;
    ``compiled`` holds what code generators made of it, by name."""

    __slots__ = ("codecs", "keys", "shift", "nulls", "partial", "compiled")

    def __init__(self, codecs, keys, shift: int = 0, partial: PartialJson | None = None):
        self.codecs, self.keys = tuple(codecs), tuple(keys)
        self.shift, self.partial = shift, partial
        self.nulls = NullBitmap(len(self.codecs), shift)
        self.compiled: dict = {}

    def parse(self, data, pos) -> tuple:
        """One image at ``pos`` -> (row dict, pos after it), through the codecs."""
        row: dict = {}
        diffs = ()
        if self.partial is not None:
            options, diffs, json_bits, pos = self.partial.parse(data, pos)
        nb = self.nulls.size
        if pos + nb > len(data):
            raise StreamError(f"null bitmap of {nb} bytes, {len(data) - pos} left")
        nulls, kept = self.nulls.read(data[pos:pos + nb])
        pos += nb
        if kept is not None:
            row["_null_bits"] = kept
        for key, codec, null in zip(self.keys, self.codecs, nulls):
            if null:
                row[key] = None
            elif key in diffs:
                row[key], pos = _diff_parse(data, pos, self.partial.widths[key])
            else:
                try:
                    row[key], pos = codec.parse(data, pos)
                except Exception as e:  # (the column is named in the error: see RowDecoder)
                    if getattr(e, "column", None) is None:
                        e.column = key
                    raise
        if self.partial is not None:
            self.partial.keep(row, options, json_bits)
        return row, pos

    def build(self, row, out: bytearray):
        """One image of ``row`` (a dict over the plan's keys; None or missing: NULL)."""
        if self.partial is not None:
            self.partial.build(row, out)
        values = [row.get(k) for k in self.keys]
        out += self.nulls.write([v is None for v in values], row.get("_null_bits"))
        for key, codec, v in zip(self.keys, self.codecs, values):
            if v is None:
                continue
            if isinstance(v, JsonDiff):
                _diff_build(v, out, self.partial.widths.get(key, 4) if self.partial else 4)
            else:
                codec.build(v, out)

    def compiled_as(self, name, make):
        """What ``make(plan)`` generates from this plan, made once (by ``name``)."""
        fn = self.compiled.get(name)
        if fn is None:
            fn = self.compiled[name] = make(self)
        return fn


def _diff_parse(data, pos, width):
    from .json_diff import decode_diff
    if pos + width > len(data):
        raise StreamError("JSON diff length runs past the rows")
    size = int.from_bytes(data[pos:pos + width], "little")
    pos += width
    if pos + size > len(data):
        raise StreamError("JSON diff runs past the rows")
    return JsonDiff(decode_diff(bytes(data[pos:pos + size]))), pos + size


def _diff_build(value, out, width):
    from .json_diff import encode_diff
    raw = encode_diff(value.ops)
    out += len(raw).to_bytes(width, "little")
    out += raw


def read_rows(data, first, second=None, spans=None) -> list:
    """The rows of a rows event's ``rows`` bytes: an image per row by ``first(data, pos) ->
    (image, pos)`` or, with ``second`` (updates), (before, after) pairs. ``spans``: a list
    that gets each row's ``(start, middle, end)`` offsets (``middle``: where its second image
    starts; ``end`` for one image)."""
    out = []
    append = out.append
    pos, end = 0, len(data)
    while pos < end:
        start = pos
        a, pos = first(data, pos)
        if pos == start:  # an image of no columns takes no bytes: it would never end
            raise ValidationError(f"{end - pos} bytes of rows data for images of no columns")
        middle = pos
        if second is not None:
            b, pos = second(data, pos)
            append((a, b))
        else:
            append(a)
        if spans is not None:
            spans.append((start, middle, pos))
    return out


# ---------------------------------------------------------------------------------------
# the fast path: an image's reader generated from its plan


class ValueEmitter:
    """What :func:`compile_image` makes of each value of an image: ``null`` (the expression
    of a NULL), ``fixed`` (of a fixed-size value unpacked into ``v``, its bytes ``raw``),
    ``value`` (lines reading a value at ``pos`` into ``a{j}``), ``result`` (the image's, from
    the ``a{j}``; ``kept``: None, or the name holding its ``_null_bits``). ``ns`` is the
    generated code's namespace."""

    null = "None"

    def __init__(self, ns):
        self.ns = ns

    def fixed(self, j, codec, v, raw) -> str:
        raise NotImplementedError

    def value(self, j, codec, key) -> list:
        raise NotImplementedError

    def result(self, plan, kept) -> str:
        raise NotImplementedError

    @staticmethod
    def length_lines(width) -> list:
        """Lines reading a ``width``-byte length into ``n`` (then ``pos`` is at the bytes)."""
        length = "data[pos]" if width == 1 else f"int_from(data[pos:pos + {width}], 'little')"
        return [f"n = {length}", f"pos += {width}"]


class RowEmitter(ValueEmitter):
    """The typed row dict, as :meth:`ImagePlan.parse` gives it."""

    def fixed(self, j, codec, v, raw):
        post = codec.fixed[1]
        if post == "year":
            return f"1900 + {v} if {v} else 0"
        if post == "float":
            return f"{v} if {v} == {v} else NaNFloat({v}, bytes({raw}))"
        return v

    def value(self, j, codec, key):
        if codec.prefixed is not None:
            width, dec = codec.prefixed
            self.ns[f"D{j}"] = dec
            return self.length_lines(width) + [f"a{j} = D{j}(data[pos:pos + n])", "pos += n"]
        self.ns[f"P{j}"] = codec.parse
        return [f"a{j}, pos = P{j}(data, pos)"]

    def result(self, plan, kept):
        items = [f"{k!r}: a{j}" for j, k in enumerate(plan.keys)]
        if kept is not None:
            items.insert(0, f"'_null_bits': {kept}")
        return "{" + ", ".join(items) + "}"


def compile_image(plan: ImagePlan, emitter_class=RowEmitter, name="row image"):
    """``image(data, pos) -> (result, pos)`` for the images of ``plan`` (not a partial after
    image), generated from it: the null bitmap; when it has no NULL, a straight run of reads
    (runs of fixed-size values in one unpack, length-prefixed values
    read inline, other values by their codec's parse); else the same reads one by one, each
    behind its column's null flag. What each value becomes is the emitter's. It reads what
    the codecs read; it raises on anything short or odd, and the caller then reads through
    the codecs (:meth:`ImagePlan.parse`), for the precise error."""
    if plan.partial is not None:
        raise ValueError("a partial after image: read through the codecs")
    ns = {"NaNFloat": NaNFloat, "int_from": int.from_bytes, "len": len,
          "NULLS": plan.nulls.read, "NO_NULLS": plan.nulls.no_nulls, "MISS": -1}
    emit = emitter_class(ns)
    nb = plan.nulls.size
    lines = ["def image(data, pos):",
             f"    end = pos + {nb}",
             "    raw = data[pos:end]",
             f"    if len(raw) < {nb}:",
             "        raise IndexError('null bitmap runs past the rows')",
             "    pos = end",
             "    kept = NO_NULLS.get(raw, MISS)",
             "    if kept is MISS:",
             "        return with_nulls(data, pos, raw)"]

    def struct_of(fmt):
        name = f"S{len(ns)}"
        ns[name] = _struct.Struct(fmt)
        return name, ns[name].size

    def returns():  # the image's result, with or without the kept null bits
        kept, usual = emit.result(plan, "kept"), emit.result(plan, None)
        if kept == usual:
            lines.append(f"    return {usual}, pos")
        else:
            lines.extend(["    if kept is None:", f"        return {usual}, pos",
                          f"    return {kept}, pos"])

    run: list = []  # consecutive fixed-size values: (j, codec)

    def flush():
        if not run:
            return
        sname, size = struct_of("<" + "".join(codec.fixed[0] for _, codec in run))
        lines.append("    p0 = pos")
        lines.append(f"    {', '.join(f'v{j}' for j, _ in run)}, = {sname}.unpack_from(data, pos)")
        lines.append(f"    pos += {size}")
        offset = 0
        for j, codec in run:
            one = _struct.calcsize("<" + codec.fixed[0])
            at = f"p0 + {offset}"
            lines.append(f"    a{j} = " + emit.fixed(j, codec, f"v{j}",
                                                     f"data[{at}:{at} + {one}]"))
            offset += one
        run.clear()

    for j, (codec, key) in enumerate(zip(plan.codecs, plan.keys)):
        if codec.fixed is not None:
            run.append((j, codec))
            continue
        flush()
        lines.extend("    " + line for line in emit.value(j, codec, key))
    flush()
    lines += ["    if pos > len(data):", "        raise IndexError('image runs past the rows')"]
    returns()

    lines += ["def with_nulls(data, pos, raw):", "    nulls, kept = NULLS(raw)"]
    for j, (codec, key) in enumerate(zip(plan.codecs, plan.keys)):
        lines += [f"    if nulls[{j}]:", f"        a{j} = {emit.null}", "    else:"]
        if codec.fixed is not None:
            sname, size = struct_of("<" + codec.fixed[0])
            lines.append(f"        v, = {sname}.unpack_from(data, pos)")
            lines.append(f"        a{j} = " + emit.fixed(j, codec, "v", f"data[pos:pos + {size}]"))
            lines.append(f"        pos += {size}")
        else:
            lines.extend("        " + line for line in emit.value(j, codec, key))
    lines += ["    if pos > len(data):", "        raise IndexError('image runs past the rows')"]
    returns()
    return execute("\n".join(lines), f"<{name}>", ns)["image"]

"""Row images of rows events, decoded through the table map in force, and built back.

A rows event's ``rows`` bytes hold, per row, one image (write: after; delete: before) or two
(update: before then after). An image is a null bitmap over the *present* columns
(``columns_present`` / ``columns_after``: with a MINIMAL or NOBLOB row image, absent columns
are absent, not NULL) and the non-NULL values in column order. PARTIAL_UPDATE_ROWS after
images start with ``value_options``; with PARTIAL_JSON set, a bitmap over the image's JSON
columns says which of them hold a diff list instead of a whole document.

A row is a dict ``{column key: value}`` over the present columns (None = NULL), keyed by the
column index (or the keys the codec was made with, e.g. column names). Servers
write the null bitmap's spare bits as ones; an image whose spare bits differ keeps them under
``"_null_bits"`` so it rebuilds exactly. Pre-GA 5.1 images have one extra leading bit.
"""

from __future__ import annotations

import struct as _struct

from ..construct_ext.errors import IntegerError, StreamError, ValidationError
from ..construct_ext.ints import number_build, number_parse
from ..mysql.flavor import json_is_binary
from ..mysql.codes import (DELETE_KINDS, PARTIAL_UPDATE_ROWS_EVENT, PRE_GA_ROWS_KINDS,
                           UPDATE_KINDS, WRITE_KINDS)
from .codecs import NaNFloat, codec_for

PARTIAL_JSON = 1


def _default_extra(n, shift, nb):
    """The bits of a null bitmap that are not column bits, as servers write them: set (the
    bitmap starts all ones; pre-GA 5.1 images also start with a set bit before the columns)."""
    total = (1 << (8 * nb)) - 1
    return total & ~(((1 << n) - 1) << shift)


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


class RowsCodec:
    """Row images of one table: built once per table map, used for every rows event."""

    def __init__(self, table_map, keys=None):
        """``keys``: what a row dict is keyed by, per column (default: the column index;
        the row-change model passes column names)."""
        self.table_map = table_map
        self.keys = list(keys) if keys is not None else list(range(len(table_map.columns)))
        self._index = {k: i for i, k in enumerate(self.keys)}
        self._plans: dict = {}
        flavor = table_map.flavor or "mysql"
        self.codecs = [codec_for(col, flavor) for col in table_map.columns]
        self.json = [col.type == "JSON" and json_is_binary(flavor)
                     for col in table_map.columns]
        self._compiled: dict = {}  # (present, shift) -> compiled image parser

    # ------------------------------------------------------------------ one image

    def _image_parse(self, data, pos, present, partial=False, shift=0):
        n = len(present)
        nb = (n + shift + 7) >> 3
        partial_bits = json_bits = None
        if partial:
            buf = _Buf(data, pos)
            options = number_parse(buf)  # never NULL
            pos = buf.pos
            if options & PARTIAL_JSON:
                # one bit per JSON column of the table, in or out of the image (mysqlbinlog)
                jcols = [i for i, is_json in enumerate(self.json) if is_json]
                jb = (len(jcols) + 7) >> 3
                if pos + jb > len(data):
                    raise StreamError("partial-JSON bitmap runs past the rows")
                json_bits = int.from_bytes(data[pos:pos + jb], "little")
                pos += jb
                partial_bits = {col for k, col in enumerate(jcols) if json_bits >> k & 1}
            else:
                partial_bits = set()
            options_value = options
        if pos + nb > len(data):
            raise StreamError(f"null bitmap of {nb} bytes, {len(data) - pos} left")
        bitmap = int.from_bytes(data[pos:pos + nb], "little")
        pos += nb
        nulls = bitmap >> shift
        row = {}
        extra = (bitmap & ((1 << shift) - 1)) | (nulls >> n << (n + shift))
        if extra != _default_extra(n, shift, nb):
            row["_null_bits"] = bitmap & ~(((1 << n) - 1) << shift)
        if not partial_bits:  # the hot path: a precomputed plan of (key, parse) per image
            plan = self._plans.get(present)
            if plan is None:
                plan = self._plans[present] = [(self.keys[i], self.codecs[i].parse)
                                               for i in present]
            if nulls:
                for key, parse in plan:
                    if nulls & 1:
                        row[key] = None
                    else:
                        row[key], pos = parse(data, pos)
                    nulls >>= 1
            else:
                for key, parse in plan:
                    row[key], pos = parse(data, pos)
            if partial:
                self._partial_keys(row, options_value, json_bits)
            return row, pos
        codecs = self.codecs
        keys = self.keys
        for k, i in enumerate(present):
            if nulls >> k & 1:
                row[keys[i]] = None
            elif i in partial_bits:
                from .json_binary import decode_diff
                width = self.table_map.columns[i].pack_length or 4
                if pos + width > len(data):
                    raise StreamError("JSON diff length runs past the rows")
                size = int.from_bytes(data[pos:pos + width], "little")
                pos += width
                if pos + size > len(data):
                    raise StreamError("JSON diff runs past the rows")
                row[keys[i]] = JsonDiff(decode_diff(bytes(data[pos:pos + size])))
                pos += size
            else:
                row[keys[i]], pos = codecs[i].parse(data, pos)
        if partial:
            self._partial_keys(row, options_value, json_bits)
        return row, pos

    def _json_bits(self, row) -> int:
        """The partial-JSON bitmap a writer gives an after image: the JSON columns holding a
        diff list."""
        jcols = [i for i, is_json in enumerate(self.json) if is_json]
        return sum(1 << k for k, col in enumerate(jcols)
                   if isinstance(row.get(self.keys[col]), JsonDiff))

    def _partial_keys(self, row, options, json_bits):
        row["_value_options"] = options
        # a bitmap with bits no diff list explains (absent or NULL columns, spare bits) is
        # kept as read, so that the image rebuilds byte for byte
        if json_bits is not None and json_bits != self._json_bits(row):
            row["_partial_json_bits"] = json_bits

    def _image_build(self, row, present, out, partial=False, shift=0):
        if partial:
            options = row.get("_value_options", 0)
            buf = _Buf(b"", 0)
            buf.write = out.extend  # packed_build writes to a stream
            number_build(options, buf)
            if options & PARTIAL_JSON:
                njson = sum(self.json)
                bits = row.get("_partial_json_bits")
                if bits is None:
                    bits = self._json_bits(row)
                try:
                    out += bits.to_bytes((njson + 7) >> 3, "little")
                except (OverflowError, AttributeError):
                    raise IntegerError(f"partial-JSON bits {bits!r} do not fit {njson} "
                                         "JSON columns") from None
        keys = self.keys
        n = len(present)
        nb = (n + shift + 7) >> 3
        nulls = 0
        for k, i in enumerate(present):
            if row.get(keys[i]) is None:
                nulls |= 1 << k
        extra = row.get("_null_bits")
        if extra is None:
            extra = _default_extra(n, shift, nb)
        out += ((nulls << shift) | extra).to_bytes(nb, "little")
        for i in present:
            v = row.get(keys[i])
            if v is None:
                continue
            if isinstance(v, JsonDiff):
                from .json_binary import encode_diff
                raw = encode_diff(v.ops)
                out += len(raw).to_bytes(self.table_map.columns[i].pack_length or 4, "little")
                out += raw
            else:
                self.codecs[i].build(v, out)

    # ------------------------------------------------------------------ events

    @staticmethod
    def _present(bits):
        return tuple(i for i, b in enumerate(bits) if b)

    def decode(self, body, kind: int) -> list:
        """The rows of a rows event body: dicts (write/delete) or (before, after) pairs.
        Images are read by code compiled once per table shape (:func:`compile_image`); when
        that fails, the declared codecs read the event again, for the precise error."""
        if kind != PARTIAL_UPDATE_ROWS_EVENT:
            try:
                return self._decode(body, kind, compiled=True)
            except Exception:  # noqa: BLE001 - re-read through the codecs, for the error
                FALLBACKS["rows"] += 1
        return self._decode(body, kind)

    def _image_compiled(self, present, shift):
        key = (present, shift)
        image = self._compiled.get(key)
        if image is None:
            image = self._compiled[key] = compile_image(
                [self.codecs[i] for i in present], [self.keys[i] for i in present], shift)
        return image

    def _decode(self, body, kind: int, compiled: bool = False) -> list:
        rows_field = body["rows"]
        data = rows_field["data"] if isinstance(rows_field, dict) else rows_field
        before = self._present(body["columns_present"][:body["column_count"]])
        after = self._present(body["columns_after"][:body["column_count"]]) \
            if body.get("columns_after") is not None else before
        if max(before + after, default=-1) >= len(self.codecs):
            raise ValidationError(f"rows event has {body['column_count']} columns, the table "
                                    f"map {len(self.codecs)}")
        out = []
        pos, end = 0, len(data)
        two = kind in UPDATE_KINDS  # (a before and an after image per row)
        partial = kind == PARTIAL_UPDATE_ROWS_EVENT
        shift = 1 if kind in PRE_GA_ROWS_KINDS else 0
        if compiled:
            first_image = self._image_compiled(before, shift)
            second_image = self._image_compiled(after, shift)
            append = out.append
            while pos < end:
                start = pos
                first, pos = first_image(data, pos)
                if pos == start:
                    raise ValidationError("an image of no columns")
                if two:
                    second, pos = second_image(data, pos)
                    append((first, second))
                else:
                    append(first)
            return out
        while pos < end:
            start = pos
            first, pos = self._image_parse(data, pos, before, shift=shift)
            if pos == start:  # an image of no columns takes no bytes: it would never end
                raise ValidationError(f"{end - pos} bytes of rows data for images of no "
                                        "columns")
            if two:
                second, pos = self._image_parse(data, pos, after, partial, shift=shift)
                out.append((first, second))
            else:
                out.append(first)
        return out

    def encode(self, rows, body, kind: int) -> bytes:
        before = self._present(body["columns_present"][:body["column_count"]])
        after = self._present(body["columns_after"][:body["column_count"]]) \
            if body.get("columns_after") is not None else before
        out = bytearray()
        update = kind in UPDATE_KINDS
        partial = kind == PARTIAL_UPDATE_ROWS_EVENT
        shift = 1 if kind in PRE_GA_ROWS_KINDS else 0
        for row in rows:
            if update:
                self._image_build(row[0], before, out, shift=shift)
                self._image_build(row[1], after, out, partial, shift=shift)
            else:
                self._image_build(row, before, out, shift=shift)
        return bytes(out)


class JsonDiff:
    """A PARTIAL_UPDATE_ROWS JSON column value: a list of diff operations."""

    __slots__ = ("ops",)

    def __init__(self, ops):
        self.ops = ops

    def __eq__(self, other):
        return isinstance(other, JsonDiff) and other.ops == self.ops

    def __repr__(self):
        return f"JsonDiff({self.ops!r})"


def operation_of(kind: int) -> str:
    if kind in WRITE_KINDS:
        return "insert"
    if kind in UPDATE_KINDS:
        return "update"
    if kind in DELETE_KINDS:
        return "delete"
    raise ValueError(f"type {kind} is not a rows event")


# How often a compiled image parser failed and the codecs read the event again: on valid rows
# this stays 0 (a test checks it over the corpus).
FALLBACKS = {"rows": 0}


def compile_image(codecs, keys, shift):
    """A function ``image(data, pos) -> (row, pos)`` for the images of one table shape: the
    null bitmap of ``len(codecs)`` present columns (after ``shift`` leading bits), then the
    values. Compiled from the codecs: when no column is NULL, a straight run of reads (runs
    of fixed-size values in one unpack, length-prefixed values read inline, other values by
    their codec's parse); with NULLs, the same reads one by one, each behind its column's
    null bit. It reads what the codecs read and gives what they give; it raises on anything
    short or odd, and the caller then reads through the codecs, for the precise error."""
    n = len(codecs)
    nb = (n + shift + 7) >> 3
    cols = ((1 << n) - 1) << shift
    extra_mask = ((1 << (8 * nb)) - 1) & ~cols
    ns = {"NaNFloat": NaNFloat, "int_from": int.from_bytes, "len": len}
    lines = ["def image(data, pos):",
             f"    end = pos + {nb}",
             "    if end > len(data):",
             "        raise IndexError('null bitmap runs past the rows')",
             "    bitmap = int_from(data[pos:end], 'little')",
             "    pos = end",
             "    row = {}",
             f"    if bitmap & {extra_mask} != {_default_extra(n, shift, nb)}:",
             f"        row['_null_bits'] = bitmap & {extra_mask}",
             f"    if bitmap & {cols}:",
             "        return with_nulls(data, pos, bitmap, row)"]

    def struct_of(fmt):
        name = f"S{len(ns)}"
        ns[name] = _struct.Struct(fmt)
        return name, ns[name].size

    def fixed_value(f, post, key, v, at, size, indent):
        if post == "year":
            return [f"{indent}row[{key!r}] = 1900 + {v} if {v} else 0"]
        if post == "float":
            return [f"{indent}row[{key!r}] = {v} if {v} == {v} else "
                    f"NaNFloat({v}, bytes(data[{at}:{at} + {size}]))"]
        return [f"{indent}row[{key!r}] = {v}"]

    def variable(j, codec, key, indent):
        if codec.prefixed is not None:
            width, dec = codec.prefixed
            ns[f"D{j}"] = dec
            length = "data[pos]" if width == 1 else f"int_from(data[pos:pos + {width}], 'little')"
            return [f"{indent}n = {length}", f"{indent}pos += {width}",
                    f"{indent}row[{key!r}] = D{j}(data[pos:pos + n])", f"{indent}pos += n"]
        ns[f"P{j}"] = codec.parse
        return [f"{indent}row[{key!r}], pos = P{j}(data, pos)"]

    # no NULL: a straight run
    run: list = []  # consecutive fixed-size values: (format character, post, key)

    def flush():
        if not run:
            return
        name, size = struct_of("<" + "".join(f for f, _, _ in run))
        names = [f"v{j}" for j in range(len(run))]
        lines.append("    p0 = pos")
        lines.append(f"    {', '.join(names)}, = {name}.unpack_from(data, pos)")
        lines.append(f"    pos += {size}")
        offset = 0
        for (f, post, key), v in zip(run, names):
            one = _struct.calcsize("<" + f)
            lines.extend(fixed_value(f, post, key, v, f"p0 + {offset}", one, "    "))
            offset += one
        run.clear()

    for j, (codec, key) in enumerate(zip(codecs, keys)):
        if codec.fixed is not None:
            run.append((codec.fixed[0], codec.fixed[1], key))
            continue
        flush()
        lines.extend(variable(j, codec, key, "    "))
    flush()
    lines.append("    if pos > len(data):")
    lines.append("        raise IndexError('image runs past the rows')")
    lines.append("    return row, pos")

    # with NULLs: each value behind its null bit
    lines.append("def with_nulls(data, pos, bitmap, row):")
    for j, (codec, key) in enumerate(zip(codecs, keys)):
        lines.append(f"    if bitmap & {1 << (j + shift)}:")
        lines.append(f"        row[{key!r}] = None")
        lines.append("    else:")
        if codec.fixed is not None:
            f, post = codec.fixed
            name, size = struct_of("<" + f)
            lines.append(f"        v, = {name}.unpack_from(data, pos)")
            lines.extend(fixed_value(f, post, key, "v", "pos", size, "        "))
            lines.append(f"        pos += {size}")
        else:
            lines.extend(variable(j, codec, key, "        "))
    lines.append("    if pos > len(data):")
    lines.append("        raise IndexError('image runs past the rows')")
    lines.append("    return row, pos")
    exec(compile("\n".join(lines), "<row image>", "exec"), ns)
    return ns["image"]

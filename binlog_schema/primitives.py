"""Construct primitives the binlog format needs and construct lacks.

Each primitive is a construct (``_Leaf`` or ``_Wrapper``) with ``_parse``, ``_build``,
``_sizeof`` and the ``_emitparse``/``_emitbuild`` pair, so that a declaration using it still
compiles with ``.compile()``. The parse/build logic lives once, in a pair of plain functions;
the interpreted methods and the generated code both call them.

Short reads are always checked (construct's compiled ``Bytes`` is not), so a length that lies
raises ``StreamError`` in both modes, and nothing allocates more than the input holds.
"""

from __future__ import annotations

import io as _io
import keyword
import re
from itertools import chain as _chain

import construct as c
from construct import Construct, Container, ListContainer, StreamError

# --------------------------------------------------------------------------------------
# streams


class TrackingIO(_io.BytesIO):
    """A BytesIO that remembers the absolute offset of the last read (for error reports).

    Sub-streams made by :func:`substream` share the recorder and know their base offset, so an
    error deep inside a length-prefixed block still names its offset in the file.
    """

    def __init__(self, data: bytes = b"", base: int = 0, recorder: list | None = None):
        super().__init__(data)
        self.base = base
        self.recorder = recorder if recorder is not None else [base]

    def read(self, n=-1):
        self.recorder[0] = self.base + self.tell()
        return super().read(n)


def substream(io, data: bytes, gap: int = 0):
    """A stream over ``data``, which was just read from ``io`` (followed by ``gap`` more
    bytes)."""
    if type(io) is TrackingIO:
        return TrackingIO(data, io.base + io.tell() - len(data) - gap, io.recorder)
    return _io.BytesIO(data)


def remaining(io) -> int:
    pos = io.tell()
    end = io.seek(0, 2)
    io.seek(pos)
    return end - pos


_MAX_READ = (1 << 62)  # BytesIO.read() cannot take lengths past 2**63


def read_exact(io, n: int) -> bytes:
    if n < 0 or n > _MAX_READ:
        raise StreamError(f"length {n} cannot be read")
    data = io.read(n)
    if len(data) != n:
        raise StreamError(f"needs {n} bytes, only {len(data)} left")
    return data


def _pathed(func, path):
    """Run ``func`` and give construct errors raised without a path this one."""
    try:
        return func()
    except c.ConstructError as e:
        if getattr(e, "path", None) is None:
            raise type(e)(str(e), path=path) from None
        raise


def _alias(module: str, name: str) -> str:
    """The name a module attribute gets in generated code: qualified by its module, so two
    modules' functions of the same name never replace each other there."""
    return f"{module.replace('.', '_')}__{name}"


def _imp(code, fn):
    alias = _alias(fn.__module__, fn.__name__)
    code.append(f"from {fn.__module__} import {fn.__name__} as {alias}")
    code.append("from binlog_schema.primitives import ctx_value, EXPRESSION_FUNCS as _bs_fn")
    return alias


EXPRESSION_FUNCS: dict = {}


def expr_ref(fn) -> str:
    """Source text naming ``fn`` in generated code, for expressions whose ``repr`` construct's
    own classes (If, Switch, Rebuild) paste into it: a lookup in a dict the generated code
    imports once (an ``__import__`` per evaluation would cost a microsecond each time)."""
    key = f"{fn.__module__}.{fn.__name__}"
    EXPRESSION_FUNCS[key] = fn
    return f"_bs_fn[{key!r}]"


def _emitarg(code, arg) -> str:
    """Source text for an argument: objects that know how to import themselves do so; a set
    becomes a module-level constant (its literal would be built again at every call)."""
    if getattr(type(arg), "emit", None) is not None:  # not this-expressions: any attr exists
        return arg.emit(code)
    if isinstance(arg, (frozenset, set)):
        name = f"const_set_{code.allocateId()}"
        code.append(f"{name} = frozenset({sorted(arg, key=repr)!r})")
        return name
    return repr(arg)


class _Leaf(Construct):
    """Base for primitives whose work is one parse and one build function (plain functions,
    called by the interpreted methods and by the generated code alike).

    ``args`` are values or construct expressions, evaluated against the context.
    """

    def __init__(self, pfunc, bfunc, *args, size=None, unpacked=None):
        super().__init__()
        self._pf, self._bf, self._args, self._size = pfunc, bfunc, args, size
        # (struct format char, fn): the leaf is that fixed-size int, its value fn(int, *args);
        # a lean Struct then reads it in one unpack with its neighbours
        self._unpacked = unpacked

    def _argvalues(self, context):
        return [c.evaluate(a, context) for a in self._args]

    def _parse(self, stream, context, path):
        return _pathed(lambda: self._pf(stream, *self._argvalues(context)), path)

    def _build(self, obj, stream, context, path):
        return _pathed(lambda: self._bf(obj, stream, *self._argvalues(context)), path)

    def _sizeof(self, context, path):
        if self._size is None:
            raise c.SizeofError("variable size", path=path)
        return c.evaluate(self._size, context)

    def _emitargs(self, code):
        return "".join(", " + _emitarg(code, a) for a in self._args)

    def _emitparse(self, code):
        return f"{_imp(code, self._pf)}(io{self._emitargs(code)})"

    def _emitbuild(self, code):
        return f"{_imp(code, self._bf)}(obj, io{self._emitargs(code)})"


class _Wrapper(Construct):
    """Base for primitives wrapping a subcon: the parse/build functions get the subcon's
    parse/build as callables ``f(io, this)`` / ``f(obj, io, this)``."""

    def __init__(self, pfunc, bfunc, subcon, *args, buildnone=None):
        super().__init__()
        self._pf, self._bf, self.subcon, self._args = pfunc, bfunc, subcon, args
        self.flagbuildnone = subcon.flagbuildnone if buildnone is None else buildnone

    def _argvalues(self, context):
        return [c.evaluate(a, context) for a in self._args]

    def _parse(self, stream, context, path):
        sub = lambda io, this: self.subcon._parsereport(io, this, path)  # noqa: E731
        return _pathed(lambda: self._pf(stream, context, sub, *self._argvalues(context)), path)

    def _build(self, obj, stream, context, path):
        sub = lambda obj, io, this: self.subcon._build(obj, io, this, path)  # noqa: E731
        return _pathed(lambda: self._bf(obj, stream, context, sub, *self._argvalues(context)),
                       path)

    def _sizeof(self, context, path):
        raise c.SizeofError("variable size", path=path)

    def _emitargs(self, code):
        return "".join(", " + _emitarg(code, a) for a in self._args)

    def _emitparse(self, code):
        return (f"{_imp(code, self._pf)}(io, this, "
                f"{_parser_of(self.subcon._compileparse(code), code)}{self._emitargs(code)})")

    def _emitbuild(self, code):
        return (f"{_imp(code, self._bf)}(obj, io, this, "
                f"{_builder_of(self.subcon._compilebuild(code), code)}{self._emitargs(code)})")


_PARAMS = {False: "io, this", True: "obj, io, this"}  # generated parse / build functions


def _callable_of(expr: str, code=None, build: bool = False) -> str:
    """A callable for a compiled parse (``f(io, this)``) or build (``f(obj, io, this)``)
    expression: the function it calls when it is one call (a lambda around it would cost a
    call more), else a lambda; with ``code``, a module-level function (a lambda in a
    function body is made anew at every call; the expression only reads its parameters and
    module names, so it can live there)."""
    params = _PARAMS[build]
    m = re.fullmatch(rf"([A-Za-z_][A-Za-z0-9_]*)\({params}\)", expr)
    if m:
        return m.group(1)
    if code is None:
        return f"lambda {params}: ({expr})"
    name = f"{'build' if build else 'parse'}_sub_{code.allocateId()}"
    code.append(f"def {name}({params}):\n    return ({expr})")
    return name


def _parser_of(expr: str, code=None) -> str:
    return _callable_of(expr, code)


def _builder_of(expr: str, code=None) -> str:
    return _callable_of(expr, code, build=True)


class Switch(c.Switch):
    """construct's Switch whose generated code calls a case's parser directly when the case
    compiles to one call (no lambda around it)."""

    def emit_tables(self, code, build: bool = False):
        """Emit the dict of the cases' parsers (builders) and the default's; return their
        names."""
        compiled = (lambda sc: sc._compilebuild(code)) if build else (
            lambda sc: sc._compileparse(code))
        fname = f"switch_{'b' if build else ''}cases_{code.allocateId()}"
        code.append(f"{fname} = {{}}")
        for key, sc in self.cases.items():
            code.append(f"{fname}[{key!r}] = {_callable_of(compiled(sc), build=build)}")
        default = f"switch_{'b' if build else ''}defaultcase_{code.allocateId()}"
        code.append(f"{default} = {_callable_of(compiled(self.default), build=build)}")
        return fname, default

    def _emitparse(self, code):
        fname, default = self.emit_tables(code)
        return f"{fname}.get({self.keyfunc!r}, {default})(io, this)"

    def _emitbuild(self, code):
        fname, default = self.emit_tables(code, build=True)
        return f"{fname}.get({self.keyfunc!r}, {default})(obj, io, this)"


class _IfMore(_Wrapper):
    def _emitparse(self, code):  # inline: a byte read and a step back, no calls
        return f"((io.seek(-1, 1), {self.subcon._compileparse(code)})[1] if io.read(1) else None)"


# --------------------------------------------------------------------------------------
# context values


def ctx_value(this, key, default):
    """``this._params.ctx[key]`` when a context object was passed, else ``default``."""
    ctx = this["_params"].get("ctx")
    if ctx is None:
        return default
    value = ctx[key]
    return default if value is None else value


class FieldIs:
    """Expression: the field at ``path`` (keys from the current context, e.g. ``("_",
    "format")``) equals ``value`` (or not, with ``negate``). construct's own ``this.x == "s"``
    loses the quotes of a string constant in compiled ``If`` code (it is emitted with str()),
    so string comparisons use this."""

    def __init__(self, path, value, negate=False):
        self.path, self.value, self.negate = tuple(path), value, negate

    def __call__(self, context):
        for key in self.path:
            context = context[key]
        return (context == self.value) != self.negate

    def __repr__(self):
        ref = "this" + "".join(f"[{k!r}]" for k in self.path)
        return f"({ref} {'!=' if self.negate else '=='} {self.value!r})"



class CtxKey:
    """A construct-style expression for a value of the explicit context object.

    Evaluates (interpreted) by being called with the construct context; emits (compiled) as
    a call of :func:`ctx_value`.
    """

    def __init__(self, key: str, default):
        self.key = key
        self.default = default

    def __call__(self, context):
        return ctx_value(context, self.key, self.default)

    def __repr__(self):
        return f"ctx_value(this, {self.key!r}, {self.default!r})"


# --------------------------------------------------------------------------------------
# packed ("length-encoded") integer


def packed_parse(io):
    b = io.read(1)
    if not b:
        raise StreamError("packed integer: no bytes left")
    v = b[0]
    if v < 251:
        return v
    if v == 252:
        n = int.from_bytes(read_exact(io, 2), "little")
        if n < 251:
            raise _not_shortest(io, n, v, 3)
        return n
    if v == 253:
        n = int.from_bytes(read_exact(io, 3), "little")
        if n < 0x10000:
            raise _not_shortest(io, n, v, 4)
        return n
    if v == 254:
        n = int.from_bytes(read_exact(io, 8), "little")
        if n < 0x1000000:
            raise _not_shortest(io, n, v, 9)
        return n
    if v == 251:
        return None
    raise c.ValidationError("packed integer: first byte 0xff is not a valid prefix")


def _not_shortest(io, n, prefix, width):
    # servers write the shortest form (net_store_length); a longer one would not rebuild
    # byte for byte, so it is refused rather than silently normalised
    if type(io) is TrackingIO:  # the error names the prefix byte
        io.recorder[0] = io.base + io.tell() - width
    return c.ValidationError(f"packed integer {n} with prefix {prefix:#04x} is not in its "
                             "shortest form")


def packed_build(obj, io):
    if obj is None:
        io.write(b"\xfb")
    elif not isinstance(obj, int) or obj < 0:
        raise c.IntegerError(f"packed integer: {obj!r} is not a non-negative int")
    elif obj < 251:
        io.write(bytes((obj,)))
    elif obj < 0x10000:
        io.write(b"\xfc" + obj.to_bytes(2, "little"))
    elif obj < 0x1000000:
        io.write(b"\xfd" + obj.to_bytes(3, "little"))
    elif obj < 1 << 64:
        io.write(b"\xfe" + obj.to_bytes(8, "little"))
    else:
        raise c.IntegerError(f"packed integer: {obj} does not fit in 64 bits")
    return obj


def packed_size(value) -> int:
    if value is None or value < 251:
        return 1
    return 3 if value < 0x10000 else 4 if value < 0x1000000 else 9


PackedInt = _Leaf(packed_parse, packed_build)
"""MySQL's length-encoded integer: 1 byte below 251, else 0xfc+2, 0xfd+3, 0xfe+8 bytes.
0xfb is the 1-byte NULL form and parses to None."""


def number_parse(io):
    n = packed_parse(io)
    if n is None:
        raise c.ValidationError("packed integer is NULL (0xfb) where a number is required")
    return n


def number_build(obj, io):
    if obj is None:
        raise c.IntegerError("packed integer: None where a number is required")
    return packed_build(obj, io)


PackedNumber = _Leaf(number_parse, number_build)
"""A packed integer that cannot be NULL: 0xfb is refused (a writer stores 251 as fc fb 00)."""


class LimitExceeded(c.ValidationError):
    """A size or count beyond a configured limit (raised before anything is allocated)."""


def count_parse(io, limit):
    start = io.tell()
    n = packed_parse(io)
    if n is None or n > limit:
        if type(io) is TrackingIO:  # the error names the count's first byte
            io.recorder[0] = io.base + start
        if n is None:
            raise c.ValidationError("count is NULL (0xfb)")
        raise LimitExceeded(f"count {n} exceeds the limit {limit}")
    return n


def count_build(obj, io, limit):
    if not isinstance(obj, int) or obj < 0:
        raise c.IntegerError(f"count {obj!r} is not a non-negative int")
    if obj > limit:
        raise LimitExceeded(f"count {obj} exceeds the limit {limit}")
    return packed_build(obj, io)


def LimitedCount(limit):
    """A packed-integer count refused (typed LimitError) above ``limit`` (a value or a
    context expression), before anything sized by it is read."""
    return _Leaf(count_parse, count_build, limit)


# --------------------------------------------------------------------------------------
# little-endian unsigned int of a width known only from the context (e.g. 4 or 6 byte ids)


def uint_parse(io, width):
    data = io.read(width)
    if len(data) != width:
        raise StreamError(f"needs {width} bytes, only {len(data)} left")
    return int.from_bytes(data, "little")


def uint_build(obj, io, width):
    if not isinstance(obj, int) or obj < 0 or obj >= 1 << (8 * width):
        raise c.IntegerError(f"{obj!r} does not fit in {width} unsigned bytes")
    io.write(obj.to_bytes(width, "little"))
    return obj


def UIntLE(width):
    """A little-endian unsigned int whose width may come from the context (4- or 6-byte ids)."""
    return _Leaf(uint_parse, uint_build, width, size=width)


# --------------------------------------------------------------------------------------
# byte strings and text


def bytes_parse(io, length):
    return read_exact(io, length)


def bytes_build(obj, io, length):
    if not isinstance(obj, (bytes, bytearray)) or len(obj) != length:
        raise c.StringError(f"expected {length} bytes, got {obj!r:.40}")
    io.write(obj)
    return obj


def ByteString(length):
    """``length`` bytes, checked in compiled code too."""
    return _Leaf(bytes_parse, bytes_build, length, size=length)


def greedybytes_parse(io):
    return io.read()


def greedybytes_build(obj, io):
    if not isinstance(obj, (bytes, bytearray)):
        raise c.StringError(f"expected bytes, got {obj!r:.40}")
    io.write(obj)
    return obj


Raw = _Leaf(greedybytes_parse, greedybytes_build)
"""The rest of the (bounded) stream as bytes."""


def text_parse(io):
    data = io.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def text_build(obj, io):
    if isinstance(obj, str):
        obj = obj.encode("utf-8")
    elif not isinstance(obj, (bytes, bytearray)):
        raise c.StringError(f"expected str or bytes, got {obj!r:.40}")
    io.write(obj)
    return obj


Text = _Leaf(text_parse, text_build)
"""The rest of the stream as ``str`` when it is valid UTF-8, else as ``bytes`` (lossless)."""


# --------------------------------------------------------------------------------------
# lists of codes (e.g. column types) with names


def codes_parse(io, count, names):
    data = read_exact(io, count)
    cache = names.flag_cache  # (keyed by bytes here, by ints for flags)
    codes = cache.get(data)
    if codes is None:  # a table's column types come back with each of its events
        codes = tuple(map(names.get, data, data))
        if count <= 512:
            if len(cache) >= 4096:
                cache.clear()
            cache[data] = codes
    return ListContainer(codes)


def codes_build(obj, io, count, names):
    if len(obj) != count:
        raise c.RangeError(f"expected {count} codes, got {len(obj)}")
    codes = bytearray()
    for item in obj:
        code = names.get(item, item) if isinstance(item, str) else item
        if not isinstance(code, int) or not 0 <= code < 256:
            raise c.MappingError(f"unknown code {item!r}")
        codes.append(code)
    io.write(bytes(codes))
    return obj


class NameTable(dict):
    """code -> name, and name -> code; its repr is importable by generated code."""

    def __init__(self, module: str, attr: str, pairs: dict):
        super().__init__(pairs)
        self.update({v: k for k, v in pairs.items()})
        self._ref = (module, attr)
        # flags word -> the names of its bits (flags_of); code bytes -> names (codes_parse)
        self.flag_cache: dict = {}

    def emit(self, code):
        alias = _alias(*self._ref)
        code.append(f"from {self._ref[0]} import {self._ref[1]} as {alias}")
        return alias


def CodeList(count, names: NameTable):
    """``count`` one-byte codes, each parsed to its name (unknown codes stay ints)."""
    return _Leaf(codes_parse, codes_build, count, names, size=count)


def code_parse(io, names):
    b = io.read(1)
    if not b:
        raise StreamError("code: no bytes left")
    return names.get(b[0], b[0])


def code_build(obj, io, names):
    code = names.get(obj, obj) if isinstance(obj, str) else obj
    if not isinstance(code, int) or not 0 <= code < 256:
        raise c.MappingError(f"unknown code {obj!r}")
    io.write(bytes((code,)))
    return obj


def Code(names: NameTable):
    """One byte parsed to its name from ``names`` (unknown values stay ints)."""
    return _Leaf(code_parse, code_build, names, size=1)


# --------------------------------------------------------------------------------------
# flags with names


def flags_parse(io, width, names):
    data = io.read(width)
    if len(data) != width:
        raise StreamError(f"needs {width} bytes, only {len(data)} left")
    return flags_of(int.from_bytes(data, "little"), width, names)


def flags_of(value, width, names):
    """The list of names of ``value``'s set bits (from a cache per name table)."""
    cache = names.flag_cache
    cached = cache.get(value)
    if cached is None:
        if len(cache) > 4096:
            cache.clear()
        cached = cache[value] = tuple(_flag_names(value, names))
    return list(cached)


def _flag_names(value, names):
    out = []
    bit = 1
    while value:
        if value & 1:
            out.append(names.get(bit, bit))
        value >>= 1
        bit <<= 1
    return out


def flags_build(obj, io, width, names):
    if isinstance(obj, int):
        value = obj
    else:
        value = 0
        for item in obj:
            bit = names.get(item, item) if isinstance(item, str) else item
            if not isinstance(bit, int):
                raise c.MappingError(f"unknown flag {item!r}")
            value |= bit
    if value < 0 or value >= 1 << (8 * width):
        raise c.IntegerError(f"flags {obj!r} do not fit in {width} bytes")
    io.write(value.to_bytes(width, "little"))
    return obj


def FlagList(width: int, names: NameTable):
    """A little-endian flags word parsed to the list of its set bits' names (unnamed bits stay
    as their int value). Builds from such a list or from an int."""
    return _Leaf(flags_parse, flags_build, width, names, size=width,
                 unpacked=({1: "B", 2: "H", 4: "L", 8: "Q"}.get(width), flags_of))


# --------------------------------------------------------------------------------------
# bitmaps: LSB-first (null bits, columns present) and MSB-first (signedness, visibility)


_LSB = [tuple(bool(v & (1 << i)) for i in range(8)) for v in range(256)]
_MSB = [tuple(bool(v & (0x80 >> i)) for i in range(8)) for v in range(256)]


_BITS_CACHE: tuple = ({}, {})  # LSB, MSB: bytes -> their bits (bitmaps repeat a lot)


def _bits_of(data: bytes, msb: bool) -> list:
    cache = _BITS_CACHE[msb]
    bits = cache.get(data)
    if bits is None:
        bits = tuple(_chain.from_iterable(map((_MSB if msb else _LSB).__getitem__, data)))
        if len(data) <= 64:  # small bitmaps only, and a bounded number of them
            if len(cache) >= 1024:
                cache.clear()
            cache[bytes(data)] = bits
    return list(bits)


def _bytes_of(bits, nbytes: int, msb: bool) -> bytes:
    out = bytearray(nbytes)
    for i, bit in enumerate(bits):
        if bit:
            out[i >> 3] |= (0x80 >> (i & 7)) if msb else (1 << (i & 7))
    return bytes(out)


def bitmap_parse(io, count, msb, greedy, pad=False):
    """``count`` bits; the spare bits of the last byte are kept (all bits returned) only when
    they are not the writer's usual filler (``pad``: zeros, or ones for the rows events'
    column bitmaps), or when a greedy bitmap has more bytes than ``count`` needs."""
    nbytes = (count + 7) >> 3
    data = io.read() if greedy else read_exact(io, nbytes)
    bits = _bits_of(data, msb)
    if len(data) == nbytes:
        used = count & 7
        if not used:
            del bits[count:]
        else:  # the spare bits of the last byte: high ones (LSB first) or low ones (MSB)
            mask = (0xFF >> used) if msb else (0xFF << used) & 0xFF
            if data[-1] & mask == (mask if pad else 0):
                del bits[count:]
    return ListContainer(bits)


def bitmap_build(obj, io, count, msb, greedy, pad=False):
    n = len(obj)
    # greedy: as many bytes as the bits need (a TLV shorter than its column count, even
    # empty, rebuilds as it was); else the count's
    nbytes = (n + 7) >> 3 if greedy else (count + 7) >> 3
    if n > nbytes * 8 or (not greedy and n not in (count, nbytes * 8)):
        raise c.RangeError(f"bitmap of {n} bits for {count} columns")
    if pad and n < nbytes * 8:
        obj = list(obj) + [True] * (nbytes * 8 - n)
    io.write(_bytes_of(obj, nbytes, msb))
    return obj


def Bitmap(count, msb: bool = False, greedy: bool = False, pad: bool = False):
    """A bitmap of ``count`` bits (a list of bools).

    ``msb``: bit order within each byte (MSB-first for SIGNEDNESS and COLUMN_VISIBILITY,
    LSB-first for null bits). ``greedy``: the bitmap runs to the end of its (bounded) stream,
    as in an optional-metadata TLV; otherwise it takes ``(count + 7) // 8`` bytes.
    """
    return _Leaf(bitmap_parse, bitmap_build, count, msb, greedy, pad,
                 size=None if greedy else (count + 7) // 8)


# --------------------------------------------------------------------------------------
# wrappers: length-prefixed block, greedy list, counted list, optional tail


def _block(io, lenparse) -> bytes:
    """The bytes of a length-prefixed block (the length read with ``lenparse``)."""
    n = lenparse(io)
    if n is None:
        raise c.ValidationError("length prefix is NULL (0xfb)")
    if n > _MAX_READ:
        raise StreamError(f"length {n} runs past the end")
    data = io.read(n)
    if len(data) != n:
        raise StreamError(f"needs {n} bytes, only {len(data)} left")
    return data


def bounded_parse(io, this, sub, lenparse, lenbuild):
    data = _block(io, lenparse)
    block = substream(io, data)
    value = sub(block, this)
    used = block.tell()
    if used != len(data):
        # bytes the content leaves unread would be lost on build (the length is computed)
        if type(block) is TrackingIO:
            block.recorder[0] = block.base + used
        raise c.ValidationError(f"block of {len(data)} bytes: its content ends after {used}")
    return value


def bounded_text_parse(io, this, sub, lenparse, lenbuild):
    """Bounded(Text) without a sub-stream: the same result as bounded_parse."""
    data = _block(io, lenparse)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def bounded_text_build(obj, io, this, sub, lenparse, lenbuild):
    """Bounded(Text) without a buffer: the same bytes as bounded_build."""
    data = obj.encode("utf-8") if isinstance(obj, str) else obj
    if not isinstance(data, (bytes, bytearray)):
        raise c.StringError(f"expected str or bytes, got {obj!r:.40}")
    lenbuild(len(data), io)
    io.write(data)
    return obj


def bounded_build(obj, io, this, sub, lenparse, lenbuild):
    buf = _io.BytesIO()
    sub(obj, buf, this)
    data = buf.getvalue()
    lenbuild(len(data), io)
    io.write(data)
    return obj


class FuncRef:
    """A module-level function passed as an argument: evaluates to itself, emits by name."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, context):  # construct's evaluate() calls it with the context
        return self.fn

    def emit(self, code):
        return _imp(code, self.fn)


def Bounded(subcon, packed: bool = True, length=None):
    """A block prefixed by its length (a packed integer, one byte, or ``length``: a pair of
    module-level functions ``parse(io) -> n`` and ``build(n, io)``); the subcon parses only
    inside the block, so nothing it does can run past it. The length is computed on build."""
    lp, lb = length or ((packed_parse, packed_build) if packed else (u8_parse, u8_build))
    if subcon is Text:
        return _Wrapper(bounded_text_parse, bounded_text_build, subcon, FuncRef(lp), FuncRef(lb))
    return _Wrapper(bounded_parse, bounded_build, subcon, FuncRef(lp), FuncRef(lb))


def u8_parse(io):
    b = io.read(1)
    if not b:
        raise StreamError("length byte: no bytes left")
    return b[0]


def u8_build(obj, io):
    if not 0 <= obj < 256:
        raise c.IntegerError(f"{obj} does not fit in one byte")
    io.write(bytes((obj,)))
    return obj


def greedylist_parse(io, this, sub):
    out = ListContainer()
    pos = io.tell()
    end = io.seek(0, 2)
    io.seek(pos)
    while pos < end:
        out.append(sub(io, this))
        pos = io.tell()
    return out


def greedylist_build(obj, io, this, sub):
    for item in obj:
        sub(item, io, this)
    return obj


def GreedyList(subcon):
    """Items of ``subcon`` until the end of the (bounded) stream. Unlike construct's
    GreedyRange, a partial last item is an error, not silently dropped."""
    return _Wrapper(greedylist_parse, greedylist_build, subcon, buildnone=False)


def counted_parse(io, this, sub):
    n = packed_parse(io)
    if n is None:
        raise c.ValidationError("count is NULL (0xfb)")
    out = ListContainer()
    for _ in range(n):  # no pre-allocation: a lying count fails at the first missing item
        out.append(sub(io, this))
    return out


def counted_build(obj, io, this, sub):
    packed_build(len(obj), io)
    for item in obj:
        sub(item, io, this)
    return obj


def Counted(subcon):
    """A packed-integer count followed by that many items."""
    return _Wrapper(counted_parse, counted_build, subcon, buildnone=False)


def ifmore_parse(io, this, sub):
    if io.read(1):  # one byte and a step back: cheaper than measuring what remains
        io.seek(-1, 1)
        return sub(io, this)
    return None


def ifmore_build(obj, io, this, sub):
    if obj is not None:
        sub(obj, io, this)
    return obj


def IfMore(subcon):
    """Present only when the stream has bytes left (None otherwise): for blocks that older
    servers did not write, such as the pre-GA 5.1 TABLE_MAP's metadata and null bits."""
    return _IfMore(ifmore_parse, ifmore_build, subcon, buildnone=True)


def until_parse(io, this, sub, key, value):
    out = ListContainer()
    while True:
        item = sub(io, this)
        out.append(item)
        if item[key] == value:
            return out


def until_build(obj, io, this, sub, key, value):
    if not obj or obj[-1][key] != value:
        raise c.RangeError(f"list must end with an item whose {key} is {value!r}")
    for item in obj:
        sub(item, io, this)
    return obj


def RepeatUntilValue(subcon, key, value):
    """Items of ``subcon`` up to and including the first whose ``key`` equals ``value``."""
    return _Wrapper(until_parse, until_build, subcon, key, value, buildnone=False)


class TaggedList(Construct):
    """Items ``{key: name, value}`` to the end of the (bounded) stream: a one-byte code, named
    from ``names``, then the value whose layout ``cases[name]`` declares (``default`` for
    other codes). With ``length`` (a ``(parse, build)`` pair, as for :func:`Bounded`) each
    value is a block behind a length prefix that its case must read whole (TLVs). With
    ``known``, a code outside it (its layout, hence its length, unknown) stops the walk: the
    rest stays raw, as a last item ``{raw}``. The value's context holds ``key`` (as a Struct
    of the two fields would). With ``numbers_raw``, an item built with a number for a named
    code takes the ``default`` layout (a TLV the typed layer keeps as bytes). One loop instead
    of a struct, a switch and a code lookup per item."""

    def __init__(self, names: NameTable, cases: dict, default, known=None, key: str = "code",
                 length=None, numbers_raw: bool = False):
        super().__init__()
        self.names, self.cases, self.default, self.key = names, cases, default, key
        self.known = None if known is None else frozenset(known)
        self.length = length
        self.numbers_raw = numbers_raw
        self.flagbuildnone = False

    def _case_context(self, context, name, stream):
        sub = Container(_=context, _params=context._params, _root=None,
                        _parsing=context._parsing, _building=context._building,
                        _sizing=context._sizing, _subcons=None, _io=stream,
                        _index=context.get("_index", None))
        sub._root = sub._.get("_root", context)
        sub[self.key] = name
        return sub

    def _args(self):
        return (self.names, self.known, self.key) + (self.length or (None, None))

    def _build_args(self):
        return self._args() + (self.numbers_raw,)

    def _parse(self, stream, context, path):
        def interpreted(sc, name):  # from the generated code's dict context to construct's
            return lambda io, sub: sc._parsereport(
                io, self._case_context(sub["_"], sub[self.key], io), f"{path} -> {name}")
        table = {name: interpreted(sc, name) for name, sc in self.cases.items()}
        return _pathed(lambda: tagged_parse(stream, context, table, interpreted(
            self.default, "default"), *self._args()), path)

    def _build(self, obj, stream, context, path):
        def interpreted(sc, name):
            def build(value, io, sub):
                ctx = self._case_context(sub["_"], sub[self.key], io)
                ctx.update({k: v for k, v in sub.items() if k not in ("_", "_params")})
                return sc._build(value, io, ctx, f"{path} -> {name}")
            return build
        table = {name: interpreted(sc, name) for name, sc in self.cases.items()}
        return _pathed(lambda: tagged_build(obj, stream, context, table, interpreted(
            self.default, "default"), *self._build_args()), path)

    def _sizeof(self, context, path):
        raise c.SizeofError("variable size", path=path)

    def _cases_source(self, code, build):
        """A module-level dict of the cases' parse (or build) functions, and the default."""
        table = f"tagged_{'build' if build else 'parse'}_{code.allocateId()}"
        lines = [f"{table} = {{}}"]
        for name, sc in list(self.cases.items()) + [(None, self.default)]:
            func = (_builder_of(sc._compilebuild(code)) if build
                    else _parser_of(sc._compileparse(code)))
            key = f"{table}[{name!r}]" if name is not None else f"{table}_default"
            lines.append(f"{key} = {func}")
        code.append("\n".join(lines))
        return table

    def _emitargs(self, code, args):
        return "".join(", " + (_emitarg(code, a) if not callable(a) else _imp(code, a))
                       for a in args)

    def _emitparse(self, code):
        table = self._cases_source(code, build=False)
        return (f"{_imp(code, tagged_parse)}(io, this, {table}, {table}_default"
                f"{self._emitargs(code, self._args())})")

    def _emitbuild(self, code):
        table = self._cases_source(code, build=True)
        return (f"{_imp(code, tagged_build)}(obj, io, this, {table}, {table}_default"
                f"{self._emitargs(code, self._build_args())})")


def tagged_parse(io, this, cases, default, names, known, key, lenparse, lenbuild):
    out = ListContainer()
    read = io.read
    sub = {"_": this, "_params": this["_params"]}
    while True:
        b = read(1)
        if not b:
            return out
        code = b[0]
        if known is not None and code not in known:
            out.append(Container(raw=b + read()))
            return out
        name = names.get(code, code)
        sub[key] = name  # (one context for the items: each is parsed before the next)
        if lenparse is None:
            value = cases.get(name, default)(io, sub)
        else:  # a block its case must read whole (the length is computed on build)
            data = _block(io, lenparse)
            block = substream(io, data)
            value = cases.get(name, default)(block, sub)
            used = block.tell()
            if used != len(data):
                if type(block) is TrackingIO:
                    block.recorder[0] = block.base + used
                raise c.ValidationError(f"{name} block of {len(data)} bytes: its content "
                                        f"ends after {used}")
        item = Container()
        item[key] = name
        item["value"] = value
        out.append(item)


def tagged_build(obj, io, this, cases, default, names, known, key, lenparse, lenbuild,
                 numbers_raw):
    if not isinstance(obj, (list, tuple)):
        raise c.ValidationError(f"expected a list, got {obj!r:.40}")
    params = this["_params"]
    for i, item in enumerate(obj):
        if not isinstance(item, dict):
            raise c.ValidationError(f"item {i}: expected a dict, got {item!r:.40}")
        if known is not None and len(item) == 1 and "raw" in item:
            raw = item["raw"]
            if not isinstance(raw, (bytes, bytearray)):
                raise c.StringError(f"raw must be bytes, got {raw!r:.40}")
            if i != len(obj) - 1 or not raw or raw[0] in known:
                raise c.ValidationError("a raw rest must come last and start with an unknown "
                                        "code")
            io.write(raw)
            continue
        code = item[key]
        number = names.get(code, code) if isinstance(code, str) else code
        if not isinstance(number, int) or not 0 <= number < 256:
            raise c.MappingError(f"unknown code {code!r}")
        if known is not None and number not in known:
            raise c.ValidationError(f"code {code!r} has no known layout: give the rest raw")
        io.write(bytes((number,)))
        name = number if numbers_raw and code is number else names.get(number, number)
        sub = {"_": this, "_params": params}
        sub.update(item)
        sub[key] = name
        if lenbuild is None:
            cases.get(name, default)(item["value"], io, sub)
        else:
            buf = _io.BytesIO()
            cases.get(name, default)(item["value"], buf, sub)
            data = buf.getvalue()
            lenbuild(len(data), io)
            io.write(data)
    return obj


class Struct(c.Struct):
    """construct's Struct with leaner generated code.

    Interpreted parse/build are construct's own. The compiled code keeps only what the
    declarations here use of the nested context (``this._`` and ``this._params`` and the
    fields parsed so far), in a plain dict, instead of a 10-key Container per struct: the
    same semantics, about half the cost per struct.
    """

    def _emitparse(self, code):
        fname = f"parse_lean_struct_{code.allocateId()}"
        steps = []  # (names, expression): names a tuple for a run of fixed ints
        for group in _fixed_runs(self.subcons):
            if isinstance(group, list):  # consecutive fixed-size ints: one read, one unpack
                fmt = "<" + "".join(_fixed_format(sc.subcon) for sc in group)
                size = _struct_size(fmt)
                sname = f"lean_fixed_{code.allocateId()}"
                code.append(f"{sname} = struct.Struct({fmt!r})")
                steps.append((tuple(sc.name for sc in group), f"{sname}.unpack(io.read({size}))",
                              [sc.subcon for sc in group]))
            else:
                steps.append((group.name, group._compileparse(code), None))
        # the nested context is only kept up to the last expression that can look at it
        last = max((i for i, (_, expr, _v) in enumerate(steps) if "this" in expr), default=-1)
        lines = [f"def {fname}(io, this):"]
        if last >= 0:
            lines.append("    this = {'_': this, '_params': this['_params']}")
        fields = []  # (name, local): the result is made at the end, in one call
        for i, (name, expr, members) in enumerate(steps):
            keep = i < last
            if isinstance(name, tuple):  # unpacked into the fields' own locals
                base = len(fields)
                lines.append("    " + ", ".join(f"_f{base + j}" for j in range(len(name)))
                             + f", = {expr}")
                for j, (n, con) in enumerate(zip(name, members)):
                    local = f"_f{base + j}"
                    fields.append((n, local))
                    v = _fixed_value(code, con, local)
                    if v != local:
                        lines.append(f"    {local} = {v}")
                    if keep:
                        lines.append(f"    this[{n!r}] = {local}")
                continue
            elif name:
                pairs = [(name, expr)]
            else:
                if expr != "None":  # (a build-only check parses nothing)
                    lines.append(f"    {expr}")
                continue
            for n, v in pairs:
                local = f"_f{len(fields)}"
                fields.append((n, local))
                lines.append(f"    {local} = this[{n!r}] = {v}" if keep else f"    {local} = {v}")
        if all(n.isidentifier() and not keyword.iskeyword(n) for n, _ in fields):
            lines.append("    return Container(" + ", ".join(f"{n}={v}" for n, v in fields) + ")")
        else:
            lines.append("    result = Container()")
            lines += [f"    result[{n!r}] = {v}" for n, v in fields]
            lines.append("    return result")
        code.append("\n".join(lines))
        return f"{fname}(io, this)"

    def _emitbuild(self, code):
        fname = f"build_lean_struct_{code.allocateId()}"
        lines = [f"def {fname}(obj, io, this):",
                 "    this = {'_': this, '_params': this['_params']}",
                 "    this.update(obj)",
                 "    objdict = obj"]
        for sc in self.subcons:
            expr = sc._compilebuild(code)
            if sc.name:
                get = (f"objdict.get({sc.name!r}, None)" if sc.flagbuildnone
                       else f"objdict[{sc.name!r}]")
                lines.append(f"    obj = {get}")
                lines.append(f"    this[{sc.name!r}] = obj")
                lines.append(f"    this[{sc.name!r}] = {expr}")
            else:
                lines.append("    obj = None")
                lines.append(f"    {expr}")
        lines.append("    return this")
        code.append("\n".join(lines))
        return f"{fname}(obj, io, this)"


def _parsed_as(con):
    """What parses for ``con``: a Rebuild parses its subcon (its expression is for build)."""
    return con.subcon if type(con) is c.Rebuild else con


def _fixed_format(con) -> str:
    con = _parsed_as(con)
    return con.fmtstr[1:] if type(con) is c.FormatField else con._unpacked[0]


def _struct_size(fmt) -> int:
    import struct
    return struct.calcsize(fmt)


def _fixed_value(code, con, var) -> str:
    """The value of a fixed run's member from what the unpack gave (``var``)."""
    con = _parsed_as(con)
    if type(con) is c.FormatField:
        return var
    return f"{_imp(code, con._unpacked[1])}({var}{con._emitargs(code)})"


def _fixed_runs(subcons):
    """Subcons, with runs of two or more named little-endian FormatFields grouped in lists."""
    out, run = [], []
    for sc in subcons:
        inner = _parsed_as(getattr(sc, "subcon", None))
        if sc.name and type(sc) is c.Renamed and (
                (type(inner) is c.FormatField and inner.fmtstr[0] == "<")
                or (getattr(inner, "_unpacked", None) or (None,))[0] is not None):
            run.append(sc)
            continue
        out.extend([run] if len(run) > 1 else run)
        run = []
        out.append(sc)
    out.extend([run] if len(run) > 1 else run)
    return out

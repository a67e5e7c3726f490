"""The two construct classes every primitive is made of, and the bridge of their errors.

* :class:`Leaf`: a primitive whose work is one parse and one build function (of the
  construct-free modules :mod:`.ints`, :mod:`.text`, :mod:`.bits`, :mod:`.blocks`,
  :mod:`.serialization`, or of :mod:`binlog_schema.format.facts`); :class:`BuildOnlyLeaf` parses
  nothing.
* :class:`Wrapper`: the same around a subcon, whose parse/build the functions get as
  callables.

``_parse``, ``_build`` and ``_sizeof`` call the functions when a declaration runs
interpreted, and ``_emitparse``/``_emitbuild`` emit calls of the same functions, so a
declaration using them compiles (:mod:`.codegen`). The logic of each primitive lives once,
in its two functions. Interpreted, a function's error (:mod:`.errors`) leaves as the
construct error of the same name, with the field path (:func:`pathed`); compiled code raises
the functions' own errors.
"""

from __future__ import annotations

import construct as c
from construct import Construct

from . import blocks, errors
from .codegen import callable_of, compile_declaration, emit_value, ref


class LimitExceeded(c.ValidationError):
    """construct's side of :class:`.errors.LimitExceeded`."""


_AS_CONSTRUCT = {
    errors.StreamError: c.StreamError, errors.ValidationError: c.ValidationError,
    errors.LimitExceeded: LimitExceeded, errors.ChecksumMismatch: c.ChecksumError,
    errors.IntegerError: c.IntegerError, errors.StringError: c.StringError,
    errors.MappingError: c.MappingError, errors.RangeError: c.RangeError,
    errors.CheckError: c.CheckError, errors.ConstError: c.ConstError,
    blocks.NoLayoutError: c.MappingError,
}


def as_construct_error(e: errors.LayoutError, path):
    cls = _AS_CONSTRUCT.get(type(e))
    if cls is None:
        cls = next((v for k, v in _AS_CONSTRUCT.items() if isinstance(e, k)), c.ConstructError)
    return cls(str(e), path=e.path or path)


def pathed(func, path):
    """Run ``func``; a function's error leaves as construct's, and a construct error raised
    without a path gets this one."""
    try:
        return func()
    except errors.LayoutError as e:
        raise as_construct_error(e, path) from None
    except c.ConstructError as e:
        if getattr(e, "path", None) is None:
            raise type(e)(str(e), path=path) from None
        raise



class Compiles:
    """``.compile()`` through this package's emit mechanism (:func:`.codegen.module_source`:
    construct's own would leave out the module's preamble and checks)."""

    def compile(self, filename=None):
        compiled = compile_declaration(self)
        if filename:
            with open(filename, "w") as f:
                f.write(compiled.source)
        return compiled


class Leaf(Compiles, Construct):
    """A primitive whose work is one parse and one build function. ``args`` are values or
    construct expressions, evaluated against the context. ``unpacked``: (struct format
    char, fn[, json]) when the leaf is that fixed-size int whose value is ``fn(int, *args)``
    (a lean Struct then reads it in one unpack with its neighbours; ``json(int, *args)``,
    when given, is the JSON text of that value). ``json``: ``json(value, *args)`` is the JSON
    text of a parsed value (for the JSON direction; the encoder's otherwise)."""

    def __init__(self, pfunc, bfunc, *args, size=None, unpacked=None, buildnone=False,
                 json=None):
        super().__init__()
        self.pfunc, self.bfunc, self.args, self._size = pfunc, bfunc, args, size
        self.unpacked = unpacked
        self.jsonfunc = json
        self.flagbuildnone = buildnone

    def _argvalues(self, context):
        return [c.evaluate(a, context) for a in self.args]

    def _parse(self, stream, context, path):
        return pathed(lambda: self.pfunc(stream, *self._argvalues(context)), path)

    def _build(self, obj, stream, context, path):
        return pathed(lambda: self.bfunc(obj, stream, *self._argvalues(context)), path)

    def _sizeof(self, context, path):
        if self._size is None:
            raise c.SizeofError("variable size", path=path)
        return c.evaluate(self._size, context)

    def emit_args(self, code):
        return "".join(", " + emit_value(code, a) for a in self.args)

    def _emitparse(self, code):
        return f"{ref(self.pfunc, code)}(io{self.emit_args(code)})"

    def _emitbuild(self, code):
        return f"{ref(self.bfunc, code)}(obj, io{self.emit_args(code)})"

    def _emitfulltype(self, ksy, bitwise):  # Kaitai: its parse function's emitter
        from . import kaitai
        return kaitai.leaf(self.pfunc, self.args, ksy)


class BuildOnlyLeaf(Leaf):
    """A leaf that parses nothing (no code at all on the parse side)."""

    reads_nothing = True  # (the Kaitai export leaves it out)

    def _emitparse(self, code):
        return "None"


class Wrapper(Compiles, Construct):
    """A primitive wrapping a subcon: its parse/build functions get the subcon's parse/build
    as callables ``f(io, this)`` / ``f(obj, io, this)``."""

    def __init__(self, pfunc, bfunc, subcon, *args, buildnone=None):
        super().__init__()
        self.pfunc, self.bfunc, self.subcon, self.args = pfunc, bfunc, subcon, args
        self.flagbuildnone = subcon.flagbuildnone if buildnone is None else buildnone

    def _argvalues(self, context):
        return [c.evaluate(a, context) for a in self.args]

    def _parse(self, stream, context, path):
        sub = lambda io, this: self.subcon._parsereport(io, this, path)  # noqa: E731
        return pathed(lambda: self.pfunc(stream, context, sub, *self._argvalues(context)), path)

    def _build(self, obj, stream, context, path):
        sub = lambda obj, io, this: self.subcon._build(obj, io, this, path)  # noqa: E731
        return pathed(lambda: self.bfunc(obj, stream, context, sub, *self._argvalues(context)),
                      path)

    def _sizeof(self, context, path):
        raise c.SizeofError("variable size", path=path)

    def emit_args(self, code):
        return "".join(", " + emit_value(code, a) for a in self.args)

    def _emitparse(self, code):
        sub = callable_of(self.subcon._compileparse(code), code)
        return f"{ref(self.pfunc, code)}(io, this, {sub}{self.emit_args(code)})"

    def _emitbuild(self, code):
        sub = callable_of(self.subcon._compilebuild(code), code, build=True)
        return f"{ref(self.bfunc, code)}(obj, io, this, {sub}{self.emit_args(code)})"

    def _emitfulltype(self, ksy, bitwise):  # Kaitai: its parse function's emitter
        from . import kaitai
        return kaitai.wrapper(self.pfunc, self.subcon, self.args, ksy)

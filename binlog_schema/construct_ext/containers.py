"""Constructs that hold others and choose among them, with leaner generated code than
construct's: :class:`Switch` (a dict of the cases' functions), :class:`If` (a condition,
emitted inline), :class:`Rebuild` and :class:`Default` (a value computed on build),
:class:`TaggedList` (code, then the value its code declares, to the end of
the stream), :class:`CaseTable` (a list whose
items each take the case of their key: one dict lookup per item), :class:`Framed` (a header,
then a body switched on what the header says), :class:`IfMoreWrapper` (present when bytes
remain, inlined).
"""

from __future__ import annotations

import construct as c
from construct import Construct

from . import blocks
from .codegen import callable_of, emit_value, ref
from .leaves import Compiles, Leaf, Wrapper, pathed


class Switch(Compiles, c.Switch):
    """construct's Switch whose generated code calls a case's parser directly when the case
    compiles to one call (no lambda around it)."""

    def emit_tables(self, code, build: bool = False):
        """Emit the dict of the cases' parsers (builders) and the default's; return their
        names."""
        fname = f"switch_{'b' if build else ''}cases_{code.allocateId()}"
        code.append(f"{fname} = {{}}")
        for key, sc in self.cases.items():
            expr = sc._compilebuild(code) if build else sc._compileparse(code)
            code.append(f"{fname}[{key!r}] = {callable_of(expr, code, build)}")
        default = f"switch_{'b' if build else ''}defaultcase_{code.allocateId()}"
        expr = self.default._compilebuild(code) if build else self.default._compileparse(code)
        code.append(f"{default} = {callable_of(expr, code, build)}")
        return fname, default

    def _emitparse(self, code):
        fname, default = self.emit_tables(code)
        return f"{fname}.get({emit_value(code, self.keyfunc)}, {default})(io, this)"

    def _emitbuild(self, code):
        fname, default = self.emit_tables(code, build=True)
        return f"{fname}.get({emit_value(code, self.keyfunc)}, {default})(obj, io, this)"


class If(Compiles, c.IfThenElse):
    """``subcon`` when ``condition`` (a context expression) holds, else ``otherwise``
    (nothing, None, by default): construct's IfThenElse (whose parse, build and sizeof it
    keeps) with its code emitted here, the condition through :func:`.codegen.emit_value`.
    ``optional``: the value may be left out on build (None) when the condition is false."""

    def __init__(self, condition, subcon, otherwise=c.Pass, optional=False):
        super().__init__(condition, subcon, otherwise)
        if optional:
            self.flagbuildnone = True

    def _emitparse(self, code):
        return (f"(({self.thensubcon._compileparse(code)}) "
                f"if ({emit_value(code, self.condfunc)}) "
                f"else ({self.elsesubcon._compileparse(code)}))")

    def _emitbuild(self, code):
        return (f"(({self.thensubcon._compilebuild(code)}) "
                f"if ({emit_value(code, self.condfunc)}) "
                f"else ({self.elsesubcon._compilebuild(code)}))")


class Rebuild(Compiles, c.Rebuild):
    """A field whose value is computed on build from ``func`` (a context expression), whatever
    the object holds: construct's Rebuild (whose parse, build and sizeof it keeps) with its
    build code emitted here, the value through :func:`.codegen.emit_value`."""

    def _emitbuild(self, code):
        return (f"reuse({emit_value(code, self.func)}, "
                f"lambda obj: ({self.subcon._compilebuild(code)}))")


class Default(Compiles, c.Default):
    """A field whose value, when the object leaves it out (None), is computed on build from
    ``value`` (a context expression): construct's Default with its build code emitted
    here."""

    def _emitbuild(self, code):
        return (f"reuse({emit_value(code, self.value)} if obj is None else obj, "
                f"lambda obj: ({self.subcon._compilebuild(code)}))")


class IfMoreWrapper(Wrapper):
    """:func:`.primitives.IfMore`'s class: its parse inlined in generated code."""

    def _emitparse(self, code):  # inline: a byte read and a step back (a position >= 0)
        return (f"(({self.subcon._compileparse(code)}) if io.read(1) and io.seek(-1, 1) >= 0 "
                "else None)")


class TaggedList(Compiles, Construct):
    """Items ``{key: name, value}`` to the end of the (bounded) stream: a one-byte code, named
    from ``names``, then the value whose layout ``cases[name]`` declares (``default`` for
    other codes). With ``length`` (a ``(parse, build)`` pair, as for :func:`Bounded`) each
    value is a block behind a length prefix that its case must read whole (TLVs). With
    ``known``, a code outside it (its layout, hence its length, unknown) stops the walk: the
    rest stays raw, as a last item ``{raw}``. The value's context holds ``key`` (as a Struct
    of the two fields would). With ``numbers_raw``, an item built with a number for a named
    code takes the ``default`` layout (a TLV the typed layer keeps as bytes). One loop instead
    of a struct, a switch and a code lookup per item."""

    def __init__(self, names, cases: dict, default, known=None, key: str = "code",
                 length=None, numbers_raw: bool = False):
        super().__init__()
        self.names, self.cases, self.default, self.key = names, cases, default, key
        self.known = None if known is None else frozenset(known)
        self.length = length
        self.numbers_raw = numbers_raw
        self.flagbuildnone = False

    def _case_context(self, context, name, stream):
        sub = c.Container(_=context, _params=context._params, _root=None,
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
        return pathed(lambda: blocks.tagged_parse(stream, context, table, interpreted(
            self.default, "default"), *self._args()), path)

    def _build(self, obj, stream, context, path):
        def interpreted(sc, name):
            def build(value, io, sub):
                ctx = self._case_context(sub["_"], sub[self.key], io)
                ctx.update({k: v for k, v in sub.items() if k not in ("_", "_params")})
                return sc._build(value, io, ctx, f"{path} -> {name}")
            return build
        table = {name: interpreted(sc, name) for name, sc in self.cases.items()}
        return pathed(lambda: blocks.tagged_build(obj, stream, context, table, interpreted(
            self.default, "default"), *self._build_args()), path)

    def _sizeof(self, context, path):
        raise c.SizeofError("variable size", path=path)

    def _cases_source(self, code, build):
        """A module-level dict of the cases' parse (or build) functions, and the default."""
        table = f"tagged_{'build' if build else 'parse'}_{code.allocateId()}"
        lines = [f"{table} = {{}}"]
        for name, sc in list(self.cases.items()) + [(None, self.default)]:
            func = callable_of(sc._compilebuild(code) if build else sc._compileparse(code),
                               code, build)
            key = f"{table}[{name!r}]" if name is not None else f"{table}_default"
            lines.append(f"{key} = {func}")
        code.append("\n".join(lines))
        return table

    def _emitargs(self, code, args):
        return "".join(", " + emit_value(code, a) for a in args)

    def _emitparse(self, code):
        table = self._cases_source(code, build=False)
        return (f"{ref(blocks.tagged_parse, code)}(io, this, {table}, {table}_default"
                f"{self._emitargs(code, self._args())})")

    def _emitbuild(self, code):
        table = self._cases_source(code, build=True)
        return (f"{ref(blocks.tagged_build, code)}(obj, io, this, {table}, {table}_default"
                f"{self._emitargs(code, self._build_args())})")


class CaseTable(Wrapper):
    """A list walked by ``pfunc``/``bfunc`` (``f(io, this, sub, *args)``), each item parsed by
    the case of ``switch`` (a ``Switch`` on a key the functions put in the context) that its
    key selects. Compiled, the walk is ``fast`` (a ``(parse, build)`` pair taking a dict of the
    cases' compiled functions instead of ``sub``: one lookup and at most one call per item):
    a case that is ``none`` (no bytes) is None there, a :class:`~.leaves.Leaf` whose parse
    function is in ``inline`` is its arguments' tuple (the fast parse reads it in its loop)."""

    def __init__(self, pfunc, bfunc, switch, *args, fast, none=c.Pass, inline=()):
        super().__init__(pfunc, bfunc, switch, *args, buildnone=False)
        self.fast, self.none, self.inline = fast, none, tuple(inline)

    def _emitbuild(self, code):
        name = f"table_bcases_{code.allocateId()}"
        code.append(f"{name} = {{}}")
        for key, sc in self.subcon.cases.items():
            if sc is self.none:
                code.append(f"{name}[{key!r}] = None")
            else:
                code.append(f"{name}[{key!r}] = lambda obj, io, this: "
                            f"{sc._compilebuild(code)}")
        return f"{ref(self.fast[1], code)}(obj, io, this, {name}{self.emit_args(code)})"

    def _emitparse(self, code):
        name = f"table_cases_{code.allocateId()}"
        code.append(f"{name} = {{}}")
        for key, sc in self.subcon.cases.items():
            if sc is self.none:
                code.append(f"{name}[{key!r}] = None")
            elif isinstance(sc, Leaf) and sc.pfunc in self.inline:  # read in the loop
                code.append(f"{name}[{key!r}] = {tuple(sc.args)!r}")
            else:
                code.append(f"{name}[{key!r}] = lambda io, this: {sc._compileparse(code)}")
        return f"{ref(self.fast[0], code)}(io, this, {name}{self.emit_args(code)})"


class Framed(Wrapper):
    """A header, then a body (a :class:`Switch` on what the header says), framed by
    ``pfunc(io, this, header_parse, cases, default_parse)`` and ``bfunc(obj, io, this,
    header_build, body_build)`` (which read or write what surrounds them: sizes, a
    checksum). Compiled, ``pfunc`` gets the body switch's dict of cases (interpreted, an empty
    dict and the switch's parse as the default). ``ksy``: ``(module, name)`` of the function
    ``f(framed, gen)`` that gives its Kaitai type (imported when exporting)."""

    def __init__(self, pfunc, bfunc, header, body, ksy=None):
        super().__init__(pfunc, bfunc, body, buildnone=False)
        self.header, self.ksy = header, ksy

    def _parse(self, stream, context, path):
        ph = lambda io, this: self.header._parsereport(io, this, path + " -> header")  # noqa: E731
        pb = lambda io, this: self.subcon._parsereport(io, this, path + " -> body")  # noqa: E731
        return pathed(lambda: self.pfunc(stream, context, ph, {}, pb), path)

    def _build(self, obj, stream, context, path):
        bh = lambda obj, io, this: self.header._build(obj, io, this, path + " -> header")  # noqa: E731
        bb = lambda obj, io, this: self.subcon._build(obj, io, this, path + " -> body")  # noqa: E731
        return pathed(lambda: self.bfunc(obj, stream, context, bh, bb), path)

    def _emitparse(self, code):
        header = callable_of(self.header._compileparse(code), code)
        cases, default = self.subcon.emit_tables(code)
        return f"{ref(self.pfunc, code)}(io, this, {header}, {cases}, {default})"

    def _emitbuild(self, code):
        header = callable_of(self.header._compilebuild(code), code, build=True)
        body = callable_of(self.subcon._compilebuild(code), code, build=True)
        return f"{ref(self.bfunc, code)}(obj, io, this, {header}, {body})"

    def _emitprimitivetype(self, ksy, bitwise):  # Kaitai: the type its ksy function gives
        import importlib
        module, name = self.ksy
        return getattr(importlib.import_module(module), name)(self, ksy)

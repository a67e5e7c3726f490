"""The construct classes of the primitives, and the declaration helpers built on them.

Each primitive is a construct (:class:`Leaf` or :class:`Wrapper`) around a pair of plain
functions from the construct-free modules (:mod:`.ints`, :mod:`.text`, :mod:`.bits`,
:mod:`.blocks`, :mod:`.serialization`): ``_parse``, ``_build`` and ``_sizeof`` call them when
a declaration runs interpreted, and ``_emitparse``/``_emitbuild`` emit calls of the same
functions, so a declaration using it compiles (:mod:`.codegen`). The logic of each primitive
lives once, in its two functions.

Interpreted, a function's error (:mod:`.errors`) leaves as the construct error of the same
name, with the field path; compiled code raises the functions' own errors.
"""

from __future__ import annotations

import io as _io
import re
import struct as _struct

import construct as c
from construct import Construct

from . import bits, blocks, errors, exprs, ints, jsontext, serialization, text
from .codegen import active, callable_of, compile_declaration, emit_value, ref

# --------------------------------------------------------------------------------------
# errors: the functions' own, as construct's when a declaration runs interpreted


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


def _pathed(func, path):
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


# --------------------------------------------------------------------------------------
# the two kinds of primitive


class _Compiles:
    """``.compile()`` through this package's emit mechanism (construct's own would not give
    the expressions that emit through :func:`.codegen.ref` their compilation)."""

    def compile(self, filename=None):
        compiled = compile_declaration(self)
        if filename:
            with open(filename, "w") as f:
                f.write(compiled.source)
        return compiled


class Leaf(_Compiles, Construct):
    """A primitive whose work is one parse and one build function. ``args`` are values or
    construct expressions, evaluated against the context. ``unpacked``: (struct format
    char, fn[, json]) when the leaf is that fixed-size int whose value is ``fn(int, *args)``
    (a lean Struct then reads it in one unpack with its neighbours; ``json(int, *args)``,
    when given, is the JSON text of that value). ``json``: ``json(value, *args)`` is the JSON
    text of a parsed value (for the JSON direction; the encoder's otherwise)."""

    def __init__(self, pfunc, bfunc, *args, size=None, unpacked=None, buildnone=False,
                 json=None):
        super().__init__()
        self._pf, self._bf, self._args, self._size = pfunc, bfunc, args, size
        self._unpacked = unpacked
        self._json = json
        self.flagbuildnone = buildnone

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
        return "".join(", " + emit_value(code, a) for a in self._args)

    def _emitparse(self, code):
        return f"{ref(self._pf, code)}(io{self._emitargs(code)})"

    def _emitbuild(self, code):
        return f"{ref(self._bf, code)}(obj, io{self._emitargs(code)})"

    def _emitfulltype(self, ksy, bitwise):  # Kaitai: its parse function's emitter
        from . import kaitai
        return kaitai.leaf(self._pf, self._args, ksy)


class BuildOnlyLeaf(Leaf):
    """A leaf that parses nothing (no code at all on the parse side)."""

    def _emitparse(self, code):
        return "None"


class Wrapper(_Compiles, Construct):
    """A primitive wrapping a subcon: its parse/build functions get the subcon's parse/build
    as callables ``f(io, this)`` / ``f(obj, io, this)``."""

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
        return "".join(", " + emit_value(code, a) for a in self._args)

    def _emitparse(self, code):
        sub = callable_of(self.subcon._compileparse(code), code)
        return f"{ref(self._pf, code)}(io, this, {sub}{self._emitargs(code)})"

    def _emitbuild(self, code):
        sub = callable_of(self.subcon._compilebuild(code), code, build=True)
        return f"{ref(self._bf, code)}(obj, io, this, {sub}{self._emitargs(code)})"

    def _emitfulltype(self, ksy, bitwise):  # Kaitai: its parse function's emitter
        from . import kaitai
        return kaitai.wrapper(self._pf, self.subcon, self._args, ksy)


# --------------------------------------------------------------------------------------
# expressions (evaluated interpreted; pasted into generated code through repr or emit)


class Call:
    """Expression: ``fn(this, *args)`` (``fn`` a module-level function of a construct-free
    module, ``args`` constants); emitted as the same call."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __call__(self, context):
        return self.fn(context, *self.args)

    def __repr__(self):
        code = active()
        args = "".join(", " + emit_value(code, a) for a in self.args)
        return f"{ref(self.fn, code)}(this{args})"

    def ksy_expr(self, k, guards):  # Kaitai: the function's registered expression
        return k.call(self.fn, self.args, guards)


class Apply:
    """Expression: ``fn(this[k1][k2]...)`` for the field at the path of keys ``path``;
    emitted as the same call."""

    def __init__(self, fn, *path):
        self.fn, self.path = fn, path

    def __call__(self, context):
        for key in self.path:
            context = context[key]
        return self.fn(context)

    def __repr__(self):
        return f"{ref(self.fn)}(this{''.join(f'[{k!r}]' for k in self.path)})"

    def ksy_expr(self, k, guards):  # Kaitai: the function's expression, given the path
        return k.call(self.fn, self.path, guards)


class FieldIs:
    """Expression: the field at ``path`` (keys from the current context, e.g. ``("_",
    "format")``) equals ``value`` (or not, with ``negate``). construct's own ``this.x == "s"``
    loses the quotes of a string constant in compiled ``If`` code, so string comparisons use
    this."""

    def __init__(self, path, value, negate=False):
        self.path, self.value, self.negate = tuple(path), value, negate

    def __call__(self, context):
        for key in self.path:
            context = context[key]
        return (context == self.value) != self.negate

    def __repr__(self):
        ref_ = "this" + "".join(f"[{k!r}]" for k in self.path)
        return f"({ref_} {'!=' if self.negate else '=='} {self.value!r})"

    def ksy_expr(self, k, guards):  # Kaitai: the field against its enum's value
        return k.equals(self.path, self.value, self.negate, guards)


class FlagSet:
    """Expression: a bit of ``mask`` is set in the flags field ``key`` (a list of the names
    of ``table`` and unnamed bits when parsed, or an int when built); emitted inline."""

    def __init__(self, key, table, mask):
        self.key, self.table, self.mask = key, table, mask

    def __call__(self, context):
        return exprs.flag_set(context[self.key], self.table, self.mask)

    def __repr__(self):
        v = f"this[{self.key!r}]"
        tests = []
        for i in range(64):
            bit = 1 << i
            if self.mask & bit:
                if bit in self.table:
                    tests.append(f"{self.table[bit]!r} in {v}")
                tests.append(f"{bit} in {v}")
        return (f"((({v} & {self.mask}) != 0) if isinstance({v}, int) "
                f"else ({' or '.join(tests)}))")

    def ksy_expr(self, k, guards):  # Kaitai: the flags field is a number there
        return f"({k.path((self.key,), guards)} & {self.mask}) != 0"


class CtxKey:
    """Expression: a value of the explicit context object (``default`` when there is none)."""

    def __init__(self, key: str, default):
        self.key = key
        self.default = default

    def __call__(self, context):
        return exprs.ctx_value(context, self.key, self.default)

    def __repr__(self):
        return f"{ref(exprs.ctx_value)}(this, {self.key!r}, {self.default!r})"

    def ksy_expr(self, k, guards):  # Kaitai: the event type's instance of that value
        return k.context(self.key)


class FuncRef:
    """A module-level function passed as an argument: evaluates to itself, emits by name."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, context):  # construct's evaluate() calls it with the context
        return self.fn

    def emit(self, code):
        return ref(self.fn, code)


class ThisContext:
    """Expression: the construct context itself."""

    def __call__(self, context):
        return context

    def emit(self, code):
        return "this"


class BuiltSize:
    """Expression: the byte length of the field ``key`` built with ``subcon`` (for a length
    stored away from its block)."""

    def __init__(self, key, subcon):
        self.key, self.subcon = key, subcon

    def __call__(self, context):
        params = context.get("_params") or {}
        return len(self.subcon.build(exprs.field(context, self.key), ctx=params.get("ctx")))

    def __repr__(self):
        code = active()
        build = callable_of(self.subcon._compilebuild(code), code, build=True)
        return f"{ref(blocks.built_size)}(this, {self.key!r}, {build})"


def Opt(condition, subcon):
    """``c.If`` whose value may be left out on build (None) when the condition is false."""
    con = c.If(condition, subcon)
    con.flagbuildnone = True
    return con


# --------------------------------------------------------------------------------------
# construct classes with leaner generated code


class Switch(_Compiles, c.Switch):
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
        return f"{fname}.get({self.keyfunc!r}, {default})(io, this)"

    def _emitbuild(self, code):
        fname, default = self.emit_tables(code, build=True)
        return f"{fname}.get({self.keyfunc!r}, {default})(obj, io, this)"


class _IfMore(Wrapper):
    def _emitparse(self, code):  # inline: a byte read and a step back (a position >= 0)
        return (f"(({self.subcon._compileparse(code)}) if io.read(1) and io.seek(-1, 1) >= 0 "
                "else None)")


class TaggedList(_Compiles, Construct):
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
        return _pathed(lambda: blocks.tagged_parse(stream, context, table, interpreted(
            self.default, "default"), *self._args()), path)

    def _build(self, obj, stream, context, path):
        def interpreted(sc, name):
            def build(value, io, sub):
                ctx = self._case_context(sub["_"], sub[self.key], io)
                ctx.update({k: v for k, v in sub.items() if k not in ("_", "_params")})
                return sc._build(value, io, ctx, f"{path} -> {name}")
            return build
        table = {name: interpreted(sc, name) for name, sc in self.cases.items()}
        return _pathed(lambda: blocks.tagged_build(obj, stream, context, table, interpreted(
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


class Struct(_Compiles, c.Struct):
    """construct's Struct with leaner generated code, and a third direction: JSON.

    Interpreted parse/build are construct's own. The compiled code keeps only what the
    declarations use of the nested context (``this._`` and ``this._params`` and the fields
    parsed so far), in a plain dict, instead of a 10-key Container per struct; runs of
    fixed-size ints are read with one unpack; the result is one dict display.

    The JSON direction (:meth:`_emitjson`) reads the same bytes the same way and returns the
    JSON text of what parse returns (``jsontext.dumps`` of it, byte for byte): one template
    filled with each field's text, an int's as it is, a flags word's and a UUID's from its
    unpacked bytes, a nested struct's through its own JSON, any other value's through the
    encoder.
    """

    def _emitparse(self, code):
        return self._emit_lean(code, json=False)

    def _emitseq(self, ksy, bitwise):  # Kaitai: the fields (kaitai.Ksy.seq)
        from . import kaitai
        return kaitai.state(ksy).seq(self.subcons)

    def _emitfulltype(self, ksy, bitwise):  # Kaitai: a type of its own
        from . import kaitai
        k = kaitai.state(ksy)
        return {"type": k.struct_type(self, k.type_base(k.current))}

    def _emitjson(self, code):
        """A call of the generated function that parses this struct to its JSON text."""
        cache = code.__dict__.setdefault("jsoncache", {})
        if id(self) not in cache:
            cache[id(self)] = self._emit_lean(code, json=True)
        return cache[id(self)]

    def _steps(self, code):
        """(names, expression, members) per step: ``names`` a tuple for a run of fixed ints
        read by one unpack (``members`` their constructs), else the field's name (None for
        an unnamed one) and its subcon."""
        steps = []
        for group in _fixed_runs(self.subcons):
            if isinstance(group, list):  # consecutive fixed-size ints: one read, one unpack
                fmt = "<" + "".join(_fixed_format(sc.subcon) for sc in group)
                size = _struct.calcsize(fmt)
                sname = f"lean_fixed_{code.allocateId()}"
                code.append(f"{sname} = struct.Struct({fmt!r})")
                steps.append((tuple(sc.name for sc in group), f"{sname}.unpack(io.read({size}))",
                              [sc.subcon for sc in group]))
            else:
                steps.append((group.name, group._compileparse(code), group))
        return steps

    def _emit_lean(self, code, json):
        fname = f"{'json' if json else 'parse'}_lean_struct_{code.allocateId()}"
        steps = self._steps(code)
        # A later expression reads a field parsed here from its local (``this['x']``); the
        # nested context holds the fields only up to the last expression that hands the
        # context itself to a function (which may look any field up), and exists only when
        # an expression still names it.
        steps, read = _local_reads(steps)
        last = max((i for i, (_, expr, _v) in enumerate(steps) if _BARE_THIS.search(expr)),
                   default=-1)
        lines = [f"def {fname}(io, this):"]
        if any("this" in expr for _, expr, _v in steps):
            lines.append("    this = {'_': this, '_params': this['_params']}")
        fields = []  # (name, local, JSON slot): the result is made at the end, in one step
        for i, (name, expr, members) in enumerate(steps):
            keep = i < last
            if isinstance(name, tuple):  # unpacked into the fields' own locals
                base = len(fields)
                lines.append("    " + ", ".join(f"_f{base + j}" for j in range(len(name)))
                             + f", = {expr}")
                for j, (n, con) in enumerate(zip(name, members)):
                    local = f"_f{base + j}"
                    v = _fixed_value(code, con, local)
                    converted = v != local and (keep or not json or n in read)
                    slot = None if not json else _fixed_json(code, con, local) \
                        if not converted else ("%s", f"{ref(jsontext.value_json, code)}({local})")
                    fields.append((n, local, slot))
                    if converted:
                        lines.append(f"    {local} = {v}")
                    if keep:
                        lines.append(f"    this[{n!r}] = {local}")
                continue
            if not name:
                if expr != "None":  # (a build-only check parses nothing)
                    lines.append(f"    {expr}")
                continue
            local = f"_f{len(fields)}"
            nested = _parsed_as(members.subcon)
            if json and not keep and name not in read and isinstance(nested, Struct):
                fields.append((name, local, ("%s", local)))  # its JSON text, from its bytes
                lines.append(f"    {local} = {nested._emitjson(code)}")
                continue
            fields.append((name, local, _value_json(code, members.subcon, local)
                           if json else None))
            lines.append(f"    {local} = this[{name!r}] = {expr}" if keep
                         else f"    {local} = {expr}")
        if json:
            template = "{" + ",".join(jsontext.quote(n).replace("%", "%%") + ":" + slot[0]
                                      for n, _l, slot in fields) + "}"
            values = "".join(f"{slot[1]}, " for _n, _l, slot in fields)
            lines.append(f"    return {template!r} % ({values})" if fields
                         else "    return '{}'")
        else:
            lines.append("    return {" + ", ".join(f"{n!r}: {v}" for n, v, _s in fields)
                         + "}")
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


def _fixed_value(code, con, var) -> str:
    """The value of a fixed run's member from what the unpack gave (``var``)."""
    con = _parsed_as(con)
    if type(con) is c.FormatField:
        return var
    return f"{ref(con._unpacked[1], code)}({var}{con._emitargs(code)})"


_INT_FORMATS = frozenset("bBhHiIlLqQ")
_BARE_THIS = re.compile(r"\bthis\b(?!\[)")  # the context handed on, not a key of it read


def _local_reads(steps):
    """The steps with each read of a field parsed before (``this['x']``) replaced by that
    field's local (``_fN``, as :meth:`Struct._emit_lean` names them), and the names of the
    fields so read."""
    out, known, n, read = [], {}, 0, set()
    for name, expr, members in steps:
        for key, (field, local) in known.items():
            if key in expr:
                expr = expr.replace(key, local)
                read.add(field)
        out.append((name, expr, members))
        if isinstance(name, tuple):
            for j, each in enumerate(name):
                known[f"this[{each!r}]"] = (each, f"_f{n + j}")
            n += len(name)
        elif name:
            known[f"this[{name!r}]"] = (name, f"_f{n}")
            n += 1
    return out, read


def _fixed_json(code, con, var):
    """The JSON slot (``%d`` or ``%s``, expression) of a fixed run's member from what the
    unpack gave (``var``)."""
    con = _parsed_as(con)
    if type(con) is c.FormatField:
        return ("%d", var) if con.fmtstr[-1] in _INT_FORMATS else _value_json(code, con, var)
    if len(con._unpacked) > 2:  # (its JSON straight from the unpacked value)
        return "%s", f"{ref(con._unpacked[2], code)}({var}{con._emitargs(code)})"
    return "%s", f"{ref(jsontext.value_json, code)}({_fixed_value(code, con, var)})"


def _value_json(code, con, var):
    """The JSON slot (``%d`` or ``%s``, expression) of the value ``var`` that ``con`` parsed:
    an int as it is, a field that may be left out (None) as null or its value's, any other
    value through the encoder."""
    con = _parsed_as(con)
    t = type(con)
    if t is c.Renamed:
        return _value_json(code, con.subcon, var)
    if t is c.FormatField and con.fmtstr[-1] in _INT_FORMATS:
        return "%d", var
    optional = None
    if t is c.IfThenElse and type(con.elsesubcon) is type(c.Pass):
        optional = con.thensubcon
    elif t is _IfMore:
        optional = con.subcon
    if isinstance(con, Leaf) and con._json is not None:
        return "%s", f"{ref(con._json, code)}({var}{con._emitargs(code)})"
    if optional is not None:
        spec, expr = _value_json(code, optional, var)
        if spec == "%s" and expr.startswith(f"('null' if {var} is None else "):
            return spec, expr  # (optional within optional)
        inner = f"int.__repr__({var})" if spec == "%d" else expr
        return "%s", f"('null' if {var} is None else {inner})"
    return "%s", f"{ref(jsontext.value_json, code)}({var})"


def _fixed_runs(subcons):
    """Subcons, with runs of two or more named little-endian fixed-size fields grouped in
    lists."""
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


# ======================================================================================
# declaration helpers

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


# ------------------------------------------------------------------------------ serialization format

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
    return _IfMore(blocks.ifmore_parse, blocks.ifmore_build, subcon, buildnone=True)


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

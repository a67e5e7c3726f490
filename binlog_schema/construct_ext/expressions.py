"""Expressions of the context that declarations use (an ``If``'s condition, a ``Switch``'s
key, a ``Rebuild``'s value, a primitive's argument): each is evaluated against the context
when a declaration runs interpreted (``__call__(context)``), and emitted as Python source when
it compiles (``emit(code)``, module-level functions named through :func:`.codegen.ref`).

One emit mechanism: every expression is an :class:`Expression`, whose ``emit(code)`` gives
its source. The constructs that hold one (this package's ``If``, ``Switch``, ``Rebuild``,
``Default``, leaves and wrappers) ask for it directly (:func:`.codegen.emit_value`); construct's
own classes, which would paste ``repr(expr)`` into their code, do not hold these expressions
(``repr`` is a description only).
The functions the expressions call live in the construct-free modules (:mod:`.context_functions`,
:mod:`binlog_schema.format.facts`); their Kaitai forms are ``ksy_expr`` (:mod:`.kaitai`).
"""

from __future__ import annotations

from . import blocks, context_functions as exprs
from .codegen import callable_of, emit_value, ref


def _keys(path) -> str:
    """``[k1][k2]...``: the subscripts of a field path, in generated code."""
    return "".join(f"[{k!r}]" for k in path)


class Expression:
    """An expression of the context: ``__call__(context)`` evaluates it (interpreted),
    ``emit(code)`` gives its source (compiled); ``repr`` describes it."""

    def __call__(self, context):
        raise NotImplementedError

    def emit(self, code) -> str:
        raise NotImplementedError

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r:.40}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class Field(Expression):
    """The field at the path of keys ``path`` (from the current context, e.g. ``("_kind",)``
    or ``("_", "format")``); emitted as the same subscripts of ``this``."""

    def __init__(self, *path):
        self.path = path

    def __call__(self, context):
        for key in self.path:
            context = context[key]
        return context

    def emit(self, code):
        return f"this{_keys(self.path)}"


class Call(Expression):
    """``fn(this, *args)`` (``fn`` a module-level function of a construct-free module,
    ``args`` constants); emitted as the same call."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __call__(self, context):
        return self.fn(context, *self.args)

    def emit(self, code):
        args = "".join(", " + emit_value(code, a) for a in self.args)
        return f"{ref(self.fn, code)}(this{args})"

    def ksy_expr(self, k, guards):  # Kaitai: the function's registered expression
        return k.call(self.fn, self.args, guards)


class Apply(Expression):
    """``fn(this[k1][k2]...)`` for the field at the path of keys ``path``; emitted as the same
    call."""

    def __init__(self, fn, *path):
        self.fn, self.path = fn, path

    def __call__(self, context):
        for key in self.path:
            context = context[key]
        return self.fn(context)

    def emit(self, code):
        return f"{ref(self.fn, code)}(this{_keys(self.path)})"

    def ksy_expr(self, k, guards):  # Kaitai: the function's expression, given the path
        return k.call(self.fn, self.path, guards)


class FieldIs(Expression):
    """The field at ``path`` (keys from the current context, e.g. ``("_", "format")``) equals
    ``value`` (or not, with ``negate``). construct's own ``this.x == "s"`` loses the quotes of
    a string constant in compiled ``If`` code, so string comparisons use this."""

    def __init__(self, path, value, negate=False):
        self.path, self.value, self.negate = tuple(path), value, negate

    def __call__(self, context):
        for key in self.path:
            context = context[key]
        return (context == self.value) != self.negate

    def emit(self, code):
        return f"(this{_keys(self.path)} {'!=' if self.negate else '=='} {self.value!r})"

    def ksy_expr(self, k, guards):  # Kaitai: the field against its enum's value
        return k.equals(self.path, self.value, self.negate, guards)


class FlagSet(Expression):
    """A bit of ``mask`` is set in the flags field ``key`` (a list of the names of ``table``
    and unnamed bits when parsed, or an int when built); emitted inline."""

    def __init__(self, key, table, mask):
        self.key, self.table, self.mask = key, table, mask

    def __call__(self, context):
        return exprs.flag_set(context[self.key], self.table, self.mask)

    def emit(self, code):
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


class CtxKey(Expression):
    """A value of the explicit context object (``default`` when there is none)."""

    def __init__(self, key: str, default):
        self.key = key
        self.default = default

    def __call__(self, context):
        return exprs.ctx_value(context, self.key, self.default)

    def emit(self, code):
        return f"{ref(exprs.ctx_value, code)}(this, {self.key!r}, {self.default!r})"

    def ksy_expr(self, k, guards):  # Kaitai: the event type's instance of that value
        return k.context(self.key)


class FuncRef(Expression):
    """A module-level function passed as an argument: evaluates to itself, emits by name."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, context):  # construct's evaluate() calls it with the context
        return self.fn

    def emit(self, code):
        return ref(self.fn, code)


class ThisContext(Expression):
    """The construct context itself."""

    def __call__(self, context):
        return context

    def emit(self, code):
        return "this"


class BuiltSize(Expression):
    """The byte length of the field ``key`` built with ``subcon`` (for a length stored away
    from its block)."""

    def __init__(self, key, subcon):
        self.key, self.subcon = key, subcon

    def __call__(self, context):
        params = context.get("_params") or {}
        return len(self.subcon.build(exprs.field(context, self.key), ctx=params.get("ctx")))

    def emit(self, code):
        build = callable_of(self.subcon._compilebuild(code), code, build=True)
        return f"{ref(blocks.built_size, code)}(this, {self.key!r}, {build})"

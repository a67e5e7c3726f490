"""Compiling declarations to Python source, with one emit mechanism.

Generated code names module-level objects (a primitive's parse/build function, a name table,
a rule of the context) through :func:`ref`, which imports each once under an alias qualified by
its module; constant arguments go through :func:`emit_value`. An expression of the context
(:class:`.expressions.Expression`) gives its source with ``emit(code)``, which every
construct holding one asks for explicitly (this package's ``If``, ``Switch``, ``Rebuild``,
``Default``, leaves and wrappers, through :func:`emit_value`): nothing depends on ``repr``,
and no compilation is global state.

construct's compile protocol is text (``_compileparse(code)`` returns an expression's source):
:func:`callable_of` turns such an expression into a callable without a wrapper when it is
one call of the parameters already.

:func:`module_source` turns a declaration (or a dict of them) into the source of a module
that needs no construct: its preamble gives the few names construct's own generated code uses
(``Container`` and ``ListContainer``, which are plain dicts and lists there, ``ConstError``...)
from this package's construct-free modules, and a check refuses a module that would name
anything else.
"""

from __future__ import annotations

import ast
import builtins
import types

import construct as c

from .run import execute

PREAMBLE = """\
# generated from binlog_schema's declarations by binlog_schema.construct_ext.codegen
from io import BytesIO
import struct
Container = dict
ListContainer = list
from binlog_schema.construct_ext.errors import ConstError, StopFieldError
len_ = len
sum_ = sum
min_ = min
max_ = max
abs_ = abs
def restream(data, func):
    return func(BytesIO(data))
def reuse(obj, func):
    return func(obj)
"""

def alias(module: str, name: str) -> str:
    """The name a module attribute gets in generated code: qualified by its module, so two
    modules' objects of the same name never replace each other there."""
    return f"{module.replace('.', '_')}__{name}"


# the modules generated code may import from: none of them imports construct (a test checks)
CONSTRUCT_FREE = ("binlog_schema.construct_ext.errors",
                  "binlog_schema.construct_ext.streams", "binlog_schema.construct_ext.names",
                  "binlog_schema.construct_ext.ints", "binlog_schema.construct_ext.text",
                  "binlog_schema.construct_ext.bits", "binlog_schema.construct_ext.blocks",
                  "binlog_schema.construct_ext.serialization",
                  "binlog_schema.construct_ext.context_functions",
                  "binlog_schema.construct_ext.jsontext",
                  "binlog_schema.format.facts.")


def construct_free(module: str) -> bool:
    return any(module == m or (m.endswith(".") and module.startswith(m))
               for m in CONSTRUCT_FREE)


def ref(obj, code) -> str:
    """Import a module-level object (a function, or anything with a ``ref`` attribute
    ``(module, name)``) into the generated module ``code``; its name there."""
    module, name = getattr(obj, "ref", None) or (obj.__module__, obj.__name__)
    if getattr(code, "construct_free", False) and not construct_free(module):
        raise ValueError(f"{module}.{name}: generated code imports only from modules that "
                         "do not import construct")
    a = alias(module, name)
    code.append(f"from {module} import {name} as {a}")
    return a


def emit_value(code, value) -> str:
    """Source text for a constant argument: objects that know how to emit themselves do so;
    functions and name tables are imported; a set becomes a module-level constant (its
    literal would be built again at every call); tuples and lists recursively."""
    emit = getattr(type(value), "emit", None)
    if emit is not None:  # (construct's this-expressions answer any attribute: not them)
        return value.emit(code)
    if getattr(value, "ref", None) is not None and isinstance(value, dict):
        return ref(value, code)
    if isinstance(value, types.FunctionType):
        return ref(value, code)
    if isinstance(value, (frozenset, set)):
        name = f"const_set_{code.allocateId()}"
        code.append(f"{name} = frozenset({sorted(value, key=repr)!r})")
        return name
    if isinstance(value, tuple):
        inner = ", ".join(emit_value(code, v) for v in value)
        return f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, list):
        return "[" + ", ".join(emit_value(code, v) for v in value) + "]"
    return repr(value)


_PARAMS = {False: "io, this", True: "obj, io, this"}  # generated parse / build functions


def callable_of(expr: str, code, build: bool = False) -> str:
    """A callable for a compiled parse (``f(io, this)``) or build (``f(obj, io, this)``)
    expression: the function it calls when it is one call of those parameters, else a
    module-level function around it (a lambda in a function body would be made anew at
    every call)."""
    params = _PARAMS[build]
    tail = f"({params})"
    if expr.endswith(tail) and expr[:-len(tail)].isidentifier():
        return expr[:-len(tail)]
    name = f"{'build' if build else 'parse'}_sub_{code.allocateId()}"
    code.append(f"def {name}({params}):\n    return ({expr})")
    return name


def json_of(con, code) -> str:
    """The expression that parses ``con`` to its JSON text (``jsontext.object_json`` of what
    it parses to): its own JSON direction when it has one (a Struct's), else the encoder
    around its parse."""
    emit = getattr(con, "_emitjson", None)
    if emit is not None:
        return emit(code)
    from .jsontext import object_json
    return f"{ref(object_json, code)}({con._compileparse(code)})"


def module_source(declaration, construct_free: bool = True,
                  parts=("parse", "build")) -> str:
    """The source of a module that parses and builds ``declaration``: ``parse(io, this)``,
    ``build(obj, io, this)`` and ``json(io, this)`` (the JSON text of what parse gives) for a
    construct; ``PARSERS``, ``BUILDERS`` and ``JSONS`` dicts for a dict of constructs (same
    keys); only the directions in ``parts``. With ``construct_free`` (code
    for the disk cache), raises ValueError when the code would import a module that imports
    construct."""
    code = c.CodeGen()
    code.construct_free = construct_free
    code.append(PREAMBLE)
    parse, build, json = "parse" in parts, "build" in parts, "json" in parts
    if isinstance(declaration, dict):
        lines = ["PARSERS = {}", "BUILDERS = {}", "JSONS = {}"]
        for key, con in declaration.items():
            if parse:
                lines.append(f"PARSERS[{key!r}] = "
                             f"{callable_of(con._compileparse(code), code)}")
            if build:
                lines.append(f"BUILDERS[{key!r}] = "
                             f"{callable_of(con._compilebuild(code), code, build=True)}")
            if json:
                lines.append(f"JSONS[{key!r}] = {callable_of(json_of(con, code), code)}")
        code.append("\n".join(lines))
    else:
        # (each the generated function itself when it is one: no call in between)
        if parse:
            code.append(f"parse = {callable_of(declaration._compileparse(code), code)}")
        if build:
            code.append(f"build = "
                        f"{callable_of(declaration._compilebuild(code), code, build=True)}")
        if json:
            code.append(f"json = {callable_of(json_of(declaration, code), code)}")
    if code.linkedinstances or code.linkedparsers or code.linkedbuilders:
        raise ValueError("the declaration has parts that do not compile (linked instances)")
    source = code.toString()
    check_names(source)
    return source


def check_names(source: str) -> None:
    """Refuse generated source that names something it neither defines nor imports."""
    tree = ast.parse(source)
    defined = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            if isinstance(node, ast.FunctionDef):
                defined.add(node.name)
            defined.update(a.arg for a in node.args.args)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.alias):
            defined.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, ast.ClassDef):
            defined.add(node.name)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Load)}
    missing = sorted(used - defined)
    if missing:
        raise ValueError(f"generated code names what it does not define: {missing}")


class Compiled:
    """A declaration compiled in memory (construct's ``Compiled``, from :func:`module_source`):
    ``parse(data, **context)``, ``build(obj, **context)``, and the generated
    ``parsefunc(io, this)`` / ``buildfunc(obj, io, this)``."""

    def __init__(self, declaration):
        self.source = module_source(declaration, construct_free=False)
        ns = execute(self.source, "<binlog_schema compiled>",
                     {"__name__": "binlog_schema.format.compiled.memory"})
        self.parsefunc, self.buildfunc = ns["parse"], ns["build"]

    @staticmethod
    def _context(contextkw, parsing):
        context = dict(contextkw)
        context["_parsing"], context["_building"], context["_sizing"] = parsing, not parsing, False
        context["_params"] = context
        return context

    def parse(self, data: bytes, **contextkw):
        from io import BytesIO
        return self.parsefunc(BytesIO(data), self._context(contextkw, True))

    def build(self, obj, **contextkw) -> bytes:
        from io import BytesIO
        out = BytesIO()
        self.buildfunc(obj, out, self._context(contextkw, False))
        return out.getvalue()


def compile_declaration(declaration) -> Compiled:
    """``declaration`` compiled in memory (what construct's ``.compile()`` gives, with this
    package's emit mechanism)."""
    return Compiled(declaration)

"""The declarations as Kaitai Struct: the support behind construct's KSY export.

construct exports a declaration with ``export_ksy()``: every construct gives its Kaitai form
through ``_emitseq`` / ``_emitprimitivetype`` / ``_emitfulltype``. construct's own classes
have them (rough: their expressions are Python text); this package's primitives get theirs
here. A primitive is a pair of parse/build functions (:mod:`.ints`, :mod:`.text`,
:mod:`.bits`, :mod:`.blocks`); beside the pair, in the same module, a third function
``x_ksy(k, *args)`` gives its Kaitai attribute (``k`` is the :class:`Ksy` state, ``args``
the primitive's arguments), and :data:`LEAVES` / :data:`WRAPPERS` say which parse function
each belongs to. Expressions (:class:`~.expressions.Call`, ``Apply``, ``CtxKey``...) name
module-level functions; :data:`EXPRESSIONS` gives each function's Kaitai expression
(the binlog's own rules register theirs: :mod:`binlog_schema.output.kaitai`).

What Kaitai cannot say raises :class:`Unexpressible`; inside a block whose end is known (an
event body, a length-prefixed block) the field and what follows it become raw bytes with a
``doc`` saying why, so the description never loses its place in the stream.

Kaitai's rules this module follows: ``this.x`` of construct becomes ``x`` in the type that
holds the field, ``_parent.x`` from a type nested in it (a Struct, or the block of a
``Bounded``); a field that may be absent is referenced only behind the condition of its
presence (Kaitai has no null); the presence of an "if more bytes" field is ``_io.size > N``
where its offset N is static, as Kaitai cannot re-ask "was the stream at its end here".

Only imported to export (never on the parse path).
"""

from __future__ import annotations

import construct as c
from construct.expr import BinExpr, FuncPath, Path, UniExpr

from . import bits, blocks, ints, text
from .names import NameTable


class Unexpressible(Exception):
    """A layout or rule Kaitai Struct cannot state (the message says which and why)."""


# parse function -> ``f(k, *args)``, the Kaitai attribute of a Leaf made with it
LEAVES: dict = {}
# parse function -> ``f(k, subcon, *args)``, the Kaitai attribute of a Wrapper made with it
WRAPPERS: dict = {}
# function -> ``f(k, *args)``: the Kaitai expression of ``Call(fn, *args)``, and of
# ``Apply(fn, *path)`` (then ``args`` is the path of keys)
EXPRESSIONS: dict = {}
# key of the explicit context -> the event type's instance that holds it
CONTEXT: dict = {}
# name table (its module-level name) -> the name of its Kaitai enum, when not its own
ENUM_NAMES: dict = {}

_FIXED_SIZES = {"u1": 1, "s1": 1, "u2le": 2, "s2le": 2, "u4le": 4, "s4le": 4, "u8le": 8,
                "s8le": 8, "u2be": 2, "s2be": 2, "u4be": 4, "u8be": 8, "f4le": 4, "f8le": 8}


UNSTABLE = "(present when bytes were left)"


class Scope:
    """A Kaitai type being written: its fields (construct name -> presence), the static
    offset of the next field (None once unknown), its instances and params."""

    def __init__(self, name: str, struct: bool, bounded: bool, guard: str | None = None):
        self.name, self.struct, self.bounded, self.guard = name, struct, bounded, guard
        self.fields: dict = {}    # construct name -> presence (a Kaitai condition) or None
        self.offsets: dict = {}   # construct name -> static offset in the type's stream
        self.offset: int | None = 0
        self.instances: dict = {}
        self.suffix: dict = {}    # construct name -> what reads its number (".value")
        self.context = False      # the event type: the context (FDE in force) lives here


class Ksy:
    """The state of one export: the scopes being written (innermost last) and the types
    already named. One per ``KsyGen`` (:func:`state`)."""

    def __init__(self, gen):
        self.gen = gen
        self.scopes: list = []
        self.done: dict = {}  # id(construct) -> the name of its type, for shared types
        self.current: str | None = None  # the name of the field being written

    # ------------------------------------------------------------------ scopes and types

    @property
    def here(self) -> Scope:
        return self.scopes[-1]

    def type(self, name: str, spec: dict) -> str:
        """A shared named type (registered once)."""
        if name not in self.gen.types:
            self.gen.types[name] = spec
        return name

    def enum(self, table) -> str:
        """The Kaitai enum of a :class:`NameTable` (values lower-cased: Kaitai's rule)."""
        attr = table.ref[1] if isinstance(table, NameTable) else None
        if attr is None:
            raise Unexpressible("a name table without a name")
        name = ENUM_NAMES.get(attr, attr.lower())
        if name not in self.gen.enums:
            self.gen.enums[name] = {k: v.lower() for k, v in sorted(
                (k, v) for k, v in table.items() if isinstance(k, int))}
        return name

    def unique(self, base: str) -> str:
        name, n = base, 2
        while name in self.gen.types:
            name, n = f"{base}_{n}", n + 1
        return name

    def nested(self, base: str, fill, struct: bool = False, bounded: bool = False,
               guard: str | None = None, doc: str | None = None, params=None) -> str:
        """A new type named after ``base``: ``fill()`` returns its seq (inside its scope)."""
        name = self.unique(base)
        self.gen.types[name] = {}  # (reserved while it is filled)
        scope = Scope(name, struct, bounded, guard)
        self.scopes.append(scope)
        try:
            seq = fill()
        except BaseException:
            del self.gen.types[name]
            raise
        finally:
            self.scopes.pop()
        spec = {}
        if doc:
            spec["doc"] = doc
        if params:
            spec["params"] = params
        spec["seq"] = seq
        if scope.instances:
            spec["instances"] = scope.instances
        self.gen.types[name] = spec
        return name

    def type_base(self, field: str | None) -> str:
        if not self.scopes or (self.here.context and field):
            return field or "type"
        return f"{self.here.name}_{field}" if field else self.here.name

    def raw(self, why: str) -> dict:
        """The rest of the current block as bytes, ``doc`` saying why (only where the block's
        end is known: elsewhere the bytes after would be lost)."""
        if not self.scopes or not self.here.bounded:
            raise Unexpressible(why)
        return {"size-eos": True, "doc": why}

    def fail(self, why: str):
        raise Unexpressible(why)

    def named(self, table) -> str:
        """The enum of a name table, noted as the current field's (for switch cases and
        comparisons with a name)."""
        enum = self.enum(table)
        if self.current:
            self.key_enums[self.current] = enum
        return enum

    def peek(self, n: int) -> str:
        """An instance of the current type: the next ``n`` bytes where the current field
        starts, fewer (none) at the end of the stream. Read once, at the field (Kaitai
        evaluates an instance when first used, here while the field is read), so a later
        condition reads the same bytes."""
        name = f"peek_{self.current or 'here'}"
        self.here.instances[name] = {
            "pos": "_io.pos", "size": f"_io.size - _io.pos >= {n} ? {n} : 0",
            "doc": f"the {n} bytes where {self.current} starts (read while it is read)"}
        return name

    def length_prefix(self, lenparse) -> dict:
        """The attribute of a length prefix read by ``lenparse`` (a leaf's parse function)."""
        emit = LEAVES.get(lenparse)
        if emit is None:
            raise Unexpressible(f"length prefix {lenparse.__name__}")
        return emit(self)

    def number(self, ref: str, attr: dict) -> str:
        """The number a field holds: ``.value`` of a type that has one (packed_int)."""
        t = attr.get("type")
        spec = self.gen.types.get(t.split("(")[0]) if isinstance(t, str) else None
        return f"{ref}.value" if spec and "value" in spec.get("instances", {}) else ref

    def prefixed(self, sub, length: dict) -> dict:
        """A type of a length prefix (``length``) and the block it sizes (``value``)."""
        field = self.current

        def fill():
            n = self.number("length", length)
            return [{"id": "length", **length}, {"id": "value", **self.block(sub, n)}]
        return {"type": self.nested(self.type_base(field), fill)}

    def block(self, sub, size: str) -> dict:
        """``sub`` read inside a block of ``size`` bytes (raw, said so, when Kaitai cannot
        state it)."""
        field = self.current
        plain = unwrap(sub)
        if isinstance(plain, c.Struct):
            try:
                return {"size": size, "type": self.struct_type(plain, self.type_base(field),
                                                               bounded=True)}
            except Unexpressible as e:
                return {"size": size, "doc": f"kept raw: {e}"}
        box = {}

        def fill():
            attr = self.attr(sub, "value")
            box["attr"] = attr
            return [] if attr is None else [{"id": "value", **attr}]
        try:
            name = self.nested(self.type_base(field), fill, bounded=True)
        except Unexpressible as e:
            return {"size": size, "doc": f"kept raw: {e}"}
        attr = box["attr"]
        if attr is not None and set(attr) <= {"size-eos", "doc"}:  # bytes: no type needed
            del self.gen.types[name]
            return {"size": size, **{k: v for k, v in attr.items() if k != "size-eos"}}
        return {"size": size, "type": name}

    def salvaged(self, sub, corrupt, args) -> dict:
        """A struct whose fields are read unless ``corrupt(*args)`` holds, then ``raw``."""
        struct = unwrap(sub)
        if not isinstance(struct, c.Struct):  # (a body's: its stream is the body)
            raise Unexpressible("a salvaged layout that is not a struct")

        def fill():
            self.here.instances["corrupt"] = {
                "value": self.call(corrupt, args),
                "doc": "a layout the servers reject (the body is then raw): "
                       f"{corrupt.__module__}.{corrupt.__name__}"}
            self.here.guard = "not corrupt"
            seq = self.seq(struct.subcons)
            self.here.guard = None
            seq.append({"id": "raw", "size-eos": True, "if": "corrupt",
                        "doc": "the whole body, when its layout is one the servers reject"})
            return seq
        return {"type": self.nested(self.type_base(self.current), fill, struct=True,
                                    bounded=True)}

    def context(self, key: str) -> str:
        """A value of the explicit context: an instance of the event type (the context
        rules register them, :data:`CONTEXT`)."""
        name = CONTEXT.get(key)
        if name is None:
            raise Unexpressible(f"the context's {key!r}")
        return self.up(self.context_scope()) + name

    # ------------------------------------------------------------------ attributes

    def attr(self, con, field: str | None = None) -> dict | None:
        """The Kaitai attribute (without id) of a construct; None when it reads nothing."""
        con = unwrap(con)
        t = type(con)
        if t is c.Renamed:
            return self.attr(con.subcon, field)
        self.current = field
        if con is c.Pass or t is type(c.Pass):
            return None
        if t is c.FormatField:
            name = con._emitprimitivetype(self.gen, False)
            return {"type": name[:2] if name[1] == "1" else name}
        if t is c.Const:
            return {"contents": list(con.value)}
        if isinstance(con, c.IfThenElse):
            if type(con.elsesubcon) is not type(c.Pass):
                raise Unexpressible("if-then-else of two layouts")
            inner = self.attr(con.thensubcon, field)
            if inner is None:
                return None
            return self.conditional(inner, self.cond(con.condfunc))
        if t is c.Array:
            if not isinstance(con.count, int) and not callable(con.count):
                raise Unexpressible("array count")
            inner = self.attr(con.subcon, field)
            return self.repeated(inner, self.expr(con.count))
        if isinstance(con, c.Switch):
            return self.switch(con, field)
        if isinstance(con, c.Struct):
            return {"type": self.struct_type(con, self.type_base(field))}
        emit = getattr(con, "_emitfulltype", None)
        try:
            out = emit(self.gen, False)
        except NotImplementedError:
            raise Unexpressible(f"{t.__name__} has no Kaitai form") from None
        return out

    def conditional(self, attr: dict, cond: str) -> dict:
        out = dict(attr)
        out["if"] = f"({out['if']}) and ({cond})" if "if" in out else cond
        return out

    def repeated(self, attr: dict, count: str) -> dict:
        if "repeat" in attr:  # an array of arrays: a type per element
            inner = attr
            name = self.nested(self.type_base("item"), lambda: [{"id": "items", **inner}])
            attr = {"type": name}
        return {**attr, "repeat": "expr", "repeat-expr": count}

    def switch(self, con, field) -> dict:
        """construct's Switch: ``switch-on`` its key, a type per case (a case that reads
        nothing is an empty type). A case that is not a type of its own (an int, bytes)
        becomes a one-field type."""
        cases = {}
        for key, sc in con.cases.items():
            cases[self.case_key(key, con.keyfunc)] = self.case_type(
                sc, f"{field}_{key}".lower())
        default = con.default
        out = {"type": {"switch-on": self.expr(con.keyfunc), "cases": cases}}
        if default is not None and unwrap(default) is not c.Pass and \
                type(unwrap(default)) is not type(c.Pass):
            try:
                cases["_"] = self.case_type(default, f"{field}_default")
            except Unexpressible as e:
                raise Unexpressible(f"the switch's default case: {e}") from None
        return out

    def case_key(self, key, keyfunc) -> str:
        if isinstance(key, bool):
            return "true" if key else "false"
        if isinstance(key, int):
            return str(key)
        keys = _path_key(keyfunc)
        enum = self.key_enums.get(keys[-1]) if keys else None
        if enum is None:
            raise Unexpressible(f"switch case {key!r}: not a number")
        return f"{enum}::{key.lower()}"

    @property
    def key_enums(self) -> dict:
        """Fields (construct name) whose value is a name of an enum: name -> enum."""
        return self.here.__dict__.setdefault("enums", {})

    def case_type(self, sc, base: str, bounded: bool = False) -> str:
        """The name of a type that reads ``sc`` (a Struct's own, or a one-field wrapper);
        ``bounded``: its stream is its own (a sized attribute's)."""
        sc = unwrap(sc)
        if isinstance(sc, c.Struct):
            return self.struct_type(sc, self.type_base(base), bounded=bounded)
        if sc is c.Pass or type(sc) is type(c.Pass):
            return self.type("nothing", {"doc": "no bytes", "seq": []})
        attr = self.attr(sc, base)
        if attr is None:
            return self.type("nothing", {"doc": "no bytes", "seq": []})
        if list(attr) == ["type"] and isinstance(attr["type"], str) \
                and attr["type"] in self.gen.types:
            return attr["type"]
        return self.nested(self.type_base(base), lambda: [{"id": "value", **attr}],
                           bounded=bounded)

    def struct_type(self, struct, base: str, bounded: bool = False, guard=None,
                    doc=None) -> str:
        return self.nested(base, lambda: self.seq(struct.subcons), struct=True,
                           bounded=bounded, guard=guard, doc=doc)

    def seq(self, subcons) -> list:
        """The seq of a Struct's fields in the current scope (a field Kaitai cannot state
        turns the rest of a bounded block raw)."""
        scope = self.here
        out = []
        subcons = list(subcons)
        for i, sc in enumerate(subcons):
            name = sc.name
            try:
                attr = self.attr(sc, name)
            except Unexpressible as e:
                last = all(_reads_nothing(s) for s in subcons[i + 1:])
                fid = name if last and name else f"rest_from_{name or 'here'}"
                why = f"kept raw: {e}" + ("" if last else "; the fields after it too")
                out.append({"id": fid, **self.raw(why)})
                scope.offset = None
                break
            if attr is None:
                continue
            if scope.guard:
                attr = self.conditional(attr, scope.guard)
            unstable = attr.pop("_unstable", False)
            doc = getattr(sc, "docs", "") or ""
            entry = {"id": name, **attr} if name else dict(attr)
            if doc and "doc" not in entry:
                entry["doc"] = doc
            out.append(entry)
            if name:
                scope.fields[name] = UNSTABLE if unstable else entry.get("if")
                if self.number("x", attr) != "x":
                    scope.suffix[name] = ".value"
                if scope.offset is not None:
                    scope.offsets[name] = scope.offset
            scope.offset = _advance(scope.offset, entry)
        return out

    # ------------------------------------------------------------------ expressions

    def up(self, scope: Scope) -> str:
        """``_parent.`` hops from the current type to ``scope``'s."""
        i = self.scopes.index(scope)
        return "_parent." * (len(self.scopes) - 1 - i)

    def struct_scope(self, ups: int) -> Scope:
        """The scope of the construct context ``this`` (``ups``: how many ``_`` up)."""
        structs = [s for s in self.scopes if s.struct]
        if len(structs) <= ups:
            raise Unexpressible("a reference above the outermost struct")
        return structs[-1 - ups]

    def context_scope(self) -> Scope:
        for s in reversed(self.scopes):
            if s.context:
                return s
        raise Unexpressible("a value of the context outside an event")

    def path(self, keys, guards: list | None = None) -> str:
        """The Kaitai reference of the field at ``keys`` (``_`` to go up a struct)."""
        keys = list(keys)
        ups = 0
        while keys and keys[0] == "_":
            keys.pop(0)
            ups += 1
        if not keys:
            raise Unexpressible("a reference to a whole struct")
        scope = self.struct_scope(ups)
        name = keys[0]
        if name not in scope.fields:
            raise Unexpressible(f"a reference to {name!r}, not a field read before")
        prefix = self.up(scope)
        presence = scope.fields[name]
        if guards is not None and presence is UNSTABLE:
            raise Unexpressible(f"{name!r} is present when bytes were left, which Kaitai "
                                "cannot ask again later")
        if guards is not None and presence is not None:
            guards.append(_rebase(presence, prefix))
        return prefix + ".".join(keys) + (scope.suffix.get(name, "") if len(keys) == 1
                                          else "")

    def equals(self, path, value, negate, guards) -> str:
        """A field against a value (a name: its enum's)."""
        ref = self.path(path, guards)
        if isinstance(value, str):
            keys = list(path)
            ups = 0
            while keys and keys[0] == "_":
                keys.pop(0)
                ups += 1
            enum = self.struct_scope(ups).__dict__.get("enums", {}).get(keys[-1])
            if enum is None:
                raise Unexpressible(f"{keys[-1]!r} compared with a name, not an enum")
            rhs = f"{enum}::{value.lower()}"
        else:
            rhs = self._expr(value, guards)
        return f"({ref} {'!=' if negate else '=='} {rhs})"

    def offset_of(self, keys) -> int:
        """The static offset of a field of the current struct (its stream its own)."""
        scope = self.struct_scope(0)
        if not scope.bounded or keys[0] not in scope.offsets:
            raise Unexpressible(f"the offset of {keys[0]!r} is not static")
        return scope.offsets[keys[0]]

    def cond(self, e) -> str:
        """A condition: the expression, behind the presence of the fields it reads."""
        guards: list = []
        text = self._expr(e, guards)
        guards = list(dict.fromkeys(guards))
        return " and ".join([f"({g})" for g in guards] + [f"({text})" if guards else text])

    def expr(self, e) -> str:
        """A value (its fields must be present)."""
        return self._expr(e, None)

    def value(self, e):
        """A value: an int as it is (a size, a count), else its expression."""
        return e if isinstance(e, int) and not isinstance(e, bool) else self._expr(e, None)

    def _expr(self, e, guards) -> str:
        if isinstance(e, bool):
            return "true" if e else "false"
        if isinstance(e, int):
            return str(e)
        if isinstance(e, str):
            return '"' + e.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(e, Path):
            return self.path(_path_keys(e), guards)
        if isinstance(e, BinExpr):
            op = _BINOPS.get(e.op)
            if op is None:
                raise Unexpressible(f"operator {e.op}")
            return f"({self._expr(e.lhs, guards)} {op} {self._expr(e.rhs, guards)})"
        if isinstance(e, UniExpr):
            if e.op is _NOT:
                return f"not ({self._expr(e.operand, guards)})"
            if e.op is _NEG:
                return f"-({self._expr(e.operand, guards)})"
            raise Unexpressible(f"operator {e.op}")
        if isinstance(e, FuncPath):
            func, operand = e._FuncPath__func, e._FuncPath__operand
            if func is len and operand is not None:
                inner = self._expr(operand, guards)
                return f"{inner}.size"
            raise Unexpressible(f"function {func!r} in an expression")
        emit = getattr(e, "ksy_expr", None)
        if emit is not None:
            return emit(self, guards)
        raise Unexpressible(f"expression {type(e).__name__}")

    def call(self, fn, args, guards=None) -> str:
        emit = EXPRESSIONS.get(fn)
        if emit is None:
            raise Unexpressible(f"the rule {fn.__module__}.{fn.__name__} has no Kaitai form")
        return emit(self, *args)


import operator as _op  # noqa: E402

_BINOPS = {_op.eq: "==", _op.ne: "!=", _op.lt: "<", _op.le: "<=", _op.gt: ">", _op.ge: ">=",
           _op.add: "+", _op.sub: "-", _op.mul: "*", _op.floordiv: "/", _op.mod: "%",
           _op.and_: "&", _op.or_: "|", _op.xor: "^", _op.lshift: "<<", _op.rshift: ">>"}
_NOT = _op.not_
_NEG = _op.neg


def _path_keys(p) -> list:
    keys = []
    while p._Path__parent is not None:
        keys.append(p._Path__field)
        p = p._Path__parent
    return keys[::-1]


def _path_key(e):
    return tuple(_path_keys(e)) if isinstance(e, Path) else None


def _rebase(cond: str, prefix: str) -> str:
    """A presence condition written in its own type, read from ``prefix`` away."""
    if not prefix:
        return cond
    import re
    # names (not after a dot, not keywords or literals) get the prefix
    return re.sub(r"(?<![.\w])(?!(?:and|or|not|true|false)\b)([a-z_][a-z0-9_]*)",
                  lambda m: prefix + m.group(1), cond)


def unwrap(con):
    """What parses for a construct: Rebuild and Default parse their subcon."""
    while isinstance(con, (c.Rebuild, c.Default)):
        con = con.subcon
    return con


def _reads_nothing(sc) -> bool:
    sc = unwrap(sc)
    if type(sc) is c.Renamed:
        return _reads_nothing(sc.subcon)
    return getattr(type(sc), "reads_nothing", False)  # (a BuildOnlyLeaf)


def _advance(offset, entry):
    if offset is None or "if" in entry or "repeat" in entry:
        return None
    if "contents" in entry:
        return offset + len(entry["contents"])
    t = entry.get("type")
    if isinstance(t, str) and t in _FIXED_SIZES and "size" not in entry:
        return offset + _FIXED_SIZES[t]
    if t is None and isinstance(entry.get("size"), int):
        return offset + entry["size"]
    if isinstance(t, str) and isinstance(entry.get("size"), int):
        return offset + entry["size"]
    return None


def leaf(parse, args, gen) -> dict | None:
    """The attribute of a :class:`~.leaves.Leaf` made with ``parse`` and ``args`` (the
    emitter beside ``parse``)."""
    emit = LEAVES.get(parse)
    if emit is None:
        raise Unexpressible(f"{parse.__module__}.{parse.__name__} has no Kaitai form")
    return emit(state(gen), *args)


def wrapper(parse, subcon, args, gen) -> dict | None:
    """The attribute of a :class:`~.leaves.Wrapper` around ``subcon``."""
    emit = WRAPPERS.get(parse)
    if emit is None:
        raise Unexpressible(f"{parse.__module__}.{parse.__name__} has no Kaitai form")
    return emit(state(gen), subcon, *args)


def state(gen) -> Ksy:
    """The export's state on construct's ``KsyGen`` (made at its first use)."""
    k = getattr(gen, "binlog_ksy", None)
    if k is None:
        k = gen.binlog_ksy = Ksy(gen)
    return k


# --------------------------------------------------------------------------------------
# the emitters of the construct_ext primitives (each beside its parse/build functions)

LEAVES.update({
    ints.packed_parse: ints.packed_ksy,
    ints.number_parse: ints.packed_ksy,
    ints.count_parse: ints.count_ksy,
    ints.uint_parse: ints.uint_ksy,
    ints.u8_parse: ints.u8_ksy,
    ints.code_parse: ints.code_ksy,
    ints.codes_parse: ints.codes_ksy,
    ints.flags_parse: ints.flags_ksy,
    ints.nzflags_parse: ints.nzflags_ksy,
    ints.uuid_parse: ints.uuid_ksy,
    ints.pair_parse: ints.pair_ksy,
    text.bytes_parse: text.bytes_ksy,
    text.greedybytes_parse: text.greedybytes_ksy,
    text.bytelist_parse: text.bytelist_ksy,
    text.leaving_parse: text.leaving_ksy,
    text.text_parse: text.text_ksy,
    text.textn_parse: text.textn_ksy,
    text.sizedtext_parse: text.sizedtext_ksy,
    text.cstr_parse: text.cstr_ksy,
    text.fixed_text_parse: text.fixed_text_ksy,
    bits.bitmap_parse: bits.bitmap_ksy,
    blocks.padto_parse: blocks.padto_ksy,
    blocks.buildcheck_parse: blocks.buildcheck_ksy,
})
WRAPPERS.update({
    blocks.bounded_parse: blocks.bounded_ksy,
    blocks.bounded_text_parse: blocks.bounded_ksy,
    blocks.sized_parse: blocks.sized_ksy,
    blocks.ifmore_parse: blocks.ifmore_ksy,
    blocks.salvage_parse: blocks.salvage_ksy,
})

"""The compiled ``Struct``: construct's Struct with leaner generated code and a third
direction, JSON, and the helpers its code generation uses: runs of fixed-size fields read by
one unpack (:func:`_fixed_runs`), reads of fields parsed before from their locals
(:func:`_local_reads`), the JSON slot of each field (:func:`_fixed_json`, :func:`_value_json`).

construct's compile protocol is text: a construct's ``_compileparse(code)`` returns the source
of an expression, and construct's own classes (``Array``, ``Const``, ``Prefixed``...) and its
``this.x`` expressions (an ``Array``'s count, a ``len_`` to rebuild, an ``If``'s condition)
write ``this['x']`` into it themselves. So the lean struct finds the reads of its own fields in
the expressions its fields emit (``this['x']`` replaced by the local ``_fN``), and whether an
expression hands the whole context on (a bare ``this``: then the nested context must hold the
fields parsed so far) with :data:`_BARE_THIS`. The expressions of this package
(:mod:`.expressions`) could report their field reads to the compilation instead, but
construct's ``this`` expressions would not, so the one reliable place to see every read stays
the emitted text.
"""

from __future__ import annotations

import re
import struct as _struct

import construct as c

from . import jsontext
from .codegen import ref
from .containers import IfMoreWrapper
from .leaves import Compiles, Leaf


class Struct(Compiles, c.Struct):
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
    return con.subcon if isinstance(con, c.Rebuild) else con


def _fixed_format(con) -> str:
    con = _parsed_as(con)
    return con.fmtstr[1:] if type(con) is c.FormatField else con.unpacked[0]


def _fixed_value(code, con, var) -> str:
    """The value of a fixed run's member from what the unpack gave (``var``)."""
    con = _parsed_as(con)
    if type(con) is c.FormatField:
        return var
    return f"{ref(con.unpacked[1], code)}({var}{con.emit_args(code)})"


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
    if len(con.unpacked) > 2:  # (its JSON straight from the unpacked value)
        return "%s", f"{ref(con.unpacked[2], code)}({var}{con.emit_args(code)})"
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
    if isinstance(con, c.IfThenElse) and type(con.elsesubcon) is type(c.Pass):
        optional = con.thensubcon
    elif t is IfMoreWrapper:
        optional = con.subcon
    if isinstance(con, Leaf) and con.jsonfunc is not None:
        return "%s", f"{ref(con.jsonfunc, code)}({var}{con.emit_args(code)})"
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
                or (isinstance(inner, Leaf) and (inner.unpacked or (None,))[0] is not None)):
            run.append(sc)
            continue
        out.extend([run] if len(run) > 1 else run)
        run = []
        out.append(sc)
    out.extend([run] if len(run) > 1 else run)
    return out

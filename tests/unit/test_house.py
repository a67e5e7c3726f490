"""The house rules, checked on the source (by its AST, nothing of the package imported):

* imports point one way: no import cycle in the package (imports at module level and inside
  functions alike), nor in fuzz/; no import of a higher layer (docs/architecture.md's layer
  table);
* a module's private names stay in it: no ``from x import _y`` of the package, no
  ``mod._name`` on a module of the package, no ``obj._attr`` of a name that only another
  module of the package defines (construct's own protocol excepted, listed below);
* one fact, one place: the event type codes are written only in ``format/facts/codes.py`` (no other
  table of them, no comparison of a type code against a number elsewhere); the server version
  is read only in ``format/facts/flavor.py``;
* the command line is made from its declarations: no argparse private name (``_actions``,
  ``_SubParsersAction``, ...) in the package or ``scripts/``.

Each test lists every violation it finds, with ``file:line``.
"""

from __future__ import annotations

import ast
import functools
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
PACKAGE = "binlog_schema"


# --------------------------------------------------------------------------- the sources


class Module:
    def __init__(self, name: str, path: pathlib.Path, is_package: bool):
        self.name, self.path, self.is_package = name, path, is_package
        self.tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        self.rel = path.relative_to(ROOT).as_posix()

    def where(self, node) -> str:
        return f"{self.rel}:{node.lineno}"

    def resolve(self, node: ast.ImportFrom) -> str:
        """The absolute module name of a ``from ... import``'s source."""
        if not node.level:
            return node.module or ""
        package = self.name if self.is_package else self.name.rpartition(".")[0]
        parts = package.split(".")
        base = parts[:len(parts) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))


@functools.cache
def modules_of(top: str) -> dict:
    out = {}
    for path in sorted((ROOT / top).rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        out[".".join(parts)] = Module(".".join(parts), path, is_package)
    return out


def _type_checking(node) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_nodes(tree):
    """Every import of a module, at module level or in a function or class (but not under
    ``if TYPE_CHECKING:``, which never runs)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child):
                stack.extend(child.orelse)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child
            stack.append(child)


# --------------------------------------------------------------------------- import graph


def import_graph(mods: dict) -> dict:
    """module -> {imported module of the same tree: file:line of the first such import}.
    ``from p import x`` points at ``p.x`` when that is a module, else at ``p``; ``import a.b``
    at ``a.b``. A module also points at its package: importing ``p.x`` runs ``p/__init__.py``
    first, so a package whose ``__init__`` imports its own modules (at load or in a function)
    is a cycle: a package re-exports its modules' names lazily (a module ``__getattr__`` with
    ``importlib``, as ``binlog_schema/__init__.py`` does), which this graph does not see, as
    it sees no ``importlib`` import."""
    graph: dict = {name: {} for name in mods}
    for name, mod in mods.items():
        package = name.rpartition(".")[0]
        if package in mods:
            graph[name][package] = f"{mod.rel}:1 (a module runs its package's __init__ first)"
        for node in import_nodes(mod.tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                source = mod.resolve(node)
                for a in node.names:
                    sub = f"{source}.{a.name}"
                    targets.append(sub if sub in mods else source)
            for target in targets:
                while target and target not in mods:  # (import a.b.name: the module a.b)
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].setdefault(target, mod.where(node))
    return graph


def cycles(graph: dict) -> list:
    """The strongly connected components of more than one module (Tarjan), each as one cycle
    through it, with where each of its imports is."""
    index: dict = {}
    low: dict = {}
    on: set = set()
    stack: list = []
    comps: list = []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(graph[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    out = []
    for comp in comps:
        members = set(comp)
        # one cycle through the component: a shortest path back to its first module
        start = comp[0]
        paths = {start: [start]}
        queue = [start]
        cycle = None
        while queue and cycle is None:
            v = queue.pop(0)
            for w in sorted(graph[v]):
                if w == start:
                    cycle = paths[v] + [start]
                    break
                if w in members and w not in paths:
                    paths[w] = paths[v] + [w]
                    queue.append(w)
        steps = [f"{a} -> {b} ({graph[a][b]})" for a, b in zip(cycle, cycle[1:])]
        out.append(f"cycle among {len(comp)} modules {comp}:\n    " + "\n    ".join(steps))
    return out


def test_no_import_cycle_in_the_package():
    found = cycles(import_graph(modules_of(PACKAGE)))
    assert not found, f"{len(found)} import cycles:\n" + "\n".join(found)


def test_no_import_cycle_in_fuzz():
    found = cycles(import_graph(modules_of("fuzz")))
    assert not found, f"{len(found)} import cycles:\n" + "\n".join(found)


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b": "a.py:1"}, "b": {"c": "b.py:2"}, "c": {"a": "c.py:3"}, "d": {"a": "d:1"}}
    (found,) = cycles(graph)
    assert "a -> b (a.py:1)" in found and "c -> a (c.py:3)" in found and "'d'" not in found


# --------------------------------------------------------------------------- layers

ARCHITECTURE = ROOT / "docs" / "architecture.md"


def layer_table(text: str) -> dict:
    """docs/architecture.md's layer table: path under the package (``format/facts/``,
    ``cli.py``) -> rank. A row is ``| rank | `path`, `path` | what ... |``."""
    import re
    table = {}
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0].isdigit():
            for path in re.findall(r"`([^`]+)`", cells[1]):
                table[path] = int(cells[0])
    return table


def layer_of(rel: str, table: dict):
    """The rank of the module at ``rel`` (a path under the package): its longest listed
    folder, or its own file; None when the table does not place it."""
    best = None
    for path, rank in table.items():
        if rel == path or (path.endswith("/") and rel.startswith(path)):
            if best is None or len(path) > len(best[0]):
                best = (path, rank)
    return None if best is None else best[1]


def upward_imports(mods: dict, table: dict) -> list:
    """Every import (at module level or in a function) of a module of a higher layer, and
    every module the table does not place."""
    prefix = f"{PACKAGE}/"
    rank = {}
    out = []
    for name, mod in mods.items():
        rel = mod.rel[len(prefix):] if mod.rel.startswith(prefix) else mod.rel
        rank[name] = layer_of(rel, table)
        if rank[name] is None:
            out.append(f"{mod.rel}: in no layer of docs/architecture.md's table")
    for name, targets in import_graph(mods).items():
        for target, where in targets.items():
            if name.startswith(target + ".") and "its package's __init__" in where:
                continue   # (the package it is in: not an import the module makes)
            if None not in (rank[name], rank[target]) and rank[target] > rank[name]:
                out.append(f"{where}: {name} (layer {rank[name]}) imports {target} "
                           f"(layer {rank[target]})")
    return sorted(out)


def test_imports_point_down_the_layers():
    table = layer_table(ARCHITECTURE.read_text(encoding="utf-8"))
    assert len(set(table.values())) >= 5, table
    missing = [p for p in table if not (ROOT / PACKAGE / p).exists()]
    assert not missing, f"docs/architecture.md's layer table names what is not there: {missing}"
    found = upward_imports(modules_of(PACKAGE), table)
    assert not found, f"{len(found)} imports run up the layers:\n" + "\n".join(found)


def test_the_layer_check_finds_an_upward_import(tmp_path):
    table = layer_table("## Layers\n| rank | where |\n| --- | --- |\n| 1 | `low/` |\n"
                        "| 2 | `high/`, `top.py` |\n## Next\n| 9 | `ignored/` |\n")
    assert table == {"low/": 1, "high/": 2, "top.py": 2}

    class Fake(Module):
        def __init__(self, name, src, rel):
            self.name, self.is_package, self.rel = name, False, rel
            self.tree = ast.parse(src)
    mods = {f"{PACKAGE}.low.a": Fake(f"{PACKAGE}.low.a", "def f():\n    from ..high import b\n",
                                     f"{PACKAGE}/low/a.py"),
            f"{PACKAGE}.high.b": Fake(f"{PACKAGE}.high.b", "from ..low import a\n",
                                      f"{PACKAGE}/high/b.py"),
            f"{PACKAGE}.odd": Fake(f"{PACKAGE}.odd", "", f"{PACKAGE}/odd.py")}
    found = upward_imports(mods, table)
    assert found == [f"{PACKAGE}/low/a.py:2: {PACKAGE}.low.a (layer 1) imports "
                     f"{PACKAGE}.high.b (layer 2)",
                     f"{PACKAGE}/odd.py: in no layer of docs/architecture.md's table"]


# --------------------------------------------------------------------------- private names

# construct's protocol: the methods a construct subclass overrides and calls on its
# subconstructs (``self.subcon._parse(...)``, ``sub._compileparse(code)``...). They are
# construct's API for extending it, not a private name of one of our modules.
CONSTRUCT_PROTOCOL = frozenset({
    # construct's context keys, read as attributes (``this._params``, ``ctx._io``...)
    "_params", "_io", "_root", "_parsing", "_building", "_sizing", "_subcons", "_index",
    "_obj",
    # construct's methods (construct/core.py defines each): what a subclass overrides and
    # calls on its subconstructs
    "_parse", "_build", "_sizeof", "_actualsize", "_parsereport", "_compileparse",
    "_compilebuild", "_compileinstance", "_emitparse", "_emitbuild", "_emitprimitivetype",
    "_emitfulltype", "_emitseq",
    # (construct's Adapter ``_decode``/``_encode`` are left out: this package's own classes
    # use the names too, and a call on another object than ``self`` is checked)
})


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) \
        and name != "_"


def _defined_names(tree) -> set:
    """The names a module defines: functions, classes, (module or class) assignments,
    attributes it assigns (``x._a = ...``) and the parameters it names."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.alias):
            out.add((node.asname or node.name).split(".")[0])
    return out


def _slots_and_fields(tree) -> set:
    """Private attribute names a module declares without assigning them: ``__slots__``
    strings and annotated class fields (records)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and
                                                t.id == "__slots__" for t in node.targets):
            for c in ast.walk(node.value):
                if isinstance(c, ast.Constant) and isinstance(c.value, str):
                    out.add(c.value)
    return out


def _module_aliases(mod: Module, mods: dict) -> dict:
    """Local name -> module of the package, for the names a module binds to modules."""
    out = {}
    for node in import_nodes(mod.tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    if a.name in mods:
                        out[a.asname] = a.name
                elif a.name.split(".")[0] == PACKAGE:
                    out[PACKAGE] = PACKAGE
        else:
            source = mod.resolve(node)
            for a in node.names:
                if f"{source}.{a.name}" in mods:
                    out[a.asname or a.name] = f"{source}.{a.name}"
    return out


def _dotted_module(node, aliases, mods):
    """The package module an expression names (``mod``, ``binlog_schema.x.y``), else None."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _dotted_module(node.value, aliases, mods)
        if base is not None and f"{base}.{node.attr}" in mods:
            return f"{base}.{node.attr}"
    return None


def private_uses(mods: dict, top: str) -> list:
    defined = {name: _defined_names(m.tree) | _slots_and_fields(m.tree)
               for name, m in mods.items()}
    definers: dict = {}
    for name, names in defined.items():
        for n in names:
            if _private(n):
                definers.setdefault(n, set()).add(name)
    out = []
    for name, mod in mods.items():
        aliases = _module_aliases(mod, mods)
        for node in import_nodes(mod.tree):
            if isinstance(node, ast.ImportFrom):
                source = mod.resolve(node)
                if source.split(".")[0] != top:
                    continue
                for a in node.names:
                    if _private(a.name) and f"{source}.{a.name}" not in mods:
                        out.append(f"{mod.where(node)}: from {source} import {a.name}")
        for node in ast.walk(mod.tree):
            if not isinstance(node, ast.Attribute) or not _private(node.attr):
                continue
            target = _dotted_module(node.value, aliases, mods)
            if target is not None:
                if target != name:
                    out.append(f"{mod.where(node)}: {ast.unparse(node)} (a private name of "
                               f"module {target})")
                continue
            if node.attr in CONSTRUCT_PROTOCOL:
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            others = definers.get(node.attr, set()) - {name}
            if others and node.attr not in defined[name]:
                out.append(f"{mod.where(node)}: {ast.unparse(node)} ({node.attr} is defined "
                           f"only in {', '.join(sorted(others))})")
    return sorted(set(out), key=_by_place)


def _by_place(text: str):
    place = text.split(": ", 1)[0]
    path, _, line = place.rpartition(":")
    return (path, int(line) if line.isdigit() else 0, text)


def test_no_private_name_is_used_across_modules():
    found = private_uses(modules_of(PACKAGE), PACKAGE)
    assert not found, f"{len(found)} private names used across modules:\n" + "\n".join(found)


# --------------------------------------------------------------------------- one fact, one place

CODES_MODULE = f"{PACKAGE}.format.facts.codes"
FLAVOR_MODULE = f"{PACKAGE}.format.facts.flavor"


def _int(node, among=None) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and \
        (among is None or node.value in among)


def _ints(node, among) -> bool:
    """An int literal of ``among``, or a tuple/list/set of ints, one of them of ``among``
    (a ``code in (15, 19)``)."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_int(e) for e in node.elts) and \
            any(_int(e, among) for e in node.elts)
    return _int(node, among)


# the names an event type code goes by (a name, an attribute, a string key); a number compared
# with one of them that is an event type code is that code written as a literal
CODE_NAMES = frozenset({"type_code", "event_type", "type", "code", "kind", "_kind", "event_code",
                        "ev_type", "event_kind", "type_num", "typecode", "kinds", "codes"})
# comparisons of such a name with a number that is not an event type code: (file, code)
NOT_EVENT_CODES = {
    ("binlog_schema/construct_ext/ints.py", "code == 1"):
        "a GTID set's format code (GTID_SET_FORMATS: 1 = TAGGED), not an event type",
    ("binlog_schema/format/facts/compression.py", "kind != 0"):
        "a TRANSACTION_PAYLOAD's compression type (0 = ZSTD), not an event type",
}


def _event_codes() -> frozenset:
    codes = modules_of(PACKAGE)[CODES_MODULE].tree
    table = next(n for n in ast.walk(codes) if _event_code_table(n))
    return frozenset(k.value for k in table.keys)


def _names_a_code(node) -> bool:
    """An expression that reads as an event type code: a name or attribute (or a subscript
    by a string key) named as one (:data:`CODE_NAMES`)."""
    if isinstance(node, ast.Name):
        text = node.id
    elif isinstance(node, ast.Attribute):
        text = node.attr
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and \
            isinstance(node.slice.value, str):
        text = node.slice.value
    else:
        return False
    return text.lower() in CODE_NAMES


def _event_code_table(node) -> bool:
    """A dict literal of int keys and ``*_EVENT`` names (a table of event type codes)."""
    if not isinstance(node, ast.Dict) or len(node.keys) < 3:
        return False
    return all(_int(k) for k in node.keys) and all(
        isinstance(v, ast.Constant) and isinstance(v.value, str) and "EVENT" in v.value
        for v in node.values)


def event_code_literals(mods: dict, among=None) -> list:
    among = _event_codes() if among is None else among
    out = []
    for name, mod in mods.items():
        if name == CODES_MODULE:
            continue
        for node in ast.walk(mod.tree):
            if _event_code_table(node):
                out.append(f"{mod.where(node)}: a table of event type codes")
            elif isinstance(node, ast.Assign) and _int(node.value) and any(
                    isinstance(t, ast.Name) and t.id.endswith(("_EVENT", "_EVENT_V1"))
                    for t in node.targets):
                out.append(f"{mod.where(node)}: {ast.unparse(node)}")
            elif isinstance(node, ast.Compare):
                sides = [node.left] + node.comparators
                for (a, b), op in zip(zip(sides, sides[1:]), node.ops):
                    if not isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
                        continue
                    if (_names_a_code(a) and _ints(b, among)) or \
                            (_names_a_code(b) and _int(a, among)):
                        if (mod.rel, ast.unparse(node)) not in NOT_EVENT_CODES:
                            out.append(f"{mod.where(node)}: {ast.unparse(node)}")
                        break
    return sorted(out, key=_by_place)


def test_event_type_codes_are_written_only_in_codes():
    mods = modules_of(PACKAGE)
    assert any(_event_code_table(n) for n in ast.walk(mods[CODES_MODULE].tree))
    found = event_code_literals(mods)
    assert not found, f"{len(found)} event type codes written outside format/facts/codes.py:\n" + \
        "\n".join(found)


def _is_mariadb(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and \
        "mariadb" in node.value.lower()


def _names_a_version(node) -> bool:
    while isinstance(node, (ast.Call, ast.Subscript)):  # (x.get("server_version"), v[0])
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and _server_version(node.args[0].value):
            return True
        node = node.func if isinstance(node, ast.Call) else node.value
    if isinstance(node, ast.Name):
        return _server_version(node.id)
    if isinstance(node, ast.Attribute):
        return _server_version(node.attr) or _names_a_version(node.value)
    return False


def _server_version(text: str) -> bool:
    """A name that may hold a server version (not Java's, Python's, the binlog format's)."""
    text = text.lower()
    return "version" in text and not any(
        w in text for w in ("java", "python", "spark", "binlog_version", "py_version"))


# calls on a name that holds some other version than the server's: (file, code)
NOT_SERVER_VERSIONS = {
    ("binlog_schema/pipeline/driver/session.py", "version.split('.')"):
        "Java's version (JAVA_VERSION of its release file), not a server's",
}


def version_parsing(mods: dict) -> list:
    out = []
    for name, mod in mods.items():
        if name == FLAVOR_MODULE:
            continue
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.Compare) and _is_mariadb(node.left) and \
                    any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
                out.append(f"{mod.where(node)}: {ast.unparse(node)}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("lower", "split", "startswith", "partition") and \
                    _names_a_version(node.func.value):
                if node.func.attr in ("lower", "startswith") or (
                        node.args and isinstance(node.args[0], ast.Constant) and
                        node.args[0].value in (".", "-")):
                    if (mod.rel, ast.unparse(node)) not in NOT_SERVER_VERSIONS:
                        out.append(f"{mod.where(node)}: {ast.unparse(node)}")
    return sorted(out, key=_by_place)


def test_the_server_version_is_read_only_in_flavor():
    found = version_parsing(modules_of(PACKAGE))
    assert not found, f"{len(found)} server versions read outside format/facts/flavor.py:\n" + \
        "\n".join(found)


def test_the_source_checks_see_what_they_look_for():
    """Each check flags its pattern (and the checks are not vacuous)."""
    src = ast.parse(
        "from .x import _y\n"
        "import binlog_schema.pkg.mod as m\n"
        "def f(rec, v, h):\n"
        "    m._z\n"
        "    if rec.kind == 19 or h['type_code'] in (15, 2) or code == 15:\n"
        "        pass\n"
        "    if 'mariadb' in v.lower() or server_version.split('.')[0] == '5':\n"
        "        pass\n"
        "T = {1: 'A_EVENT', 2: 'B_EVENT', 3: 'C_EVENT'}\n")

    class Fake(Module):
        def __init__(self):
            self.name, self.is_package, self.tree, self.rel = \
                f"{PACKAGE}.pkg.a", False, src, "a.py"
    mods = {f"{PACKAGE}.pkg.a": Fake(), f"{PACKAGE}.pkg.mod": Fake()}
    mods[f"{PACKAGE}.pkg.mod"].name = f"{PACKAGE}.pkg.mod"
    assert any("import _y" in v for v in private_uses(mods, PACKAGE))
    assert any("m._z" in v for v in private_uses(mods, PACKAGE))
    codes = event_code_literals({"a": mods[f"{PACKAGE}.pkg.a"]}, frozenset({2, 15, 19}))
    assert len(codes) == 4 and any("table" in v for v in codes)
    assert len(version_parsing({"a": mods[f"{PACKAGE}.pkg.a"]})) == 2


# --------------------------------------------------------------------------- argparse privates


@functools.cache
def argparse_private_names() -> frozenset:
    """The names argparse keeps to itself: its module's (``_SubParsersAction``, ...) and
    those of its parsers and actions (``_actions``, ``_choices_actions``, ...)."""
    import argparse
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    sub.add_parser("x")
    names = set(dir(argparse)) | set(vars(parser)) | set(dir(argparse.ArgumentParser))
    names |= set(vars(sub)) | set(dir(type(sub))) | set(dir(argparse.Action))
    return frozenset(n for n in names if n.startswith("_") and not n.endswith("__"))


def defined_names(mods: dict) -> set:
    """The names the sources give things themselves (functions, classes, attributes and
    variables they set, names as strings): a private name of theirs that argparse happens to
    use too (``_defaults``) is theirs."""
    out = set()
    for mod in mods.values():
        for node in ast.walk(mod.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                out.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
            elif isinstance(node, ast.arg):
                out.add(node.arg)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.add(node.value)
    return out


def argparse_private_uses(mods: dict) -> list:
    """``x._actions``-like attribute reads and ``from argparse import _X`` of argparse's
    private names: the CLI is made from its declarations (``binlog_schema/cli/declare.py``),
    never by reaching into a parser."""
    private = argparse_private_names() - defined_names(mods)
    out = []
    for mod in mods.values():
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.Attribute) and node.attr in private:
                out.append(f"{mod.where(node)}: .{node.attr}")
            elif isinstance(node, ast.ImportFrom) and node.module == "argparse":
                out += [f"{mod.where(node)}: import {a.name}" for a in node.names
                        if a.name in private]
    return out


def test_no_argparse_private_name_is_used():
    mods = {**modules_of(PACKAGE), **modules_of("scripts")}
    found = argparse_private_uses(mods)
    assert not found, f"{len(found)} uses of argparse's private names:\n" + "\n".join(found)


def test_the_argparse_check_sees_what_it_looks_for():
    src = ast.parse("import argparse\n"
                    "from argparse import _SubParsersAction\n"
                    "def f(parser):\n"
                    "    for a in parser._actions:\n"
                    "        if isinstance(a, argparse._SubParsersAction):\n"
                    "            a.type = int\n"
                    "    return parser.parse_args()\n")

    class Fake(Module):
        def __init__(self):
            self.name, self.is_package, self.tree, self.rel = "scripts.x", False, src, "x.py"
    found = argparse_private_uses({"scripts.x": Fake()})
    assert found == ["x.py:2: import _SubParsersAction", "x.py:4: ._actions",
                     "x.py:5: ._SubParsersAction"]

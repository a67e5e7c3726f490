"""The pipeline's rooms (``binlog_schema/pipeline/``), checked on the source as the house tests
check the package (by its AST, nothing imported):

* every module lives in a room (a sub-package), but the package's door (``__init__``), the
  command line (``commands.py``) and the files of any filesystem (``fsio.py``);
* each room says in its docstring what it holds and what it may import;
* imports between rooms point one way, down :data:`ROOMS` (the driver and the jobs use the
  tasks and the tables; the tasks never import the driver);
* every text that names a pipeline module by its dotted path (a Spark conf, a class path, a
  docstring's reference, a docs example) names one that exists: Spark's executors import by
  those names.
"""

from __future__ import annotations

import ast
import re

from .test_house import PACKAGE, ROOT, import_graph, modules_of

PIPELINE = f"{PACKAGE}.pipeline"
# rank of each room, lowest first: a module imports only rooms of lower rank, or its own
ROOMS = {"fsio": 0, "tasks": 1, "tables": 2, "driver": 3, "jobs": 4, "current": 5,
         "sources": 5, "follow": 6, "commands": 7}
OUTSIDE_ROOMS = {"fsio", "commands"}   # modules of the package itself (beside its __init__)


def _room(module: str) -> str | None:
    """The room of a module of the pipeline (None: the package's ``__init__``)."""
    if module == PIPELINE:
        return None
    return module[len(PIPELINE) + 1:].split(".")[0]


def _pipeline_modules() -> dict:
    return {n: m for n, m in modules_of(PACKAGE).items()
            if n == PIPELINE or n.startswith(PIPELINE + ".")}


def test_every_pipeline_module_is_in_a_room():
    loose = []
    for name, mod in _pipeline_modules().items():
        room = _room(name)
        if room is None or room in OUTSIDE_ROOMS:
            continue
        if room not in ROOMS:
            loose.append(f"{mod.rel}: not in a room ({', '.join(sorted(ROOMS))})")
        elif name == f"{PIPELINE}.{room}" and not mod.is_package:
            loose.append(f"{mod.rel}: the room {room!r} is a module, not a folder")
    assert not loose, "\n".join(loose)


def test_each_room_says_what_it_holds_and_may_import():
    mods = _pipeline_modules()
    missing = []
    for room in sorted(set(ROOMS) - OUTSIDE_ROOMS):
        mod = mods.get(f"{PIPELINE}.{room}")
        if mod is None or not mod.is_package:
            missing.append(f"{room}: no package binlog_schema/pipeline/{room}/")
            continue
        doc = ast.get_docstring(mod.tree) or ""
        if "May import" not in doc:
            missing.append(f"{mod.rel}: its docstring does not say what it may import")
    assert not missing, "\n".join(missing)


def test_imports_between_rooms_point_one_way():
    mods = _pipeline_modules()
    graph = import_graph(modules_of(PACKAGE))
    up = []
    for name in mods:
        room = _room(name)
        if room is None:
            continue
        for target, where in graph[name].items():
            if not target.startswith(PIPELINE + "."):
                continue
            other = _room(target)
            if other == room:
                continue
            if ROOMS.get(other, 99) >= ROOMS.get(room, -1):
                up.append(f"{where}: {room} imports {other} ({target})")
    assert not up, "imports up the pipeline's rooms:\n" + "\n".join(up)


# ------------------------------------------------------------------------ names in texts

_DOTTED = re.compile(rf"{re.escape(PIPELINE)}(?:\.\w+)+")


def _defines(mod, name: str) -> bool:
    """Whether ``name`` is bound at the top level of a module (or exported by a package's
    lazy table, as ``binlog_schema.pipeline.decode``)."""
    for node in mod.tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                node.name == name:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and n.id == name:
                        return True
            value = getattr(node, "value", None)
            if isinstance(value, ast.Dict) and any(
                    isinstance(k, ast.Constant) and k.value == name for k in value.keys):
                return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == name for a in node.names):
                return True
    return False


def _stale(text: str, mods: dict) -> list:
    out = []
    for m in _DOTTED.finditer(text):
        parts = m.group(0).split(".")
        k = len(parts)
        while k > 2 and ".".join(parts[:k]) not in mods:
            k -= 1
        module = ".".join(parts[:k])
        rest = parts[k:]
        if rest and not _defines(mods[module], rest[0]):
            out.append(m.group(0))
    return out


def _texts():
    for top in ("binlog_schema", "tests", "benchmarks", "scripts", "fuzz"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if "__pycache__" not in path.parts:
                yield path
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").rglob("*.md"))


def test_texts_name_pipeline_modules_that_exist():
    mods = modules_of(PACKAGE)
    stale = []
    for path in _texts():
        if not path.exists():
            continue
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name in _stale(line, mods):
                stale.append(f"{path.relative_to(ROOT).as_posix()}:{lineno}: {name}")
    assert not stale, "names of no pipeline module or name:\n" + "\n".join(stale)


def test_the_checks_see_what_they_look_for():
    mods = modules_of(PACKAGE)
    gone = PIPELINE + ".daemon"   # (where the daemon was before the rooms)
    assert _stale(f"spark.python.daemon.module={gone}", mods) == [gone]
    assert _stale("binlog_schema.pipeline.tasks.daemon and binlog_schema.pipeline.decode",
                  mods) == []
    assert _room(f"{PIPELINE}.tasks.decode") == "tasks" and _room(PIPELINE) is None


def _unresolved(mods: dict, names: dict) -> list:
    """The imports of ``mods`` (name -> module) that name a module of the package that is
    not among ``names`` (a relative import one dot short after a move, say)."""
    out = []
    for mod in mods.values():
        for node in ast.walk(mod.tree):
            if isinstance(node, ast.ImportFrom):
                source = mod.resolve(node)
            elif isinstance(node, ast.Import):
                source = node.names[0].name
            else:
                continue
            if (source == PACKAGE or source.startswith(PACKAGE + ".")) and source not in names:
                out.append(f"{mod.where(node)}: {source}")
    return out


def test_every_import_in_the_pipeline_names_a_module_that_exists():
    """Imports inside functions run only when called (in a task, on a rare path): one that
    names no module fails there, not at import."""
    mods = modules_of(PACKAGE)
    missing = _unresolved(_pipeline_modules(), mods)
    assert not missing, "imports of no module:\n" + "\n".join(missing)

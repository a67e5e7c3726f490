"""Compiled declarations cached on disk, loaded without construct.

A *unit* is a declaration (or a dict of them) named by ``"module:attribute"`` (or
``"module:attribute[key]"``, one entry of a dict), and the directions it is compiled for
(``parse``, ``build`` or both: a reader loads no builder). The first
process that needs it imports the declaration, compiles it to module source
(:func:`.codegen.module_source`) and stores the source and its bytecode in the cache folder;
every later process loads the bytecode (a millisecond, and no construct import). The file
names carry a key of the sources generated code depends on (each file's path, size and
modification time under ``construct_ext/``, ``format/events/``, ``format/facts/`` and
``wire/protocol/``: the
declarations, the primitives, the format's facts; generated code imports nothing else of the
package),
construct's (where it was found is noted in the folder, per Python environment), and the
Python version: any change compiles anew.

The folder is ``$BINLOG_SCHEMA_CACHE``, else ``$XDG_CACHE_HOME/binlog-schema``, else
``~/.cache/binlog-schema``; ``BINLOG_SCHEMA_CACHE=off`` (or a folder that cannot be written)
compiles in memory in every process instead.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib

from .run import execute

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_KEY: list = []
_LOADED: dict = {}
# how each unit was had in this process: "disk", "compiled" (and stored), "memory"
ORIGIN: dict = {}


def cache_dir() -> str | None:
    env = os.environ.get("BINLOG_SCHEMA_CACHE")
    if env is not None:
        return None if env.lower() in ("", "off", "0", "no") else env
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "binlog-schema")


# what generated code depends on: the declarations, the primitives and the format's facts
_SOURCES = ("construct_ext", os.path.join("format", "events"),
            os.path.join("format", "facts"), os.path.join("wire", "protocol"))


def _stamps(root: str, out: list) -> None:
    with os.scandir(root) as it:
        for entry in it:
            name = entry.name
            if entry.is_dir(follow_symlinks=False):
                if name != "__pycache__" and not name.startswith("."):
                    _stamps(entry.path, out)
            elif name.endswith(".py"):
                st = entry.stat()
                out.append(f"{entry.path[len(_PACKAGE):]}:{st.st_size}:{st.st_mtime_ns}")


def _construct_stamp() -> str:
    """construct's path, size and modification time. Finding it on the path costs more than
    all the other stamps: where it was found is noted in the cache folder, per Python
    environment, and only looked for again when that file is gone."""
    folder = cache_dir()
    note = None if folder is None else os.path.join(folder, "construct-origin-%08x" % zlib.crc32(
        f"{sys.prefix}\n{sys.version}\n{os.pathsep.join(sys.path)}".encode()))
    origin = None
    if note is not None:
        try:
            with open(note) as f:
                origin = f.read()
            st = os.stat(origin)
        except OSError:
            origin = None
    if origin is None:
        from importlib.machinery import PathFinder
        spec = PathFinder.find_spec("construct")
        if spec is None or not spec.origin:
            return "construct:none"
        origin = spec.origin
        st = os.stat(origin)
        if note is not None:
            try:
                os.makedirs(folder, exist_ok=True)
                tmp = f"{note}.{os.getpid()}.tmp"
                with open(tmp, "w") as f:
                    f.write(origin)
                os.replace(tmp, note)
            except OSError:
                pass
    return f"construct:{origin}:{st.st_size}:{st.st_mtime_ns}"


def key() -> str:
    """The key of the sources compiled code depends on (this package's, construct's) and of
    the bytecode format."""
    if not _KEY:
        stamps: list = []
        for sub in _SOURCES:
            _stamps(os.path.join(_PACKAGE, sub), stamps)
        stamps.append(_construct_stamp())
        stamps.sort()
        stamps.append(sys.implementation.cache_tag or "")
        stamps.append(sys.version)
        text = "\n".join(stamps).encode()
        _KEY.append(f"{zlib.crc32(text):08x}{zlib.adler32(text):08x}")
    return _KEY[0]


def load(name: str, spec: str, parts=("parse", "build")) -> dict:
    """The namespace of unit ``name`` (declared at ``spec``, ``"module:attribute"``; compiled
    for the directions in ``parts``)."""
    ns = _LOADED.get(name)
    if ns is not None:
        return ns
    folder = cache_dir()
    path = None if folder is None else os.path.join(folder, f"{name}-{key()}")
    code = None
    if path is not None:
        try:
            with open(path + ".bin", "rb") as f:
                code = marshal.loads(f.read())
            ORIGIN[name] = "disk"
        except (OSError, ValueError, EOFError, TypeError):
            code = None
    if code is None:
        source = generate(spec, parts)
        code = compile(source, f"<binlog_schema compiled {name}>", "exec")
        ORIGIN[name] = "memory"
        if path is not None and _store(folder, path, source, code, name):
            ORIGIN[name] = "compiled"
    ns = execute(code, f"<binlog_schema compiled {name}>",
                 {"__name__": f"binlog_schema.format.compiled.{name}"})
    _LOADED[name] = ns
    return ns


def code_of(source: str, name: str):
    """``source`` compiled (a code object), from the cache folder when compiled before: the
    file is named by a checksum of the source and the Python version (generated source that
    is the same in every process, such as a record class's ``__init__``)."""
    folder = cache_dir()
    text = f"{sys.implementation.cache_tag}\n{sys.version}\n{source}".encode()
    path = None if folder is None else os.path.join(
        folder, f"src.{name}-{zlib.crc32(text):08x}{zlib.adler32(text):08x}")
    if path is not None:
        try:
            with open(path + ".bin", "rb") as f:
                return marshal.loads(f.read())
        except (OSError, ValueError, EOFError, TypeError):
            pass
    code = compile(source, f"<binlog_schema {name}>", "exec")
    if path is not None:
        _store(folder, path, source, code, name)
    return code


def generate(spec: str, parts=("parse", "build")) -> str:
    """Compile the declaration at ``spec`` to module source (imports construct); plain data
    (a dict of numbers and strings, e.g. an index of declarations) becomes ``DATA``."""
    import importlib
    from .codegen import module_source
    module, attr = spec.split(":")
    attr, _, item = attr.partition("[")
    value = getattr(importlib.import_module(module), attr)
    if item:  # "attribute[key]": one entry of a dict (an int key)
        value = value[int(item.rstrip("]"))]
    if isinstance(value, dict) and all(isinstance(v, (str, int)) for v in value.values()):
        return f"DATA = {value!r}\n"
    return module_source(value, parts=parts)


def _store(folder, path, source, code, name) -> bool:
    """Write the source (for reading) and the bytecode, each atomically; keep the folder to
    the newest files (other checkouts or versions may share it). False when the folder
    cannot be written."""
    try:
        os.makedirs(folder, exist_ok=True)
        for suffix, data in ((".py", source.encode()), (".bin", marshal.dumps(code))):
            tmp = f"{path}{suffix}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, path + suffix)
        _prune(folder)
        return True
    except OSError:
        return False


KEEP = 1200  # files kept in the cache folder (the newest)


def _prune(folder) -> None:
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith((".py", ".bin"))
                   and not e.name.startswith("construct-origin")]
        if len(entries) <= KEEP:
            return
        entries.sort(key=lambda e: e.stat().st_mtime_ns)
        for e in entries[:len(entries) - KEEP]:
            os.remove(e.path)
    except OSError:
        pass


def clear() -> None:
    """Forget the units loaded in this process (the next use loads or compiles anew)."""
    _LOADED.clear()
    _KEY.clear()
    ORIGIN.clear()

#!/usr/bin/env python3
"""A compiled accelerator for ``decode --rows``, prototyped and measured (issue 31): what
Cython makes of the rows path, without changing the package.

    .venv/bin/python benchmarks/accelerator.py FILE [FILE ...] [--cython PY] [--repeats N]
        [--variants python,shapes,typed,codecs,hot] [--keep DIR]

``--cython PY``: an interpreter of the same Python version with Cython (and setuptools)
installed, e.g. a throwaway venv (``python -m venv V && V/bin/pip install cython==3.3.1
setuptools``); it needs a C compiler and the Python headers. Nothing here is imported by the
package, and the package is not changed: the variants are made in a temporary folder.

For each FILE, in that folder:

1. ``decode --rows FILE`` runs once with the generated code recorded: every source the row
   images' generators (``format/values/image.py``'s ``compile_image``, ``output/row_images.py``)
   hand to ``construct_ext/run.py``'s ``execute``, one per table shape, with the names of
   its namespace.
2. One Cython module is written holding each source as a factory, ``make(ns)``: the
   namespace's names bound as locals, the generated functions nested in it (closures), so
   that one compiled function serves every table with that source text; ``typed`` adds C
   integer declarations of the read position and lengths. It is built with ``cythonize``.
3. ``codecs`` and ``hot``: a copy of the package with some of its modules compiled by Cython
   in place (an extension module is imported before the ``.py`` beside it): the value codecs
   the generated code calls (``codecs``), or every module of the rows path (``hot``: the
   codecs, the event framing and header parse, the reader, the JSON Lines writer and the
   output), with the typed shapes on top.

Variants, each a whole process ``python benchmarks/accelerator.py --child ...``, with
``BINLOG_SCHEMA_WORKERS=1``: ``python`` (the package as it is: the reference), ``shapes``,
``typed``, ``codecs``, ``hot``. Each variant's output is first checked byte for byte against
the reference's (sha256 of the whole standard output), then the timed turns run every
variant once in turn (standard output to /dev/null), and print per variant the median CPU
seconds of the process (user + system, from ``wait4``) and wall seconds, and the ratio of
the reference's CPU to the variant's (median of the per-turn ratios). Also printed: the build
time of each extension, its size on disk, and the import time of the shapes' extension.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import glob
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# the value codecs and the forms the generated image code calls
CODEC_MODULES = ("format/values/codecs.py", "format/values/temporal.py",
                 "format/values/decimal_bin.py", "format/facts/charsets.py",
                 "format/forms/datetimes.py", "format/forms/decimals.py",
                 "format/forms/members.py", "format/forms/strings.py",
                 "format/forms/integers.py", "format/forms/reals.py",
                 "construct_ext/jsontext.py")
# the rest of decode --rows's path: framing and header parse, reader, rows codec, the JSON
# Lines writer and the output (the declarations' generated code stays Python: it is exec'd)
HOT_MODULES = CODEC_MODULES + (
    "format/facts/framing.py", "format/stream.py", "format/scanning.py",
    "format/event_codec.py", "format/values/rows.py", "format/values/image.py",
    "changes/row_change.py", "construct_ext/ints.py", "construct_ext/bits.py",
    "output/jsonl.py", "output/write.py", "output/row_images.py")
VARIANTS = ("python", "shapes", "typed", "codecs", "hot")
MODULE = "rows_accel"


# ---------------------------------------------------------------------------------------
# the child: decode --rows with the generated sources recorded, or replaced by the extension


def _child(mode: str, folder: str, argv: list) -> int:
    from binlog_schema.construct_ext import run
    from binlog_schema.format.values import image
    from binlog_schema.output import row_images
    python_execute = run.execute
    table = {}
    if mode == "record":
        os.makedirs(os.path.join(folder, "sources"), exist_ok=True)
    elif mode != "python":
        sys.path.insert(0, os.path.join(folder, "build"))
        table = __import__(MODULE).TABLE
    missed = []

    def execute(source, filename, ns):
        if not isinstance(source, str):
            return python_execute(source, filename, ns)
        key = hashlib.sha256(source.encode()).hexdigest()[:16]
        if mode == "record":
            names = sorted(k for k in ns if getattr(builtins, k, None) is not ns[k])
            path = os.path.join(folder, "sources", key + ".json")
            if not os.path.exists(path):
                with open(path, "w", encoding="utf-8") as f:
                    json.dump({"source": source, "names": names}, f)
        make = table.get(key)
        if make is None:
            missed.append(key)
            return python_execute(source, filename, ns)
        ns.update(make(ns))
        return ns

    if mode != "python":
        image.execute = row_images.execute = execute
    from binlog_schema.cli.command_line import main
    status = main(argv)
    if mode not in ("python", "record"):
        print(f"accelerator: {len(table)} sources compiled, {len(set(missed))} generated "
              f"sources ran as Python", file=sys.stderr)
    return status


# ---------------------------------------------------------------------------------------
# the extension: one factory per generated source

_INTS = ("pos", "end", "p0", "n")


def _typed(func: ast.FunctionDef, lines: list) -> list:
    """The function's lines with its integer position and lengths declared as C integers."""
    args = [a.arg for a in func.args.args]
    assigned = {t.id for node in ast.walk(func) for t in getattr(node, "targets", [])
                if isinstance(t, ast.Name)}
    assigned |= {node.target.id for node in ast.walk(func)
                 if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)}
    head = lines[0]
    for a in args:
        if a in _INTS:
            for end in ")", ",":
                head = head.replace(f" {a}{end}", f" Py_ssize_t {a}{end}")
    local = [n for n in _INTS if n in assigned and n not in args]
    out = [head]
    if local:
        out.append("    cdef Py_ssize_t " + ", ".join(local))
    return out + lines[1:]


def _factory(key: str, source: str, names: list, typed: bool) -> str:
    tree = ast.parse(source)
    src_lines = source.split("\n")
    body, defs = [], []
    for node in tree.body:
        lines = src_lines[node.lineno - 1:node.end_lineno]
        if isinstance(node, ast.FunctionDef):
            defs.append(node.name)
            if typed:
                lines = _typed(node, lines)
        body.extend(lines)
    out = [f"def make_{key}(ns):"]
    out += [f"    {n} = ns[{n!r}]" for n in names]
    out += ["    " + line for line in body]
    out.append("    return {" + ", ".join(f"{d!r}: {d}" for d in defs) + "}")
    return "\n".join(out)


def write_extension(folder: str, typed: bool) -> str:
    build = os.path.join(folder, "build")
    os.makedirs(build, exist_ok=True)
    parts, keys = ["# cython: language_level=3, boundscheck=False, wraparound=True"], []
    for path in sorted(glob.glob(os.path.join(folder, "sources", "*.json"))):
        with open(path, encoding="utf-8") as f:
            rec = json.load(f)
        key = os.path.basename(path)[:-5]
        keys.append(key)
        parts.append(_factory(key, rec["source"], rec["names"], typed))
    parts.append("TABLE = {" + ", ".join(f"{k!r}: make_{k}" for k in keys) + "}")
    pyx = os.path.join(build, MODULE + ".pyx")
    with open(pyx, "w", encoding="utf-8") as f:
        f.write("\n\n".join(parts) + "\n")
    return pyx


def cythonize(cython: str, paths: list, cwd: str) -> float:
    """Build ``paths`` (.pyx or .py) in place; the seconds it took (wall)."""
    t = time.perf_counter()
    r = subprocess.run([cython, "-m", "Cython.Build.Cythonize", "-i", "-3", "-q", "-j", "2",
                        *paths], cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"cythonize failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return time.perf_counter() - t


def _bytecode(tree: str):
    """The bytecode of a tree's modules, as scripts/setup.sh compiles it: with
    PYTHONDONTWRITEBYTECODE set, a tree without it would compile its sources at every start,
    and the variants with fewer .py modules would seem faster for that."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", tree], check=True,
                   stdout=subprocess.DEVNULL)


def _so_size(paths) -> int:
    return sum(os.path.getsize(p) for p in paths)


# ---------------------------------------------------------------------------------------
# the parent


def _cmd(mode, folder, path):
    return [sys.executable, os.path.abspath(__file__), "--child", mode, folder, "--",
            "decode", "--rows", path]


def _env(pythonpath):
    return dict(os.environ, PYTHONPATH=pythonpath, BINLOG_SCHEMA_WORKERS="1")


def _timed(cmd, env) -> tuple:
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode not in (0, 2):
        sys.exit(f"{cmd}: exit {p.returncode}")
    return ru.ru_utime + ru.ru_stime, time.perf_counter() - t


def _digest(cmd, env) -> str:
    h = hashlib.sha256()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    while chunk := p.stdout.read(1 << 20):
        h.update(chunk)
    err = p.stderr.read().decode(errors="replace")
    p.wait()
    if "accelerator:" in err:
        print("   ", [x for x in err.splitlines() if "accelerator:" in x][-1])
    return h.hexdigest()


def _import_time(folder, pythonpath) -> float:
    code = ("import sys, time; sys.path.insert(0, %r); t = time.perf_counter(); "
            "import %s; print(time.perf_counter() - t)" % (os.path.join(folder, "build"), MODULE))
    times = [float(subprocess.run([sys.executable, "-c", code], env=_env(pythonpath),
                                  capture_output=True, text=True, check=True).stdout)
             for _ in range(5)]
    return statistics.median(times)


def prepare(path, variants, cython, work) -> dict:
    """The variants of one file: name -> (command, env); and the build facts printed."""
    folder = os.path.join(work, hashlib.sha256(path.encode()).hexdigest()[:8])
    os.makedirs(folder, exist_ok=True)
    _bytecode(os.path.join(ROOT, "binlog_schema"))
    subprocess.run(_cmd("record", folder, path), env=_env(ROOT), stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    n = len(glob.glob(os.path.join(folder, "sources", "*.json")))
    print(f"  {n} generated sources (table shapes x images) recorded")
    runs = {"python": (_cmd("python", folder, path), _env(ROOT))}
    for name in ("shapes", "typed"):
        if name not in variants and not (name == "typed" and {"codecs", "hot"} & set(variants)):
            continue
        sub = os.path.join(folder, name)
        os.makedirs(sub, exist_ok=True)
        shutil.copytree(os.path.join(folder, "sources"), os.path.join(sub, "sources"),
                        dirs_exist_ok=True)
        pyx = write_extension(sub, name == "typed")
        secs = cythonize(cython, [pyx], os.path.dirname(pyx))
        sos = glob.glob(os.path.join(sub, "build", MODULE + "*.so"))
        with open(pyx, encoding="utf-8") as f:
            pyx_lines = sum(1 for _ in f)
        print(f"  {name}: {pyx_lines} lines of .pyx; build {secs:.1f} s; "
              f"{_so_size(sos) / 1024:.0f} KiB; import {_import_time(sub, ROOT) * 1e3:.1f} ms")
        runs[name] = (_cmd(name, sub, path), _env(ROOT))
    for name, modules in (("codecs", CODEC_MODULES), ("hot", HOT_MODULES)):
        if name not in variants:
            continue
        pkg = os.path.join(work, "pkg-" + name)
        if not os.path.isdir(pkg):
            shutil.copytree(os.path.join(ROOT, "binlog_schema"),
                            os.path.join(pkg, "binlog_schema"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            targets = [os.path.join("binlog_schema", m) for m in modules]
            secs = cythonize(cython, targets, pkg)
            sos = [glob.glob(os.path.join(pkg, t[:-3] + ".*.so"))[0] for t in targets]
            print(f"  {name}: {len(targets)} modules compiled; build {secs:.1f} s; "
                  f"{_so_size(sos) / 1024:.0f} KiB")
            _bytecode(os.path.join(pkg, "binlog_schema"))
        runs[name] = (_cmd(name, os.path.join(folder, "typed"), path), _env(pkg))
    return {k: v for k, v in runs.items() if k in variants}


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        mode, folder, argv = sys.argv[2], sys.argv[3], sys.argv[5:]
        return _child(mode, folder, argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--cython", required=True, help="a Python with Cython installed")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--keep", help="build in this folder and keep it")
    args = ap.parse_args()
    variants = args.variants.split(",")
    if "python" not in variants:
        variants.insert(0, "python")
    work = args.keep or tempfile.mkdtemp(prefix="accelerator-")
    try:
        for path in args.files:
            print(f"{path} ({os.path.getsize(path) / 2**20:.1f} MiB)")
            runs = prepare(os.path.abspath(path), variants, args.cython, work)
            reference = _digest(*runs["python"])
            for name, run in runs.items():
                if name != "python":
                    same = _digest(*run) == reference
                    print(f"  {name}: output {'identical' if same else 'DIFFERS'}")
                    if not same:
                        return 1
            cpu = {k: [] for k in runs}
            wall = {k: [] for k in runs}
            for _ in range(args.repeats):
                for name, run in runs.items():
                    c, w = _timed(*run)
                    cpu[name].append(c)
                    wall[name].append(w)
            base = cpu["python"]
            for name in runs:
                ratios = [b / c for b, c in zip(base, cpu[name])]
                print(f"  {name:7s} cpu {statistics.median(cpu[name]):7.2f} s "
                      f"({min(cpu[name]):.2f}-{max(cpu[name]):.2f})  wall "
                      f"{statistics.median(wall[name]):7.2f} s  "
                      f"python/this {statistics.median(ratios):.2f}x "
                      f"({min(ratios):.2f}-{max(ratios):.2f})")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

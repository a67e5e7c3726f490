"""Running generated code: the one place the package executes source it wrote itself.

Generated code is run once per declaration (:mod:`.cache`, :mod:`.codegen`), per shape of a
table's rows (the row images' readers and JSON writers) or per record class (its
``__init__``): never per event, so one function for all of them costs nothing. Without
construct (the hot path imports it).
"""

from __future__ import annotations


def execute(source, filename: str, ns: dict) -> dict:
    """Execute ``source`` (Python source text, or a code object already compiled from it,
    e.g. loaded from the disk cache) in the namespace ``ns``; ``filename`` names it in
    tracebacks. Returns ``ns``, holding what the code defined."""
    code = compile(source, filename, "exec") if isinstance(source, str) else source
    exec(code, ns)
    return ns

"""Packages whose names load on first use.

A package's ``__init__`` that imported its own modules would make an import cycle with each
of them (importing a module of a package runs the package's ``__init__`` first), and would
make ``import package`` pay for every module. Instead the package gives a table of its public
names and the module of each, and :func:`exports` makes the package's ``__getattr__`` and
``__dir__`` from it: a name is imported from its module when first asked for, then kept.

(``binlog_schema/__init__.py`` itself does the same inline: importing this module from it
would be the cycle this module is for.)
"""

from __future__ import annotations

import importlib
import sys


def exports(package: str, where: dict):
    """``(__getattr__, __dir__)`` for ``package`` whose public names are the keys of
    ``where`` (name -> module: ``"writer"`` a module of the package, ``"..schema.ddl"``
    relative to it as in an import)."""

    def __getattr__(name):
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        relative = module if module.startswith(".") else "." + module
        value = getattr(importlib.import_module(relative, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__

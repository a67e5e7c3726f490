"""The commands of ``binlog-schema``, in the order help lists them, and the module of this
package that declares each (imported only when that command, or the whole list, is
needed)."""

from __future__ import annotations

import importlib

from .declare import Cmd, Opt

MODULES = {
    "decode": "decode", "sql": "sql", "flashback": "sql", "roundtrip": "roundtrip",
    "stats": "stats", "table-maps": "table_maps", "build-table-map": "table_maps",
    "validate": "validate", "fixtures": "fixtures", "spark": "spark", "stream": "stream",
    "serve": "serve",
}


def declared(name: str) -> Cmd:
    """The declaration of the command ``name`` (a key of :data:`MODULES`)."""
    module = importlib.import_module("." + MODULES[name], __package__)
    return next(c for c in module.COMMANDS if c.name == name)


def root(only: str | None = None) -> Cmd:
    """``binlog-schema`` itself: every command, or only ``only``."""
    return Cmd("binlog-schema", None, description="MySQL/MariaDB binary logs, declared once.",
               epilog="binlog-schema COMMAND --help: that command's options and exit statuses",
               opts=[Opt("--version", action="version", help="print the version and exit")],
               subs=[declared(n) for n in MODULES if only is None or n == only],
               sub_dest="command", sub_metavar="COMMAND")

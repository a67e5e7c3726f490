"""The compiled declarations this package runs on its fast paths, by name (see
:mod:`binlog_schema.construct_ext.cache`: compiled once, loaded from disk without construct).

* ``header``: the common header (``parse``/``build``)
* ``body.CODE``: the body of the events of one (standard) type code (``parse``/``build``),
  loaded when such an event is first met: a file loads the code of the types it holds
* ``body_family``: the declared type codes, and the family module of each (``DATA``)
* ``event``: the whole event (``parse``/``build``), for checks against the interpreted one
"""

from __future__ import annotations

from .construct_ext import cache

UNITS = {
    "header": "binlog_schema.events.envelope:CommonHeader",
    "body_family": "binlog_schema.events:BODY_FAMILY",
    "event": "binlog_schema.events.envelope:Event",
}


def unit(name: str) -> dict:
    if name.startswith("body."):
        return cache.load(name, f"binlog_schema.events:BODIES[{int(name[5:])}]")
    return cache.load(name, UNITS[name])


def kinds() -> dict:
    """The declared type codes and the family module of each (from the compiled index)."""
    return unit("body_family")["DATA"]


class Bodies:
    """The compiled body parsers and builders by standard type code, in two dicts whose
    entries first load their code's unit (then stand for its functions)."""

    def __init__(self):
        self.parsers: dict = {}
        self.builders: dict = {}
        for kind in kinds():
            self.parsers[kind] = self._loader(kind, build=False)
            self.builders[kind] = self._loader(kind, build=True)

    def _loader(self, kind, build):
        def first(*args):
            ns = unit(f"body.{kind}")
            self.parsers[kind], self.builders[kind] = ns["parse"], ns["build"]
            return (self.builders if build else self.parsers)[kind](*args)
        return first


def warm() -> None:
    """Compile (or load) every unit now, so that the first command does not pay it."""
    for name in UNITS:
        unit(name)
    for kind in kinds():
        unit(f"body.{kind}")

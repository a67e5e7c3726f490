"""The compiled declarations this package runs on its fast paths, by name (see
:mod:`binlog_schema.construct_ext.cache`: compiled once, loaded from disk without construct).

* ``header.parse``, ``header.build``: the common header
* ``body.CODE.parse`` and ``body.CODE.build``: the body of the events of one (standard)
  type code, one direction each, loaded when first needed: a file loads the code of the
  types it holds, a reader no builder
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
    """A unit by name; ``NAME.parse`` / ``NAME.build``: one direction only."""
    base, parts = name, ("parse", "build")
    for part in parts:
        if name.endswith("." + part):
            base, parts = name[:-len(part) - 1], (part,)
            break
    if base.startswith("body."):
        return cache.load(name, f"binlog_schema.events:BODIES[{int(base[5:])}]", parts)
    return cache.load(name, UNITS[base], parts)


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
            if build:
                self.builders[kind] = unit(f"body.{kind}.build")["build"]
                return self.builders[kind](*args)
            self.parsers[kind] = unit(f"body.{kind}.parse")["parse"]
            return self.parsers[kind](*args)
        return first


def warm() -> None:
    """Compile (or load) every unit now, so that the first command does not pay it."""
    unit("body_family")
    unit("event")
    for kind in kinds():
        unit(f"body.{kind}.parse")
        unit(f"body.{kind}.build")
    unit("header.parse")
    unit("header.build")

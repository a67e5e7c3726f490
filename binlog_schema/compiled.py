"""The compiled declarations this package runs on its fast paths, by name (see
:mod:`binlog_schema.construct_ext.cache`: compiled once, loaded from disk without construct).

* ``header``: the common header (``parse``/``build``)
* ``bodies.FAMILY``: the bodies one family module declares (``PARSERS``/``BUILDERS`` by
  standard type code), loaded when an event of theirs is first met
* ``body_family``: which family declares each type code (``DATA``)
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
    if name.startswith("bodies."):
        return cache.load(name, f"binlog_schema.events.{name[7:]}:BODIES")
    return cache.load(name, UNITS[name])


def families() -> set:
    """The names of the body families (from the compiled index)."""
    return set(unit("body_family")["DATA"].values())


class Bodies:
    """The compiled body parsers and builders by standard type code, in two dicts whose
    entries first load their family's unit (then stand for its functions)."""

    def __init__(self):
        index = unit("body_family")["DATA"]
        self.parsers: dict = {}
        self.builders: dict = {}
        for kind, family in index.items():
            self.parsers[kind] = self._loader(family, kind, build=False)
            self.builders[kind] = self._loader(family, kind, build=True)

    def _loader(self, family, kind, build):
        def first(*args):
            self.load(family)
            return (self.builders if build else self.parsers)[kind](*args)
        return first

    def load(self, family):
        ns = unit(f"bodies.{family}")
        self.parsers.update(ns["PARSERS"])
        self.builders.update(ns["BUILDERS"])


def warm() -> None:
    """Compile (or load) every unit now, so that the first command does not pay it."""
    for name in UNITS:
        unit(name)
    for family in families():
        unit(f"bodies.{family}")

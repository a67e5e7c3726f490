"""The compiled declarations this package runs on its fast paths, by name (see
:mod:`binlog_schema.construct_ext.cache`: compiled once, loaded from disk without construct).

* ``header.parse``, ``header.build``, ``header.json``: the common header
* ``body.CODE.parse``, ``body.CODE.build`` and ``body.CODE.json``: the body of the events of
  one (standard) type code, one direction each (json: the JSON text of what parse gives),
  loaded when first needed: a file loads the code of the types it holds, a reader no builder
* ``body_family``: the declared type codes, and the family module of each (``DATA``)
* ``event``: the whole event (``parse``/``build``), for checks against the interpreted one
* ``packet_header``, ``stream_packet``: the protocol's packet header and the binlog network
  stream's packet (:mod:`binlog_schema.wire.protocol`), read once per packet
"""

from __future__ import annotations

from ..construct_ext import cache

UNITS = {
    "header": "binlog_schema.format.events.envelope:CommonHeader",
    "body_family": "binlog_schema.format.events:BODY_FAMILY",
    "event": "binlog_schema.format.events.envelope:Event",
    "packet_header": "binlog_schema.wire.protocol.framing:PacketHeader",
    "stream_packet": "binlog_schema.wire.protocol.replication:BinlogStreamPacket",
}


def unit(name: str) -> dict:
    """A unit by name; ``NAME.parse`` / ``NAME.build`` / ``NAME.json``: one direction only."""
    base, parts = name, ("parse", "build")
    for part in ("parse", "build", "json"):
        if name.endswith("." + part):
            base, parts = name[:-len(part) - 1], (part,)
            break
    if base.startswith("body."):
        return cache.load(name, f"binlog_schema.format.events:BODIES[{int(base[5:])}]", parts)
    return cache.load(name, UNITS[base], parts)


def kinds() -> dict:
    """The declared type codes and the family module of each (from the compiled index)."""
    return unit("body_family")["DATA"]


class Bodies:
    """The compiled body parsers, builders and JSON parsers by standard type code, in three
    dicts whose entries first load their code's unit (then stand for its functions)."""

    def __init__(self):
        self.parsers: dict = {}
        self.builders: dict = {}
        self.jsons: dict = {}
        for kind in kinds():
            for part, table in (("parse", self.parsers), ("build", self.builders),
                                ("json", self.jsons)):
                table[kind] = self._loader(kind, part, table)

    def load(self, kinds, parts=("parse", "json")) -> None:
        """Load now the units of ``kinds`` (declared type codes) for ``parts``."""
        tables = {"parse": self.parsers, "build": self.builders, "json": self.jsons}
        for part in parts:
            table = tables[part]
            for kind in kinds:
                if kind in table:
                    table[kind] = unit(f"body.{kind}.{part}")[part]

    @staticmethod
    def _loader(kind, part, table):
        def first(*args):
            table[kind] = unit(f"body.{kind}.{part}")[part]
            return table[kind](*args)
        return first


def warm() -> None:
    """Compile (or load) every unit now, so that the first command does not pay it."""
    unit("body_family")
    unit("event")
    for kind in kinds():
        for part in ("parse", "build", "json"):
            unit(f"body.{kind}.{part}")
    for part in ("parse", "build", "json"):
        unit(f"header.{part}")

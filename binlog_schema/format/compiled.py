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

from io import BytesIO

from ..construct_ext import cache
from .facts.codes import TABLE_MAP_EVENT

# Bodies whose parse is remembered per file (per context) by their bytes: a server writes
# the same TABLE_MAP before every rows event of a table, byte for byte (its header differs:
# it is parsed each time). At most REMEMBERED_LIMIT bodies per file.
REMEMBERED = frozenset({TABLE_MAP_EVENT})
REMEMBERED_LIMIT = 4096

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
                    table[kind] = _loaded(kind, part)

    @staticmethod
    def _loader(kind, part, table):
        def first(*args):
            table[kind] = _loaded(kind, part)
            return table[kind](*args)
        return first


def _loaded(kind: int, part: str):
    function = unit(f"body.{kind}.{part}")[part]
    return remembered(function) if part == "parse" and kind in REMEMBERED else function


def remembered(parse):
    """``parse`` (a compiled body parser ``f(io, this)``) whose results are remembered in
    the context's ``extra["_bodies"]`` by the body's bytes: the same bytes in one file give
    the same value, which is returned again (readers do not change a parsed value). Only
    for a body read from the start of a BytesIO (the fast path); a TrackingIO (errors with offsets)
    parses each time."""
    def run(io, this):
        ctx = this["_params"].get("ctx") if type(io) is BytesIO else None
        if ctx is None or io.tell():
            return parse(io, this)
        memo = ctx.extra.get("_bodies")
        if memo is None:
            memo = ctx.extra["_bodies"] = {}
        key = io.getvalue()
        hit = memo.get(key)
        if hit is not None:
            io.seek(hit[1])
            return hit[0]
        value = parse(io, this)
        if len(memo) < REMEMBERED_LIMIT:
            memo[key] = (value, io.tell())
        return value
    return run


def warm() -> None:
    """Compile (or load) every unit now, so that the first command does not pay it."""
    unit("body_family")
    unit("event")
    for kind in kinds():
        for part in ("parse", "build", "json"):
            unit(f"body.{kind}.{part}")
    for part in ("parse", "build", "json"):
        unit(f"header.{part}")

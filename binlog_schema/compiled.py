"""The compiled declarations this package runs on its fast paths, by name (see
:mod:`binlog_schema.construct_ext.cache`: compiled once, loaded from disk without construct).

* ``header``: the common header (``parse``/``build``)
* ``bodies``: every declared body (``PARSERS``/``BUILDERS`` by standard type code)
* ``event``: the whole event (``parse``/``build``), for checks against the interpreted one
"""

from __future__ import annotations

from .construct_ext import cache

UNITS = {
    "header": "binlog_schema.events.envelope:CommonHeader",
    "bodies": "binlog_schema.events:BODIES",
    "event": "binlog_schema.events.envelope:Event",
}


def unit(name: str) -> dict:
    return cache.load(name, UNITS[name])


def warm() -> None:
    """Compile (or load) every unit now, so that the first command does not pay it."""
    for name in UNITS:
        unit(name)

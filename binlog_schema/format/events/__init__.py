"""Declarations: one module per event family, the post-header and body of each event type
(:mod:`.envelope` declares the whole event around them).

Each family module has ``BODIES``: type code (standard numbering,
:mod:`binlog_schema.format.facts.codes`) -> body declaration. ``BODIES`` here merges them; a code in
none of them keeps its body raw. ``BODY_FAMILY`` says which family declares each code (the
compiled declarations are loaded per family); ``FAMILIES`` gives the family modules by name.

The three are made when first used: this package imports none of its modules when it is
imported (a family module, whose import runs this file first, is never imported by it
half-way: no import cycle), and importing one family does not import the others.
"""

from __future__ import annotations

FAMILY_NAMES = ("format_description", "query", "gtid", "rows", "table_map",
                "transaction_payload")

_TABLES = ("FAMILIES", "BODIES", "BODY_FAMILY")


def __getattr__(name):
    if name not in _TABLES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    families = {family: importlib.import_module(f"{__name__}.{family}")
                for family in FAMILY_NAMES}
    globals().update(
        FAMILIES=families,
        BODIES={kind: body for family in families.values()
                for kind, body in family.BODIES.items()},
        BODY_FAMILY={kind: family for family, module in families.items()
                     for kind in module.BODIES})
    return globals()[name]


def __dir__():
    return sorted(list(globals()) + list(_TABLES))

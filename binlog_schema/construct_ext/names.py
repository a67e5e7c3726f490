"""Tables of codes and their names (type codes, flag bits), both ways."""

from __future__ import annotations

from .errors import MappingError


class NameTable(dict):
    """code -> name, and name -> code. ``module`` and ``attr`` say where the table lives, so
    generated code imports it from there (a table must be a module-level name of a module
    that does not import construct)."""

    def __init__(self, module: str, attr: str, pairs: dict):
        super().__init__(pairs)
        self.update({v: k for k, v in pairs.items()})
        self.ref = (module, attr)
        # flags word -> the names of its bits (flags_of); code bytes -> names (codes_parse)
        self.flag_cache: dict = {}
        self.json_cache: dict = {}  # flags word -> the JSON of its names (jsontext.flags_json)


def flag_names(value: int, names) -> list:
    """The names of ``value``'s set bits, lowest first (unnamed bits stay ints)."""
    out = []
    bit = 1
    while value:
        if value & 1:
            out.append(names.get(bit, bit))
        value >>= 1
        bit <<= 1
    return out


def flag_value(obj, names) -> int:
    """A flags value from a list of names and bits (or an int)."""
    if isinstance(obj, int):
        return obj
    if obj is None:
        return 0
    value = 0
    for item in obj:
        bit = names.get(item, item) if isinstance(item, str) else item
        if not isinstance(bit, int):
            raise MappingError(f"unknown flag {item!r}")
        value |= bit
    return value

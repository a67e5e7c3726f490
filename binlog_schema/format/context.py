"""The explicit context that travels with parse and build (never a global).

What one event needs from another lives here: the checksum setting and post-header lengths
from the FORMAT_DESCRIPTION event, the server flavor and version, the event's offset in its
file (for log positions and error reports).
"""

from __future__ import annotations

_FIELDS = {  # name: default (extra: a fresh dict per context)
    "checksum": True,              # events end in a CRC32 (FDE checksum alg 1)
    "verify_checksum": True,       # a CRC mismatch raises ChecksumError
    "table_id_size": 6,            # 4 when the FDE's TABLE_MAP post-header length is 6
    "post_header_lengths": None,
    "server_version": None,
    "flavor": None,                # "mysql" or "mariadb"
    "binlog_version": 4,
    "type_remap": None,            # file type code -> standard code (pre-GA numberings)
    "encrypted": False,            # after MariaDB's START_ENCRYPTION: events are ciphertext
    "offset": 0,                   # file offset of the event being parsed or built
    "max_columns": 4096,           # column counts above this are refused (MySQL's max)
    "max_uncompressed": 1 << 30,   # decompressed payload / compressed event size limit
    "extra": None,
}
_NOT_IN_DICT = ("extra", "offset", "verify_checksum", "max_columns", "max_uncompressed")


class Context:
    """The context of the events of one file (see the module docstring). Keyword arguments
    as the fields above; ``extra`` holds caches (keys starting with ``_``) and user data."""

    __slots__ = tuple(_FIELDS)

    def __init__(self, **fields):
        for name, default in _FIELDS.items():
            setattr(self, name, fields.pop(name, default))
        if fields:
            raise TypeError(f"unknown context fields: {sorted(fields)}")
        if self.extra is None:
            self.extra = {}

    def __getitem__(self, key):
        return getattr(self, key)

    def get(self, key, default=None):
        return getattr(self, key, default)

    def kind(self, code: int) -> int:
        """The standard (GA) type code of an event stored with ``code`` in this file."""
        return self.type_remap.get(code, code) if self.type_remap else code

    def replace(self, **changes) -> Context:
        # "_" keys of extra are caches derived from the other fields: never shared
        changes.setdefault("extra", {k: v for k, v in self.extra.items()
                                     if not k.startswith("_")})
        fields = {name: getattr(self, name) for name in _FIELDS}
        fields.update(changes)
        return Context(**fields)

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in _FIELDS if name not in _NOT_IN_DICT}

    def _public(self, name):
        value = getattr(self, name)
        if name == "extra":  # "_" keys are caches (one refers back to the context)
            value = {k: v for k, v in value.items() if not k.startswith("_")}
        return value

    def __eq__(self, other):
        if not isinstance(other, Context):
            return NotImplemented
        return all(self._public(n) == other._public(n) for n in _FIELDS)

    __hash__ = None

    def __repr__(self):
        return "Context(" + ", ".join(f"{n}={self._public(n)!r}" for n in _FIELDS) + ")"

    def __getstate__(self):
        return {n: self._public(n) for n in _FIELDS}

    def __setstate__(self, state):
        for n in _FIELDS:
            setattr(self, n, state.get(n, _FIELDS[n]))
        if self.extra is None:
            self.extra = {}

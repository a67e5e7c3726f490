"""The explicit context that travels with parse and build (never a global).

What one event needs from another lives here: the checksum setting and post-header lengths
from the FORMAT_DESCRIPTION event, the server flavor and version, the event's offset in its
file (for log positions and error reports).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace


@dataclass
class Context:
    checksum: bool = True              # events end in a CRC32 (FDE checksum alg 1)
    verify_checksum: bool = True       # a CRC mismatch raises ChecksumError
    table_id_size: int = 6             # 4 when the FDE's TABLE_MAP post-header length is 6
    post_header_lengths: list | None = None
    server_version: str | None = None
    flavor: str | None = None          # "mysql" or "mariadb"
    binlog_version: int = 4
    type_remap: dict | None = None     # file type code -> standard code (pre-GA numberings)
    encrypted: bool = False            # after MariaDB's START_ENCRYPTION: events are ciphertext
    offset: int = 0                    # file offset of the event being parsed or built
    max_columns: int = 4096            # column counts above this are refused (MySQL's max)
    max_uncompressed: int = 1 << 30    # decompressed payload / compressed event size limit
    extra: dict = field(default_factory=dict)

    def __getitem__(self, key):
        return getattr(self, key)

    def get(self, key, default=None):
        return getattr(self, key, default)

    def kind(self, code: int) -> int:
        """The standard (GA) type code of an event stored with ``code`` in this file."""
        return self.type_remap.get(code, code) if self.type_remap else code

    def replace(self, **changes) -> "Context":
        # "_" keys of extra are caches derived from the other fields: never shared
        changes.setdefault("extra", {k: v for k, v in self.extra.items()
                                     if not k.startswith("_")})
        return replace(self, **changes)

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name not in ("extra", "offset", "verify_checksum", "max_columns",
                                  "max_uncompressed")}

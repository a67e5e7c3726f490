"""The package's one exception family.

Every failure to parse or build raises a subclass of :class:`BinlogError`. Each carries the
absolute offset (within the file, or within the event when no file offset is known), the field
path inside the declaration (``body.optional_metadata[2].value``) and what was expected.
"""

from __future__ import annotations


class BinlogError(Exception):
    """Base of every error this package raises on bad input or an impossible value."""

    kind = "error"

    def __init__(self, message: str, *, offset: int | None = None, path: str | None = None,
                 expected: str | None = None):
        self.message = message
        self.offset = offset
        self.path = path
        self.expected = expected
        super().__init__(self._render())

    def __reduce__(self):
        # (pickled by its fields, not through __init__, whose arguments differ per class)
        return _restored, (type(self), self.args, self.__dict__)

    def __str__(self) -> str:
        # (rendered from the fields as they are now: a caller may fill the path or offset in
        # after construction, as the row decoder does with a row image's column)
        return self._render()

    def _render(self) -> str:
        parts = []
        if self.offset is not None:
            parts.append(f"at offset {self.offset}")
        if self.path:
            parts.append(f"in {self.path}")
        where = (" " + " ".join(parts)) if parts else ""
        text = f"{self.kind}{where}: {self.message}"
        if self.expected:
            text += f" (expected {self.expected})"
        return text

    def to_dict(self) -> dict:
        return {"kind": self.kind, "offset": self.offset, "path": self.path,
                "message": self.message, "expected": self.expected}


def _restored(cls, args, state):
    err = cls.__new__(cls, *args)
    err.args = args
    err.__dict__.update(state)
    return err


class TruncatedError(BinlogError):
    """The input ends before a field it announced (a length or count that runs past the end)."""

    kind = "truncated"


class ChecksumError(BinlogError):
    """The stored CRC32 does not match the event's bytes."""

    kind = "checksum"


class FormatError(BinlogError):
    """Bytes that cannot be what the format says (bad magic, bad constant, impossible value)."""

    kind = "format"


class NotBinlogError(FormatError):
    """The input is not a binlog file at all: it is empty, or its first four bytes are not
    the magic number ``fe 62 69 6e`` (``\\xfebin``). The message says what it starts with,
    and what it seems to be when that is known (compressed, an archive, text). Rendered as
    the message alone: it is about the whole file, not a field of it."""

    def _render(self) -> str:
        return self.message


# what a file that is not a binlog starts with, when it is something else that is known
_LOOKALIKES = (
    (b"\x1f\x8b", "compressed with gzip: decompress it first (gunzip)"),
    (b"\x28\xb5\x2f\xfd", "compressed with zstd: decompress it first (unzstd)"),
    (b"\xfd7zX", "compressed with xz: decompress it first (unxz)"),
    (b"BZh", "compressed with bzip2: decompress it first (bunzip2)"),
    (b"\x04\x22\x4d\x18", "compressed with lz4: decompress it first (unlz4)"),
    (b"PK\x03\x04", "a zip archive: extract its files first (unzip)"),
    (b"7z\xbc\xaf", "a 7-Zip archive: extract its files first (7z x)"),
    (b"\xfdbin", "a binlog encrypted by MySQL (binlog_encryption=ON): only the server, with "
                 "its keyring, can decrypt it (mysqlbinlog --read-from-remote-server gets its "
                 "events in clear)"),
)


def not_a_binlog(head: bytes) -> BinlogError:
    """The error for a file whose first bytes ``head`` (at most 4 read) are not the magic
    number: empty, cut short inside the magic, or something else (named when it is known)."""
    magic = b"\xfebin"
    if not head:
        return NotBinlogError("empty file: not a binlog", offset=0, path="magic",
                              expected="fe62696e")
    if len(head) < 4 and magic.startswith(head):
        n = f"{len(head)} byte" + ("s" if len(head) > 1 else "")
        return TruncatedError(f"the file ends after {n}, inside the magic number: a binlog "
                              "cut short", offset=0, path="magic",
                              expected="fe62696e")
    seen = " ".join(f"{b:02x}" for b in head)
    hint = next((h for m, h in _LOOKALIKES if head.startswith(m)), None)
    if hint is None and all(32 <= b < 127 or b in b"\t\r\n" for b in head):
        hint = ("it looks like text, not a binary log (a binlog .index file? give the binlog "
                "files it lists)")
    return NotBinlogError(f"not a binlog: it starts with {seen}, not the magic number "
                          f"fe 62 69 6e" + (f": {hint}" if hint else ""),
                          offset=0, path="magic", expected="fe62696e")


class LimitError(BinlogError):
    """A declared size or count exceeds a configured limit; refused before allocating."""

    kind = "limit"


class BuildError(BinlogError):
    """A value that cannot be encoded (out of range, wrong type, inconsistent with its context)."""

    kind = "build"


class SchemaMismatch(BinlogError):
    """A TABLE_MAP that disagrees with the schema history's table at its place (a stale or
    wrong ``--schema``, or DDL the binlog does not show): ``offset`` is the TABLE_MAP's,
    ``table`` its ``database.table``, ``differences`` one sentence each (column count, a
    column's type, length, collation, members, nullability, primary key). ``names`` says
    what the rows were decoded with: ``table map`` (the map carries names, FULL metadata:
    they win, the history was only checked) or ``@N`` (the map has none: index names,
    never the history's). The rows are decoded all the same: this is reported, not raised."""

    kind = "schema"

    def __init__(self, message: str, *, offset: int | None = None, path: str | None = None,
                 expected: str | None = None, file: str | None = None,
                 table: str | None = None, differences=(), names: str = "@N"):
        self.file = file
        self.table = table
        self.differences = list(differences)
        self.names = names
        super().__init__(message, offset=offset, path=path, expected=expected)

    def to_dict(self) -> dict:
        d = super().to_dict()
        d.update(table=self.table, differences=self.differences, names=self.names)
        return d


class RowsError(BinlogError):
    """The rows of a rows event that cannot be decoded through the table map in force (an
    image that does not fit the map, no TABLE_MAP before the event): ``offset`` the rows
    event's (in its TRANSACTION_PAYLOAD, at file offset ``in_payload_at``, for one inside a
    payload), ``event`` its type name, ``table`` its ``database.table`` (None when no TABLE_MAP
    names it), ``column`` the column where reading failed (None when not known), ``cause``
    the layout's typed error (its ``kind``, truncated or format, is this error's). One line
    names them all; the caller puts the file before it."""

    def __init__(self, cause: BinlogError, *, offset: int | None, event: str,
                 table: str | None = None, column: str | None = None,
                 file: str | None = None, in_payload_at: int | None = None):
        self.kind = cause.kind
        self.cause, self.event, self.table, self.column, self.file = \
            cause, event, table, column, file
        self.in_payload_at = in_payload_at
        super().__init__(cause.message, offset=offset, path=cause.path,
                         expected=cause.expected)

    def _render(self) -> str:
        where = [self.event]
        if self.table is not None:
            where.append(f"table {self.table}")
        if self.column is not None:
            where.append(f"column {self.column}")
        at = f"{self.offset}" if self.in_payload_at is None else \
            f"{self.in_payload_at} (payload +{self.offset})"
        text = (f"rows not decoded at offset {at} ({', '.join(where)}): {self.kind}"
                + (f" in {self.path}" if self.path else "") + f": {self.message}")
        return text + (f" (expected {self.expected})" if self.expected else "")

    def to_dict(self) -> dict:
        d = super().to_dict()
        d.update(table=self.table, column=self.column)
        return d


ERROR_KINDS = {cls.kind: cls for cls in
               (BinlogError, TruncatedError, ChecksumError, FormatError, LimitError, BuildError,
                SchemaMismatch)}


class ReplicationError(BinlogError):
    """A replication connection that failed: refused, closed, an ERR packet from the server
    (``code``: its error number, e.g. 1236 for a purged or missing start position or a
    clashing server id; 1045 for a refused password)."""

    kind = "replication"

    def __init__(self, message: str, *, code: int | None = None, **where):
        self.code = code
        super().__init__(message, **where)

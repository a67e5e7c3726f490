"""The JSON diff list of a PARTIAL_UPDATE_ROWS_EVENT after image (``sql/json_diff.cc``), both
directions: :func:`decode_diff` and :func:`encode_diff`, each diff's value a binary JSON
document (:mod:`.json_document`); the lossless rule of :mod:`.json_binary` holds for diff lists
too.
"""

from __future__ import annotations

from ...construct_ext.errors import LayoutError, ValidationError

from .json_binary import JsonDiffOp, JsonDocument
from .json_document import decode, encode
from .json_scalars import need, text_of, utf8_of

DIFF_OPERATIONS = {0: "REPLACE", 1: "INSERT", 2: "REMOVE"}   # enum_json_diff_operation
_DIFF_CODES = {name: code for code, name in DIFF_OPERATIONS.items()}


def _net_read(data: bytes, pos: int, what: str):
    """MySQL's length-encoded integer (``net_field_length``)."""
    need(len(data) - pos, 1, what)
    b = data[pos]
    if b < 251:
        return b, pos + 1
    width = {252: 2, 253: 3, 254: 8}.get(b)
    if width is None:
        raise ValidationError(f"JSON diff {what}: 0x{b:02x} is not a length prefix")
    need(len(data) - pos - 1, width, what)
    return int.from_bytes(data[pos + 1:pos + 1 + width], "little"), pos + 1 + width


def _net_bytes(n: int) -> bytes:
    if n < 251:
        return bytes((n,))
    if n < 0x10000:
        return b"\xfc" + n.to_bytes(2, "little")
    if n < 0x1000000:
        return b"\xfd" + n.to_bytes(3, "little")
    return b"\xfe" + n.to_bytes(8, "little")


# ------------------------------------------------------------------------------ diffs


def decode_diff(data):
    """The diff list of a PARTIAL_UPDATE_ROWS JSON column: the bytes after the column's 4-byte
    length. Each diff: operation byte, length-encoded path length, path, and unless REMOVE a
    length-encoded value length and the binary JSON value. Returns a list of
    :class:`JsonDiffOp`, or ``JsonDocument(list, raw)`` when :func:`encode_diff` would not give
    back ``data`` (e.g. a length in a longer encoding than needed)."""
    data = bytes(data)
    ops = []
    pos = 0
    while pos < len(data):
        op = DIFF_OPERATIONS.get(data[pos])
        if op is None:
            raise ValidationError(f"unknown JSON diff operation {data[pos]}")
        n, pos = _net_read(data, pos + 1, "path length")
        need(len(data) - pos, n, "diff path")
        path = text_of(data[pos:pos + n])
        pos += n
        if op == "REMOVE":
            ops.append(JsonDiffOp(op, path))
            continue
        n, pos = _net_read(data, pos, "value length")
        need(len(data) - pos, n, "diff value")
        ops.append(JsonDiffOp(op, path, decode(data[pos:pos + n])))
        pos += n
    try:
        canonical = encode_diff(ops)
    except LayoutError:
        canonical = None
    return ops if canonical == data else JsonDocument(ops, data)


def encode_diff(ops) -> bytes:
    """The bytes of a diff list (without the 4-byte length): the inverse of
    :func:`decode_diff`. ``ops``: :class:`JsonDiffOp` items (or (op, path[, value]) tuples)."""
    if isinstance(ops, JsonDocument):
        return bytes(ops.raw)
    out = bytearray()
    for d in ops:
        if not isinstance(d, JsonDiffOp):
            d = JsonDiffOp(*d)
        code = _DIFF_CODES.get(d.op)
        if code is None:
            raise ValidationError(f"unknown JSON diff operation {d.op!r}")
        path = utf8_of(d.path, "path")
        out.append(code)
        out += _net_bytes(len(path))
        out += path
        if d.op == "REMOVE":
            if d.value is not None:
                raise ValidationError("a REMOVE JSON diff has no value")
            continue
        b = encode(d.value)
        out += _net_bytes(len(b))
        out += b
    return bytes(out)


__all__ = ["decode_diff", "encode_diff", "DIFF_OPERATIONS"]

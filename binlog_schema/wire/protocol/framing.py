"""Packet framing of the MySQL client/server protocol: every packet is a 4-byte header
(:data:`PacketHeader`: the payload's length, 3 bytes little-endian, and a sequence id) and its
payload. A payload of 0xffffff bytes or more travels in pieces of 0xffffff bytes, each with its
own header and the next sequence id, ended by a shorter piece (empty when the length is an
exact multiple); :func:`read_packet` joins them, :func:`write_packet` splits."""

from __future__ import annotations

import io as _io

import construct as c

from ...construct_ext.primitives import UIntLE
from ...format.errors import LimitError, TruncatedError

PacketHeader = c.Struct(
    "length" / UIntLE(3),                                  # 3  payload bytes in this piece
    "sequence_id" / c.Int8ul,                              # 1  0 at a command's start, +1 each
)
"""The header of every packet (and of every piece of a split one)."""

HEADER_SIZE = PacketHeader.sizeof()
MAX_PIECE = 0xFFFFFF
"""A piece of this length says another piece follows."""
MAX_PAYLOAD = 1 << 30
"""The largest payload :func:`read_packet` joins by default (a server's max_allowed_packet
ceiling): a length field cannot make it allocate more."""


def _read_exact(reader, n: int, what: str) -> bytes:
    data = reader.read(n)
    if data is None or len(data) < n:
        have = 0 if data is None else len(data)
        raise TruncatedError(f"connection closed inside {what}: {have} of {n} bytes",
                             path=what)
    return data


def read_packet(reader, max_size: int = MAX_PAYLOAD) -> tuple:
    """``(sequence id of the last piece, payload)`` of the next packet from ``reader`` (an
    object with ``read(n)``: a socket's ``makefile('rb')``); ``(None, None)`` when the peer
    closed the connection cleanly before a new packet. A connection closed inside a packet
    raises :class:`~binlog_schema.format.errors.TruncatedError`; a payload over ``max_size``,
    :class:`~binlog_schema.format.errors.LimitError` before it is read."""
    head = reader.read(HEADER_SIZE)
    if not head:
        return None, None
    parse = _header_parser()
    parts = []
    total = 0
    while True:
        if len(head) < HEADER_SIZE:
            raise TruncatedError(f"connection closed inside a packet header: {len(head)} of "
                                 f"{HEADER_SIZE} bytes", path="packet.header")
        h = parse(_io.BytesIO(head), _NO_PARAMS)
        length = h["length"]
        total += length
        if total > max_size:
            raise LimitError(f"packet of more than {max_size} bytes", path="packet.length")
        parts.append(_read_exact(reader, length, "packet.payload"))
        if length < MAX_PIECE:
            return h["sequence_id"], parts[0] if len(parts) == 1 else b"".join(parts)
        head = reader.read(HEADER_SIZE)


_NO_PARAMS = {"_params": {}}
_PARSER: list = []


_BUILDER: list = []


def _header_parser():
    """PacketHeader's compiled parser (:mod:`binlog_schema.format.compiled`: once per process)."""
    if not _PARSER:
        from ...format import compiled
        _PARSER.append(compiled.unit("packet_header.parse")["parse"])
    return _PARSER[0]


def _header_builder():
    """PacketHeader's compiled builder, ``build(value, io, this)``."""
    if not _BUILDER:
        from ...format import compiled
        _BUILDER.append(compiled.unit("packet_header.build")["build"])
    return _BUILDER[0]


def write_packet(writer, payload: bytes, seq: int) -> int:
    """Write ``payload`` as one packet (in pieces when it is 0xffffff bytes or more) starting
    at sequence id ``seq``; the sequence id that follows it."""
    view = memoryview(payload)
    build = _header_builder()
    at = 0
    while True:
        piece = view[at:at + MAX_PIECE]
        build({"length": len(piece), "sequence_id": seq}, writer, _NO_PARAMS)
        writer.write(piece)
        seq = (seq + 1) & 0xFF
        at += len(piece)
        if len(piece) < MAX_PIECE:
            return seq

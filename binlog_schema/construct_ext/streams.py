"""Byte streams for parsing: offsets remembered for error reports, bounded reads."""

from __future__ import annotations

import io as _io

from .errors import StreamError

MAX_READ = 1 << 62  # BytesIO.read() cannot take lengths past 2**63


class TrackingIO(_io.BytesIO):
    """A BytesIO that remembers the absolute offset of the last read (for error reports).

    Sub-streams made by :func:`substream` share the recorder and know their base offset, so an
    error deep inside a length-prefixed block still names its offset in the file.
    """

    def __init__(self, data: bytes = b"", base: int = 0, recorder: list | None = None):
        super().__init__(data)
        self.base = base
        self.recorder = recorder if recorder is not None else [base]

    def read(self, n=-1):
        self.recorder[0] = self.base + self.tell()
        return super().read(n)


def substream(io, data: bytes, gap: int = 0):
    """A stream over ``data``, which was just read from ``io`` (followed by ``gap`` more
    bytes)."""
    if type(io) is TrackingIO:
        return TrackingIO(data, io.base + io.tell() - len(data) - gap, io.recorder)
    return _io.BytesIO(data)


def blame(io, pos: int) -> None:
    """Make the error about to be raised name offset ``pos`` of ``io`` (a tracking stream)."""
    if type(io) is TrackingIO:
        io.recorder[0] = io.base + pos


def remaining(io) -> int:
    pos = io.tell()
    end = io.seek(0, 2)
    io.seek(pos)
    return end - pos


def read_exact(io, n: int) -> bytes:
    if n < 0 or n > MAX_READ:
        raise StreamError(f"length {n} cannot be read")
    data = io.read(n)
    if len(data) != n:
        raise StreamError(f"needs {n} bytes, only {len(data)} left")
    return data

"""Sizes written as text: bytes, or a number with k, m or g (``8m``, ``512k``, ``1g``), read
as a number of bytes by the one :func:`parse_size` that the command line's options
(``--split-size``, ``--max-event-size``) and the Spark pipeline's settings share. It imports
nothing at load (``re`` only when a size is read): the command line's fast start keeps."""

from __future__ import annotations

UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def parse_size(text) -> int:
    """A size as a number of bytes, at least 1: an ``int`` is taken as bytes; a text is a
    number (with a fraction or not) and k, m or g, in any case, then ``b``, ``ib`` or
    nothing, with spaces around (``8m``, ``512k``, ``1.5g``, ``16MiB``, ``4096``). Anything
    else raises ``ValueError`` saying what a size is."""
    if isinstance(text, int):
        n = text
    else:
        import re
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*", str(text), re.I)
        n = 0 if not m else int(float(m.group(1)) * UNITS[m.group(2).lower()])
    if n < 1:
        raise ValueError(f"{text!r}: a size in bytes, or with k, m or g (8m, 512k, 1g)")
    return n

"""The checked values of command-line options, given as ``type=`` in the declarations: each
takes the text and returns the value, or raises argparse's ``ArgumentTypeError`` saying what
is expected (argparse is imported only then: the fast start of common lines does without
it)."""

from __future__ import annotations


def bad_value(message):
    import argparse
    return argparse.ArgumentTypeError(message)


def event_types(text):
    """``--types``: names (with or without ``_EVENT``) or codes, comma-separated."""
    from ..format.facts.codes import code_of
    out = []
    for t in (t.strip() for t in text.split(",")):
        if not t:
            continue
        if t.isdigit():
            if int(t) > 255:
                raise bad_value(f"{t}: an event type code is 0 to 255")
            out.append(int(t))
            continue
        try:
            code_of(t)
        except KeyError:
            from ..format.stream import type_names
            raise bad_value(f"unknown event type {t!r}; known types (or their codes): "
                            f"{', '.join(type_names())}") from None
        out.append(t)
    if not out:
        raise bad_value("no event type given (comma-separated names or codes)")
    return out


def position(text):
    """A byte position: a whole number from 0."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise bad_value(f"{text!r}: a byte position is a whole number from 0")
    return n


def at_least(low):
    """A whole number from ``low``."""
    def whole(text):
        try:
            n = int(text)
        except ValueError:
            n = low - 1
        if n < low:
            raise bad_value(f"{text!r}: a whole number from {low}")
        return n
    return whole


count = at_least(0)
"""A count: a whole number from 0."""


def byte_count(text) -> int:
    """A size: bytes, or a number with k, m or g (8m, 512k, 1g), as a number of bytes (the
    one reading of sizes, :func:`binlog_schema.output.sizes.parse_size`)."""
    from ..output.sizes import parse_size
    try:
        return parse_size(text)
    except ValueError as e:
        raise bad_value(str(e)) from None


def size(text):
    """A size as :func:`byte_count` checks it, kept as given (``--split-size``)."""
    byte_count(text)
    return text

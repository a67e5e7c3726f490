"""The packet golden vectors' checker (``specs/protocol/``): a document names a declaration
(``packet``: an attribute of :mod:`.connection` or :mod:`.replication`), gives the payload's
bytes (``hex``, without the framing header), the parsed value (``expect``, in its plain form)
and, optionally, the construct context keywords of parse and build (``context``). It passes
when the bytes parse to ``expect`` and ``expect`` builds to the bytes."""

from __future__ import annotations

from ...format.event_forms import first_difference, from_plain, to_plain
from . import connection, replication

SHAPE = "a mapping with packet (a declaration's name), hex (the payload) and expect"


def declaration(name: str):
    """The declaration named ``name`` (connection-phase packets first, then replication)."""
    for module in (connection, replication):
        decl = getattr(module, str(name), None)
        if decl is not None and hasattr(decl, "parse") and hasattr(decl, "build"):
            return decl
    raise KeyError(f"no packet declaration {name!r} in binlog_schema.wire.protocol.connection or "
                   f".replication")


def check_packet_vector(doc: dict) -> list:
    """The problems of one packet vector (empty when it passes both ways)."""
    try:
        decl = declaration(doc["packet"])
    except KeyError as e:
        return [str(e.args[0])]
    data = bytes.fromhex(str(doc.get("hex", "")).replace(" ", ""))
    context = doc.get("context") or {}
    want = doc.get("expect")
    problems = []
    try:
        got = to_plain(decl.parse(data, **context))
        if got != want:
            problems.append(f"parse: {first_difference(want, got) or 'differs'}")
    except Exception as e:  # noqa: BLE001 - a failing parse is the vector's failure
        problems.append(f"parse failed: {type(e).__name__}: {e}")
    try:
        built = decl.build(from_plain(want), **context)
        if built != data:
            problems.append(f"build: {built.hex()} instead of {data.hex()}")
    except Exception as e:  # noqa: BLE001
        problems.append(f"build failed: {type(e).__name__}: {e}")
    return problems

"""JSON text of parsed values: the encoder every JSON output of this package uses, and the
pieces the compiled JSON form of a declaration is made of (:meth:`.primitives.Struct`'s
``json`` direction: a struct's JSON text straight from its bytes, equal to the encoder's text
of what it parses to).

The encoder is the C one of Python's ``json`` package (``_json``), made once: compact
separators, non-ASCII text as is, bytes as ``{"hex": ...}``, any other unknown type as its
``str``. Importing it costs a fraction of a millisecond (the ``json`` package, orjson or
msgspec cost 2 to 16 ms at start-up, which a command over a small file pays whole); for a
small dict its per-call cost is most of the work, hence the templates of the JSON form.
"""

from __future__ import annotations

from .ints import PAIR_KEYS, uuid_of
from .names import flag_names

try:
    from _json import encode_basestring as quote
    from _json import make_encoder as _make_encoder
except ImportError:  # pragma: no cover - Python builds without the C accelerator
    _make_encoder = None
    from json.encoder import py_encode_basestring as quote


def _default(o):
    if isinstance(o, (bytes, bytearray, memoryview)):
        return {"hex": bytes(o).hex()}
    return str(o)


if _make_encoder is not None:
    _ENCODER = _make_encoder(None, _default, quote, None, ":", ",", False, False, True)

    def dumps(obj) -> str:
        """``obj`` as compact JSON (bytes as ``{"hex": ...}``, other unknown types as str)."""
        return "".join(_ENCODER(obj, 0))
else:  # pragma: no cover
    import json as _json_module
    _PY = _json_module.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_default)
    dumps = _PY.encode


def hex_json(b) -> str:
    """The JSON of bytes (``{"hex": ...}``), written directly (hex needs no escaping)."""
    return '{"hex":"' + b.hex() + '"}'


def object_json(d) -> str:
    """``dumps(d)`` for a dict, with a bytes value in the last place written directly (a rows
    event's row data, a raw block: the encoder would scan its hex)."""
    if type(d) is bytes or type(d) is bytearray:
        return hex_json(d)
    if not isinstance(d, dict) or not d:
        return dumps(d)
    last = next(reversed(d))
    value = d[last]
    if (type(value) is not bytes and type(value) is not bytearray) or len(value) < 64:
        return dumps(d)
    if len(d) == 1:
        return "{" + quote(last) + ":" + hex_json(value) + "}"
    head = dumps({k: v for k, v in d.items() if k is not last})
    return head[:-1] + "," + quote(last) + ":" + hex_json(value) + "}"


def value_json(v) -> str:
    """``dumps(v)``, with the common scalars written without the encoder."""
    t = type(v)
    if t is int:
        return int.__repr__(v)
    if v is None:
        return "null"
    if t is str:
        return quote(v)
    if t is bytes:
        return hex_json(v)
    return dumps(v)


def flags_json(value: int, width: int, names) -> str:
    """The JSON of a flags word's list of names (what ``ints.flags_of`` gives), kept per
    value in the name table."""
    cache = names.json_cache
    text = cache.get(value)
    if text is None:
        if len(cache) > 4096:
            cache.clear()
        text = cache[value] = dumps(flag_names(value, names))
    return text


def uuid_json(data: bytes) -> str:
    """The JSON of a UUID's 16 bytes (what ``ints.uuid_of`` gives: text that needs no
    escaping)."""
    return '"' + uuid_of(data) + '"'


_PAIR = "{%s:%%d,%s:%%s}" % tuple(quote(k) for k in PAIR_KEYS)


def pair_json(value, width, bit) -> str:
    """The JSON of what ``ints.pair_parse`` gives (two ints, the second may be None)."""
    second = value["original"]
    return _PAIR % (value["immediate"], "null" if second is None else int.__repr__(second))

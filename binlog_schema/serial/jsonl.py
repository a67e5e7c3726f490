"""JSON Lines: one JSON object per event (or table map), written straight from what the parser
returns: the parsed containers are encoded as they are (bytes as ``{"hex": ...}``), with no
intermediate copy. Compact separators, non-ASCII text as is (UTF-8), the object's keys in
declaration order.

The encoder is the C one of Python's ``json`` package (``_json``), made once; importing it
costs a fraction of a millisecond (the ``json`` package, orjson or msgspec cost 2 to 16 ms at
start-up, which a command over a small file pays whole).
"""

from __future__ import annotations

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


# ---------------------------------------------------------------------------------------
# events


def event_dict(path, rec) -> dict:
    """The JSON object of one event record (its values shared, not copied)."""
    d = {"file": path, "offset": rec.offset, "type": rec.type_name, "type_code": rec.type_code}
    if rec.parent_offset is not None:
        d["in_payload_at"] = rec.parent_offset
    if rec.error is not None:
        d["error"] = rec.error.to_dict()
        if rec.gap is not None:
            d["gap"] = list(rec.gap)
        return d
    value = rec.value
    if rec.ctx.encrypted and value is None:
        d["encrypted"] = True
        d["size"] = rec.size
        return d
    if value is not None:
        d["header"] = value["header"]
        d["body"] = value["body"]
        if "trailing" in value:
            d["trailing"] = value["trailing"]
        if "checksum" in value:
            d["checksum"] = value["checksum"]
    return d


def rows_of(rec, rows, binary: str):
    """The decoded rows of a rows event record as JSON-safe dicts (``{"before", "after"}`` for
    updates), or ``(None, error)`` when they cannot be decoded."""
    from ..errors import BinlogError
    from .value_forms import jsonable
    try:
        decoded, _ = rows.rows_of(rec)
    except BinlogError as e:
        return None, e

    def image(img):
        return {k: jsonable(v, binary) for k, v in img.items() if not k.startswith("_")}
    return [{"before": image(x[0]), "after": image(x[1])} if isinstance(x, tuple)
            else image(x) for x in decoded], None


def with_rows(d: dict, rec, rows, binary: str) -> dict:
    """``d`` with the event's decoded rows (``rows``) or why they are not there
    (``rows_error``)."""
    if rec.error is not None or rec.value is None:
        return d
    decoded, err = rows_of(rec, rows, binary)
    if err is not None:
        d["rows_error"] = err.to_dict()
    else:
        d["rows"] = decoded
    return d


# ---------------------------------------------------------------------------------------
# table maps


def table_map_dict(path, rec) -> dict:
    from ..model.table_map import table_map_from_event
    d = {"file": path, "offset": rec.offset}
    if rec.parent_offset is not None:
        d["in_payload_at"] = rec.parent_offset
    d.update(table_map_from_event(rec.value, rec.ctx).to_dict())
    return d

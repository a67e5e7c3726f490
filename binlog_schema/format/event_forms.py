"""JSON-safe forms of parsed events, both ways: containers to dicts and lists, bytes to
``{"hex": ...}``, keys starting with ``_`` dropped (:func:`to_plain`), and back
(:func:`from_plain`); :func:`first_difference` names where two such values differ. Golden
vectors, the table-map model's JSON and the event writers use these forms."""

from __future__ import annotations


def to_plain(value):
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items() if not str(k).startswith("_")}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"hex": bytes(value).hex()}
    return value


def from_plain(value):
    if isinstance(value, dict):
        if set(value) == {"hex"} and isinstance(value["hex"], str):
            return bytes.fromhex(value["hex"])
        return {k: from_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [from_plain(v) for v in value]
    return value


def first_difference(a, b, path: str = "") -> str | None:
    """The path of the first place where two plain values differ (None when equal)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{path}.{k}".lstrip(".") + (" (missing)" if k not in b else " (extra)")
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"{path} (length {len(a)} vs {len(b)})".lstrip(".")
        return None
    return None if a == b and type(a) is type(b) else (path.lstrip(".") or "(root)")

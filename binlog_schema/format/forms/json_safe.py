"""JSON-safe forms of row values, both ways: :func:`jsonable` (any decoded value, by its
class, through its family's ``json_safe``) and :func:`from_jsonable` (a column's typed
value from that form, through its family's ``from_json_safe``), so that JSON rows build back
to the same bytes. Decimals are positional strings, bytes hex or base64, temporal values
MySQL's text (zero dates kept), ENUM/SET by name when known, JSON documents tagged where a
type would be lost."""

from __future__ import annotations

import base64
import math

from ...construct_ext.jsontext import dumps
from ..facts.coltypes import COMPRESSED_TYPES
from . import family


def _plain(v, binary="hex"):
    return v


_ORDER: tuple = ()   # (classes, form), made on first use (below)
_BY_CLASS: dict = {}


def _forms():
    """The forms by class, made on first use (a command that writes no value this way loads
    no family): ``_ORDER``, (class, form) in the order a value's class is looked up when it is
    not one of them exactly (a subclass: the first that it is an instance of), and
    ``_BY_CLASS``, by exact class."""
    global _ORDER
    import datetime as _dt
    import decimal as _decimal

    from ..values import temporal
    from ..values.codecs import Compressed, EnumValue, Geometry, SetValue
    from ..values.image import JsonDiff
    from . import datetimes, decimals, documents, members, reals, spatial, strings, vectors

    def _temporal(v, binary="hex"):
        return datetimes.json_safe(v) if type(v) not in documents.JSON_TEMPORAL else \
            documents.to_typed_json(v)

    order = (
        (float, reals.json_safe),
        (list, vectors.json_safe),
        ((bool, int, str), _plain),
        (_decimal.Decimal, decimals.json_safe),
        ((bytes, bytearray, memoryview), strings.bytes_json_safe),
        ((temporal.Date, temporal.DateTime, temporal.Time, temporal.Timestamp), _temporal),
        (EnumValue, members.enum_json_safe),
        (SetValue, members.set_json_safe),
        (Geometry, spatial.json_safe),
        (Compressed, lambda v, binary="hex": {"compressed": v.stored.hex(),
                                               "data": jsonable(v.data, binary)}),
        (JsonDiff, documents.diff_json_safe),
        ((dict, tuple, _dt.date, _dt.timedelta) + documents.DOCUMENT_CLASSES,
         documents.json_safe),
    )
    by_class = {type(None): _plain}
    for classes, form in order:
        for cls in (classes if isinstance(classes, tuple) else (classes,)):
            by_class.setdefault(cls, form)
    for cls in documents.DOCUMENT_CLASSES:  # (subclasses of the classes above: theirs first)
        by_class[cls] = documents.json_safe
    by_class.update({documents.JsonUInt: _plain, documents.JsonDecimal: decimals.json_safe})
    _ORDER = order
    _BY_CLASS.update(by_class)


def jsonable(v, binary: str = "hex"):
    """A JSON-safe rendering of a row value: decimals as positional strings, bytes as hex (or
    base64), temporal values in ISO form (zero dates as MySQL prints them: lossless)."""
    form = _BY_CLASS.get(type(v))
    if form is not None:
        return form(v, binary)
    if not _ORDER:
        _forms()
        return jsonable(v, binary)
    for classes, form in _ORDER:
        if isinstance(v, classes):
            return form(v, binary)
    to_jsonable = getattr(v, "to_jsonable", None)
    if callable(to_jsonable):
        return to_jsonable()
    return str(v)


def from_jsonable(col, v):
    """The typed value of a column from its JSON-safe form (the inverse of :func:`jsonable`
    for that column's type), so that JSON rows build back to the same bytes."""
    if v is None:
        return None
    ty = col.type
    if ty in COMPRESSED_TYPES:
        return family(ty).from_json_safe(col, v)
    if isinstance(v, dict) and set(v) == {"hex"}:
        return bytes.fromhex(v["hex"])
    if isinstance(v, dict) and set(v) == {"float"}:
        return family("DOUBLE").float_of(v["float"])
    if ty == "VECTOR":
        return family(ty).from_json_safe(col, v)
    if isinstance(v, dict) and set(v) == {"base64"}:
        return base64.b64decode(v["base64"])
    real = col.real_type or ty
    fam = family(real if real in ("ENUM", "SET") else ty)
    from_json_safe = getattr(fam, "from_json_safe", None)
    return v if from_json_safe is None else from_json_safe(col, v)


def generic_text(v) -> str:
    """Any value's JSON text in the change records: its JSON-safe form (:func:`jsonable`,
    bytes as base64); a NaN or an infinity ``null``."""
    if isinstance(v, float) and not math.isfinite(v):
        return "null"
    return dumps(jsonable(v, "base64"))

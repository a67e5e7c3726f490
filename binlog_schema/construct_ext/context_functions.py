"""Functions that declarations call with the context (``this``): values of the explicit
context object, fields of the value being built, build-time consistency rules."""

from __future__ import annotations

from .errors import CheckError, IntegerError, ValidationError
from .names import flag_value
from .text import encoded


def ctx_value(this, key, default):
    """``this._params.ctx[key]`` when a context object was passed, else ``default``."""
    ctx = this["_params"].get("ctx")
    if ctx is None:
        return default
    value = ctx[key]
    return default if value is None else value


def param(this, key, default):
    """The keyword ``key`` given to parse or build (``decl.parse(data, key=...)``), else
    ``default``."""
    return this["_params"].get(key, default)


def field(this, key):
    """A field of the value being built (or parsed); its absence is a layout error."""
    try:
        return this[key]
    except KeyError:
        raise ValidationError(f"missing field {key!r}") from None


def items(this, key) -> list:
    value = field(this, key)
    if not isinstance(value, (list, tuple)):
        raise ValidationError(f"{key} must be a list, got {value!r:.40}")
    return value


def field_byte_len(this, key) -> int:
    """Byte length of the text (or bytes) field ``key``."""
    return len(encoded(field(this, key)))


def field_byte_len_low(this, key) -> int:
    """The low byte of ``key``'s length (a writer's ``(uchar) length``)."""
    return len(encoded(field(this, key))) & 0xFF


def list_len(this, key) -> int:
    return len(items(this, key))


def name_lens(this, key) -> list:
    return [len(encoded(name)) for name in items(this, key)]


def get_or_none(this, key):
    return this.get(key)


def int_field(this, key) -> int:
    value = field(this, key)
    if not isinstance(value, int):
        raise IntegerError(f"{key} must be an int, got {value!r:.40}")
    return value


def flag_set(value, table, mask: int) -> bool:
    """Whether any bit of ``mask`` is set in a flags value (a list of names, or an int)."""
    return bool(flag_value(value, table) & mask)


def presence_ok(this, rules) -> bool:
    """Each (field, flags field, table, mask): the field is present iff a flag of mask is set.
    (On parse it always holds; on build it refuses a value that would not parse back.)"""
    for key, fkey, table, mask in rules:
        if (this.get(key) is not None) != flag_set(this.get(fkey), table, mask):
            raise CheckError(f"{key} must be given exactly when {fkey} has a flag of "
                             f"{mask:#x} set")
    return True


def tail_ok(this, keys, lead_key=None, lead_value=None) -> bool:
    """Optional tail fields: none may be given after one that is None, and none at all
    unless ``lead_key`` has ``lead_value``."""
    gap = lead_key is not None and this.get(lead_key) != lead_value
    for key in keys:
        if this.get(key) is None:
            gap = True
        elif gap:
            raise CheckError(f"{key} is given, but a field it follows is absent "
                             f"(optional tail fields are written in order)")
    return True

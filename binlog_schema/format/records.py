"""Small record classes: ``@record`` turns an annotated class into one with ``__slots__``, an
``__init__`` taking the fields in order (defaults from the class body, :func:`factory` for a
fresh mutable default), ``==``, ``repr`` and, with ``frozen=True``, immutability and a hash.
Attributes that are not
fields (caches) are named in ``__extra_slots__``. A record class derived from another has its
fields, then its own.

What :mod:`dataclasses` gives, without its import (about 10 ms at start-up: ``inspect``,
``ast``...), which every command over a small file would pay; the ``__init__`` source is
compiled once and kept in the cache folder of compiled declarations. :func:`fields` lists a
record class's field names.
"""

from __future__ import annotations

from ..construct_ext.cache import code_of
from ..construct_ext.run import execute


class factory:
    """A default made anew for each record (``factory(list)``)."""

    __slots__ = ("make",)

    def __init__(self, make):
        self.make = make


def fields(cls) -> tuple:
    return cls._fields


def record(cls=None, *, frozen: bool = False):
    def wrap(cls):
        own = tuple(n for n in cls.__dict__.get("__annotations__", {}))
        base = next((b for b in cls.__bases__ if hasattr(b, "_fields")), None)
        names = (base._fields if base is not None else ()) + own   # a record's fields first
        defaults = {**(base._defaults if base is not None else {}),
                    **{n: cls.__dict__[n] for n in own if n in cls.__dict__}}
        body = {k: v for k, v in cls.__dict__.items()
                if k not in own and k not in ("__dict__", "__weakref__")}
        body["__slots__"] = own + tuple(cls.__dict__.get("__extra_slots__", ()))
        body["_fields"] = names
        body["_defaults"] = defaults
        params, lines, env = [], [], {"_object_setattr": object.__setattr__}
        for n in names:
            if n in defaults:
                d = defaults[n]
                env[f"_d_{n}"] = d
                params.append(f"{n}=_d_{n}")
                value = f"{n}.make() if {n} is _d_{n} else {n}" if isinstance(d, factory) else n
            else:
                if params and "=" in params[-1]:
                    raise TypeError(f"{cls.__name__}.{n}: a field without a default follows "
                                    "one with a default")
                params.append(n)
                value = n
            lines.append(f"    _object_setattr(self, {n!r}, {value})" if frozen
                         else f"    self.{n} = {value}")
        src = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(lines) or "    pass")
        name = f"record.{cls.__module__}.{cls.__qualname__}"
        env = execute(code_of(src, name), f"<binlog_schema {name}>", env)
        body["__init__"] = env["__init__"]
        if "__eq__" not in body:
            def __eq__(self, other):
                if other.__class__ is not self.__class__:
                    return NotImplemented
                return all(getattr(self, n) == getattr(other, n) for n in names)
            body["__eq__"] = __eq__
        if "__repr__" not in body:
            def __repr__(self):
                return f"{type(self).__name__}(" + ", ".join(
                    f"{n}={getattr(self, n)!r}" for n in names) + ")"
            body["__repr__"] = __repr__
        if frozen:
            def __setattr__(self, name, value):
                raise AttributeError(f"cannot assign to field {name!r}")
            body["__setattr__"] = __setattr__
            body["__delattr__"] = __setattr__
            if "__hash__" not in body:
                body["__hash__"] = lambda self: hash(tuple(getattr(self, n) for n in names))
            body["__reduce__"] = lambda self: (type(self), tuple(getattr(self, n)
                                                                 for n in names))
        else:
            body.setdefault("__hash__", None)
        new = type(cls.__name__, cls.__bases__, body)
        new.__qualname__ = cls.__qualname__
        return new
    return wrap if cls is None else wrap(cls)

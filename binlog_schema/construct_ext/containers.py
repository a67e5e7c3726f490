"""``Container`` and ``ListContainer`` without construct: what parsing returns.

The same semantics as construct's classes (``construct.lib.containers``): a dict with attribute
access whose equality ignores keys starting with ``_`` (construct keeps ``_io`` and similar
there), and a list.
"""

from __future__ import annotations


class Container(dict):
    """A dict with attribute access; ``==`` ignores keys that start with ``_``."""

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value

    def __delattr__(self, name):
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None

    def copy(self):
        return Container(self)

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, dict):
            return False
        mine = {k: v for k, v in self.items() if not _private(k)}
        theirs = {k: v for k, v in other.items() if not _private(k)}
        return mine == theirs

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        return "Container(%s)" % ", ".join(
            f"{k}={v!r}" for k, v in self.items() if not _private(k))


def _private(key) -> bool:
    return isinstance(key, (str, bytes)) and key[:1] in ("_", b"_")


class ListContainer(list):
    """A list (construct's ListContainer, without construct)."""

    __slots__ = ()

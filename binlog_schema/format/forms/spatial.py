"""GEOMETRY (every spatial type): every form of its values.

The row decoder gives ``Geometry``: the SRID and the well-known binary (WKB).

* JSON Lines: ``{"srid": n, "wkb": hex}``
* SQL: ``ST_GeomFromWKB(X'<wkb>', srid)``, on MySQL with a non-zero SRID
  ``'axis-order=long-lat'`` too (the binlog holds the internal long-lat order)
* Maxwell: well-known text as JTS writes it (:func:`wkt`; base64 WKB when it is not WKB);
  Debezium: ``{"wkb": base64, "srid": n}`` (``io.debezium.data.geometry.Geometry``)
* Spark: ``long`` (the SRID) and ``binary`` (the WKB)
"""

from __future__ import annotations

import struct

from ...construct_ext.jsontext import quote
from ..values.codecs import Geometry
from .shared import BINARY, LONG, base64_text, fail



def json_safe(v, binary: str = "hex"):
    return {"srid": v.srid, "wkb": v.wkb.hex()}


def from_json_safe(col, v):
    return Geometry(v["srid"], bytes.fromhex(v["wkb"]))


def json_converter(codec, generic):
    return generic


def sql_literal(col, flavor: str):
    """The column's SQL literal writer (a function of a non-NULL value)."""
    def geometry_literal(value):
        return _geometry_literal(col, value, flavor)
    return geometry_literal


def _geometry_literal(col, value, flavor: str) -> str:
    if not isinstance(value, Geometry):
        fail(col, f"{value!r:.60} is not a geometry")
    wkb = f"X'{bytes(value.wkb).hex()}'"
    if value.srid and flavor == "mysql":
        return f"ST_GeomFromWKB({wkb}, {value.srid}, 'axis-order=long-lat')"
    return f"ST_GeomFromWKB({wkb}, {value.srid})"


def maxwell(col, codec, generic):
    def geometry_json(v):
        try:
            return quote(wkt(v.wkb))
        except (ValueError, struct.error, IndexError):
            return base64_text(v.wkb)
    return geometry_json


def debezium(col, codec, generic):  # io.debezium.data.geometry.Geometry
    return lambda v: '{"wkb":' + base64_text(v.wkb) + ',"srid":' + int.__repr__(
        v.srid) + "}"


SPARK = {Geometry: lambda v: ((LONG, v.srid), (BINARY, bytes(v.wkb)))}


# ---------------------------------------------------------------------------- WKB as WKT


_KINDS = {1: "POINT", 2: "LINESTRING", 3: "POLYGON", 4: "MULTIPOINT", 5: "MULTILINESTRING",
          6: "MULTIPOLYGON", 7: "GEOMETRYCOLLECTION"}


def _num(x: float) -> str:
    text = repr(x)
    return text[:-2] if text.endswith(".0") else text


def wkt(wkb: bytes) -> str:
    """Well-known binary as well-known text, as JTS's ``Geometry.toText`` writes it
    (``POINT (1 2)``, ``MULTIPOINT ((0 0), (1 1))``, ``... EMPTY``)."""
    text, pos = _wkt(bytes(wkb), 0)
    if pos != len(wkb):
        raise ValueError("bytes after the geometry")
    return text


def _wkt(data: bytes, pos: int):
    order = "<" if data[pos] == 1 else ">"
    name = _KINDS[struct.unpack_from(order + "I", data, pos + 1)[0]]
    pos += 5

    def count():
        nonlocal pos
        n = struct.unpack_from(order + "I", data, pos)[0]
        pos += 4
        if n > len(data):
            raise ValueError("a count past the data")
        return n

    def points(n):
        nonlocal pos
        out = []
        for _ in range(n):
            x, y = struct.unpack_from(order + "dd", data, pos)
            pos += 16
            out.append(f"{_num(x)} {_num(y)}")
        return out

    if name == "POINT":
        x, y = struct.unpack_from(order + "dd", data, pos)
        pos += 16
        if x != x and y != y:
            return "POINT EMPTY", pos
        return f"POINT ({_num(x)} {_num(y)})", pos
    if name == "LINESTRING":
        pts = points(count())
        return (f"LINESTRING ({', '.join(pts)})" if pts else "LINESTRING EMPTY"), pos
    if name == "POLYGON":
        rings = ["(" + ", ".join(points(count())) + ")" for _ in range(count())]
        return (f"POLYGON ({', '.join(rings)})" if rings else "POLYGON EMPTY"), pos
    parts = []
    for _ in range(count()):
        part, pos = _wkt(data, pos)
        parts.append(part)
    if not parts:
        return f"{name} EMPTY", pos
    if name == "GEOMETRYCOLLECTION":
        return f"{name} ({', '.join(parts)})", pos
    # MULTI*: the members without their own names
    inner = [p[p.index(" ") + 1:] for p in parts]
    return f"{name} ({', '.join(inner)})", pos

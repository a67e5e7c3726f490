"""Geometry values: WKT text parsed into little-endian WKB (:func:`wkt_to_wkb`), and a
geometry column's spec value (WKT text, or ``{srid, wkt | wkb}``) checked against the column's
type and SRID into a :class:`~binlog_schema.format.values.codecs.Geometry`
(:func:`geometry_value`); what is wrong raises :class:`~.column_values.ValueProblem`.
"""

from __future__ import annotations

import re
import struct

from ..format.values.codecs import Geometry
from .column_values import ValueProblem


_WKB_CODES = {"POINT": 1, "LINESTRING": 2, "POLYGON": 3, "MULTIPOINT": 4,
              "MULTILINESTRING": 5, "MULTIPOLYGON": 6, "GEOMETRYCOLLECTION": 7}


class _Wkt:
    def __init__(self, text):
        self.toks = re.findall(r"[A-Za-z]+|-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[(),]", text)
        self.i = 0

    def next(self):
        if self.i >= len(self.toks):
            raise ValueProblem("WKT ends too early")
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, t):
        if self.next() != t:
            raise ValueProblem(f"WKT: expected {t!r}")

    def point(self):
        x, y = self.next(), self.next()
        try:
            return struct.pack("<dd", float(x), float(y))
        except ValueError:
            raise ValueProblem("WKT: a point is two numbers") from None

    def seq(self, item):
        self.expect("(")
        items = [item()]
        while self.toks[self.i:self.i + 1] == [","]:
            self.i += 1
            items.append(item())
        self.expect(")")
        return items

    def geometry(self):
        kind = self.next().upper()
        if kind not in _WKB_CODES:
            raise ValueProblem(f"WKT: unknown geometry {kind}")
        head = struct.pack("<BI", 1, _WKB_CODES[kind])
        if kind == "POINT":
            self.expect("(")
            body = self.point()
            self.expect(")")
            return kind, head + body
        if kind == "LINESTRING":
            pts = self.seq(self.point)
            return kind, head + struct.pack("<I", len(pts)) + b"".join(pts)
        if kind == "POLYGON":
            rings = self.seq(lambda: self.seq(self.point))
            return kind, head + struct.pack("<I", len(rings)) + b"".join(
                struct.pack("<I", len(r)) + b"".join(r) for r in rings)
        if kind == "MULTIPOINT":
            def one():
                if self.toks[self.i] == "(":
                    self.i += 1
                    p = self.point()
                    self.expect(")")
                else:
                    p = self.point()
                return struct.pack("<BI", 1, 1) + p
            pts = self.seq(one)
            return kind, head + struct.pack("<I", len(pts)) + b"".join(pts)
        if kind in ("MULTILINESTRING", "MULTIPOLYGON"):
            sub = "LINESTRING" if kind == "MULTILINESTRING" else "POLYGON"
            parts = self.seq(lambda: self._as(sub))
            return kind, head + struct.pack("<I", len(parts)) + b"".join(parts)
        parts = self.seq(lambda: self.geometry()[1])
        return kind, head + struct.pack("<I", len(parts)) + b"".join(parts)

    def _as(self, kind):
        self.toks.insert(self.i, kind)
        return self.geometry()[1]


def wkt_to_wkb(text: str):
    """(geometry type name, little-endian WKB) of a WKT text."""
    p = _Wkt(text)
    kind, wkb = p.geometry()
    if p.i != len(p.toks):
        raise ValueProblem("WKT: text after the geometry")
    return kind, wkb


def geometry_value(col, v):
    srid = col.srid or 0
    if isinstance(v, str):
        kind, wkb = wkt_to_wkb(v)
    elif isinstance(v, dict) and ("wkt" in v or "wkb" in v):
        srid = int(v.get("srid", srid))
        if "wkt" in v:
            kind, wkb = wkt_to_wkb(v["wkt"])
        else:
            wkb = bytes.fromhex(v["wkb"])
            if len(wkb) < 5:
                raise ValueProblem("WKB shorter than its header")
            code = struct.unpack("<I" if wkb[0] == 1 else ">I", wkb[1:5])[0]
            kind = {n: k for k, n in _WKB_CODES.items()}.get(code)
            if kind is None:
                raise ValueProblem(f"WKB geometry type {code} is unknown")
    else:
        raise ValueProblem(f"{v!r} is not a geometry (WKT text or {{srid, wkt|wkb}})")
    if col.base != "GEOMETRY" and kind != col.base:
        raise ValueProblem(f"a {kind} in a {col.base} column")
    if col.srid is not None and srid != col.srid:
        raise ValueProblem(f"SRID {srid} in a column of SRID {col.srid}")
    if not 0 <= srid < 1 << 32:
        raise ValueProblem(f"SRID {srid} is out of range")
    return Geometry(srid, wkb)



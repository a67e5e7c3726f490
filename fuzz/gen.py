"""Typed values from fuzzer bytes, for the build target (harness.build).

Table maps are made the way their flavor's rules say a server makes them (only the facts the
TLVs of that flavor/version/row_metadata carry are set), so that a model that builds must
parse back equal; values are mostly inside their column's range, sometimes outside it (then
the build must refuse them with a typed or construct error).
"""

from __future__ import annotations

import decimal
import json
import math
import struct

import construct as c

from binlog_schema.construct_ext.errors import LayoutError

from binlog_schema.format.errors import BinlogError, BuildError
from binlog_schema.format.facts.charsets import BINARY_ID
from binlog_schema.format.facts.codes import WRITE_ROWS_EVENT
from binlog_schema.format.facts.flavor import flavor_for, flavor_name_of, json_is_binary
from binlog_schema.changes.table_map import Column, TableMap, table_map_from_event
from binlog_schema.format.event_codec import build_event, parse_event

from .common import VERSIONS, Finding, byte_difference, check_typed, untyped

try:
    from atheris import FuzzedDataProvider
except ImportError:  # the smoke test without atheris: a small pure-Python stand-in
    FuzzedDataProvider = None


class _Provider:
    """The few FuzzedDataProvider methods used here, reading bytes front to back."""

    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def remaining_bytes(self) -> int:
        return len(self.data) - self.pos

    def ConsumeBytes(self, n: int) -> bytes:
        out = self.data[self.pos:self.pos + max(n, 0)]
        self.pos += len(out)
        return out

    def ConsumeIntInRange(self, lo: int, hi: int) -> int:
        span = hi - lo
        if span <= 0:
            return lo
        raw = self.ConsumeBytes((span.bit_length() + 7) // 8)
        return lo + int.from_bytes(raw.ljust(1, b"\0"), "little") % (span + 1)

    def ConsumeBool(self) -> bool:
        return bool(self.ConsumeIntInRange(0, 1))

    def PickValueInList(self, items):
        return items[self.ConsumeIntInRange(0, len(items) - 1)]

    def ConsumeUnicodeNoSurrogates(self, n: int) -> str:
        raw = self.ConsumeBytes(n * 2)
        out = []
        for i in range(0, len(raw) - 1, 2):
            cp = int.from_bytes(raw[i:i + 2], "little")
            out.append(chr(cp if not 0xD800 <= cp < 0xE000 else cp & 0x7F))
        return "".join(out)


def provider(data: bytes):
    return FuzzedDataProvider(data) if FuzzedDataProvider is not None else _Provider(data)


# ------------------------------------------------------------------------------- table maps

META_TYPES = ["TINY", "SHORT", "INT24", "LONG", "LONGLONG", "FLOAT", "DOUBLE", "DECIMAL",
              "NEWDECIMAL", "YEAR", "NULL", "TIMESTAMP", "DATE", "TIME", "DATETIME",
              "NEWDATE", "TIMESTAMP2", "DATETIME2", "TIME2", "VARCHAR", "STRING", "VAR_STRING",
              "ENUM", "SET", "BIT", "TINY_BLOB", "MEDIUM_BLOB", "LONG_BLOB", "BLOB", "JSON",
              "GEOMETRY", "VECTOR", "BLOB_COMPRESSED", "VARCHAR_COMPRESSED", "TYPED_ARRAY"]
ROW_TYPES = [t for t in META_TYPES if t not in ("DECIMAL", "TYPED_ARRAY")]
COLLATIONS = [63, 33, 255, 8, 45, 46, 11, 28, 54, 2304, 1033, 83, 95, 224]
ALPHABET = "abcxyz_AZ09 éü€ßжあ😀\u0000'\""
ALPHABET_LIST = list(ALPHABET)


def _text(fdp, n=8) -> str:
    k = fdp.ConsumeIntInRange(0, n)
    return "".join(fdp.PickValueInList(ALPHABET_LIST) for _ in range(k))


def _wide(fdp, lo, hi, out=0):
    """Mostly in [lo, hi]; with ``out`` > 0, sometimes up to ``out`` past either end."""
    if out and fdp.ConsumeIntInRange(0, 15) == 0:
        return fdp.ConsumeIntInRange(lo - out, hi + out)
    return fdp.ConsumeIntInRange(lo, hi)


def make_table_map(fdp, rows_only=False) -> TableMap:
    version = fdp.PickValueInList(list(VERSIONS))
    flavor = flavor_name_of(version)
    fl = flavor_for(flavor, version)
    row_metadata = fdp.PickValueInList(["none", "minimal", "full"])
    if rows_only and row_metadata == "none":
        row_metadata = "minimal"
    slots = {"none": (), "minimal": fl.minimal, "full": fl.full}[row_metadata]
    tid_size = fdp.PickValueInList([4, 6])
    many = not rows_only and fdp.ConsumeIntInRange(0, 511) == 0  # around the column limit
    n = fdp.ConsumeIntInRange(4094, 4098) if many else fdp.ConsumeIntInRange(1, 10)
    types = ROW_TYPES if rows_only else META_TYPES
    cols = []
    for i in range(n):
        t = "LONG" if many else fdp.PickValueInList(types)
        if flavor != "mariadb" and t in ("BLOB_COMPRESSED", "VARCHAR_COMPRESSED"):
            t = "BLOB"
        col = Column(index=i, type=t, nullable=fdp.ConsumeBool())
        _metadata(fdp, col, flavor)
        cols.append(col)
    if not rows_only and fdp.ConsumeIntInRange(0, 15) == 0:  # an unknown type, last
        cols.append(Column(index=n, type=fdp.ConsumeIntInRange(21, 139),
                           nullable=fdp.ConsumeBool(),
                           metadata_hex=fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 4)).hex()))
    for col in cols:
        if "SIGNEDNESS" in slots and fl.is_numeric(col.type):
            col.unsigned = fdp.ConsumeBool()
        if "CHARSET" in slots and fl.is_character(col.type, col.real_type):
            col.collation_id = fdp.PickValueInList(COLLATIONS)
        if col.real_type in ("ENUM", "SET"):
            if "ENUM_AND_SET_CHARSET" in slots:
                col.collation_id = fdp.PickValueInList(COLLATIONS)
            which = "SET_STR_VALUE" if col.real_type == "SET" else "ENUM_STR_VALUE"
            if which in slots:
                members = [_text(fdp, 5) or "m" for _ in range(fdp.ConsumeIntInRange(0, 5))]
                setattr(col, "set_values" if col.real_type == "SET" else "enum_values",
                        members)
        if "COLUMN_NAME" in slots:
            col.name = _text(fdp, 10)
        if "GEOMETRY_TYPE" in slots and col.type == "GEOMETRY":
            col.geometry_type = _wide(fdp, 0, 7, 300)
        if "VECTOR_DIMENSIONALITY" in slots and col.type == "VECTOR":
            col.vector_dimensions = fdp.ConsumeIntInRange(0, 16383)
        if "COLUMN_VISIBILITY" in slots:
            col.visible = fdp.ConsumeBool()
    tm = TableMap(
        table_id=_wide(fdp, 0, (1 << (8 * tid_size)) - 1, 1 << 20),
        database=_text(fdp, 12), table=_text(fdp, 12), columns=cols,
        flags=[f for f in ("BIT_LEN_EXACT", "REFERRED_FK_DB", "GENERATED_INVISIBLE_PK")
               if fdp.ConsumeBool()],
        row_metadata=row_metadata, flavor=flavor, server_version=version,
        checksum=fdp.ConsumeBool(), table_id_size=tid_size)
    if "PRIMARY_KEY" in slots and fdp.ConsumeBool():
        tm.primary_key = [{"column": fdp.ConsumeIntInRange(0, len(cols) - 1),
                           "prefix": fdp.PickValueInList([0, 0, fdp.ConsumeIntInRange(1, 3072)])}
                          for _ in range(fdp.ConsumeIntInRange(1, 3))]
    return tm


def _metadata(fdp, col, flavor):
    t = col.type
    if t in ("FLOAT", "DOUBLE"):
        col.pack_length = fdp.PickValueInList([4, 8])
    elif t in ("TINY_BLOB", "MEDIUM_BLOB", "LONG_BLOB", "BLOB", "JSON", "GEOMETRY", "VECTOR",
               "BLOB_COMPRESSED"):
        col.pack_length = _wide(fdp, 1, 4, 300)
    elif t in ("TIMESTAMP2", "DATETIME2", "TIME2"):
        col.fsp = _wide(fdp, 0, 6, 300)
    elif t == "VARCHAR":
        col.max_length = _wide(fdp, 0, 65535, 10)
    elif t == "VARCHAR_COMPRESSED":
        col.max_length = _wide(fdp, 0, 65535, 10)
    elif t in ("STRING", "VAR_STRING"):
        col.real_type = t
        col.max_length = _wide(fdp, 0, 1023, 10)
    elif t in ("ENUM", "SET"):
        col.type, col.real_type = "STRING", t
        col.pack_length = _wide(fdp, 1, 2 if t == "ENUM" else 8, 300)
    elif t == "BIT":
        col.bits = _wide(fdp, 1, 64, 2100)
    elif t == "NEWDECIMAL":
        col.precision = _wide(fdp, 1, 65, 200)
        col.scale = _wide(fdp, 0, max(0, min(col.precision, 30)), 200)
    elif t == "TYPED_ARRAY":
        col.element_type = fdp.PickValueInList(["VARCHAR", "LONG", "NEWDECIMAL", "DATETIME2"])
        if col.element_type == "VARCHAR":
            col.max_length = _wide(fdp, 0, 0xFFFFFF, 10)
        elif col.element_type == "NEWDECIMAL":
            col.precision, col.scale = fdp.ConsumeIntInRange(1, 65), fdp.ConsumeIntInRange(0, 30)
        elif col.element_type == "DATETIME2":
            col.fsp = fdp.ConsumeIntInRange(0, 6)


def _model(tm: TableMap) -> dict:
    d = tm.to_dict()
    d.pop("header", None)
    # row_metadata is inferred from the TLVs on parse: MINIMAL writing none reads as none
    names = [t["type"] for t in tm.optional_metadata()]
    d["row_metadata"] = "full" if "COLUMN_NAME" in names else "minimal" if names else "none"
    return d


def table_map_roundtrip(tm: TableMap):
    """Build a typed table map; it must parse back to the same model (or be refused with a
    BuildError). Returns the event bytes and the parsed model (None when refused)."""
    try:
        data = tm.to_bytes()
    except BuildError as e:
        check_typed(e, b"", "TableMap.to_bytes")
        return None, None
    except Exception as e:  # noqa: BLE001
        raise untyped("TableMap.to_bytes", e) from None
    ctx = tm.context()
    try:
        back = table_map_from_event(parse_event(data, ctx), ctx)
    except BinlogError as e:
        raise Finding(f"a built TABLE_MAP does not parse: {e}") from None
    except Exception as e:  # noqa: BLE001
        raise untyped("table_map_from_event", e) from None
    want, got = _model(tm), _model(back)
    if want != got:
        from binlog_schema.format.event_forms import first_difference
        raise Finding(f"TableMap built then parsed differs at {first_difference(want, got)}: "
                      f"{_at(want, got)}")
    return data, back


def _at(want, got):
    from binlog_schema.format.event_forms import first_difference
    path = first_difference(want, got) or ""
    a, b = want, got
    for part in path.replace("[", ".").replace("]", "").split("."):
        if not part or " " in part:
            break
        try:
            key = int(part) if isinstance(a, list) else part
            a, b = a[key], b[key]
        except (KeyError, IndexError, TypeError):
            break
    return f"{a!r:.120} vs {b!r:.120}"


# ------------------------------------------------------------------------------- values


def _float32(fdp) -> float:
    return struct.unpack("<f", fdp.ConsumeBytes(4).ljust(4, b"\0"))[0]


def _double(fdp) -> float:
    return struct.unpack("<d", fdp.ConsumeBytes(8).ljust(8, b"\0"))[0]


def _charset_text(fdp, col, n=12):
    if col.collation_id == BINARY_ID:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, n))
    return _text(fdp, n)


def _json(fdp, depth=0):
    kind = fdp.ConsumeIntInRange(0, 9 if depth < 3 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return fdp.ConsumeIntInRange(-(1 << 63), (1 << 64) - 1)
    if kind == 3:
        v = _double(fdp)
        return v if math.isfinite(v) else 0.5
    if kind in (4, 5):
        return _text(fdp, 10)
    if kind == 6:
        return decimal.Decimal(fdp.ConsumeIntInRange(-10 ** 12, 10 ** 12)).scaleb(
            -fdp.ConsumeIntInRange(0, 6))
    if kind == 7:
        return [_json(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    return {_text(fdp, 6): _json(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))}


def make_value(fdp, col, flavor):
    """A typed value for a column (None: NULL when the column is nullable)."""
    from binlog_schema.format.values import temporal as t
    from binlog_schema.format.values.codecs import Compressed, EnumValue, Geometry, SetValue
    if col.nullable and fdp.ConsumeIntInRange(0, 7) == 0:
        return None
    ty = col.type
    real = col.real_type or ty
    bits = {"TINY": 8, "SHORT": 16, "INT24": 24, "LONG": 32, "LONGLONG": 64}
    if ty in bits:
        n = bits[ty]
        lo, hi = (0, (1 << n) - 1) if col.unsigned else (-(1 << (n - 1)), (1 << (n - 1)) - 1)
        return _wide(fdp, lo, hi, 1 << n)
    if ty == "FLOAT":
        return _float32(fdp)
    if ty == "DOUBLE":
        return _double(fdp)
    if ty == "YEAR":
        return fdp.PickValueInList([0, _wide(fdp, 1901, 2155, 300)])
    if ty == "NEWDECIMAL":
        p, s = min(max(col.precision, 0), 80), max(col.scale, 0)
        digits = fdp.ConsumeIntInRange(0, p + (1 if fdp.ConsumeIntInRange(0, 15) == 0 else 0))
        v = decimal.Decimal(fdp.ConsumeIntInRange(0, 10 ** digits - 1)).scaleb(-s)
        return -v if fdp.ConsumeBool() else v
    if ty in ("DATE", "NEWDATE"):
        return t.Date(_wide(fdp, 0, 9999, 30000), fdp.ConsumeIntInRange(0, 12),
                      fdp.ConsumeIntInRange(0, 31))
    if ty in ("DATETIME", "DATETIME2"):
        us = _micro(fdp, col) if ty == "DATETIME2" else 0
        return t.DateTime(_wide(fdp, 0, 9999, 100), fdp.ConsumeIntInRange(0, 12),
                          fdp.ConsumeIntInRange(0, 31), fdp.ConsumeIntInRange(0, 23),
                          fdp.ConsumeIntInRange(0, 59), fdp.ConsumeIntInRange(0, 59), us)
    if ty in ("TIME", "TIME2"):
        us = _micro(fdp, col) if ty == "TIME2" else 0
        h = _wide(fdp, 0, 838, 2000)
        m, s = fdp.ConsumeIntInRange(0, 59), fdp.ConsumeIntInRange(0, 59)
        neg = fdp.ConsumeBool() and (h or m or s or us)
        return t.Time(bool(neg), h, m, s, us)
    if ty in ("TIMESTAMP", "TIMESTAMP2"):
        us = _micro(fdp, col) if ty == "TIMESTAMP2" else 0
        return t.Timestamp(_wide(fdp, 0, (1 << 32) - 1, 1 << 32), us)
    if ty == "BIT":
        nb = (col.bits + 7) // 8
        return _wide(fdp, 0, (1 << (8 * nb)) - 1, 1 << 8)
    if real == "ENUM":
        names = col.enum_values
        i = _wide(fdp, 0, len(names or []) or 5, 70000)
        return EnumValue(i, names[i - 1] if names and 0 < i <= len(names)
                         else ("" if i == 0 and names else None))
    if real == "SET":
        names = col.set_values
        bits = _wide(fdp, 0, (1 << len(names or [])) - 1 if names else 255, 1 << 20)
        return SetValue(bits, tuple(n for k, n in enumerate(names) if bits >> k & 1)
                        if names else None)
    if ty in ("VARCHAR", "STRING", "VAR_STRING", "TINY_BLOB", "MEDIUM_BLOB", "LONG_BLOB",
              "BLOB"):
        return _charset_text(fdp, col, 300 if fdp.ConsumeIntInRange(0, 15) == 0 else 12)
    if ty == "JSON":
        if not json_is_binary(flavor):   # (MariaDB's JSON is text)
            return json.dumps(_json(fdp), default=str)
        return _json(fdp)
    if ty == "GEOMETRY":
        return Geometry(_wide(fdp, 0, (1 << 32) - 1, 1 << 32),
                        fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 40)))
    if ty == "VECTOR":
        return [_float32(fdp) if fdp.ConsumeIntInRange(0, 31) else 1e39
                for _ in range(fdp.ConsumeIntInRange(0, 6))]
    if ty in ("BLOB_COMPRESSED", "VARCHAR_COMPRESSED"):
        from binlog_schema.format.facts.compression import mariadb_compress
        from binlog_schema.format.values.codecs import text_codec
        dec, enc = text_codec(col.collation_id)
        data = _charset_text(fdp, col, 40)
        try:
            raw = enc(data)
        except (c.ConstructError, LayoutError):
            return Compressed(b"\0", dec(b""))
        stored = mariadb_compress(raw) if fdp.ConsumeBool() else b"\0" + raw
        return Compressed(stored, dec(raw))
    if ty == "NULL":
        return None
    raise AssertionError(f"no value generator for {ty}")


def _micro(fdp, col):
    fsp = col.fsp or 0
    unit = 10 ** (6 - fsp)
    return fdp.ConsumeIntInRange(0, 10 ** fsp - 1) * unit


def same(a, b) -> bool:
    """Equal, with floats compared by their bits (NaN payloads included)."""
    if isinstance(a, float) and isinstance(b, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, decimal.Decimal) and isinstance(b, decimal.Decimal):
        return a == b
    return a == b


def rows_roundtrip(fdp):
    from binlog_schema.format.values.rows import RowsCodec
    tm = make_table_map(fdp, rows_only=True)
    data, back = table_map_roundtrip(tm)
    if back is None:
        return
    flavor = tm.flavor
    n = len(tm.columns)
    rows = []
    for _ in range(fdp.ConsumeIntInRange(1, 3)):
        rows.append({i: make_value(fdp, col, flavor) for i, col in enumerate(tm.columns)})
    body = {"table_id": tm.table_id, "flags": ["STMT_END"],
            "extra_data": [], "column_count": n, "columns_present": [True] * n}
    try:
        codec = RowsCodec(tm)
    except (c.ConstructError, LayoutError):
        return  # a column the codecs refuse (fsp 125): documented construct error
    try:
        raw = codec.encode(rows, body, WRITE_ROWS_EVENT)
    except (c.ConstructError, LayoutError):
        return  # a value out of its column's range: refused (documented)
    except Exception as e:  # noqa: BLE001
        raise untyped(f"RowsCodec.encode of {_describe(tm, rows)}", e) from None
    event = {"header": {"timestamp": 1, "type_code": WRITE_ROWS_EVENT, "server_id": 1,
                        "log_pos": None, "flags": []}, "body": {**body, "rows": raw}}
    ctx = tm.context()
    try:
        built = build_event(event, ctx)
        value = parse_event(built, ctx)
    except BinlogError as e:
        raise Finding(f"rows event of encodable rows does not build/parse: {e}") from None
    codec2 = RowsCodec(back)
    try:
        decoded = codec2.decode(value["body"], WRITE_ROWS_EVENT)
    except Exception as e:  # noqa: BLE001
        raise Finding(f"rows encoded from typed values do not decode: {type(e).__name__}: "
                      f"{e!r:.200} ({_describe(tm, rows)})") from None
    if len(decoded) != len(rows):
        raise Finding(f"{len(rows)} rows encoded, {len(decoded)} decoded")
    for want, got in zip(rows, decoded):
        got = {k: v for k, v in got.items() if isinstance(k, int)}
        for k in want:
            if not same(want[k], got.get(k)):
                raise Finding(f"column {k} ({tm.columns[k].type}, "
                              f"{_col(tm.columns[k])}): built {want[k]!r:.120}, "
                              f"decoded {got.get(k)!r:.120}")
    again = codec2.encode(decoded, value["body"], WRITE_ROWS_EVENT)
    if again != raw:
        raise Finding(f"decoded rows encode to other bytes: {byte_difference(raw, again)}")


def _col(col):
    return {k: v for k, v in vars(col).items() if v is not None and k != "index"}


def _describe(tm, rows):
    return f"columns {[_col(c) for c in tm.columns]!r:.300}, rows {rows!r:.300}"


def build_target(data: bytes):
    if not data:
        return
    fdp = provider(data[1:])
    if data[0] & 1:
        rows_roundtrip(fdp)
    else:
        table_map_roundtrip(make_table_map(fdp))


__all__ = ["build_target", "make_table_map", "make_value", "provider"]

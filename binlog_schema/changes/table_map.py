"""The typed TABLE_MAP: one :class:`Column` per column, merging type, metadata, nullability and
every optional-metadata fact, aligned the way the server's flavor aligns them.

Both ways: :meth:`TableMap.from_event` reads a parsed event; :meth:`TableMap.to_event` derives
everything the server derives (which TLVs its flavor/version writes at MINIMAL or FULL, their
order, DEFAULT_ vs COLUMN_CHARSET) so that a typed table map rebuilds the server's exact bytes.
"""

from __future__ import annotations

from ..format.records import factory, fields, record

from ..format.facts.charsets import decode_text, encode_text
from ..format.context import Context
from ..format.event_codec import build_event
from ..format.errors import BuildError
from ..format.facts.coltypes import TYPES
from ..format.facts.codes import TABLE_MAP_EVENT
from ..format.facts.flavor import Flavor, flavor_for, flavor_name_of
from ..format.facts.names import OPTIONAL_METADATA_CODES
from ..format.event_forms import from_plain, to_plain


@record
class Column:
    index: int
    type: str | int
    name: str | None = None
    real_type: str | int | None = None
    nullable: bool | None = None
    unsigned: bool | None = None
    collation_id: int | None = None
    max_length: int | None = None
    precision: int | None = None
    scale: int | None = None
    fsp: int | None = None
    bits: int | None = None
    pack_length: int | None = None
    element_type: str | int | None = None   # TYPED_ARRAY
    enum_values: list | None = None
    set_values: list | None = None
    geometry_type: int | None = None
    visible: bool | None = None
    vector_dimensions: int | None = None
    metadata_hex: str | None = None          # raw metadata of a type the schema does not know

    @property
    def kind(self) -> str | int:
        """ENUM/SET for STRING columns that are ENUM/SET, else the binlog type."""
        return self.real_type if self.real_type in ("ENUM", "SET") else self.type


@record
class TableMap:
    table_id: int
    database: str | bytes
    table: str | bytes
    columns: list = factory(list)
    flags: list = factory(lambda: ["BIT_LEN_EXACT"])
    row_metadata: str = "none"              # none | minimal | full (inferred when parsed)
    primary_key: list | None = None         # [{"column": i, "prefix": n}], 0 = whole column
    flavor: str | None = None
    server_version: str | None = None
    header: dict = factory(dict)
    checksum: bool = True
    table_id_size: int = 6
    layout: str = "standard"                # standard | pre_ga (no metadata, no null bits)
    #                                         | no_null_bitmap (metadata, then the end)
    extra_optional_metadata: list = factory(list)  # [{position, type, hex}]
    trailing_metadata_hex: str | None = None  # bytes after the last column's metadata
    tlv_types: list | None = None  # set only when the TLVs differ from the flavor's rules
    null_spare_bits: list | None = None  # the null bitmap's bits past the columns, when set

    # caches: the TLVs as read (until finish()); the Spark tasks' JSON columns of the table
    __extra_slots__ = ("_observed", "_pipeline_json")

    # -------------------------------------------------------------------------- reading

    @classmethod
    def from_event(cls, event, ctx: Context | None = None) -> TableMap:
        ctx = ctx or Context()
        body = event["body"]
        header = {k: v for k, v in event["header"].items() if not k.startswith("_")}
        fl = flavor_for(ctx.flavor, ctx.server_version)
        cols = [Column(index=i, type=t) for i, t in enumerate(body["column_types"])]
        tm = cls(table_id=body["table_id"], database=body["database"], table=body["table"],
                 columns=cols, flags=list(body["flags"]), flavor=fl.name,
                 server_version=ctx.server_version, header=header,
                 checksum=ctx.checksum, table_id_size=ctx.table_id_size)
        if body["column_metadata"] is None:
            tm.layout = "pre_ga"
        else:
            tm._read_metadata(body["column_metadata"])
            if body["null_bitmap"] is None:
                tm.layout = "no_null_bitmap"
        if body["null_bitmap"] is not None:
            for col, bit in zip(cols, body["null_bitmap"]):
                col.nullable = bool(bit)
            if len(body["null_bitmap"]) > len(cols):  # spare bits that are not all zero
                tm.null_spare_bits = [bool(b) for b in body["null_bitmap"][len(cols):]]
        tlvs = body["optional_metadata"]
        names = [t["type"] for t in tlvs]
        tm.row_metadata = "full" if "COLUMN_NAME" in names else "minimal" if tlvs else "none"
        for pos, tlv in enumerate(tlvs):
            tm._read_tlv(pos, tlv["type"], tlv["value"], fl)
        tm._observed = [(pos, t["type"], t["value"]) for pos, t in enumerate(tlvs)
                        if t["type"] in OPTIONAL_METADATA_NAMES]
        return tm

    def _read_metadata(self, entries):
        for col, entry in zip(self.columns, entries):
            if entry is None:
                continue
            if set(entry) == {"raw"}:
                col.metadata_hex = bytes(entry["raw"]).hex()
                continue
            for key, value in entry.items():
                if key == "element":
                    for k2, v2 in (value or {}).items():
                        setattr(col, k2, v2)
                elif not key.startswith("_"):
                    setattr(col, key, value)
        if len(entries) > len(self.columns):
            self.trailing_metadata_hex = bytes(entries[-1]["raw"]).hex()

    def _read_tlv(self, pos, kind, value, fl: Flavor):
        cols = self.columns
        if kind == "SIGNEDNESS":
            for col, bit in zip([c for c in cols if fl.is_numeric(c.type)], value):
                col.unsigned = bool(bit)
        elif kind in ("DEFAULT_CHARSET", "COLUMN_CHARSET"):
            _assign_collations([c for c in cols if fl.is_character(c.type, c.real_type)], kind,
                               value)
        elif kind in ("ENUM_AND_SET_DEFAULT_CHARSET", "ENUM_AND_SET_COLUMN_CHARSET"):
            _assign_collations([c for c in cols if c.real_type in ("ENUM", "SET")],
                               kind.replace("ENUM_AND_SET_", ""), value)
        elif kind == "COLUMN_NAME":
            for col, name in zip(cols, value):
                col.name = name
        elif kind in ("SET_STR_VALUE", "ENUM_STR_VALUE"):
            which = "SET" if kind == "SET_STR_VALUE" else "ENUM"
            targets = [c for c in cols if c.real_type == which]
            for col, members in zip(targets, value):
                setattr(col, "set_values" if which == "SET" else "enum_values",
                        [_raw(m) for m in members])
        elif kind == "GEOMETRY_TYPE":
            for col, g in zip([c for c in cols if c.type == "GEOMETRY"], value):
                col.geometry_type = g
        elif kind == "SIMPLE_PRIMARY_KEY":
            self.primary_key = [{"column": i, "prefix": 0} for i in value]
        elif kind == "PRIMARY_KEY_WITH_PREFIX":
            self.primary_key = [{"column": p["column"], "prefix": p["prefix"]} for p in value]
        elif kind == "COLUMN_VISIBILITY":
            for col, bit in zip(cols, value):
                col.visible = bool(bit)
        elif kind == "VECTOR_DIMENSIONALITY":
            for col, d in zip([c for c in cols if c.type == "VECTOR"], value):
                col.vector_dimensions = d
        else:
            self.extra_optional_metadata.append(
                {"position": pos, "type": kind, "hex": bytes(value).hex()})

    def finish(self) -> TableMap:
        """Decode ENUM/SET members in their column's charset (after every TLV was read), and
        keep the observed TLV layout when the flavor's rules would write another."""
        for col in self.columns:
            for attr in ("enum_values", "set_values"):
                members = getattr(col, attr)
                if members:
                    setattr(col, attr, [decode_text(m.data, col.collation_id)
                                        if isinstance(m, _Raw) else m for m in members])
        observed = getattr(self, "_observed", None)
        if observed is not None:
            observed = self._keep_raw(observed)
            extras = {e["position"] for e in self.extra_optional_metadata}
            derived = [t["type"] for i, t in enumerate(self.optional_metadata())
                       if i not in extras]
            if derived != observed:
                self.tlv_types = observed
        return self

    def _keep_raw(self, observed) -> list:
        """The types of the TLVs the columns regenerate exactly; every other known TLV (a
        duplicate, a list longer or shorter than its columns, a default collation no column
        takes, spare bits...) is kept as it was, as an extra at its position, so that the
        model always rebuilds the event's bytes."""
        fl = flavor_for(self.flavor, self.server_version)
        kept = []
        for pos, kind, value in observed:
            again = self._tlv(_SLOT_OF.get(kind, kind), fl, force=kind)
            if again is not None and again[0] == kind and _canon(again[1]) == _canon(value):
                kept.append(kind)
                continue
            self.extra_optional_metadata.append({
                "position": pos, "type": OPTIONAL_METADATA_CODE[kind],
                "hex": _tlv_bytes(kind, value, [c.type for c in self.columns]).hex()})
        self.extra_optional_metadata.sort(key=lambda e: e["position"])
        return kept

    # -------------------------------------------------------------------------- building

    def optional_metadata(self) -> list:
        """The TLVs this table map's server writes, in its order, with typed values (or, when
        the event had a layout the flavor's rules do not give, that layout: ``tlv_types``)."""
        fl = flavor_for(self.flavor, self.server_version)
        if self.tlv_types is not None:
            out = [self._tlv(_SLOT_OF.get(t, t), fl, force=t) for t in self.tlv_types]
        else:
            slots = {"none": (), "minimal": fl.minimal, "full": fl.full}[self.row_metadata]
            out = [self._tlv(slot, fl) for slot in slots]
        tlvs = [{"type": t, "value": v} for t, v in filter(None, out)]
        for extra in sorted(self.extra_optional_metadata, key=lambda e: e["position"]):
            tlvs.insert(min(extra["position"], len(tlvs)),
                        {"type": extra["type"], "value": bytes.fromhex(extra["hex"])})
        return tlvs

    def _tlv(self, slot, fl: Flavor, force=None):
        """One TLV slot as (type, value); None when the table has nothing for it (and the
        type is not forced)."""
        cols = self.columns
        if slot == "SIGNEDNESS":
            numeric = [c for c in cols if fl.is_numeric(c.type)]
            return ("SIGNEDNESS", [bool(c.unsigned) for c in numeric]) if numeric or force \
                else None
        if slot in ("CHARSET", "ENUM_AND_SET_CHARSET"):
            prefix = "" if slot == "CHARSET" else "ENUM_AND_SET_"
            chosen = [c for c in cols if (fl.is_character(c.type, c.real_type) if not prefix
                                          else c.real_type in ("ENUM", "SET"))]
            if not chosen and not force:
                return None
            return _charset_tlv([c.collation_id for c in chosen], prefix, force)
        if slot == "COLUMN_NAME":
            return ("COLUMN_NAME", [c.name if c.name is not None else "" for c in cols])
        if slot in ("SET_STR_VALUE", "ENUM_STR_VALUE"):
            which = "SET" if slot == "SET_STR_VALUE" else "ENUM"
            attr = "set_values" if which == "SET" else "enum_values"
            targets = [c for c in cols if c.real_type == which]
            return (slot, [[_member_bytes(m, c) for m in (getattr(c, attr) or [])]
                           for c in targets]) if targets or force else None
        if slot == "GEOMETRY_TYPE":
            geoms = [c for c in cols if c.type == "GEOMETRY"]
            return (slot, [c.geometry_type or 0 for c in geoms]) if geoms or force else None
        if slot == "PRIMARY_KEY":
            pk = self.primary_key or []
            if not pk and not force:
                return None
            if force == "PRIMARY_KEY_WITH_PREFIX" or (
                    force is None and any(p.get("prefix") for p in pk)):
                return ("PRIMARY_KEY_WITH_PREFIX",
                        [{"column": p["column"], "prefix": p.get("prefix") or 0} for p in pk])
            return ("SIMPLE_PRIMARY_KEY", [p["column"] for p in pk])
        if slot == "COLUMN_VISIBILITY":
            return (slot, [c.visible is not False for c in cols])
        if slot == "VECTOR_DIMENSIONALITY":
            vecs = [c for c in cols if c.type == "VECTOR"]
            return (slot, [c.vector_dimensions or 0 for c in vecs]) if vecs or force else None
        raise BuildError(f"unknown optional-metadata slot {slot!r}")

    def column_metadata(self) -> list | None:
        if self.layout == "pre_ga":
            return None
        entries = []
        for col in self.columns:
            if col.metadata_hex is not None:
                entries.append({"raw": bytes.fromhex(col.metadata_hex)})
                break
            try:
                from ..format.events.table_map import metadata_keys
                keys = metadata_keys(col.type)
            except KeyError:
                raise BuildError(f"column {col.index}: type {col.type!r} has no known metadata "
                                 "layout and no metadata_hex",
                                 path=f"columns[{col.index}]") from None
            if keys is None:
                entries.append(None)
            elif col.type == "TYPED_ARRAY":
                ek = metadata_keys(col.element_type)
                entries.append({"element_type": col.element_type,
                                "element": None if ek is None else
                                {k: getattr(col, k) for k in ek}})
            elif "real_type" in keys:
                size_key = "pack_length" if col.real_type in ("ENUM", "SET") else "max_length"
                entries.append({"real_type": col.real_type, size_key: getattr(col, size_key)})
            else:
                entries.append({k: getattr(col, k) for k in keys})
        if self.trailing_metadata_hex:
            entries.append({"raw": bytes.fromhex(self.trailing_metadata_hex)})
        return entries

    def body(self) -> dict:
        return {
            "table_id": self.table_id,
            "flags": list(self.flags),
            "database": self.database,
            "table": self.table,
            "column_types": [c.type for c in self.columns],
            "column_metadata": self.column_metadata(),
            "null_bitmap": None if self.layout in ("pre_ga", "no_null_bitmap") else
            [bool(c.nullable) for c in self.columns] + list(self.null_spare_bits or []),
            "optional_metadata": self.optional_metadata(),
        }

    def context(self) -> Context:
        code = self.header.get("type_code", TABLE_MAP_EVENT)
        return Context(checksum=self.checksum, table_id_size=self.table_id_size,
                       server_version=self.server_version, flavor=self.flavor,
                       type_remap=None if code == TABLE_MAP_EVENT else {code: TABLE_MAP_EVENT})

    def to_event(self) -> dict:
        header = {"timestamp": 0, "type_code": TABLE_MAP_EVENT, "server_id": 1, "log_pos": None,
                  "flags": []}
        header.update({k: v for k, v in self.header.items() if k != "event_size"})
        return {"header": header, "body": self.body()}

    def to_bytes(self) -> bytes:
        return build_event(self.to_event(), self.context())

    # -------------------------------------------------------------------------- JSON

    def to_dict(self) -> dict:
        d = {
            "server_version": self.server_version, "flavor": self.flavor,
            "checksum": self.checksum, "table_id_size": self.table_id_size,
            "header": to_plain(self.header), "table_id": self.table_id,
            "flags": list(self.flags), "database": to_plain(self.database),
            "table": to_plain(self.table), "row_metadata": self.row_metadata,
            "layout": self.layout, "primary_key": self.primary_key,
            "columns": [_column_dict(c) for c in self.columns],
        }
        if self.extra_optional_metadata:
            d["extra_optional_metadata"] = self.extra_optional_metadata
        if self.trailing_metadata_hex:
            d["trailing_metadata_hex"] = self.trailing_metadata_hex
        if self.tlv_types is not None:
            d["tlv_types"] = self.tlv_types
        if self.null_spare_bits:
            d["null_spare_bits"] = self.null_spare_bits
        return d

    @classmethod
    def from_dict(cls, d: dict) -> TableMap:
        names = set(fields(Column))
        cols = [Column(**{k: from_plain(v) if k in ("name",) else v
                          for k, v in c.items() if k in names}) for c in d["columns"]]
        header = dict(d.get("header") or {})
        return cls(
            table_id=d["table_id"], database=from_plain(d["database"]),
            table=from_plain(d["table"]),
            columns=cols, flags=list(d.get("flags", [])),
            row_metadata=d.get("row_metadata") or "none", primary_key=d.get("primary_key"),
            flavor=d.get("flavor") or flavor_name_of(d.get("server_version")),
            server_version=d.get("server_version"), header=header,
            checksum=d.get("checksum", True), table_id_size=d.get("table_id_size", 6),
            layout=d.get("layout", "standard"),
            extra_optional_metadata=list(d.get("extra_optional_metadata") or []),
            trailing_metadata_hex=d.get("trailing_metadata_hex"), tlv_types=d.get("tlv_types"),
            null_spare_bits=d.get("null_spare_bits"))


OPTIONAL_METADATA_NAMES = frozenset(OPTIONAL_METADATA_CODES.values())
OPTIONAL_METADATA_CODE = {v: k for k, v in OPTIONAL_METADATA_CODES.items()}


def _canon(value):
    """A TLV value as the bytes-level facts it holds (text as its UTF-8 bytes, containers as
    plain dicts and lists), for comparing a parsed value with a regenerated one."""
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, dict):
        return {k: _canon(v) for k, v in value.items() if not str(k).startswith("_")}
    if isinstance(value, (list, tuple)):
        return [_canon(v) for v in value]
    return value


def _tlv_bytes(kind, value, column_types) -> bytes:
    """A parsed TLV value's bytes, through the declaration that parsed it."""
    from construct import Container
    from ..format.events.table_map import OPTIONAL_VALUE
    return OPTIONAL_VALUE.build(value, type=kind, _=Container(
        column_types=column_types, column_count=len(column_types)))


class _Raw:
    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data


def _raw(member) -> _Raw:
    return _Raw(member.encode("utf-8") if isinstance(member, str) else bytes(member))


def _assign_collations(cols, kind, value):
    if kind.endswith("DEFAULT_CHARSET"):
        for col in cols:
            col.collation_id = value["default"]
        for pair in value["pairs"]:
            if pair["index"] < len(cols):
                cols[pair["index"]].collation_id = pair["collation"]
    else:
        for col, coll in zip(cols, value):
            col.collation_id = coll


_SLOT_OF = {"DEFAULT_CHARSET": "CHARSET", "COLUMN_CHARSET": "CHARSET",
            "ENUM_AND_SET_DEFAULT_CHARSET": "ENUM_AND_SET_CHARSET",
            "ENUM_AND_SET_COLUMN_CHARSET": "ENUM_AND_SET_CHARSET",
            "SIMPLE_PRIMARY_KEY": "PRIMARY_KEY", "PRIMARY_KEY_WITH_PREFIX": "PRIMARY_KEY"}


def _charset_tlv(collations, prefix, force=None):
    """The server's choice (MariaDB ``init_charset_field``, same in MySQL): the most used
    collation (lowest id on a tie) is the default; DEFAULT_CHARSET lists the others as
    (index, collation) pairs; COLUMN_CHARSET lists every column's. COLUMN_CHARSET is written
    when it has fewer items: n < 1 + 2 * (n - most_used)."""
    counts: dict = {}
    for c in collations or [0]:
        counts[c] = counts.get(c, 0) + 1
    default, most = min(counts.items(), key=lambda kv: (-kv[1], kv[0] if kv[0] is not None
                                                         else -1))
    n = len(collations)
    if force and force.endswith("COLUMN_CHARSET") or (force is None and n < 1 + 2 * (n - most)):
        return (prefix + "COLUMN_CHARSET", [c or 0 for c in collations])
    pairs = [{"index": i, "collation": c} for i, c in enumerate(collations) if c != default]
    return (prefix + "DEFAULT_CHARSET", {"default": default or 0, "pairs": pairs})


def _member_bytes(member, col) -> bytes:
    """An ENUM/SET member's bytes in its column's charset (BuildError when it has none)."""
    try:
        return encode_text(member, col.collation_id)
    except (UnicodeError, LookupError) as e:
        raise BuildError(f"column {col.index}: member {member!r:.40} cannot be written in "
                         f"collation {col.collation_id}: {e}",
                         path=f"columns[{col.index}]") from None


_COLUMN_FIELDS = fields(Column)


def _column_dict(col: Column) -> dict:
    d = {k: getattr(col, k) for k in _COLUMN_FIELDS}  # asdict without its deep copies
    for k in ("enum_values", "set_values"):
        if d[k] is not None:
            d[k] = list(d[k])
    d["name"] = to_plain(col.name)
    d["type"] = col.type
    if d.get("metadata_hex") is None:
        d.pop("metadata_hex")
    if d.get("element_type") is None:
        d.pop("element_type")
    return d


def table_map_from_event(event, ctx: Context | None = None) -> TableMap:
    return TableMap.from_event(event, ctx).finish()


__all__ = ["Column", "TableMap", "table_map_from_event", "TYPES"]

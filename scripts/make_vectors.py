#!/usr/bin/env python3
"""Write the TABLE_MAP golden vectors under specs/table_map/.

    python scripts/make_vectors.py seeds synthetic negative   # no inputs needed
    python scripts/make_vectors.py corpus                      # needs BINLOG_CORPUS
    python scripts/make_vectors.py mariadb [BINLOG...]         # default .work/binlogs/*

Every vector records where its bytes came from (``source``). Corpus and MariaDB vectors are
real bytes; synthetic ones are built from the declarations and say so. ``expect`` is what the
declarations parse; it was reviewed when written and is the contract from then on (a change
that alters a decoded value must change a vector on purpose).
"""

from __future__ import annotations

import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from binlog_schema.format.context import Context  # noqa: E402
from binlog_schema.format.event_codec import HEADER_SIZE, build_event, frame_event, parse_event  # noqa: E402
from binlog_schema.format.facts.codes import TABLE_MAP_EVENT  # noqa: E402
from binlog_schema.changes.table_map import Column, TableMap, table_map_from_event  # noqa: E402
from binlog_schema.format.event_forms import to_plain  # noqa: E402
from binlog_schema.format.stream import BinlogReader  # noqa: E402
from binlog_schema.synthetic.vector_checks import dump_vector  # noqa: E402

SPECS = ROOT / "specs" / "table_map"
CORPUS = pathlib.Path(os.environ.get("BINLOG_CORPUS", ROOT.parent / "shared" / "corpus"))


def ctx_dict(ctx: Context) -> dict:
    d = {"checksum": ctx.checksum, "table_id_size": ctx.table_id_size}
    if ctx.server_version:
        d["server_version"] = ctx.server_version
    if ctx.flavor:
        d["flavor"] = ctx.flavor
    if ctx.type_remap:
        d["type_remap"] = {int(k): int(v) for k, v in ctx.type_remap.items()}
    return d


def positive(name, source, data: bytes, ctx: Context, *, server=None, settings=None, sql=None,
             model=True) -> dict:
    value = parse_event(data, ctx)
    assert build_event(value, ctx) == data, name
    v = {"name": name, "source": source}
    if server:
        v["server"] = server
    if settings:
        v["settings"] = settings
    v["context"] = ctx_dict(ctx)
    if sql:
        v["sql"] = sql
    v["hex"] = data.hex()
    v["expect"] = to_plain(value)
    if model and ctx.kind(data[4]) == TABLE_MAP_EVENT:
        tm = table_map_from_event(value, ctx)
        v["table_map"] = tm.to_dict()
        assert TableMap.from_dict(v["table_map"]).to_bytes() == data, name
    return v


def negative(name, source, data: bytes, ctx: Context, kind: str, offset: int, why: str) -> dict:
    return {"name": name, "source": source, "why": why, "context": ctx_dict(ctx),
            "hex": data.hex(), "error": {"kind": kind, "offset": offset}}


def write(path: pathlib.Path, vectors: list):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join("---\n" + dump_vector(v) for v in vectors), encoding="utf-8")
    print(f"{path.relative_to(ROOT)}: {len(vectors)} vectors")


# ------------------------------------------------------------------------------ seeds

SEED_001 = ("32103568130100000044000000b002000000005f000000000001000c70726573656e746174696f6e"
            "0006706572736f6e0002030f025802020101000203fcff00fba8d0d8")
SEED_004 = ("212e0e5b135c276b942e000000aa0100000000b1010000000001000664617272656e0001740001"
            "0300008fcb077d")
SEED_002_PRINTED = ("d4e5275a138c2700002d0000007c030000000021000000"
                    "000001000474657374000274340001030101056b3cbe")
SEED_002_FIXED = ("d4e5275a138c2700002d0000007c030000000021000000"
                  "000001000474657374000274340001030001056b3cbe")


def seeds() -> list:
    mysql8 = Context(checksum=True, server_version="8.0", flavor="mysql")
    return [
        positive("seed-001-presentation-person",
                 "seed 001 (blog 'Decoding the MySQL Binary Log, Part 7'): xxd of binlog.000024 "
                 "at 620, 68 bytes", bytes.fromhex(SEED_001), mysql8,
                 server="MySQL 8.x (version not printed)",
                 settings={"binlog_checksum": "CRC32", "binlog_row_metadata": "MINIMAL"},
                 sql="CREATE TABLE presentation.person (id INT PRIMARY KEY, "
                     "name VARCHAR(150) CHARACTER SET utf8mb4)  -- inferred from the bytes"),
        positive("seed-004-darren-t",
                 "seed 004 (Chinese blog on binlog events): printed TABLE_MAP of darren.t, 46 "
                 "bytes", bytes.fromhex(SEED_004), Context(checksum=True, flavor="mysql"),
                 server="MySQL 5.6/5.7 (version not printed)",
                 settings={"binlog_checksum": "CRC32", "binlog_row_metadata": "none (5.x)"},
                 sql="CREATE TABLE darren.t (id INT NOT NULL)  -- inferred from the bytes"),
        negative("seed-002-test-t4-as-printed",
                 "seed 002 (MariaDB KB TABLE_MAP_EVENT page): the printed hexdump of test.t4",
                 bytes.fromhex(SEED_002_PRINTED), Context(checksum=True), "checksum", 41,
                 "The printed bytes fail their own CRC32: the metadata length byte is printed "
                 "as 01 while the CRC was computed over 00 (no metadata for a LONG column)."),
        positive("seed-002-test-t4-crc-consistent",
                 "seed 002 (MariaDB KB TABLE_MAP_EVENT page), corrected: metadata length 00, "
                 "which is the byte the stored CRC32 was computed over",
                 bytes.fromhex(SEED_002_FIXED), Context(checksum=True),
                 server="MariaDB (version not printed)",
                 settings={"binlog_checksum": "CRC32"}),
    ]


# ------------------------------------------------------------------------------ corpus


def corpus_files():
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix not in (".md", ".txt"))


def _settings(tm: TableMap, ctx: Context) -> dict:
    return {"binlog_checksum": "CRC32" if ctx.checksum else "NONE",
            "binlog_row_metadata": tm.row_metadata.upper()}


def corpus() -> dict:
    """Every distinct TABLE_MAP shape of the corpus (first occurrence per file, table and
    column layout), plus the one inside a TRANSACTION_PAYLOAD."""
    out = {}
    for path in corpus_files():
        rel = path.relative_to(CORPUS).as_posix()
        seen = set()
        vectors = []
        for rec in BinlogReader(path):
            for r in [rec] + list(rec.inner or []):
                if r.kind != TABLE_MAP_EVENT:
                    continue
                body = r.value["body"]
                key = (body["database"], body["table"], tuple(body["column_types"]),
                       len(body["optional_metadata"]))
                if key in seen:
                    continue
                seen.add(key)
                tm = table_map_from_event(r.value, r.ctx)
                where = f"{rel} at offset {r.offset}" if r.parent_offset is None else \
                    f"{rel}, inside the TRANSACTION_PAYLOAD at {r.parent_offset}, +{r.offset}"
                name = re.sub(r"[^a-z0-9]+", "-", f"{rel}-{r.offset}".lower()).strip("-")
                vectors.append(positive(
                    name, f"shared corpus: {where} (see corpus PROVENANCE.md)", r.raw, r.ctx,
                    server=r.ctx.server_version, settings=_settings(tm, r.ctx)))
        if vectors:
            out[rel] = vectors
    return out


# ------------------------------------------------------------------------------ MariaDB


def _create_statements() -> dict:
    sql = (ROOT / "scripts" / "workloads" / "table_maps.sql").read_text(encoding="utf-8")
    stmts = {}
    for m in re.finditer(r"CREATE TABLE\s+(?:`?\w+`?\.)?`?([^`\s(]+)`?\s*\(.*?\)[^;]*;", sql, re.S):
        stmts.setdefault(m.group(1), m.group(0))
    return stmts


def mariadb(files) -> dict:
    creates = _create_statements()
    out = {}
    for path in files:
        path = pathlib.Path(path)
        variant = path.name.split("-")[-1].split(".")[0]  # full | minimal | nochecksum
        vectors = []
        for rec in BinlogReader(path):
            if rec.kind != TABLE_MAP_EVENT:
                continue
            tm = table_map_from_event(rec.value, rec.ctx)
            table = tm.table if isinstance(tm.table, str) else tm.table.hex()
            if variant != "full" and not table.startswith(("t_int", "t_enum", "t_geo",
                                                           "t_cs_", "t_char", "t_compressed")):
                continue
            vectors.append(positive(
                f"mariadb-{variant}-{tm.database}-{table}",
                f"real MariaDB server: scripts/make_mariadb_binlogs.sh, {path.name} at offset "
                f"{rec.offset} (regenerate with scripts/make_mariadb_vectors.sh)",
                rec.raw, rec.ctx, server=rec.ctx.server_version, settings=_settings(tm, rec.ctx),
                sql=creates.get(table)))
        out[variant] = vectors
    return out


# ------------------------------------------------------------------------------ synthetic


def _tm(columns, **kw) -> TableMap:
    defaults = dict(table_id=70, database="db", table="t", flags=["BIT_LEN_EXACT"],
                    row_metadata="full", flavor="mysql", server_version="9.0.1",
                    header={"timestamp": 1700000000, "type_code": TABLE_MAP_EVENT, "server_id": 1,
                            "log_pos": 1000, "flags": []})
    defaults.update(kw)
    cols = [Column(index=i, **c) for i, c in enumerate(columns)]
    return TableMap(columns=cols, **defaults)


def _synthetic_vector(name, why, tm: TableMap, model=True) -> dict:
    data = tm.to_bytes()
    v = positive(name, f"synthetic: built by scripts/make_vectors.py from the declarations; "
                       f"{why}", data, tm.context(), server=f"{tm.flavor} {tm.server_version}",
                 settings={"binlog_row_metadata": tm.row_metadata.upper()}, model=model)
    return v


EVERY_TYPE = [
    dict(type="DECIMAL", nullable=True, unsigned=False),
    dict(type="TINY", nullable=False, unsigned=True),
    dict(type="SHORT", nullable=True, unsigned=False),
    dict(type="INT24", nullable=True, unsigned=True),
    dict(type="LONG", nullable=False, unsigned=False),
    dict(type="LONGLONG", nullable=True, unsigned=True),
    dict(type="FLOAT", nullable=True, unsigned=False, pack_length=4),
    dict(type="DOUBLE", nullable=True, unsigned=False, pack_length=8),
    dict(type="NEWDECIMAL", nullable=True, unsigned=False, precision=65, scale=30),
    dict(type="YEAR", nullable=True, unsigned=True),
    dict(type="BIT", nullable=True, bits=64),
    dict(type="BIT", nullable=True, bits=1),
    dict(type="DATE", nullable=True),
    dict(type="NEWDATE", nullable=True),
    dict(type="TIME", nullable=True),
    dict(type="DATETIME", nullable=True),
    dict(type="TIMESTAMP", nullable=True),
    dict(type="TIME2", nullable=True, fsp=3),
    dict(type="DATETIME2", nullable=True, fsp=6),
    dict(type="TIMESTAMP2", nullable=True, fsp=0),
    dict(type="VARCHAR", nullable=True, collation_id=255, max_length=1020),
    dict(type="VAR_STRING", nullable=True, collation_id=8, real_type="VAR_STRING",
         max_length=40),
    dict(type="STRING", nullable=True, collation_id=255, real_type="STRING", max_length=512),
    dict(type="STRING", nullable=True, collation_id=63, real_type="STRING", max_length=16),
    dict(type="STRING", nullable=True, collation_id=255, real_type="ENUM", pack_length=2,
         enum_values=["a", "b"]),
    dict(type="STRING", nullable=True, collation_id=255, real_type="SET", pack_length=1,
         set_values=["x", "y", "z"]),
    dict(type="BLOB", nullable=True, collation_id=63, pack_length=2),
    dict(type="BLOB", nullable=True, collation_id=255, pack_length=4),
    dict(type="JSON", nullable=True, pack_length=4),
    dict(type="GEOMETRY", nullable=True, pack_length=4, geometry_type=1),
    dict(type="VECTOR", nullable=True, collation_id=63, pack_length=4, vector_dimensions=3),
    dict(type="TYPED_ARRAY", nullable=True, element_type="VARCHAR", max_length=200),
    dict(type="TYPED_ARRAY", nullable=True, element_type="LONGLONG"),
    dict(type="TYPED_ARRAY", nullable=True, element_type="NEWDECIMAL", precision=10, scale=2),
]


def synthetic() -> list:
    out = []
    every = _tm(EVERY_TYPE, table="every_type", primary_key=[{"column": 4, "prefix": 0}])
    for c in every.columns:
        c.name = f"c{c.index}_{str(c.type).lower()}"
        c.visible = c.index != 3
    out.append(_synthetic_vector(
        "synthetic-mysql9-every-column-type",
        "every binlog column type MySQL 9 writes, incl. VECTOR, TYPED_ARRAY (VARCHAR element "
        "with 3-byte length), VAR_STRING, GEOMETRY, old temporal types, FULL metadata with "
        "all MySQL TLVs (geometry, vector dimensions, visibility)", every))
    maria = _tm([dict(type="LONG", unsigned=False, nullable=False),
                 dict(type="VARCHAR_COMPRESSED", max_length=101, collation_id=8, nullable=True),
                 dict(type="BLOB_COMPRESSED", pack_length=2, collation_id=45, nullable=True),
                 dict(type="GEOMETRY", pack_length=4, collation_id=63, geometry_type=2,
                      nullable=True)],
                flavor="mariadb", server_version="10.11.6-MariaDB", table="compressed",
                primary_key=[{"column": 0, "prefix": 0}])
    for c in maria.columns:
        c.name = f"c{c.index}"
    out.append(_synthetic_vector(
        "synthetic-mariadb-compressed-and-geometry",
        "MariaDB 141 VARCHAR_COMPRESSED (2-byte max length + 1) and 140 BLOB_COMPRESSED (1-byte "
        "pack length), GEOMETRY as a character column (collation 63)", maria))
    unknown_tlvs = _tm([dict(type="LONG", unsigned=True, nullable=False)], row_metadata="minimal",
                       server_version="8.0.18")
    unknown_tlvs.extra_optional_metadata = [
        {"position": 0, "type": 128, "hex": "0102"},
        {"position": 2, "type": 138, "hex": ""},
        {"position": 3, "type": 216, "hex": "fc"}]
    out.append(_synthetic_vector(
        "synthetic-unknown-tlv-codes-128-138-216",
        "vendor TLV codes 128 (JAVA #74), 138 (Baidu xdb), 216 (flink-cdc #2192) kept raw at "
        "their positions around a real SIGNEDNESS TLV", unknown_tlvs))
    id4 = _tm([dict(type="LONG", nullable=True), dict(type="STRING", real_type="STRING",
                                                      max_length=10, nullable=True)],
              table_id_size=4, row_metadata="none", server_version="5.1.3", table_id=17,
              checksum=False)
    out.append(_synthetic_vector(
        "synthetic-4-byte-table-id",
        "table id of 4 bytes, as written when the FDE's TABLE_MAP post-header length is 6 "
        "(pre-5.1.4 masters); the corpus has a real one in ver_5_1-wl2325_r.001", id4))
    for n in (250, 251, 300):
        wide = _tm([dict(type="LONG", unsigned=False, nullable=bool(i % 2), name=f"c{i}")
                    for i in range(n)], table=f"wide{n}", server_version="8.0.40")
        out.append(_synthetic_vector(
            f"synthetic-{n}-columns",
            f"{n} columns: packed column count ({'1 byte' if n < 251 else '0xfc + 2 bytes'}), "
            f"metadata-length and TLV lengths past 250 bytes", wide))
    unknown_type = _tm([dict(type="LONG", nullable=True), dict(type=230, nullable=True,
                                                               metadata_hex="0a0b"),
                        dict(type="VARCHAR", nullable=True)], row_metadata="none",
                       server_version="8.0.40")
    unknown_type.columns[2].metadata_hex = None
    out.append(_synthetic_vector(
        "synthetic-unknown-column-type",
        "column type 230 that no server defines: the rest of the metadata block (its bytes and "
        "the next column's) stays raw instead of desynchronising the null bitmap", unknown_type,
        model=False))
    return out


# ------------------------------------------------------------------------------ negative


def _body_event(body: bytes, crc=True) -> bytes:
    """A TABLE_MAP around a hand-made body (event_size and the CRC32 computed)."""
    return frame_event({"type_code": TABLE_MAP_EVENT, "timestamp": 0x6553F100, "log_pos": 1000},
                       body, Context(checksum=crc))


def negatives() -> list:
    c = Context(checksum=True)
    out = []
    base = bytes.fromhex("460000000000" "0100" "02" "6462" "00" "01" "74" "00")  # id, flags, names
    # offsets below count from the start of the event (19-byte header + body)
    ok_tail = bytes.fromhex("02" "030f" "02" "2800" "02")
    out.append(negative(
        "negative-column-count-beyond-body", "hand-made from the layout", _body_event(
            base + bytes.fromhex("64") + bytes.fromhex("030f")), c, "truncated",
        HEADER_SIZE + len(base) + 1,
        "column_count says 100 but the body holds 2 type bytes: the type list runs past the end"))
    out.append(negative(
        "negative-metadata-length-lies", "hand-made from the layout", _body_event(
            base + bytes.fromhex("02" "030f" "40" "2800" "02")), c, "truncated",
        HEADER_SIZE + len(base) + 4,
        "metadata length 64 with 3 bytes left: the block runs past the end of the body"))
    out.append(negative(
        "negative-tlv-runs-past-end", "hand-made from the layout", _body_event(
            base + ok_tail + bytes.fromhex("01" "20" "80")), c, "truncated",
        HEADER_SIZE + len(base) + len(ok_tail) + 2,
        "SIGNEDNESS TLV announces 32 bytes, 1 is there"))
    out.append(negative(
        "negative-db-name-length-lies", "hand-made from the layout", _body_event(
            bytes.fromhex("460000000000" "0100" "f0" "6462" "00")), c, "truncated",
        HEADER_SIZE + 9,
        "database name length 240 in a 5-byte remainder"))
    whole = _body_event(base + ok_tail)
    out.append(negative(
        "negative-event-size-lies", "hand-made: a complete event whose event_size claims more",
        whole[:9] + (4096).to_bytes(4, "little") + whole[13:], c, "truncated", HEADER_SIZE,
        f"event_size 4096 for a {len(whole)}-byte event: the body runs past the end of the input"))
    bad_nul = base[:-1] + b"\x07"
    out.append(negative(
        "negative-name-not-nul-terminated", "hand-made from the layout", _body_event(
            bad_nul + ok_tail), c, "format", HEADER_SIZE + len(base) - 1,
        "the byte after the table name must be NUL"))
    out.append(negative(
        "negative-packed-int-ff", "hand-made from the layout", _body_event(
            base + bytes.fromhex("ff")), c, "format", HEADER_SIZE + len(base),
        "0xff is not a valid packed-integer prefix (column count)"))
    out.append(negative(
        "negative-event-size-below-header", "hand-made", bytes.fromhex(
            "00f1536513010000000a000000e80300000000") + b"\0" * 8, c, "format", 9,
        "event_size 10 is smaller than the 19-byte header"))
    out.append(negative(
        "negative-header-truncated", "hand-made: 12 bytes of a header", bytes.fromhex(
            "00f15365130100000047000000"), c, "truncated", 0,
        "the input ends inside the 19-byte common header"))
    return out


def main(argv):
    what = set(argv[1:2] and argv[1:] or ["seeds", "synthetic", "negative", "corpus"])
    if "seeds" in what:
        write(SPECS / "seeds.yaml", seeds())
    if "synthetic" in what:
        write(SPECS / "synthetic.yaml", synthetic())
    if "negative" in what:
        write(SPECS / "negative.yaml", negatives())
    if "corpus" in what:
        for rel, vectors in corpus().items():
            write(SPECS / "corpus" / (rel.replace("/", "__") + ".yaml"), vectors)
    if "mariadb" in what:
        files = [a for a in argv[2:] if a not in what] or sorted(
            str(p) for p in (ROOT / ".work" / "binlogs").glob("mariadb-*"))
        for variant, vectors in mariadb(files).items():
            write(SPECS / "mariadb" / f"{variant}.yaml", vectors)


if __name__ == "__main__":
    main(sys.argv)

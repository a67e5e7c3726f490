#!/usr/bin/env python3
"""Write the rows golden vectors under specs/rows/: real rows events with the TABLE_MAP in force
and their typed rows, checked both ways by ``binlog-schema validate``.

    python scripts/make_rows_vectors.py mariadb [DIR]   # DIR: scripts/make_rows_binlogs.sh output
                                                        # (default .work/binlogs-rows)
    python scripts/make_rows_vectors.py corpus          # needs BINLOG_CORPUS
    python scripts/make_rows_vectors.py                 # both

A rows vector is a positive vector (``name``, ``source``, ``server``, ``settings``,
``context``, ``sql`` -- see scripts/make_vectors.py) with ``table_map_hex`` (the TABLE_MAP in
force), ``hex`` (the rows event) and ``rows``: per row the JSON-safe form of each image
(``jsonable`` per value, keyed by column index; an update row is a [before, after] pair;
``_null_bits`` only where the null bitmap's spare bits are not the usual ones). Decoding the
event gives ``rows``; the typed values read back from ``rows`` build the event's bytes again.
The decoded values were reviewed when written (the MariaDB ones are checked against the
server's own SELECT by tests/server/test_rows_server.py) and are the contract from then on.
"""

from __future__ import annotations

import os
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from binlog_schema.format.facts.codes import ANNOTATE_ROWS_EVENT, ROWS_KINDS, TABLE_MAP_EVENT  # noqa: E402
from binlog_schema.format.forms.json_safe import jsonable  # noqa: E402
from binlog_schema.changes.table_map import table_map_from_event  # noqa: E402
from binlog_schema.format.stream import BinlogReader  # noqa: E402
from binlog_schema.format.values.rows import RowsCodec, operation_of  # noqa: E402
from binlog_schema.synthetic.vector_checks import check_vector  # noqa: E402
from make_vectors import ctx_dict, write  # noqa: E402

SPECS = ROOT / "specs" / "rows"
CORPUS = pathlib.Path(os.environ.get("BINLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
WORKLOAD = ROOT / "scripts" / "workloads" / "rows.sql"


# ------------------------------------------------------------------------------ one vector


def json_rows(tm, rec) -> list:
    """The JSON-safe rows of a rows event, keyed by column index."""
    rows = RowsCodec(tm).decode(rec.value["body"], rec.kind)

    def image(img):
        return {k: jsonable(v) if isinstance(k, int) else v for k, v in img.items()}
    return [[image(r[0]), image(r[1])] if isinstance(r, tuple) else image(r) for r in rows]


def rows_vector(name, source, tm_rec, rec, *, server=None, settings=None, sql=None) -> dict:
    tm = table_map_from_event(tm_rec.value, tm_rec.ctx)
    v = {"name": name, "source": source}
    if server:
        v["server"] = server
    if settings:
        v["settings"] = settings
    v["context"] = ctx_dict(rec.ctx)
    if sql:
        v["sql"] = sql
    v["table_map_hex"] = tm_rec.raw.hex()
    v["hex"] = rec.raw.hex()
    v["rows"] = json_rows(tm, rec)
    problems = check_vector(v)
    assert not problems, (name, problems)
    return v


def events_with_maps(path):
    """(TABLE_MAP record, rows event record, the ANNOTATE_ROWS query before it or None) per
    rows event of a file (inner events of transaction payloads included)."""
    maps, query = {}, None
    for rec in BinlogReader(path):
        for r in [rec] + list(rec.inner or []):
            if r.kind == ANNOTATE_ROWS_EVENT:
                query = r.value["body"]["query"]
            elif r.kind == TABLE_MAP_EVENT:
                maps[r.value["body"]["table_id"]] = r
            elif r.kind in ROWS_KINDS:
                yield maps[r.value["body"]["table_id"]], r, query


def _name(value) -> str:
    return value if isinstance(value, str) else bytes(value).hex()


# ------------------------------------------------------------------------------ MariaDB

# (vector name, pass, table, operation, n-th such event of the table in the pass, what it shows)
MARIADB = [
    ("integers", "full-full", "t_int", "insert", 0,
     "min and max of every integer type signed and unsigned, BOOLEAN, ZEROFILL, -1, NULLs"),
    ("decimals", "full-full", "t_decimal", "insert", 0,
     "DECIMAL(65,30), (10,0), (5,5), (1,0), (18,9), (20,10), (65,0), (12,3) UNSIGNED, (9,9), "
     "(19,0): all nines, negative, zero, smallest steps, NULL"),
    ("floats", "full-full", "t_float", "insert", 0,
     "FLOAT/DOUBLE zero, -0e0 (stored as +0), subnormal and normal minimum, maximum, 0.1, "
     "2^24+1 and 2^53+1 (rounded), FLOAT(7,3), DOUBLE(10,2)"),
    ("bit-all-ones", "full-full", "t_bit", "insert", 0, "BIT(1)..BIT(64) holding 2^n - 1"),
    ("bit-top-bit", "full-full", "t_bit", "insert", 1, "BIT(1)..BIT(64) holding 2^(n-1)"),
    ("temporal", "full-full", "t_temporal", "insert", 0,
     "DATE, YEAR, TIME(0..6), DATETIME(0..6), TIMESTAMP(0..6): zero values, minimum and maximum "
     "of each range (-838:59:59, 1000-01-01, 9999-12-31, 2038-01-19), zero parts "
     "(2024-00-15), negative times under a second, NULLs"),
    ("temporal-old", "full-full", "t_temporal_old", "insert", 0,
     "old-format TIME (11), DATETIME (12), TIMESTAMP (7) of precision 0 "
     "(mysql56_temporal_format=OFF)"),
    ("timestamp-on-update", "full-full", "t_ts_auto", "update", 1,
     "TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6) set by the server (session timestamp "
     "1700000100.5)"),
    ("strings-latin1", "full-full", "t_latin1", "insert", 0,
     "latin1 VARCHAR(255) (1-byte length) and VARCHAR(256) (2-byte length) at their limits, "
     "CHAR (trailing spaces not logged), TINYTEXT, bytes 0x80-0xFF (0x80 is the euro sign, "
     "0x81/0x8D/0x9D C1 controls), latin1_bin, latin1_nopad_bin (1071)"),
    ("strings-utf8mb4", "full-full", "t_utf8mb4", "insert", 0,
     "utf8mb4 VARCHAR(63) (252 bytes: 1-byte length) and VARCHAR(64) (2-byte length), CHAR, "
     "TEXT, 4-byte characters, NUL and control bytes, collation 224 and 45/46"),
    ("strings-collations", "full-full", "t_charsets", "insert", 0,
     "collation ids >= 251 (uca1400 2304/2307, croatian 608, nopad 1070/1238), utf8mb3, ucs2, "
     "utf16, utf16le, utf32, cp1251, sjis, gbk, ascii, latin2"),
    ("strings-collations-ascii", "full-full", "t_charsets", "insert", 1,
     "ASCII text in ucs2/utf16/utf16le/utf32 columns: decoded by the column's charset, not as "
     "UTF-8 (which the bytes also are)"),
    ("binary", "full-full", "t_binary", "insert", 0,
     "BINARY(1/16/255) (trailing 0x00 not logged), VARBINARY(10/255/256), CHAR(4) BINARY, empty, "
     "NULL"),
    ("blobs", "full-full", "t_blob", "update", 2,
     "TINY/BLOB/MEDIUM/LONGBLOB and TINY/TEXT/MEDIUM/LONGTEXT (1-4 byte lengths), empty values "
     "(values past 64 KiB are in the server tier, not here: a vector of them would be 300 KB)"),
    ("enum-set", "full-full", "t_enum_set", "insert", 0,
     "ENUM/SET in latin1, utf8mb4, binary and uca1400 with member names (FULL metadata), SET of "
     "64 members (8 bytes), SET('') and ENUM with '' as a member"),
    ("enum-set-error-value", "full-full", "t_enum_set", "insert", 1,
     "ENUM index 0 (the error value '', inserted outside strict mode)"),
    ("enum-set-minimal-metadata", "full-minimal", "t_enum_set", "insert", 0,
     "ENUM/SET without ENUM_STR_VALUE/SET_STR_VALUE (binlog_row_metadata=MINIMAL): indexes and "
     "bits only"),
    ("enum-300-members", "full-full", "t_enum_big", "insert", 0,
     "an ENUM of 300 members (2-byte values): 1, 255, 256, 300, NULL"),
    ("json-text", "full-full", "t_json", "update", 0,
     "MariaDB JSON (LONGTEXT utf8mb4_bin, 4-byte length) before and after JSON_SET"),
    ("geometry", "full-full", "t_geo", "insert", 0,
     "GEOMETRY, POINT, LINESTRING, POLYGON with a hole, MULTIPOINT, MULTILINESTRING, "
     "MULTIPOLYGON, GEOMETRYCOLLECTION, POINT with SRID 4326"),
    ("inet-uuid", "full-full", "t_inet_uuid", "insert", 0,
     "INET4, INET6, UUID (BINARY(4)/BINARY(16) on the wire, trailing 0x00 not logged)"),
    ("compressed", "full-full", "t_compressed", "insert", 0,
     "VARCHAR/VARBINARY/BLOB/TEXT COMPRESSED (types 140/141): zlib-compressed, stored as is "
     "(header 0x00) and empty values"),
    ("nulls", "full-full", "t_nulls", "insert", 0,
     "17 nullable columns of every family, all NULL (a 3-byte null bitmap)"),
    ("nulls-mixed", "full-full", "t_nulls", "insert", 2,
     "NULLs and values interleaved over a 3-byte null bitmap"),
    ("minimal-image-insert", "minimal-full", "t_nulls", "insert", 0,
     "binlog_row_image=MINIMAL: INSERT (id) logs only id; the absent columns are absent"),
    ("minimal-image-update", "minimal-full", "t_int", "update", 2,
     "binlog_row_image=MINIMAL: three rows, before image = primary key, after image = the "
     "changed column"),
    ("minimal-image-prefix-key", "minimal-full", "t_pk_prefix", "update", 0,
     "binlog_row_image=MINIMAL: the before image of a table with a prefix primary key holds "
     "the whole key columns"),
    ("noblob-image-update", "noblob-full", "t_blob", "update", 0,
     "binlog_row_image=NOBLOB: unchanged BLOB/TEXT columns absent from both images"),
    ("update-several-rows", "full-full", "t_int", "update", 2,
     "one UPDATE of three rows: before/after pairs of full images"),
    ("update-primary-key", "full-full", "t_int", "update", 3, "an UPDATE of the primary key"),
    ("update-no-primary-key", "full-full", "t_no_pk", "update", 1,
     "UPDATE ... LIMIT 1 of one of two identical rows of a table with no key"),
    ("delete", "full-full", "t_decimal", "delete", 0, "a DELETE of two rows"),
]


def _creates() -> dict:
    sql = WORKLOAD.read_text(encoding="utf-8")
    return {m.group(1): m.group(0) for m in re.finditer(
        r"CREATE TABLE (\w+) \(.*?\)(?: ENGINE=InnoDB)?[^;]*;", sql, re.S)}


def mariadb(directory) -> list:
    directory = pathlib.Path(directory)
    creates = _creates()
    by_pass = {}
    for want in MARIADB:
        by_pass.setdefault(want[1], []).append(want)
    out = {}
    for pass_name, wanted in by_pass.items():
        files = sorted(directory.glob(f"rows-{pass_name}.0*"))
        assert files, f"no binlog of pass {pass_name} in {directory} (scripts/make_rows_binlogs.sh)"
        image, metadata = pass_name.split("-")
        seen = {}
        for path in files:
            for tm_rec, rec, query in events_with_maps(path):
                body = tm_rec.value["body"]
                key = (_name(body["table"]), operation_of(rec.kind))
                n = seen[key] = seen.get(key, -1) + 1
                for name, _, table, op, nth, what in wanted:
                    if key != (table, op) or n != nth:
                        continue
                    sql = creates[table] + ("\n" + query + ";" if query else "")
                    out[name] = rows_vector(
                        f"mariadb-rows-{name}",
                        f"real MariaDB server: scripts/make_rows_binlogs.sh (workload "
                        f"scripts/workloads/rows.sql), {path.name} at offset {rec.offset} "
                        f"(TABLE_MAP at {tm_rec.offset}); {what}. Regenerate with "
                        f"scripts/make_rows_vectors.py mariadb",
                        tm_rec, rec, server=rec.ctx.server_version,
                        settings={"binlog_checksum": "CRC32" if rec.ctx.checksum else "NONE",
                                  "binlog_row_image": image.upper(),
                                  "binlog_row_metadata": metadata.upper()},
                        sql=sql)
    missing = [w[0] for w in MARIADB if w[0] not in out]
    assert not missing, f"events not found: {missing}"
    return [out[w[0]] for w in MARIADB]


# ------------------------------------------------------------------------------ corpus

# files whose every distinct rows event is a vector; sakila: the smallest rows event per table
CORPUS_FILES = [
    ("rust_mysql_common/write-full-row.binlog", "MySQL Cluster 5.1 (NDB), v1 rows events, "
     "full rows"),
    ("rust_mysql_common/update-full-row.binlog", "MySQL Cluster 5.1 (NDB), v1 UPDATE_ROWS, "
     "full rows"),
    ("rust_mysql_common/write-partial-row.binlog", "MySQL Cluster 5.1 (NDB): WRITE_ROWS with "
     "only some columns present"),
    ("rust_mysql_common/update-partial-row.binlog", "MySQL Cluster 5.1 (NDB): UPDATE_ROWS with "
     "only some columns present in each image"),
    ("rust_mysql_common/mysql_type_bit.000001", "MySQL 8.0 BIT columns"),
    ("rust_mysql_common/mysql-enum-string-set.000001", "MySQL 8.0 ENUM, SET, CHAR and VARCHAR "
     "with names (FULL metadata)"),
    ("rust_mysql_common/vector.binlog", "MySQL 9 VECTOR columns"),
    ("rust_mysql_common/time_issue.000001", "MySQL 8.0 negative TIME2"),
    ("rust_mysql_common/json.binlog.000001", "MySQL 8.0 binary JSON, incl. PARTIAL_UPDATE_ROWS "
     "with JSON diffs"),
    ("rust_mysql_common/json-opaque.binlog", "MySQL 9 binary JSON with opaque values (dates, "
     "times, decimals, blobs)"),
    ("mysql-binlog-connector-java/mysql-bin.sakila", "MySQL 5.5 sakila sample database load"),
]


def _settings(tm_rec, rec) -> dict:
    tm = table_map_from_event(tm_rec.value, tm_rec.ctx)
    return {"binlog_checksum": "CRC32" if rec.ctx.checksum else "NONE",
            "binlog_row_metadata": tm.row_metadata.upper()}


def _json_rows_supported() -> bool:
    """MySQL binary JSON values in JSON-safe rows need the lossless typed JSON form and its
    inverse (binlog_schema.format.forms.documents, used by the vector checker)."""
    try:
        from binlog_schema.format.forms import documents as value_forms
    except ImportError:
        return False
    return callable(getattr(value_forms, "to_typed_json", None)) and \
        callable(getattr(value_forms, "from_typed_json", None))


def corpus() -> dict:
    out = {}
    json_ok = _json_rows_supported()
    for rel, what in CORPUS_FILES:
        path = CORPUS / rel
        if not path.is_file():
            raise SystemExit(f"{path} missing: set BINLOG_CORPUS")
        if "json" in rel and not json_ok:
            print(f"{rel}: skipped (binlog_schema/format/values/json_binary.py has no "
                  "from_jsonable: "
                  "JSON rows cannot be read back from their JSON-safe form yet)")
            continue
        chosen = {}
        for tm_rec, rec, _ in events_with_maps(path):
            body = rec.value["body"]
            raw_rows = body["rows"]["data"] if isinstance(body["rows"], dict) else body["rows"]
            table = _name(tm_rec.value["body"]["table"])
            if rel.endswith("sakila"):
                key = table
                if key in chosen and len(chosen[key][1].raw) <= len(rec.raw):
                    continue
            else:
                key = (table, rec.kind, bytes(raw_rows))
                if key in chosen:
                    continue
            chosen[key] = (tm_rec, rec)
        vectors = []
        for tm_rec, rec in sorted(chosen.values(), key=lambda pair: pair[1].offset):
            where = f"{rel} at offset {rec.offset} (TABLE_MAP at {tm_rec.offset})" \
                if rec.parent_offset is None else \
                f"{rel}, inside the TRANSACTION_PAYLOAD at {rec.parent_offset}"
            name = re.sub(r"[^a-z0-9]+", "-", f"corpus-rows-{rel}-{rec.offset}".lower())
            vectors.append(rows_vector(
                name.strip("-"), f"shared corpus: {where}; {what} (see corpus PROVENANCE.md)",
                tm_rec, rec, server=rec.ctx.server_version, settings=_settings(tm_rec, rec)))
        out[rel] = vectors
    return out


def main(argv):
    what = [a for a in argv[1:] if a in ("mariadb", "corpus")] or ["mariadb", "corpus"]
    if "mariadb" in what:
        rest = [a for a in argv[1:] if a not in ("mariadb", "corpus")]
        write(SPECS / "mariadb.yaml", mariadb(rest[0] if rest else ROOT / ".work" /
                                              "binlogs-rows"))
    if "corpus" in what:
        for rel, vectors in corpus().items():
            write(SPECS / "corpus" / (rel.replace("/", "__") + ".yaml"), vectors)


if __name__ == "__main__":
    main(sys.argv)

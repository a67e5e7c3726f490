#!/usr/bin/env python3
"""Write the golden vectors of the statement events (binlog_schema/format/events/query.py) under
specs/events/:

    query.yaml             real events from the shared corpus and from a MariaDB server
    query_synthetic.yaml   events no available server writes (LOAD, NEW_LOAD, IGNORABLE, rare
                           status variables), built from the declarations and labelled so
    query_negative.yaml    hand-made bad bytes and the typed error each must raise
    query_large.yaml       the corpus's only CREATE_FILE (128 KiB of LOAD DATA block)

    python scripts/make_event_vectors_query.py [BINLOG...]

BINLOG defaults to .work/binlogs-events/* (scripts/make_event_binlogs_query.sh); the corpus is
BINLOG_CORPUS (default ../shared/corpus). Corpus events are picked by what they add: every
event type, every status-variable code, v3 and v4 layouts, each flavor; small events first.
"""

from __future__ import annotations

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from make_vectors import CORPUS, ctx_dict, negative, positive, write  # noqa: E402

from binlog_schema.format.facts.compression import mariadb_compress  # noqa: E402
from binlog_schema.format.context import Context  # noqa: E402
from binlog_schema.format.event_codec import HEADER_SIZE, build_event, frame_event  # noqa: E402
from binlog_schema.format.facts.codes import (  # noqa: E402
    EVENT_TYPES, EXECUTE_LOAD_QUERY_EVENT, IGNORABLE_LOG_EVENT, INCIDENT_EVENT, INTVAR_EVENT,
    LOAD_EVENT, NEW_LOAD_EVENT, QUERY_COMPRESSED_EVENT, QUERY_EVENT, ROTATE_EVENT,
    USER_VAR_EVENT)
from binlog_schema.format.events.query import BODIES  # noqa: E402
from binlog_schema.format.stream import BinlogReader  # noqa: E402
from binlog_schema.synthetic.vector_checks import check_vector  # noqa: E402

SPECS = ROOT / "specs" / "events"
SMALL = 4096  # an event above this size is taken only for a type no smaller event shows


def context(ctx: Context) -> dict:
    """make_vectors' context, plus the binlog version when it is not 4 (v3 layouts)."""
    d = ctx_dict(ctx)
    if ctx.binlog_version != 4:
        d["binlog_version"] = ctx.binlog_version
    return d


def vector(name, source, data, ctx, **kw) -> dict:
    v = positive(name, source, data, ctx, **kw)
    v["context"] = context(ctx)
    problems = check_vector(v)  # the vector's own context must give the same value
    assert not problems, (name, problems)
    return v


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


# ------------------------------------------------------------------------------ real events


def features(rec) -> set:
    """What a real event shows: its type, layout and status-variable codes."""
    kind, ctx, body = rec.kind, rec.ctx, rec.value["body"]
    base = (kind, ctx.flavor, ctx.binlog_version >= 4)
    if isinstance(body, (bytes, bytearray)):
        return {base + ("raw body",)}
    out = {base}
    if kind in (QUERY_EVENT, EXECUTE_LOAD_QUERY_EVENT, QUERY_COMPRESSED_EVENT):
        for item in body["status_vars"] or ():
            out.add((kind, "status", item.get("code", "raw rest")))
            if item.get("code") == "UPDATED_DB_NAMES":
                out.add((kind, "db names", item["value"]["names"] is None))
            if item.get("code") == "GTID_FLAGS3":
                out.add((kind, "flags3", item["value"]["flags"]))
        if kind == QUERY_COMPRESSED_EVENT:
            out.add((kind, "compressed header", body["compressed"][0]))
    elif kind == USER_VAR_EVENT:
        value = body["value"]
        out.add((kind, None if value is None else value["type"],
                 None if value is None else value["flags"] is not None))
    elif kind == INTVAR_EVENT:
        out.add((kind, body["type"]))
    elif kind == INCIDENT_EVENT:
        out.add((kind, body["incident"]))
    return out


def real_events(sources) -> list:
    """Per source ``(files, label, source_of)``: every event that shows a feature no earlier
    event of that source showed; an event above SMALL bytes only for a type that no source
    shows in a smaller one (the smallest such)."""
    picked, large = [], []
    for files, label, source_of in sources:
        seen = set()
        for path in files:
            for rec in BinlogReader(path):
                if rec.kind not in BODIES or rec.value is None:
                    continue
                new = features(rec) - seen
                if not new:
                    continue
                if len(rec.raw) > SMALL:
                    large.append((rec, path, label, source_of))
                    continue
                seen |= new
                picked.append((rec, path, label, source_of))
    kinds = {item[0].kind for item in picked}
    for item in sorted(large, key=lambda item: len(item[0].raw)):
        if item[0].kind not in kinds:
            kinds.add(item[0].kind)
            picked.append(item)
    out = []
    for rec, path, label, source_of in picked:
        where, source = source_of(path, rec)
        name = f"{label}-{_slug(EVENT_TYPES[rec.kind])}-{_slug(where)}-{rec.offset}"
        out.append(vector(name, source, rec.raw, rec.ctx, server=rec.ctx.server_version))
    return out


def corpus_source():
    files = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix not in (".md", ".txt"))

    def source_of(path, rec):
        rel = path.relative_to(CORPUS).as_posix()
        return rel, f"shared corpus: {rel} at offset {rec.offset} (see corpus PROVENANCE.md)"
    return files, "corpus", source_of


def mariadb_source(files):
    def source_of(path, rec):
        return path.name, (f"real MariaDB server: scripts/make_event_binlogs_query.sh "
                           f"(workload scripts/workloads/events_query.sql), {path.name} at "
                           f"offset {rec.offset}")
    return [pathlib.Path(f) for f in files], "mariadb", source_of


# ------------------------------------------------------------------------------ synthetic

MYSQL57 = Context(checksum=True, server_version="5.7.44-log", flavor="mysql")
MYSQL9 = Context(checksum=True, server_version="9.1.0", flavor="mysql")
MARIADB = Context(checksum=True, server_version="11.8.5-MariaDB-log", flavor="mariadb")
MYSQL40 = Context(checksum=False, server_version="4.0.30-log", flavor="mysql",
                  binlog_version=3)
MYSQL50 = Context(checksum=False, server_version="5.0.2-alpha-log", flavor="mysql")

COMMON_STATUS = [
    {"code": "FLAGS2", "value": []},
    {"code": "SQL_MODE", "value": 0},
]
CHARSET = {"code": "CHARSET", "value": {"client": 33, "connection": 33, "server": 8}}


def _event(code, body, ctx, *, flags=(), timestamp=1700000000, log_pos=1000) -> bytes:
    value = {"header": {"timestamp": timestamp, "type_code": code, "server_id": 1,
                        "log_pos": log_pos, "flags": list(flags)}, "body": body}
    return build_event(value, ctx)


def _query(status_vars, query="INSERT INTO t VALUES (1)", database="test", **extra) -> dict:
    body = {"thread_id": 7, "exec_time": 0, "error_code": 0, "status_vars": status_vars,
            "database": database, "query": query}
    body.update(extra)
    return body


def synthetic_vectors() -> list:
    out = []

    def add(name, why, code, body, ctx, server, **kw):
        data = _event(code, body, ctx, **kw)
        out.append(vector(f"synthetic-{name}", f"synthetic: built by "
                          f"scripts/make_event_vectors_query.py from the declarations; {why}",
                          data, ctx, server=server))

    add("load-old-sql-ex", "LOAD_EVENT as MySQL 3.23/4.0 wrote it (no such file is available): "
        "the old sql_ex (7 one-byte fields, empty ones flagged), field lengths then NUL-ended "
        "names, table, database, file name to the end", LOAD_EVENT,
        {"thread_id": 3, "exec_time": 1, "skip_lines": 1,
         "sql_ex": {"field_term": ",", "enclosed": '"', "line_term": "\n", "line_start": "\0",
                    "escaped": "\\", "opt_flags": ["OPT_ENCLOSED", "REPLACE"],
                    "empty_flags": ["LINE_START_EMPTY"]},
         "fields": ["a", "bee"], "table": "t1", "database": "test",
         "file_name": "data/load.txt"}, MYSQL40, "MySQL 4.0 (layout from load_data_events.h)")
    add("new-load-new-sql-ex", "NEW_LOAD_EVENT (4.0, delimiters longer than one byte): the new "
        "sql_ex (5 one-byte-length strings + opt_flags), no fields listed", NEW_LOAD_EVENT,
        {"thread_id": 4, "exec_time": 0, "skip_lines": 0,
         "sql_ex": {"field_term": "||", "enclosed": "", "line_term": "\r\n", "line_start": "",
                    "escaped": "\\", "opt_flags": ["IGNORE"]},
         "fields": [], "table": "t2", "database": "test", "file_name": "data/new.txt"},
        MYSQL40, "MySQL 4.0 (layout from load_data_events.h)")
    add("ignorable", "IGNORABLE_LOG_EVENT (28): no server writes one outside debug builds; the "
        "body is kept raw", IGNORABLE_LOG_EVENT, {"data": bytes.fromhex("0102030405")}, MYSQL57,
        "MySQL 5.7 (layout from control_events.h)", flags=["IGNORABLE"])
    add("query-catalog-with-nul", "Q_CATALOG_CODE (2) as MySQL 5.0.0-5.0.3 wrote it: 1-byte "
        "length, the catalog, a NUL", QUERY_EVENT,
        _query(COMMON_STATUS + [{"code": "CATALOG", "value": "std"}, CHARSET]), MYSQL50,
        "MySQL 5.0.2 (layout from statement_events.h)")
    add("query-mysql9-status-vars", "MySQL 9 status variables no corpus file shows: "
        "Q_UPDATED_DB_NAMES with OVER_MAX_DBS_IN_EVENT_MTS (254: no names), Q_COMMIT_TS (14, "
        "8 bytes in the 5.7 development trees), Q_MASTER_DATA_WRITTEN (10), "
        "Q_ENABLE_CASCADE_TRIGGERS (21)", QUERY_EVENT,
        _query(COMMON_STATUS + [{"code": "CATALOG_NZ", "value": "std"}, CHARSET,
                                {"code": "MASTER_DATA_WRITTEN", "value": 345},
                                {"code": "UPDATED_DB_NAMES", "value": {"count": 254,
                                                                       "names": None}},
                                {"code": "COMMIT_TS", "value": 77},
                                {"code": "ENABLE_CASCADE_TRIGGERS", "value": 1}]),
        MYSQL9, "MySQL 9.1 (layout from statement_events.h)")
    add("query-mariadb-11-collations", "MariaDB 11.x status variables: "
        "Q_CHARACTER_SET_COLLATIONS (131: a count, then 2-byte charset and collation ids), "
        "written before Q_CHARSET_CODE, and Q_GTID_FLAGS3 ROLLBACK ALTER (8) with the start "
        "alter's sequence number", QUERY_EVENT,
        _query(COMMON_STATUS + [{"code": "CATALOG_NZ", "value": "std"},
                                {"code": "CHARACTER_SET_COLLATIONS",
                                 "value": {"count": 2, "map": [
                                     {"charset": 33, "collation": 2304},
                                     {"charset": 45, "collation": 2304}]}},
                                CHARSET,
                                {"code": "GTID_FLAGS3", "value": {"flags": 8, "sa_seq_no": 21}}],
               query="ALTER TABLE t ADD COLUMN c INT"),
        MARIADB, "MariaDB 11.8 (layout from sql/charset_collations.h, sql/log_event.cc)")
    add("query-unknown-status-code", "status code 200 (no layout known): the walk stops and "
        "the rest of the block (its bytes, and the known code after it) stays raw",
        QUERY_EVENT,
        _query(COMMON_STATUS + [{"raw": bytes.fromhex("c8" "010203" "04" "210021000800")}]),
        MYSQL57, "MySQL 5.7 (hypothetical vendor code)")
    add("query-commit-ts2-unknown", "Q_COMMIT_TS2 (15) has no known layout (5.7 development "
        "trees only): kept raw with the rest of the block", QUERY_EVENT,
        _query(COMMON_STATUS + [{"raw": bytes.fromhex("0f" "0102030405060708")}]),
        MYSQL57, "MySQL 5.7.x development tree (hypothetical)")
    add("query-compressed-from-text", "QUERY_COMPRESSED built from the query text alone "
        "(compressed left out, so zlib level 6 is used); the parsed value gives both",
        QUERY_COMPRESSED_EVENT,
        _query(COMMON_STATUS + [{"code": "CATALOG_NZ", "value": "std"}, CHARSET],
               query="INSERT INTO t VALUES (" + ", ".join(str(i) for i in range(40)) + ")",
               compressed=None),
        MARIADB, "MariaDB 11.8 (layout from sql/log_event.cc)")
    return out


# ------------------------------------------------------------------------------ negative


def _raw_event(code, body: bytes, crc=True) -> bytes:
    """A whole event around a hand-made body (event_size, and the CRC32 with ``crc``)."""
    return frame_event({"type_code": code, "timestamp": 1700000000, "log_pos": 1000}, body,
                       Context(checksum=crc))


def _query_bytes(status: bytes, db=b"test", query=b"SELECT 1", db_len=None, nul=b"\0",
                 svl=None) -> bytes:
    post = (7).to_bytes(4, "little") + (0).to_bytes(4, "little") + \
        bytes((len(db) if db_len is None else db_len,)) + b"\0\0" + \
        (len(status) if svl is None else svl).to_bytes(2, "little")
    return post + status + db + nul + query


def negative_vectors() -> list:
    ctx = Context(checksum=True, flavor="mysql", server_version="8.0.40")
    maria = Context(checksum=True, flavor="mariadb", server_version="10.11.19-MariaDB-log")
    status = bytes.fromhex("0000000000" "010000000000000000")  # FLAGS2 0, SQL_MODE 0
    H = HEADER_SIZE
    out = []

    def add(name, data, c, kind, offset, why):
        v = negative(f"negative-{name}", "hand-made from the layout", data, c, kind, offset,
                     why)
        problems = check_vector(v)
        assert not problems, (name, problems)
        out.append(v)

    add("query-db-len-past-body",
        _raw_event(QUERY_EVENT, _query_bytes(status, db_len=200)), ctx, "truncated",
        H + 13 + len(status),
        "db_len 200 but the body ends 13 bytes after the status block")
    add("query-catalog-past-status-block",
        _raw_event(QUERY_EVENT, _query_bytes(status + bytes.fromhex("0609737464"))), ctx,
        "truncated", H + 13 + len(status) + 2,
        "Q_CATALOG_NZ says 9 bytes, 3 are left in the status block (bounded by "
        "status_vars_len, so it cannot run into the database name)")
    add("query-database-not-nul-terminated",
        _raw_event(QUERY_EVENT, _query_bytes(status, nul=b"X")), ctx, "format",
        H + 13 + len(status) + 4, "the byte after the database name must be NUL")
    add("query-status-value-cut",
        _raw_event(QUERY_EVENT, _query_bytes(status + bytes.fromhex("0421"))), ctx, "truncated",
        H + 13 + len(status) + 1,
        "Q_CHARSET_CODE needs 6 bytes, the status block has 1 left")
    add("query-updated-db-names-count-lies",
        _raw_event(QUERY_EVENT, _query_bytes(status + bytes.fromhex("0c03" "613100"))), ctx,
        "truncated", H + 13 + len(status) + 5,
        "Q_UPDATED_DB_NAMES says 3 names, the status block holds 1")
    compressed = mariadb_compress(b"INSERT INTO t VALUES (1)")
    lying = bytes((compressed[0],)) + bytes((compressed[1] + 10,)) + compressed[2:]
    add("query-compressed-length-lies",
        _raw_event(QUERY_COMPRESSED_EVENT, _query_bytes(status, query=lying)), maria, "format",
        H + 13 + len(status) + 5,
        "the compressed block's header says 34 bytes, zlib gives 24")
    add("query-compressed-bad-header",
        _raw_event(QUERY_COMPRESSED_EVENT, _query_bytes(status, query=b"\x05" + compressed[1:])),
        maria, "format", H + 13 + len(status) + 5,
        "the first byte of a compressed block must be 0x80 | n with n in 1..4")
    add("user-var-name-length-lies",
        _raw_event(USER_VAR_EVENT, (0x7FFFFFFF).to_bytes(4, "little") + b"x\0"), ctx,
        "truncated", H + 4,
        "name_len 2^31-1 in a 2-byte remainder: fails without allocating")
    add("rotate-position-cut", _raw_event(ROTATE_EVENT, b"\x04\0\0\0"), ctx, "truncated", H,
        "a binlog v4 ROTATE starts with an 8-byte position")
    add("intvar-cut", _raw_event(INTVAR_EVENT, b"\x02\x01\x00"), ctx, "truncated", H + 1,
        "INTVAR needs a type byte and an 8-byte value")
    load_ctx = Context(checksum=False, server_version="4.0.30-log", binlog_version=3)
    load = ((3).to_bytes(4, "little") + b"\0" * 8 + b"\x01\x04" + (1).to_bytes(4, "little")
            + b",\"\n\0\\\x02\x08" + b"\x01" + b"aX" + b"t\0test\0f.txt")
    add("load-field-name-not-nul-terminated", _raw_event(LOAD_EVENT, load, crc=False), load_ctx,
        "format", H + 18 + 7 + 1 + 1, "LOAD's field name of length 1 must be followed by NUL")
    return out


def main(argv):
    files = argv[1:] or sorted(str(p) for p in (ROOT / ".work" / "binlogs-events").glob("*"))
    real = real_events([corpus_source(), mariadb_source(files)])
    large = [v for v in real if len(v["hex"]) > 2 * 100_000]
    small = [v for v in real if len(v["hex"]) <= 2 * 100_000]
    write(SPECS / "query.yaml", small)
    if large:
        write(SPECS / "query_large.yaml", large)
    write(SPECS / "query_synthetic.yaml", synthetic_vectors())
    write(SPECS / "query_negative.yaml", negative_vectors())


if __name__ == "__main__":
    main(sys.argv)

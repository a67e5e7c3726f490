#!/usr/bin/env python3
"""Write the golden vectors of the GTID event family (binlog_schema/format/events/gtid.py) under
specs/events/:

    gtid.yaml            real events from the shared corpus (one per distinct layout)
    gtid_mariadb.yaml    real events from scripts/make_event_binlogs_gtid.sh (MariaDB server)
    gtid_synthetic.yaml  events no available binlog holds, built from the declarations
    gtid_negative.yaml   bytes that must fail, with the error kind and offset

    python scripts/make_event_vectors_gtid.py [corpus] [mariadb] [synthetic] [negative]

Reuses positive()/negative()/write() of scripts/make_vectors.py. ``expect`` is what the
declarations parse; it was reviewed when written and is the contract from then on.
"""

from __future__ import annotations

import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from make_vectors import CORPUS, ROOT, negative, positive, write

from binlog_schema.format.context import Context
from binlog_schema.format.event_codec import HEADER_SIZE, build_event, frame_event
from binlog_schema.format.facts.codes import (
    ANONYMOUS_GTID_LOG_EVENT, BINLOG_CHECKPOINT_EVENT, GTID_LIST_EVENT, GTID_LOG_EVENT,
    GTID_TAGGED_LOG_EVENT, HEARTBEAT_LOG_EVENT, HEARTBEAT_LOG_EVENT_V2, MARIA_GTID_EVENT,
    PREVIOUS_GTIDS_LOG_EVENT, START_ENCRYPTION_EVENT, TRANSACTION_CONTEXT_EVENT,
    VIEW_CHANGE_EVENT, XA_PREPARE_LOG_EVENT)
from binlog_schema.format.events.gtid import BODIES
from binlog_schema.format.stream import BinlogReader

SPECS = ROOT / "specs" / "events"
MARIADB_DIR = ROOT / ".work" / "binlogs-events-gtid"
KINDS = set(BODIES)


def _name(*parts) -> str:
    return re.sub(r"[^a-z0-9]+", "-", "-".join(str(p) for p in parts).lower()).strip("-")


def _major(version) -> str:
    m = re.match(r"(\d+\.\d+)", version or "")
    return m.group(1) if m else "?"


def _present(body, *keys):
    return tuple(body.get(k) is not None for k in keys)


def shape(rec) -> tuple:
    """What makes two events of a kind worth separate vectors: the layout, not the values."""
    b = rec.value["body"]
    k = rec.kind
    if k in (GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT):
        ts = b.get("commit_timestamps") or {}
        sv = b.get("server_versions") or {}
        return (k, _major(rec.ctx.server_version), b["lt_type"],
                _present(b, "commit_timestamps", "transaction_length", "server_versions",
                         "commit_group_ticket"),
                ts.get("original") is not None, sv.get("original") is not None)
    if k == PREVIOUS_GTIDS_LOG_EVENT:
        return (k, b["format"], min(b["n_sids"], 2))
    if k == MARIA_GTID_EVENT:
        xid = b["xid"] or {}
        return (k, _major(rec.ctx.server_version), tuple(b["flags2"]), tuple(b["flags_extra"]),
                bool(xid.get("bqual")), isinstance(xid.get("gtrid"), bytes))
    if k == GTID_LIST_EVENT:
        return (k, min(b["count"], 2), tuple(b["flags"]))
    return (k, _major(rec.ctx.server_version))


def _what(rec) -> str:
    b = rec.value["body"]
    k = rec.kind
    if k in (GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT):
        if b["lt_type"] is None:
            return "5.6 layout: flags, sid, gno only"
        if b["commit_timestamps"] is None:
            return "5.7 layout: + logical clock (lt_type 2, last_committed, sequence_number)"
        return ("8.0 layout: + immediate commit timestamp (bit 55 clear: no original), packed "
                "transaction length, immediate server version (bit 31 clear)")
    if k == PREVIOUS_GTIDS_LOG_EVENT:
        return (f"{b['format'].lower()} GTID set with {b['n_sids']} SID(s)"
                + (" (tagged: tag after each UUID, format also in byte 0)"
                   if b["format"] == "TAGGED" else ""))
    if k == GTID_TAGGED_LOG_EVENT:
        return "tagged GTID in MySQL's serialization format (varlen fields, ids 0-11)"
    if k == MARIA_GTID_EVENT:
        extra = ", ".join(b["flags_extra"]) or "none"
        xid = b["xid"]
        xid = "" if xid is None else (
            "; binary XID" if isinstance(xid["gtrid"], bytes) else
            f"; XID '{xid['gtrid']}','{xid['bqual']}',{xid['format_id']}")
        return (f"MariaDB GTID, flags2 {', '.join(b['flags2']) or 'none'}; flags_extra "
                f"{extra}{xid}")
    if k == GTID_LIST_EVENT:
        return f"MariaDB GTID list of {b['count']} GTID(s)" + (
            " (empty: 2 zero bytes follow the count)" if not b["count"] else "")
    return rec.type_name


def _files(root: pathlib.Path):
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix not in (".md", ".txt"))


def collect(paths, root, source_of, settings_of=lambda rec: None) -> list:
    seen = set()
    out = []
    for path in paths:
        rel = path.relative_to(root).as_posix()
        try:
            for rec in BinlogReader(path, skip_errors=True):
                for r in [rec] + list(rec.inner or []):
                    if r.kind not in KINDS or r.error is not None:
                        continue
                    key = shape(r)
                    if key in seen:
                        continue
                    seen.add(key)
                    out.append(positive(
                        _name(r.type_name.replace("_EVENT", ""), rel, r.offset),
                        source_of(rel, r) + "; " + _what(r), r.raw, r.ctx,
                        server=r.ctx.server_version, settings=settings_of(r)))
        except Exception as e:  # noqa: BLE001 - a bad file is reported, the others go on
            print(f"{rel}: {e}", file=sys.stderr)
    return out


def corpus() -> list:
    return collect(_files(CORPUS), CORPUS,
                   lambda rel, r: f"shared corpus: {rel} at offset {r.offset} "
                                  f"(see corpus PROVENANCE.md)",
                   lambda r: {"binlog_checksum": "CRC32" if r.ctx.checksum else "NONE"})


MARIADB_SETTINGS = {
    "gtid": {"binlog_checksum": "CRC32", "binlog_format": "ROW",
             "workload": "scripts/workloads/events_gtid.sql, then 4 parallel clients with "
                         "binlog_commit_wait_count=4"},
    "encrypted": {"binlog_checksum": "CRC32", "encrypt_binlog": "ON",
                  "plugin": "file_key_management (fixed test key)"},
}


def mariadb() -> list:
    files = _files(MARIADB_DIR) if MARIADB_DIR.is_dir() else []
    if not files:
        raise SystemExit(f"no binlogs in {MARIADB_DIR}: run scripts/make_event_binlogs_gtid.sh")
    return collect(files, MARIADB_DIR,
                   lambda rel, r: f"real MariaDB server: scripts/make_event_binlogs_gtid.sh, "
                                  f"{rel} at offset {r.offset}",
                   lambda r: MARIADB_SETTINGS.get(
                       "encrypted" if r.kind == START_ENCRYPTION_EVENT else "gtid"))


# ------------------------------------------------------------------------------ synthetic


def _header(type_code, log_pos=1000, flags=()):
    return {"timestamp": 1700000000, "type_code": type_code, "server_id": 1, "log_pos": log_pos,
            "flags": list(flags)}


def _synthetic(name, why, type_code, body, ctx, server):
    data = build_event({"header": _header(type_code), "body": body}, ctx)
    return positive(name, "synthetic: built by scripts/make_event_vectors_gtid.py from the "
                          f"declarations (no real event available); {why}", data, ctx,
                    server=server)


def synthetic() -> list:
    my80 = Context(checksum=True, server_version="8.0.40", flavor="mysql")
    my84 = Context(checksum=True, server_version="8.4.3", flavor="mysql")
    uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
    out = [
        _synthetic(
            "synthetic-gtid-8-0-replica-bit55-bit31-ticket",
            "a GTID as a replica writes it: original commit timestamp and original server "
            "version differ from the immediate ones (bits 55 and 31 set, both originals "
            "follow), a 3-byte packed transaction length and a commit group ticket (8.0.33+)",
            GTID_LOG_EVENT, {
                "flags": [], "sid": uuid, "gno": 42, "lt_type": 2, "last_committed": 7,
                "sequence_number": 9,
                "commit_timestamps": {"immediate": 1700000000123456,
                                      "original": 1699999999000001},
                "transaction_length": 70000,
                "server_versions": {"immediate": 80040, "original": 80036},
                "commit_group_ticket": 5}, my80, "MySQL 8.0.40 (replica of 8.0.36)"),
        _synthetic(
            "synthetic-gtid-tagged-replica-all-fields",
            "tagged GTID with every field, originals that differ and a commit group ticket "
            "(field ids 7, 10, 11 present), a 32-byte tag, a gno of 2^62+5 (9 varlen bytes "
            "after the zigzag sign bit)", GTID_TAGGED_LOG_EVENT, {
                "last_non_ignorable_field_id": 0, "flags": ["MAY_HAVE_SBR"], "sid": uuid,
                "gno": (1 << 62) + 5, "tag": "t" * 32, "last_committed": 1000,
                "sequence_number": 1001, "immediate_commit_timestamp": 1700000000123456,
                "original_commit_timestamp": 1699999999000001, "transaction_length": 100000,
                "immediate_server_version": 80403, "original_server_version": 80400,
                "commit_group_ticket": 77, "unknown_fields": None}, my84,
            "MySQL 8.4.3 (replica)"),
        _synthetic(
            "synthetic-previous-gtids-untagged-two-sids-two-intervals",
            "untagged GTID set of two SIDs, one with two intervals",
            PREVIOUS_GTIDS_LOG_EVENT, {
                "format": "UNTAGGED", "sids": [
                    {"sid": uuid, "tag": None,
                     "intervals": [{"start": 1, "end": 6}, {"start": 8, "end": 11}]},
                    {"sid": "00000000-0000-0000-0000-000000000001", "tag": None,
                     "intervals": [{"start": 1, "end": 2}]}]}, my80, "MySQL 8.0.40"),
        _synthetic(
            "synthetic-transaction-context",
            "group replication TRANSACTION_CONTEXT: server uuid, thread id, snapshot version, "
            "two write-set hashes and one read-set hash", TRANSACTION_CONTEXT_EVENT, {
                "thread_id": 12, "gtid_specified": 0, "server_uuid": uuid,
                "snapshot_version": bytes.fromhex("0102030405"),
                "write_set": ["10743297239623481243", "2893469324691523812"],
                "read_set": ["77"]}, my80, "MySQL 8.0 group replication"),
        _synthetic(
            "synthetic-view-change",
            "group replication VIEW_CHANGE: view id NUL-padded to 40 bytes, sequence number "
            "and a certification map of two entries", VIEW_CHANGE_EVENT, {
                "view_id": "17000000000000000:3", "seq_number": 21,
                "certification_info": [
                    {"key": "group_gtid_executed", "value": uuid + ":1-20"},
                    {"key": "k2", "value": ""}]}, my80, "MySQL 8.0 group replication"),
        _synthetic(
            "synthetic-heartbeat",
            "HEARTBEAT_LOG_EVENT (sent by a source, never written to a binlog): the binlog "
            "file name", HEARTBEAT_LOG_EVENT, {"log_ident": "binlog.000007"}, my80,
            "MySQL 8.0.40"),
        _synthetic(
            "synthetic-heartbeat-v2",
            "HEARTBEAT_LOG_EVENT_V2 (8.0.26+, sent, never written): LOG_FILENAME and "
            "LOG_POSITION TLVs, then the END mark", HEARTBEAT_LOG_EVENT_V2, {"fields": [
                {"type": "LOG_FILENAME", "value": "binlog.000007"},
                {"type": "LOG_POSITION", "value": 5000000000},
                {"type": "END", "value": None}]}, my80, "MySQL 8.0.40"),
        _synthetic(
            "synthetic-xa-prepare-mysql-one-phase",
            "MySQL XA_PREPARE_LOG_EVENT of XA COMMIT ... ONE PHASE with gtrid and bqual",
            XA_PREPARE_LOG_EVENT, {
                "one_phase": 1, "format_id": 1, "gtrid": "trx-1", "bqual": "b"}, my80,
            "MySQL 8.0.40"),
        _synthetic(
            "synthetic-mariadb-gtid-thread-id-with-alter-and-engines",
            "MariaDB 11.5+ GTID with every flags_extra field: extra engines, the COMMIT "
            "ALTER's start-alter seq_no and the thread id (in this order)", MARIA_GTID_EVENT, {
                "seq_no": 100, "domain_id": 3, "flags2": ["STANDALONE", "DDL"],
                "commit_id": None, "xid": None,
                "flags_extra": ["MULTI_ENGINE", "COMMIT_ALTER", "THREAD_ID"],
                "extra_engines": 1, "sa_seq_no": 99, "thread_id": 1234},
            Context(checksum=True, server_version="11.8.5-MariaDB-log", flavor="mariadb"),
            "MariaDB 11.8"),
    ]
    return out


# ------------------------------------------------------------------------------ negative


def _event(type_code: int, body: bytes) -> bytes:
    """A whole event with a CRC32 around a hand-made body (event_size and CRC computed)."""
    return frame_event({"type_code": type_code, "timestamp": 0x6553F100, "log_pos": 1000}, body,
                       Context(checksum=True))


def negatives() -> list:
    my = Context(checksum=True, server_version="8.0.40", flavor="mysql")
    maria = Context(checksum=True, server_version="10.11.19-MariaDB-log", flavor="mariadb")
    sid = bytes.fromhex("3e11fa4771ca11e19e33c80aa9429562")
    gl_one = (1).to_bytes(4, "little") + (0).to_bytes(4, "little") + (1).to_bytes(4, "little") \
        + (5).to_bytes(8, "little")
    out = [
        negative("negative-gtid-list-count-beyond-body", "hand-made from the layout",
                 _event(GTID_LIST_EVENT, (5).to_bytes(4, "little") + gl_one[4:]), maria,
                 "truncated", HEADER_SIZE + 4 + 16,
                 "GTID_LIST count says 5 GTIDs (16 bytes each), the body holds 1: the second "
                 "runs past the end"),
        negative("negative-previous-gtids-n-intervals-lies", "hand-made from the layout",
                 _event(PREVIOUS_GTIDS_LOG_EVENT,
                        (1).to_bytes(8, "little") + sid + (1000).to_bytes(8, "little")
                        + (1).to_bytes(8, "little") + (2).to_bytes(8, "little")), my,
                 "truncated", HEADER_SIZE + 8 + 16 + 8 + 16,
                 "n_intervals says 1000 (16 bytes each), the body holds 1; nothing is "
                 "allocated for the 1000"),
        negative("negative-previous-gtids-n-sids-lies", "hand-made from the layout",
                 _event(PREVIOUS_GTIDS_LOG_EVENT, (0xFFFFFFFFFFFF).to_bytes(8, "little")), my,
                 "truncated", HEADER_SIZE + 8,
                 "n_sids says 2^48-1, the body ends after the count"),
        negative("negative-previous-gtids-tagged-low-byte", "hand-made from the layout",
                 _event(PREVIOUS_GTIDS_LOG_EVENT,
                        bytes.fromhex("0001000000000001") + sid + b"\x00"
                        + (0).to_bytes(8, "little")), my, "format", HEADER_SIZE,
                 "tagged format (top byte 1) needs the format repeated in byte 0; it is 0"),
        negative("negative-gtid-bit55-original-missing", "hand-made from the layout",
                 _event(GTID_LOG_EVENT, b"\x00" + sid + (1).to_bytes(8, "little") + b"\x02"
                        + bytes(16) + (1 << 55 | 123).to_bytes(7, "little")), my, "truncated",
                 HEADER_SIZE + 25 + 17 + 7,
                 "bit 55 of the immediate commit timestamp says an original one follows; the "
                 "body ends"),
        negative("negative-tagged-gtid-size-beyond-body", "hand-made from the layout",
                 _event(GTID_TAGGED_LOG_EVENT, bytes.fromhex("02" "f8" "00" "00" "00")), my,
                 "truncated", HEADER_SIZE + 2,
                 "message size 124 in a 5-byte body"),
        negative("negative-tagged-gtid-version-2", "hand-made from the layout",
                 _event(GTID_TAGGED_LOG_EVENT, bytes.fromhex("04" "0a" "00" "00" "00")), my,
                 "format", HEADER_SIZE,
                 "serialization format version 2: MySQL's decoder knows only version 1"),
        negative("negative-tagged-gtid-noncanonical-varint", "hand-made from the layout",
                 _event(GTID_TAGGED_LOG_EVENT,
                        bytes.fromhex("02" "10" "00" "00" "0100" "04" "0c")), my,
                 "format", HEADER_SIZE + 4,
                 "flags 0 written in 2 bytes (01 00): only the shortest encoding rebuilds the "
                 "same bytes, so it is refused"),
        negative("negative-mariadb-gtid-padding-not-zero", "hand-made from the layout",
                 _event(MARIA_GTID_EVENT, (1).to_bytes(8, "little") + bytes(4) + b"\x0c"
                        + bytes(5) + b"\x07"), maria, "format", HEADER_SIZE + 13,
                 "the 6 bytes after flags2 (no commit id, no XID, no extra flags) must be zero "
                 "padding"),
        negative("negative-mariadb-gtid-xid-beyond-body", "hand-made from the layout",
                 _event(MARIA_GTID_EVENT, (1).to_bytes(8, "little") + bytes(4) + b"\x40"
                        + (1).to_bytes(4, "little") + b"\x40\x40" + b"xy"), maria,
                 "truncated", HEADER_SIZE + 19,
                 "PREPARED_XA XID: gtrid_length 64 with 2 bytes left"),
        negative("negative-xa-prepare-gtrid-length-huge", "hand-made from the layout",
                 _event(XA_PREPARE_LOG_EVENT, b"\x00" + (1).to_bytes(4, "little")
                        + (0xFFFFFFFF).to_bytes(4, "little") + (0).to_bytes(4, "little")
                        + b"abc"), my, "truncated", HEADER_SIZE + 13,
                 "gtrid_length 2^32-1 with 3 bytes left: refused without allocating"),
        negative("negative-binlog-checkpoint-name-length-lies", "hand-made from the layout",
                 _event(BINLOG_CHECKPOINT_EVENT,
                        (200).to_bytes(4, "little") + b"mariadb-bin.000001"), maria,
                 "truncated", HEADER_SIZE + 4, "file name length 200 with 18 bytes left"),
    ]
    return out


def main(argv):
    what = set(argv[1:]) or {"corpus", "mariadb", "synthetic", "negative"}
    if "corpus" in what:
        write(SPECS / "gtid.yaml", corpus())
    if "mariadb" in what:
        write(SPECS / "gtid_mariadb.yaml", mariadb())
    if "synthetic" in what:
        write(SPECS / "gtid_synthetic.yaml", synthetic())
    if "negative" in what:
        write(SPECS / "gtid_negative.yaml", negatives())


if __name__ == "__main__":
    main(sys.argv)

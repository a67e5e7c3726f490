"""The binlog format as Kaitai Struct (specs/binlog.ksy, exported from the declarations by
scripts/make_ksy.py): it regenerates identically, and the parser the Kaitai Struct compiler
makes of it (npm ``kaitai-struct-compiler``, Python target, runtime ``kaitaistruct``) reads
the corpus as the library does: every event's header and CRC32, and the bodies it describes
field by field (FORMAT_DESCRIPTION, START_EVENT_V3, QUERY, ROTATE, XID, TABLE_MAP, GTID,
ANONYMOUS_GTID, MariaDB GTID), field for field.

Skips (saying why) only when node or npm cannot be had; the compiler is installed into
.work/node when it is not there yet (scripts/setup.sh does it too).
"""

from __future__ import annotations

import collections
import importlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import warnings

import pytest
import yaml

from binlog_schema.construct_ext.names import flag_value
from binlog_schema.format.facts.names import (EVENT_FLAGS, GTID_FLAGS, MARIA_GTID_FLAGS2,
                                       MARIA_GTID_FLAGS_EXTRA, TABLE_MAP_FLAGS)
from binlog_schema.format.stream import BinlogReader

ROOT = pathlib.Path(__file__).resolve().parents[2]
KSY = ROOT / "specs" / "binlog.ksy"
NODE_PREFIX = ROOT / ".work" / "node"
KSC = NODE_PREFIX / "node_modules" / "kaitai-struct-compiler"


def _pinned() -> str:
    """The compiler's version that scripts/setup.sh pins (KSC_VERSION=...)."""
    found = re.search(r"^KSC_VERSION=(\S+)$", (ROOT / "scripts" / "setup.sh").read_text(),
                      re.M)
    assert found, "scripts/setup.sh pins no KSC_VERSION"
    return found.group(1)


def test_ksy_regenerates_identically():
    from binlog_schema.output.kaitai import export
    text = export()
    assert text == export(), "two exports differ"
    assert KSY.read_text(encoding="utf-8") == text, \
        "specs/binlog.ksy is not what the declarations give: run scripts/make_ksy.py"


def test_make_ksy_check():
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_ksy.py"), "--check"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------------------- the compiler


def _compiler() -> pathlib.Path:
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node on PATH: the Kaitai Struct compiler (npm kaitai-struct-compiler, "
                    "a JavaScript build) cannot run; the .ksy was not compiled")
    if not (KSC / "kaitai-struct-compiler.js").is_file():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("the Kaitai Struct compiler is not installed and there is no npm to "
                        "install it (scripts/setup.sh installs it into .work/node)")
        done = subprocess.run([npm, "install", "--prefix", str(NODE_PREFIX), "--no-audit",
                               "--no-fund", f"kaitai-struct-compiler@{_pinned()}"],
                              capture_output=True, text=True)
        if done.returncode != 0 or not (KSC / "kaitai-struct-compiler.js").is_file():
            pytest.skip("npm could not install kaitai-struct-compiler@"
                        f"{_pinned()}: {done.stderr.strip()[-300:]}")
    return KSC


@pytest.fixture(scope="module")
def kaitai_binlog(tmp_path_factory):
    """The module the Kaitai Struct compiler makes of specs/binlog.ksy (Python target)."""
    ksc = _compiler()
    try:
        import kaitaistruct  # noqa: F401
    except ImportError:
        pytest.fail("the kaitaistruct runtime (the dev extra) is missing: run scripts/setup.sh")
    out = tmp_path_factory.mktemp("ksy")
    spec = out / "binlog.json"
    spec.write_text(json.dumps(yaml.safe_load(KSY.read_text(encoding="utf-8"))))
    done = subprocess.run(["node", str(ROOT / "scripts" / "ksc.js"), str(spec), "python",
                           str(out)], capture_output=True, text=True,
                          env={**os.environ, "KSC_MODULE": str(ksc)})
    assert done.returncode == 0, f"the Kaitai Struct compiler refused binlog.ksy:\n{done.stderr}"
    sys.path.insert(0, str(out))
    try:
        module = importlib.import_module("binlog")
    finally:
        sys.path.remove(str(out))
    return module


# ---------------------------------------------------------------------------- comparing


def _absent(obj, name):
    return getattr(obj, name, None)


def _text(value):
    return value.encode("utf-8") if isinstance(value, str) else value


def _fixed_text(value):
    return value.encode("ascii") if isinstance(value, str) else value.split(b"\0", 1)[0]


def _uuid(data):
    h = data.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _enum(value):
    """A Kaitai enum value as the library names it (a number when unknown)."""
    return value if isinstance(value, int) and not hasattr(value, "name") \
        else value.name.upper()


def _num(k):
    """A number: Kaitai's ``uint_le`` type holds it in ``.value``."""
    return k.value if hasattr(k, "value") else k


def _pair(k):
    if k is None:
        return None
    original = _absent(k, "original")
    return {"immediate": k.immediate, "original": None if original is None else original.value}


def _packed(k):
    return None if k is None else k.value


def _header(h):
    return {"timestamp": h.timestamp, "type_code": h.type_code, "server_id": h.server_id,
            "event_size": h.event_size, "log_pos": h.log_pos, "flags": h.flags}


def _our_header(h):
    return {**h, "flags": flag_value(h["flags"], EVENT_FLAGS)}


def _fde(b, ours):
    assert {"binlog_version": b.binlog_version, "server_version": b.server_version,
            "create_timestamp": b.create_timestamp, "header_length": b.header_length,
            "post_header_lengths": list(b.post_header_lengths),
            "checksum_alg": _absent(b, "checksum_alg")} == {
        **ours, "server_version": _fixed_text(ours["server_version"])}


def _start_v3(b, ours):
    assert {"binlog_version": b.binlog_version, "server_version": b.server_version,
            "create_timestamp": b.create_timestamp} == {
        **ours, "server_version": _fixed_text(ours["server_version"])}


def _rotate(b, ours):
    assert {"position": _absent(b, "position"),
            "post_header_extra": _absent(b, "post_header_extra"),
            "next_file": b.next_file} == {**ours, "next_file": _text(ours["next_file"])}


def _xid(b, ours):
    assert b.xid == ours["xid"]


def _query(b, ours, raw_body):
    if isinstance(ours, bytes):  # a layout the servers reject: raw in both
        assert b.corrupt and b.raw == ours
        return
    assert not b.corrupt
    status = _absent(b, "status_vars")
    assert {"thread_id": b.thread_id, "exec_time": b.exec_time, "db_len": b.db_len,
            "error_code": b.error_code, "status_vars_len": _absent(b, "status_vars_len"),
            "post_header_extra": _absent(b, "post_header_extra"),
            "database": b.database, "query": b.query} == {
        **{k: v for k, v in ours.items() if k != "status_vars"},
        "database": _text(ours["database"]), "query": _text(ours["query"])}
    # the status variables are the block's bytes, where the library's items came from
    if ours.get("status_vars") is None:
        assert status is None
    else:
        start = 13 + len(ours["post_header_extra"] or b"")
        assert status == raw_body[start:start + ours["status_vars_len"]]


def _column_meta(entry, column_type):
    m = entry.meta
    name = type(m).__name__
    if name == "Nothing":
        return None
    if name == "ColumnMetaString":
        real = _enum(m.real_type)
        key = "pack_length" if real in ("ENUM", "SET") else "max_length"
        return {"real_type": real, key: m.length}
    if name == "ColumnMetaBit":
        return {"bits": m.bits}
    if name == "ColumnMetaUnknown":
        return {"raw": m.raw}
    out = {}
    for key, value in vars(m).items():
        if key.startswith("_"):
            continue
        out[key] = _enum(value) if hasattr(value, "name") else value
    if "element" in out:  # TYPED_ARRAY: the element's own entry
        out["element"] = _column_meta(type("E", (), {"meta": out["element"]})(), None)
    return out


def _table_map(b, ours, raw_body):
    count = ours["column_count"]
    meta = _absent(b, "column_metadata")
    got = {"table_id": _num(b.table_id), "flags": b.flags, "database": b.database.value,
           "table": b.table.value, "column_count": b.column_count.value,
           "column_types": [_enum(t) for t in b.column_types],
           "column_metadata": None if meta is None else [
               _column_meta(e, t) for e, t in zip(meta.value.value, b.column_types)],
           "null_bitmap": _absent(b, "null_bitmap")}
    want = {**{k: v for k, v in ours.items() if k != "optional_metadata"},
            "flags": flag_value(ours["flags"], TABLE_MAP_FLAGS),
            "database": _text(ours["database"]), "table": _text(ours["table"]),
            "null_bitmap": None if ours["null_bitmap"] is None
            else ours["null_bitmap"][:count]}
    assert got == want
    # the optional metadata is the rest of the body's bytes (the library's TLVs from them)
    assert raw_body.endswith(b.optional_metadata)
    assert bool(b.optional_metadata) == bool(ours["optional_metadata"])


def _gtid(b, ours):
    assert {"flags": b.flags, "sid": _uuid(b.sid), "gno": b.gno,
            "lt_type": _absent(b, "lt_type"), "last_committed": _absent(b, "last_committed"),
            "sequence_number": _absent(b, "sequence_number"),
            "commit_timestamps": _pair(_absent(b, "commit_timestamps")),
            "transaction_length": _packed(_absent(b, "transaction_length")),
            "server_versions": _pair(_absent(b, "server_versions")),
            "commit_group_ticket": _absent(b, "commit_group_ticket")} == {
        **ours, "flags": flag_value(ours["flags"], GTID_FLAGS)}


def _maria_gtid(b, ours):
    xid = _absent(b, "xid")
    assert {"seq_no": b.seq_no, "domain_id": b.domain_id, "flags2": b.flags2,
            "commit_id": _absent(b, "commit_id"),
            "xid": None if xid is None else {
                "format_id": xid.format_id, "gtrid_length": xid.gtrid_length,
                "bqual_length": xid.bqual_length, "gtrid": xid.gtrid, "bqual": xid.bqual},
            "flags_extra": _absent(b, "flags_extra") or 0,
            "extra_engines": _absent(b, "extra_engines"),
            "sa_seq_no": _absent(b, "sa_seq_no"), "thread_id": _absent(b, "thread_id")} == {
        **ours, "flags2": flag_value(ours["flags2"], MARIA_GTID_FLAGS2),
        "flags_extra": flag_value(ours["flags_extra"], MARIA_GTID_FLAGS_EXTRA),
        "xid": None if ours["xid"] is None else {
            **ours["xid"], "gtrid": _text(ours["xid"]["gtrid"]),
            "bqual": _text(ours["xid"]["bqual"])}}


BODIES = {15: _fde, 1: _start_v3, 4: _rotate, 16: _xid, 33: _gtid, 34: _gtid,
          162: _maria_gtid}
WITH_BYTES = {2: _query, 19: _table_map}
NAMES = {15: "FORMAT_DESCRIPTION", 1: "START_EVENT_V3", 4: "ROTATE", 16: "XID", 33: "GTID",
         34: "ANONYMOUS_GTID", 162: "MARIADB_GTID", 2: "QUERY", 19: "TABLE_MAP"}


@pytest.mark.corpus
def test_kaitai_parser_reads_the_corpus_as_we_do(kaitai_binlog, corpus):
    from kaitaistruct import KaitaiStructError
    compared = collections.Counter()
    files = 0
    for path in corpus:
        reader = BinlogReader(str(path), skip_errors=True, payloads=False)
        try:
            ours = list(reader)
        except Exception:  # noqa: BLE001 - not a binlog: not the description's either
            continue
        try:
            parsed = kaitai_binlog.Binlog.from_bytes(path.read_bytes())
        except (EOFError, KaitaiStructError) as e:
            # a file cut inside its last event: Kaitai has no partial record (said in the .ksy)
            assert reader.tail is not None, f"{path}: the Kaitai parser failed: {e}"
            continue
        assert reader.tail is None, f"{path}: Kaitai read a truncated tail as an event"
        events = parsed.events
        assert len(events) == len(ours), path
        files += 1
        for rec, ev in zip(ours, events):
            where = f"{path.name}@{rec.offset}"
            value = rec.value  # (a corrupt QUERY: its value is the raw body, flagged)
            assert value is not None, f"{where}: {rec.error}"
            assert _header(ev.header) == _our_header(value["header"]), where
            assert ev.kind == rec.kind, where
            assert _absent(ev, "checksum") == value.get("checksum"), where
            compared["header"] += 1
            kind = rec.kind
            crc = 4 if "checksum" in value else 0
            raw_body = rec.raw[19:len(rec.raw) - crc]
            try:
                if kind in BODIES:
                    BODIES[kind](ev.body, value["body"])
                elif kind in WITH_BYTES:
                    WITH_BYTES[kind](ev.body, value["body"], raw_body)
                else:
                    assert ev.body == raw_body  # described as its bytes
                    continue
            except AssertionError as e:
                raise AssertionError(f"{where}: {NAMES[kind]} body differs: {e}") from None
            compared[NAMES[kind]] += 1
    summary = ", ".join(f"{k} {v}" for k, v in sorted(compared.items()))
    print(f"\nKaitai vs library: {files} files; events compared: {summary}")
    assert files and compared["header"]
    for name in ("FORMAT_DESCRIPTION", "QUERY", "ROTATE", "TABLE_MAP", "XID", "GTID",
                 "ANONYMOUS_GTID", "MARIADB_GTID", "START_EVENT_V3"):
        if not compared[name]:
            warnings.warn(f"the corpus has no {name} event the Kaitai parser could be "
                          "compared on")

"""The command line on small inputs made here (no corpus needed)."""

import json
import subprocess
import sys
import zlib

from binlog_schema.format.context import Context
from binlog_schema.format.event_codec import build_event
from binlog_schema.format.writer import BinlogWriter

FDE_BODY = {"binlog_version": 4, "server_version": "8.0.40", "create_timestamp": 0,
            "header_length": 19, "post_header_lengths": [0] * 40, "checksum_alg": 1}


def _file(tmp_path, corrupt=False, truncate=0):
    path = tmp_path / "bin.000001"
    with BinlogWriter(path) as w:
        w.write({"header": {"timestamp": 1, "type_code": 15, "server_id": 1, "log_pos": None,
                            "flags": []}, "body": FDE_BODY})
        w.write({"header": {"timestamp": 2, "type_code": 19, "server_id": 1, "log_pos": None,
                            "flags": []},
                 "body": {"table_id": 5, "flags": ["BIT_LEN_EXACT"], "database": "d",
                          "table": "t", "column_types": ["LONG", "VARCHAR"],
                          "column_metadata": [None, {"max_length": 40}],
                          "null_bitmap": [False, True],
                          "optional_metadata": [{"type": "COLUMN_NAME",
                                                 "value": ["id", "name"]}]}})
    data = bytearray(path.read_bytes())
    if corrupt:
        data[-6] ^= 0xFF
    if truncate:
        data = data[:-truncate]
    path.write_bytes(bytes(data))
    return path


def run(*args, input=None):
    return subprocess.run([sys.executable, "-m", "binlog_schema", *args], input=input,
                          capture_output=True)


def test_decode_jsonl_and_text(tmp_path):
    path = _file(tmp_path)
    out = run("decode", str(path))
    assert out.returncode == 0
    events = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert [e["type"] for e in events] == ["FORMAT_DESCRIPTION_EVENT", "TABLE_MAP_EVENT"]
    assert events[1]["body"]["database"] == "d" and events[1]["type_code"] == 19
    assert events[1]["header"]["log_pos"] == events[1]["offset"] + events[1]["header"][
        "event_size"]
    text = run("decode", "--format", "text", str(path)).stdout.decode()
    assert "# at 4" in text and "Table_map: `d`.`t` mapped to number 5" in text


def test_roundtrip_reports_identical_and_fails_on_corruption(tmp_path):
    good = run("roundtrip", str(_file(tmp_path)))
    assert good.returncode == 0
    assert "events 2, identical 2" in good.stdout.decode()
    bad = run("roundtrip", str(_file(tmp_path, corrupt=True)))
    assert bad.returncode == 1
    assert "FAILED 1" in bad.stdout.decode() and "checksum" in bad.stdout.decode()


def test_truncated_tail_is_reported_not_counted(tmp_path):
    out = run("roundtrip", str(_file(tmp_path, truncate=5)))
    assert out.returncode == 1   # (a file cut short: as decode and table-maps say, issue 26)
    assert "truncated tail at" in out.stdout.decode()
    assert "truncated last event at 125" in out.stderr.decode()


def test_table_maps_and_build(tmp_path):
    path = _file(tmp_path)
    tm = run("table-maps", str(path))
    d = json.loads(tm.stdout)
    assert d["columns"][1]["name"] == "name" and d["columns"][1]["max_length"] == 40
    assert d["row_metadata"] == "full"
    hexed = run("build-table-map", input=tm.stdout).stdout.decode().strip()
    data = path.read_bytes()
    assert data[d["offset"]:d["offset"] + d["header"]["event_size"]].hex() == hexed


def test_validate_reports_failures_with_a_byte_diff(tmp_path):
    spec = tmp_path / "v.yaml"
    ev = build_event({"header": {"timestamp": 1, "type_code": 7, "server_id": 1,
                                 "log_pos": 0, "flags": []}, "body": b"\x01\x02"},
                     Context(checksum=False))
    spec.write_text(f"name: raw\ncontext: {{checksum: false}}\nhex: '{ev.hex()}'\n"
                    "expect: {header: {timestamp: 1, type_code: 7, server_id: 1, event_size: 21,"
                    " log_pos: 0, flags: []}, body: {hex: '0103'}}\n")
    out = run("validate", str(spec))
    assert out.returncode == 1
    text = out.stdout.decode()
    assert "FAIL" in text and "offset 20" in text and text.strip().endswith("0 passed, 1 failed")


def test_fde_crc_is_computed_with_the_in_use_flag_cleared():
    ctx = Context()
    value = {"header": {"timestamp": 1, "type_code": 15, "server_id": 1, "log_pos": 120,
                        "flags": ["BINLOG_IN_USE"]}, "body": FDE_BODY}
    data = build_event(value, ctx)
    cleared = data[:17] + bytes([data[17] & 0xFE]) + data[18:-4]
    assert int.from_bytes(data[-4:], "little") == zlib.crc32(cleared)
    assert data[17] & 1

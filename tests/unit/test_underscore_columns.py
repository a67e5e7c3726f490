"""A column whose name starts with "_" is a column: the JSON writers drop only the keys a row
keeps beside its columns (format/values/image.py's IMAGE_KEYS), not every "_" name."""

import json
import subprocess
import sys

from binlog_schema.synthetic import generate

SPEC = {
    "server": "mariadb-10.11",
    "settings": {"binlog_row_metadata": "FULL"},
    "database": "test",
    "tables": [{"name": "t", "columns": [{"name": "_id", "type": "INT", "nullable": False},
                                         {"name": "_note", "type": "VARCHAR(10)"},
                                         {"name": "v", "type": "INT"}],
                "primary_key": ["_id"]}],
    "transactions": [{"changes": [
        {"insert": "t", "rows": [{"_id": 1, "_note": "a", "v": 7}]},
        {"update": "t", "rows": [{"where": {"_id": 1}, "set": {"_note": None}}]}]}],
}


def _rows(tmp_path, *extra):
    path = tmp_path / "under.000001"
    generate(SPEC, str(path))
    out = subprocess.run([sys.executable, "-m", "binlog_schema", "decode", "--rows", *extra,
                          str(path)], capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_underscore_columns_in_rows_json(tmp_path):
    rows = [r for e in _rows(tmp_path) for r in (e.get("rows") or [])]
    assert rows, "no rows decoded"
    insert, update = rows[0], rows[1]
    assert insert == {"_id": 1, "_note": "a", "v": 7}
    before, after = (update["before"], update["after"]) if isinstance(update, dict) and \
        "before" in update else update
    assert before["_note"] == "a" and after["_note"] is None and after["_id"] == 1


def test_underscore_columns_in_maxwell(tmp_path):
    lines = _rows(tmp_path, "--format", "maxwell")
    assert [line["data"] for line in lines][0] == {"_id": 1, "_note": "a", "v": 7}
    assert lines[1]["old"] == {"_note": "a"}

#!/usr/bin/env python3
"""Regenerate the generator's golden vectors, specs/fixtures/<server>.yaml: every event of a
small fixture per server profile, each a vector of binlog_schema.synthetic.vector_checks (checked
both ways by ``binlog-schema validate``) with the spec that generates it under ``fixture``
(tests/vectors/test_synthetic.py regenerates the event from it and compares the bytes).

    .venv/bin/python scripts/make_fixture_vectors.py
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from binlog_schema.synthetic.vector import _records, event_vector  # noqa: E402
from binlog_schema.synthetic.writer import generate  # noqa: E402
from binlog_schema.synthetic.vector_checks import dump_vector  # noqa: E402

TABLE = {"name": "t", "columns": [
    {"name": "id", "type": "INT", "unsigned": True, "nullable": False},
    {"name": "amount", "type": "DECIMAL(10,2)"},
    {"name": "label", "type": "VARCHAR(20)", "charset": "utf8mb4"},
    {"name": "state", "type": "ENUM('new','done')", "nullable": False},
    {"name": "at", "type": "DATETIME(3)"},
    {"name": "doc", "type": "BLOB"}], "primary_key": ["id"]}
TXS = [
    {"insert": "t", "rows": [[1, "9.99", "café ☕", "new", "2024-02-29 12:00:00.5",
                              {"hex": "00ff"}],
                             {"id": 2, "state": "done"}]},
    {"update": "t", "rows": [{"where": {"id": 1}, "set": {"state": "done", "amount": "-1.00"}}]},
    {"delete": "t", "rows": [{"id": 2}]},
    {"ddl": "ALTER TABLE t ADD INDEX (label)"},
]
FIXTURES = {
    "mysql-5.7": {"settings": {}},
    "mysql-8.0": {"settings": {"gtid_mode": "ON", "binlog_row_metadata": "FULL"}},
    "mysql-8.0-compressed": {"server": "mysql-8.0",
                             "settings": {"compression": True, "binlog_row_image": "MINIMAL"}},
    "mysql-8.4": {"settings": {"gtid_mode": "ON", "gtid_tag": "blue",
                               "previous_gtids": ["3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"]}},
    "mysql-9.0": {"settings": {"binlog_row_metadata": "FULL", "end": "stop"},
                  "extra": {"name": "v", "type": "VECTOR(2)"}},
    "mariadb-10.11": {"settings": {"binlog_row_metadata": "FULL",
                                   "previous_gtids": ["0-1-41"]}},
    "mariadb-10.11-compressed": {"server": "mariadb-10.11",
                                 "settings": {"compression": True, "compression_min_length": 8,
                                              "checksum": "NONE"}},
    "mariadb-11.4": {"settings": {"binlog_row_metadata": "MINIMAL",
                                  "binlog_row_image": "NOBLOB"}},
}


def spec_for(key, how) -> dict:
    table = dict(TABLE, columns=list(TABLE["columns"]))
    txs = [dict(t) for t in TXS]
    if "extra" in how:
        table["columns"].append(how["extra"])
        txs[0] = {"insert": "t", "rows": [[1, "9.99", "x", "new", None, None, [0.5, -2.0]],
                                          {"id": 2, "state": "done"}]}
    return {"name": f"vectors-{key}", "server": how.get("server", key),
            "settings": dict(how["settings"]), "database": "fx", "tables": [table],
            "transactions": txs}


def main() -> int:
    out_dir = ROOT / "specs" / "fixtures"
    out_dir.mkdir(parents=True, exist_ok=True)
    total = 0
    for key, how in FIXTURES.items():
        spec = spec_for(key, how)
        n = sum(1 for _ in _records(generate(spec)))
        docs = []
        for i in range(n):
            vec = event_vector(spec, i, f"fixture-{key}-{i:02d}",
                               f"synthetic: binlog_schema.synthetic, event {i} of the "
                               f"{key} spec under 'fixture' (scripts/make_fixture_vectors.py)")
            docs.append(dump_vector(vec))
        (out_dir / f"{key}.yaml").write_text("---\n" + "---\n".join(docs), encoding="utf-8")
        total += n
        print(f"specs/fixtures/{key}.yaml: {n} vectors")
    print(f"{total} vectors")
    return 0


if __name__ == "__main__":
    sys.exit(main())

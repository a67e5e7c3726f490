#!/usr/bin/env python3
"""Write a small binlog file made from the declarations (an FDE and every positive MySQL-8
TABLE_MAP vector of specs/), for the README's main command to decode: no server needed."""

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from binlog_schema.envelope import HEADER_SIZE, parse_event  # noqa: E402
from binlog_schema.mysql.codes import FORMAT_DESCRIPTION_EVENT  # noqa: E402
from binlog_schema.stream import BinlogWriter  # noqa: E402
from binlog_schema.vectors import context_of, hex_bytes, iter_vectors  # noqa: E402


def main(out):
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with BinlogWriter(out) as w:
        w.write({"header": {"timestamp": 1700000000, "type_code": FORMAT_DESCRIPTION_EVENT,
                            "server_id": 1, "log_pos": None, "flags": []},
                 "body": {"binlog_version": 4, "server_version": "8.0.40",
                          "create_timestamp": 1700000000, "header_length": HEADER_SIZE,
                          "post_header_lengths": [0] * 40, "checksum_alg": 1}})
        n = 0
        for _, _, doc in iter_vectors(ROOT / "specs" / "table_map"):
            ctx = context_of(doc)
            if "expect" not in doc or not ctx.checksum or ctx.table_id_size != 6 \
                    or (ctx.flavor or "mysql") != "mysql" or ctx.type_remap:
                continue
            value = parse_event(hex_bytes(doc["hex"]), ctx)
            value["header"]["log_pos"] = None
            w.write(value, ctx)
            n += 1
    print(f"{out}: FORMAT_DESCRIPTION + {n} TABLE_MAP events", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ROOT / ".work" / "demo.binlog")

#!/usr/bin/env python3
"""Write specs/rows/mariadb-hires.yaml: rows vectors of MariaDB's hi-res TIME, DATETIME and
TIMESTAMP (mysql56_temporal_format=OFF), captured from a real server, checked both ways by
``binlog-schema validate``.

    python scripts/make_hires_vectors.py

Starts a private MariaDB (scripts/mariadb.sh, name "hires-vectors") with
``--mysql56-temporal-format=OFF``, runs scripts/workloads/hires.sql under FULL and under
MINIMAL ``binlog_row_metadata``, and writes a vector per rows event of the table: the TABLE_MAP
in force says the old type codes 11, 12, 7 with no metadata, so each vector carries
``schema``, the table's CREATE TABLE (SHOW CREATE TABLE), which gives the precision (and, with
MINIMAL metadata, the names). The server is destroyed at the end.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from binlog_schema.format.facts.codes import ROWS_KINDS  # noqa: E402
from binlog_schema.format.values.rows import operation_of  # noqa: E402
from binlog_schema.synthetic.vector_checks import check_vector  # noqa: E402
from make_rows_vectors import events_with_maps  # noqa: E402
from make_vectors import ctx_dict, write  # noqa: E402

NAME = "hires-vectors"
M = ROOT / "scripts" / "mariadb.sh"
WORKLOAD = ROOT / "scripts" / "workloads" / "hires.sql"
OUT = ROOT / "specs" / "rows" / "mariadb-hires.yaml"


def sql(text: str) -> str:
    run = subprocess.run(["bash", str(M), "sql", NAME, "-N", "-B", "--raw"], input=text,
                         capture_output=True, text=True, timeout=120, check=True)
    return run.stdout


def part(name: str) -> str:
    lines, keep = [], False
    for line in WORKLOAD.read_text(encoding="utf-8").splitlines():
        if line.startswith("-- @@ part "):
            keep = line == f"-- @@ part {name}:"
        elif keep:
            lines.append(line)
    return "\n".join(lines) + "\n"


def session() -> str:
    return "SET time_zone = '+00:00'; SET sql_mode = 'STRICT_ALL_TABLES';\n"


def main() -> int:
    subprocess.run(["bash", str(M), "destroy", NAME], capture_output=True)
    env = subprocess.run(["bash", str(M), "start", NAME, "--mysql56-temporal-format=OFF",
                          "--binlog-checksum=CRC32"], capture_output=True, text=True,
                         check=True, timeout=180).stdout
    binlog_dir = pathlib.Path(dict(x.split("=", 1) for x in env.split() if "=" in x)
                              ["binlog_dir"])
    vectors = []
    try:
        for meta in ("FULL", "MINIMAL"):
            sql(f"SET GLOBAL binlog_row_metadata = {meta}; DROP DATABASE IF EXISTS bs_hires;")
            sql(session() + part("ddl"))
            create = sql("SHOW CREATE TABLE bs_hires.t_hires").split("\t", 1)[1]
            create = create.replace("\\n", "\n").strip()
            sql("FLUSH BINARY LOGS")
            name = sql("SHOW MASTER STATUS").split("\t")[0]
            sql(session() + part("rows"))
            sql("FLUSH BINARY LOGS")
            seen: dict = {}
            for tm_rec, rec, query in events_with_maps(binlog_dir / name):
                op = operation_of(rec.kind)
                n = seen[op] = seen.get(op, -1) + 1
                label = f"{meta.lower()}-{op}" + (f"-{n}" if n else "")
                v = {"name": f"mariadb-rows-hires-{label}",
                     "source": f"real MariaDB server: scripts/make_hires_vectors.py (workload "
                               f"scripts/workloads/hires.sql), {name} at offset {rec.offset} "
                               f"(TABLE_MAP at {tm_rec.offset}); hi-res TIME, DATETIME, "
                               f"TIMESTAMP of precision 1-6 (mysql56_temporal_format=OFF): "
                               "old type codes, no metadata, the precision from the schema",
                     "server": rec.ctx.server_version,
                     "settings": {"binlog_checksum": "CRC32", "binlog_row_image": "FULL",
                                  "binlog_row_metadata": meta,
                                  "mysql56_temporal_format": "OFF"},
                     "context": ctx_dict(rec.ctx), "sql": query + ";",
                     "schema": create + ";",
                     "table_map_hex": tm_rec.raw.hex(), "hex": rec.raw.hex()}
                v["rows"] = _rows(v)
                problems = check_vector(v)
                assert not problems, (label, problems)
                vectors.append(v)
    finally:
        subprocess.run(["bash", str(M), "destroy", NAME], capture_output=True)
    assert len(vectors) == 6, [v["name"] for v in vectors]
    write(OUT, vectors)
    return 0


def _rows(v) -> list:
    """The JSON-safe rows of the vector's event, through the table map as its schema
    completes it (what check_vector then checks both ways)."""
    from binlog_schema.format.event_codec import parse_event
    from binlog_schema.changes.table_map import table_map_from_event
    from binlog_schema.format.forms.json_safe import jsonable
    from binlog_schema.format.values.rows import RowsCodec
    from binlog_schema.synthetic.vector_checks import _with_schema, context_of
    ctx = context_of(v)
    tm = table_map_from_event(parse_event(bytes.fromhex(v["table_map_hex"]), ctx), ctx)
    tm, problems = _with_schema(tm, v["schema"], ctx)
    assert not problems, problems
    event = parse_event(bytes.fromhex(v["hex"]), ctx)
    assert event["header"]["type_code"] in ROWS_KINDS

    def image(img):
        return {k: jsonable(v) if isinstance(k, int) else v for k, v in img.items()}
    return [[image(r[0]), image(r[1])] if isinstance(r, tuple) else image(r)
            for r in RowsCodec(tm).decode(event["body"], event["header"]["type_code"])]


if __name__ == "__main__":
    sys.exit(main())

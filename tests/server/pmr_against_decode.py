"""A python-mysql-replication client of ``serve`` that checks, as it reads, that its rows are
``binlog-schema decode --rows`` of the served files (value for value, pmr's known quirks
matched exactly: test_serve_server.same_value), in bounded memory: decode runs beside it and
both are walked in step. For test_serve_load_server.py (one process per client).

    python -m tests.server.pmr_against_decode PORT FOLDER

Prints ``OK <rows>`` (status 0), or the first differences (status 1).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .test_serve_server import row_differences


def decoded(folder: str):
    """(table, kind, values, after) of each row change ``decode --rows`` gives of the
    folder's files, one at a time."""
    files = sorted(os.listdir(folder))
    proc = subprocess.Popen([sys.executable, "-m", "binlog_schema", "decode", "--rows", *files],
                            cwd=folder, stdout=subprocess.PIPE)
    tables = {}
    try:
        for line in proc.stdout:
            ev = json.loads(line)
            if ev["type"] == "TABLE_MAP_EVENT":
                tables[ev["body"]["table_id"]] = f"{ev['body']['database']}.{ev['body']['table']}"
            elif "rows" in ev and isinstance(ev["rows"], list):
                name = tables[ev["body"]["table_id"]]
                for r in ev["rows"]:
                    if "before" in r:
                        yield name, "update", r["before"], r["after"]
                    else:
                        yield name, ev["type"].split("_")[0].lower(), r, None
    finally:
        proc.stdout.close()
        proc.wait()


def streamed(port: int):
    from pymysqlreplication import BinLogStreamReader
    from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent
    stream = BinLogStreamReader(
        connection_settings={"host": "127.0.0.1", "port": port, "user": "load",
                             "password": ""},
        server_id=200 + os.getpid() % 10000, blocking=False, is_mariadb=True,
        only_events=[WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent])
    try:
        for ev in stream:
            name = f"{ev.schema}.{ev.table}"
            for r in ev.rows:
                if isinstance(ev, UpdateRowsEvent):
                    yield name, "update", r["before_values"], r["after_values"]
                else:
                    yield (name, "write" if isinstance(ev, WriteRowsEvent) else "delete",
                           r["values"], None)
    finally:
        stream.close()


def main() -> int:
    port, folder = int(sys.argv[1]), sys.argv[2]
    theirs, ours = streamed(port), decoded(folder)
    n = 0
    while True:
        t, o = next(theirs, None), next(ours, None)
        if t is None and o is None:
            print(f"OK {n}")
            return 0
        if t is None or o is None or row_differences([t], [o]):
            print(f"row {n}: " + ("; ".join(row_differences([t], [o])) if t and o else
                                  f"{'pmr' if t is None else 'decode'} ended first"))
            return 1
        n += 1


if __name__ == "__main__":
    sys.exit(main())

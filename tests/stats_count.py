"""An independent count of what ``binlog-schema stats`` reports, summed from decode's JSON
Lines (``decode --rows``, with or without ``--skip-errors``): event types and bytes, row
changes per table and operation, rows events and their bytes, changes per minute, GTID
ranges, the files' time spans, the SKIPPED ranges and the events not decoded. The tests and
``benchmarks/bench_stats.py`` compare stats' JSON with it."""

from __future__ import annotations

import io
import json

OPS = {"WRITE": "inserts", "UPDATE": "updates", "DELETE": "deletes"}


def decoded_lines(path, skip_errors=False):
    """(decode --rows's JSON objects of ``path``, its status), in-process."""
    from binlog_schema.output.write import Output, write_events
    out, err = io.StringIO(), io.StringIO()
    o = Output(out)
    status = write_events(str(path), o, rows=True, skip_errors=skip_errors, err=err)
    o.flush()
    return [json.loads(line) for line in out.getvalue().splitlines()], status


def _op(type_name):
    for prefix, op in OPS.items():
        if type_name.startswith(prefix) or type_name.startswith("PRE_GA_" + prefix) or \
                type_name == "PARTIAL_UPDATE_ROWS_EVENT" and prefix == "UPDATE":
            return op
    return None


def count(paths_lines):
    """The figures of ``[(path, decoded lines)]``, in the shapes of stats' JSON (only the
    parts compared)."""
    types, tables, minutes, gtids, files = {}, {}, {}, {}, []
    skipped, undecodable = [], 0
    for path, lines in paths_lines:
        maps = {}
        first = last = None
        events = 0
        for d in lines:
            if d["type"] == "SKIPPED":
                skipped.append((str(path), d["offset"], d["offset"] + d["size"]))
                continue
            header = d.get("header") or {}
            size = header.get("event_size")
            if size is None:
                size = len(bytes.fromhex(d["raw"]["hex"])) if "raw" in d else 0
            t = types.setdefault(d["type"], [0, 0])
            t[0] += 1
            t[1] += size
            events += 1
            ts = header.get("timestamp")
            if "in_payload_at" not in d and ts is not None:
                first = ts if first is None else min(first, ts)
                last = ts if last is None else max(last, ts)
            if "error" in d:
                undecodable += 1
                continue
            body = d.get("body") or {}
            if d["type"] == "TABLE_MAP_EVENT":
                maps[body["table_id"]] = f"{body['database']}.{body['table']}"
            elif d["type"] in ("GTID_EVENT",):   # MariaDB
                key = f"{body['domain_id']}-{header['server_id']}"
                gtids.setdefault(key, set()).add(body["seq_no"])
            elif d["type"] in ("GTID_LOG_EVENT", "GTID_TAGGED_LOG_EVENT"):
                sid = body.get("sid") or body.get("uuid")
                key = sid + (f":{body['tag']}" if body.get("tag") else "")
                gtids.setdefault(key, set()).add(body["gno"])
            op = _op(d["type"])
            if op is None:
                continue
            if "rows_error" in d:
                undecodable += 1
                continue
            name = maps[body["table_id"]]
            n = len(d["rows"])
            tab = tables.setdefault(name, {"inserts": 0, "updates": 0, "deletes": 0,
                                           "rows_events": 0, "bytes": 0})
            tab[op] += n
            tab["rows_events"] += 1
            tab["bytes"] += size
            minute = ts - ts % 60
            minutes[minute] = minutes.get(minute, 0) + n
        files.append({"file": str(path), "events": events, "first_timestamp": first,
                      "last_timestamp": last})
    return {"types": types, "tables": tables, "minutes": minutes,
            "gtids": {k: _ranges(v) for k, v in gtids.items()}, "files": files,
            "skipped": skipped, "undecodable": undecodable}


def _ranges(numbers):
    out = []
    for n in sorted(numbers):
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return out


def of_stats(d):
    """The same parts of stats' JSON ``d``."""
    tables = {f"{t['database']}.{t['table']}": {k: t[k] for k in
                                               ("inserts", "updates", "deletes",
                                                "rows_events", "bytes")}
              for t in d["tables"]}
    return {"types": {t["type"]: [t["events"], t["bytes"]] for t in d["event_types"]},
            "tables": tables,
            "minutes": {m["minute"]: m["changes"] for m in d["per_minute"]},
            "gtids": {g["source"]: g["ranges"] for g in d["gtids"]},
            "files": [{k: f[k] for k in ("file", "events", "first_timestamp",
                                         "last_timestamp")} for f in d["files"]],
            "skipped": [(s["file"], s["start"], s["end"]) for s in d["skipped"]],
            "undecodable": len(d["undecodable"])}

"""The ``binlog-schema`` command."""

from __future__ import annotations

import argparse
import json
import sys
import time

from .envelope import build_event
from .errors import BinlogError
from .plain import first_difference, to_plain
from .stream import BinlogReader


def _out(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str))
    sys.stdout.write("\n")


def _records(rec):
    yield rec
    for inner in rec.inner or ():
        yield inner


# ------------------------------------------------------------------------------ decode


def event_dict(path, rec) -> dict:
    d = {"file": path, "offset": rec.offset, "type": rec.type_name, "type_code": rec.type_code}
    if rec.parent_offset is not None:
        d["in_payload_at"] = rec.parent_offset
    if rec.error is not None:
        d["error"] = rec.error.to_dict()
        if rec.gap is not None:
            d["gap"] = list(rec.gap)
        return d
    if rec.ctx.encrypted and rec.value is None:
        d["encrypted"] = True
        d["size"] = rec.size
        return d
    if rec.value is not None:
        d["header"] = to_plain(rec.value["header"])
        d["body"] = to_plain(rec.value["body"])
        for key in ("trailing", "checksum"):
            if key in rec.value:
                d[key] = to_plain(rec.value[key])
    return d


def _text_line(rec) -> str:
    v = rec.value
    lines = [f"# at {rec.offset}" if rec.parent_offset is None
             else f"#   in payload at {rec.parent_offset}, +{rec.offset}"]
    if rec.error is not None:
        lines.append(f"# ERROR {rec.error}")
        return "\n".join(lines)
    h = v["header"]
    stamp = time.strftime("%y%m%d %H:%M:%S", time.gmtime(h["timestamp"]))
    crc = f" CRC32 0x{v['checksum']:08x}" if "checksum" in v else ""
    lines.append(f"#{stamp} server id {h['server_id']}  end_log_pos {h['log_pos']}{crc} \t"
                 f"{_summary(rec)}")
    return "\n".join(lines)


def _text_rows(d):
    if "rows_error" in d:
        yield f"### rows not decoded: {d['rows_error']['message']}"
        return
    for row in d.get("rows", []):
        if "after" in row and "before" in row:
            yield "### UPDATE"
            yield "###   WHERE " + json.dumps(row["before"], ensure_ascii=False)
            yield "###   SET   " + json.dumps(row["after"], ensure_ascii=False)
        else:
            yield "###   " + json.dumps(row, ensure_ascii=False)


_ROWS_NAMES = {"WRITE": "Write_rows", "UPDATE": "Update_rows", "DELETE": "Delete_rows",
               "PARTIAL": "Update_rows_partial"}


def _summary(rec) -> str:
    """The event as mysqlbinlog's comment line (and the statement lines after it) say it."""
    body = rec.value["body"]
    kind = rec.kind
    if isinstance(body, (bytes, bytearray)):
        return f"{rec.type_name} ({len(body)} bytes, not declared: kept raw)"
    if kind == 2 or kind == 165:
        text = body.get("query")
        q = text if isinstance(text, str) else _name(text or b"")
        db = body.get("database")
        lines = [f"Query\tthread_id={body.get('thread_id')}\texec_time="
                 f"{body.get('exec_time')}\terror_code={body.get('error_code')}"]
        if db:
            lines.append(f"use `{_name(db)}`/*!*/;")
        lines.append(f"{q}\n/*!*/;")
        return "\n".join(lines)
    if kind == 16:
        return f"Xid = {body['xid']}\nCOMMIT/*!*/;"
    if kind == 4:
        return f"Rotate to {_name(body['next_file'])}  pos: {body.get('position')}"
    if kind == 19:
        return (f"Table_map: `{_name(body['database'])}`.`{_name(body['table'])}` mapped to "
                f"number {body['table_id']} ({len(body['column_types'])} columns)")
    if kind == 15:
        return (f"Start: binlog v {body['binlog_version']}, server v {body['server_version']} "
                f"created {time.strftime('%y%m%d %H:%M:%S', time.gmtime(body['create_timestamp']))}")
    if kind in (33, 34):
        gtid = f"{body.get('sid')}:{body.get('gno')}" if kind == 33 else "ANONYMOUS"
        return (f"GTID\tlast_committed={body.get('last_committed')}\tsequence_number="
                f"{body.get('sequence_number')}\nSET @@SESSION.GTID_NEXT= '{gtid}'/*!*/;")
    if kind == 162:
        return (f"GTID {body['domain_id']}-{rec.value['header']['server_id']}-{body['seq_no']}"
                f" {' '.join(str(f).lower() for f in body.get('flags2') or [])}")
    if kind == 5:
        return f"Intvar\nSET {body['type']}={body['value']}/*!*/;"
    if kind == 160:
        q = body["query"]
        return "Annotate_rows:\n#Q> " + (q if isinstance(q, str) else _name(q))
    from .mysql.codes import DELETE_KINDS, ROWS_KINDS, UPDATE_KINDS
    if kind in ROWS_KINDS:
        op = "DELETE" if kind in DELETE_KINDS else "PARTIAL" if kind == 39 else \
            "UPDATE" if kind in UPDATE_KINDS else "WRITE"
        flags = " ".join(f"{f}_F" for f in body.get("flags") or [])
        return f"{_ROWS_NAMES[op]}: table id {body['table_id']} flags: {flags}"
    keys = [k for k in body if not str(k).startswith("_")][:4]
    return rec.type_name + " " + " ".join(f"{k}: {_short(body[k])}" for k in keys)


def _name(v):
    return v if isinstance(v, str) else bytes(v).hex()


def _short(v):
    text = json.dumps(to_plain(v), ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def _with_rows(d, r, rows, binary):
    from .model.row_change import jsonable
    if r.error is not None or r.value is None:
        return d
    try:
        decoded, tm = rows.rows_of(r)
    except BinlogError as e:
        d["rows_error"] = e.to_dict()
        return d
    def image(img):
        return {k: jsonable(v, binary) for k, v in img.items() if not k.startswith("_")}
    d["rows"] = [{"before": image(x[0]), "after": image(x[1])} if isinstance(x, tuple)
                 else image(x) for x in decoded]
    return d


def cmd_decode(args) -> int:
    from .mysql.codes import ROWS_KINDS
    from .model.row_change import RowDecoder
    status = 0
    for path in args.files:
        reader = BinlogReader(path, start=args.start_position, stop=args.stop_position,
                              types=args.types, skip_errors=args.skip_errors)
        rows = RowDecoder(path) if args.rows else None
        try:
            for rec in reader:
                for r in _records(rec):
                    if rows is not None and r.value is not None and r.kind in (19,) + tuple(
                            k for k in (33, 42, 162)):
                        rows._one(r)
                    if args.format == "jsonl":
                        d = event_dict(path, r)
                        if rows is not None and r.kind in ROWS_KINDS:
                            d = _with_rows(d, r, rows, args.binary)
                        _out(d)
                    else:
                        print(_text_line(r))
                        if rows is not None and r.kind in ROWS_KINDS:
                            for line in _text_rows(_with_rows({}, r, rows, args.binary)):
                                print(line)
        except BinlogError as e:
            print(f"{path}: {e}", file=sys.stderr)
            status = 1
        if reader.tail is not None:
            print(f"{path}: truncated last event: {json.dumps(reader.tail.to_dict())}",
                  file=sys.stderr)
    return status


# ------------------------------------------------------------------------------ roundtrip


def _roundtrip_rows(decoder, r, res, rows_kinds):
    """Decode a rows event's row images through the table map and build them back."""
    if r.kind not in rows_kinds:
        decoder._one(r)
        return
    try:
        decoded, _ = decoder.rows_of(r)
    except BinlogError as e:
        res["rows_failed"].append({"offset": r.offset, "error": str(e)})
        return
    res["rows"] += len(decoded)
    body = r.value["body"]
    raw = body["rows"]["data"] if isinstance(body["rows"], dict) else body["rows"]
    try:
        again = decoder.encode_rows(r, decoded)
    except Exception as e:  # noqa: BLE001 - a value that cannot be built is a difference
        res["differ"].append({"offset": r.offset, "byte": 0, "type": r.type_name,
                              "path": f"body.rows (build: {e})"})
        return
    if again == bytes(raw):
        res["rows_identical"] += len(decoded)
    else:
        at = next((i for i, (a, b) in enumerate(zip(raw, again)) if a != b),
                  min(len(raw), len(again)))
        res["differ"].append({"offset": r.offset, "byte": at, "type": r.type_name,
                              "path": "body.rows (typed values)"})


def roundtrip_file(path, rows: bool = True) -> dict:
    """Parse every event of a file and rebuild it; count identical events, report the first
    differences and failures. With ``rows``, every row image is also decoded through its table
    map and built back from the typed values."""
    from .mysql.codes import ROWS_KINDS
    from .model.row_change import RowDecoder
    res = {"file": path, "events": 0, "identical": 0, "differ": [], "failed": [], "tail": None,
           "rows": 0, "rows_identical": 0, "rows_failed": []}
    reader = BinlogReader(path, skip_errors=True)
    decoder = RowDecoder(path) if rows else None
    try:
        for rec in reader:
            for r in _records(rec):
                res["events"] += 1
                if r.error is not None:
                    res["failed"].append({"offset": r.offset, "error": str(r.error)})
                    continue
                if r.ctx.encrypted:  # MariaDB ciphertext after START_ENCRYPTION: kept as is
                    res["encrypted"] = res.get("encrypted", 0) + 1
                    res["identical"] += 1
                    continue
                if decoder is not None:
                    _roundtrip_rows(decoder, r, res, ROWS_KINDS)
                try:
                    built = build_event(r.value, r.ctx.replace(offset=r.offset))
                except BinlogError as e:
                    res["failed"].append({"offset": r.offset, "error": f"build: {e}"})
                    continue
                if built == r.raw:
                    res["identical"] += 1
                else:
                    res["differ"].append(_difference(r, built))
    except BinlogError as e:
        res["failed"].append({"offset": e.offset, "error": str(e)})
    if reader.tail is not None:
        res["tail"] = reader.tail.to_dict()
    return res


def _difference(rec, built) -> dict:
    at = next((i for i, (a, b) in enumerate(zip(rec.raw, built)) if a != b),
              min(len(rec.raw), len(built)))
    try:
        from .envelope import parse_event
        path = first_difference(to_plain(rec.value), to_plain(parse_event(built, rec.ctx)))
    except BinlogError as e:
        path = f"(rebuilt bytes do not parse: {e})"
    return {"offset": rec.offset, "byte": at, "path": path, "type": rec.type_name}


def cmd_roundtrip(args) -> int:
    totals = {"files": 0, "events": 0, "identical": 0, "differ": 0, "failed": 0, "tails": 0}
    for path in args.files:
        r = roundtrip_file(path, rows=not args.no_rows)
        totals["files"] += 1
        totals["events"] += r["events"]
        totals["identical"] += r["identical"]
        totals["differ"] += len(r["differ"])
        totals["failed"] += len(r["failed"])
        line = f"{path}: events {r['events']}, identical {r['identical']}"
        if r.get("encrypted"):
            line += f" ({r['encrypted']} encrypted, kept as bytes)"
        if r["rows"] or r["rows_failed"]:
            line += f", rows {r['rows']}, rows identical {r['rows_identical']}"
            totals["rows"] = totals.get("rows", 0) + r["rows"]
            totals["rows_identical"] = totals.get("rows_identical", 0) + r["rows_identical"]
        if r["rows_failed"]:
            f = r["rows_failed"][0]
            totals["rows_failed"] = totals.get("rows_failed", 0) + len(r["rows_failed"])
            line += (f", rows not decodable in {len(r['rows_failed'])} events (first: at "
                     f"{f['offset']}: {f['error']})")
        if r["differ"]:
            d = r["differ"][0]
            line += (f", DIFFER {len(r['differ'])} (first: event at {d['offset']} {d['type']}, "
                     f"byte {d['byte']}, field {d['path']})")
        if r["failed"]:
            f = r["failed"][0]
            line += f", FAILED {len(r['failed'])} (first: at {f['offset']}: {f['error']})"
        if r["tail"]:
            totals["tails"] += 1
            t = r["tail"]
            line += (f", truncated tail at {t['offset']} ({t['have']} bytes"
                     + (f" of {t['need']}" if t["need"] is not None else "") + ")")
        print(line, flush=True)
    print(f"total: {totals['files']} files, events {totals['events']}, identical "
          f"{totals['identical']}, differ {totals['differ']}, failed {totals['failed']}, "
          f"truncated tails {totals['tails']}, rows {totals.get('rows', 0)}, rows identical "
          f"{totals.get('rows_identical', 0)}, rows not decodable in "
          f"{totals.get('rows_failed', 0)} events")
    return 1 if totals["differ"] or totals["failed"] else 0


# ------------------------------------------------------------------------------ table maps


def cmd_table_maps(args) -> int:
    from .model.table_map import table_map_from_event
    status = 0
    for path in args.files:
        reader = BinlogReader(path, types=[19, 40], skip_errors=True)
        try:
            for rec in reader:
                for r in _records(rec):
                    if r.kind != 19:
                        continue
                    if r.error is not None:
                        print(f"{path}@{r.offset}: {r.error}", file=sys.stderr)
                        status = 1
                        continue
                    d = {"file": path, "offset": r.offset}
                    if r.parent_offset is not None:
                        d["in_payload_at"] = r.parent_offset
                    d.update(table_map_from_event(r.value, r.ctx).to_dict())
                    _out(d)
        except BinlogError as e:
            print(f"{path}: {e}", file=sys.stderr)
            status = 1
    return status


def cmd_build_table_map(args) -> int:
    from .model.table_map import TableMap
    status = 0
    for n, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            print(TableMap.from_dict(json.loads(line)).to_bytes().hex())
        except (BinlogError, KeyError, TypeError, ValueError) as e:
            print(f"line {n}: cannot build: {type(e).__name__}: {e}", file=sys.stderr)
            print("")
            status = 1
    return status


# ------------------------------------------------------------------------------ validate


def cmd_validate(args) -> int:
    from .vectors import validate
    results = validate(args.dir)
    failed = [r for r in results if not r.ok]
    for r in failed:
        print(f"FAIL {r.file} [{r.name}]")
        for p in r.problems:
            print(f"    {p}")
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not results else 0


# ------------------------------------------------------------------------------ main


def _types(text):
    return [int(t) if t.isdigit() else t for t in text.split(",") if t]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="binlog-schema",
                                description="MySQL/MariaDB binary logs, declared once.")
    sub = p.add_subparsers(dest="command", required=True)

    d = sub.add_parser("decode", help="one JSON object (or text line) per event")
    d.add_argument("files", nargs="+")
    d.add_argument("--format", choices=("jsonl", "text"), default="jsonl")
    d.add_argument("--start-position", type=int)
    d.add_argument("--stop-position", type=int)
    d.add_argument("--types", type=_types, help="comma-separated type names or codes")
    d.add_argument("--skip-errors", action="store_true",
                   help="report a bad event and go on instead of stopping")
    d.add_argument("--rows", action="store_true",
                   help="add the typed row values to each rows event")
    d.add_argument("--binary", choices=("hex", "base64"), default="hex",
                   help="how binary values are written (with --rows)")
    d.set_defaults(func=cmd_decode)

    r = sub.add_parser("roundtrip", help="parse and rebuild every event, compare bytes")
    r.add_argument("files", nargs="+")
    r.add_argument("--no-rows", action="store_true",
                   help="do not decode and rebuild row images (events only)")
    r.set_defaults(func=cmd_roundtrip)

    t = sub.add_parser("table-maps", help="one typed JSON object per TABLE_MAP")
    t.add_argument("files", nargs="+")
    t.set_defaults(func=cmd_table_maps)

    b = sub.add_parser("build-table-map", help="table-maps JSON Lines on stdin -> event hex")
    b.set_defaults(func=cmd_build_table_map)

    v = sub.add_parser("validate", help="check the golden vectors both ways")
    v.add_argument("dir", nargs="?", default="specs")
    v.set_defaults(func=cmd_validate)

    from .fixtures import cli as fixtures_cli
    from .pipeline import cli as pipeline_cli
    fixtures_cli.register(sub)
    pipeline_cli.register(sub)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

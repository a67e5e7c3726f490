"""The text format: per event, mysqlbinlog-style comment and statement lines (``# at N``, the
header line, the statement or a summary of the body), and the decoded rows."""

from __future__ import annotations

import time

from ..format.facts.codes import (ANNOTATE_ROWS_EVENT, ANONYMOUS_GTID_LOG_EVENT, DELETE_KINDS,
                           FORMAT_DESCRIPTION_EVENT, GTID_LOG_EVENT, INTVAR_EVENT,
                           MARIA_GTID_EVENT, PARTIAL_UPDATE_ROWS_EVENT, QUERY_COMPRESSED_EVENT,
                           QUERY_EVENT, ROTATE_EVENT, ROWS_KINDS, TABLE_MAP_EVENT, UPDATE_KINDS,
                           XID_EVENT)



class TextWriter:
    """``--format text``: the lines of one file's event records (and, with ``decoder``, a
    RowDecoder, their rows and schema errors) to ``out`` (see :mod:`.formats`)."""

    def __init__(self, path, out, decoder=None, binary: str = "hex"):
        self.path, self.out, self.decoder, self.binary = path, out, decoder, binary

    def write(self, records, on_error=None) -> None:
        out, decoder, binary = self.out, self.decoder, self.binary
        for rec in records:
            for r in (rec,) if rec.inner is None else (rec, *rec.inner):
                kind = r.kind
                if r.error is not None and on_error is None:
                    raise r.error
                problem = None
                if decoder is not None and kind in decoder.state_kinds and r.value is not None:
                    decoder.feed_one(r)
                    problem, decoder.last_problem = decoder.last_problem, None
                out.add(event_lines(r))
                if problem is not None:
                    out.add(f"# schema error: {problem}")
                if decoder is not None and kind in ROWS_KINDS:
                    for line in rows_lines(r, decoder, binary):
                        out.add(line)
                if r.error is not None:
                    on_error(r)

def event_lines(rec) -> str:
    """The comment (and statement) lines of one event."""
    v = rec.value
    lines = [f"# at {rec.offset}" if rec.parent_offset is None
             else f"#   in payload at {rec.parent_offset}, +{rec.offset}"]
    if rec.gap is not None:
        lines.append(f"# SKIPPED {rec.gap[1] - rec.gap[0]} bytes: {rec.error}")
        return "\n".join(lines)
    if rec.error is not None:
        lines.append(f"# ERROR {rec.error}")
        return "\n".join(lines)
    h = v["header"]
    stamp = time.strftime("%y%m%d %H:%M:%S", time.gmtime(h["timestamp"]))
    crc = f" CRC32 0x{v['checksum']:08x}" if "checksum" in v else ""
    lines.append(f"#{stamp} server id {h['server_id']}  end_log_pos {h['log_pos']}{crc} \t"
                 f"{_summary(rec)}")
    return "\n".join(lines)


def rows_lines(rec, rows, binary: str):
    """The lines of a rows event's decoded rows (``rows``: the file's RowDecoder), each image
    as JSON (the JSON-safe values, spaced)."""
    from ..format.errors import BinlogError
    from .row_images import images_json
    if rec.error is not None or rec.value is None:
        return
    try:
        decoded, _ = rows.rows_of(rec)
    except BinlogError as e:
        yield f"### rows not decoded: {e.message}"
        return
    images = images_json(rows.codecs[rec.value["body"]["table_id"]], binary, ", ", ": ")
    for row in decoded:
        if type(row) is tuple:
            yield "### UPDATE"
            yield "###   WHERE " + images(row[0])
            yield "###   SET   " + images(row[1])
        else:
            yield "###   " + images(row)


_ROWS_NAMES = {"WRITE": "Write_rows", "UPDATE": "Update_rows", "DELETE": "Delete_rows",
               "PARTIAL": "Update_rows_partial"}


def _summary(rec) -> str:
    """The event as mysqlbinlog's comment line (and the statement lines after it) say it."""
    body = rec.value["body"]
    kind = rec.kind
    if isinstance(body, (bytes, bytearray)):
        return f"{rec.type_name} ({len(body)} bytes, not declared: kept raw)"
    if kind == QUERY_EVENT or kind == QUERY_COMPRESSED_EVENT:
        text = body.get("query")
        q = text if isinstance(text, str) else _name(text or b"")
        db = body.get("database")
        lines = [f"Query\tthread_id={body.get('thread_id')}\texec_time="
                 f"{body.get('exec_time')}\terror_code={body.get('error_code')}"]
        if db:
            lines.append(f"use `{_name(db)}`/*!*/;")
        lines.append(f"{q}\n/*!*/;")
        return "\n".join(lines)
    if kind == XID_EVENT:
        return f"Xid = {body['xid']}\nCOMMIT/*!*/;"
    if kind == ROTATE_EVENT:
        return f"Rotate to {_name(body['next_file'])}  pos: {body.get('position')}"
    if kind == TABLE_MAP_EVENT:
        return (f"Table_map: `{_name(body['database'])}`.`{_name(body['table'])}` mapped to "
                f"number {body['table_id']} ({len(body['column_types'])} columns)")
    if kind == FORMAT_DESCRIPTION_EVENT:
        return (f"Start: binlog v {body['binlog_version']}, server v {body['server_version']} "
                "created "
                f"{time.strftime('%y%m%d %H:%M:%S', time.gmtime(body['create_timestamp']))}")
    if kind in (GTID_LOG_EVENT, ANONYMOUS_GTID_LOG_EVENT):
        gtid = f"{body.get('sid')}:{body.get('gno')}" if kind == GTID_LOG_EVENT else "ANONYMOUS"
        return (f"GTID\tlast_committed={body.get('last_committed')}\tsequence_number="
                f"{body.get('sequence_number')}\nSET @@SESSION.GTID_NEXT= '{gtid}'/*!*/;")
    if kind == MARIA_GTID_EVENT:
        return (f"GTID {body['domain_id']}-{rec.value['header']['server_id']}-{body['seq_no']}"
                f" {' '.join(str(f).lower() for f in body.get('flags2') or [])}")
    if kind == INTVAR_EVENT:
        return f"Intvar\nSET {body['type']}={body['value']}/*!*/;"
    if kind == ANNOTATE_ROWS_EVENT:
        q = body["query"]
        return "Annotate_rows:\n#Q> " + (q if isinstance(q, str) else _name(q))
    if kind in ROWS_KINDS:
        op = "DELETE" if kind in DELETE_KINDS else "PARTIAL" if kind == PARTIAL_UPDATE_ROWS_EVENT \
            else "UPDATE" if kind in UPDATE_KINDS else "WRITE"
        flags = " ".join(f"{f}_F" for f in body.get("flags") or [])
        return f"{_ROWS_NAMES[op]}: table id {body['table_id']} flags: {flags}"
    keys = [k for k in body if not str(k).startswith("_")][:4]
    return rec.type_name + " " + " ".join(f"{k}: {_short(body[k])}" for k in keys)


def _name(v):
    return v if isinstance(v, str) else bytes(v).hex()


def _short(v):
    import json
    from ..format.event_forms import to_plain
    text = json.dumps(to_plain(v), ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."

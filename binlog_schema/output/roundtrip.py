"""Parse and rebuild every event of a file (and every row image through its table map) and
compare the bytes: the check behind ``binlog-schema roundtrip``."""

from __future__ import annotations

from ..format.event_codec import build_event, parse_event
from ..format.errors import BinlogError
from ..format.facts.codes import ROWS_KINDS
from ..format.event_forms import first_difference, to_plain
from ..format.stream import BinlogReader


def _records(rec):
    yield rec
    yield from rec.inner or ()


def _roundtrip_rows(decoder, r, res, rows_kinds):
    """Decode a rows event's row images through the table map and build them back."""
    if r.kind not in rows_kinds:
        decoder.feed_one(r)
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


def roundtrip_file(path, rows: bool = True, skip_errors: bool = False, watch=None) -> dict:
    """Parse every event of a file and rebuild it; count identical events, report the first
    differences and failures. With ``rows``, every row image is also decoded through its table
    map and built back from the typed values. Without ``skip_errors`` an event that does not
    parse is a failure and reading goes on while the framing holds; with it the file is read
    with recovery, and the byte ranges that are no event's are listed (``skipped``; a last
    event cut short is the ``tail``). An event kept raw because its body is corrupt (flagged
    by its error) is rebuilt like any other, and counted in ``flagged``. A file that is not a
    binlog (its magic number: :class:`~.stream.BinlogReader`) raises, as one that cannot be
    opened does."""
    from ..changes.row_change import RowDecoder
    res = {"file": path, "events": 0, "identical": 0, "differ": [], "failed": [], "tail": None,
           "rows": 0, "rows_identical": 0, "rows_failed": [], "skipped": [], "flagged": 0}
    reader = BinlogReader(path, skip_errors=True, recover=skip_errors)
    decoder = RowDecoder(path) if rows else None
    try:
        for rec in reader if watch is None else watch(reader):  # (watch: a progress line)
            if rec.gap is not None:
                tail = reader.tail
                if tail is None or rec.gap[0] != tail.offset:
                    res["skipped"].append({"offset": rec.gap[0], "size": rec.gap[1] - rec.gap[0],
                                           "error": str(rec.error)})
                continue
            for r in _records(rec):
                res["events"] += 1
                if r.error is not None and r.value is not None:
                    res["flagged"] += 1  # (a corrupt body kept raw: it rebuilds all the same)
                elif r.error is not None:
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
        if e.path == "magic":  # not a binlog at all (empty, compressed...): the caller says so
            raise
        res["failed"].append({"offset": e.offset, "error": str(e)})
    if reader.tail is not None:
        res["tail"] = reader.tail.to_dict()
    return res


def _difference(rec, built) -> dict:
    at = next((i for i, (a, b) in enumerate(zip(rec.raw, built)) if a != b),
              min(len(rec.raw), len(built)))
    try:
        path = first_difference(to_plain(rec.value), to_plain(parse_event(built, rec.ctx)))
    except BinlogError as e:
        path = f"(rebuilt bytes do not parse: {e})"
    return {"offset": rec.offset, "byte": at, "path": path, "type": rec.type_name}

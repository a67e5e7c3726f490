"""``--where`` (a row's history) finds exactly the row changes a full decode, filtered by the
test, finds: for every corpus file that decodes cleanly with column names, a condition on
each column of the first row of each table (named, or @N as decode names them without
FULL metadata; every type the corpus has: integers, decimals,
floats, strings in their charsets, binary, ENUM, SET, dates, times, NULL), in decode (JSON
Lines with rows) and stats; and the usage errors of columns no table has."""

import io
import json
import sys

import pytest

from binlog_schema.changes.selection import Selection
from binlog_schema.output.write import Output, write_events
from binlog_schema.output.statuses import CLEAN

from tests.conftest import corpus_file
from tests.stats_count import decoded_lines


def _text(v):
    """A decoded row value (decode's JSON form) as --where writes it; None: not comparable."""
    if v is None:
        return "NULL"
    if isinstance(v, bool) or isinstance(v, (dict, list)) and not (
            isinstance(v, dict) and set(v) == {"hex"}) and not (
            isinstance(v, list) and all(isinstance(x, str) for x in v)):
        return None
    if isinstance(v, dict):
        return "0x" + v["hex"]
    if isinstance(v, list):
        return "'" + ",".join(v) + "'"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, int):
        return str(v)
    return "'" + v.replace("'", "''") + "'"


def _rows_of(lines):
    """(offset, row JSON) of every row change of decode --rows's lines."""
    out = []
    for d in lines:
        for row in d.get("rows") or ():
            out.append((d.get("in_payload_at", d["offset"]), json.dumps(row, sort_keys=True)))
    return out


def _images(row):
    return [row] if "before" not in row and "after" not in row else \
        [x for x in (row.get("before"), row.get("after")) if x is not None]


def _where_decode(path, where, table):
    out, err = io.StringIO(), io.StringIO()
    o = Output(out)
    sel = Selection.from_options(where=[where], table=[table])
    status = write_events(str(path), o, rows=True, selection=sel, err=err)
    o.flush()
    return [json.loads(x) for x in out.getvalue().splitlines()], status


def test_where_finds_exactly_what_a_filtered_full_decode_finds(corpus):
    checked = set()
    types = set()
    for path in corpus:
        lines, status = decoded_lines(path)
        if status != CLEAN:
            continue
        maps, firsts = {}, {}
        for d in lines:
            if d["type"] == "TABLE_MAP_EVENT":
                body = d["body"]
                maps[body["table_id"]] = (f"{body['database']}.{body['table']}", body)
            elif d.get("rows"):
                name, tm = maps[d["body"]["table_id"]]
                firsts.setdefault(name, (d["rows"][0], tm))
        for table, (row, _tm) in firsts.items():
            image = _images(row)[0]   # (columns named @N without FULL metadata: as decode)
            for column, value in image.items():
                text = _text(value)
                if text is None:
                    continue
                where = f"`{column}`={text}"
                got, st = _where_decode(path, where, table)
                assert st == CLEAN, (path, where)
                # the full decode, filtered here: rows of that table whose before or after
                # image has that value
                want = []
                for d in lines:
                    if d.get("rows") and maps[d["body"]["table_id"]][0] == table:
                        for r in d["rows"]:
                            if any(im.get(column) == value for im in _images(r)):
                                want.append((d.get("in_payload_at", d["offset"]),
                                             json.dumps(r, sort_keys=True)))
                assert _rows_of(got) == want, (path, where)
                assert want
                checked.add((str(path), table, column))
                types.add(type(value).__name__ if value is not None else "null")
    assert len(checked) > 300
    assert {"int", "str", "float", "dict", "null"} <= types, types


def test_where_counts_in_stats_and_says_unknown_columns(corpus):
    from binlog_schema.changes.row_match import RowMatcher, WhereError, parse_where
    from binlog_schema.output.stats_read import read_stats
    path = max((p for p in corpus if decoded_lines(p)[1] == CLEAN and any(
        d.get("rows") and not any(k.startswith("@") for k in _images(d["rows"][0])[0])
        for d in decoded_lines(p)[0])), key=lambda p: p.stat().st_size)
    lines, _ = decoded_lines(path)
    first = next(d for d in lines if d.get("rows") and not any(
        k.startswith("@") for k in _images(d["rows"][0])[0]))
    column, value = next((k, v) for k, v in _images(first["rows"][0])[0].items()
                         if isinstance(v, int) and not isinstance(v, bool))
    matcher = RowMatcher(parse_where(f"`{column}`={value}"))
    stats, status = read_stats([str(path)], top=3, max_event_size=1 << 24, matcher=matcher,
                               err=sys.stderr)
    want = sum(1 for d in lines for r in d.get("rows") or ()
               if any(im.get(column) == value for im in _images(r)))
    assert status == CLEAN and stats.to_dict()["changes"]["total"] == want > 0
    with pytest.raises(WhereError, match="no table of the input has the column nosuch"):
        read_stats([str(path)], top=3, max_event_size=1 << 24,
                   matcher=RowMatcher(parse_where("nosuch=1")), err=sys.stderr)


def test_a_compressed_transaction_without_a_match_is_left_out():
    """A TRANSACTION_PAYLOAD (MySQL 8's compressed transaction) whose row does not match: its
    inner events are filtered (the payload record made anew without the rows event) and,
    nothing in it matching, the whole transaction is left out; with a match it is written."""
    path = corpus_file("rust_mysql_common/transaction_compression.000001")

    def where(cond):
        out, err = io.StringIO(), io.StringIO()
        o = Output(out)
        status = write_events(str(path), o, rows=True,
                              selection=Selection.from_options(where=[cond]), err=err)
        o.flush()
        return [json.loads(x) for x in out.getvalue().splitlines()], status, err.getvalue()

    lines, status, err = where("@1=2")
    assert status == CLEAN and err == "", err
    assert [d["type"] for d in lines] == ["FORMAT_DESCRIPTION_EVENT", "PREVIOUS_GTIDS_LOG_EVENT",
                                          "ROTATE_EVENT"]
    lines, status, err = where("@1=1")
    assert status == CLEAN and err == "", err
    assert [r for d in lines if d.get("in_payload_at") == 274 for r in d.get("rows") or ()] == [
        {"@1": 1}]

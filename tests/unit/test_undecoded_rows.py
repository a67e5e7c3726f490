"""Issue 26: a row change that cannot be decoded is never a quiet loss, and a script is whole or
absent. Inputs from ``tests/undecodable.py`` (a TABLE_MAP patched through the declarations:
its rows event's image does not fit it)."""

from __future__ import annotations

import io
import os

import pytest

from binlog_schema import change_records
from binlog_schema.format.errors import BinlogError, FormatError, RowsError, TruncatedError
from binlog_schema.changes.selection import Selection
from binlog_schema.output.roundtrip import roundtrip_file
from binlog_schema.output import parallel
from binlog_schema.output.sql_script import write_sql
from binlog_schema.output.write import Output
from binlog_schema.output.statuses import DAMAGED, STOPPED

from .. import undecodable
from ..decode_both import sequential, shared


# ------------------------------------------------------------------ the error's own text


def test_an_error_says_the_path_a_caller_set_after_it_was_made():
    e = TruncatedError("LONGLONG needs 8 bytes, 4 left", offset=670)
    assert str(e) == "truncated at offset 670: LONGLONG needs 8 bytes, 4 left"
    e.path = "body.rows"
    assert str(e) == "truncated at offset 670 in body.rows: LONGLONG needs 8 bytes, 4 left"
    e = FormatError("bad")
    e.offset = 12
    assert str(e) == "format at offset 12: bad"


def test_the_rows_error_names_table_column_and_reason(tmp_path):
    bad = undecodable.write(tmp_path / "bad.000001")
    with pytest.raises(RowsError) as got:
        list(change_records(bad.path))
    e = got.value
    assert (e.file, e.offset, e.table, e.column) == (bad.path, bad.offset, bad.table,
                                                     bad.column)
    assert e.kind == "truncated" and isinstance(e, BinlogError)
    assert bad.said(f"{e.file}: {e}")
    assert e.to_dict()["table"] == bad.table and e.to_dict()["column"] == bad.column
    import pickle   # (as a worker process hands it over)
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is RowsError and str(again) == str(e) and again.table == bad.table


# ------------------------------------------------------------------ the Python API


def test_change_records_raise_by_default_and_go_on_when_asked(tmp_path):
    bad = undecodable.write(tmp_path / "bad.000001", bad="first")
    with pytest.raises(RowsError):
        list(change_records(bad.path))
    said = []
    records = list(change_records(bad.path, note=said.append))
    assert [r.after for r in records] == [{"id": 1, "note": "row 1"}, {"id": 2, "note": "row 2"}]
    assert len(said) == 1 and bad.said(said[0])


def test_change_records_of_a_cut_file_raise_after_the_changes_before_it(tmp_path):
    from binlog_schema import BinlogReader
    from binlog_schema.synthetic import generate
    data = generate(undecodable.spec(transactions=3))
    last = list(BinlogReader(data))[-1]
    path = tmp_path / "cut.000001"
    path.write_bytes(data[:last.offset + 10])
    got = []
    with pytest.raises(TruncatedError) as e:
        for c in change_records(str(path)):
            got.append(c)
    assert len(got) == 4 and e.value.offset == last.offset and e.value.file == str(path)
    skipped = []   # (with skip_errors, the cut is a SKIPPED range handed to on_error)
    reader = BinlogReader(str(path), skip_errors=True)
    assert len(list(change_records(reader, on_error=skipped.append))) == 4
    assert [r.gap for r in skipped] == [(last.offset, last.offset + 10)]


# ------------------------------------------------------------------ decode, one process or many




@pytest.mark.skipif(not hasattr(os, "fork"), reason="the parallel decode forks")
@pytest.mark.parametrize("fmt", ["jsonl", "text"])
def test_several_processes_report_what_one_process_reports(tmp_path, fmt):
    """A file cut into segments (its bad rows event in the middle of them) is decoded by
    three workers: the same lines, the same stderr line for the rows not decoded, and the
    same status 3 as one process; the segments after the bad one are still written."""
    path = tmp_path / "bad.000001"
    bad = undecodable.write(path, bad="middle", transactions=40)
    starts = [start or 0 for start, _, _ in parallel.plan(str(path), 2_000)]
    assert len([s for s in starts if s < bad.offset]) > 1
    assert len([s for s in starts if s > bad.offset]) > 1
    want = sequential(path, fmt=fmt, rows=True)
    got = shared(path, tmp_path, segment=2_000, fmt=fmt, rows=True)
    assert want[0] == DAMAGED and bad.said(want[2].decode())
    assert got == want


def _rows_line(out: bytes, offset: int) -> dict:
    import json
    lines = [json.loads(x) for x in out.decode().splitlines()]
    return next(d for d in lines if d["offset"] == offset)


def test_jsonl_says_the_precise_rows_error_after_the_compiled_writer_fails(tmp_path):
    """The rows written straight from the bytes fail on the bad rows event; the codecs then
    say why, as the line's ``rows_error`` (counted as a fallback); the others' rows are
    written straight (no fallback)."""
    from binlog_schema.output import jsonl
    bad = undecodable.write(tmp_path / "bad.000001", bad="middle", transactions=3)
    before = jsonl.FALLBACKS["rows"]
    status, out, err = sequential(bad.path, fmt="jsonl", rows=True)
    assert status == DAMAGED and bad.said(err.decode())
    assert jsonl.FALLBACKS["rows"] == before + 1
    line = _rows_line(out, bad.offset)
    assert "rows" not in line and line["rows_error"] == {
        "kind": "truncated", "offset": bad.offset, "path": "body.rows",
        "message": "LONGLONG needs 8 bytes, 4 left", "expected": None, "table": "shop.bad",
        "column": "n"}
    assert b',"rows_error":{"kind":"truncated","offset":%d,"path":"body.rows","message":' \
        b'"LONGLONG needs 8 bytes, 4 left","expected":null,"table":"shop.bad","column":' \
        b'"n"}}\n' % bad.offset in out


def test_jsonl_does_not_hide_a_bug_of_the_compiled_writer(tmp_path, monkeypatch):
    """Only what bytes short or odd raise sends the rows to the codecs: another exception
    from the rows written straight from the bytes (a bug) is not swallowed."""
    from binlog_schema.output import row_images

    def broken(codec, body, kind):
        raise RuntimeError("a bug in the compiled writer")
    monkeypatch.setattr(row_images, "rows_json_direct", broken)
    bad = undecodable.write(tmp_path / "bad.000001", bad="middle", transactions=3)
    with pytest.raises(RuntimeError, match="a bug in the compiled writer"):
        sequential(bad.path, fmt="jsonl", rows=True)


def test_jsonl_rows_the_compiled_writer_declines_are_the_typed_rows(tmp_path, monkeypatch):
    """What the compiled writer leaves to the typed rows (a ValueError, as for a NaN) gives
    the same line as the compiled writer's."""
    from binlog_schema.output import row_images
    path = tmp_path / "ok.000001"
    undecodable.write(path, bad="middle", transactions=3)
    want = sequential(path, fmt="jsonl", rows=True)

    def declines(codec, body, kind):
        raise ValueError("decoded through the codecs")
    monkeypatch.setattr(row_images, "rows_json_direct", declines)
    assert sequential(path, fmt="jsonl", rows=True) == want


# ------------------------------------------------------------------ roundtrip


def test_rows_not_decodable_are_not_identical(tmp_path):
    bad = undecodable.write(tmp_path / "bad.000001")
    r = roundtrip_file(bad.path)
    assert r["rows"] == 2 and r["rows_identical"] == 2   # (the two rows that decode)
    assert [f["offset"] for f in r["rows_failed"]] == [bad.offset]
    assert bad.said(f"{bad.path}: {r['rows_failed'][0]['error']}")


# ------------------------------------------------------------------ sql: whole or nothing


@pytest.mark.parametrize("flashback,where", [(False, "last"), (True, "first")])
def test_a_late_refusal_writes_no_script(tmp_path, flashback, where):
    """The change that cannot be written comes last in the script (the file's last
    transaction; a flashback's first): nothing is written, status 1, the line on stderr."""
    bad = undecodable.write(tmp_path / "bad.000001", bad=where, transactions=3)
    buf, err = io.StringIO(), io.StringIO()
    out = Output(buf)
    status = write_sql([bad.path], out, Selection(), flashback=flashback, err=err)
    assert status == STOPPED and buf.getvalue() == ""
    assert bad.said(err.getvalue())
    # the same files without the bad transaction: the whole script
    good = tmp_path / "good.000001"
    from binlog_schema.synthetic import generate
    generate(undecodable.spec(where, 3), good)
    buf = io.StringIO()
    assert write_sql([str(good)], Output(buf), Selection(), flashback=flashback) == 0
    assert buf.getvalue().count("COMMIT;") == 4


"""``sql`` and ``sql --flashback`` written by worker processes: the script is one process's,
byte for byte, and a refusal in any segment leaves it out, with the stderr line one process
says: the FIRST refusal in the order one process writes (file order forward, last first for
a flashback), whichever worker meets one first. Inputs from the synthetic generator:
good transactions around a table whose map names no columns (a change ``sql`` refuses to
write) and one whose rows cannot be decoded (tests/undecodable.py's patch)."""

from __future__ import annotations

import copy
import io
import os

import pytest

from binlog_schema.changes.selection import Selection
from binlog_schema.output import parallel
from binlog_schema.output.sql_script import write_sql
from binlog_schema.output.statuses import CLEAN, STOPPED
from binlog_schema.output.write import Output
from binlog_schema.synthetic.spec import load_spec
from binlog_schema.synthetic.writer import Generator

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the workers fork")


class _Patched(Generator):
    """The generator, with ``shop.nameless``'s TABLE_MAP without column names (the change
    is refused: no names to write) and ``shop.bad``'s and ``shop.bad2``'s INT declared BIGINT
    (their rows cannot be decoded)."""

    def map_event(self, tm):
        event = super().map_event(tm)
        if tm.table not in ("nameless", "bad", "bad2"):
            return event
        event = copy.deepcopy(event)
        body = event["body"]
        if tm.table == "nameless":
            body["optional_metadata"] = [m for m in body["optional_metadata"]
                                         if m["type"] != "COLUMN_NAME"]
        else:
            body["column_types"] = ["LONGLONG" if t == "LONG" else t
                                    for t in body["column_types"]]
        return event


def _write(path, order, good=60):
    """A file of ``good`` transactions on ``shop.orders``, with one on each table of
    ``order`` (``"nameless"``, ``"bad"``) at 2/5 and 4/5 of them."""
    txs = [{"changes": [{"insert": "orders", "rows": [{"id": i, "note": f"row {i}"}]},
                        {"update": "orders", "rows": [{"before": {"id": i, "note": f"row {i}"},
                                                       "after": {"id": i, "note": "paid"}}]}]}
           for i in range(1, good + 1)]
    for k, table in reversed(list(enumerate(order))):
        txs.insert(good * (2 + 2 * k) // 5, {"changes": [{"insert": table,
                                                          "rows": [{"n": 7}]}]})
    columns = [{"name": "n", "type": "INT", "nullable": False}]
    spec = {
        "server": "mysql-8.0", "settings": {"binlog_row_metadata": "FULL"}, "database": "shop",
        "tables": [
            {"name": "orders", "columns": [{"name": "id", "type": "INT", "nullable": False},
                                           {"name": "note", "type": "VARCHAR(20)"}],
             "primary_key": ["id"]},
            {"name": "nameless", "columns": columns, "primary_key": ["n"]},
            {"name": "bad", "columns": columns, "primary_key": ["n"]},
            {"name": "bad2", "columns": columns, "primary_key": ["n"]}],
        "transactions": txs}
    buf = io.BytesIO()
    _Patched(load_spec(spec)).write(buf)
    path.write_bytes(buf.getvalue())
    return str(path)


def _sql(path, tmp_path, **options):
    outp, errp = tmp_path / "out.sql", tmp_path / "err"
    with open(outp, "wb") as fo, open(errp, "w") as fe:
        status = write_sql([path], Output(fo), Selection(), err=fe, **options)
    return status, outp.read_bytes(), errp.read_bytes()


def _both(path, tmp_path, flashback=False):
    return (_sql(path, tmp_path, workers=1, flashback=flashback),
            _sql(path, tmp_path, workers=3, min_size=0, segment=1_500, flashback=flashback))


@pytest.mark.parametrize("flashback", [False, True])
def test_a_clean_file_is_one_process_s_script(tmp_path, flashback):
    path = _write(tmp_path / "good.000001", ())
    assert len(list(parallel.plan(path, 1_500, transactions=True))) > 10
    want, got = _both(path, tmp_path, flashback)
    assert want[0] == CLEAN and want[1].count(b"COMMIT;") == 60
    assert got == want


@pytest.mark.parametrize("flashback", [False, True])
def test_several_files(tmp_path, flashback):
    """Files in a row, each cut (a flashback: the files last first, parts in each)."""
    paths = [_write(tmp_path / "good.000001", ()), _write(tmp_path / "more.000002", (), 30)]
    runs = []
    for options in (dict(workers=1), dict(workers=3, min_size=0, segment=1_500)):
        outp, errp = tmp_path / "out.sql", tmp_path / "err"
        with open(outp, "wb") as fo, open(errp, "w") as fe:
            status = write_sql(paths, Output(fo), Selection(), err=fe, flashback=flashback,
                               **options)
        runs.append((status, outp.read_bytes(), errp.read_bytes()))
    assert runs[0][0] == CLEAN and runs[0][1].count(b"COMMIT;") == 90
    assert runs[1] == runs[0]


def _parts(path):
    from binlog_schema.changes.backwards import index_files
    from binlog_schema.output.sql_script import flashback_parts
    return flashback_parts(index_files([path], Selection()), 1_500)


@pytest.mark.parametrize("flashback", [False, True])
@pytest.mark.parametrize("order", [("nameless", "bad"), ("bad", "nameless"), ("nameless",),
                                   ("bad",)])
def test_the_first_refusal_is_said_and_nothing_written(tmp_path, order, flashback):
    path = _write(tmp_path / "refused.000001", order)
    want, got = _both(path, tmp_path, flashback)
    assert want[0] == STOPPED and want[1] == b"" and want[2].count(b"\n") == 1
    first = order[-1] if flashback else order[0]   # (a flashback: last first)
    assert {"nameless": b"refused: ", "bad": b"LONGLONG needs 8 bytes"}[first] in want[2]
    # (the rows event refused: "... WRITE_ROWS_EVENT at N (row 1)" or "at offset N ")
    at = int(want[2].replace(b"at offset ", b"at ").split(b" at ")[1].split()[0])
    if flashback:   # (a part after the first: the parts run last first)
        assert len(_parts(path)) > 10
    else:
        starts = [s or 0 for s, _, _ in parallel.plan(path, 1_500, transactions=True)]
        assert len([s for s in starts if s < at]) > 3   # (a later segment's)
    assert got == want


def test_the_check_sees_segments_out_of_order(tmp_path, monkeypatch):
    plain = parallel.plan

    def reversed_plan(path, target, transactions=False):
        segments = list(plain(path, target, transactions))
        return segments[:1] + segments[1:][::-1]

    path = _write(tmp_path / "good.000001", ())
    want = _sql(path, tmp_path, workers=1)
    monkeypatch.setattr(parallel, "plan", reversed_plan)
    got = _sql(path, tmp_path, workers=3, min_size=0, segment=1_500)
    assert got[1] != want[1] and sorted(got[1].split(b"\n")) == sorted(want[1].split(b"\n"))
    # and the last refusal said instead of the first
    path = _write(tmp_path / "refused.000001", ("nameless", "bad"))
    got = _sql(path, tmp_path, workers=3, min_size=0, segment=1_500)
    assert got[0] == STOPPED and b"LONGLONG" in got[2]


def test_the_check_sees_flashback_parts_out_of_order(tmp_path, monkeypatch):
    from binlog_schema.output import sql_script
    path = _write(tmp_path / "good.000001", ())
    want = _sql(path, tmp_path, workers=1, flashback=True)
    plain = sql_script.flashback_parts
    monkeypatch.setattr(sql_script, "flashback_parts",
                        lambda index, target: plain(index, target)[::-1])
    got = _sql(path, tmp_path, workers=3, min_size=0, segment=1_500, flashback=True)
    assert got[1] != want[1] and sorted(got[1].split(b"\n")) == sorted(want[1].split(b"\n"))
    path = _write(tmp_path / "refused.000001", ("nameless", "bad"))
    got = _sql(path, tmp_path, workers=3, min_size=0, segment=1_500, flashback=True)
    assert got[0] == STOPPED and b"refused: " in got[2]   # (the wrong one: the first)


def test_a_stream_in_memory_is_written_by_one_process(tmp_path):
    path = _write(tmp_path / "good.000001", ())
    buf, err = io.StringIO(), io.StringIO()
    assert write_sql([path], Output(buf), Selection(), err=err, workers=3, min_size=0,
                     segment=1_500) == CLEAN
    assert buf.getvalue().encode() == _sql(path, tmp_path, workers=1)[1]


# ------------------------------------------------------------------ flashback (a binlog file)


def _flashback(path, tmp_path, **options):
    from binlog_schema.output.flashback_file import write_flashback
    target, errp = tmp_path / "undo.bin", tmp_path / "err"
    if target.exists():
        target.unlink()
    with open(errp, "w") as fe:
        status = write_flashback(path if isinstance(path, list) else [path], str(target),
                                 Selection(), err=fe, **options)
    return status, target.read_bytes() if target.exists() else None, errp.read_bytes()


def _flashbacks(path, tmp_path):
    return (_flashback(path, tmp_path, workers=1),
            _flashback(path, tmp_path, workers=3, min_size=0, segment=1_500))


def test_a_flashback_file_is_one_process_s(tmp_path):
    """Each part is built as if it started the file and placed at its turn: positions and
    CRC32s as one process writes them; the file reads back, and inverted again gives the
    rows events of the original."""
    path = _write(tmp_path / "good.000001", ())
    assert len(_parts(path)) > 10
    want, got = _flashbacks(path, tmp_path)
    assert want[0] == CLEAN and want[1] and b"60 transactions" in want[2]
    assert got == want
    from binlog_schema.format.stream import BinlogReader
    assert all(r.error is None for r in BinlogReader(str(tmp_path / "undo.bin")))


def test_a_flashback_file_of_several_files(tmp_path):
    paths = [_write(tmp_path / "good.000001", ()), _write(tmp_path / "more.000002", (), 30)]
    want, got = _flashbacks(paths, tmp_path)
    assert want[0] == CLEAN and b"90 transactions" in want[2]
    assert got == want


@pytest.mark.parametrize("order", [("bad",), ("nameless", "bad"), ("bad", "bad2")])
def test_a_flashback_refused_in_a_part_leaves_no_file(tmp_path, order):
    """Refused while inverting (rows that do not decode), in a part after the first: no
    file, the line one process says: the last refusal in file order (undone first)."""
    path = _write(tmp_path / "refused.000001", order)
    want, got = _flashbacks(path, tmp_path)
    assert want[0] == STOPPED and want[1] is None and want[2].count(b"\n") == 1
    assert f"table shop.{order[-1]},".encode() in want[2]
    assert got == want


def test_the_check_sees_flashback_file_parts_misplaced(tmp_path, monkeypatch):
    from binlog_schema.output import flashback_file, sql_script
    path = _write(tmp_path / "good.000001", ())
    want = _flashback(path, tmp_path, workers=1)
    real = flashback_file.placed
    monkeypatch.setattr(flashback_file, "placed", lambda data, events, at, ctx:
                        real(data, events, at + 1, ctx))
    assert _flashbacks(path, tmp_path)[1][1] != want[1]
    monkeypatch.setattr(flashback_file, "placed", real)
    plain = sql_script.flashback_parts
    monkeypatch.setattr(sql_script, "flashback_parts",
                        lambda index, target: plain(index, target)[::-1])
    got = _flashback(path, tmp_path, workers=3, min_size=0, segment=1_500)
    assert got[1] != want[1] and len(got[1]) == len(want[1])

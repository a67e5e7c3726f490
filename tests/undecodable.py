"""A binlog whose rows cannot all be decoded, for the tests of what every command does with
them: made by the synthetic generator from the declarations (every event built by
``build_event``, sizes, positions and CRC32s computed there), but with one table's TABLE_MAP
patched: its INT column is declared BIGINT (LONGLONG), so the 4 bytes of each row's value do
not fill the 8 the map announces and the rows event's rows cannot be decoded through it. The
other tables' rows decode as usual.

``write(path, bad="last")``: the bad table's transaction comes last in the file (a refusal
late for a forward reading); ``bad="first"``: first (late for a reading backwards, a
flashback); ``bad="middle"``: between the others. Returns an :class:`Undecodable` naming
what a report must name.
"""

from __future__ import annotations

import copy
import io
from dataclasses import dataclass

from binlog_schema.synthetic.spec import load_spec
from binlog_schema.synthetic.writer import Generator

TABLE, COLUMN = "shop.bad", "n"


def spec(bad: str = "last", transactions: int = 2, server: str = "mysql-8.0") -> dict:
    good = [{"changes": [{"insert": "orders", "rows": [{"id": i, "note": f"row {i}"}]}]}
            for i in range(1, transactions + 1)]
    broken = {"changes": [{"insert": "bad", "rows": [{"n": 7}]}]}
    return {
        "server": server,
        "settings": {"binlog_row_metadata": "FULL"},
        "database": "shop",
        "tables": [
            {"name": "orders", "columns": [{"name": "id", "type": "INT", "nullable": False},
                                           {"name": "note", "type": "VARCHAR(20)"}],
             "primary_key": ["id"]},
            {"name": "bad", "columns": [{"name": COLUMN, "type": "INT", "nullable": False}],
             "primary_key": [COLUMN]}],
        "transactions": [broken] + good if bad == "first" else good + [broken]
        if bad == "last" else good[:len(good) // 2] + [broken] + good[len(good) // 2:],
    }


class _PatchedMap(Generator):
    """The generator, but the TABLE_MAP of ``shop.bad`` declares its INT column BIGINT."""

    def map_event(self, tm):
        event = super().map_event(tm)
        if f"{tm.database}.{tm.table}" != TABLE:
            return event
        event = copy.deepcopy(event)
        body = event["body"]
        body["column_types"] = ["LONGLONG" if t == "LONG" else t for t in body["column_types"]]
        return event


@dataclass
class Undecodable:
    path: str
    offset: int          # the rows event whose rows cannot be decoded
    table: str = TABLE
    column: str = COLUMN

    def said(self, text: str) -> bool:
        """Whether ``text`` (a command's stderr) has the line that names this rows event:
        its file, offset, table, column and reason."""
        return any(self.path in line and f"at offset {self.offset} " in line
                   and f"table {self.table}" in line and f"column {self.column}" in line
                   and "LONGLONG needs 8 bytes" in line for line in text.splitlines())


def write(path, bad: str = "last", transactions: int = 2, server: str = "mysql-8.0") -> Undecodable:
    buf = io.BytesIO()
    gen = _PatchedMap(load_spec(spec(bad, transactions, server)))
    gen.write(buf)
    data = buf.getvalue()
    with open(path, "wb") as f:
        f.write(data)
    from binlog_schema.format.facts.codes import ROWS_KINDS
    from binlog_schema.format.stream import BinlogReader
    maps = {}
    for rec in BinlogReader(data):   # (the table id of shop.bad: its rows event is the bad one)
        body = rec.value["body"]
        if rec.type_name == "TABLE_MAP_EVENT":
            maps[body["table_id"]] = f"{body['database']}.{body['table']}"
        elif rec.kind in ROWS_KINDS and maps.get(body["table_id"]) == TABLE:
            return Undecodable(str(path), rec.offset)
    raise AssertionError("no rows event of the patched table")

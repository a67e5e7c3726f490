#!/usr/bin/env python3
"""Write specs/rows/mysql-json-zero-dates.yaml: rows vectors whose JSON column holds zero
dates (the zero DATE, DATETIME and TIMESTAMP, and dates with a zero month or day), top level
and inside arrays and objects.

No server of the corpus wrote such a document, so the events are made here: the TABLE_MAP and
the WRITE_ROWS header of MySQL 9.0.1's ``rust_mysql_common/json-opaque.binlog`` (table
``foo.test``, one JSON column ``a``), with row images whose binary JSON is written by hand
below from MySQL's layout, not by the package's encoder:

* ``sql-common/json_binary.cc`` ``serialize_datetime``: an opaque value (type 0x0f), the field
  type (DATE 10, DATETIME 12, TIMESTAMP 7), the length 8, then ``int8store`` of
  ``Json_datetime::to_packed`` (``sql-common/json_dom.cc``), which is
  ``TIME_to_longlong_packed`` (``mysys/my_time.cc``): ``((year * 13 + month) << 5 | day) << 17
  | hour << 12 | minute << 6 | second``, shifted left 24, plus the microseconds. The zero date
  is therefore eight zero bytes.
* the expected rows are MySQL's text of the values inside JSON (``json_dom.cc``
  ``wrapper_to_string``: ``my_TIME_to_str(t, buf, 6)``: ``0000-00-00`` for a DATE,
  ``0000-00-00 00:00:00.000000`` for a DATETIME or TIMESTAMP), in the package's typed tags.

    python scripts/make_json_zero_date_vectors.py
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import yaml  # noqa: E402

from binlog_schema.format.event_codec import build_event, parse_event  # noqa: E402
from binlog_schema.format.stream import EventRecord  # noqa: E402
from binlog_schema.synthetic.vector_checks import context_of, hex_bytes  # noqa: E402
from make_rows_vectors import rows_vector  # noqa: E402
from make_vectors import write  # noqa: E402

TEMPLATE = ROOT / "specs" / "rows" / "corpus" / "rust_mysql_common__json-opaque.binlog.yaml"
OUT = ROOT / "specs" / "rows" / "mysql-json-zero-dates.yaml"

DATE, DATETIME, TIMESTAMP = 10, 12, 7


def packed(y, mo, d, h=0, mi=0, s=0, us=0) -> bytes:
    """MySQL's TIME_to_longlong_datetime_packed, int8store'd."""
    ymd = (y * 13 + mo) << 5 | d
    hms = h << 12 | mi << 6 | s
    return (((ymd << 17 | hms) << 24) + us).to_bytes(8, "little")


def opaque(field_type, *fields) -> bytes:
    """An opaque value without its type byte: field type, length 8, the packed value."""
    return bytes((field_type, 8)) + packed(*fields)


def small_array(values) -> bytes:
    """A small array of opaque values (type 0x02 then count, size, entries, values)."""
    header = 4 + 3 * len(values)
    entries, body, off = b"", b"", header
    for v in values:
        entries += b"\x0f" + off.to_bytes(2, "little")
        body += v
        off += len(v)
    return b"\x02" + len(values).to_bytes(2, "little") + off.to_bytes(2, "little") + entries + body


def small_object(items) -> bytes:
    """A small object of opaque values, ``items`` in the serializer's key order (by length,
    then bytes)."""
    n = len(items)
    header = 4 + 4 * n + 3 * n
    keys = b"".join(k for k, _ in items)
    key_entries, off = b"", header
    for k, _ in items:
        key_entries += off.to_bytes(2, "little") + len(k).to_bytes(2, "little")
        off += len(k)
    value_entries, body = b"", b""
    for _, v in items:
        value_entries += b"\x0f" + off.to_bytes(2, "little")
        body += v
        off += len(v)
    return (b"\x00" + n.to_bytes(2, "little") + off.to_bytes(2, "little") + key_entries
            + value_entries + keys + body)


ZD = {"$date": "0000-00-00"}
ZDT = {"$datetime": "0000-00-00 00:00:00.000000"}
ZTS = {"$timestamp": "0000-00-00 00:00:00.000000"}

CASES = [  # (name, what, SQL, binary JSON, its rows form)
    ("zero-date", "the zero DATE, top level",
     "SET sql_mode = '';\nINSERT INTO foo.test VALUES (CAST(CAST('0000-00-00' AS DATE) AS JSON));",
     b"\x0f" + opaque(DATE, 0, 0, 0), ZD),
    ("zero-datetime", "the zero DATETIME, top level",
     "SET sql_mode = '';\nINSERT INTO foo.test VALUES "
     "(CAST(CAST('0000-00-00 00:00:00' AS DATETIME) AS JSON));",
     b"\x0f" + opaque(DATETIME, 0, 0, 0), ZDT),
    ("zero-timestamp", "the zero TIMESTAMP (a TIMESTAMP column's zero value), top level",
     "SET sql_mode = '';\nCREATE TABLE foo.ts (t TIMESTAMP NULL);\n"
     "INSERT INTO foo.ts VALUES ('0000-00-00 00:00:00');\n"
     "INSERT INTO foo.test SELECT CAST(t AS JSON) FROM foo.ts;",
     b"\x0f" + opaque(TIMESTAMP, 0, 0, 0), ZTS),
    ("zero-in-date-array", "dates with a zero month or day and a zero date with a time, in "
     "an array",
     "SET sql_mode = '';\nINSERT INTO foo.test VALUES (JSON_ARRAY(CAST('2020-00-00' AS DATE), "
     "CAST('2020-01-00' AS DATE), CAST('0000-00-00 10:20:30.123456' AS DATETIME(6))));",
     small_array([opaque(DATE, 2020, 0, 0), opaque(DATE, 2020, 1, 0),
                  opaque(DATETIME, 0, 0, 0, 10, 20, 30, 123456)]),
     [{"$date": "2020-00-00"}, {"$date": "2020-01-00"},
      {"$datetime": "0000-00-00 10:20:30.123456"}]),
    ("zero-dates-object", "the zero DATE, DATETIME and TIMESTAMP as members of an object",
     "SET sql_mode = '';\nINSERT INTO foo.test SELECT JSON_OBJECT('d', CAST('0000-00-00' AS "
     "DATE), 'dt', CAST('0000-00-00' AS DATETIME), 'ts', t) FROM foo.ts;",
     small_object([(b"d", opaque(DATE, 0, 0, 0)), (b"dt", opaque(DATETIME, 0, 0, 0)),
                   (b"ts", opaque(TIMESTAMP, 0, 0, 0))]),
     {"d": ZD, "dt": ZDT, "ts": ZTS}),
]


def _record(raw, ctx):
    return EventRecord(ctx.offset, raw, ctx, parse_event(raw, ctx))


def main():
    template = next(yaml.safe_load_all(TEMPLATE.read_text()))
    ctx = context_of(template)
    tm_raw = hex_bytes(template["table_map_hex"])
    rows_raw = hex_bytes(template["hex"])
    vectors = []
    for name, what, sql, doc, want in CASES:
        image = b"\x00" + len(doc).to_bytes(4, "little") + doc   # null bitmap, length, doc
        event = parse_event(rows_raw, ctx)
        event["body"] = dict(event["body"], rows=image)
        raw = build_event(event, ctx)
        v = rows_vector(
            f"mysql-json-{name}",
            "hand-made: the TABLE_MAP and WRITE_ROWS header of the shared corpus's "
            "rust_mysql_common/json-opaque.binlog (MySQL 9.0.1, at offsets 682 and 736) with "
            f"a row image whose binary JSON holds {what}, written from MySQL's layout by "
            "scripts/make_json_zero_date_vectors.py (json_binary.cc serialize_datetime, "
            "my_time.cc TIME_to_longlong_datetime_packed); the rows as MySQL prints them "
            "inside JSON (json_dom.cc wrapper_to_string, 6 fraction digits)",
            _record(tm_raw, ctx), _record(raw, ctx), server=template.get("server"),
            settings=template.get("settings"), sql=sql)
        got = [{k: x for k, x in r.items() if not str(k).startswith("_")} for r in v["rows"]]
        assert got == [{0: want}], (name, got)
        vectors.append(v)
    write(OUT, vectors)


if __name__ == "__main__":
    main()

"""binlog_schema.output.sql_text: the exact SQL literal of every decoded row value, WHERE terms,
partial JSON, and the synthetic fixtures' use of it. Values and table maps come from the golden
row vectors (specs/rows: real MariaDB and MySQL table maps and rows) where they have them."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import re
import struct

import pytest

from binlog_schema.format.event_codec import parse_event
from binlog_schema.changes.table_map import Column, table_map_from_event
from binlog_schema.format.facts.charsets import (MYSQL_CHARSETS, bin_collation, collation_id,
                                          text_codec)
from binlog_schema.format.facts.collation_data import MARIADB_CHARSETS
from binlog_schema.output import sql_text
from binlog_schema.output.sql_text import (SESSION_SQL, SqlValueError, apply_json_diffs,
                                           condition, literal, qi, qs)
from binlog_schema.format.stream import EventRecord
from binlog_schema.format.values import json_document, temporal
from binlog_schema.format.values.codecs import Compressed, EnumValue, Geometry, NaNFloat, SetValue
from binlog_schema.format.values.image import JsonDiff
from binlog_schema.format.values.json_binary import (JsonDate, JsonDateTime, JsonDecimal,
                                                     JsonDiffOp, JsonDocument, JsonOpaque,
                                                     JsonUInt, JsonZeroTimestamp)
from binlog_schema.format.values.rows import RowsCodec
from binlog_schema.synthetic.vector_checks import context_of, documents, hex_bytes

from ..conftest import ROOT

MARIADB_ROWS = ROOT / "specs" / "rows" / "mariadb.yaml"


def vector(path, name):
    for _, _, doc in documents(path):
        if doc["name"] == name:
            return doc
    raise KeyError(name)


def decoded(name, path=MARIADB_ROWS):
    """(table map, flavor, rows) of a rows vector, decoded as the row decoder does."""
    v = vector(path, name)
    ctx = context_of(v)
    tm = table_map_from_event(parse_event(hex_bytes(v["table_map_hex"]), ctx), ctx)
    data = hex_bytes(v["hex"])
    rec = EventRecord(ctx.offset, data, ctx, parse_event(data, ctx))
    return tm, ctx.flavor or tm.flavor, RowsCodec(tm).decode(rec.value["body"], rec.kind)


def unquote(text):
    """The string a qs() literal holds."""
    assert text[0] == "'" and text[-1] == "'"
    table = {"\\\\": "\\", "\\'": "'", "\\0": "\0", "\\Z": "\x1a", "\\r": "\r", "\\n": "\n"}
    return re.sub(r"\\.", lambda m: table[m.group(0)], text[1:-1])


def double_of(lit):
    """The double a double literal of sql_text means (MySQL reads ``1.5e0`` as 1.5)."""
    assert "e" in lit, lit
    return float(lit)


# ============================================================== session, quoting


def test_session_sql_sets_names_utc_and_a_permissive_sql_mode():
    assert SESSION_SQL[0] == "SET NAMES utf8mb4"
    assert "SET SESSION time_zone = '+00:00'" in SESSION_SQL
    mode = [s for s in SESSION_SQL if "sql_mode" in s]
    assert mode == ["SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO'"]
    for banned in ("STRICT", "NO_ZERO", "NO_BACKSLASH_ESCAPES", "ANSI", "PAD_CHAR"):
        assert banned not in mode[0]


def test_qi_and_qs():
    assert qi("a`b") == "`a``b`"
    text = "a'b\\c\0d\x1ae\rf\ng"
    assert qs(text) == "'a\\'b\\\\c\\0d\\Ze\\rf\\ng'"
    assert unquote(qs(text)) == text


# ============================================================== numbers


def test_integers_year_and_decimals_of_real_rows():
    for name in ("mariadb-rows-integers", "mariadb-rows-decimals", "mariadb-rows-temporal"):
        tm, flavor, rows = decoded(name)
        seen = 0
        for row in rows:
            for i, v in row.items():
                if not isinstance(i, int):
                    continue
                col = tm.columns[i]
                lit = literal(col, v, flavor)
                if v is None:
                    assert lit == "NULL"
                elif col.type in ("TINY", "SHORT", "INT24", "LONG", "LONGLONG", "YEAR"):
                    assert lit == str(v) and int(lit) == v
                    seen += 1
                elif col.type == "NEWDECIMAL":
                    assert decimal.Decimal(lit) == v and lit == format(v, "f")
                    assert "E" not in lit
                    seen += 1
        assert seen
    year = Column(index=0, type="YEAR")
    assert literal(year, 0, "mariadb") == "0"       # the number 0 is YEAR 0000 ('0' is 2000)
    tiny = Column(index=0, type="LONGLONG", unsigned=True)
    assert literal(tiny, 18446744073709551615, "mysql") == "18446744073709551615"


def test_bit():
    col = Column(index=0, type="BIT", bits=64)
    assert literal(col, 0, "mysql") == "b'0'"
    assert literal(col, 5, "mariadb") == "b'101'"
    assert literal(col, (1 << 64) - 1, "mysql") == "b'" + "1" * 64 + "'"
    tm, flavor, rows = decoded("mariadb-rows-bit-all-ones")
    for row in rows:
        for i, v in row.items():
            if isinstance(i, int) and tm.columns[i].type == "BIT" and v is not None:
                assert int(literal(tm.columns[i], v, flavor)[2:-1], 2) == v


def test_floats_read_back_as_the_stored_value():
    tm, flavor, rows = decoded("mariadb-rows-floats")
    checked = 0
    for row in rows:
        for i, v in row.items():
            col = tm.columns[i] if isinstance(i, int) else None
            if col is None or col.type not in ("FLOAT", "DOUBLE") or v is None:
                continue
            lit = literal(col, v, flavor)
            assert re.fullmatch(r"-?\d+\.\d+(e0|e[+-]\d+)|-?\d(\.\d+)?e[+-]\d+", lit), lit
            back = double_of(lit)
            assert back == v and struct.pack("<d", back) == struct.pack("<d", v)
            if col.type == "FLOAT":   # storing the double rounds it back to the same float32
                assert struct.pack("<f", back) == struct.pack("<f", v)
                assert struct.unpack("<f", struct.pack("<f", back))[0] == back
            checked += 1
    assert checked > 30
    f = Column(index=0, type="FLOAT")
    v = struct.unpack("<f", struct.pack("<f", 1.1))[0]
    assert literal(f, v, "mysql") == "1.100000023841858e0"
    assert float("1.100000023841858e0") == v           # a WHERE compares the widened float32
    assert condition(f, "`f`", v, "mysql", False) == "`f` = 1.100000023841858e0"
    d = Column(index=0, type="DOUBLE")
    assert literal(d, -0.0, "mysql") == "-0.0e0"
    assert struct.pack("<d", double_of("-0.0e0"))[7] & 0x80
    assert literal(d, 1e300, "mariadb") == "1e+300"
    assert literal(d, 5e-324, "mariadb") == "5e-324"
    for bad in (float("nan"), float("inf"), -float("inf"),
                NaNFloat(float("nan"), b"\x01\x00\xc0\x7f")):
        with pytest.raises(SqlValueError, match="NaN and infinities"):
            literal(Column(index=0, type="DOUBLE", name="dd"), bad, "mysql")


# ============================================================== temporal


def test_temporal_values_of_real_rows():
    tm, flavor, rows = decoded("mariadb-rows-temporal")
    names = {c.name: c for c in tm.columns}
    by_id = {r[0]: r for r in rows}

    def lit(row_id, name):
        c = names[name]
        return literal(c, by_id[row_id][c.index], flavor)
    assert lit(1, "dt") == "'0000-00-00'"
    assert lit(1, "tm6") == "'00:00:00.000000'"
    assert lit(1, "dtm") == "'0000-00-00 00:00:00'"
    assert lit(1, "dtm3") == "'0000-00-00 00:00:00.000'"
    assert lit(1, "ts") == "'0000-00-00 00:00:00'"
    assert lit(1, "ts6") == "'0000-00-00 00:00:00.000000'"
    assert lit(2, "tm") == "'-838:59:59'"
    assert lit(2, "tm6") == "'-838:59:58.999999'"
    assert lit(3, "tm1") == "'838:59:58.9'"
    assert lit(4, "dt") == "'2024-00-15'"
    assert lit(4, "tm") == "'-00:00:01'"
    assert lit(4, "tm1") == "'-00:00:00.5'"
    assert lit(4, "tm6") == "'-00:00:00.000001'"
    assert lit(4, "dtm") == "'2024-00-00 12:00:00'"
    assert lit(4, "dtm4") == "'2024-12-00 01:02:03.0625'"
    assert lit(2, "ts") == "'1970-01-01 00:00:01'"
    assert lit(3, "ts6") == "'2038-01-19 03:14:07.999999'"
    assert lit(5, "ts2") == "'2001-09-09 01:46:40.45'"
    assert lit(6, "dt") == "NULL"
    for row in rows:                  # every fraction has exactly the column's fsp digits
        for i, v in row.items():
            if not isinstance(i, int) or v is None or tm.columns[i].fsp is None:
                continue
            text = unquote(literal(tm.columns[i], v, flavor))
            frac = text.partition(".")[2]
            assert len(frac) == tm.columns[i].fsp, (tm.columns[i].name, text)


def test_old_temporal_types_and_fractions_a_column_cannot_hold():
    tm, flavor, rows = decoded("mariadb-rows-temporal-old")
    for row in rows:
        for i, v in row.items():
            if isinstance(i, int) and v is not None and tm.columns[i].type in (
                    "TIME", "DATETIME", "TIMESTAMP", "DATE"):
                assert "." not in literal(tm.columns[i], v, flavor)
    col = Column(index=0, type="DATETIME2", fsp=2, name="d2")
    assert literal(col, temporal.DateTime(2024, 1, 2, 3, 4, 5, 120000), "mysql") == \
        "'2024-01-02 03:04:05.12'"
    with pytest.raises(SqlValueError, match="d2"):
        literal(col, temporal.DateTime(2024, 1, 2, 3, 4, 5, 123456), "mysql")
    ts = Column(index=0, type="TIMESTAMP2", fsp=2)
    with pytest.raises(SqlValueError):   # a 1-byte fraction of 255 hundredths
        literal(ts, temporal.Timestamp(100, 2550000), "mariadb")
    t = Column(index=0, type="TIME2", fsp=6)
    assert literal(t, temporal.Time(True, 838, 59, 59, 0), "mysql") == "'-838:59:59.000000'"


# ============================================================== strings


def test_latin1_text_quoted_when_ascii_else_hex_with_collation():
    tm, flavor, rows = decoded("mariadb-rows-strings-latin1")
    names = {c.name: c for c in tm.columns}
    by_id = {r[0]: r for r in rows}

    def lit(row_id, name):
        c = names[name]
        return literal(c, by_id[row_id][c.index], flavor)
    assert lit(1, "v255") == "_latin1''"
    assert lit(2, "c10") == "_latin1'abcdefghij'"
    assert lit(2, "vbin") == "_latin1 X'636166e9' COLLATE latin1_bin"
    assert lit(3, "v255") == "_latin1 X'636166e9206e61ef7665' COLLATE latin1_swedish_ci"
    assert lit(4, "v255") == "_latin1 X'819d8da0a1bfc0ff' COLLATE latin1_swedish_ci"
    assert lit(4, "v256") == "_latin1 X'80' COLLATE latin1_swedish_ci"   # the euro sign
    assert lit(4, "vbin") == "_latin1'a\\'b'"
    assert lit(4, "vnopad") == "_latin1'\\\\'"
    assert lit(4, "tt") == "_latin1'tab\t'"
    for row in rows:   # the hex is the stored bytes; quoted text only ever ASCII
        for i, v in row.items():
            if not isinstance(i, int) or tm.columns[i].collation_id is None or v is None:
                continue
            text = literal(tm.columns[i], v, flavor)
            if " X'" in text:
                raw = bytes.fromhex(text.split("X'")[1].split("'")[0])
                assert raw == text_codec(tm.columns[i].collation_id)[1](v)
            elif text.startswith("_latin1'"):
                assert unquote(text[7:]).isascii()


def test_utf8mb4_text_is_quoted_and_exact():
    tm, flavor, rows = decoded("mariadb-rows-strings-utf8mb4")
    checked = 0
    for row in rows:
        for i, v in row.items():
            if not isinstance(i, int) or not isinstance(v, str):
                continue
            col = tm.columns[i]
            text = literal(col, v, flavor)
            assert text.startswith("_utf8mb4'") and " COLLATE " not in text
            assert unquote(text[len("_utf8mb4"):]) == v       # the same UTF-8 bytes
            checked += 1
    assert checked > 20
    col = Column(index=0, type="VARCHAR", collation_id=collation_id("utf8mb4_general_ci",
                                                                     "mysql"), max_length=40)
    assert literal(col, "😀 'x'\n", "mysql") == "_utf8mb4'😀 \\'x\\'\\n'"
    # bytes in a utf8 column: bytes that are not text in its character set
    assert literal(col, b"\xff\xfeA", "mysql") == \
        "_utf8mb4 X'fffe41' COLLATE utf8mb4_general_ci"
    mb3 = Column(index=0, type="VARCHAR", collation_id=33, max_length=30)
    assert literal(mb3, "é", "mariadb") == "_utf8mb3'é'"
    assert literal(mb3, "😀", "mariadb").startswith("_utf8mb3 X'f09f9880'")   # not BMP
    ucs2 = Column(index=0, type="VARCHAR", collation_id=35, max_length=20)
    assert literal(ucs2, "ab", "mariadb") == "_ucs2 X'00610062' COLLATE ucs2_general_ci"
    assert literal(ucs2, "", "mariadb") == "_ucs2''"
    unknown = Column(index=0, type="VARCHAR", max_length=20)   # NO_LOG: no collation
    assert literal(unknown, "café", "mariadb") == "X'636166c3a9'"
    assert literal(unknown, b"\xe9", "mariadb") == "X'e9'"
    assert literal(unknown, "", "mariadb") == "X''"
    nopad = Column(index=0, type="VARCHAR", collation_id=1024 + 8, max_length=20)
    assert literal(nopad, "ok", "mariadb") == "_latin1'ok'"


def test_binary_strings_and_binary_n_padding():
    tm, flavor, rows = decoded("mariadb-rows-binary")
    names = {c.name: c for c in tm.columns}
    by_id = {r[0]: r for r in rows}

    def lit(row_id, name):
        c = names[name]
        return literal(c, by_id[row_id][c.index], flavor)
    assert lit(1, "b1") == "X'00'"
    assert lit(2, "b1") == "X'00'"                       # '' in BINARY(1) is one zero byte
    assert lit(3, "b16") == "X'2000" + "00" * 14 + "'"
    assert lit(2, "b255") == "X'" + "00" * 255 + "'"
    assert lit(2, "vb10") == "X''"
    assert lit(3, "vb255") == "X'0000'"
    assert lit(1, "c_bin") == "X'00ff0000'"              # CHAR(4) CHARACTER SET binary
    tm, flavor, rows = decoded("mariadb-rows-inet-uuid")   # logged as BINARY(4/16)
    for row in rows:
        for i, v in row.items():
            if isinstance(i, int) and i > 0 and v is not None:
                raw = bytes.fromhex(literal(tm.columns[i], v, flavor)[2:-1])
                assert len(raw) == tm.columns[i].max_length and raw.rstrip(b"\0") == v.rstrip(
                    b"\0")


def test_blobs_and_compressed_columns():
    tm, flavor, rows = decoded("mariadb-rows-compressed")
    checked = 0
    for row in rows:
        for i, v in row.items():
            if isinstance(i, int) and isinstance(v, Compressed):
                col = tm.columns[i]
                assert literal(col, v, flavor) == literal(col, v.data, flavor)
                checked += 1
    assert checked >= 10
    by_id = {r[0]: r for r in rows}
    assert literal(tm.columns[2], by_id[2][2], flavor) == "_utf8mb4'kurz ü'"
    assert literal(tm.columns[3], by_id[2][3], flavor) == "X'01'"


# ============================================================== ENUM, SET


def test_enum_and_set_with_names():
    tm, flavor, rows = decoded("mariadb-rows-enum-set")
    names = {c.name: c for c in tm.columns}
    by_id = {r[0]: r for r in rows}

    def lit(row_id, name):
        c = names[name]
        return literal(c, by_id[row_id][c.index], flavor)
    assert lit(1, "e_latin1") == "_latin1 X'636166e9' COLLATE latin1_swedish_ci"
    assert lit(2, "e_latin1") == "_latin1'plain'"
    assert lit(1, "e_utf8mb4") == "_utf8mb4'☕'"
    assert lit(2, "e_utf8mb4") == "_utf8mb4''"             # the member '' (index 3)
    assert lit(1, "e_bin") == "1"                           # binary ENUM: by number
    assert lit(1, "s_latin1") == "_latin1 X'636166e92c63' COLLATE latin1_swedish_ci"
    assert lit(1, "s_utf8mb4") == "_utf8mb4'ÿ,r'"
    assert lit(1, "s_64") == "_latin1'm01,m64'"
    assert lit(2, "s_latin1") == "_latin1''"
    assert lit(1, "e_uca") == "_utf8mb4'Ä'"
    assert condition(names["e_latin1"], "`e`", by_id[1][1], flavor, True) == "`e` <=> 1"
    assert condition(names["s_utf8mb4"], "`s`", by_id[1][6], flavor, False) == "`s` = 258"


def test_enum_error_value_and_unknown_names():
    tm, flavor, rows = decoded("mariadb-rows-enum-set-error-value")
    row = rows[0]
    for name in ("e_latin1", "e_utf8mb4", "e_bin", "e_one"):
        col = next(c for c in tm.columns if c.name == name)
        assert row[col.index].index == 0
        assert literal(col, row[col.index], flavor) == "0"   # the error value, not ''
    tm, flavor, rows = decoded("mariadb-rows-enum-set-minimal-metadata")
    assert all(c.enum_values is None and c.set_values is None for c in tm.columns)
    row = rows[0]
    assert [literal(c, row[c.index], flavor) for c in tm.columns][1:8] == [
        "1", "1", "1", "1", "5", "258", "9223372036854775809"]
    col = Column(index=0, type="STRING", real_type="SET", collation_id=8, pack_length=1,
                 set_values=["a"])
    assert literal(col, SetValue(0b11, ("a",)), "mysql") == "3"   # a bit past the members
    enum = Column(index=0, type="STRING", real_type="ENUM", collation_id=8, pack_length=1)
    assert literal(enum, EnumValue(2, None), "mysql") == "2"


# ============================================================== JSON


def json_text_of(lit):
    m = re.fullmatch(r"CAST\(_utf8mb4('.*') AS JSON\)", lit, re.S)
    assert m, lit
    return unquote(m.group(1))


MYSQL_JSON = Column(index=0, type="JSON", pack_length=4, name="j")


def test_mysql_json_text_round_trips_through_the_binary_json_reader():
    for doc in ({"a": [1, 2.5, "x", None, True], "b": {"c": -0.0, "é'\\": "☕\n"}},
                [], {}, "text", 7, -9223372036854775808, 0.1, 1 / 3, 1e22, False, [None],
                [18446744073709551615]):   # (a top-level JSON null decodes as None: NULL)
        lit = literal(MYSQL_JSON, doc, "mysql")
        parsed = json.loads(json_text_of(lit))
        assert json_document.encode(parsed) == json_document.encode(doc), doc
    v = json_document.decode(json_document.encode({"k": [1, "two", 3.0]}))
    assert json_text_of(literal(MYSQL_JSON, v, "mysql")) == '{"k":[1,"two",3.0]}'


def test_mysql_json_values_that_need_typed_expressions():
    lit = literal(MYSQL_JSON, {"u": JsonUInt(5), "s": "x"}, "mysql")
    assert lit == ("JSON_OBJECT(_utf8mb4'u', CAST(CAST(5 AS UNSIGNED) AS JSON), "
                   "_utf8mb4's', CAST(_utf8mb4'\"x\"' AS JSON))")
    # doubles the JSON parser (no full precision) could misread: a double literal
    assert literal(MYSQL_JSON, [0.30000000000000004], "mysql") == \
        "JSON_ARRAY(CAST(0.30000000000000004e0 AS JSON))"
    assert literal(MYSQL_JSON, 5e-324, "mysql") == "CAST(5e-324 AS JSON)"
    assert literal(MYSQL_JSON, JsonDecimal("1.50", precision=10), "mysql") == \
        "CAST(CAST('1.50' AS DECIMAL(10,2)) AS JSON)"
    assert literal(MYSQL_JSON, decimal.Decimal("-0.001"), "mysql") == \
        "CAST(CAST('-0.001' AS DECIMAL(4,3)) AS JSON)"
    assert literal(MYSQL_JSON, dt.date(2020, 1, 2), "mysql") == \
        "CAST(CAST('2020-01-02' AS DATE) AS JSON)"
    assert literal(MYSQL_JSON, dt.datetime(2020, 1, 2, 3, 4, 5, 6), "mysql") == \
        "CAST(CAST('2020-01-02 03:04:05.000006' AS DATETIME(6)) AS JSON)"
    assert literal(MYSQL_JSON, -dt.timedelta(microseconds=1), "mysql") == \
        "CAST(CAST('-00:00:00.000001' AS TIME(6)) AS JSON)"
    assert literal(MYSQL_JSON, JsonDateTime(0, 0, 0, 0, 0, 0, 0), "mysql") == \
        "CAST(CAST('0000-00-00 00:00:00.000000' AS DATETIME(6)) AS JSON)"
    doc = JsonDocument({"a": 1}, b"\x00")          # non-canonical bytes: written by value
    assert literal(MYSQL_JSON, doc, "mysql") == "CAST(_utf8mb4'{\"a\":1}' AS JSON)"
    for bad, why in ((JsonZeroTimestamp(0, 0), "TIMESTAMP"), (JsonOpaque(252, b"x"), "opaque"),
                     ("\udcff", "UTF-8"), ({"\udcff": 1}, "UTF-8"), (float("nan"), "NaN"),
                     (JsonDecimal("1.5", precision=66), "DECIMAL")):
        with pytest.raises(SqlValueError, match=why):
            literal(MYSQL_JSON, bad, "mysql")
    assert condition(MYSQL_JSON, "`j`", [1], "mysql", True) == \
        "`j` = CAST(_utf8mb4'[1]' AS JSON)"


def test_mysql_json_zero_dates_of_real_vectors():
    path = ROOT / "specs" / "rows" / "mysql-json-zero-dates.yaml"
    lits = {}
    for _, _, doc in documents(path):
        tm, flavor, rows = decoded(doc["name"], path)
        col, v = tm.columns[0], rows[0][0]
        try:
            lits[doc["name"]] = literal(col, v, flavor)
        except SqlValueError as e:
            lits[doc["name"]] = e
    assert lits["mysql-json-zero-date"] == "CAST(CAST('0000-00-00' AS DATE) AS JSON)"
    assert lits["mysql-json-zero-datetime"] == \
        "CAST(CAST('0000-00-00 00:00:00.000000' AS DATETIME(6)) AS JSON)"
    assert isinstance(lits["mysql-json-zero-timestamp"], SqlValueError)
    assert "'j'" not in str(lits["mysql-json-zero-timestamp"])  # names the column it has
    assert isinstance(JsonDate(0, 0, 0), temporal.Date)


def test_mariadb_json_is_utf8mb4_text():
    tm, flavor, rows = decoded("mariadb-rows-json-text")
    before, after = rows[0]
    assert flavor == "mariadb"
    assert literal(tm.columns[1], after[1], flavor) == \
        "_utf8mb4'{\"a\": [1, 2.5, \"x\", null, true], \"b\": {\"c\": \"tea\"}}'"
    json_col = Column(index=0, type="JSON", pack_length=4)
    assert literal(json_col, '{"a": "é"}', "mariadb") == "_utf8mb4'{\"a\": \"é\"}'"
    assert condition(json_col, "`j`", "[]", "mariadb", True) == \
        "(`j` <=> _utf8mb4'[]' COLLATE utf8mb4_bin AND LENGTH(`j`) = 2)"


# ============================================================== partial JSON


def test_partial_json_needs_the_before_image():
    diff = JsonDiff([JsonDiffOp("REPLACE", "$.age", 26)])
    with pytest.raises(SqlValueError, match="partial JSON update.*before image"):
        literal(MYSQL_JSON, diff, "mysql")
    with pytest.raises(SqlValueError, match="'j'"):
        condition(MYSQL_JSON, "`j`", diff, "mysql", False)


def test_apply_json_diffs_of_a_real_partial_update():
    path = ROOT / "specs" / "rows" / "corpus" / "rust_mysql_common__json.binlog.000001.yaml"
    _, _, full = decoded("corpus-rows-rust-mysql-common-json-binlog-000001-2612", path)
    tm, flavor, partial = decoded("corpus-rows-rust-mysql-common-json-binlog-000001-3750",
                                  path)
    docs = {}
    for row in full:
        image = row[1] if isinstance(row, tuple) else row
        docs[image[0]] = image[1]
    applied = 0
    for before, after in partial:
        diff = after[1]
        assert isinstance(diff, JsonDiff)
        doc = docs[before[0]]
        new = apply_json_diffs(doc, diff)
        assert new == {**doc, "age": after[3]}
        assert f'"age":{after[3]}' in literal(tm.columns[1], new, flavor)
        applied += 1
    assert applied >= 5


def test_apply_json_diffs_semantics():
    before = {"a": 1, "b": [1, 2, 3], "c": {"d": "x"}, "q r": 0}
    ops = [JsonDiffOp("REPLACE", "$.a", 2),
           JsonDiffOp("INSERT", "$.b[1]", 9),
           JsonDiffOp("REMOVE", "$.c.d"),
           JsonDiffOp("INSERT", '$."new key"', True),
           JsonDiffOp("INSERT", "$.b[99]", 7),
           JsonDiffOp("REMOVE", "$.b[last]"),
           JsonDiffOp("REPLACE", '$."q r"', [1]),
           JsonDiffOp("REPLACE", "$.b[last-1]", "z")]
    got = apply_json_diffs(before, ops)
    assert got == {"a": 2, "b": [1, 9, "z", 3], "c": {}, "q r": [1], "new key": True}
    assert before == {"a": 1, "b": [1, 2, 3], "c": {"d": "x"}, "q r": 0}    # unchanged
    assert apply_json_diffs(JsonDocument([0], b""), JsonDocument(
        [JsonDiffOp("INSERT", "$[0]", 5)], b"")) == [5, 0]
    for op in (JsonDiffOp("REPLACE", "$.zz", 1), JsonDiffOp("INSERT", "$.a", 1),
               JsonDiffOp("REMOVE", "$[0]"), JsonDiffOp("REMOVE", "$.b[3]"),
               JsonDiffOp("INSERT", "$.x.y", 1), JsonDiffOp("REPLACE", "$.b[*]", 1),
               JsonDiffOp("REPLACE", "$**.a", 1)):
        with pytest.raises(SqlValueError):
            apply_json_diffs(before, [op])
    with pytest.raises(SqlValueError):
        apply_json_diffs(None, ops)


# ============================================================== geometry, vector


def test_geometry_both_flavors():
    tm, flavor, rows = decoded("mariadb-rows-geometry")
    row = rows[0]
    p, p_srid = tm.columns[2], tm.columns[9]
    assert literal(p, row[2], "mariadb") == \
        "ST_GeomFromWKB(X'010100000000000000000008400000000000001040', 0)"
    assert literal(p_srid, row[9], "mariadb") == \
        "ST_GeomFromWKB(X'010100000000000000000024400000000000003440', 4326)"
    assert literal(p_srid, row[9], "mysql") == ("ST_GeomFromWKB(X'0101000000000000000000244000"
                                                "00000000003440', 4326, 'axis-order=long-lat')")
    assert literal(p, row[2], "mysql") == literal(p, row[2], "mariadb")   # SRID 0
    g = Geometry(3857, b"\x01")
    assert condition(Column(index=0, type="GEOMETRY"), "`g`", g, "mysql", True) == \
        "`g` <=> ST_GeomFromWKB(X'01', 3857, 'axis-order=long-lat')"


def test_vector_literals_are_exact_float32():
    col = Column(index=0, type="VECTOR", pack_length=4, vector_dimensions=3, name="v")
    values = [struct.unpack("<f", struct.pack("<f", x))[0] for x in (1.1, -0.0, 3e38)]
    values.append(struct.unpack("<f", b"\x01\x00\x00\x00")[0])        # the smallest float32
    my = literal(col, values, "mysql")
    maria = literal(col, values, "mariadb")
    assert my.startswith("STRING_TO_VECTOR('[1.100000023841858,-0.0,")
    assert maria.startswith("VEC_FromText('[") and maria[12:] == my[16:]
    texts = json.loads(unquote(my[len("STRING_TO_VECTOR("):-1]))
    assert struct.pack(f"<{len(values)}f", *texts) == struct.pack(f"<{len(values)}f", *values)
    assert [float(t) for t in texts] == values       # each text's double is the float32
    with pytest.raises(SqlValueError, match="'v'"):
        literal(col, [float("nan")], "mysql")


# ============================================================== WHERE terms


def test_conditions():
    utf = Column(index=0, type="VARCHAR", collation_id=45, max_length=40)
    assert condition(utf, "`s`", None, "mysql", True) == "`s` IS NULL"
    assert condition(utf, "`s`", "a", "mysql", False) == "`s` = _utf8mb4'a'"
    assert condition(utf, "`s`", "é", "mysql", True) == \
        "(`s` <=> _utf8mb4'é' COLLATE utf8mb4_bin AND LENGTH(`s`) = 2)"
    latin = Column(index=0, type="BLOB", collation_id=8, pack_length=2)
    assert condition(latin, "`t`", "é", "mariadb", True) == \
        "(`t` <=> _latin1 X'e9' COLLATE latin1_bin AND LENGTH(`t`) = 1)"
    char = Column(index=0, type="STRING", real_type="STRING", collation_id=8, max_length=4)
    assert condition(char, "`c`", "ab", "mariadb", True) == \
        "`c` <=> _latin1'ab' COLLATE latin1_bin"
    binary = Column(index=0, type="STRING", real_type="STRING", collation_id=63, max_length=4)
    assert condition(binary, "`b`", b"a", "mysql", True) == "`b` <=> X'61000000'"
    num = Column(index=0, type="LONG")
    assert condition(num, "`i`", 0, "mysql", True) == "`i` <=> 0"
    comp = Column(index=0, type="VARCHAR_COMPRESSED", collation_id=45, max_length=40)
    assert condition(comp, "`z`", Compressed(b"\x00ab", "ab"), "mariadb", True) == \
        "(`z` <=> _utf8mb4'ab' COLLATE utf8mb4_bin AND LENGTH(`z`) = 2)"


def test_every_character_set_has_a_bin_collation():
    for charset in set(MARIADB_CHARSETS) - {"binary"}:
        assert bin_collation(charset, "mariadb") == f"{charset}_bin"
        assert bin_collation(charset, "mysql") == f"{charset}_bin"
    for charset in MYSQL_CHARSETS:       # (gb18030: MySQL's only)
        assert bin_collation(charset, "mysql") == f"{charset}_bin"


def test_unknown_types_are_refused_naming_the_column():
    with pytest.raises(SqlValueError, match="'x'.*TYPED_ARRAY"):
        literal(Column(index=0, type="TYPED_ARRAY", name="x"), [1], "mysql")


# ============================================================== the fixtures use it


def test_synthetic_literal_delegates_to_sql_text():
    from binlog_schema.synthetic import load_spec
    from binlog_schema.synthetic import sql as fsql
    spec = {"server": "mariadb-10.11", "database": "db", "transactions": [], "tables": [
        {"name": "t", "columns": [
            {"name": "a", "type": "VARCHAR(5)", "charset": "latin1"},
            {"name": "f", "type": "FLOAT"}, {"name": "b", "type": "BINARY(4)"},
            {"name": "ip", "type": "INET6"}, {"name": "e", "type": "ENUM('x','y')"},
            {"name": "ts", "type": "TIMESTAMP(3)"}]}]}
    fx = load_spec(spec)
    cols = {c.name: c for c in next(iter(fx.tables.values())).columns}
    for name, value in (("a", "é"), ("f", 1.5), ("b", b"\x01"), ("e", "y"),
                        ("ts", "2024-01-01 00:00:00.5")):
        c = cols[name]
        v = c.convert(value)
        assert fsql.literal(c, v) == literal(c.binlog, v, "mariadb")
    assert fsql.literal(cols["a"], "é") == "_latin1 X'e9' COLLATE latin1_swedish_ci"
    assert fsql.literal(cols["b"], b"\x01") == "X'01000000'"
    ip = cols["ip"]
    assert fsql.literal(ip, ip.convert("::1")) == "'::1'"     # the fixture knows INET6
    assert sql_text.qi is fsql.qi and sql_text.qs is fsql.qs

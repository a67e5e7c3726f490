"""One collation table (binlog_schema.format.facts.charsets): ENUM/SET member names and row values
of the same collation read the same text; the fixtures write what servers store; the generated data
is complete and agrees with itself; no module keeps a second table."""

from __future__ import annotations

import re

import pytest

from binlog_schema.construct_ext.errors import StringError
from binlog_schema.synthetic import generate, load_spec
from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.format.facts import charsets
from binlog_schema.format.facts.charset_data import COLLATION_ID_RUNS, SINGLE_BYTE_TABLES
from binlog_schema.format.facts.charsets import (MULTI_BYTE_CODECS, MYSQL_ONLY, collation_id,
                                          decode_text, encode_text, text_codec)
from binlog_schema.format.facts.collation_data import MARIADB_CHARSETS, MARIADB_COLLATIONS
from binlog_schema.format.stream import BinlogReader

from ..conftest import ROOT

LATIN1, UCS2, UTF16, UTF32, UTF8MB4, BINARY = 8, 35, 54, 60, 45, 63


def value_of(data: bytes, cid):
    return text_codec(cid)[0](data)


# ====================================================================== members = values


@pytest.mark.parametrize("cid,data,text", [
    (LATIN1, b"\x80", "€"),                 # MySQL's latin1 is cp1252 ...
    (LATIN1, b"\x81", "\x81"),              # ... with the five bytes it leaves undefined as C1
    (1032, b"\x80uro", "€uro"),             # latin1_swedish_nopad_ci
    (UCS2, b"\x00A", "A"),                  # UCS-2 big-endian
    (128, b"\x00\xe9", "é"),                # ucs2_unicode_ci
    (UTF16, b"\xd8\x3d\xde\x00", "😀"),
    (56, b"A\x00", "A"),                    # utf16le
    (UTF32, b"\x00\x00\x00A", "A"),
    (UTF8MB4, "日本".encode(), "日本"),
    (255, "ü".encode(), "ü"),               # MySQL's utf8mb4_0900_ai_ci
    (36, b"\xfc", "\u207f"),                # cp866 as the server has it (Python's cp866: №)
    (25, b"\xa1", "\u02bd"),                # greek likewise (Python's iso8859-7: ‘)
    (10, b"@", "É"),                        # swe7: 7-bit Swedish
    (19, b"\x81\x41", "갂"),                # euckr reads the UHC extension
    (9, b"\xb1", "ą"),                      # latin2_general_ci
])
def test_members_and_values_of_a_collation_read_the_same_text(cid, data, text):
    assert decode_text(data, cid) == text
    assert value_of(data, cid) == text
    assert encode_text(text, cid) == data
    assert text_codec(cid)[1](text) == data


@pytest.mark.parametrize("cid,data", [
    (57, b"\x8a"),          # cp1256: a byte the server maps to nothing
    (UCS2, b"\x00"),        # half a character
    (UTF8MB4, b"\xff"),
    (11, b"\x80"),          # ascii
])
def test_bytes_a_charset_does_not_read_stay_bytes(cid, data):
    assert decode_text(data, cid) == {"hex": data.hex()}
    assert value_of(data, cid) == data
    assert encode_text({"hex": data.hex()}, cid) == data


def test_binary_and_unknown_collations():
    assert value_of(b"\x80", BINARY) == b"\x80"
    assert decode_text(b"abc", BINARY) == "abc"                 # names of binary read as UTF-8
    assert value_of("é".encode(), 999) == "é"                   # unknown: UTF-8 when it can
    assert value_of(b"\xff", 5000) == b"\xff"
    assert value_of(b"\x80", 1024 + LATIN1) == "€"              # NOPAD: 1024 + the PAD id


def test_text_a_charset_cannot_hold_is_refused():
    with pytest.raises(UnicodeError):
        encode_text("☕", LATIN1)
    with pytest.raises(StringError, match="latin1"):
        text_codec(LATIN1)[1]("☕")


# ====================================================================== through the fixtures


@pytest.mark.parametrize("server", ["mariadb-10.11", "mysql-8.0"])
@pytest.mark.parametrize("charset,member,stored", [
    ("latin1", "€uro", b"\x80uro"),
    ("ucs2", "A", b"\x00A"),
])
def test_enum_members_build_as_servers_store_them_and_decode_back(server, charset, member,
                                                                   stored):
    spec = {"server": server, "settings": {"binlog_row_metadata": "FULL"}, "database": "db",
            "tables": [{"name": "t", "primary_key": ["id"], "columns": [
                {"name": "id", "type": "INT", "nullable": False},
                {"name": "e", "type": f"ENUM('{member}','b') CHARACTER SET {charset}"},
                {"name": "s", "type": f"VARCHAR(5) CHARACTER SET {charset}"}]}],
            "transactions": [{"insert": "t", "rows": [[1, member, member]]}]}
    data = generate(load_spec(spec))
    dec = RowDecoder()
    changes = [ch for rec in BinlogReader(data) for ch in dec.feed(rec)]
    tm = [rec for rec in BinlogReader(data) if rec.type_name == "TABLE_MAP_EVENT"][0]
    assert stored in tm.raw                                      # ENUM_STR_VALUE
    assert dec.table_maps[tm.value["body"]["table_id"]].columns[1].enum_values == [member, "b"]
    assert changes[0].after["e"].name == member and changes[0].after["s"] == member


# ====================================================================== the table itself


def test_every_collation_id_of_both_servers_has_its_character_set():
    for name, (cid, cs) in MARIADB_COLLATIONS.items():
        assert charsets.charset_of_id(cid) == cs, name
        assert collation_id(name, "mariadb") == cid
    for name, (cid, cs) in MYSQL_ONLY.items():
        assert charsets.charset_of_id(cid) == cs, name
        assert collation_id(name, "mysql") == cid
    assert charsets.charset_of_id(1032) == "latin1"                 # NOPAD ids are listed
    assert charsets.collation_name(255, "mysql") == "utf8mb4_0900_ai_ci"
    assert charsets.collation_name(8, "mariadb") == "latin1_swedish_ci"


def test_the_id_runs_are_the_names_table():
    """charset_data (what decoding loads) and collation_data (names) are one server's table."""
    from_runs = {cid: cs for a, b, cs in COLLATION_ID_RUNS for cid in range(a, b + 1)}
    assert from_runs == {cid: cs for cid, cs in MARIADB_COLLATIONS.values()}


def test_every_character_set_has_a_decoder():
    without = {"binary", "eucjpms"}  # raw bytes; UTF-8 when it can (Python has no eucJP-ms)
    for name, (maxlen, _default) in MARIADB_CHARSETS.items():
        if name in without:
            continue
        if maxlen == 1:
            assert name in SINGLE_BYTE_TABLES and name not in MULTI_BYTE_CODECS, name
        else:
            assert name in MULTI_BYTE_CODECS, name
    assert set(SINGLE_BYTE_TABLES) <= set(MARIADB_CHARSETS)
    assert all(len(t) == 256 for t in SINGLE_BYTE_TABLES.values())


def test_no_second_collation_table_in_the_package():
    """Collation ids, charsets and codecs live in format/facts/charsets.py and its two generated
    data modules; no other module lists collation ids or picks a text codec."""
    own = {"format/facts/charsets.py", "format/facts/charset_data.py",
           "format/facts/collation_data.py"}
    latin1_ids = re.compile(r"\b5,\s*8,\s*15,\s*31\b|\b47,\s*48,\s*49\b")
    codec_names = re.compile(r"""(\.decode|\.encode|codecs\.\w+)\(\s*["'](cp1252|latin-?1|"""
                             r"""iso-?8859-\d+|utf-(16|32)(-[bl]e)?|euc_jp|shift_jis|cp\d+)["']|"""
                             r"""charmap_(build|decode|encode)""", re.I)
    data_import = re.compile(r"(from|import) +[.\w]*(collation|charset)_data\b")
    package = ROOT / "binlog_schema"
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel in own:
            continue
        text = path.read_text(encoding="utf-8")
        assert not latin1_ids.search(text), f"{rel} lists latin1's collation ids"
        found = codec_names.search(text)
        assert not found, f"{rel} names a text codec: {found and found.group(0)}"
        assert not data_import.search(text), f"{rel} reads the collation data itself"

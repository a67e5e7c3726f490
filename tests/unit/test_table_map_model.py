"""The typed model: flavor rules for aligning TLVs with columns, and the server-identical
builder (TLV choice and order, DEFAULT_ vs COLUMN_CHARSET)."""

import pytest

from binlog_schema.format.context import Context
from binlog_schema.format.event_codec import parse_event
from binlog_schema.format.facts.flavor import flavor_for
from binlog_schema.changes.table_map import Column, TableMap, _charset_tlv, table_map_from_event


def _tm(cols, **kw):
    base = dict(table_id=1, database="d", table="t", row_metadata="full",
                header={"timestamp": 1, "type_code": 19, "server_id": 1, "log_pos": 0,
                        "flags": []})
    base.update(kw)
    return TableMap(columns=[Column(index=i, **c) for i, c in enumerate(cols)], **base)


def _roundtrip(tm):
    data = tm.to_bytes()
    ctx = tm.context()
    back = table_map_from_event(parse_event(data, ctx), ctx)
    return data, back


def test_year_and_decimal_count_as_numeric_for_signedness():
    fl = flavor_for("mysql", "8.0.40")
    assert fl.is_numeric("YEAR") and fl.is_numeric("DECIMAL") and fl.is_numeric("NEWDECIMAL")
    assert not fl.is_numeric("BIT") and not fl.is_numeric("DATETIME2")
    tm = _tm([dict(type="YEAR", unsigned=True, nullable=True),
              dict(type="LONG", unsigned=False, nullable=True),
              dict(type="LONGLONG", unsigned=True, nullable=True)],
             flavor="mysql", server_version="8.0.40", row_metadata="minimal")
    data, back = _roundtrip(tm)
    sig = [t for t in parse_event(data, tm.context())["body"]["optional_metadata"]
           if t["type"] == "SIGNEDNESS"][0]
    assert sig["value"] == [True, False, True]  # YEAR takes the first bit
    assert [c.unsigned for c in back.columns] == [True, False, True]


@pytest.mark.parametrize("flavor,version,geometry_is_char,vector_is_char", [
    ("mysql", "8.0.40", False, False),
    ("mysql", "9.0.1", False, True),
    ("mariadb", "10.11.6-MariaDB", True, False),
])
def test_character_columns_by_flavor(flavor, version, geometry_is_char, vector_is_char):
    fl = flavor_for(flavor, version)
    assert fl.is_character("VARCHAR") and fl.is_character("BLOB")
    assert not fl.is_character("STRING", "ENUM") and not fl.is_character("STRING", "SET")
    assert fl.is_character("GEOMETRY") is geometry_is_char
    assert fl.is_character("VECTOR") is vector_is_char


def test_geometry_gets_a_collation_only_on_mariadb():
    cols = [dict(type="GEOMETRY", pack_length=4, geometry_type=1, collation_id=63,
                 nullable=True),
            dict(type="VARCHAR", max_length=40, collation_id=8, nullable=True)]
    maria = _tm(cols, flavor="mariadb", server_version="10.11.6-MariaDB")
    charsets = [t for t in maria.optional_metadata() if "CHARSET" in t["type"]]
    assert charsets[0]["type"] == "COLUMN_CHARSET" and charsets[0]["value"] == [63, 8]
    mysql = _tm(cols, flavor="mysql", server_version="8.0.40")
    charsets = [t for t in mysql.optional_metadata() if "CHARSET" in t["type"]]
    assert charsets[0] == {"type": "DEFAULT_CHARSET", "value": {"default": 8, "pairs": []}}


@pytest.mark.parametrize("collations,kind", [
    ([255], "DEFAULT_CHARSET"),                 # 1 < 1 + 0 is false
    ([8, 255], "COLUMN_CHARSET"),               # 2 < 3
    ([8, 8, 255], "DEFAULT_CHARSET"),           # 3 < 3 is false
    ([8, 8, 255, 63], "COLUMN_CHARSET"),        # half: 4 < 5
    ([8, 8, 8, 63], "DEFAULT_CHARSET"),         # more than half
])
def test_default_vs_column_charset_rule(collations, kind):
    assert _charset_tlv(collations, "")[0] == kind


def test_default_charset_pairs_index_character_columns_only():
    # a tie can never choose DEFAULT_CHARSET (most <= n/2 gives 1 + 2(n - most) > n)
    assert _charset_tlv([8, 255, 255, 8], "")[0] == "COLUMN_CHARSET"
    kind, value = _charset_tlv([8, 255, 8, 8, 8], "ENUM_AND_SET_")
    assert kind == "ENUM_AND_SET_DEFAULT_CHARSET"
    assert value == {"default": 8, "pairs": [{"index": 1, "collation": 255}]}
    cols = [dict(type="LONG", nullable=True), dict(type="VARCHAR", max_length=4,
                                                  collation_id=8, nullable=True),
            dict(type="LONG", nullable=True), dict(type="VARCHAR", max_length=4,
                                                  collation_id=255, nullable=True),
            dict(type="VARCHAR", max_length=4, collation_id=8, nullable=True),
            dict(type="VARCHAR", max_length=4, collation_id=8, nullable=True)]
    tm = _tm(cols, flavor="mysql", server_version="8.0.40", row_metadata="minimal")
    cs = [t for t in tm.optional_metadata() if t["type"] == "DEFAULT_CHARSET"][0]
    assert cs["value"]["pairs"] == [{"index": 1, "collation": 255}]  # 2nd char column, not 4th
    data, back = _roundtrip(tm)
    assert [c.collation_id for c in back.columns] == [None, 8, None, 255, 8, 8]


def test_mysql_and_mariadb_tlv_orders_differ():
    cols = [dict(type="LONG", unsigned=False, nullable=False, name="id"),
            dict(type="STRING", real_type="ENUM", pack_length=1, enum_values=["a"],
                 collation_id=8, nullable=True, name="e"),
            dict(type="GEOMETRY", pack_length=4, geometry_type=0, collation_id=63,
                 nullable=True, name="g"),
            dict(type="VARCHAR", max_length=10, collation_id=8, nullable=True, name="v")]
    pk = [{"column": 0, "prefix": 0}]
    mysql = [t["type"] for t in _tm(cols, flavor="mysql", server_version="8.0.40",
                                    primary_key=pk).optional_metadata()]
    maria = [t["type"] for t in _tm(cols, flavor="mariadb", server_version="10.11.6-MariaDB",
                                    primary_key=pk).optional_metadata()]
    assert mysql == ["SIGNEDNESS", "DEFAULT_CHARSET", "GEOMETRY_TYPE", "COLUMN_NAME",
                     "ENUM_AND_SET_DEFAULT_CHARSET", "ENUM_STR_VALUE", "SIMPLE_PRIMARY_KEY",
                     "COLUMN_VISIBILITY"]
    assert maria == ["SIGNEDNESS", "COLUMN_CHARSET", "GEOMETRY_TYPE", "COLUMN_NAME",
                     "ENUM_AND_SET_DEFAULT_CHARSET", "ENUM_STR_VALUE", "SIMPLE_PRIMARY_KEY"]


def test_minimal_writes_no_names_and_prefix_keys_use_the_prefix_tlv():
    cols = [dict(type="BLOB", pack_length=2, collation_id=8, nullable=False, name="b"),
            dict(type="LONG", unsigned=True, nullable=False, name="i")]
    tm = _tm(cols, flavor="mysql", server_version="8.0.40",
             primary_key=[{"column": 0, "prefix": 10}, {"column": 1, "prefix": 0}])
    kinds = [t["type"] for t in tm.optional_metadata()]
    assert "PRIMARY_KEY_WITH_PREFIX" in kinds and "COLUMN_NAME" in kinds
    tm.row_metadata = "minimal"
    assert [t["type"] for t in tm.optional_metadata()] == ["SIGNEDNESS", "DEFAULT_CHARSET"]
    data, back = _roundtrip(tm)
    assert back.row_metadata == "minimal" and back.columns[0].name is None


def test_enum_members_decode_in_their_charset():
    cols = [dict(type="STRING", real_type="ENUM", pack_length=1, collation_id=8,
                 enum_values=["café", "naïve"], nullable=True, name="e")]
    tm = _tm(cols, flavor="mariadb", server_version="10.11.6-MariaDB")
    data, back = _roundtrip(tm)
    assert b"caf\xe9" in data  # latin1 bytes on the wire
    assert back.columns[0].enum_values == ["café", "naïve"]
    assert back.to_bytes() == data


def test_undecodable_member_falls_back_to_hex_and_rebuilds():
    cols = [dict(type="STRING", real_type="SET", pack_length=1, collation_id=255,
                 set_values=[{"hex": "ff00"}, "ok"], nullable=True, name="s")]
    tm = _tm(cols, flavor="mysql", server_version="8.0.40")
    data, back = _roundtrip(tm)
    assert back.columns[0].set_values == [{"hex": "ff00"}, "ok"]


def test_visibility_and_vector_dimensions():
    cols = [dict(type="LONG", unsigned=False, nullable=False, name="a", visible=True),
            dict(type="VECTOR", pack_length=4, collation_id=63, vector_dimensions=768,
                 nullable=True, name="v", visible=False)]
    tm = _tm(cols, flavor="mysql", server_version="9.0.1")
    data, back = _roundtrip(tm)
    assert [c.visible for c in back.columns] == [True, False]
    assert back.columns[1].vector_dimensions == 768
    assert back.to_dict() == tm.to_dict() | {"header": back.header}


def test_json_dict_round_trip_and_pre_ga_layout():
    tm = _tm([dict(type="LONG"), dict(type="STRING")], layout="pre_ga", row_metadata="none",
             checksum=False, flavor="mysql", server_version="5.1.15")
    data, back = _roundtrip(tm)
    assert data.endswith(b"\x02\x03\xfe")  # ends right after the column types
    assert back.layout == "pre_ga" and back.columns[0].nullable is None
    assert TableMap.from_dict(back.to_dict()).to_bytes() == data


def test_context_carries_the_table_id_width():
    tm = _tm([dict(type="LONG", nullable=True)], table_id_size=4, table_id=0x01020304,
             row_metadata="none")
    data = tm.to_bytes()
    assert data[19:23] == bytes([4, 3, 2, 1]) and data[23:25] == b"\x01\x00"
    with pytest.raises(Exception) as e:
        _tm([dict(type="LONG", nullable=True)], table_id_size=4, table_id=1 << 40,
            row_metadata="none").to_bytes()
    assert e.type.__name__ == "BuildError"
    assert Context(table_id_size=4)["table_id_size"] == 4


def test_a_repeated_table_map_body_is_parsed_once_per_file():
    # servers write the same TABLE_MAP before each transaction: its body is parsed once per
    # context (file) and remembered by its bytes; the header is parsed each time
    tm = _tm([dict(type="LONG", nullable=True), dict(type="VARCHAR", max_length=40,
                                                      nullable=False)])
    first = tm.to_bytes()
    later = _tm([dict(type="LONG", nullable=True), dict(type="VARCHAR", max_length=40,
                                                       nullable=False)],
                header={"timestamp": 99, "type_code": 19, "server_id": 1, "log_pos": 0,
                        "flags": []}).to_bytes()
    assert first[19:-4] == later[19:-4] and first[:19] != later[:19]
    ctx = tm.context()
    a, b = parse_event(first, ctx), parse_event(later, ctx)
    assert a["body"] is b["body"] and a["header"]["timestamp"] == 1
    assert b["header"]["timestamp"] == 99
    other = parse_event(later, tm.context())       # another file: parsed anew, equal
    assert other["body"] is not a["body"] and other["body"] == a["body"]
    changed = _tm([dict(type="LONG", nullable=True)]).to_bytes()
    assert parse_event(changed, ctx)["body"]["column_count"] == 1

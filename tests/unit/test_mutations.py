"""Structure-aware mutations (hypothesis): strategies build VALID events (TABLE_MAP through
the typed model, rows events with real row images through a generated table map, FDE, QUERY
through its declaration), then one length, count or code is replaced at its known offset
(packed integers, event_size, column_count, TLV lengths, metadata lengths, type codes, value
length prefixes, null bits). Every mutant either parses (and then rebuilds byte for byte) or
raises a typed error naming an offset inside the mutant; none takes more than a second nor
grows the process beyond the limits; row images decode or raise typed errors; files with a
mutated event read in recovery mode account for every byte."""

from __future__ import annotations

import decimal
import pathlib
import resource
import sys
import time

import construct as c
import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from binlog_schema import BinlogWriter, Context, build_event, parse_event
from binlog_schema.format.facts.framing import event_crc as _crc
from binlog_schema.format.errors import BinlogError
from binlog_schema.format.facts.flavor import checksum_length
from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.changes.table_map import Column, TableMap
from binlog_schema.format.event_forms import from_plain
from binlog_schema.construct_ext.ints import packed_build, packed_parse
from binlog_schema.format.stream import EventRecord
from binlog_schema.format.values import temporal
from binlog_schema.format.values.rows import RowsCodec
from binlog_schema.synthetic.vector_checks import context_of

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from fuzz import harness  # noqa: E402

LIMITS = {"max_columns": 4096, "max_uncompressed": 1 << 20}
SETTINGS = settings(max_examples=150, deadline=2000, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.filter_too_much])
RSS_GROWTH_MB = 256


@pytest.fixture(autouse=True, scope="module")
def bounded_memory():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    yield
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert after - before < RSS_GROWTH_MB, f"peak RSS grew {after - before:.0f} MiB"


# --------------------------------------------------------------------------- the check


def check_event(data: bytes, ctx: Context):
    """The promise for one input: parse (then rebuild exactly) or a typed error with an
    offset inside it, no crash hidden inside, in under a second of CPU."""
    t0 = time.process_time()
    try:
        value = parse_event(data, ctx)
    except BinlogError as e:
        event(f"refused: {e.kind}")
        assert e.offset is not None and 0 <= e.offset <= len(data), f"{e} (of {len(data)})"
        assert getattr(e, "original", None) is None, f"a crash became {e}: {e.original!r}"
        value = None
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"untyped {type(e).__name__}: {e}") from None
    assert time.process_time() - t0 < 1, "more than a second on one event"
    if value is not None:
        event("parsed")
        size = value["header"]["event_size"]
        assert build_event(value, ctx) == data[:size], "parsed, but does not rebuild"
    return value


# --------------------------------------------------------------------------- mutations

INTERESTING = [0, 1, 2, 18, 19, 250, 251, 252, 255, 256, 0xFFFF, 1 << 16, 1 << 24, 1 << 31,
               (1 << 32) - 1, 1 << 32, 1 << 62, (1 << 64) - 1]


def packed_at(data: bytes, pos: int) -> int:
    """The byte length of the packed integer at ``pos``."""
    b = data[pos]
    return {252: 3, 253: 4, 254: 9}.get(b, 1)


def packed_bytes(n) -> bytes:
    out = _Out()
    packed_build(n, out)
    return out.data


class _Out:
    def __init__(self):
        self.data = b""

    def write(self, b):
        self.data += b


@st.composite
def mutation(draw, fields):
    """One field of ``fields`` ((offset, kind, width)) and what it becomes."""
    offset, kind, width = draw(st.sampled_from(fields))
    if kind == "packed":
        choice = draw(st.one_of(
            st.sampled_from(INTERESTING).map(packed_bytes),
            st.sampled_from([b"\xfb", b"\xff", b"\xfc", b"\xfe\xff", b"\xfc\x05\x00"]),
            st.integers(0, (1 << 64) - 1).map(packed_bytes)))
        return offset, width, choice
    if kind == "code":
        return offset, width, bytes([draw(st.integers(0, 255))])
    value = draw(st.one_of(st.sampled_from(INTERESTING), st.integers(0, (1 << (8 * width)) - 1)))
    return offset, width, (value % (1 << (8 * width))).to_bytes(width, "little")


def apply(data: bytes, ctx: Context, mut, fix_size: bool, fix_crc: bool) -> bytes:
    offset, width, new = mut
    out = bytearray(data[:offset] + new + data[offset + width:])
    if fix_size and len(out) >= 19 and offset != 9:
        out[9:13] = len(out).to_bytes(4, "little")
    if fix_crc:
        out = bytearray(harness.fix_crc(bytes(out), ctx))
    return bytes(out)


def header_fields():
    return [(4, "code", 1), (9, "u", 4), (17, "u", 2)]


# --------------------------------------------------------------------------- TABLE_MAP

TYPES = ["TINY", "LONG", "LONGLONG", "FLOAT", "DOUBLE", "NEWDECIMAL", "YEAR", "DATE",
         "DATETIME2", "TIME2", "TIMESTAMP2", "VARCHAR", "STRING", "ENUM", "SET", "BIT", "BLOB",
         "JSON", "GEOMETRY"]
SERVERS = [("mysql", "8.0.40"), ("mysql", "5.7.44-log"), ("mariadb", "10.11.6-MariaDB"),
           ("mysql", "9.1.0")]
text = st.text(alphabet="abcxyz_é€ж", max_size=12)


@st.composite
def columns(draw, i):
    t = draw(st.sampled_from(TYPES))
    col = Column(index=i, type=t, nullable=draw(st.booleans()), name=draw(text))
    if t in ("TINY", "LONG", "LONGLONG", "FLOAT", "DOUBLE", "NEWDECIMAL", "YEAR"):
        col.unsigned = draw(st.booleans())
    if t in ("FLOAT", "DOUBLE"):
        col.pack_length = 4 if t == "FLOAT" else 8
    if t == "NEWDECIMAL":
        col.precision = draw(st.integers(1, 30))
        col.scale = draw(st.integers(0, min(col.precision, 10)))
    if t in ("DATETIME2", "TIME2", "TIMESTAMP2"):
        col.fsp = draw(st.integers(0, 6))
    if t in ("VARCHAR", "STRING", "BLOB"):
        col.collation_id = draw(st.sampled_from([8, 33, 63, 255]))
        col.max_length = draw(st.sampled_from([10, 255, 256, 1000]))
    if t == "STRING":
        col.real_type = "STRING"
        col.max_length = draw(st.sampled_from([10, 255, 256, 1000]))
    if t in ("ENUM", "SET"):
        col.type, col.real_type = "STRING", t
        col.pack_length = 1 if t == "ENUM" else draw(st.integers(1, 2))
        col.collation_id = 8
        members = draw(st.lists(st.text(alphabet="abc", min_size=1, max_size=3),
                                min_size=1, max_size=8, unique=True))
        setattr(col, "enum_values" if t == "ENUM" else "set_values", members)
    if t == "BIT":
        col.bits = draw(st.integers(1, 64))
    if t in ("BLOB", "JSON", "GEOMETRY"):
        col.pack_length = draw(st.integers(1, 4)) if t == "BLOB" else 4
    if t == "GEOMETRY":
        col.geometry_type = draw(st.integers(0, 7))
    if t == "VARCHAR":
        col.max_length = draw(st.sampled_from([10, 255, 256, 1000]))
    return col


@st.composite
def table_maps(draw, max_columns=8):
    flavor, version = draw(st.sampled_from(SERVERS))
    n = draw(st.integers(1, max_columns))
    cols = [draw(columns(i)) for i in range(n)]
    for col in cols:
        if flavor == "mariadb" and col.type == "GEOMETRY":
            col.collation_id = 63
        if flavor == "mysql" and version >= "8.0.23":
            col.visible = True
    tm = TableMap(table_id=draw(st.integers(1, 1 << 32)), database=draw(text),
                  table=draw(text), columns=cols, flavor=flavor, server_version=version,
                  row_metadata=draw(st.sampled_from(["none", "minimal", "full"])),
                  checksum=draw(st.booleans()), table_id_size=6)
    if tm.row_metadata == "full" and draw(st.booleans()):
        tm.primary_key = [{"column": 0, "prefix": 0}]
    return tm


def table_map_fields(data: bytes, ctx: Context) -> list:
    """(offset, kind, width) of every length, count and code of a TABLE_MAP's bytes."""
    end = len(data) - (4 if ctx.checksum else 0)
    fields = header_fields()
    pos = 19 + ctx.table_id_size + 2
    for _ in range(2):  # database, table: packed length, bytes, NUL
        w = packed_at(data, pos)
        n = packed_parse(_Reader(data, pos))
        fields.append((pos, "packed", w))
        pos += w + n
        fields.append((pos, "code", 1))
        pos += 1
    w = packed_at(data, pos)
    count = packed_parse(_Reader(data, pos))
    fields.append((pos, "packed", w))
    pos += w
    fields += [(pos + i, "code", 1) for i in range(count)]  # column types
    pos += count
    if pos < end:  # metadata block
        w = packed_at(data, pos)
        n = packed_parse(_Reader(data, pos))
        fields.append((pos, "packed", w))
        fields += [(pos + w + i, "code", 1) for i in range(min(n, 8))]
        pos += w + n
    if pos < end:
        fields.append((pos, "code", 1))  # null bits
        pos += (count + 7) // 8
    while pos < end:  # TLVs: type, packed length, value
        fields.append((pos, "code", 1))
        w = packed_at(data, pos + 1)
        n = packed_parse(_Reader(data, pos + 1))
        fields.append((pos + 1, "packed", w))
        if n:
            fields.append((pos + 1 + w, "code", 1))
        pos += 1 + w + n
    return fields


class _Reader:
    def __init__(self, data, pos):
        self.data, self.pos = data, pos

    def read(self, n=-1):
        out = self.data[self.pos:self.pos + n]
        self.pos += len(out)
        return out


@SETTINGS
@given(table_maps(), st.data())
def test_table_map_mutants(tm, data):
    raw = tm.to_bytes()
    ctx = tm.context().replace(**LIMITS)
    assert check_event(raw, ctx) is not None  # the valid event itself
    fields = table_map_fields(raw, ctx)
    mut = data.draw(mutation(fields))
    mutant = apply(raw, ctx, mut, data.draw(st.booleans()), data.draw(st.booleans()))
    value = check_event(mutant, ctx)
    if value is not None and value["header"]["type_code"] == 19:
        from binlog_schema.changes.table_map import table_map_from_event
        again = TableMap.from_dict(table_map_from_event(value, ctx).to_dict()).to_bytes()
        assert again == mutant[:value["header"]["event_size"]], "the model lost a byte"


def test_a_table_map_claiming_a_million_columns_is_refused_quickly():
    tm = TableMap(table_id=1, database="d", table="t", columns=[Column(0, "LONG")],
                  checksum=False)
    raw = tm.to_bytes()
    pos = 19 + 6 + 2 + 2 + 1 + 2 + 1  # the column count of database "d", table "t"
    assert raw[pos] == 1
    mutant = raw[:pos] + packed_bytes(10 ** 6) + raw[pos + 1:]
    t0 = time.process_time()
    with pytest.raises(BinlogError) as e:
        parse_event(mutant[:9] + len(mutant).to_bytes(4, "little") + mutant[13:],
                    Context(checksum=False))
    assert e.value.kind == "limit" and e.value.offset == pos
    assert time.process_time() - t0 < 0.5


# --------------------------------------------------------------------------- rows events


def values_for(col, flavor):
    t = col.kind
    if t in ("TINY", "LONG", "LONGLONG"):
        bits = {"TINY": 8, "LONG": 32, "LONGLONG": 64}[t]
        return (st.integers(0, (1 << bits) - 1) if col.unsigned
                else st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1))
    if t == "FLOAT":
        return st.floats(width=32, allow_nan=False)
    if t == "DOUBLE":
        return st.floats(allow_nan=False)
    if t == "NEWDECIMAL":
        ints = col.precision - col.scale
        return st.integers(-(10 ** col.precision) + 1, 10 ** col.precision - 1).map(
            lambda n: decimal.Decimal(n).scaleb(-col.scale)) if ints >= 0 else st.none()
    if t == "YEAR":
        return st.sampled_from([0, 1901, 2000, 2155])
    if t == "DATE":
        return st.builds(temporal.Date, st.integers(0, 9999), st.integers(0, 12),
                         st.integers(0, 31))
    if t == "DATETIME2":
        unit = 10 ** (6 - col.fsp)
        return st.builds(temporal.DateTime, st.integers(0, 9999), st.integers(0, 12),
                         st.integers(0, 31), st.integers(0, 23), st.integers(0, 59),
                         st.integers(0, 59), st.integers(0, 10 ** col.fsp - 1).map(
                             lambda k: k * unit))
    if t == "TIME2":
        unit = 10 ** (6 - col.fsp)
        return st.builds(temporal.Time, st.just(False), st.integers(0, 838),
                         st.integers(0, 59), st.integers(0, 59),
                         st.integers(0, 10 ** col.fsp - 1).map(lambda k: k * unit))
    if t == "TIMESTAMP2":
        unit = 10 ** (6 - col.fsp)
        return st.builds(temporal.Timestamp, st.integers(1, (1 << 31) - 1),
                         st.integers(0, 10 ** col.fsp - 1).map(lambda k: k * unit))
    if t in ("VARCHAR", "STRING", "BLOB"):
        if col.collation_id == 63:
            return st.binary(max_size=20)
        return st.text(alphabet="ab é" if col.collation_id == 8 else "ab é€ж", max_size=10)
    if t == "ENUM":
        from binlog_schema.format.values.codecs import EnumValue
        return st.integers(1, len(col.enum_values)).map(
            lambda i: EnumValue(i, col.enum_values[i - 1]))
    if t == "SET":
        from binlog_schema.format.values.codecs import SetValue
        return st.integers(0, (1 << len(col.set_values)) - 1).map(
            lambda b: SetValue(b, tuple(m for k, m in enumerate(col.set_values) if b >> k & 1)))
    if t == "BIT":
        return st.integers(0, (1 << col.bits) - 1)
    if t == "JSON" and flavor == "mariadb":  # a BLOB of text there
        return text
    if t == "JSON":
        return st.recursive(st.none() | st.booleans() | st.integers(-1000, 1000) | text,
                            lambda inner: st.lists(inner, max_size=3)
                            | st.dictionaries(text, inner, max_size=3), max_leaves=6)
    if t == "GEOMETRY":
        from binlog_schema.format.values.codecs import Geometry
        return st.builds(Geometry, st.integers(0, 4326), st.binary(max_size=21))
    raise AssertionError(t)


ROWS_KINDS = {30: "insert", 31: "update", 32: "delete", 23: "insert", 24: "update",
              25: "delete"}


@st.composite
def rows_events(draw):
    tm = draw(table_maps(max_columns=6))
    if tm.row_metadata == "none":
        tm.row_metadata = "minimal"
    kind = draw(st.sampled_from(sorted(ROWS_KINDS)))
    n = len(tm.columns)
    image = st.fixed_dictionaries({
        i: (st.none() | values_for(col, tm.flavor)) if col.nullable
        else values_for(col, tm.flavor) for i, col in enumerate(tm.columns)})
    update = ROWS_KINDS[kind] == "update"
    rows = draw(st.lists(st.tuples(image, image) if update else image, min_size=1, max_size=3))
    body = {"table_id": tm.table_id, "flags": ["STMT_END"], "column_count": n,
            "columns_present": [True] * n}
    if kind >= 30:
        body["extra_data"] = []
    if update:
        body["columns_after"] = [True] * n
    return tm, kind, body, rows


def rows_fields(tm, kind, body, rows, data, ctx):
    """Header, post-header and row-image fields of a rows event's bytes: extra-data length,
    column count, bitmaps, each image's null bitmap and each value's length prefix."""
    fields = header_fields()
    pos = 19 + ctx.table_id_size + 2
    if kind >= 30:
        fields.append((pos, "u", 2))
        pos += 2
    fields.append((pos, "packed", packed_at(data, pos)))
    n = len(tm.columns)
    pos += packed_at(data, pos)
    nb = (n + 7) // 8
    fields.append((pos, "code", 1))
    pos += nb
    if "columns_after" in body:
        fields.append((pos, "code", 1))
        pos += nb
    codec = RowsCodec(tm)
    prefix = {"VARCHAR": lambda c: 1 if c.max_length < 256 else 2,
              "STRING": lambda c: 1 if c.max_length < 256 else 2,
              "BLOB": lambda c: c.pack_length, "JSON": lambda c: c.pack_length,
              "GEOMETRY": lambda c: c.pack_length}
    for row in rows:
        for img in (row if isinstance(row, tuple) else (row,)):
            fields.append((pos, "code", 1))  # null bits
            pos += nb
            for i, col in enumerate(tm.columns):
                v = img.get(i)
                if v is None:
                    continue
                one = bytearray()
                codec.codecs[i].build(v, one)
                if col.kind in prefix:
                    fields.append((pos, "u", prefix[col.kind](col)))
                pos += len(one)
    return fields


@SETTINGS
@given(rows_events(), st.data())
def test_rows_event_mutants(event, data):
    tm, kind, body, rows = event
    tm_raw = tm.to_bytes()
    codec = RowsCodec(tm)
    try:
        raw_rows = codec.encode(rows, body, kind)
    except c.ConstructError:
        event("rows refused by the codecs")
        return  # a value its column cannot hold (documented refusal)
    ctx = tm.context().replace(**LIMITS)
    value = {"header": {"timestamp": 1, "type_code": kind, "server_id": 1, "log_pos": None,
                        "flags": []}, "body": {**body, "rows": raw_rows}}
    raw = build_event(value, ctx)
    check_event(raw, ctx)
    mut = data.draw(mutation(rows_fields(tm, kind, body, rows, raw, ctx)))
    mutant = apply(raw, ctx, mut, data.draw(st.booleans()), data.draw(st.booleans()))
    parsed = check_event(mutant, ctx)
    if parsed is None or parsed["header"]["type_code"] != kind:
        return
    decoder = RowDecoder()
    decoder.feed(EventRecord(0, tm_raw, ctx, parse_event(tm_raw, ctx)))
    rec = EventRecord(len(tm_raw), mutant, ctx, parsed)
    try:
        changes = decoder.feed(rec)
    except BinlogError as e:
        assert getattr(e, "original", None) is None, f"a crash became {e}: {e.original!r}"
        assert e.offset is not None
        return
    assert all(ch.operation == ROWS_KINDS[kind] for ch in changes)
    again = decoder.encode_rows(rec, decoder.rows_of(rec)[0])
    assert again == bytes(parsed["body"]["rows"]), "decoded rows do not rebuild"


# --------------------------------------------------------------------------- FDE and files

FDE_VERSIONS = ["8.0.40", "5.7.44-log", "10.11.6-MariaDB-log", "5.1.73", "5.6.0"]


@st.composite
def fde_events(draw):
    version = draw(st.sampled_from(FDE_VERSIONS))
    body = {"binlog_version": 4, "server_version": version,
            "create_timestamp": draw(st.integers(0, (1 << 32) - 1)), "header_length": 19,
            "post_header_lengths": draw(st.lists(st.integers(0, 255), min_size=19,
                                                 max_size=41)),
            "checksum_alg": draw(st.sampled_from([0, 1]))}
    if version in ("5.1.73", "5.6.0"):
        body["checksum_alg"] = None
    return {"header": {"timestamp": 1, "type_code": 15, "server_id": 1, "log_pos": None,
                       "flags": draw(st.sampled_from([[], ["BINLOG_IN_USE"]]))},
            "body": body}


@SETTINGS
@given(fde_events(), st.data())
def test_fde_mutants(fde, data):
    ctx = Context(**LIMITS)
    raw = build_event(fde, ctx)
    check_event(raw, ctx)
    fields = header_fields() + [(19, "u", 2), (19 + 2 + 50 + 4, "code", 1),
                                (19 + 2, "code", 1), (19 + 2 + 4, "code", 1),
                                (len(raw) - 5, "code", 1)]
    mut = data.draw(mutation(fields))
    check_event(apply(raw, ctx, mut, data.draw(st.booleans()), data.draw(st.booleans())), ctx)


@SETTINGS
@given(fde_events(), st.lists(table_maps(max_columns=4), min_size=2, max_size=4), st.data())
def test_file_with_a_mutated_event(fde, maps, data):
    """A file (FDE, TABLE_MAPs) with one event's length, count or code changed: read with
    skip_errors and in recovery mode, every record is typed and recovery accounts for every
    byte of the file (the stream target's checks)."""
    import io
    out = io.BytesIO()
    w = BinlogWriter(out)
    w.write(fde)
    offsets = []
    for tm in maps:
        ev = tm.to_event()
        offsets.append(w.pos)
        w.write(ev)
    fdata = out.getvalue()
    k = data.draw(st.integers(0, len(offsets) - 1))
    start = offsets[k]
    end = offsets[k + 1] if k + 1 < len(offsets) else len(fdata)
    ctx = Context(checksum=fde["body"]["checksum_alg"] == 1, **LIMITS)
    event = fdata[start:end]
    mut = data.draw(mutation(table_map_fields(event, ctx)))
    mutated = apply(event, ctx, mut, data.draw(st.booleans()), data.draw(st.booleans()))
    harness.stream(fdata[:start] + mutated + fdata[end:])


# --------------------------------------------------------------------------- QUERY


def _query_vectors():
    path = ROOT / "specs" / "events" / "query.yaml"
    if not path.exists():
        return []
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    docs = [d for d in yaml.load_all(path.read_text(encoding="utf-8"), Loader=loader)
            if d and "expect" in d and d["expect"]["header"]["type_code"] == 2]
    out = [(from_plain(d["expect"]), context_of(d)) for d in docs]
    return [(v, ctx) for v, ctx in out if isinstance(v["body"], dict)]  # not raw bodies


QUERIES = _query_vectors()


@pytest.mark.skipif(not QUERIES, reason="no QUERY vectors in specs/events/query.yaml")
@SETTINGS
@given(st.sampled_from(QUERIES or [None]), st.text(max_size=40), text, st.data())
def test_query_mutants(base, query, database, data):
    """QUERY events built through their declaration with generated text; then the database
    length, error code, status-variable block length or a status-variable code changed."""
    value, ctx = base
    value = {"header": dict(value["header"], log_pos=None),
             "body": dict(value["body"], query=query, database=database)}
    ctx = ctx.replace(**LIMITS)
    raw = build_event(value, ctx)
    check_event(raw, ctx)
    fields = header_fields() + [(19 + 8, "code", 1), (19 + 9, "u", 2), (19 + 11, "u", 2)]
    if len(raw) > 19 + 14:
        fields.append((19 + 13, "code", 1))
    mut = data.draw(mutation(fields))
    check_event(apply(raw, ctx, mut, data.draw(st.booleans()), data.draw(st.booleans())), ctx)


def test_checksum_helpers_agree():
    """fix_crc (used by the mutations) makes the CRC the envelope verifies."""
    ctx = Context()
    raw = TableMap(table_id=1, database="d", table="t", columns=[Column(0, "LONG")]).to_bytes()
    broken = raw[:-4] + b"\0\0\0\0"
    assert harness.fix_crc(broken, ctx) == raw
    assert checksum_length(19, raw[19:], ctx) == 4
    assert _crc(raw[:19], raw[19:-4]).to_bytes(4, "little") == raw[-4:]

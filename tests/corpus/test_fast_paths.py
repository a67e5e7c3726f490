"""The fast paths say what the reference paths say.

Every fast path of the commands (compiled declarations loaded from the disk cache, JSON lines
written by parts with kept bodies, row images compiled per table shape, rows written as JSON
straight from their bytes, the argument scan) has a slower reference it must agree with: the
interpreted declaration, ``json.dumps`` of the JSON-safe forms, the codecs one by one,
argparse. These tests compare them over the whole corpus."""

import io
import json
import os
import subprocess
import sys

import pytest

from binlog_schema.cli.fast import fast_args
from binlog_schema.cli.parser import build_parser
from binlog_schema.format.event_codec import parse_event
from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.format.facts.codes import GTID_KINDS, ROWS_KINDS, TABLE_MAP_EVENT
from binlog_schema.output import jsonl
from binlog_schema.format.event_forms import to_plain
from binlog_schema.output.row_images import images_json, rows_json_direct, rows_text
from binlog_schema.format.forms.json_safe import jsonable
from binlog_schema.output.write import Output, write_events, write_table_maps
from binlog_schema.format.stream import BinlogReader
from binlog_schema.format.values import rows as rows_module
from binlog_schema.format.values.row_count import row_spans

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _reference_line(path, rec, decoder=None, binary="hex"):
    """The line the first release wrote: the JSON-safe form of the record, json.dumps."""
    d = jsonl.event_dict(path, rec)
    if decoder is not None and rec.kind in ROWS_KINDS and rec.error is None and \
            rec.value is not None:
        try:
            decoded, _ = decoder.rows_of(rec)
        except Exception as e:  # noqa: BLE001 - (a BinlogError)
            d["rows_error"] = e.to_dict()
        else:
            def image(img):
                return {k: jsonable(v, binary) for k, v in img.items()
                        if not k.startswith("_")}
            d["rows"] = [{"before": image(x[0]), "after": image(x[1])}
                         if isinstance(x, tuple) else image(x) for x in decoded]
    return json.dumps(to_plain(d), ensure_ascii=False, separators=(",", ":"), default=str)


def _reference(path, rows=False, binary="hex"):
    decoder = RowDecoder(path) if rows else None
    out = []
    for rec in BinlogReader(path, skip_errors=True):
        for r in [rec] + list(rec.inner or ()):
            if decoder is not None and r.kind in (TABLE_MAP_EVENT, 33, 42, 162) and \
                    r.value is not None:
                decoder.feed_one(r)
            out.append(_reference_line(path, r, decoder, binary))
    return out


def _written(path, **options):
    buf = io.StringIO()
    out = Output(buf)
    write_events(path, out, skip_errors=True, err=io.StringIO(), **options)
    out.flush()
    return buf.getvalue().splitlines()


def test_json_lines_equal_the_json_safe_forms_dumped(corpus):
    """decode's lines, written by parts (kept bodies, leading fields of rows events, the
    header template), are json.dumps of the JSON-safe forms, for every corpus event."""
    n = 0
    for path in corpus:
        got, want = _written(str(path)), _reference(str(path))
        assert got == want, path
        n += len(got)
    assert n > 7800


def test_json_lines_with_rows_equal_the_json_safe_forms_dumped(corpus):
    n = 0
    for path in corpus:
        for binary in ("hex", "base64"):
            got = _written(str(path), rows=True, binary=binary)
            want = _reference(str(path), rows=True, binary=binary)
            assert got == want, (path, binary)
        n += len(got)
    assert n > 7800


def test_table_map_lines_equal_the_model_dumped(corpus):
    for path in corpus:
        buf = io.StringIO()
        out = Output(buf)
        write_table_maps(str(path), out, err=io.StringIO())
        out.flush()
        want = [json.dumps(jsonl.table_map_dict(str(path), r), ensure_ascii=False,
                           separators=(",", ":"), default=str)
                for rec in BinlogReader(path, skip_errors=True)
                for r in [rec] + list(rec.inner or ()) if r.kind == TABLE_MAP_EVENT
                and r.error is None]
        assert buf.getvalue().splitlines() == want, path


def test_the_json_direction_gives_the_encoders_text_of_the_parse(corpus):
    """The compiled JSON direction (header and body text straight from the bytes) writes
    exactly what the encoder writes for what the compiled parse gives, for every corpus
    event, and never has to hand over to the parse on an event that parses."""
    from binlog_schema.construct_ext.jsontext import dumps, object_json
    from binlog_schema.format.event_codec import event_json, fast_json, params_of
    header_json = fast_json()[0]
    n = 0
    for path in corpus:
        for rec in BinlogReader(path, skip_errors=True):
            for r in [rec] + list(rec.inner or ()):
                if r.value is None:
                    continue
                value = parse_event(r.raw, r.ctx, r.offset)
                text = event_json(r.raw, r.ctx)
                assert text is not None, (path, r.offset)
                assert text["body"] == object_json(value["body"]), (path, r.offset)
                assert text["header"] == dumps(value["header"]), (path, r.offset)
                assert {k: v for k, v in text.items() if k not in ("header", "body")} == \
                    {k: v for k, v in value.items() if k not in ("header", "body")}
                assert header_json(io.BytesIO(r.raw), {"_params": params_of(r.ctx)}) == \
                    dumps(value["header"]), (path, r.offset)
                n += 1
    assert n > 7800


def test_the_json_direction_of_a_struct_covers_every_kind_of_field():
    """A struct's JSON text equals the encoder's text of its parse for each kind of field the
    JSON direction writes its own way: ints in a fixed run and alone, flags and UUIDs from
    their unpacked bytes, optional fields present and absent, a nested struct, bytes, text
    with characters to escape, a name with a percent sign, a flagged pair with and without
    its second int."""
    import construct as c
    from binlog_schema.construct_ext import primitives as p
    from binlog_schema.construct_ext.codegen import module_source
    from binlog_schema.construct_ext.jsontext import dumps
    from binlog_schema.format.facts.names import EVENT_FLAGS
    decl = p.Struct(
        "a" / c.Int32ul, "flags" / p.FlagList(2, EVENT_FLAGS), "sid" / p.Uuid,
        "n%d" / c.Int8sl,
        "when" / c.If(c.this.a == 1, c.Int8ul),
        "inner" / p.Struct("x" / c.Int16ul, "t" / p.SizedText(1)),
        "f" / c.Float64l,
        "raw" / c.Bytes(3),
        "pair" / p.FlaggedPair(2, 15),
        "opt" / p.IfMore(c.Int16ul))
    ns: dict = {}
    exec(compile(module_source(decl, construct_free=False, parts=("parse", "json")), "t",
                 "exec"), ns)
    common = bytes(range(16)) + b"\xff"
    inner = b"\x02\x00" + b"\x04" + 'a"\u00e9'.encode()
    samples = [
        b"\x01\0\0\0" + b"\x41\x00" + common + b"\x07" + inner + b"\0" * 8 + b"abc"
        + b"\x01\x80\x02\x00" + b"\x05\x00",
        b"\x02\0\0\0" + b"\x00\x00" + common + inner + b"\x01" * 8 + b"\x00\x01\x02"
        + b"\x01\x00",
    ]
    seen = set()
    for data in samples:
        value = ns["parse"](io.BytesIO(data), {"_params": {}})
        seen.add((value["when"] is None, value["opt"] is None, value["pair"]["original"]))
        assert ns["json"](io.BytesIO(data), {"_params": {}}) == dumps(value)
    assert seen == {(False, False, 2), (True, True, None)}


def test_compiled_row_images_agree_with_the_codecs(corpus):
    """Row images read by code compiled per table shape equal the codecs' reading, the
    rows written as JSON straight from the bytes equal the typed rows' JSON, and the images'
    bounds walked without their values (flashback's) equal the codecs'."""
    before = dict(rows_module.FALLBACKS)
    rows = direct = 0
    for path in corpus:
        decoder = RowDecoder(str(path))
        for rec in BinlogReader(path, skip_errors=True):
            for r in [rec] + list(rec.inner or ()):
                if r.value is None:
                    continue
                if r.kind == TABLE_MAP_EVENT or r.kind in GTID_KINDS:
                    decoder.feed_one(r)
                    continue
                if r.kind not in ROWS_KINDS or decoder.codec_of(r) is None:
                    continue
                codec = decoder.codec_of(r)
                body = r.value["body"]
                data = body["rows"]["data"] if isinstance(body["rows"], dict) else body["rows"]
                spans: list = []
                try:
                    reference = codec.decode(body, r.kind, compiled=False, spans=spans)
                except Exception:  # noqa: BLE001 - bad rows: both must refuse them
                    with pytest.raises(Exception):  # noqa: B017 - as the reference: any
                        codec.decode(body, r.kind, compiled=True)
                    with pytest.raises(Exception):  # noqa: B017 - the walk without values
                        row_spans(codec, body, r.kind, data)
                    continue
                # (flashback's walk: the images' bounds, their values passed over)
                assert row_spans(codec, body, r.kind, data) == spans
                assert row_spans(codec, body, r.kind, data, verified=True) == spans
                if r.kind != 39:
                    assert codec.decode(body, r.kind, compiled=True) == reference
                assert codec.decode(body, r.kind) == reference
                rows += len(reference)
                try:
                    text = rows_json_direct(codec, body, r.kind)
                except ValueError:  # (partial updates, NaNs: the typed path's)
                    continue
                assert text == rows_text(reference, images_json(codec, "hex"))
                direct += 1
    assert rows_module.FALLBACKS == before
    assert rows > 50000 and direct > 2000


@pytest.mark.parametrize("argv", [
    ["decode", "f1", "f2", "--rows"], ["decode", "--start-position", "4", "--types=TABLE_MAP",
                                       "f"],
    ["decode", "--format", "text", "f", "--skip-errors", "--binary", "base64"],
    ["table-maps", "a"], ["roundtrip", "--no-rows", "x", "y"], ["validate"], ["validate", "d"],
    ["build-table-map"], ["decode", "-", "--rows"], ["fixtures", "x"],
    ["fixtures", "--random", "--seed", "3", "-o", "d"], ["flashback", "-o", "out", "f"],
    ["stream", "--port", "3307", "--rows", "--table", "a.b", "--heartbeat", "5"],
    ["serve", "d", "--port", "0", "--server-id", "7"],
    ["stats", "f", "--top", "3", "--max-event-size", "1k"]])
def test_fast_argument_scan_agrees_with_argparse(argv):
    fast = fast_args(argv)
    assert fast is not None
    assert vars(fast) == vars(build_parser().parse_args(argv))


@pytest.mark.parametrize("argv", [
    ["decode", "--start", "4", "f"], ["decode", "f", "--format", "xml"], ["decode"],
    ["decode", "--start-position", "-3", "f"], ["decode", "--help"], ["nope"], [],
    ["flashback", "f"], ["serve", "d"],   # (a required option missing: argparse says so)
    ["spark", "decode", "x", "--out", "o"]])   # (sub-commands: argparse)
def test_unusual_command_lines_are_left_to_argparse(argv):
    assert fast_args(argv) is None


def _run(code, env=None):
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=120)


def test_decoding_imports_neither_construct_nor_dataclasses(corpus, tmp_path):
    """A command that decodes loads the compiled declarations from the cache: construct (and
    the heavy standard modules) are imported only to compile them the first time."""
    path = str(next(p for p in corpus if p.name == "binlog.000693"))
    code = ("import sys, io\n"
            "from binlog_schema.output.write import Output, write_events\n"
            f"write_events({path!r}, Output(io.StringIO()), rows=True)\n"
            "print(sorted(m for m in ('construct', 'dataclasses', 'argparse', 'json') "
            "if m in sys.modules))")
    env = {"BINLOG_SCHEMA_CACHE": str(tmp_path)}
    first = _run(code, env)
    assert first.returncode == 0, first.stderr
    assert "construct" in first.stdout  # compiled and stored...
    assert any(name.endswith(".bin") for name in os.listdir(tmp_path))
    again = _run(code, env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "[]"  # ...then loaded without construct


def test_without_a_cache_folder_the_declarations_compile_in_memory(corpus):
    path = str(corpus[0])
    code = ("from binlog_schema.format.stream import BinlogReader\n"
            "from binlog_schema.construct_ext import cache\n"
            f"n = sum(1 for _ in BinlogReader({path!r}))\n"
            "print(n, sorted(set(cache.ORIGIN.values())))")
    r = _run(code, {"BINLOG_SCHEMA_CACHE": "off"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[1:] == ["['memory']"]


def test_a_damaged_cache_file_is_compiled_anew(tmp_path, corpus):
    path = str(corpus[0])
    code = ("from binlog_schema.format.stream import BinlogReader\n"
            "from binlog_schema.construct_ext import cache\n"
            f"n = sum(1 for _ in BinlogReader({path!r}))\n"
            "print(n, cache.ORIGIN['header.parse'])")
    env = {"BINLOG_SCHEMA_CACHE": str(tmp_path)}
    first = _run(code, env)
    assert first.stdout.split()[1] == "compiled"
    for name in os.listdir(tmp_path):
        if name.startswith("header.parse-") and name.endswith(".bin"):
            with open(tmp_path / name, "wb") as f:
                f.write(b"not bytecode")
    again = _run(code, env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == [first.stdout.split()[0], "compiled"]


def test_generated_code_imports_only_construct_free_modules():
    """Every module generated code may import is importable without construct."""
    from binlog_schema.construct_ext.codegen import CONSTRUCT_FREE
    modules = [m for m in CONSTRUCT_FREE if not m.endswith(".")] + [
        "binlog_schema.format.facts." + n for n in ("codes", "names", "coltypes", "flavor",
                                             "framing", "post_header", "column_metadata",
                                             "compression")]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + \
        "print('construct' in sys.modules)"
    r = _run(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_a_reference_to_a_module_with_construct_is_refused():
    import construct as c
    from binlog_schema.construct_ext.codegen import module_source
    from binlog_schema.construct_ext.primitives import Leaf

    def parse(io):  # defined in this test module, which imports construct
        return io.read(1)

    def build(obj, io):
        io.write(obj)
    with pytest.raises(ValueError, match="do not import construct"):
        module_source(c.Struct("x" / Leaf(parse, build)))


def fields_of(value):
    from binlog_schema.format.records import fields
    return [getattr(value, f) for f in fields(type(value))]


def test_records_are_small_classes_with_value_semantics():
    import pickle
    from binlog_schema.format.records import factory, fields, record

    @record(frozen=True)
    class Point:
        x: int
        y: int = 0

    @record
    class Bag:
        name: str
        items: list = factory(list)

    p = Point(1)
    assert p == Point(1, 0) and hash(p) == hash(Point(1, 0)) and p != Point(2)
    assert repr(p) == "Point(x=1, y=0)" and fields(Point) == ("x", "y")
    with pytest.raises(AttributeError):
        p.x = 3
    from binlog_schema.format.values.temporal import DateTime
    d = DateTime(2026, 11, 23, 1, 2, 3, 4)
    assert pickle.loads(pickle.dumps(d)) == d and hash(d) == hash(DateTime(*fields_of(d)))
    a, b = Bag("a"), Bag("b")
    a.items.append(1)
    assert b.items == [] and a.items == [1]
    a.name = "c"
    assert a == Bag("c", [1])

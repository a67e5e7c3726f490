"""Fuzz targets for binlog_schema: plain functions ``target(data: bytes)``, usable with
atheris (``fuzz/run.py``) and in-process (``tests/unit/test_fuzz_smoke.py``).

A target returns normally when the package behaved: the input decoded (and every property
held), or the package raised its typed error (:class:`BinlogError`; construct's errors where
the API documents them: the row codecs). Anything else raises :class:`Finding`:

* an exception outside that family, or one *converted* into a typed error (a ``TypeError``,
  ``IndexError``, ``MemoryError``... caught by ``parse_event`` and re-raised as FormatError
  still is a crash: the typed error's ``__context__`` gives it away);
* a typed error whose offset lies outside the input;
* a broken property (parse then build not giving back the bytes, compiled and interpreted
  parsers disagreeing, records of a stream not covering the file);
* more than ``FUZZ_TIME_LIMIT`` (1 s) of CPU on one input (a ``ITIMER_VIRTUAL`` timer: CPU
  time, so a busy machine does not make false hangs), or a peak RSS above
  ``FUZZ_RSS_LIMIT_MB`` (1024).

:class:`Finding`, the checks that make one and the server versions the contexts vary over are
in :mod:`fuzz.common` (shared with :mod:`fuzz.gen`, the typed values of the build target).

Contexts the targets use have small limits (``LIMITS``: 16 MiB decompressed, 16 MiB events,
4096 columns), so "no allocation over the configured limits" is checkable with a 1 GiB RSS
ceiling.
"""

from __future__ import annotations

import io as _io
import json
import os
import pathlib
import resource
import signal
import zlib

import construct as c

from binlog_schema.construct_ext.errors import LayoutError

from binlog_schema.format.context import Context
from binlog_schema.format.compiled import unit
from binlog_schema.format.event_codec import build_event, frame_event, parse_event, type_name
from binlog_schema.format.events.envelope import Event
from binlog_schema.format.facts.framing import event_crc as _crc
from binlog_schema.format.errors import BinlogError, BuildError
from binlog_schema.format.facts.codes import (
    DELETE_ROWS_COMPRESSED_EVENT, DELETE_ROWS_COMPRESSED_EVENT_V1, DELETE_ROWS_EVENT,
    DELETE_ROWS_EVENT_V1, FORMAT_DESCRIPTION_EVENT, PARTIAL_UPDATE_ROWS_EVENT,
    PRE_GA_DELETE_ROWS_EVENT, PRE_GA_UPDATE_ROWS_EVENT, PRE_GA_WRITE_ROWS_EVENT, START_EVENT_V3,
    TABLE_MAP_EVENT,
    UPDATE_ROWS_COMPRESSED_EVENT, UPDATE_ROWS_COMPRESSED_EVENT_V1, UPDATE_ROWS_EVENT,
    UPDATE_ROWS_EVENT_V1, WRITE_ROWS_COMPRESSED_EVENT, WRITE_ROWS_COMPRESSED_EVENT_V1,
    WRITE_ROWS_EVENT, WRITE_ROWS_EVENT_V1)
from binlog_schema.format.facts.flavor import checksum_length, flavor_name_of, version_numbers
from binlog_schema.format.facts.framing import HEADER_SIZE
from binlog_schema.format.event_forms import first_difference, to_plain
from binlog_schema.construct_ext.streams import TrackingIO

from .common import VERSIONS, Finding, Hang, byte_difference as _diff, check_typed, untyped

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = pathlib.Path(os.environ.get("BINLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
SPECS = ROOT / "specs"
TIME_LIMIT = float(os.environ.get("FUZZ_TIME_LIMIT", "1"))
RSS_LIMIT_MB = int(os.environ.get("FUZZ_RSS_LIMIT_MB", "1024"))
LIMITS = {"max_uncompressed": 16 << 20, "max_columns": 4096}
MAX_EVENT_SIZE = 16 << 20
MAGIC = b"\xfebin"


# Findings in files this campaign may not change (owned by other work in progress), reported
# with a reproducer; suppressed so that the campaign goes on past them (FUZZ_STRICT=1: not).
# The first input of each is appended to $FUZZ_KNOWN_LOG.
KNOWN: dict = {}  # all reported findings are fixed (tests/unit/test_fuzz_smoke.py keeps them)
# Fixed since they were reported: format/values/codecs.py FLOAT and VECTOR signalling NaNs
# quieted, ENUM/SET OverflowError; format/events/query.py ROWS_QUERY length byte recomputed.
KNOWN_SEEN: dict = {}
STRICT = os.environ.get("FUZZ_STRICT") == "1"


def _known(f: Finding, data: bytes) -> bool:
    if STRICT or f.key not in KNOWN:
        return False
    first = f.key not in KNOWN_SEEN
    KNOWN_SEEN[f.key] = KNOWN_SEEN.get(f.key, 0) + 1
    log = os.environ.get("FUZZ_KNOWN_LOG")
    if first and log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{f.key}\t{f}\t{data[:4096].hex()}\n")
    return True


# ------------------------------------------------------------------------------- guards


def _on_timer(signum, frame):
    raise Hang(f"more than {TIME_LIMIT} s of CPU on one input")


_installed = False


def _install():
    global _installed
    if not _installed:
        signal.signal(signal.SIGVTALRM, _on_timer)
        _installed = True


def peak_rss_mb() -> float:
    """This process's peak resident memory, MiB: Linux's VmHWM (the high-water mark of its own
    memory since its exec), else getrusage's ru_maxrss (which Linux carries over an exec: a
    process started by a large one, such as a test run, would start at its parent's size)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def guarded(target):
    """``target`` with the per-input CPU limit and the RSS ceiling; a hang becomes a
    Finding (an ordinary exception, so atheris reports it with the input)."""
    def run(data: bytes):
        _install()
        before = peak_rss_mb()
        signal.setitimer(signal.ITIMER_VIRTUAL, TIME_LIMIT)
        try:
            target(data)
        except Hang as e:
            raise Finding(f"hang: {e}") from None
        except Finding as f:
            if not _known(f, data):
                raise
        finally:
            signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        # (the high-water mark this input raised past the limit: in a process that was
        # already past it, such as a test run's, only an input that raises it further)
        if peak_rss_mb() > max(before, RSS_LIMIT_MB):
            raise Finding(f"peak RSS {peak_rss_mb():.0f} MiB over the {RSS_LIMIT_MB} MiB limit")
    run.__name__ = target.__name__
    run.__wrapped__ = target
    return run


_CONSTRUCT_OK = (c.ConstructError, LayoutError, BinlogError)


# ------------------------------------------------------------------------------- contexts

def _make_variant(b: int) -> Context:
    version = VERSIONS[(b >> 2) % len(VERSIONS)]
    return Context(checksum=bool(b & 1), table_id_size=4 if b & 2 else 6,
                   server_version=version, flavor=flavor_name_of(version), **LIMITS)


VARIANTS = [_make_variant(b) for b in range(256)]


def variant(b: int) -> Context:
    """One byte to a context: checksum on/off (bit 0), 4/6-byte table ids (bit 1), the server
    (bits 2-4: MySQL 5.1-9.1, MariaDB 10.11/11.8, which also sets the flavor)."""
    return VARIANTS[b]


def variant_byte(ctx: Context) -> int:
    """The variant closest to a context read from a file (for seeds)."""
    v = ctx.server_version or VERSIONS[0]
    flavor = flavor_name_of(v)
    best = next((i for i, cand in enumerate(VERSIONS) if flavor_name_of(cand) == flavor and (
        flavor == "mariadb" or version_numbers(cand)[:2] == version_numbers(v)[:2])), 0)
    return (1 if ctx.checksum else 0) | (2 if ctx.table_id_size == 4 else 0) | (best << 2)


def fix_crc(data: bytes, ctx: Context) -> bytes:
    """The input with a valid CRC32 where its header says the event ends, so that mutations
    reach the body instead of stopping at the checksum (the stream target keeps bad CRCs)."""
    if len(data) < HEADER_SIZE:
        return data
    size = int.from_bytes(data[9:13], "little")
    if not HEADER_SIZE + 4 <= size <= len(data):
        return data
    if not checksum_length(ctx.kind(data[4]), data[HEADER_SIZE:size], ctx):
        return data
    crc = _crc(data[:HEADER_SIZE], data[HEADER_SIZE:size - 4]).to_bytes(4, "little")
    return data[:size - 4] + crc + data[size:]


def make_event(code: int, body: bytes, ctx: Context, ts: int = 0x65535300) -> bytes:
    """Header (type ``code``, event_size and log_pos computed), body, CRC32 when the context
    has checksums."""
    return frame_event({"type_code": code, "timestamp": ts, "server_id": 1000}, body, ctx)


# ------------------------------------------------------------------------------- (a) event


def _interpreted(data: bytes, ctx: Context):
    return Event.parse_stream(TrackingIO(data, base=0), ctx=ctx)


def _compiled(data: bytes, ctx: Context):
    root = {"ctx": ctx}
    root["_params"] = root
    return unit("event")["parse"](_io.BytesIO(data), root)


def one_event(data: bytes):
    """(a) One event with a context. Byte 0 picks the context (:func:`variant`); the rest is
    the event, its CRC32 made valid. It parses, or raises a typed error naming an offset
    inside the input. When it parses: ``build_event`` of the value gives back the event's
    bytes exactly (or raises BuildError), and the compiled parser agrees with the
    interpreted one (never accepting what the interpreted one rejects)."""
    if not data:
        return
    ctx = variant(data[0])
    event = fix_crc(data[1:], ctx)
    try:
        value = parse_event(event, ctx)
    except BinlogError as e:
        check_typed(e, event, "parse_event")
        return
    except Exception as e:  # noqa: BLE001
        raise untyped("parse_event", e) from None
    size = value["header"]["event_size"]
    # compiled vs interpreted
    try:
        slow = _interpreted(event, ctx)
    except Exception as e:  # noqa: BLE001
        raise Finding(f"compiled parser accepted what the interpreted one rejects: "
                      f"{type(e).__name__}: {e!r:.200}") from None
    try:
        fast = _compiled(event, ctx)
    except Exception:  # noqa: BLE001 - the fallback's business, not a finding
        fast = None
    if fast is not None:
        a, b = to_plain(fast), to_plain(slow)
        if a != b:
            raise Finding(f"compiled and interpreted parse differ at {first_difference(a, b)}")
    try:
        again = build_event(value, ctx)
    except BuildError as e:
        check_typed(e, b"", "build_event")
        return
    except Exception as e:  # noqa: BLE001
        raise untyped("build_event", e) from None
    if again != event[:size]:
        try:
            a, b = to_plain(value), to_plain(parse_event(again, ctx))
            for v in (a, b):
                v["header"].pop("event_size", None)
                v.pop("checksum", None)
            path = first_difference(a, b) or "(same value)"
        except BinlogError as e:
            path = f"(rebuilt bytes do not parse: {e.path})"
        name = type_name(ctx.kind(event[4]))
        raise Finding(f"{name}: parse then build is not the input: "
                      f"{_diff(event[:size], again)}; field {path}", key=f"rebuild {name} {path}")


# ------------------------------------------------------------------------------- (b) stream


def stream(data: bytes):
    """(b) A whole file. The magic is prepended when absent. Read three times: skip_errors
    (eager; it recovers), skip_errors with lazy decoding, and skip_errors without recovery;
    every record, value, error, inner event and the tail are consumed. Beyond "only typed
    errors": a delivered record's bytes are the file's at its offset; in recovery the records
    (events and SKIPPED ranges, the truncated tail among them) tile the file from byte 4 to
    its end with neither hole nor overlap (nothing lost)."""
    from binlog_schema.format.stream import BinlogReader
    if not data.startswith(MAGIC):
        data = MAGIC + data
    for n, options in enumerate(({"skip_errors": True}, {"skip_errors": True, "decode": "lazy"},
                                 {"skip_errors": True, "recover": False})):
        first = n == 0
        recovering = options.get("recover", True)
        reader = BinlogReader(data, max_event_size=MAX_EVENT_SIZE, ctx=Context(
            checksum=False, **LIMITS), **options)
        covered = 4
        try:
            for rec in reader:
                value, error = rec.value, rec.error
                if error is not None:
                    check_typed(error, data, f"record error ({options})")
                if rec.gap is not None:
                    start, end = rec.gap
                    if start != covered or not start < end <= len(data):
                        raise Finding(f"gap {rec.gap} does not start where the last record "
                                      f"ended ({covered}) or runs past the file")
                    covered = end
                    continue
                if data[rec.offset:rec.offset + rec.size] != rec.raw:
                    raise Finding(f"record at {rec.offset}: bytes are not the file's")
                if recovering:
                    if rec.offset != covered:
                        raise Finding(f"recovery: record at {rec.offset}, previous ended at "
                                      f"{covered}: bytes lost")
                    covered = rec.offset + rec.size
                if value is not None and first:  # (the same bytes give the same values in
                    to_plain(value)  # every pass: rendered once)
                for inner in rec.inner or ():  # offsets: positions in the payload's data
                    if inner.error is not None:
                        check_typed(inner.error, inner.raw, "inner record", base=inner.offset)
                    if inner.value is not None and first:
                        to_plain(inner.value)
        except BinlogError as e:
            check_typed(e, data, f"BinlogReader({options})")
            continue
        except Finding:
            raise
        except Exception as e:  # noqa: BLE001
            raise untyped(f"BinlogReader({options})", e) from None
        if reader.tail is not None and recovering:
            tail = reader.tail.to_dict()
            if (tail["offset"], len(data)) not in reader.gaps or \
                    tail["offset"] + tail["have"] != len(data):
                raise Finding(f"recovery: the tail {tail} is not the last SKIPPED range "
                              f"{reader.gaps[-1:]}")
        if recovering and covered != len(data):
            raise Finding(f"recovery: bytes {covered} to {len(data)} neither read nor skipped")


# ------------------------------------------------------------------------------- (c) table map


def table_map(data: bytes):
    """(c) The TABLE_MAP typed model. Byte 0 picks the context, the rest is a TABLE_MAP body
    (the header and CRC32 are made for it). When the event parses: the typed model is made
    (table_map_from_event), its dict survives JSON, and ``TableMap.from_dict(d).to_bytes()``
    gives back the event's exact bytes, whatever the model holds (tlv_types,
    extra_optional_metadata, trailing metadata, raw metadata of unknown types: the model
    keeps what the flavor's rules would not write). A BuildError there is a finding too: a
    parsed TABLE_MAP must always rebuild."""
    from binlog_schema.changes.table_map import TableMap, table_map_from_event
    if not data:
        return
    ctx = variant(data[0])
    event = make_event(TABLE_MAP_EVENT, data[1:], ctx)
    try:
        value = parse_event(event, ctx)
    except BinlogError as e:
        check_typed(e, event, "parse_event")
        return
    try:
        tm = table_map_from_event(value, ctx)
        d = tm.to_dict()
        text = json.dumps(d)
    except BinlogError as e:
        check_typed(e, b"", "table_map_from_event")
        raise Finding(f"a parsed TABLE_MAP has no typed model: {e}") from None
    except Exception as e:  # noqa: BLE001
        raise untyped("table_map_from_event/to_dict", e) from None
    try:
        again = TableMap.from_dict(json.loads(text)).to_bytes()
    except BinlogError as e:
        check_typed(e, b"", "TableMap.to_bytes")
        raise Finding(f"the typed model of a parsed TABLE_MAP does not build: {e}") from None
    except Exception as e:  # noqa: BLE001
        raise untyped("TableMap.from_dict/to_bytes", e) from None
    if again != event:
        raise Finding(f"TableMap model does not rebuild the event: {_diff(event, again)}")


# ------------------------------------------------------------------------------- (d) rows

ROWS_CODES = (WRITE_ROWS_EVENT, UPDATE_ROWS_EVENT, DELETE_ROWS_EVENT, PARTIAL_UPDATE_ROWS_EVENT,
              WRITE_ROWS_EVENT_V1, UPDATE_ROWS_EVENT_V1, DELETE_ROWS_EVENT_V1,
              PRE_GA_WRITE_ROWS_EVENT, PRE_GA_UPDATE_ROWS_EVENT, PRE_GA_DELETE_ROWS_EVENT,
              WRITE_ROWS_COMPRESSED_EVENT_V1, UPDATE_ROWS_COMPRESSED_EVENT_V1,
              DELETE_ROWS_COMPRESSED_EVENT_V1, WRITE_ROWS_COMPRESSED_EVENT,
              UPDATE_ROWS_COMPRESSED_EVENT, DELETE_ROWS_COMPRESSED_EVENT)
_TABLE_MAPS: list | None = None


def table_maps() -> list:
    """(event bytes, context) of every distinct TABLE_MAP in specs/ and the corpus, in a
    stable order (the rows target picks one by index)."""
    global _TABLE_MAPS
    if _TABLE_MAPS is None:
        found = {}
        for raw, ctx in _spec_table_maps():
            found.setdefault((raw[HEADER_SIZE:], ctx.flavor, ctx.server_version), (raw, ctx))
        for raw, ctx in _corpus_events(kinds={TABLE_MAP_EVENT}):
            found.setdefault((raw[HEADER_SIZE:], ctx.flavor, ctx.server_version), (raw, ctx))
        _TABLE_MAPS = [found[k] for k in sorted(found, key=repr)]
    return _TABLE_MAPS


def rows(data: bytes):
    """(d) Row decoding. Bytes 0-1 pick a table map of specs/ and the corpus, byte 2 a rows
    event type; the rest is that event's body (parsed without CRC32). The row images are
    decoded with RowsCodec through the typed table map; decoded rows must encode back to the
    same bytes, and so must their JSON-safe forms (``jsonable`` then ``from_jsonable``, the
    path of the rows vectors). Errors: BinlogError, or construct's StreamError/
    ValidationError from the codecs (their documented errors)."""
    from binlog_schema.format.forms.json_safe import from_jsonable, jsonable
    from binlog_schema.changes.table_map import table_map_from_event
    from binlog_schema.format.values.rows import RowsCodec
    maps = table_maps()
    if len(data) < 3 or not maps:
        return
    raw, tctx = maps[int.from_bytes(data[:2], "little") % len(maps)]
    kind = ROWS_CODES[data[2] % len(ROWS_CODES)]
    ctx = tctx.replace(checksum=False, type_remap=None, offset=0, **LIMITS)
    try:
        tm = table_map_from_event(parse_event(raw, tctx), tctx)
    except BinlogError:  # a negative vector's table map
        return
    event = make_event(kind, data[3:], ctx)
    try:
        value = parse_event(event, ctx)
    except BinlogError as e:
        check_typed(e, event, "parse_event")
        return
    body = value["body"]
    rows_field = body["rows"]
    rows_bytes = bytes(rows_field["data"] if isinstance(rows_field, dict) else rows_field)
    try:
        codec = RowsCodec(tm)
        decoded = codec.decode(body, kind)
    except BinlogError as e:
        check_typed(e, rows_bytes, "RowsCodec.decode")
        return
    except (c.ConstructError, LayoutError):  # the codecs' documented errors
        return
    except Exception as e:  # noqa: BLE001
        raise untyped("RowsCodec.decode", e) from None
    try:
        again = codec.encode(decoded, body, kind)
    except Exception as e:  # noqa: BLE001
        raise Finding(f"decoded rows do not encode: {type(e).__name__}: {e!r:.300}") from None
    if again != rows_bytes:
        where_ = _column_at(codec, decoded, body, kind, rows_bytes, again)
        raise Finding(f"rows do not re-encode to their bytes: {_diff(rows_bytes, again)}, in "
                      f"a {where_} value", key=f"rows reencode {where_}")

    def via_json(img):
        return {k: (from_jsonable(tm.columns[k], json.loads(json.dumps(jsonable(v))))
                    if isinstance(k, int) else v) for k, v in img.items()}
    try:
        typed = [(via_json(r[0]), via_json(r[1])) if isinstance(r, tuple) else via_json(r)
                 for r in decoded]
        again = codec.encode(typed, body, kind)
    except Exception as e:  # noqa: BLE001
        raise Finding(f"JSON-safe rows do not encode back: {type(e).__name__}: "
                      f"{e!r:.300}") from None
    if again != rows_bytes:
        raise Finding(f"JSON-safe rows encode to other bytes: {_diff(rows_bytes, again)}")


def _column_at(codec, decoded, body, kind, want: bytes, got: bytes) -> str:
    """The type of the first column whose value alone re-encodes differently (for keys)."""
    images = [img for r in decoded for img in (r if isinstance(r, tuple) else (r,))]
    for img in images:
        for k, v in img.items():
            if not isinstance(k, int) or v is None:
                continue
            col = codec.table_map.columns[k]
            one = bytearray()
            try:
                codec.codecs[k].build(v, one)
            except Exception:  # noqa: BLE001
                return f"{col.type} (unbuildable)"
            if bytes(one) not in want:
                return str(col.type)
    return "?"


# ------------------------------------------------------------------------------- (e) build


def build(data: bytes):
    """(e) Typed values built from the fuzzer's bytes (atheris.FuzzedDataProvider, or the
    pure-Python stand-in below when atheris is absent). Byte 0 even: a typed TableMap whose
    columns, metadata and TLV facts follow its flavor's rules builds (``to_bytes``), parses
    back and gives the same model; or is refused with a BuildError. Byte 0 odd: the same for
    a table map and a row of typed values per column: encoded by RowsCodec, built into a
    WRITE_ROWS event, parsed and decoded equal, the bytes stable; values out of a column's
    range are refused with construct's (documented) errors or BuildError."""
    from . import gen
    gen.build_target(data)


# ------------------------------------------------------------------------------- seeds


_SPEC_DOCS: list | None = None


def _spec_docs():
    """(path, vector) of every vector of specs/ with bytes (read once per process)."""
    global _SPEC_DOCS
    if _SPEC_DOCS is None:
        import yaml
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        _SPEC_DOCS = []
        for path in sorted(SPECS.rglob("*.yaml")) if SPECS.is_dir() else ():
            try:
                docs = list(yaml.load_all(path.read_text(encoding="utf-8"), Loader=loader))
            except Exception:  # noqa: BLE001 - a vector file being edited by someone else
                continue
            _SPEC_DOCS += [(path, d) for d in docs if isinstance(d, dict) and "hex" in d]
    return _SPEC_DOCS


def _spec_context(doc) -> Context:
    from binlog_schema.synthetic.vector_checks import context_of
    try:
        return context_of(doc)
    except Exception:  # noqa: BLE001
        return Context()


def _hex(text) -> bytes:
    from binlog_schema.synthetic.vector_checks import hex_bytes
    return hex_bytes(text)


def _spec_table_maps():
    for _, doc in _spec_docs():
        ctx = _spec_context(doc)
        if "table_map_hex" in doc:
            yield _hex(doc["table_map_hex"]), ctx
        raw = _hex(doc["hex"])
        if len(raw) > HEADER_SIZE and ctx.kind(raw[4]) == TABLE_MAP_EVENT and "error" not in doc:
            yield raw, ctx


def corpus_files(max_size: int | None = None) -> list:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file()
                  and p.suffix not in (".md", ".txt")
                  and (max_size is None or p.stat().st_size <= max_size))


def _corpus_events(kinds=None):
    from binlog_schema.format.stream import BinlogReader
    for path in corpus_files():
        try:
            for rec in BinlogReader(str(path), skip_errors=True, decode=False):
                if rec.gap is None and (kinds is None or rec.kind in kinds):
                    yield rec.raw, rec.ctx
        except BinlogError:
            continue


def _corpus_records():
    """(raw, ctx, kind, table map raw in force) of every event of the corpus (decoded, so
    the context follows each file's FDE)."""
    from binlog_schema.format.stream import BinlogReader
    for path in corpus_files():
        maps = {}
        try:
            for rec in BinlogReader(str(path), skip_errors=True, decode="lazy"):
                for r in [rec] + list(rec.inner or ()):
                    tm = None
                    if r.kind == TABLE_MAP_EVENT and r.value is not None:
                        maps[r.value["body"]["table_id"]] = r.raw
                    elif r.value is not None and isinstance(r.value.get("body"), dict):
                        tm = maps.get(r.value["body"].get("table_id"))
                    yield r.raw, r.ctx, r.kind, tm
        except BinlogError:
            continue


def seeds(name: str, small: bool = False):
    """The seed inputs of a target: (file name, bytes). ``small``: a few dozen (the smoke
    test's), else everything the corpus and specs/ give."""
    out = {}
    limit = 40 if small else None

    def add(prefix, data):
        if limit is None or len(out) < limit:
            out.setdefault(f"{prefix}-{zlib.crc32(data):08x}", data)

    if name == "one_event":
        for _path, doc in _spec_docs():
            ctx = _spec_context(doc)
            add("spec", bytes((variant_byte(ctx),)) + _hex(doc["hex"]))
        seen = set()
        for raw, ctx, kind, _ in _corpus_records():
            if small and kind in seen:
                continue
            seen.add(kind)
            if len(raw) <= 16384:
                add(f"corpus{kind}", bytes((variant_byte(ctx),)) + raw)
    elif name == "stream":
        for path in corpus_files():
            data = path.read_bytes()
            if not data.startswith(MAGIC):
                continue
            add("file", _prefix(data, 4096))
            if small and len(out) >= 8:
                break
        from binlog_schema.format.stream import BinlogReader
        if not small:
            for path in corpus_files(max_size=64 << 10):  # every event kind at a seed's start
                data = path.read_bytes()
                if not data.startswith(MAGIC):
                    continue
                recs = list(BinlogReader(data, skip_errors=True, decode=False))
                if len(recs) > 1:
                    fde = data[4:recs[1].offset]
                    for r in recs[1:]:
                        add("cut", _prefix(MAGIC + fde + data[r.offset:], 2048))
    elif name == "table_map":
        for raw, ctx in _spec_table_maps():
            add("spec", bytes((variant_byte(ctx),)) + _body(raw, ctx))
        for raw, ctx in _corpus_events(kinds={TABLE_MAP_EVENT}):
            add("corpus", bytes((variant_byte(ctx),)) + _body(raw, ctx))
    elif name == "rows":
        index = {(raw[HEADER_SIZE:], ctx.flavor, ctx.server_version): i
                 for i, (raw, ctx) in enumerate(table_maps())}
        from binlog_schema.format.facts.codes import ROWS_KINDS
        for _, doc in _spec_docs():
            if "table_map_hex" in doc and "error" not in doc:
                ctx = _spec_context(doc)
                tm = _hex(doc["table_map_hex"])
                raw = _hex(doc["hex"])
                i = index.get((tm[HEADER_SIZE:], ctx.flavor, ctx.server_version))
                if i is not None and ctx.kind(raw[4]) in ROWS_KINDS:
                    add("spec", _rows_seed(i, ctx.kind(raw[4]), raw, ctx))
        for raw, ctx, kind, tm in _corpus_records():
            if kind in ROWS_KINDS and tm is not None and len(raw) <= 16384:
                i = index.get((tm[HEADER_SIZE:], ctx.flavor, ctx.server_version))
                if i is not None:
                    add(f"corpus{kind}", _rows_seed(i, kind, raw, ctx))
    elif name in ("damage", "split"):  # the fuzzer's choices: which file, which damage, where
        import random
        rnd = random.Random(11)
        for _k in range(20 if small else 200):
            add("damage", rnd.randbytes(rnd.choice((8, 16, 32, 64, 128))))
    elif name == "build":
        import random
        rnd = random.Random(7)
        for k in range(20 if small else 200):
            add("random", bytes((k & 1,)) + rnd.randbytes(rnd.choice((16, 64, 256, 1024))))
    else:
        raise KeyError(name)
    return sorted(out.items())


# ------------------------------------------------------------------------------- (f) damage

DAMAGE_MAX_FILE = 64 << 10
_damage_files = None


def damage_files() -> list:
    """The corpus files the damage target starts from (each at most 64 KiB, read cleanly):
    (name, bytes, its events as (offset, raw), whether it has checksums)."""
    global _damage_files
    if _damage_files is None:
        from binlog_schema.format.stream import BinlogReader
        _damage_files = []
        for path in corpus_files(max_size=DAMAGE_MAX_FILE):
            data = path.read_bytes()
            if not data.startswith(MAGIC):
                continue
            try:
                recs = list(BinlogReader(data, skip_errors=True, decode=False))
            except BinlogError:
                continue
            if len(recs) < 3 or any(r.gap is not None or r.error is not None for r in recs):
                continue
            _damage_files.append((path.name, data, [(r.offset, r.raw) for r in recs],
                                  bool(recs[1].ctx.checksum)))
    return _damage_files


DAMAGES = ("size", "zero", "insert", "flip", "cut", "concat", "drop_fde", "duplicate",
           "delete")


def damaged(fdp):
    """A corpus file with one to four kinds of damage done to it, chosen by the fuzzer: an
    event's size field changed, a block zeroed, garbage inserted, a byte changed, the file
    cut, a second file appended, the FORMAT_DESCRIPTION removed, a range duplicated or
    deleted. Returns the bytes, where each byte came from (its offset in the originals, a
    file ``k`` counted from ``k << 24``; -1 for a byte the damage wrote), the originals'
    events (by that numbering) and whether each original has checksums."""
    files = damage_files()
    k = fdp.ConsumeIntInRange(0, len(files) - 1)
    name, data, events, crc = files[k]
    buf = bytearray(data)
    src = list(range(len(data)))
    groups = [(0, events, crc)]
    for _ in range(fdp.ConsumeIntInRange(1, 4)):
        op = DAMAGES[fdp.ConsumeIntInRange(0, len(DAMAGES) - 1)]
        n = len(buf)
        pos = fdp.ConsumeIntInRange(4, max(n - 1, 4))
        if op == "size":  # a header's event_size (the header at an original event start)
            starts = [i for i, (o, _) in enumerate(events) if o < n]
            o = events[fdp.PickValueInList(starts)][0] if starts else 4
            if o + 13 <= n:
                v = int.from_bytes(buf[o + 9:o + 13], "little")
                v = fdp.PickValueInList([v + 1, v - 1, v ^ (1 << fdp.ConsumeIntInRange(0, 31)),
                                         0, 0xFFFFFFFF, v * 2, fdp.ConsumeIntInRange(0, 1 << 17)])
                buf[o + 9:o + 13] = (v & 0xFFFFFFFF).to_bytes(4, "little")
                src[o + 9:o + 13] = [-1] * 4
        elif op == "zero":
            m = fdp.ConsumeIntInRange(1, 4096)
            m = min(m, n - pos)
            buf[pos:pos + m] = bytes(m)
            src[pos:pos + m] = [-1] * m
        elif op == "insert":
            junk = fdp.ConsumeBytes(fdp.ConsumeIntInRange(1, 64))
            buf[pos:pos] = junk
            src[pos:pos] = [-1] * len(junk)
        elif op == "flip":
            if pos < n:
                buf[pos] ^= fdp.ConsumeIntInRange(1, 255)
                src[pos] = -1
        elif op == "cut":
            del buf[pos:], src[pos:]
        elif op == "concat":
            j = fdp.ConsumeIntInRange(0, len(files) - 1)
            _, other, oevents, ocrc = files[j]
            base = (len(groups)) << 24
            src += [base + i for i in range(len(other))]
            buf += other
            groups.append((base, oevents, ocrc))
        elif op == "drop_fde":
            size = events[1][0] - 4
            if src[4:4 + size] == list(range(4, 4 + size)):
                del buf[4:4 + size], src[4:4 + size]
        elif op == "duplicate":
            m = min(fdp.ConsumeIntInRange(1, 2048), n - pos)
            at = fdp.ConsumeIntInRange(4, n)
            buf[at:at] = buf[pos:pos + m]
            src[at:at] = src[pos:pos + m]
        elif op == "delete":
            m = min(fdp.ConsumeIntInRange(1, 2048), n - pos)
            del buf[pos:pos + m], src[pos:pos + m]
    return bytes(buf), src, groups


def _untouched(src, groups):
    """Every whole copy, in the damaged file, of an original event: {new offset: (raw, with
    checksums, the file it came from)}."""
    where = {}
    for i, s in enumerate(src):
        if s >= 0:
            where.setdefault(s, []).append(i)
    out = {}
    for k, (base, events, crc) in enumerate(groups):
        for o, raw in events:
            for i in where.get(base + o, ()):
                if src[i:i + len(raw)] == list(range(base + o, base + o + len(raw))):
                    out[i] = (raw, crc, k)
    return out


def damage(data: bytes):
    """(f) The tiling promise of ``decode --skip-errors``, on corpus files damaged at random
    (:func:`damaged`): its JSON Lines, written by the command's own function, have records
    that tile ``[4, size)`` exactly, in order (events inside a TRANSACTION_PAYLOAD aside);
    each SKIPPED record has an error; the status is 3 when something was skipped or had an
    error, else 0 and then the file is the original; every whole copy of an original event
    read in its own file's context (the last FORMAT_DESCRIPTION read before it is an untouched
    one of its file, and no second file's magic number is between them; a FORMAT_DESCRIPTION
    itself in any) is an event record at its new offset,
    with its bytes and without error. Without checksums the log positions prove sizes where
    they can (:func:`proven_by_log_positions`): an event they prove is never missing (unless
    they prove the record that holds it too: a header the damage left whole over a body it
    cut or lengthened); one they cannot prove may be missing only inside the record of a
    damaged header that claims it, when the header after it is damaged and its log position
    does not name its end, or when a record they prove overlaps it or the untouched events
    after it; with checksums, never."""
    import bisect
    import io
    import tempfile
    from binlog_schema.output.write import Output, write_events
    from fuzz.gen import provider
    fdp = provider(data)
    buf, src, groups = damaged(fdp)
    global _damage_path
    if _damage_path is None:
        fd, _damage_path = tempfile.mkstemp(prefix="fuzz-damage-", suffix=".bin")
        os.close(fd)
    with open(_damage_path, "wb") as f:
        f.write(buf)
    out, err = io.StringIO(), io.StringIO()
    try:
        status = write_events(_damage_path, Output(out), skip_errors=True, err=err)
    except BinlogError as e:
        raise Finding(f"decode --skip-errors raised {type(e).__name__}: {e}") from None
    except Finding:
        raise
    except Exception as e:  # noqa: BLE001
        raise untyped("decode --skip-errors", e) from None
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    pos, records, troubled, magics = 4, {}, False, []
    for d in lines:
        if "in_payload_at" in d:
            troubled = troubled or "error" in d
            continue
        if d.get("offset") != pos:
            raise Finding(f"record at {d.get('offset')} ({d.get('type')}); the last ended at "
                          f"{pos}: the records do not tile the file")
        if d.get("type") == "SKIPPED":
            if not d.get("error") or d["size"] <= 0:
                raise Finding(f"SKIPPED record at {pos} without error or size: {d}")
            size, troubled = d["size"], True
            if d["error"].get("path") == "magic":   # (a second file starts: its context)
                magics.append(pos)
        else:
            size = d["header"]["event_size"]
            troubled = troubled or "error" in d
            records[pos] = (size, d)
        pos += size
    if pos != len(buf):
        raise Finding(f"records end at {pos}, the file at {len(buf)}")
    if status != (3 if troubled else 0):
        raise Finding(f"status {status} with{'' if troubled else 'out'} problems")
    if (len(err.getvalue().splitlines()) > 1) != troubled:
        raise Finding(f"stderr {err.getvalue()!r} does not match the records")
    spans = sorted(records)
    ends = {o + size: o for o, (size, _) in records.items()}
    untouched = _untouched(src, groups)
    # the file whose context reads each event: the last context event read before it (one
    # of an original's, untouched; another: no original's events are expected after it)
    contexts, group, m = [], None, 0
    for off in spans:
        while m < len(magics) and magics[m] < off:   # (a second file's magic number ends
            group, m = None, m + 1                     # the context before it)
        d = records[off][1]
        if d["type"] in ("FORMAT_DESCRIPTION_EVENT", "START_EVENT_V3") and "error" not in d:
            group = untouched[off][2] if off in untouched else None
        contexts.append(group)
    for off, (raw, crc, k) in sorted(untouched.items()):
        context_event = raw[4] == FORMAT_DESCRIPTION_EVENT or (
            raw[4] == START_EVENT_V3 and off == 4)
        j = bisect.bisect_left(spans, off) - 1
        if not context_event and (j < 0 or contexts[j] != k or any(
                spans[j] < mg < off for mg in magics)):
            continue  # (read in another file's context, or in none)
        got = records.get(off)
        if got is not None and got[0] == len(raw) and "error" not in got[1]:
            continue
        if got is not None and got[0] == len(raw):
            raise Finding(f"untouched event at {off} has an error: {got[1].get('error')}")
        # the reader's context where it is lost: whether sizes there are proven by checksums
        context = contexts[j] if j >= 0 else None
        if groups[context][2] if context is not None else crc:
            raise Finding(f"untouched event at {off} ({len(raw)} bytes, type {raw[4]}) lost "
                          "where the context has checksums")
        version = binlog_version_of(groups[k][1])
        k = bisect.bisect_right(spans, off) - 1
        holder = spans[k] if k >= 0 else None
        absorbed = holder is not None and holder + records[holder][0] > off and \
            holder not in untouched
        # log positions that prove its size prove it, unless they prove the size of the
        # record that holds it too (a header the damage left whole, whose body it cut or
        # lengthened: two proofs that disagree)
        if proven_by_log_positions(buf, off, raw, version, untouched, ends) and not (
                absorbed and proven_by_log_positions(
                    buf, holder, buf[holder:holder + records[holder][0]], version, untouched,
                    ends)):
            raise Finding(f"untouched event at {off} ({len(raw)} bytes, type {raw[4]}) lost "
                          "though log positions prove its size")
        end = off + len(raw)
        # its size unconfirmable: the header after it damaged, and its own log position does
        # not name its end (only v4's does: v3's names its start, v1's nothing)
        unconfirmable = end < len(buf) and end not in untouched and (
            version < 4 or int.from_bytes(raw[13:17], "little") != end)
        # or a record the log positions prove overlaps it or the untouched events after it
        # (a header the damage left whole over bytes these events own: the proof wins)
        run = end
        while run in untouched:
            run += len(untouched[run][0])
        k = bisect.bisect_right(spans, off)
        overlapped = k < len(spans) and spans[k] < run and proven_by_log_positions(
            buf, spans[k], buf[spans[k]:spans[k] + records[spans[k]][0]], version, untouched,
            ends)
        if not (absorbed or unconfirmable or overlapped):
            raise Finding(f"untouched event at {off} ({len(raw)} bytes, type {raw[4]}) lost"
                          " though its size could be confirmed")


def binlog_version_of(events) -> int:
    """A file's binlog version, from its first event (FORMAT_DESCRIPTION or
    START_EVENT_V3): its body's first two bytes."""
    raw = events[0][1]
    return int.from_bytes(raw[HEADER_SIZE:HEADER_SIZE + 2], "little")


def proven_by_log_positions(buf, off, raw, version, untouched, ends) -> bool:
    """Whether log positions prove the size of the untouched event ``raw`` at ``off`` of the
    damaged file ``buf`` (said here apart from the package's :func:`scanning.proven`, as a
    file without checksums offers the proof): a log position of 0 proves nothing, nor do a
    v1 file's; in v4 its log position is its end, or it starts where the event record that
    ends at ``off`` (``ends``: end -> offset) says the next starts; in v3 and v4, the
    untouched event right after it starts where its log position says the next does (v4:
    the log position is the end; v3: the start)."""
    wrap = 0xFFFFFFFF
    at, n = int.from_bytes(raw[13:17], "little"), len(raw)
    if not at or version < 3:
        return False
    if version >= 4:
        if at == (off + n) & wrap:
            return True
        prev = ends.get(off)
        before = int.from_bytes(buf[prev + 13:prev + 17], "little") if prev is not None \
            else 0
        if before and (at - n) & wrap == before:
            return True
    nxt = untouched.get(off + n)
    if nxt is None:
        return False
    nat = int.from_bytes(nxt[0][13:17], "little")
    if version >= 4:
        return nat != 0 and (nat - len(nxt[0])) & wrap == at
    return nat == (at + n) & wrap


_damage_path = None


# ------------------------------------------------------------------------------- (g) split


def _records_of(records) -> list:
    """What a reader's records say, to compare: (offset, size, type name, error kind) of
    each (a SKIPPED range: its size and its error's kind), and of each event inside a
    payload (offset, in the payload's data, and the payload's offset first)."""
    out = []
    for r in records:
        err = r.error
        size = r.gap[1] - r.gap[0] if r.gap is not None else len(r.raw)
        out.append((r.offset, size, r.type_name, err.kind if err is not None else None))
        for i in r.inner or ():
            e = i.error
            out.append((r.offset, i.offset, len(i.raw), i.type_name,
                        e.kind if e is not None else None))
    return out


def split(data: bytes):
    """(g) Spark's reading of a damaged file without Spark: a corpus file damaged as the
    damage target damages it (:func:`damaged`), cut by the pipeline's pre-scan
    (``prescan``) at a split size the fuzzer chooses (from a 48th of the file's work to
    all of it, on a log scale), each split read by the split reader the tasks use
    (``split_records``, with the file's context for the splits after the first), as
    ``spark decode`` reads them. The splits tile the file from 0 to
    its end, their records tile each split's range, and together they are the whole-file
    reader's records (``BinlogReader(skip_errors=True)``, recovering): the same events,
    quarantined events and SKIPPED ranges at the same offsets with the same sizes, types and
    error kinds, and the same events inside payloads."""
    import tempfile
    from binlog_schema.pipeline.tasks.prescan import prescan
    from binlog_schema.pipeline.tasks.reading import split_records
    from binlog_schema.pipeline.tasks.split import EVENT_WEIGHT
    from binlog_schema.pipeline.tasks.split_context import file_context
    from binlog_schema.format.stream import BinlogReader
    from fuzz.gen import provider
    fdp = provider(data)
    buf, _src, groups = damaged(fdp)
    size = len(buf)
    # (a split size on a log scale, from a 48th of the pre-scan's work, bytes and events, to
    # all of it: a few splits or many)
    work = size + EVENT_WEIGHT * sum(len(g[1]) for g in groups)
    split_bytes = max(work >> fdp.ConsumeIntInRange(0, 48).bit_length(), 64)
    global _split_path
    if _split_path is None:
        fd, _split_path = tempfile.mkstemp(prefix="fuzz-split-", suffix=".bin")
        os.close(fd)
    with open(_split_path, "wb") as f:
        f.write(buf)
    try:
        whole = _records_of(BinlogReader(_split_path, skip_errors=True))
    except BinlogError as e:   # (no binlog: the pipeline refuses it as a file)
        check_typed(e, buf, "BinlogReader")
        return
    except Exception as e:  # noqa: BLE001
        raise untyped("BinlogReader (recovering)", e) from None
    try:
        splits = prescan(_split_path, size, split_bytes)
        got = []
        with open(_split_path, "rb") as f:
            ctx = None
            for s in splits:
                if s.start and ctx is None:
                    ctx = file_context(f)
                records = list(split_records(f, s, ctx if s.start else None))
                pos = s.start or 4
                for r in records:
                    if r.offset != pos:
                        raise Finding(f"split [{s.start}, {s.end}) of {size} bytes (split size "
                                      f"{split_bytes}): a record at {r.offset}, the last "
                                      f"ended at {pos}")
                    pos = r.gap[1] if r.gap is not None else pos + len(r.raw)
                if pos != max(s.end, 4):
                    raise Finding(f"split [{s.start}, {s.end}): records end at {pos}")
                got += _records_of(records)
    except Finding:
        raise
    except BinlogError as e:
        raise Finding(f"a split raised {type(e).__name__}: {e}") from None
    except Exception as e:  # noqa: BLE001
        raise untyped("prescan / split_records", e) from None
    starts = [s.start for s in splits]
    if starts[0] != 0 or [s.end for s in splits] != starts[1:] + [size]:
        raise Finding(f"splits {[(s.start, s.end) for s in splits]} do not tile [0, {size})")
    if got != whole:
        diff = next((i for i, (a, b) in enumerate(zip(got, whole)) if a != b),
                    min(len(got), len(whole)))
        raise Finding(f"{len(splits)} splits of a {size}-byte file (split size {split_bytes}) "
                      f"differ from the whole-file reader at record {diff}: "
                      f"{got[diff:diff + 2]} != {whole[diff:diff + 2]}")


_split_path = None


def _body(raw: bytes, ctx: Context) -> bytes:
    return raw[HEADER_SIZE:len(raw) - checksum_length(ctx.kind(raw[4]), None, ctx)]


def _rows_seed(i, kind, raw, ctx) -> bytes:
    return (i.to_bytes(2, "little") + bytes((ROWS_CODES.index(kind),))
            + _body(raw, ctx))


def _prefix(data: bytes, n: int) -> bytes:
    """The first ``n`` bytes of a file, cut at an event boundary when one is close."""
    if len(data) <= n:
        return data
    pos, last = 4, 4
    while pos + HEADER_SIZE <= len(data):
        size = int.from_bytes(data[pos + 9:pos + 13], "little")
        if size < HEADER_SIZE or pos + size > n:
            break
        last = pos = pos + size
    return data[:last if last > n // 2 else n]


def warm_up(name: str):
    """What every input would otherwise pay once: the compiled declarations (and, for the
    rows target, the table maps of specs/ and the corpus)."""
    unit("event")
    if name == "rows":
        table_maps()
    if name in ("damage", "split"):
        damage_files()


TARGETS = {
    "one_event": (one_event, 16384),
    "stream": (stream, 4096),
    "table_map": (table_map, 4096),
    "rows": (rows, 4096),
    "build": (build, 4096),
    "damage": (damage, 512),
    "split": (split, 512),
}


def write_seeds(name: str, directory, small: bool = False) -> int:
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    n = 0
    for fname, data in seeds(name, small):
        (directory / fname).write_bytes(data)
        n += 1
    return n


__all__ = ["Context", "Finding", "TARGETS", "guarded", "seeds", "write_seeds", "variant",
           "peak_rss_mb"]

"""Compiled and interpreted declarations agree on every event of every corpus file.

The package runs on declarations compiled to Python (:mod:`binlog_schema.format.compiled`, cached
by :mod:`binlog_schema.construct_ext.cache`) and falls back to construct's interpreted
parse only for a precise error: a compiled form that drifts from its declaration would go
unseen on the fast path. Here each form is called directly (no fallback can hide a failure),
for every event of every corpus file (the events inside transaction payloads included):

* events: the interpreted ``Event`` (construct's ``parse``/``build``), the compiled whole
  event (unit ``event``) and the fast path the package runs (the compiled header and the
  compiled body of its type code: ``parse_event``/``build_event`` with no fallback) parse to
  the same value (types included), and each builds that value back to the original bytes;
* TABLE_MAP: the typed model made from either parse is the same, and its event builds, both
  compiled and interpreted, to the original bytes;
* rows: the row images read by code compiled per table shape equal the codecs' reading, and
  encode back to the event's rows bytes.
"""

import io
import math
from collections import Counter

from binlog_schema.format import event_codec as envelope
from binlog_schema.format.compiled import unit
from binlog_schema.construct_ext.streams import TrackingIO
from binlog_schema.format.event_codec import build_event, parse_event
from binlog_schema.format.events.envelope import Event
from binlog_schema.changes.row_change import RowDecoder
from binlog_schema.changes.table_map import table_map_from_event
from binlog_schema.format.facts.codes import GTID_KINDS, PARTIAL_UPDATE_ROWS_EVENT, ROWS_KINDS, \
    TABLE_MAP_EVENT
from binlog_schema.format.stream import BinlogReader
from binlog_schema.format.values import rows as rows_module

# construct's own bookkeeping in an interpreted parse (the stream it read from): not a value
_CONSTRUCT_KEYS = frozenset({"_io"})


def strict(value):
    """A value in a form compared exactly: dicts (construct's Container too) and lists
    (ListContainer, tuples) by content, every other leaf with its type (so 1 != True, bytes
    != str); bytes-like leaves as bytes; NaN equal to itself by its bits."""
    if isinstance(value, dict):
        return ("dict", {k: strict(v) for k, v in value.items() if k not in _CONSTRUCT_KEYS})
    if isinstance(value, (list, tuple)):
        return (type(value).__name__ if type(value) is tuple else "list",
                [strict(v) for v in value])
    if isinstance(value, (bytes, bytearray, memoryview)):
        return ("bytes", bytes(value))
    if isinstance(value, float) and math.isnan(value):
        return (type(value).__name__, "nan", repr(value))
    return (type(value).__name__, value)


def difference(a, b, path="") -> str | None:
    """The path of the first place where two :func:`strict` forms differ."""
    if a == b:
        return None
    if a[0] != b[0]:
        return f"{path or '.'}: {a[0]} != {b[0]}"
    if a[0] == "dict":
        for k in list(a[1]) + [k for k in b[1] if k not in a[1]]:
            if k not in a[1] or k not in b[1]:
                return f"{path}.{k}: only in the {'second' if k in b[1] else 'first'}"
            d = difference(a[1][k], b[1][k], f"{path}.{k}")
            if d:
                return d
    if a[0] in ("list", "tuple"):
        if len(a[1]) != len(b[1]):
            return f"{path}: {len(a[1])} items != {len(b[1])}"
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            d = difference(x, y, f"{path}[{i}]")
            if d:
                return d
    return f"{path or '.'}: {a[1]!r} != {b[1]!r}"


def _root(ctx):
    """The context a compiled unit runs with (as the envelope gives it)."""
    root = {"ctx": ctx}
    root["_params"] = root
    return root


def _compiled_parse(raw, ctx):
    return unit("event")["parse"](io.BytesIO(raw), _root(ctx))


def _compiled_build(value, ctx):
    out = io.BytesIO()
    unit("event")["build"](value, out, _root(ctx))
    return out.getvalue()


def _refused(parse, *args):
    try:
        parse(*args)
    except Exception:  # noqa: BLE001 - any refusal will do: both forms must refuse
        return True
    return False


def _records(path):
    for rec in BinlogReader(path, skip_errors=True):
        if rec.gap is not None:  # bytes that are no event (a truncated tail): no event
            continue
        yield from [rec] + list(rec.inner or ())


def _check_event(r, problems, counts):
    """One event both ways, three forms; what differs goes to ``problems``."""
    where = f"{r.offset} ({r.type_name})"
    ctx = r.ctx.replace(offset=r.offset)
    if r.value is None:  # an event that does not parse: no form may make something of it
        counts["refused"] += 1
        for name, refused in (
                ("interpreted", _refused(Event.parse_stream, TrackingIO(r.raw, base=r.offset),
                                         ctx=r.ctx)),
                ("compiled", _refused(_compiled_parse, r.raw, r.ctx))):
            if not refused:
                problems.append(f"{where}: the {name} parse accepts an event the reader "
                                f"refused ({r.error})")
        return None
    before = dict(envelope.FALLBACKS)
    forms = {}
    try:
        forms["interpreted"] = Event.parse_stream(TrackingIO(r.raw, base=r.offset), ctx=r.ctx)
    except Exception as e:  # noqa: BLE001
        problems.append(f"{where}: interpreted parse fails: {e!r}")
    try:
        forms["compiled"] = _compiled_parse(r.raw, r.ctx)
    except Exception as e:  # noqa: BLE001
        problems.append(f"{where}: compiled parse fails: {e!r}")
    try:
        forms["fast path"] = parse_event(r.raw, r.ctx, r.offset)
    except Exception as e:  # noqa: BLE001
        problems.append(f"{where}: fast-path parse fails: {e!r}")
    if envelope.FALLBACKS != before:
        problems.append(f"{where}: the fast-path parse fell back to the interpreted one")
    if "interpreted" in forms:
        want = strict(forms["interpreted"])
        for name in ("compiled", "fast path"):
            if name in forms:
                d = difference(want, strict(forms[name]))
                if d:
                    problems.append(f"{where}: interpreted != {name} parse at {d}")
    builders = {"interpreted": lambda v: Event.build(v, ctx=ctx),
                "compiled": lambda v: _compiled_build(v, ctx),
                "fast path": lambda v: build_event(v, ctx)}
    # each form builds its own value, and the compiled forms the interpreted value too
    jobs = [(name, name) for name in forms] + \
        [(name, "interpreted") for name in ("compiled", "fast path") if "interpreted" in forms]
    for builder, of in jobs:
        before = dict(envelope.FALLBACKS)
        try:
            built = builders[builder](forms[of])
        except Exception as e:  # noqa: BLE001
            problems.append(f"{where}: {builder} build of the {of} value fails: {e!r}")
            continue
        if envelope.FALLBACKS != before:
            problems.append(f"{where}: the fast-path build fell back to the interpreted one")
        if built != r.raw:
            at = next((i for i, (x, y) in enumerate(zip(built, r.raw)) if x != y),
                      min(len(built), len(r.raw)))
            problems.append(f"{where}: {builder} build of the {of} value differs from the "
                            f"original bytes at byte {at}")
    counts["events"] += 1
    return forms


def _check_table_map(r, forms, problems, counts):
    where = f"{r.offset} (TABLE_MAP)"
    models = {}
    for name, value in forms.items():
        try:
            models[name] = table_map_from_event(value, r.ctx).to_dict()
        except Exception as e:  # noqa: BLE001
            problems.append(f"{where}: typed model of the {name} parse fails: {e!r}")
    if len(models) == len(forms) == 3:
        want = strict(models["interpreted"])
        for name in ("compiled", "fast path"):
            d = difference(want, strict(models[name]))
            if d:
                problems.append(f"{where}: typed model of the {name} parse differs at {d}")
    if "compiled" not in forms:
        return
    tm = table_map_from_event(forms["compiled"], r.ctx)
    value, ctx = tm.to_event(), tm.context().replace(offset=r.offset)
    for name, build in (("interpreted", lambda: Event.build(value, ctx=ctx)),
                        ("compiled", lambda: _compiled_build(value, ctx)),
                        ("to_bytes", tm.to_bytes)):
        try:
            built = build()
        except Exception as e:  # noqa: BLE001
            problems.append(f"{where}: {name} build of the typed model fails: {e!r}")
            continue
        if built != r.raw:
            problems.append(f"{where}: {name} build of the typed model differs from the "
                            "original bytes")
    counts["table maps"] += 1


def _check_rows(decoder, r, problems, counts):
    """A rows event's images: compiled per table shape == the codecs' reading; encoded back
    == the rows bytes."""
    where = f"{r.offset} ({r.type_name})"
    codec = decoder.codec_of(r)
    if codec is None:
        problems.append(f"{where}: no TABLE_MAP before this rows event")
        return
    body = r.value["body"]
    raw = body["rows"]["data"] if isinstance(body["rows"], dict) else body["rows"]
    try:
        reference = codec.decode(body, r.kind, compiled=False)  # the codecs, one by one
    except Exception as e:  # noqa: BLE001
        problems.append(f"{where}: the codecs do not decode the rows: {e!r}")
        return
    if r.kind == PARTIAL_UPDATE_ROWS_EVENT:  # (its images are read by the codecs only)
        counts["rows (codecs only)"] += len(reference)
    else:
        try:
            fast = codec.decode(body, r.kind, compiled=True)  # the generated code only
        except Exception as e:  # noqa: BLE001
            problems.append(f"{where}: the compiled row images fail: {e!r}")
        else:
            d = difference(strict(reference), strict(fast))
            if d:
                problems.append(f"{where}: compiled row images differ from the codecs' at {d}")
        counts["rows (compiled)"] += len(reference)
    before = dict(rows_module.FALLBACKS)
    public = decoder.rows_of(r)[0]
    if rows_module.FALLBACKS != before:
        problems.append(f"{where}: the row decoder fell back to the codecs")
    d = difference(strict(reference), strict(public))
    if d:
        problems.append(f"{where}: the row decoder's rows differ from the codecs' at {d}")
    try:
        again = codec.encode(reference, body, r.kind)
    except Exception as e:  # noqa: BLE001
        problems.append(f"{where}: the rows do not encode back: {e!r}")
        return
    if again != bytes(raw):
        problems.append(f"{where}: the rows encode to other bytes than the event's")
    counts["rows events"] += 1


def test_compiled_and_interpreted_agree_on_every_corpus_event(corpus):
    problems: list = []
    counts: Counter = Counter()
    for path in corpus:
        decoder = RowDecoder(str(path))
        mine: list = []
        for r in _records(path):
            forms = _check_event(r, mine, counts)
            if not forms:
                continue
            if r.kind == TABLE_MAP_EVENT:
                _check_table_map(r, forms, mine, counts)
            if r.kind == TABLE_MAP_EVENT or r.kind in GTID_KINDS:
                decoder.feed(r)  # (the table maps in force, the GTID)
            elif r.kind in ROWS_KINDS:
                _check_rows(decoder, r, mine, counts)
        problems += [f"{path.name}@{p}" for p in mine]
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems[:40])
    # the whole corpus was seen (numbers as of this writing; a lower one is a lost file)
    assert counts["events"] > 7800, counts
    assert counts["table maps"] >= 830, counts
    assert counts["rows (compiled)"] > 50000, counts

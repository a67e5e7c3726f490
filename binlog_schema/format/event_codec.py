"""Parse and build whole events: the compiled declarations on the fast path (loaded without
construct, :mod:`binlog_schema.format.compiled`), the interpreted declaration
(:data:`binlog_schema.format.events.envelope.Event`) re-run for a precise, typed error.

The envelope's layout and rules (header, CRC32, the FDE in-use rule) are in
:mod:`binlog_schema.format.facts.framing`.
"""

from __future__ import annotations

from io import BytesIO as _BytesIO

from . import compiled
from ..construct_ext.errors import LayoutError, LimitExceeded, StreamError, ChecksumMismatch
from ..construct_ext.jsontext import hex_json
from ..construct_ext.streams import TrackingIO
from ..construct_ext.text import greedybytes_build, greedybytes_parse
from .context import Context
from .errors import (BinlogError, BuildError, ChecksumError, FormatError, LimitError,
                     TruncatedError)
from .facts.codes import type_name  # re-exported: the name of a type code
from .facts.framing import HEADER_SIZE, envelope_build, event_parse  # noqa: F401

# How often the compiled code failed and the interpreted declaration ran instead: on valid
# input this must stay 0 (a test checks it over the corpus), or something does not compile.
FALLBACKS = {"parse": 0, "build": 0}

_FAST: list = []  # (header parse, body parsers, header build, body builders), once loaded
_BODIES: list = []  # the compiled.Bodies, once made
_JSON: list = []  # (header JSON, body JSON parsers), once loaded


def params_of(ctx):
    """The ``_params`` of the compiled code's context for ``ctx`` (one dict per context
    object, and no reference back to the context dict: no garbage cycle per event)."""
    params = ctx.extra.get("_params")
    if params is None:
        params = ctx.extra["_params"] = {"ctx": ctx}
    return params


def _raw_parse(io, this):
    return greedybytes_parse(io)


def _raw_build(obj, io, this):
    return greedybytes_build(obj, io)


def _raw_json(io, this):
    return hex_json(greedybytes_parse(io))


def _bodies():
    if not _BODIES:
        _BODIES.append(compiled.Bodies())
    return _BODIES[0]


def fast():
    """The compiled header and bodies: ``(parse_header, parsers, build_header, builders)``
    (a family's bodies are loaded when one of its events is first met)."""
    if not _FAST:
        _FAST.append((compiled.unit("header.parse")["parse"], None, _header_build, None))
        bodies = _bodies()
        _FAST[0] = (_FAST[0][0], bodies.parsers, _header_build, bodies.builders)
    return _FAST[0]


def fast_json():
    """The compiled JSON direction: ``(header_json, body_jsons)``, ``header_json(io, this)``
    the JSON text of a header, ``body_jsons`` by standard type code."""
    if not _JSON:
        _JSON.append((compiled.unit("header.json")["json"], _bodies().jsons))
    return _JSON[0]


def _header_build(obj, io, this):
    build = compiled.unit("header.build")["build"]
    _FAST[0] = (_FAST[0][0], _FAST[0][1], build, _FAST[0][3])
    return build(obj, io, this)


def header_of(raw: bytes, ctx: Context) -> dict:
    """The common header of an event's bytes, by the compiled declaration."""
    return (_FAST[0] if _FAST else fast())[0](_BytesIO(raw), {"_params": params_of(ctx)})


def kept_raw(value, kind: int, offset: int | None = None) -> BinlogError | None:
    """The error of an event of a declared type whose body did not fit its layout and was
    kept raw (a corrupt QUERY's, which the servers reject too: lossless, but flagged); None
    for any other value."""
    body = value.get("body") if type(value) is dict else None
    if type(body) is not bytes or kind not in _bodies().parsers:
        return None
    return FormatError(f"the body does not fit the {type_name(kind)} layout (the servers "
                       "reject it too): kept raw", offset=offset, path="body",
                       expected=f"a {type_name(kind)} body")


def body_parser(kind: int):
    """The compiled parser ``f(io, this)`` of a body of standard type ``kind``."""
    return fast()[1].get(kind, _raw_parse)


# ---------------------------------------------------------------------------------------
# errors


def _path_of(e) -> str | None:
    path = getattr(e, "path", None)
    if not path:
        return None
    parts = [p.strip() for p in path.split("->")]
    parts = [p for p in parts if p and not p.startswith("(")]
    return ".".join(parts) or None


def _message_of(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[-1] if text else type(e).__name__


def _layout_error(e) -> bool:
    if isinstance(e, LayoutError):
        return True
    mod = type(e).__module__ or ""
    if mod.startswith("construct"):
        return True
    return any(getattr(k, "__module__", "").startswith("construct") and k.__name__ ==
               "ConstructError" for k in type(e).__mro__)


def convert_error(e: Exception, offset: int | None, building: bool = False) -> BinlogError:
    """The typed error for any exception. One that is not a layout error (a crash the
    declarations did not foresee) stays reachable as ``.original``, for bug reports and the
    fuzz harness."""
    if isinstance(e, BinlogError):
        return e
    layout = _layout_error(e)
    err = _converted(e, offset, building, layout)
    err.original = None if layout else e
    return err


def _converted(e, offset, building, layout) -> BinlogError:
    path = _path_of(e) if layout else None
    msg = _message_of(e)
    if building:
        return BuildError(msg, offset=None, path=path)
    names = {k.__name__ for k in type(e).__mro__} if layout else ()
    if isinstance(e, StreamError) or "StreamError" in names:
        return TruncatedError(msg, offset=offset, path=path)
    if isinstance(e, LimitExceeded) or "LimitExceeded" in names:
        return LimitError(msg, offset=offset, path=path)
    if isinstance(e, ChecksumMismatch) or "ChecksumError" in names:
        return ChecksumError(msg, offset=offset, path=path or "checksum")
    return FormatError(msg, offset=offset, path=path)


# ---------------------------------------------------------------------------------------
# the public entry points


def parse_event(data: bytes, ctx: Context | None = None, offset: int | None = None):
    """Parse one whole event (header, body, CRC) from ``data``; ``offset`` (default the
    context's) is where the event starts in its file, for error reports."""
    if ctx is None:
        ctx = Context()
    try:
        parse_header, parsers, _, _ = _FAST[0] if _FAST else fast()
        return event_parse(data, {"_params": params_of(ctx)}, parse_header, parsers, _raw_parse)
    except Exception:  # noqa: BLE001 - re-run interpreted for a precise, typed error
        FALLBACKS["parse"] += 1
    from .events.envelope import Event
    stream = TrackingIO(data, base=ctx.offset if offset is None else offset)
    try:
        return Event.parse_stream(stream, ctx=ctx)
    except BinlogError:
        raise
    except Exception as e:  # noqa: BLE001 - everything leaves as a typed error
        raise convert_error(e, stream.recorder[0]) from None


def warm(kinds) -> None:
    """Load the compiled headers and the bodies of the (standard) type codes ``kinds``, both
    ways of reading (before worker processes are forked, so that each has them)."""
    fast()
    fast_json()
    _bodies().load(kinds)


def event_json(data: bytes, ctx: Context):
    """What :func:`parse_event` gives, with the header and the body as their JSON text (the
    encoder's text of parse_event's, made straight from the bytes); None when the event does
    not parse (:func:`parse_event` then says why)."""
    try:
        header_json, jsons = _JSON[0] if _JSON else fast_json()
        return event_parse(data, {"_params": params_of(ctx)}, header_json, jsons, _raw_json)
    except Exception:  # noqa: BLE001 - the caller parses it again, for the typed error
        return None


def _build_body(obj, io, this):
    return fast()[3].get(this["_kind"], _raw_build)(obj, io, this)


def frame_event(header: dict, body: bytes, ctx: Context | None = None) -> bytes:
    """A whole event around ``body`` kept as bytes, whatever its type (a hand-made or a
    deliberately invalid body: vectors, fuzz seeds): the common header built by its
    declaration from ``header`` (``type_code``, ``timestamp``, ``server_id``, ``flags``;
    ``log_pos`` computed when None or absent), event_size computed, the CRC32 when the
    context has checksums (a FORMAT_DESCRIPTION: when its own version says so)."""
    ctx = ctx or Context()
    value = {"header": {"timestamp": 0, "server_id": 1, "log_pos": None, "flags": [],
                        **header}, "body": bytes(body)}
    out = _BytesIO()
    envelope_build(value, out, {"_params": params_of(ctx)}, fast()[2], _raw_build)
    return out.getvalue()


def build_event(value, ctx: Context | None = None) -> bytes:
    """Build one whole event; event_size, log_pos (when None) and the CRC32 are computed."""
    ctx = ctx or Context()
    try:
        out = _BytesIO()
        envelope_build(value, out, {"_params": params_of(ctx)}, fast()[2], _build_body)
        return out.getvalue()
    except Exception:  # noqa: BLE001
        FALLBACKS["build"] += 1
    from .events.envelope import Event
    try:
        return Event.build(value, ctx=ctx)
    except BinlogError:
        raise
    except Exception as e:  # noqa: BLE001
        raise convert_error(e, None, building=True) from None

"""The whole event: the 19-byte common header, the body by type code, the CRC32 trailer (the
parse and build functions of the envelope are in :mod:`binlog_schema.mysql.framing`)."""

from __future__ import annotations

import construct as c

from ..construct_ext.primitives import FlagList, Raw, Struct, Switch, Wrapper, _pathed
from ..mysql.framing import envelope_build, envelope_parse
from ..mysql.names import EVENT_FLAGS
from . import BODIES

CommonHeader = Struct(
    "timestamp" / c.Int32ul,                 # 4  seconds since the epoch
    "type_code" / c.Int8ul,                  # 1  event type (mysql.codes)
    "server_id" / c.Int32ul,                 # 4  the originating server
    "event_size" / c.Int32ul,                # 4  header + body + CRC (computed on build)
    "log_pos" / c.Int32ul,                   # 4  offset of the next event (computed when None)
    "flags" / FlagList(2, EVENT_FLAGS),      # 2  LOG_EVENT_*_F
)


class Envelope(Wrapper):
    """One whole event: header, body (by type code), optional trailing bytes, CRC32."""

    def __init__(self, header, body):
        super().__init__(envelope_parse, envelope_build, body, buildnone=False)
        self.header = header

    def _parse(self, stream, context, path):
        ph = lambda io, this: self.header._parsereport(io, this, path + " -> header")  # noqa
        pb = lambda io, this: self.subcon._parsereport(io, this, path + " -> body")  # noqa
        return _pathed(lambda: envelope_parse(stream, context, ph, {}, pb), path)

    def _build(self, obj, stream, context, path):
        bh = lambda obj, io, this: self.header._build(obj, io, this, path + " -> header")  # noqa
        bb = lambda obj, io, this: self.subcon._build(obj, io, this, path + " -> body")  # noqa
        return _pathed(lambda: envelope_build(obj, stream, context, bh, bb), path)

    def _emitparse(self, code):
        from ..construct_ext.codegen import callable_of, ref
        header = callable_of(self.header._compileparse(code), code)
        cases, default = self.subcon.emit_tables(code)
        return f"{ref(envelope_parse, code)}(io, this, {header}, {cases}, {default})"

    def _emitbuild(self, code):
        from ..construct_ext.codegen import callable_of, ref
        header = callable_of(self.header._compilebuild(code), code, build=True)
        body = callable_of(self.subcon._compilebuild(code), code, build=True)
        return f"{ref(envelope_build, code)}(obj, io, this, {header}, {body})"

    def _emitprimitivetype(self, ksy, bitwise):  # Kaitai: the event type
        from ..mysql import kaitai
        return kaitai.event_type(self, ksy)


class _Kind:
    """The body switch's key: the standard type code of the event being parsed or built (see
    Context.type_remap), which the envelope puts in the context as ``_kind``."""

    def __call__(self, context):
        return context["_kind"]

    def __repr__(self):  # construct's Switch emits repr(keyfunc)
        return "this['_kind']"


EventBody = Switch(_Kind(), BODIES, default=Raw)
Event = Envelope(CommonHeader, EventBody)

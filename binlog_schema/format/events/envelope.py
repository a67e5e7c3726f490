"""The whole event: the 19-byte common header, the body by type code, the CRC32 trailer (the
parse and build functions of the envelope are in :mod:`binlog_schema.format.facts.framing`)."""

from __future__ import annotations

import construct as c

from ...construct_ext.primitives import Field, FlagList, Framed, Raw, Struct, Switch
from ..facts.framing import envelope_build, envelope_parse
from ..facts.names import EVENT_FLAGS
from . import BODIES

CommonHeader = Struct(
    "timestamp" / c.Int32ul,                 # 4  seconds since the epoch
    "type_code" / c.Int8ul,                  # 1  event type (format.facts.codes)
    "server_id" / c.Int32ul,                 # 4  the originating server
    "event_size" / c.Int32ul,                # 4  header + body + CRC (computed on build)
    "log_pos" / c.Int32ul,                   # 4  offset of the next event (computed when None)
    "flags" / FlagList(2, EVENT_FLAGS),      # 2  LOG_EVENT_*_F
)


EventBody = Switch(Field("_kind"), BODIES, default=Raw)   # by the standard type code, which
# the envelope puts in the context (Context.type_remap); an undeclared type: its bytes
Event = Framed(envelope_parse, envelope_build, CommonHeader, EventBody,
               ksy=("binlog_schema.output.kaitai", "event_type"))
"""One whole event: header, body (by type code), optional trailing bytes, CRC32."""

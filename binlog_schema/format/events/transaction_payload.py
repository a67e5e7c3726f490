"""TRANSACTION_PAYLOAD_EVENT (40, MySQL 8.0.20+): a compressed transaction.

Body: header fields, each a packed type and (except the end mark, type 0) a packed length and
a packed value: 1 PAYLOAD_SIZE, 2 COMPRESSION_TYPE (0 = zstd, 255 = none), 3
UNCOMPRESSED_SIZE; then the payload: the transaction's events, compressed, without CRC32s.
The compressed bytes are kept so the event rebuilds exactly;
:func:`binlog_schema.format.facts.compression.payload_events_bytes` gives the inner events' bytes.
"""

from __future__ import annotations

from ...construct_ext.primitives import (Bounded, FieldIs, If, Leaf, PackedInt, Raw,
                                        RepeatUntilValue, Struct)
from ..facts.compression import ptype_build, ptype_parse
from ..facts.codes import TRANSACTION_PAYLOAD_EVENT

PayloadFieldType = Leaf(ptype_parse, ptype_build)

PayloadField = Struct(
    "type" / PayloadFieldType,                                   # packed, named
    "value" / If(FieldIs(("type",), "END", negate=True),
                 Bounded(PackedInt)),                            # packed length, packed value
)

TransactionPayloadBody = Struct(
    "fields" / RepeatUntilValue(PayloadField, "type", "END"),
    "payload" / Raw,                                             # compressed inner events
)

BODIES = {TRANSACTION_PAYLOAD_EVENT: TransactionPayloadBody}

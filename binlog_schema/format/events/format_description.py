"""FORMAT_DESCRIPTION_EVENT (15) and START_EVENT_V3 (1): the events that describe a file.

The CRC32 that follows an FDE (present whenever ``checksum_alg`` is, even when it says off)
is the envelope's business, as is the rule that it is computed with the in-use flag cleared;
the context an FDE sets is :func:`binlog_schema.format.facts.flavor.context_from_fde`.
"""

from __future__ import annotations

import construct as c

from ...construct_ext.primitives import Apply, ByteListLeaving, FixedText, If, Struct
from ..facts.codes import FORMAT_DESCRIPTION_EVENT, START_EVENT_V3
from ..facts.flavor import fde_alg_len, fde_has_checksum

_ALG_LEN = Apply(fde_alg_len, "server_version")
_HAS_ALG = Apply(fde_has_checksum, "server_version")

FormatDescriptionBody = Struct(
    "binlog_version" / c.Int16ul,                         # 2  4
    "server_version" / FixedText(50),                     # 50 NUL padded
    "create_timestamp" / c.Int32ul,                       # 4
    "header_length" / c.Int8ul,                           # 1  19
    "post_header_lengths" / ByteListLeaving(_ALG_LEN),    # one byte per event type
    "checksum_alg" / If(_HAS_ALG, c.Int8ul),              # 1  MySQL 5.6.1+/MariaDB 5.3+:
)                                                         #    0 = off, 1 = CRC32

StartEventV3Body = Struct(
    "binlog_version" / c.Int16ul,                         # 2  1 or 3
    "server_version" / FixedText(50),                     # 50 NUL padded
    "create_timestamp" / c.Int32ul,                       # 4
)

BODIES = {START_EVENT_V3: StartEventV3Body, FORMAT_DESCRIPTION_EVENT: FormatDescriptionBody}

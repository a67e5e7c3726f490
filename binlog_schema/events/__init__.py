"""Declarations: one module per event family, the post-header and body of each event type
(:mod:`.envelope` declares the whole event around them).

``BODIES`` maps a type code (standard numbering, :mod:`binlog_schema.mysql.codes`) to its body
declaration; a code not in it keeps its body raw.
"""

from __future__ import annotations

from . import gtid, query, rows
from .format_description import FormatDescriptionBody, StartEventV3Body
from .table_map import TableMapBody
from .transaction_payload import TransactionPayloadBody

BODIES = {
    1: StartEventV3Body,
    15: FormatDescriptionBody,
    19: TableMapBody,
    40: TransactionPayloadBody,
    **query.BODIES,
    **gtid.BODIES,
    **rows.BODIES,
}

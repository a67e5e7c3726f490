"""Declarations: one module per event family, the post-header and body of each event type
(:mod:`.envelope` declares the whole event around them).

Each family module has ``BODIES``: type code (standard numbering,
:mod:`binlog_schema.mysql.codes`) -> body declaration. ``BODIES`` here merges them; a code in
none of them keeps its body raw. ``BODY_FAMILY`` says which family declares each code (the
compiled declarations are loaded per family).
"""

from __future__ import annotations

from . import format_description, gtid, query, rows, table_map, transaction_payload

FAMILIES = {"format_description": format_description, "query": query, "gtid": gtid,
            "rows": rows, "table_map": table_map, "transaction_payload": transaction_payload}

BODIES = {kind: body for family in FAMILIES.values() for kind, body in family.BODIES.items()}
BODY_FAMILY = {kind: name for name, family in FAMILIES.items() for kind in family.BODIES}

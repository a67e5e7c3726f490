"""The statement of a QUERY event, as far as readers that do not replay it need it: its first
bytes, read from an undecoded event (most QUERYs are BEGIN and COMMIT: known without
decoding them, which costs ten times as much) or from the decoded body, with the comments
and spaces before it passed over.

One reading for the row decoder (which statements change the schema, which are
statement-based row changes: :func:`statement_verb`) and the transaction tracker (BEGIN, XA
START, COMMIT, ROLLBACK [TO]...: :func:`statement_head`).
"""

from __future__ import annotations

import re

from ..mysql.flavor import checksum_length
from ..mysql.framing import HEADER_SIZE
from ..mysql.post_header import query_statement_at

_LEAD = r"(?:\s+|/\*.*?\*/|(?:#|--)[^\n]*(?:\n|$))*"   # spaces and comments before it
_VERB = re.compile(_LEAD + r"([A-Za-z]+)", re.S)
_START = re.compile(_LEAD, re.S)


def raw_statement(rec, n: int = 256) -> bytes | None:
    """The first ``n`` bytes of an undecoded QUERY record's statement (post-header, status
    variables and database passed over by post_header's rule); None where its body is
    shorter than its post-header."""
    raw = rec.raw
    data = raw[HEADER_SIZE:len(raw) - checksum_length(rec.kind, None, rec.ctx)]
    at = query_statement_at(data, {"_params": {"ctx": rec.ctx}}, rec.kind)
    return None if at is None else bytes(data[at:at + n])


def record_statement(rec, n: int = 256):
    """A QUERY record's statement (its first ``n`` bytes when undecoded, else the decoded
    text); None when it has none (an error, no statement)."""
    if rec.unparsed:
        return raw_statement(rec, n)
    body = rec.value["body"] if rec.error is None and rec.value is not None else None
    return body.get("query") if isinstance(body, dict) else None


def _text(query) -> str:
    if isinstance(query, (bytes, bytearray, memoryview)):
        return bytes(query[:256]).decode("utf-8", "replace")
    return query


def statement_verb(query) -> str:
    """The first keyword of a statement, lower case: ``insert``, ``alter``, ``begin``...;
    '' when there is none."""
    m = _VERB.match(_text(query))
    return m.group(1).lower() if m else ""


def statement_head(query, n: int = 32) -> str:
    """The first ``n`` characters of a statement, upper case (``XA START``, ``ROLLBACK TO``
    told from their first words)."""
    text = _text(query)
    m = _START.match(text)
    return text[m.end():m.end() + n].upper()

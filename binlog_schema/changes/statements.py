"""The statement of a QUERY event, as far as readers that do not replay it need it: its first
bytes, read from an undecoded event (most QUERYs are BEGIN and COMMIT: known without
decoding them, which costs ten times as much) or from the decoded body, with the comments
and spaces before it passed over.

One reading for the row decoder (which statements change the schema, which are
statement-based row changes: :func:`statement_verb`) and the transaction tracker
(:data:`TRANSACTION_STATEMENTS`, the one table of the statements that begin, end or belong to
a transaction, and its forms: :func:`statement_role` for text and bytes, :data:`ROLE_PATTERN`
and :data:`ROLE_OF_WORDS` for the Spark SQL form that ``spark current`` builds from them).
"""

from __future__ import annotations

import re

from ..format.facts.flavor import checksum_length
from ..format.facts.framing import HEADER_SIZE
from ..format.facts.post_header import query_statement_at

_SPACE = r"[ \t\n\r\f\x0B]"   # (one class in Python and Java regexes alike)
_LEAD = rf"(?:{_SPACE}+|/\*.*?\*/|(?:#|--)[^\n]*(?:\n|$))*"   # spaces and comments before it
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


# ------------------------------------------------------------------ transaction statements

# What a statement does to the transaction it is met in (the roles of TRANSACTION_STATEMENTS;
# None: an ordinary statement, DML or DDL, whose place the transaction tracker decides:
# changes/transactions.py's Boundary).
BEGINS = "begins"     # opens a transaction
ENDS = "ends"         # ends the open one (committed, rolled back, or prepared)
BELONGS = "belongs"   # a part of the open one that neither opens nor ends it

# The one table of the statements that control transactions, by their first words (any case,
# after spaces and comments; the longest entry that matches wins; a word is whole: BEGINNING
# is not BEGIN). What the servers write (their sources, and binlogs of a real MariaDB 10.11):
# * MySQL (every version) and MariaDB before 10.0 open each transaction with a QUERY "BEGIN"
#   (binlog.cc's binlog cache, after the GTID event from 5.6 on); MySQL's own rule is
#   Query_log_event::starts_group/ends_group and rpl_trx_boundary_parser.cc ("BEGIN", "XA
#   START" begin; "COMMIT", "ROLLBACK" but not "ROLLBACK TO ", "XA ROLLBACK" end; any other
#   statement after a GTID without BEGIN is a DDL group of its own).
# * MariaDB 10.0+ writes no BEGIN: its GTID event opens the transaction (mariadb-binlog prints
#   it as START TRANSACTION; a master converts it into a QUERY "BEGIN" for a replica that does
#   not know GTIDs, sql_repl.cc), unless flagged STANDALONE ("no terminating COMMIT": a DDL
#   statement, or XA COMMIT/ROLLBACK of a prepared transaction). Statement-based DML follows the
#   GTID as written (lower case too); the end is an XID, or a QUERY "COMMIT" (non-transactional
#   tables) or "ROLLBACK" (log.cc's binlog_commit_flush_*).
# * Savepoints are written inside the transaction when a non-transactional table was changed:
#   "SAVEPOINT `sp`", "ROLLBACK TO `sp`" (MySQL and MariaDB, binlog_savepoint_set/rollback).
# * XA: MySQL writes "XA START X'..',X'..',n", the changes, "XA END X'..'", then an
#   XA_PREPARE_LOG_EVENT; MariaDB (10.5+) a GTID flagged PREPARED_XA (no XA START), the changes,
#   "XA END X'..',X'..',n", XA_PREPARE_LOG_EVENT. The second phase is a group of its own: GTID
#   (MariaDB: STANDALONE, COMPLETED_XA), then "XA COMMIT X'..'" or "XA ROLLBACK X'..'".
# * "START TRANSACTION", "BEGIN WORK", "COMMIT WORK", "XA BEGIN" (a synonym of XA START) and a
#   QUERY "XA PREPARE" are what a user types, not what the servers write; they are read with
#   the same meaning. MariaDB's compound statement BEGIN NOT ATOMIC ... END opens nothing.
TRANSACTION_STATEMENTS = (
    ("BEGIN", BEGINS),
    ("BEGIN NOT ATOMIC", None),
    ("START TRANSACTION", BEGINS),
    ("XA START", BEGINS),
    ("XA BEGIN", BEGINS),
    ("SAVEPOINT", BELONGS),
    ("RELEASE SAVEPOINT", BELONGS),
    ("ROLLBACK TO", BELONGS),
    ("ROLLBACK WORK TO", BELONGS),
    ("XA END", BELONGS),
    ("COMMIT", ENDS),
    ("ROLLBACK", ENDS),
    ("XA PREPARE", ENDS),
    ("XA COMMIT", ENDS),
    ("XA ROLLBACK", ENDS),
)

# the entries longest first (a regex alternation takes the first that matches)
_ENTRIES = sorted(TRANSACTION_STATEMENTS, key=lambda e: -len(e[0].split()))
# the first words of an entry, as a pattern: words separated by spaces
_WORDS = [rf"{_SPACE}+".join(w.split()) for w, _ in _ENTRIES]
_WHOLE = r"(?![0-9A-Za-z_$])"   # the last word ends there

# The Spark SQL form's two parts (Java regex syntax, the same as Python's here): the words of
# the entry a statement starts with (group 1; '' for none), then, spaces made one and upper
# case, its role in ROLE_OF_WORDS (pipeline/current_job.py builds the Column from them).
ROLE_PATTERN = rf"(?is)^{_LEAD}({'|'.join(_WORDS)}){_WHOLE}"
ROLE_OF_WORDS = {w: role for w, role in TRANSACTION_STATEMENTS}

# Python's form: a group per entry (the match's lastindex says which), for text and bytes
_GROUPED = rf"{_LEAD}(?:{'|'.join(f'({w})' for w in _WORDS)}){_WHOLE}"
_ROLE_TEXT = re.compile(_GROUPED, re.S | re.I | re.A)   # (case folded as in Java: ASCII)
_ROLE_BYTES = re.compile(_GROUPED.encode(), re.S | re.I)
_ROLES = [None] + [role for _, role in _ENTRIES]   # by group number

# the first words (lower case) of the statements that control transactions
CONTROL_VERBS = frozenset(w.split()[0].lower() for w, role in TRANSACTION_STATEMENTS
                          if role is not None)


def statement_role(query):
    """What a statement (text, or the first bytes of an undecoded one) does to the transaction
    it is in, by :data:`TRANSACTION_STATEMENTS`: :data:`BEGINS`, :data:`ENDS`,
    :data:`BELONGS`, or None (an ordinary statement, or none)."""
    if query is None:
        return None
    m = (_ROLE_TEXT if isinstance(query, str) else _ROLE_BYTES).match(query)
    return None if m is None else _ROLES[m.lastindex]

"""Post-header lengths: from the FORMAT_DESCRIPTION in the context (``post_header_lengths``,
indexed by the code the file stores), or, in files without one (START_EVENT_V3: binlog v1 and
v3), from the binlog version; and the QUERY-family rules that follow from them. Every function
takes the construct context ``this`` (the explicit context object is ``this._params.ctx``)
and is kept per context object (its result depends on nothing else)."""

from __future__ import annotations

from ..construct_ext.exprs import field, int_field, items
from .names import GTID_FLAGS3_WITH_SEQ_NO, OVER_MAX_DBS


def _per_context(fn):
    """``fn(this, *args)`` depends on the context object and the arguments only: its result
    is kept in the context's cache (dropped by ``Context.replace``), one lookup per call."""
    name = fn.__name__

    def cached(this, *args):
        ctx = this["_params"].get("ctx")
        if ctx is None:
            return fn(this, *args)
        memo = ctx.extra.get("_per_ctx")
        if memo is None:
            memo = ctx.extra["_per_ctx"] = {}
        key = (name, *args)
        value = memo.get(key, memo)
        if value is memo:
            value = memo[key] = fn(this, *args)
        return value
    cached.__name__ = cached.__qualname__ = name
    cached.__module__ = fn.__module__
    cached.__doc__ = fn.__doc__
    return cached


def _length(ctx, code, v4, old, v1):
    table = ctx["post_header_lengths"]
    if table is not None:
        remap = ctx["type_remap"]
        if remap:
            code = next((k for k, v in remap.items() if v == code), code)
        if 0 < code <= len(table):
            return table[code - 1]
    version = ctx["binlog_version"]
    if version >= 4:
        return v4
    return old if version > 1 or v1 is None else v1


@_per_context
def post_header_length(this, code: int, v4: int, old: int, v1: int | None = None) -> int:
    """The post-header length of event type ``code`` (standard numbering): the FDE's entry for
    the code the file stores, else ``v4`` (binlog v4 without a table), ``old`` (v2/v3) or
    ``v1``."""
    ctx = this["_params"].get("ctx")
    if ctx is None:
        return v4
    return _length(ctx, code, v4, old, v1)


@_per_context
def post_header_at_least(this, code, v4, old, n, v1=None) -> bool:
    return post_header_length(this, code, v4, old, v1) >= n


@_per_context
def post_header_extra(this, code, v4, old, base, v1=None) -> int:
    """How many post-header bytes follow the ``base`` bytes the declaration knows (0
    normally)."""
    return max(post_header_length(this, code, v4, old, v1) - base, 0)


@_per_context
def has_post_header_extra(this, code, v4, old, base, v1=None) -> bool:
    return post_header_extra(this, code, v4, old, base, v1) > 0


@_per_context
def query_extra(this, code, known) -> int:
    """QUERY-family post-header bytes beyond ``known`` (+2 for status_vars_len in v4)."""
    phl = post_header_length(this, code, 13 + known, 11 + known)
    return max(phl - (known + (13 if phl >= 13 + known else 11)), 0)


@_per_context
def has_query_extra(this, code, known) -> bool:
    return query_extra(this, code, known) > 0


@_per_context
def has_status_vars(this, code, known) -> bool:
    return post_header_length(this, code, 13 + known, 11 + known) >= 13 + known


# Where QUERY's post-header (events/query.py: thread_id 4, exec_time 4, db_len 1,
# error_code 2, status_vars_len 2) keeps the two lengths that say where the statement starts;
# for the readers that find BEGIN/COMMIT without decoding the event.
QUERY_DB_LEN_AT = 8
QUERY_STATUS_VARS_LEN_AT = 11
# MariaDB's GTID post-header: seq_no (8), domain_id (4), then flags2 (events/gtid.py)
MARIA_GTID_FLAGS2_AT = 12


def query_status_vars_len(head: bytes, this, code: int, known: int = 0) -> int:
    """status_vars_len of a QUERY-family post-header (0 where the binlog version has none)."""
    if not has_status_vars(this, code, known):
        return 0
    return int.from_bytes(head[QUERY_STATUS_VARS_LEN_AT:QUERY_STATUS_VARS_LEN_AT + 2], "little")


def query_statement_at(body: bytes, this, code: int) -> int | None:
    """Where the statement starts in a QUERY body (post-header, status variables, database
    and its NUL passed over); None when the body is shorter than its post-header."""
    post = post_header_length(this, code, 13, 11)
    if len(body) < max(post, QUERY_DB_LEN_AT + 1):
        return None
    return post + query_status_vars_len(body, this, code) + body[QUERY_DB_LEN_AT] + 1


def query_status_overrun(head: bytes, size: int, this, code: int, known: int) -> bool:
    """The servers' "Invalid status vars length": status_vars_len runs past the body."""
    if not has_status_vars(this, code, known) or len(head) < QUERY_STATUS_VARS_LEN_AT + 2:
        return False
    phl = post_header_length(this, code, 13 + known, 11 + known)
    return query_status_vars_len(head, this, code, known) > size - phl


# ---------------------------------------------------------------------------- QUERY status vars


def db_names_count(this) -> int:
    """UPDATED_DB_NAMES' count: OVER_MAX_DBS when the names are None (too many)."""
    names = field(this, "names")
    return OVER_MAX_DBS if names is None else len(items(this, "names"))


def gtid_flags3_has_seq_no(this) -> bool:
    return bool(int_field(this, "flags") & GTID_FLAGS3_WITH_SEQ_NO)


def user_var_not_null(this) -> bool:
    return field(this, "is_null") == 0


def table_id_of(raw, ctx) -> int:
    """The table id of a TABLE_MAP or rows event, from its bytes (the post-header's first
    field: 6 bytes, 4 in files whose FDE gives TABLE_MAP a 6-byte post-header), without
    parsing the event."""
    return int.from_bytes(raw[19:19 + ctx.table_id_size], "little")


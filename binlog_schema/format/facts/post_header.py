"""Post-header lengths: from the FORMAT_DESCRIPTION in the context (``post_header_lengths``,
indexed by the code the file stores), or, in files without one (START_EVENT_V3: binlog v1 and
v3), from the binlog version; and the QUERY-family rules that follow from them. Every function
takes the construct context ``this`` (the explicit context object is ``this._params.ctx``)
and is kept per context object (its result depends on nothing else)."""

from __future__ import annotations

from ...construct_ext.context_functions import field, int_field, items
from . import codes
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


class ByVersion:
    """The post-header length of an event type where no FORMAT_DESCRIPTION gives it: what
    each binlog version writes. (A plain class: ``typing.NamedTuple`` would load ``typing``
    and ``re`` at every start, about 9 ms of a command's 70.)"""

    __slots__ = ("v4", "v3", "v1")

    def __init__(self, v4: int, v3: int, v1: int | None = None):
        self.v4 = v4   # binlog v4 (MySQL 5.0+, MariaDB) without an FDE entry for it
        self.v3 = v3   # binlog v3 and v2 (START_EVENT_V3: MySQL 4.0, 4.1)
        self.v1 = v1   # binlog v1 (MySQL 3.23), where it differs from v3

    def __repr__(self):
        return f"ByVersion(v4={self.v4}, v3={self.v3}, v1={self.v1})"


# The post-header lengths by binlog version of the event types whose declarations read them
# (format/events/query.py); every other type's layout does not depend on its post-header length.
POST_HEADER_BY_VERSION = {
    # thread_id 4, exec_time 4, db_len 1, error_code 2, status_vars_len 2 (v4 only)
    codes.QUERY_EVENT: ByVersion(v4=13, v3=11),
    codes.QUERY_COMPRESSED_EVENT: ByVersion(v4=13, v3=11),      # QUERY's
    # QUERY's, then file_id 4, fn_pos_start 4, fn_pos_end 4, dup_handling 1
    codes.EXECUTE_LOAD_QUERY_EVENT: ByVersion(v4=26, v3=24),
    codes.ROTATE_EVENT: ByVersion(v4=8, v3=8, v1=0),            # position 8 (none in 3.23)
    codes.CREATE_FILE_EVENT: ByVersion(v4=4, v3=4),             # file_id 4
    codes.APPEND_BLOCK_EVENT: ByVersion(v4=4, v3=4),            # file_id 4
    codes.BEGIN_LOAD_QUERY_EVENT: ByVersion(v4=4, v3=4),        # file_id 4
    codes.INCIDENT_EVENT: ByVersion(v4=2, v3=2),                # incident 2
}


def _length(ctx, code):
    table = ctx["post_header_lengths"]
    if table is not None:
        remap = ctx["type_remap"]
        file_code = code
        if remap:
            file_code = next((k for k, v in remap.items() if v == code), code)
        if 0 < file_code <= len(table):
            return table[file_code - 1]
    by_version = POST_HEADER_BY_VERSION[code]
    version = ctx["binlog_version"]
    if version >= 4:
        return by_version.v4
    return by_version.v3 if version > 1 or by_version.v1 is None else by_version.v1


@_per_context
def post_header_length(this, code: int) -> int:
    """The post-header length of event type ``code`` (standard numbering): the FDE's entry for
    the code the file stores, else what the binlog version writes
    (:data:`POST_HEADER_BY_VERSION`)."""
    ctx = this["_params"].get("ctx")
    if ctx is None:
        return POST_HEADER_BY_VERSION[code].v4
    return _length(ctx, code)


@_per_context
def post_header_at_least(this, code: int, n: int) -> bool:
    """The post-header of event type ``code`` has at least ``n`` bytes."""
    return post_header_length(this, code) >= n


@_per_context
def post_header_extra(this, code: int, base: int) -> int:
    """How many post-header bytes follow the ``base`` bytes the declaration knows (0
    normally)."""
    return max(post_header_length(this, code) - base, 0)


@_per_context
def has_post_header_extra(this, code: int, base: int) -> bool:
    return post_header_extra(this, code, base) > 0


@_per_context
def query_extra(this, code: int) -> int:
    """QUERY-family post-header bytes beyond the declared ones (status_vars_len's 2 among
    them where the length is at least binlog v4's)."""
    phl = post_header_length(this, code)
    by_version = POST_HEADER_BY_VERSION[code]
    return max(phl - (by_version.v4 if phl >= by_version.v4 else by_version.v3), 0)


@_per_context
def has_query_extra(this, code: int) -> bool:
    return query_extra(this, code) > 0


@_per_context
def has_status_vars(this, code: int) -> bool:
    """A QUERY-family post-header holds status_vars_len (it is as long as binlog v4's)."""
    return post_header_length(this, code) >= POST_HEADER_BY_VERSION[code].v4


# Where QUERY's post-header (format/events/query.py: thread_id 4, exec_time 4, db_len 1,
# error_code 2, status_vars_len 2) keeps the two lengths that say where the statement starts;
# for the readers that find BEGIN/COMMIT without decoding the event.
QUERY_DB_LEN_AT = 8
QUERY_STATUS_VARS_LEN_AT = 11
# MariaDB's GTID post-header: seq_no (8), domain_id (4), then flags2 (format/events/gtid.py)
MARIA_GTID_FLAGS2_AT = 12


def query_status_vars_len(head: bytes, this, code: int) -> int:
    """status_vars_len of a QUERY-family post-header (0 where the binlog version has none)."""
    if not has_status_vars(this, code):
        return 0
    return int.from_bytes(head[QUERY_STATUS_VARS_LEN_AT:QUERY_STATUS_VARS_LEN_AT + 2], "little")


def query_statement_at(body: bytes, this, code: int) -> int | None:
    """Where the statement starts in a QUERY body (post-header, status variables, database
    and its NUL passed over); None when the body is shorter than its post-header."""
    post = post_header_length(this, code)
    if len(body) < max(post, QUERY_DB_LEN_AT + 1):
        return None
    return post + query_status_vars_len(body, this, code) + body[QUERY_DB_LEN_AT] + 1


def query_status_overrun(head: bytes, size: int, this, code: int) -> bool:
    """The servers' "Invalid status vars length": status_vars_len runs past the body."""
    if not has_status_vars(this, code) or len(head) < QUERY_STATUS_VARS_LEN_AT + 2:
        return False
    return query_status_vars_len(head, this, code) > size - post_header_length(this, code)


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


"""Statement events: QUERY and its variants, the LOAD DATA family, the events that carry a
statement's context (user variables, RAND seeds, INSERT_ID), and the small control events.

Every length and count in these layouts is derived on build (``c.Rebuild``); post-header
lengths come from the FORMAT_DESCRIPTION event in the context (``post_header_lengths``,
indexed by the code the file stores), or, in files without one (START_EVENT_V3: binlog v1 and
v3), from the binlog version. Layouts were read off the servers' readers and writers
(MySQL ``libs/mysql/binlog/event/{statement,load_data,control}_events.*``, MariaDB
``sql/log_event.{h,cc}``) and checked against real bytes (shared corpus, a MariaDB 10.11
server).

QUERY (2), EXECUTE_LOAD_QUERY (18), QUERY_COMPRESSED (165, MariaDB)::

    thread_id 4 | exec_time 4 | db_len 1 | error_code 2 | status_vars_len 2 (binlog v4 only)
    [EXECUTE_LOAD_QUERY: file_id 4 | fn_pos_start 4 | fn_pos_end 4 | dup_handling 1]
    [post-header bytes beyond these, when the FDE announces a longer post-header]
    status_vars (status_vars_len bytes) | database (db_len bytes) | NUL | query (to the end)

Status variables are ``{code, value}`` items decoded per code; an unknown code ends the walk
and the rest of the block is kept as ``{"raw": ...}`` (its length cannot be known). A status
block longer than the body (which the servers reject as corrupt, e.g. the corpus's
corrupt-relay-bin.000624) keeps the whole body raw, like an undeclared event type.
QUERY_COMPRESSED keeps the compressed query bytes (``compressed``) and gives the text
(``query``) too; on build the compressed bytes are written when present (they must agree with
``query``), else ``query`` is compressed.

LOAD (6) and NEW_LOAD (12) (MySQL 3.23/4.0), CREATE_FILE (8)::

    thread_id 4 | exec_time 4 | skip_lines 4 | table_len 1 | db_len 1 | num_fields 4
    [CREATE_FILE: file_id 4]
    sql_ex: LOAD: 7 one-byte fields; NEW_LOAD and CREATE_FILE (every version, checked on the
            4.1 file binlog_old_version_4_1.000001): 5 one-byte-length strings + opt_flags
    field_lens (num_fields bytes) | field names (each + NUL) | table + NUL | database + NUL
    file name: LOAD/NEW_LOAD to the end; CREATE_FILE + NUL, then the first data block
"""

from __future__ import annotations

import functools
import io as _io

import construct as c
from construct import Container, ListContainer, this

from ..compression import mariadb_compress, mariadb_uncompress
from ..primitives import (Bounded, ByteString, Code, FlagList, FuncRef, IfMore, NameTable, Raw,
                          Struct, TaggedList, Text, TrackingIO, UIntLE, _Leaf, _Wrapper, expr_ref,
                          read_exact, remaining, substream)

_MOD = __name__

# ======================================================================================
# names

STATUS_VAR_CODES = {
    0: "FLAGS2", 1: "SQL_MODE", 2: "CATALOG", 3: "AUTO_INCREMENT", 4: "CHARSET",
    5: "TIME_ZONE", 6: "CATALOG_NZ", 7: "LC_TIME_NAMES", 8: "CHARSET_DATABASE",
    9: "TABLE_MAP_FOR_UPDATE", 10: "MASTER_DATA_WRITTEN", 11: "INVOKER",
    12: "UPDATED_DB_NAMES", 13: "MICROSECONDS", 14: "COMMIT_TS",
    16: "EXPLICIT_DEFAULTS_FOR_TIMESTAMP", 17: "DDL_LOGGED_WITH_XID",
    18: "DEFAULT_COLLATION_FOR_UTF8MB4", 19: "SQL_REQUIRE_PRIMARY_KEY",
    20: "DEFAULT_TABLE_ENCRYPTION", 21: "ENABLE_CASCADE_TRIGGERS",
    # MariaDB
    128: "HRNOW", 129: "XID", 130: "GTID_FLAGS3", 131: "CHARACTER_SET_COLLATIONS",
}
# 15 (Q_COMMIT_TS2, a 5.7 development-tree code never written by a GA server) has no known
# layout: like any unknown code, it ends the walk and the rest of the block stays raw.
QUERY_STATUS_VARS = NameTable(_MOD, "QUERY_STATUS_VARS", STATUS_VAR_CODES)
KNOWN_STATUS_CODES = frozenset(STATUS_VAR_CODES)

# thd->options bits written to the binlog (OPTIONS_WRITTEN_TO_BIN_LOG, the same in both
# flavors); other bits stay ints.
QUERY_FLAGS2 = NameTable(_MOD, "QUERY_FLAGS2", {
    0x4000: "AUTO_IS_NULL", 0x80000: "NOT_AUTOCOMMIT", 0x4000000: "NO_FOREIGN_KEY_CHECKS",
    0x8000000: "RELAXED_UNIQUE_CHECKS"})

LOAD_DUP_HANDLING = NameTable(_MOD, "LOAD_DUP_HANDLING", {
    0: "ERROR", 1: "IGNORE", 2: "REPLACE"})
INTVAR_TYPES = NameTable(_MOD, "INTVAR_TYPES", {
    0: "INVALID_INT", 1: "LAST_INSERT_ID", 2: "INSERT_ID"})
USER_VAR_TYPES = NameTable(_MOD, "USER_VAR_TYPES", {  # Item_result
    0: "STRING", 1: "REAL", 2: "INT", 3: "ROW", 4: "DECIMAL"})
USER_VAR_FLAGS = NameTable(_MOD, "USER_VAR_FLAGS", {0x1: "UNSIGNED"})
LOAD_OPT_FLAGS = NameTable(_MOD, "LOAD_OPT_FLAGS", {
    0x1: "DUMPFILE", 0x2: "OPT_ENCLOSED", 0x4: "REPLACE", 0x8: "IGNORE"})
LOAD_EMPTY_FLAGS = NameTable(_MOD, "LOAD_EMPTY_FLAGS", {
    0x1: "FIELD_TERM_EMPTY", 0x2: "ENCLOSED_EMPTY", 0x4: "LINE_TERM_EMPTY",
    0x8: "LINE_START_EMPTY", 0x10: "ESCAPED_EMPTY"})

OVER_MAX_DBS = 254  # Q_UPDATED_DB_NAMES count meaning "too many databases": no names follow
GTID_FLAGS3_WITH_SEQ_NO = 0x4 | 0x8  # FL_COMMIT_ALTER_E1 | FL_ROLLBACK_ALTER_E1


# ======================================================================================
# context: post-header lengths


def _per_context(fn):
    """``fn(this, *args)`` depends on the context object and the arguments only: its result
    is kept in the context's cache (dropped by ``Context.replace``), one lookup per call."""
    name = fn.__name__

    @functools.wraps(fn)
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
    return cached


@_per_context
def post_header_length(this, code: int, v4: int, old: int, v1: int | None = None) -> int:
    """The post-header length of event type ``code`` (standard numbering): the FDE's entry for
    the code the file stores, else ``v4`` (binlog v4 without a table), ``old`` (v2/v3) or
    ``v1``."""
    ctx = this["_params"].get("ctx")
    if ctx is None:
        return v4
    return _post_header_length(ctx, code, v4, old, v1)


def _post_header_length(ctx, code, v4, old, v1):
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
def post_header_at_least(this, code, v4, old, n, v1=None) -> bool:
    return post_header_length(this, code, v4, old, v1) >= n


@_per_context
def post_header_extra(this, code, v4, old, base, v1=None) -> int:
    """How many post-header bytes follow the ``base`` bytes this module knows (0 normally)."""
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


class _Call:
    """A construct expression calling a function of this module with the context and
    constant arguments; its repr is the same call in generated code."""

    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __call__(self, context):
        return self.fn(context, *self.args)

    def __repr__(self):
        args = "".join(", " + repr(a) for a in self.args)
        return f"{expr_ref(self.fn)}(this{args})"


def Opt(condition, subcon):
    """``c.If`` whose value may be left out on build (None) when the condition is false."""
    con = c.If(condition, subcon)
    con.flagbuildnone = True
    return con


def _extra(code, v4, old, base, v1=None):
    """The post-header bytes a longer FDE entry announces: None when there are none."""
    return "post_header_extra" / Opt(
        _Call(has_post_header_extra, code, v4, old, base, v1),
        ByteString(_Call(post_header_extra, code, v4, old, base, v1)))


# ======================================================================================
# derived values


def _encoded(value) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise c.StringError(f"expected str or bytes, got {value!r:.40}")


def _text(data: bytes):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def _field(this, key):
    """A field of the value being built (or parsed); its absence is a construct error."""
    try:
        return this[key]
    except KeyError:
        raise c.ValidationError(f"missing field {key!r}") from None


def _items(this, key) -> list:
    value = _field(this, key)
    if not isinstance(value, (list, tuple)):
        raise c.ValidationError(f"{key} must be a list, got {value!r:.40}")
    return value


def byte_len(this, key) -> int:
    """Byte length of the text (or bytes) field ``key``."""
    return len(_encoded(_field(this, key)))


def byte_len_low(this, key) -> int:
    """The low byte of ``key``'s length (the writer's ``(uchar) length``)."""
    return len(_encoded(_field(this, key))) & 0xFF


def list_len(this, key) -> int:
    return len(_items(this, key))


def name_lens(this, key) -> list:
    return [len(_encoded(name)) for name in _items(this, key)]


def db_names_count(this) -> int:
    names = _field(this, "names")
    return OVER_MAX_DBS if names is None else len(_items(this, "names"))


_status_vars_compiled = []


def status_vars_size(this) -> int:
    """The byte length of the status variables (built once to measure them)."""
    if not _status_vars_compiled:
        _status_vars_compiled.append(StatusVars.compile())
    value = _items(this, "status_vars")
    buf = _io.BytesIO()
    try:
        _status_vars_compiled[0].build_stream(value, buf)
    except Exception:  # noqa: BLE001 - re-run interpreted: it raises a construct error
        buf = _io.BytesIO()
        StatusVars.build_stream(value, buf)
    return len(buf.getvalue())


def gtid_flags3_has_seq_no(this) -> bool:
    flags = _field(this, "flags")
    if not isinstance(flags, int):
        raise c.IntegerError(f"flags must be an int, got {flags!r:.40}")
    return bool(flags & GTID_FLAGS3_WITH_SEQ_NO)


def user_var_not_null(this) -> bool:
    return _field(this, "is_null") == 0


def get_or_none(this, key):
    return this.get(key)


# ======================================================================================
# primitives this module adds (each a _Leaf/_Wrapper with one parse and one build function;
# candidates for primitives.py). Defined here, before the declarations that use them.


def query_sizedtext_parse(io, n):
    return _text(read_exact(io, n))


def query_sizedtext_build(obj, io, n):
    data = _encoded(obj)
    if len(data) != n:
        raise c.RangeError(f"{len(data)} bytes where the length field says {n}")
    io.write(data)
    return obj


def SizedText(n):
    """``n`` bytes as ``str`` when valid UTF-8, else ``bytes`` (lossless)."""
    return _Leaf(query_sizedtext_parse, query_sizedtext_build, n, size=n)


def query_cstr_parse(io):
    pos = io.tell()
    data = io.read()
    end = data.find(b"\0")
    if end < 0:
        raise c.StreamError("no NUL terminator before the end")
    io.seek(pos + end + 1)
    return _text(data[:end])


def query_cstr_build(obj, io):
    data = _encoded(obj)
    if b"\0" in data:
        raise c.StringError(f"{obj!r:.40} contains a NUL byte")
    io.write(data + b"\0")
    return obj


CStr = _Leaf(query_cstr_parse, query_cstr_build)
"""A NUL-terminated string (text when UTF-8, else bytes)."""


def query_bytelist_parse(io, n):
    return ListContainer(read_exact(io, n))


def query_bytelist_build(obj, io, n):
    if not isinstance(obj, (list, tuple, bytes, bytearray)) or len(obj) != n:
        raise c.RangeError(f"expected {n} byte values, got {obj!r:.40}")
    try:
        io.write(bytes(obj))
    except (TypeError, ValueError):
        raise c.IntegerError(f"not a list of byte values: {obj!r:.40}") from None
    return obj


def ByteList(n):
    """``n`` bytes as a list of ints."""
    return _Leaf(query_bytelist_parse, query_bytelist_build, n, size=n)


def query_lennames_parse(io, lens):
    out = ListContainer()
    for n in lens:
        data = read_exact(io, n)
        if read_exact(io, 1) != b"\0":
            raise c.ValidationError("name not followed by NUL")
        out.append(_text(data))
    return out


def query_lennames_build(obj, io, lens):
    lens = list(lens)
    if not isinstance(obj, (list, tuple)) or len(obj) != len(lens):
        raise c.RangeError(f"{obj!r:.40} for {len(lens)} lengths")
    for name, n in zip(obj, lens):
        data = _encoded(name)
        if len(data) != n:
            raise c.RangeError(f"name {name!r:.40} is {len(data)} bytes, its length says {n}")
        io.write(data + b"\0")
    return obj


def NamesByLength(lens):
    """Names of the given byte lengths, each followed by NUL (LOAD's field names: the reader
    goes by the lengths, so a name is exactly its length)."""
    return _Leaf(query_lennames_parse, query_lennames_build, lens)


def query_sized_parse(io, this, sub, n):
    data = read_exact(io, n)
    inner = substream(io, data)
    value = sub(inner, this)
    if inner.tell() != len(data):
        raise c.ValidationError(f"{len(data) - inner.tell()} bytes left in a {n}-byte block")
    return value


def query_sized_build(obj, io, this, sub, n):
    buf = _io.BytesIO()
    sub(obj, buf, this)
    data = buf.getvalue()
    if len(data) != n:
        raise c.RangeError(f"block of {len(data)} bytes where its length field says {n}")
    io.write(data)
    return obj


def Sized(n, subcon):
    """A block of ``n`` bytes (its length stored elsewhere) that ``subcon`` parses whole."""
    return _Wrapper(query_sized_parse, query_sized_build, subcon, n)


def query_salvage_parse(io, this, sub, corrupt, *args):
    pos = io.tell()
    try:
        return sub(io, this)
    except Exception:  # noqa: BLE001 - a corrupt layout never parses: only then is it asked
        where = io.recorder[0] if type(io) is TrackingIO else None  # the failure's offset
        io.seek(pos)
        head = io.read(16)
        io.seek(pos)
        if corrupt(head, remaining(io), this, *args):
            return io.read()
        if where is not None:
            io.recorder[0] = where
        raise


def query_salvage_build(obj, io, this, sub, corrupt, *args):
    if isinstance(obj, (bytes, bytearray)):
        if not corrupt(bytes(obj[:16]), len(obj), this, *args):
            raise c.ValidationError("a raw body is only kept for a corrupt layout; this one "
                                    "parses, give its fields")
        io.write(obj)
        return obj
    return sub(obj, io, this)


def RawIfCorrupt(subcon, corrupt, *args):
    """``subcon``, unless ``corrupt(head, size, this, *args)`` says the servers reject the
    layout: then the body stays raw bytes (lossless, like an undeclared type). ``corrupt`` is
    asked when ``subcon`` fails, so it must only say so of layouts that cannot parse."""
    return _Wrapper(query_salvage_parse, query_salvage_build, subcon, FuncRef(corrupt), *args)


def query_compressed_parse(io, query):
    return io.read()


def query_compressed_build(obj, io, query):
    if obj is None:
        if query is None:
            raise c.ValidationError("QUERY_COMPRESSED needs compressed or query")
        obj = mariadb_compress(_encoded(query))
    elif not isinstance(obj, (bytes, bytearray)):
        raise c.StringError(f"compressed must be bytes, got {obj!r:.40}")
    elif query is not None and mariadb_uncompress(bytes(obj)) != _encoded(query):
        raise c.ValidationError("compressed and query disagree: drop compressed (None) to "
                                "compress the edited query")
    io.write(obj)
    return obj


def query_uncompressed_parse(io, compressed):
    return _text(mariadb_uncompress(bytes(compressed)))


def query_uncompressed_build(obj, io, compressed):
    return obj  # derived: the bytes are the compressed field's


CompressedQuery = _Leaf(query_compressed_parse, query_compressed_build, _Call(get_or_none, "query"))
"""The rest of the body: MariaDB's compressed block (0x80|n, n-byte length, zlib), kept."""
UncompressedQuery = _Leaf(query_uncompressed_parse, query_uncompressed_build, this.compressed,
                          size=0)
"""The query text the compressed block holds (no bytes of its own)."""
CompressedQuery.flagbuildnone = UncompressedQuery.flagbuildnone = True  # either may be left out


class _NoLayoutError(c.MappingError):
    pass


def query_nolayout_parse(io):
    raise _NoLayoutError("no layout for this code")


def query_nolayout_build(obj, io):
    raise _NoLayoutError(f"no layout for this code (value {obj!r:.40})")


NoLayout = _Leaf(query_nolayout_parse, query_nolayout_build)


# ======================================================================================
# QUERY status variables

ShortText = Bounded(Text, packed=False)  # 1-byte length, then the bytes

STATUS_VALUES = {
    "FLAGS2": FlagList(4, QUERY_FLAGS2),
    "SQL_MODE": c.Int64ul,  # bit names differ between MySQL and MariaDB: kept as the number
    "CATALOG": c.FocusedSeq("name", "name" / ShortText, c.Const(b"\0")),  # 5.0.0-5.0.3
    "AUTO_INCREMENT": Struct("increment" / c.Int16ul, "offset" / c.Int16ul),
    "CHARSET": Struct("client" / c.Int16ul, "connection" / c.Int16ul, "server" / c.Int16ul),
    "TIME_ZONE": ShortText,
    "CATALOG_NZ": ShortText,
    "LC_TIME_NAMES": c.Int16ul,
    "CHARSET_DATABASE": c.Int16ul,
    "TABLE_MAP_FOR_UPDATE": c.Int64ul,
    "MASTER_DATA_WRITTEN": c.Int32ul,
    "INVOKER": Struct("user" / ShortText, "host" / ShortText),
    "UPDATED_DB_NAMES": Struct(
        "count" / c.Rebuild(c.Int8ul, _Call(db_names_count)),
        "names" / Opt(this.count != OVER_MAX_DBS, c.Array(this.count, CStr)),
    ),
    "MICROSECONDS": UIntLE(3),
    "COMMIT_TS": c.Int64ul,  # 5.7 development trees (libbinlogapi: COMMIT_SEQ_LEN 8)
    "EXPLICIT_DEFAULTS_FOR_TIMESTAMP": c.Int8ul,
    "DDL_LOGGED_WITH_XID": c.Int64ul,
    "DEFAULT_COLLATION_FOR_UTF8MB4": c.Int16ul,
    "SQL_REQUIRE_PRIMARY_KEY": c.Int8ul,
    "DEFAULT_TABLE_ENCRYPTION": c.Int8ul,
    "ENABLE_CASCADE_TRIGGERS": c.Int8ul,
    "HRNOW": UIntLE(3),
    "XID": c.Int64ul,
    "GTID_FLAGS3": Struct(
        "flags" / c.Int8ul,
        "sa_seq_no" / Opt(_Call(gtid_flags3_has_seq_no), c.Int64ul),
    ),
    "CHARACTER_SET_COLLATIONS": Struct(
        "count" / c.Rebuild(c.Int8ul, _Call(list_len, "map")),
        "map" / c.Array(this.count, Struct("charset" / c.Int16ul, "collation" / c.Int16ul)),
    ),
}

# {code, value} items to the end of the block; an unknown code keeps the rest raw
StatusVars = TaggedList(QUERY_STATUS_VARS, STATUS_VALUES, NoLayout, KNOWN_STATUS_CODES)


# ======================================================================================
# QUERY, EXECUTE_LOAD_QUERY, QUERY_COMPRESSED


def query_status_overrun(head: bytes, size: int, this, code: int, known: int) -> bool:
    """The servers' "Invalid status vars length": status_vars_len runs past the body."""
    if not has_status_vars(this, code, known) or len(head) < 13:
        return False
    phl = post_header_length(this, code, 13 + known, 11 + known)
    return int.from_bytes(head[11:13], "little") > size - phl


def _query_body(code: int, elq: bool = False, compressed: bool = False):
    known = 13 if elq else 0  # EXECUTE_LOAD_QUERY's extra post-header
    fields = [
        "thread_id" / c.Int32ul,
        "exec_time" / c.Int32ul,
        "db_len" / c.Rebuild(c.Int8ul, _Call(byte_len, "database")),
        "error_code" / c.Int16ul,
        "status_vars_len" / Opt(_Call(has_status_vars, code, known),
                                 c.Rebuild(c.Int16ul, _Call(status_vars_size))),
    ]
    if elq:
        fields += [
            "file_id" / c.Int32ul,
            "fn_pos_start" / c.Int32ul,
            "fn_pos_end" / c.Int32ul,
            "dup_handling" / Code(LOAD_DUP_HANDLING),
        ]
    fields += [
        "post_header_extra" / Opt(_Call(has_query_extra, code, known),
                                   ByteString(_Call(query_extra, code, known))),
        "status_vars" / Opt(_Call(has_status_vars, code, known),
                             Sized(this.status_vars_len, StatusVars)),
        "database" / SizedText(this.db_len),
        c.Const(b"\0"),
    ]
    if compressed:
        fields += ["compressed" / CompressedQuery, "query" / UncompressedQuery]
    else:
        fields += ["query" / Text]
    return RawIfCorrupt(Struct(*fields), query_status_overrun, code, known)


QueryBody = _query_body(2)
ExecuteLoadQueryBody = _query_body(18, elq=True)
QueryCompressedBody = _query_body(165, compressed=True)


# ======================================================================================
# LOAD DATA: LOAD, NEW_LOAD, CREATE_FILE, APPEND_BLOCK, EXEC_LOAD, DELETE_FILE,
# BEGIN_LOAD_QUERY

OldSqlEx = Struct(  # LOAD_EVENT: one byte each; empty_flags says which are really empty
    "field_term" / SizedText(1),
    "enclosed" / SizedText(1),
    "line_term" / SizedText(1),
    "line_start" / SizedText(1),
    "escaped" / SizedText(1),
    "opt_flags" / FlagList(1, LOAD_OPT_FLAGS),
    "empty_flags" / FlagList(1, LOAD_EMPTY_FLAGS),
)

NewSqlEx = Struct(
    "field_term" / ShortText,
    "enclosed" / ShortText,
    "line_term" / ShortText,
    "line_start" / ShortText,
    "escaped" / ShortText,
    "opt_flags" / FlagList(1, LOAD_OPT_FLAGS),
)


def _load_body(new_format: bool, create_file: bool = False):
    fields = [
        "thread_id" / c.Int32ul,
        "exec_time" / c.Int32ul,
        "skip_lines" / c.Int32ul,
        "table_len" / c.Rebuild(c.Int8ul, _Call(byte_len, "table")),
        "db_len" / c.Rebuild(c.Int8ul, _Call(byte_len, "database")),
        "num_fields" / c.Rebuild(c.Int32ul, _Call(list_len, "fields")),
    ]
    if create_file:
        fields += ["file_id" / c.Int32ul, _extra(8, 4, 4, 4)]
    fields += [
        "sql_ex" / (NewSqlEx if new_format else OldSqlEx),
        "field_lens" / c.Rebuild(ByteList(this.num_fields), _Call(name_lens, "fields")),
        "fields" / NamesByLength(this.field_lens),
        "table" / SizedText(this.table_len), c.Const(b"\0"),
        "database" / SizedText(this.db_len), c.Const(b"\0"),
    ]
    if create_file:
        fields += ["file_name" / CStr, "block" / Raw]
    else:
        fields += ["file_name" / Text]
    return Struct(*fields)


LoadBody = _load_body(new_format=False)
NewLoadBody = _load_body(new_format=True)
CreateFileBody = _load_body(new_format=True, create_file=True)


def _block_body(code):
    return Struct("file_id" / c.Int32ul, _extra(code, 4, 4, 4), "block" / Raw)


AppendBlockBody = _block_body(9)
BeginLoadQueryBody = _block_body(17)
ExecLoadBody = Struct("file_id" / c.Int32ul)
DeleteFileBody = Struct("file_id" / c.Int32ul)


# ======================================================================================
# statement context: USER_VAR, INTVAR, RAND

UserVarValue = Struct(
    "type" / Code(USER_VAR_TYPES),
    "charset" / c.Int32ul,
    "length" / c.Rebuild(c.Int32ul, _Call(byte_len, "data")),
    "data" / ByteString(this.length),  # the server's binary form (8-byte int/double, ...)
    "flags" / IfMore(FlagList(1, USER_VAR_FLAGS)),  # absent before 5.1 and for non-ints
)

UserVarBody = Struct(
    "name_len" / c.Rebuild(c.Int32ul, _Call(byte_len, "name")),
    "name" / SizedText(this.name_len),
    "is_null" / c.Int8ul,
    "value" / Opt(_Call(user_var_not_null), UserVarValue),
)

IntvarBody = Struct("type" / Code(INTVAR_TYPES), "value" / c.Int64ul)
RandBody = Struct("seed1" / c.Int64ul, "seed2" / c.Int64ul)


# ======================================================================================
# control events

XidBody = Struct("xid" / c.Int64ul)

RotateBody = Struct(  # binlog v1 (3.23) has no position
    "position" / Opt(_Call(post_header_at_least, 4, 8, 8, 8, 0), c.Int64ul),
    _extra(4, 8, 8, 8, 0),
    "next_file" / Text,
)

StopBody = Struct()

IncidentBody = Struct(
    "incident" / c.Int16ul,  # 1 = LOST_EVENTS
    _extra(26, 2, 2, 2),
    "message" / ShortText,
)

IgnorableBody = Struct("data" / Raw)

RowsQueryBody = Struct(  # the length byte is the low byte of the length; readers ignore it
    # readers ignore it; kept as stored, computed (low byte of the length) when left None
    "length" / c.Default(c.Int8ul, _Call(byte_len_low, "query")),
    "query" / Text,
)

AnnotateRowsBody = Struct("query" / Text)


BODIES = {
    2: QueryBody,
    3: StopBody,
    4: RotateBody,
    5: IntvarBody,
    6: LoadBody,
    8: CreateFileBody,
    9: AppendBlockBody,
    10: ExecLoadBody,
    11: DeleteFileBody,
    12: NewLoadBody,
    13: RandBody,
    14: UserVarBody,
    16: XidBody,
    17: BeginLoadQueryBody,
    18: ExecuteLoadQueryBody,
    26: IncidentBody,
    28: IgnorableBody,
    29: RowsQueryBody,
    160: AnnotateRowsBody,
    165: QueryCompressedBody,
}

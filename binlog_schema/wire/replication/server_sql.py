"""The SQL a :mod:`.server` answers: the statements replicas and CDC clients send at connect
and on stop (MariaDB's replica, python-mysql-replication through PyMySQL, the ``mariadb``
client, mysql-binlog-connector-java's and go-mysql's clients), each answered from the served
folder's files (:class:`~.server_files.BinlogFolder`) and the session's variables:

* ``SHOW [GLOBAL|SESSION] VARIABLES [LIKE '...' | WHERE Variable_name IN (...) | = '...']``,
  ``SELECT @@[global.|session.]name, ...``, ``SELECT @var``, ``VERSION()``,
  ``CONNECTION_ID()``, ``UNIX_TIMESTAMP()``, ``BINLOG_GTID_POS(file, pos)``;
* ``SHOW MASTER STATUS`` (``SHOW BINLOG STATUS``, ``SHOW BINARY LOG STATUS``), ``SHOW BINARY
  LOGS`` (``SHOW MASTER LOGS``);
* ``SET @var = ...`` (what a replica says: checksum, heartbeat, GTID state, semi-sync),
  ``SET NAMES``, and ``SET [SESSION] name = ...`` of the session settings clients send
  (timeouts, ``sql_mode``, ``time_zone``...: kept, they change nothing served);
* ``KILL [CONNECTION | QUERY] id``: another connection's (go-mysql's way to stop a dump);
* ``SELECT ... FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = ... AND TABLE_NAME =
  ... [ORDER BY ORDINAL_POSITION]``: the columns of a table from the served files' schema
  history (:mod:`.server_schema`).

:func:`answer` gives a :class:`Result` (a result set), an :class:`Ok`, or an :class:`Err`
naming the statement (anything not listed here)."""

from __future__ import annotations

import dataclasses
import re
import time

from ...format.facts.coltypes import TYPES
from .server_files import BinlogFolder, gtid_text, parse_gtid_state

ER_UNKNOWN_QUERY = 1064          # ER_PARSE_ERROR: what is not answered here
ER_UNKNOWN_SYSTEM_VARIABLE = 1193
ER_NO_SUCH_THREAD = 1094
VERSION_COMMENT = "binlog-schema serve"
TYPE_LONGLONG, TYPE_VAR_STRING = TYPES["LONGLONG"], TYPES["VAR_STRING"]   # (a result
#                                                                     column's type)
# session settings clients send at connect: kept (SELECT @@name gives them back), they
# change nothing served
SESSION_SETTINGS = {
    "net_write_timeout": "60", "net_read_timeout": "30", "wait_timeout": "28800",
    "interactive_timeout": "28800", "sql_mode": "", "time_zone": "SYSTEM",
    "character_set_client": "utf8mb4", "character_set_results": "utf8mb4",
    "character_set_connection": "utf8mb4", "collation_connection": "utf8mb4_general_ci",
    "autocommit": "1", "sql_select_limit": "18446744073709551615",
    "transaction_isolation": "REPEATABLE-READ", "tx_isolation": "REPEATABLE-READ",
    "session_track_schema": "ON", "session_track_state_change": "OFF",
    "lower_case_table_names": "0", "sql_auto_is_null": "0", "max_execution_time": "0",
    "max_statement_time": "0.000000", "system_time_zone": "UTC"}


@dataclasses.dataclass
class Ok:
    info: str = ""


@dataclasses.dataclass
class Err:
    code: int
    message: str
    state: str = "HY000"


@dataclasses.dataclass
class Result:
    columns: list          # column names
    rows: list             # rows: lists of str or None
    types: list | None = None   # each column's type (TYPE_*; None: all VAR_STRING)
    table: str = ""        # the table the columns are of (a result column's table, schema)
    schema: str = ""

    def column_types(self) -> list:
        return list(self.types or [TYPE_VAR_STRING] * len(self.columns))


@dataclasses.dataclass
class Session:
    """What one connection has set: user variables (``@name`` lower-cased -> text or None)
    and session settings; ``host``: the server's side of what a statement may ask of other
    connections and of the schema (:meth:`kill`, :meth:`columns`; None: not answered)."""
    folder: BinlogFolder
    server_id: int
    version: str
    semi_sync: bool = False   # rpl_semi_sync_master_enabled (serve --semi-sync)
    user_vars: dict = dataclasses.field(default_factory=dict)
    flavor: str = "mariadb"
    conn_id: int = 1
    host: object = None       # .kill(conn_id, query_only) -> bool; .columns(session, db,
    #                           table, names) -> Result | Err
    settings: dict = dataclasses.field(default_factory=dict)   # SET name = ... (lower-cased)

    def system_variables(self) -> dict:
        """The system variables a client may ask for (name lower-cased -> a function giving
        the text: the folder is read only for what is asked)."""
        folder = self.folder
        return {
            "server_id": lambda: str(self.server_id),
            "binlog_checksum": lambda: (
                "CRC32" if folder.first_description()["checksum"] else "NONE"),
            "binlog_format": lambda: "ROW",
            "binlog_row_image": lambda: "FULL",
            "binlog_row_metadata": folder.row_metadata,
            "log_bin": lambda: "ON",
            "version": lambda: self.version,
            "version_comment": lambda: VERSION_COMMENT,
            "gtid_domain_id": lambda: "0",
            "gtid_strict_mode": lambda: "OFF",
            "gtid_binlog_pos": folder.gtid_binlog_pos,
            "gtid_current_pos": folder.gtid_binlog_pos,
            "server_uuid": lambda: f"00000000-0000-0000-0000-{self.server_id:012x}",
            "character_set_server": lambda: "utf8mb4",
            "max_allowed_packet": lambda: str(1 << 30),
            # (a semi-sync replica asks: a row at all says the master speaks semi-sync)
            "rpl_semi_sync_master_enabled": lambda: "ON" if self.semi_sync else "OFF",
            **{name: (lambda name=name, default=default: self.settings.get(name, default))
               for name, default in SESSION_SETTINGS.items()},
            **(self._mysql_variables() if self.flavor == "mysql" else {}),
        }

    def _mysql_variables(self) -> dict:
        folder = self.folder
        return {   # (MySQL's GTIDs: the files' PREVIOUS_GTIDS and GTID events)
            "gtid_mode": lambda: "ON" if folder.gtid_executed() else "OFF",
            "enforce_gtid_consistency": lambda: "ON" if folder.gtid_executed() else "OFF",
            "gtid_executed": folder.gtid_executed,
            "gtid_purged": folder.gtid_purged,
            "rpl_semi_sync_source_enabled": lambda: "ON" if self.semi_sync else "OFF",
        }

    # ------------------------------------------------------------------ values

    def value_of(self, expr: str):
        """The value of a SET's right side or a SELECT's item: a literal, ``@var``, ``@@var``
        (``@@global.var``, ``@@session.var``). Raises KeyError for an unknown system
        variable, ValueError for anything else."""
        expr = expr.strip()
        m = re.fullmatch(r"'((?:[^'\\]|\\.|'')*)'|\"((?:[^\"\\]|\\.)*)\"", expr)
        if m:
            return (m.group(1) if m.group(1) is not None else m.group(2)).replace("''", "'")
        if re.fullmatch(r"-?\d+(\.\d+)?", expr):
            return expr
        if expr.upper() == "NULL":
            return None
        m = re.fullmatch(r"@@(?:(?:global|session|local)\.)?`?(\w+)`?", expr, re.I)
        if m:
            return self.system_variables()[m.group(1).lower()]()
        m = re.fullmatch(r"@`?(\w+)`?", expr)
        if m:
            return self.user_vars.get(m.group(1).lower())
        raise ValueError(expr)


_SET_ITEM = re.compile(r"\s*@`?(\w+)`?\s*:?=\s*('(?:[^'\\]|\\.|'')*'|[^,]+)\s*(?:,|$)")


def _like(pattern: str, name: str) -> bool:
    rx = "".join(".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in pattern)
    return re.fullmatch(rx, name, re.I) is not None


def _variables(session: Session, pattern: str | None, names=None) -> Result:
    """SHOW VARIABLES: those whose name is like ``pattern``, or among ``names``."""
    values = session.system_variables()
    rows = [[name, value()] for name, value in sorted(values.items())
            if (pattern is None or _like(pattern, name)) and
            (names is None or name in names)]
    return Result(["Variable_name", "Value"], rows)


_QUOTED = r"'((?:[^'\\]|\\.|'')*)'"


def _quoted_list(text: str) -> list | None:
    """The texts of ``'a', 'b'`` (None: not such a list)."""
    items = [i.strip() for i in _split_items(text)]
    out = []
    for item in items:
        m = re.fullmatch(_QUOTED, item)
        if not m:
            return None
        out.append(m.group(1).replace("''", "'").lower())
    return out


_SET_SETTING = re.compile(r"\s*(?:SESSION\s+|LOCAL\s+|@@(?:SESSION\.|LOCAL\.)?)?`?(\w+)`?"
                          r"\s*:?=\s*('(?:[^'\\]|\\.|'')*'|[^,]+)\s*(?:,|$)", re.I)


def _set_settings(session: Session, sql: str, rest: str):
    """``SET [SESSION] name = value, ...`` of :data:`SESSION_SETTINGS`: kept."""
    pos, assigned = 0, {}
    while pos < len(rest):
        m = _SET_SETTING.match(rest, pos)
        if not m or m.group(1).lower() not in SESSION_SETTINGS:
            return _unknown(sql)
        try:
            value = session.value_of(m.group(2))
        except (KeyError, ValueError):
            if not re.fullmatch(r"\w+", m.group(2).strip()):
                return _unknown(sql)
            value = m.group(2).strip()   # (a bare word: SET time_zone = SYSTEM)
        assigned[m.group(1).lower()] = value
        pos = m.end()
    session.settings.update(assigned)
    return Ok()


def _kill(session: Session, sql: str, what: str | None, conn_id: str):
    if session.host is None:
        return _unknown(sql)
    if not session.host.kill(int(conn_id), (what or "").upper() == "QUERY"):
        return Err(ER_NO_SUCH_THREAD, f"Unknown thread id: {conn_id}")
    return Ok()


def _set(session: Session, sql: str, rest: str):
    pos = 0
    assigned = {}
    while pos < len(rest):
        m = _SET_ITEM.match(rest, pos)
        if not m:
            return _unknown(sql)
        try:
            assigned[m.group(1).lower()] = session.value_of(m.group(2))
        except (KeyError, ValueError):
            return _unknown(sql)
        pos = m.end()
    if "slave_connect_state" in assigned:
        try:
            parse_gtid_state(assigned["slave_connect_state"] or "")
        except ValueError:
            return Err(1948, f"Could not parse GTID list: {assigned['slave_connect_state']!r}")
    session.user_vars.update(assigned)
    return Ok()


def _select(session: Session, sql: str, items: str):
    names, values = [], []
    for item in _split_items(items):
        expr = item.strip()
        alias = re.fullmatch(r"(.+?)\s+(?:AS\s+)?`?(\w+)`?", expr, re.I | re.S)
        if alias and not re.fullmatch(r"'.*'", expr):
            expr, name = alias.group(1).strip(), alias.group(2)
        else:
            name = expr
        low = expr.lower().replace(" ", "")
        if low == "unix_timestamp()":
            value = str(int(time.time()))
        elif low in ("version()", "database()", "user()", "connection_id()"):
            value = {"version()": session.version, "database()": None,
                     "user()": "replica@localhost",
                     "connection_id()": str(session.conn_id)}[low]
        elif low.startswith("binlog_gtid_pos("):
            m = re.fullmatch(r"binlog_gtid_pos\(\s*'([^']*)'\s*,\s*(\d+)\s*\)", expr, re.I)
            if not m:
                return _unknown(sql)
            file, position = m.group(1), int(m.group(2))
            value = (_gtid_text_at(session, file, position)
                     if session.folder.exists(file) else None)
        else:
            try:
                value = session.value_of(expr)
            except KeyError:
                return Err(ER_UNKNOWN_SYSTEM_VARIABLE, f"Unknown system variable '{expr}'")
            except ValueError:
                return _unknown(sql)
        names.append(name)
        values.append(value)
    return Result(names, [values])


_NAME = r"`?(\w+)`?"
_COLUMNS_QUERY = re.compile(
    r"SELECT\s+(?P<items>.+?)\s+FROM\s+`?INFORMATION_SCHEMA`?\s*\.\s*`?COLUMNS`?"
    r"\s+WHERE\s+(?P<where>.+?)"
    r"(?:\s+ORDER\s+BY\s+`?ORDINAL_POSITION`?(?:\s+ASC)?)?", re.I | re.S)
_CONDITION = re.compile(r"\s*(?:\w+\s*\.\s*)?`?(TABLE_SCHEMA|TABLE_NAME)`?\s*=\s*"
                        + _QUOTED + r"\s*", re.I)


def _columns_shape(sql: str, m):
    """``(names, columns, where)`` of an INFORMATION_SCHEMA.COLUMNS query (an Err when it
    asks for what is not answered): the result's column names, the COLUMNS columns they are,
    and the TABLE_SCHEMA / TABLE_NAME asked for."""
    from ...changes.schema.information_schema import COLUMNS
    where = {}
    for part in re.split(r"\s+AND\s+", m.group("where"), flags=re.I):
        c = _CONDITION.fullmatch(part)
        if not c or c.group(1).upper() in where:
            return _unknown(sql)
        where[c.group(1).upper()] = c.group(2).replace("''", "'")
    if set(where) != {"TABLE_SCHEMA", "TABLE_NAME"}:
        return _unknown(sql)
    names, columns = [], []
    for item in _split_items(m.group("items")):
        item = item.strip()
        if item == "*":
            names += list(COLUMNS)
            columns += list(COLUMNS)
            continue
        a = re.fullmatch(_NAME + r"(?:\s+(?:AS\s+)?" + _NAME + ")?", item, re.I)
        if not a:
            return _unknown(sql)
        column = a.group(1).upper()
        if column not in COLUMNS:
            return Err(ER_UNKNOWN_QUERY, f"binlog-schema serve answers INFORMATION_SCHEMA."
                       f"COLUMNS's {', '.join(COLUMNS)}; not {a.group(1)}", "42000")
        columns.append(column)
        names.append(a.group(2) or a.group(1))
    return names, columns, where


def _columns_types(columns: list) -> list:
    from ...changes.schema.information_schema import NUMERIC
    return [TYPE_LONGLONG if n in NUMERIC else TYPE_VAR_STRING for n in columns]


def _columns_query(session: Session, sql: str, m):
    """``SELECT ... FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = '...' AND TABLE_NAME
    = '...' [ORDER BY ORDINAL_POSITION]``, answered by the session's host."""
    shape = _columns_shape(sql, m)
    if isinstance(shape, Err):
        return shape
    names, columns, where = shape
    if session.host is None:
        return _unknown(sql)
    got = session.host.columns(session, where["TABLE_SCHEMA"], where["TABLE_NAME"], columns)
    if isinstance(got, Result):
        got.columns = names
    return got


def _gtid_text_at(session: Session, file: str, position: int) -> str:
    return gtid_text(session.folder.gtid_state_at(file, position))


def _split_items(text: str) -> list:
    """A select list split at top-level commas (not inside quotes or parentheses)."""
    out, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        cur += ch
    return out + [cur]


def _master_status(session: Session) -> Result:
    cols = ["File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB"]
    mysql = session.flavor == "mysql"
    if mysql:
        cols.append("Executed_Gtid_Set")
    names = session.folder.names()
    if not names:
        return Result(cols, [])
    row = [names[-1], str(session.folder.size(names[-1])), "", ""]
    return Result(cols, [row + ([session.folder.gtid_executed()] if mysql else [])])


def _binary_logs(session: Session) -> Result:
    return Result(["Log_name", "File_size"],
                  [[n, str(session.folder.size(n))] for n in session.folder.names()])


def _unknown(sql: str) -> Err:
    return Err(ER_UNKNOWN_QUERY, f"binlog-schema serve does not answer: {sql[:200]}", "42000")


def answer(session: Session, sql: str):
    """The answer to one statement (a :class:`Result`, :class:`Ok` or :class:`Err`)."""
    text = sql.strip().rstrip(";").strip()
    upper = " ".join(text.upper().split())
    m = re.fullmatch(r"SHOW\s+(?:GLOBAL\s+|SESSION\s+)?VARIABLES(?:\s+LIKE\s+'([^']*)')?",
                     text, re.I | re.S)
    if m:
        return _variables(session, m.group(1))
    m = re.fullmatch(r"SHOW\s+(?:GLOBAL\s+|SESSION\s+)?VARIABLES\s+WHERE\s+`?Variable_name`?"
                     r"\s*(?:IN\s*\((.*)\)|=\s*(" + _QUOTED + r"))", text, re.I | re.S)
    if m:
        names = _quoted_list(m.group(1) if m.group(1) is not None else m.group(2))
        return _unknown(sql) if names is None else _variables(session, None, set(names))
    if upper in ("SHOW MASTER STATUS", "SHOW BINLOG STATUS", "SHOW BINARY LOG STATUS"):
        return _master_status(session)
    if upper in ("SHOW BINARY LOGS", "SHOW MASTER LOGS"):
        return _binary_logs(session)
    m = re.fullmatch(r"KILL\s+(?:(CONNECTION|QUERY)\s+)?(\d+)", text, re.I)
    if m:
        return _kill(session, sql, m.group(1), m.group(2))
    if re.fullmatch(r"SET\s+NAMES\s+[\w']+(\s+COLLATE\s+[\w']+)?", text, re.I) or \
            re.fullmatch(r"SET\s+(@@(SESSION\.)?)?AUTOCOMMIT\s*=\s*[01]", text, re.I):
        return Ok()
    m = re.fullmatch(r"SET\s+(@(?!@).*)", text, re.I | re.S)
    if m:
        return _set(session, sql, m.group(1))
    m = re.fullmatch(r"SET\s+(.*)", text, re.I | re.S)
    if m and not re.match(r"(GLOBAL|PERSIST)\b|@@(GLOBAL|PERSIST)", m.group(1), re.I):
        return _set_settings(session, sql, m.group(1))
    m = _COLUMNS_QUERY.fullmatch(text)
    if m:
        return _columns_query(session, sql, m)
    m = re.fullmatch(r"SELECT\s+(.+?)(?:\s+LIMIT\s+\d+)?", text, re.I | re.S)
    if m and not re.search(r"\bFROM\b", m.group(1), re.I):
        return _select(session, sql, m.group(1))
    return _unknown(sql)


# ------------------------------------------------------------------ prepared statements


@dataclasses.dataclass
class Prepared:
    """A server-side prepared statement: its text (``?`` for each parameter), its number of
    parameters, the columns of its result (names and types; none for a statement without a
    result set) and the parameter types its last execute bound."""
    sql: str
    params: int
    columns: list
    types: list
    bound: list | None = None


def _placeholders(sql: str) -> list:
    """The offsets of the ``?`` outside quotes."""
    out, quote = [], None
    for i, ch in enumerate(sql):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"`":
            quote = ch
        elif ch == "?":
            out.append(i)
    return out


def prepare(session: Session, sql: str):
    """COM_STMT_PREPARE: a :class:`Prepared`, or an :class:`Err` for a statement not
    answered. The columns of a SELECT or SHOW are those of its answer with each parameter
    an empty string (an INFORMATION_SCHEMA.COLUMNS query's, from its select list)."""
    params = len(_placeholders(sql))
    text = sql.strip().rstrip(";").strip()
    m = _COLUMNS_QUERY.fullmatch(bind(text, [""] * params))
    if m:
        shape = _columns_shape(sql, m)
        if isinstance(shape, Err):
            return shape
        return Prepared(sql, params, shape[0], _columns_types(shape[1]))
    if not re.match(r"(SELECT|SHOW)\b", text, re.I):
        return Prepared(sql, params, [], [])
    dry = answer(session, bind(sql, [""] * params))
    if isinstance(dry, Err):
        return dry
    if isinstance(dry, Result):
        return Prepared(sql, params, list(dry.columns), dry.column_types())
    return Prepared(sql, params, [], [])


def literal(value) -> str:
    """A parameter's value as SQL text: a quoted string (quotes doubled), a number, NULL."""
    if value is None:
        return "NULL"
    if isinstance(value, (int, float)):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def bind(sql: str, values: list) -> str:
    """The statement with its ``?`` replaced by the values (see :func:`literal`)."""
    out, last = [], 0
    for at, value in zip(_placeholders(sql), values):
        out += [sql[last:at], literal(value)]
        last = at + 1
    return "".join(out) + sql[last:]

"""The SQL a :mod:`.server` answers: the statements replicas and CDC clients send at connect
(MariaDB's replica, python-mysql-replication through PyMySQL, the ``mariadb`` client), each
answered from the served folder's files (:class:`~.server_files.BinlogFolder`) and the
session's user variables. :func:`answer` gives a :class:`Result` (a text result set), an
:class:`Ok`, or an :class:`Err` naming the statement (anything not listed here)."""

from __future__ import annotations

import dataclasses
import re
import time

from .server_files import BinlogFolder, gtid_text, parse_gtid_state

ER_UNKNOWN_QUERY = 1064          # ER_PARSE_ERROR: what is not answered here
ER_UNKNOWN_SYSTEM_VARIABLE = 1193
VERSION_COMMENT = "binlog-schema serve"


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


@dataclasses.dataclass
class Session:
    """What one connection has set: user variables (``@name`` lower-cased -> text or None)."""
    folder: BinlogFolder
    server_id: int
    version: str
    semi_sync: bool = False   # rpl_semi_sync_master_enabled (serve --semi-sync)
    user_vars: dict = dataclasses.field(default_factory=dict)

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


def _variables(session: Session, pattern: str | None) -> Result:
    values = session.system_variables()
    rows = [[name, value()] for name, value in sorted(values.items())
            if pattern is None or _like(pattern, name)]
    return Result(["Variable_name", "Value"], rows)


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
                     "user()": "replica@localhost", "connection_id()": "1"}[low]
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
    names = session.folder.names()
    if not names:
        return Result(cols, [])
    return Result(cols, [[names[-1], str(session.folder.size(names[-1])), "", ""]])


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
    if upper in ("SHOW MASTER STATUS", "SHOW BINLOG STATUS"):
        return _master_status(session)
    if upper in ("SHOW BINARY LOGS", "SHOW MASTER LOGS"):
        return _binary_logs(session)
    if re.fullmatch(r"SET\s+NAMES\s+[\w']+(\s+COLLATE\s+[\w']+)?", text, re.I) or \
            re.fullmatch(r"SET\s+(@@(SESSION\.)?)?AUTOCOMMIT\s*=\s*[01]", text, re.I):
        return Ok()
    m = re.fullmatch(r"SET\s+(@.*)", text, re.I | re.S)
    if m:
        return _set(session, sql, m.group(1))
    m = re.fullmatch(r"SELECT\s+(.+?)(?:\s+LIMIT\s+\d+)?", text, re.I | re.S)
    if m and not re.search(r"\bFROM\b", m.group(1), re.I):
        return _select(session, sql, m.group(1))
    return _unknown(sql)

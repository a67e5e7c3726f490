"""The schema at the start of the first file, from a text a user has: ``mysqldump --no-data``
output (``CREATE DATABASE``, ``USE``, ``CREATE TABLE``, the ``/*!40101 SET ... */``
lines, ``DELIMITER`` blocks of triggers and routines), ``SHOW CREATE TABLE`` statements,
or their client output (tabular ``Table<TAB>Create Table`` and vertical ``\\G`` forms).

:func:`seed_statements` splits the text into statements (quotes, backticks, comments and
``DELIMITER`` respected); :meth:`binlog_schema.changes.schema.history.SchemaHistory.seed` replays
them, so a dump's ``USE`` sets the database of the tables after it.
"""

from __future__ import annotations

import re

_VERTICAL = re.compile(r"^\*{5,} \d+\. row \*{5,}$|^\s*Table: .*$|^Create Table: ", re.M)
_TABULAR_HEAD = re.compile(r"^Table\tCreate Table\s*$", re.M)


def _client_output(text: str) -> str:
    """SHOW CREATE TABLE as the client prints it, back to statements."""
    if re.search(r"^\*{5,} \d+\. row \*{5,}$", text, re.M):
        out = []
        for block in re.split(r"^\*{5,} \d+\. row \*{5,}$", text, flags=re.M):
            m = re.search(r"^Create Table: (.*)", block, re.M | re.S)
            if m:
                out.append(m.group(1).strip().rstrip(";") + ";")
        return "\n".join(out)
    if _TABULAR_HEAD.search(text):
        text = _TABULAR_HEAD.sub("", text)
        lines = []
        for line in text.splitlines():
            if "\t" in line and re.match(r"[^\t]*\tCREATE\b", line, re.I):
                line = line.split("\t", 1)[1].replace("\\n", "\n") + ";"
            lines.append(line)
        return "\n".join(lines)
    return text


def split_statements(text: str) -> list:
    """The statements of an SQL text (without their delimiter)."""
    out, cur = [], []
    delimiter = ";"
    i, n = 0, len(text)
    start_of_line = True
    while i < n:
        if start_of_line:
            m = re.match(r"[ \t]*DELIMITER[ \t]+(\S+)[ \t]*(?:\r?\n|$)", text[i:], re.I)
            if m:
                stmt = "".join(cur).strip()
                if stmt:
                    out.append(stmt)
                cur = []
                delimiter = m.group(1)
                i += m.end()
                continue
        ch = text[i]
        start_of_line = ch == "\n"
        if ch in "'\"`":
            j = i + 1
            while j < n:
                if text[j] == "\\" and ch != "`":
                    j += 2
                    continue
                if text[j] == ch:
                    if j + 1 < n and text[j + 1] == ch:
                        j += 2
                        continue
                    break
                j += 1
            cur.append(text[i:j + 1])
            i = j + 1
            continue
        if text.startswith("/*", i) and not text.startswith("/*!", i) and \
                not text.startswith("/*M!", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            cur.append(" ")
            i = j
            continue
        if ch == "#" or (text.startswith("--", i) and (i + 2 >= n or text[i + 2] in " \t\r\n")):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith(delimiter, i):
            stmt = "".join(cur).strip()
            if stmt:
                out.append(stmt)
            cur = []
            i += len(delimiter)
            continue
        cur.append(ch)
        i += 1
    stmt = "".join(cur).strip()
    if stmt:
        out.append(stmt)
    return out


def seed_statements(text: str, database: str | None = None):
    """(statement, database) pairs of a dump or SHOW CREATE TABLE text: the database is the
    one given for the first statement (None after, so a ``USE`` in the text governs)."""
    first = True
    for stmt in split_statements(_client_output(text)):
        body = stmt
        m = re.fullmatch(r"(?s)/\*M?!\d*\s*(.*?)\s*\*/", stmt)
        if m:      # /*!40101 SET ... */ as a whole statement
            body = m.group(1)
        yield body, (database if first else None)
        first = False

"""What a server's ``INFORMATION_SCHEMA.COLUMNS`` shows of a :class:`~.model.Table`: the rows
CDC clients ask for when a TABLE_MAP carries no column names (binlog_row_metadata MINIMAL),
as MariaDB and MySQL print them (``COLUMN_TYPE`` with the display widths MariaDB and MySQL
before 8.0.19 print, ``DATA_TYPE``, character set and collation of character columns only).

Only the columns below are answered (:data:`COLUMNS`): the others (``COLUMN_KEY``, which
needs every index; ``COLUMN_DEFAULT``, ``EXTRA``...) would need facts the history does not
keep, and are refused by the caller rather than guessed. Columns the server adds and hides
(MariaDB's ``DB_ROW_HASH_n``, the implicit ``row_start``/``row_end`` of system versioning) are
not shown, as the server does not show them.
"""

from __future__ import annotations

from ...format.facts.flavor import version_tuple
from .ddl.column_types import split_type
from .ddl.tokens import DDLError
from .model import BLOB_TYPES, INT_BINLOG, TEXT_TYPES, Column, Table

# the display width an integer type gets without one (signed, unsigned)
_INT_WIDTH = {"TINYINT": (4, 3), "SMALLINT": (6, 5), "MEDIUMINT": (9, 8), "INT": (11, 10),
              "BIGINT": (20, 20)}

COLUMNS = ("TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION",
           "IS_NULLABLE", "DATA_TYPE", "CHARACTER_SET_NAME", "COLLATION_NAME", "COLUMN_TYPE",
           "COLUMN_COMMENT")
"""The columns of INFORMATION_SCHEMA.COLUMNS answered here."""
NUMERIC = frozenset({"ORDINAL_POSITION"})
"""Those of them that are numbers (the others are text, or NULL)."""


def _widths(flavor: str, version: str | None) -> bool:
    """Whether integer types show a display width (MariaDB; MySQL before 8.0.19)."""
    if flavor != "mysql":
        return True
    v = version_tuple(version) if version else (8, 0, 36)
    return v < (8, 0, 19)


def _args(column: Column) -> list:
    try:
        return list(split_type(column.declaration.get("type") or column.sql_type)[1])
    except DDLError:
        return []


def data_type(column: Column, flavor: str) -> str:
    """``DATA_TYPE``: the type's name, lower-case (MariaDB's JSON: ``longtext``)."""
    if column.sql_type == "JSON" and flavor != "mysql":
        return "longtext"
    return column.sql_type.lower()


def column_type(column: Column, flavor: str, version: str | None = None) -> str:
    """``COLUMN_TYPE``: the type as ``SHOW CREATE TABLE`` prints it, lower-case."""
    b = column.sql_type
    args = _args(column)
    text = data_type(column, flavor)
    if b in INT_BINLOG:
        width = args[0] if args else _INT_WIDTH[b][1 if column.unsigned else 0]
        if _widths(flavor, version) or column.zerofill or (b == "TINYINT" and width == 1):
            text += f"({width})"
    elif b == "DECIMAL":
        text += f"({column.precision},{column.scale})"
    elif b in ("FLOAT", "DOUBLE") and len(args) == 2:
        text += f"({args[0]},{args[1]})"
    elif b == "BIT":
        text += f"({column.bits})"
    elif b == "YEAR":
        text += "(4)" if _widths(flavor, version) else ""
    elif b in ("TIME", "DATETIME", "TIMESTAMP") and column.fsp:
        text += f"({column.fsp})"
    elif b in ("CHAR", "BINARY", "VARCHAR", "VARBINARY"):
        text += f"({column.length})"
    elif b in ("ENUM", "SET"):
        text += "(" + ",".join("'" + m.replace("'", "''") + "'" for m in column.members) + ")"
    elif b == "VECTOR":
        text += f"({column.vector_dimensions})"
    if column.unsigned and b != "YEAR":   # (YEAR is unsigned in a table map's SIGNEDNESS)
        text += " unsigned"
    if column.zerofill:
        text += " zerofill"
    if column.compressed:
        text += " /*M!100301 COMPRESSED*/"
    return text


def _character(column: Column) -> bool:
    """Whether the column has a character set INFORMATION_SCHEMA shows (not binary)."""
    return column.charset not in (None, "binary") and (
        column.sql_type in TEXT_TYPES or column.sql_type in (
            "CHAR", "VARCHAR", "ENUM", "SET", "JSON")) and column.sql_type not in BLOB_TYPES


def column_rows(table: Table, flavor: str, version: str | None = None) -> list:
    """The table's rows of INFORMATION_SCHEMA.COLUMNS, in ORDINAL_POSITION order: a dict per
    shown column, keyed by :data:`COLUMNS` (numbers as int, NULL as None)."""
    out = []
    for column in table.columns:
        if column.hidden:   # (DB_ROW_HASH_n, an implicit row_start / row_end)
            continue
        character = _character(column)
        out.append({
            "TABLE_CATALOG": "def", "TABLE_SCHEMA": table.database, "TABLE_NAME": table.name,
            "COLUMN_NAME": column.name, "ORDINAL_POSITION": len(out) + 1,
            "IS_NULLABLE": "YES" if column.nullable else "NO",
            "DATA_TYPE": data_type(column, flavor),
            "CHARACTER_SET_NAME": column.charset if character else None,
            "COLLATION_NAME": column.collation if character else None,
            "COLUMN_TYPE": column_type(column, flavor, version),
            "COLUMN_COMMENT": column.comment or ""})
    return out

"""A practical subset of MySQL/MariaDB DDL: ``CREATE TABLE`` (also as ``SHOW CREATE TABLE``
prints it), ``CREATE DATABASE`` and ``USE``, into the table part of a fixture spec.

Understood: every column type of MySQL 5.7-9.x and MariaDB 10.5-11.x (with UNSIGNED,
ZEROFILL, CHARACTER SET / CHARSET, COLLATE, BINARY, NULL / NOT NULL, DEFAULT, AUTO_INCREMENT,
INVISIBLE, COMPRESSED, SRID / REF_SYSTEM_ID, COMMENT, column-level PRIMARY KEY / UNIQUE),
PRIMARY KEY / UNIQUE / KEY / INDEX / FULLTEXT / SPATIAL definitions with prefix lengths,
table options (ENGINE, DEFAULT CHARSET, COLLATE, ...). Skipped with their arguments: CHECK,
FOREIGN KEY, PERIOD FOR, PARTITION BY, index options. Refused: generated columns and system
versioning (their row images hold values no spec gives).

The same type grammar reads the ``type`` of a column in a hand-written spec
(:func:`parse_column_type`).

The grammar in layers, each module's parser a subclass of the one before:

- :mod:`.tokens`: the lexer (:class:`Tok`, :func:`tokenize`) and :class:`DDLError`;
- :mod:`.cursor`: the cursor over the tokens (accept, expect, skip, errors with their line
  and column);
- :mod:`.column_types`: data types and their attributes, the known types and the canonical
  type text (:func:`parse_column_type`, :func:`canonical_type`, :func:`split_type`);
- :mod:`.columns`: column definitions (NULL, DEFAULT, keys, generated columns, ...);
- :mod:`.tables`: CREATE TABLE's elements and options, and the statements of a DDL text
  (:func:`parse_ddl`, :func:`tables_from_ddl`: the fixtures generator's reading);
- :mod:`.statements`: the schema history's statements (:func:`parse_statement`: ALTER,
  RENAME, DROP, TRUNCATE, CREATE SEQUENCE, ...).

The names below are loaded when first used: this package imports none of its modules when
it is imported (no import cycle).
"""

from __future__ import annotations

from ....format.lazy import exports

_EXPORTS = {
    "DDLError": "tokens", "canonical_type": "column_types",
    "parse_column_type": "column_types", "split_type": "column_types", "parse_ddl": "tables",
    "tables_from_ddl": "tables", "parse_statement": "statements",
}
__all__ = sorted(_EXPORTS)  # noqa: PLE0605 - a list, sorted


__getattr__, __dir__ = exports(__name__, _EXPORTS)

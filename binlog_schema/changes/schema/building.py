"""A :class:`~binlog_schema.changes.schema.history.SchemaHistory` for decoding binlog files:
the flavor and server version their FORMAT_DESCRIPTION says (:func:`server_of`), seeded with
schema files (:func:`history_for`; :func:`given_history`, what a command's ``--schema``
gives).
"""

from __future__ import annotations

from .ddl.tokens import DDLError
from .history import SchemaHistory


def server_of(binlogs) -> tuple:
    """(flavor, server version) of the first of ``binlogs`` whose FORMAT_DESCRIPTION says
    them; (None, None) when none does (unreadable, not binlogs)."""
    from ...format.errors import BinlogError
    from ...format.stream import BinlogReader
    for path in binlogs:
        reader = BinlogReader(path, decode="lazy")
        events = iter(reader)
        try:
            rec = next(events, None)
        except (BinlogError, OSError):
            continue
        finally:
            events.close()
        if rec is not None and reader.ctx.server_version:   # (the context it set)
            return reader.ctx.flavor, reader.ctx.server_version
    return None, None


def history_for(binlogs, schema_files=(), text: str | None = None):
    """A :class:`~binlog_schema.changes.schema.history.SchemaHistory` for decoding ``binlogs`` (the
    flavor and server version of the first one's FORMAT_DESCRIPTION, which resolve the
    declarations: default collations, temporal types), seeded with the ``schema_files``
    (``mysqldump --no-data`` or ``SHOW CREATE TABLE`` output) and ``text``: the schema at
    the start of the first file. Raises OSError for a file that cannot be read and
    :class:`~binlog_schema.changes.schema.session.DDLRefused` for DDL it does not model."""
    flavor, version = server_of(binlogs)
    history = SchemaHistory(flavor or "mysql", version)
    for path in schema_files:
        history.seed_file(path)
    if text:
        history.seed(text)
    return history


def given_history(binlogs, schema_files=()) -> SchemaHistory:
    """The history a command decodes ``binlogs`` with: empty, the files' DDL replayed from
    nothing (the default), or seeded from the ``--schema`` files ``schema_files``
    (:func:`history_for`). Raises OSError (``filename``: the schema file) or
    :class:`~.ddl.DDLError` naming the schema file."""
    flavor, version = server_of(binlogs)
    history = SchemaHistory(flavor or "mysql", version)
    for path in schema_files:
        try:
            history.seed_file(path)
        except OSError as e:
            if e.filename is None:
                e.filename = str(path)
            raise
        except DDLError as e:
            raise DDLError(f"{path}: --schema: {e}") from None
    return history

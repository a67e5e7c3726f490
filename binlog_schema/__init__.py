"""binlog_schema: the MySQL/MariaDB binary log, declared once with construct.

One declaration parses and builds every byte::

    from binlog_schema import BinlogReader, parse_event, build_event, TableMap

    for rec in BinlogReader("binlog.000001"):
        print(rec.offset, rec.type_name, rec.value["body"])

The names below are imported on first use (``import binlog_schema`` itself is cheap: a
command over many small files pays no import it does not need).
"""

__version__ = "0.1.0"

_WHERE = {
    "Context": "format.context", "parse_event": "format.event_codec",
    "build_event": "format.event_codec",
    "Event": "format.events.envelope",
    "BinlogError": "format.errors", "BuildError": "format.errors",
    "ChecksumError": "format.errors",
    "FormatError": "format.errors", "LimitError": "format.errors",
    "TruncatedError": "format.errors",
    "BinlogReader": "format.stream", "BinlogWriter": "format.writer",
    "EventRecord": "format.stream",
    "read_events": "format.stream",
    "TableMap": "changes.table_map", "Column": "changes.table_map",
    "table_map_from_event": "changes.table_map",
    "change_records": "changes.transactions", "ChangeRecord": "changes.transactions",
}


def __getattr__(name):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'binlog_schema' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(list(globals()) + list(_WHERE))


__all__ = list(_WHERE)

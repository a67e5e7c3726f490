"""binlog_schema: the MySQL/MariaDB binary log, declared once with construct.

One declaration parses and builds every byte::

    from binlog_schema import BinlogReader, parse_event, build_event, TableMap

    for rec in BinlogReader("binlog.000001"):
        print(rec.offset, rec.type_name, rec.value["body"])
"""

from .context import Context
from .envelope import Event, build_event, parse_event
from .errors import (BinlogError, BuildError, ChecksumError, FormatError, LimitError,
                     TruncatedError)
from .stream import BinlogReader, BinlogWriter, EventRecord, read_events

__version__ = "0.1.0"


def __getattr__(name):  # the model imports the envelope; keep the top import light
    if name in ("TableMap", "Column", "table_map_from_event"):
        from .model import table_map
        return getattr(table_map, name)
    raise AttributeError(name)


__all__ = ["Context", "Event", "parse_event", "build_event", "BinlogError", "BuildError",
           "ChecksumError", "FormatError", "LimitError", "TruncatedError", "BinlogReader",
           "BinlogWriter", "EventRecord", "read_events", "TableMap", "Column",
           "table_map_from_event"]

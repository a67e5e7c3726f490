"""The output formats of ``decode`` and ``stream``, each named once: what the CLI's
``--format`` choices and help, ``stream`` (and its ``--to`` brokers), the decode loop
(:class:`.write.RecordWriter`) and the worker processes (:mod:`.parallel`) know of a format.

A new format is its writer module in this folder plus one line in :data:`FORMATS`
(``tests/unit/test_formats_registry.py`` runs every line through ``decode`` and ``stream``).
A writer is named by ``"module:Class"`` in this package and imported only when its format
is used (start-up is paid per command). Two kinds of writer:

* events (``changes`` False): ``Class(path, out, decoder, binary)`` with
  ``write(records, on_error)``: lines of the file's event records to ``out`` (a
  :class:`.write.Output`, or a sink's outbox);
* change records (``changes`` True): a :class:`.change_records.ChangeWriter`
  ``Class(path, add, decoder)``, fed the row changes by
  :func:`.change_records.write_change_records`; rows are implied.

This module imports nothing of the package.
"""

from __future__ import annotations


class Format:
    """One output format (a plain class: ``typing`` is not imported at start-up)."""

    __slots__ = ("name", "help", "writer", "title", "changes", "lazy", "records", "stream")

    def __init__(self, name: str, help: str, writer: str, *, title: str = "",
                 changes: bool = False, lazy: bool = True, records: bool = True,
                 stream: bool = True):
        self.name = name          # the --format value
        self.help = help          # its part of decode's --format help (formats with the
        #                           same help: one part)
        self.writer = writer      # "module:Class" in this package, imported when used
        self.title = title        # its name in stream's one-line help, when not its name
        self.changes = changes    # one change record per row change (rows implied)
        self.lazy = lazy          # the writer parses what it needs (reader's decode="lazy")
        self.records = records    # each line a record: stream --to delivers them as messages
        self.stream = stream      # a --format of stream

    def writer_class(self):
        """The class that writes this format (its module imported now)."""
        from importlib import import_module
        module, name = self.writer.split(":")
        return getattr(import_module(f"{__package__}.{module}"), name)


_CHANGES = ("one change record per row change, as Maxwell's daemon and Debezium's MySQL "
            "connector write them (rows implied; see docs/decode.md)")

FORMATS = {f.name: f for f in (
    Format("jsonl", "one JSON object per event, with file, offset, type, header and body",
           "jsonl:EventWriter", title="JSON Lines"),
    Format("text", "mysqlbinlog-like lines (# at OFFSET, then the event)", "text:TextWriter",
           lazy=False, records=False),
    # change records: worker processes too, each segment whole transactions (parallel.py)
    Format("maxwell", _CHANGES, "maxwell:MaxwellWriter", changes=True),
    Format("debezium", _CHANGES, "debezium:DebeziumWriter", changes=True),
)}
DEFAULT = "jsonl"

NAMES = tuple(FORMATS)
CHANGE_FORMATS = tuple(f.name for f in FORMATS.values() if f.changes)
STREAM_FORMATS = tuple(f.name for f in FORMATS.values() if f.stream)
RECORD_FORMATS = tuple(f.name for f in FORMATS.values() if f.records)


def listing(names, last: str = "or") -> str:
    """``a, b or c``."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


def help_text() -> str:
    """decode's ``--format`` help: each format's part (those sharing a help, together)."""
    parts: list = []
    for f in FORMATS.values():
        if parts and parts[-1][1] == f.help:
            parts[-1][0].append(f.name)
        else:
            parts.append(([f.name], f.help))
    return "; ".join(", ".join(n if n != DEFAULT else f"{n} (default)" for n in names)
                     + ": " + text for names, text in parts)


def titles(names) -> str:
    """The formats ``names`` as a short list (``JSON Lines, text, ...``)."""
    return ", ".join(FORMATS[n].title or n for n in names)

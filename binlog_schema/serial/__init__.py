"""The one serialization layer: what the parser returns, written as JSON Lines or text.

* :mod:`.event_forms` - JSON-safe forms of parsed events (both ways)
* :mod:`.value_forms` - JSON-safe forms of row values and MySQL JSON documents (both ways)
* :mod:`.jsonl` - JSON Lines writers: events, table maps, rows
* :mod:`.text` - the text format (mysqlbinlog-style comment and statement lines)
* :mod:`.formats` - the output formats of decode and stream, each named once (their registry)
"""

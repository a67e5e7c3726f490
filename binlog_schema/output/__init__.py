"""The one serialization layer: what the parser returns, written as JSON Lines or text.

* :mod:`.jsonl` - JSON Lines writers: events, table maps, rows
* :mod:`.text` - the text format (mysqlbinlog-style comment and statement lines)
* :mod:`.formats` - the output formats of decode and stream, each named once (their registry)
"""

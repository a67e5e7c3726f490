"""The binlog format: its facts as data (:mod:`.facts`: codes, flavors, charsets; no construct),
the declarations of the events (:mod:`.events`) and of the row values (:mod:`.values`), the
context that travels with parse and build (:mod:`.context`), the one exception family
(:mod:`.errors`), one event parsed and built (:mod:`.event_codec`, with the compiled
declarations of :mod:`.compiled`), whole files and relay logs, read (:mod:`.stream`, with the
one header scanner of :mod:`.scanning`) and written (:mod:`.writer`), the JSON-safe forms of
parsed events (:mod:`.event_forms`), small record classes (:mod:`.records`) and the packages'
lazily loaded names (:mod:`.lazy`).

Imports :mod:`binlog_schema.construct_ext` and nothing above this layer (docs/architecture.md).
"""

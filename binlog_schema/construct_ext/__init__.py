"""Extensions to construct: the primitives the binlog format needs and construct lacks, and the
support that compiles declarations to Python once and loads them without construct.

Modules without construct (the generated code and the hot path import only these):

* :mod:`.errors` - the layout errors the parse/build functions raise
* :mod:`.streams` - byte streams that remember offsets, bounded reads
* :mod:`.names` - ``NameTable``: code <-> name tables (flags, type codes)
* :mod:`.ints`, :mod:`.text`, :mod:`.bits`, :mod:`.blocks`, :mod:`.serialization`,
  :mod:`.context_functions` - each primitive's parse and build functions (both directions in one
  place)
* :mod:`.jsontext` - the JSON text of parsed values (the compiled JSON direction's pieces)
* :mod:`.cache` - compiled declarations cached on disk and loaded by name
* :mod:`.run` - ``execute``: the one place generated code is run (every ``exec``)

Modules with construct (declaring and compiling):

* :mod:`.leaves` - ``Leaf`` and ``Wrapper``: the construct classes around a primitive's
  parse/build functions (interpreted: calls; compiled: emitted calls), the error bridge
* :mod:`.expressions` - expressions of the context (``Call``, ``Apply``, ``FieldIs``,
  ``CtxKey``...): evaluated interpreted, emitted compiled, one ``emit(code)`` each
* :mod:`.structs` - the compiled ``Struct`` (lean parse, build and JSON code)
* :mod:`.containers` - ``Switch``, ``If``, ``Rebuild``, ``Default`` (what declarations use
  instead of construct's: their code emitted explicitly), ``TaggedList``, ``CaseTable``,
  ``Framed``
* :mod:`.primitives` - the declaration vocabulary: the primitives (``PackedInt``,
  ``Bounded``, ``Bitmap``...), each once, and the names of the modules above that
  declarations use (declarations import from here)
* :mod:`.codegen` - the one emit mechanism (references to functions, constants) and the
  compiler that turns a declaration into module source
* :mod:`.kaitai` - the Kaitai Struct export (``export_ksy()``): the primitives' Kaitai forms
  (``x_ksy`` beside each ``x_parse``/``x_build``), expressions, what stays raw and why
"""

"""Extensions to construct: the primitives the binlog format needs and construct lacks, and the
support that compiles declarations to Python once and loads them without construct.

Modules without construct (the generated code and the hot path import only these):

* :mod:`.errors` - the layout errors the parse/build functions raise
* :mod:`.streams` - byte streams that remember offsets, bounded reads
* :mod:`.names` - ``NameTable``: code <-> name tables (flags, type codes)
* :mod:`.ints`, :mod:`.text`, :mod:`.bits`, :mod:`.blocks`, :mod:`.serialization`,
  :mod:`.exprs` - each primitive's parse and build functions (both directions in one place)
* :mod:`.units` - compiled declarations cached on disk and loaded by name

Modules with construct (declaring and compiling):

* :mod:`.primitives` - the construct classes wrapping those functions, and the declaration
  helpers (``PackedInt``, ``Bounded``, ``Bitmap``, ``TaggedList``, ``Struct``...)
* :mod:`.codegen` - the one emit mechanism (references to functions, lean structs) and the
  compiler that turns a declaration into module source
* :mod:`.kaitai` - the Kaitai Struct export (``export_ksy()``): the primitives' Kaitai forms
  (``x_ksy`` beside each ``x_parse``/``x_build``), expressions, what stays raw and why
"""

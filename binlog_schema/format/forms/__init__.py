"""Every form of a column's values, one module per column-type family.

A family module holds, for the values the row decoder gives for its column types, each form
the package writes: the JSON-safe form of JSON Lines and its inverse (``json_safe``,
``from_json_safe``), the JSON text of the compiled image writers (``json_converter``, and
``fields_json`` straight from the stored fields), the exact SQL literal (``sql_literal``), the
Maxwell and Debezium values (``maxwell``, ``debezium``: a converter per column) and Spark's
Value struct fields (``SPARK``: value class -> fields). Fixing one type's output means opening
its family's module:

==============  ==============================================================
family          column types
==============  ==============================================================
``integers``    TINYINT .. BIGINT, MEDIUMINT, YEAR, BIT
``reals``       FLOAT, DOUBLE
``decimals``    DECIMAL
``datetimes``   DATE, TIME, DATETIME, TIMESTAMP (every storage format)
``strings``     CHAR, VARCHAR, BINARY, VARBINARY, TEXT, BLOB, compressed columns
``members``     ENUM, SET
``documents``   JSON (MySQL's binary JSON)
``spatial``     GEOMETRY
``vectors``     VECTOR
==============  ==============================================================

The dispatchers read this package's registry: :mod:`.json_safe` (any value by its class),
:mod:`.spark` (Spark's fields, by class), and the writers of SQL, Maxwell, Debezium and
JSON Lines' images (a column by its type, :func:`family`). A family module is imported on
first use.
"""

from __future__ import annotations

from importlib import import_module

NAMES = ("integers", "reals", "decimals", "datetimes", "strings", "members", "documents",
         "spatial", "vectors")

# a column type's family (the types of :data:`..facts.coltypes.TYPE_CODES` that hold values)
FAMILY_OF = {
    **dict.fromkeys(("TINY", "SHORT", "INT24", "LONG", "LONGLONG", "YEAR", "BIT"),
                    "integers"),
    **dict.fromkeys(("FLOAT", "DOUBLE"), "reals"),
    **dict.fromkeys(("NEWDECIMAL", "DECIMAL"), "decimals"),
    **dict.fromkeys(("DATE", "NEWDATE", "TIME", "TIME2", "DATETIME", "DATETIME2",
                     "TIMESTAMP", "TIMESTAMP2"), "datetimes"),
    **dict.fromkeys(("VARCHAR", "VAR_STRING", "STRING", "TINY_BLOB", "MEDIUM_BLOB",
                     "LONG_BLOB", "BLOB", "VARCHAR_COMPRESSED", "BLOB_COMPRESSED"),
                    "strings"),
    **dict.fromkeys(("ENUM", "SET"), "members"),
    "JSON": "documents",
    "GEOMETRY": "spatial",
    "VECTOR": "vectors",
}


_LOADED: dict = {}   # column type -> its family module, once imported


def family(type_name: str):
    """The family module of a column type; None for a type that holds no values of its own
    (NULL) or that no server logs."""
    module = _LOADED.get(type_name)
    if module is None:
        name = FAMILY_OF.get(type_name)
        if name is None:
            return None
        module = _LOADED[type_name] = import_module(f"{__name__}.{name}")
    return module


def families():
    """Every family module, in :data:`NAMES` order."""
    return [import_module(f"{__name__}.{name}") for name in NAMES]

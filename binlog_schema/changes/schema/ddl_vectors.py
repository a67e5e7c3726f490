"""DDL vectors (``specs/ddl/*.ddl``, YAML): statements replayed from a starting schema, and the
table models they must leave.

A vector is a mapping::

    name: alter-add-column-first-after
    source: how the expectation was checked (a server's table maps, by hand...)
    flavor: mariadb                     # mysql | mariadb
    server_version: 10.11.19-MariaDB    # optional
    session:                            # optional: what a QUERY's status variables say
      database: shop
      collation_server: latin1_swedish_ci
      overrides: [[utf8mb4, utf8mb4_0900_ai_ci]]
      explicit_defaults_for_timestamp: false
    seed: |                             # optional: the starting schema (a dump's text)
      CREATE TABLE ...
    statements:                         # in order; a plain string or a mapping
      - CREATE TABLE t (...)
      - sql: ALTER TABLE t ...
        refused: words of the refusal    # the statement must be refused with them
        outcome: unchanged               # or changed / ignored (checked when given)
    expect:                             # "database.table": its Table.to_dict() without
      shop.t: {version: 2, columns: [...], primary_key: [...]}   # database and name,
      shop.gone: null                   # or null: no such table

The files end in ``.ddl`` (not ``.yaml``, the event vectors' suffix): ``binlog-schema
validate`` tells the kinds apart by the suffix
(:data:`binlog_schema.synthetic.vector_checks.VECTOR_KINDS`) and
checks each ``.ddl`` document with :func:`check_ddl_vector`;
``tests/vectors/test_ddl_vectors.py`` runs them all too.
"""

from __future__ import annotations

from .history import SchemaHistory
from .session import DDLRefused, Session


def run_ddl_vector(doc: dict):
    """Replay a vector: (history, problems of the statements' outcomes)."""
    history = SchemaHistory(doc.get("flavor", "mysql"), doc.get("server_version"))
    s = doc.get("session") or {}
    problems = []
    if doc.get("seed"):
        history.seed(doc["seed"], s.get("database"))
    for i, step in enumerate(doc.get("statements") or ()):
        step = {"sql": step} if isinstance(step, str) else dict(step)
        session = Session(database=step.get("database", s.get("database")),
                          collation_server=s.get("collation_server"),
                          overrides=tuple(tuple(p) for p in s.get("overrides") or ()),
                          explicit_defaults_for_timestamp=s.get(
                              "explicit_defaults_for_timestamp"))
        try:
            out = history.apply(step["sql"], session=session, position=i + 1)
        except DDLRefused as e:
            if "refused" not in step:
                problems.append(f"statement {i + 1} refused: {e}")
            elif step["refused"] not in str(e):
                problems.append(f"statement {i + 1} refused with {str(e)!r}, expected "
                                f"{step['refused']!r}")
            continue
        if "refused" in step:
            problems.append(f"statement {i + 1} was not refused (expected "
                            f"{step['refused']!r})")
        if "outcome" in step and out.kind != step["outcome"]:
            problems.append(f"statement {i + 1}: outcome {out.kind}, expected "
                            f"{step['outcome']}")
    return history, problems


def table_dict(table) -> dict | None:
    if table is None:
        return None
    d = table.to_dict()
    d.pop("database")
    d.pop("name")
    return d


def check_ddl_vector(doc: dict) -> list:
    """The problems of a DDL vector (empty: it passes)."""
    history, problems = run_ddl_vector(doc)
    for ref, want in (doc.get("expect") or {}).items():
        db, _, name = ref.partition(".")
        got = table_dict(history.table(db, name))
        if got != want:
            if got is None or want is None:
                problems.append(f"{ref}: {'no table' if got is None else 'a table'}, "
                                f"expected {'none' if want is None else 'a table'}")
                continue
            for key in sorted(set(got) | set(want)):
                if key == "columns":
                    continue
                if got.get(key) != want.get(key):
                    problems.append(f"{ref}: {key} is {got.get(key)!r}, expected "
                                    f"{want.get(key)!r}")
            gc, wc = got.get("columns", []), want.get("columns", [])
            if [c["name"] for c in gc] != [c["name"] for c in wc]:
                problems.append(f"{ref}: columns {[c['name'] for c in gc]}, expected "
                                f"{[c['name'] for c in wc]}")
            else:
                for g, w in zip(gc, wc):
                    if g != w:
                        problems.append(f"{ref} column {g['name']!r}: {g}, expected {w}")
    return problems

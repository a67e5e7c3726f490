"""YAML golden vectors, checked in both directions.

A vector file holds one or more YAML documents::

    name: seed-001-presentation-person
    source: where the bytes came from
    server: MySQL 8.0.x
    settings: {binlog_checksum: CRC32, binlog_row_metadata: MINIMAL}
    context: {checksum: true, table_id_size: 6, server_version: ..., offset: 0}
    sql: CREATE TABLE ...            # optional
    hex: 32103568...                 # the whole event
    expect: {header: ..., body: ..., checksum: ...}   # parse(hex) == expect, build(expect) == hex
    table_map: {...}                 # optional: the typed model, also checked both ways

A negative vector has ``error: {kind: truncated, offset: 45}`` instead of ``expect``.

Vector files come in kinds, told by their suffix (:data:`VECTOR_KINDS`): event vectors
(``.yaml``, ``.yml``: the above, :func:`check_vector`) and DDL vectors (``.ddl``: statements
replayed from a starting schema and the table models they leave,
:func:`binlog_schema.changes.schema.ddl_vectors.check_ddl_vector`). :func:`validate` checks every
kind under a folder, each document by its file's kind (:func:`check_document`), and :func:`summary`
counts them.
"""

from __future__ import annotations

import pathlib
import re
from dataclasses import dataclass

import yaml

from ..format.context import Context
from ..format.event_codec import build_event, parse_event
from ..format.errors import BinlogError
from ..format.event_forms import first_difference, from_plain, to_plain

CONTEXT_KEYS = {"checksum", "table_id_size", "server_version", "flavor", "offset",
                "binlog_version", "post_header_lengths", "verify_checksum", "type_remap"}


# file suffix -> kind of vector; a file named on its own with another suffix is read as
# event vectors
VECTOR_KINDS = {".yaml": "event", ".yml": "event", ".ddl": "ddl"}
KIND_LABELS = {"event": "event vector", "ddl": "DDL vector", "packet": "packet vector"}


def document_kind(doc, kind: str) -> str:
    """The kind of one document of a file of ``kind``: in a YAML file, a mapping naming a
    ``packet`` is a packet vector (:mod:`binlog_schema.wire.protocol.packet_vectors`)."""
    return "packet" if kind == "event" and isinstance(doc, dict) and "packet" in doc else kind


@dataclass
class Result:
    file: str
    name: str  # "" for a problem of the file itself (not YAML, not a vector)
    ok: bool
    problems: list
    line: int | None = None  # where the vector's document starts (or the file's problem is)
    kind: str = "event"      # the kind of vector (VECTOR_KINDS)


class VectorFileError(ValueError):
    """A vector file that cannot be read: not YAML (with the line and column yaml stopped
    at), or not readable."""

    def __init__(self, file, message, line=None, column=None):
        self.file, self.line, self.column, self.message = str(file), line, column, message
        where = "" if line is None else f", line {line}" + (
            "" if column is None else f", column {column}")
        super().__init__(f"{self.file}{where}: {message}")


def context_of(vector: dict) -> Context:
    given = {k: v for k, v in (vector.get("context") or {}).items() if k in CONTEXT_KEYS}
    if "type_remap" in given and given["type_remap"]:
        given["type_remap"] = {int(k): int(v) for k, v in given["type_remap"].items()}
    return Context(**given)


def hex_bytes(text) -> bytes:
    return bytes.fromhex(re.sub(r"[^0-9a-fA-F]", "", str(text)))


def _byte_diff(want: bytes, got: bytes) -> str:
    for i, (a, b) in enumerate(zip(want, got)):
        if a != b:
            return f"offset {i}: expected {a:02x}, built {b:02x}"
    return f"length: expected {len(want)} bytes, built {len(got)}"


def check_vector(vector: dict) -> list:
    """The problems of one vector (empty when it passes both ways)."""
    problems = []
    ctx = context_of(vector)
    data = hex_bytes(vector["hex"])
    if "error" in vector:
        want = vector["error"] or {}
        try:
            value = parse_event(data, ctx)
        except BinlogError as e:
            if want.get("kind") not in (None, e.kind):
                problems.append(f"error kind {e.kind!r}, expected {want.get('kind')!r}: {e}")
            if "offset" in want and want["offset"] != e.offset:
                problems.append(f"error offset {e.offset}, expected {want['offset']}: {e}")
            if "path" in want and want["path"] != e.path:
                problems.append(f"error path {e.path!r}, expected {want['path']!r}: {e}")
        except Exception as e:  # noqa: BLE001 - an untyped error is itself a failure
            problems.append(f"untyped {type(e).__name__}: {e}")
        else:
            problems.append(f"parsed without error: {to_plain(value)!r:.200}")
        return problems
    try:
        got = to_plain(parse_event(data, ctx))
    except BinlogError as e:
        return [f"parse failed: {e}"]
    want = vector.get("expect")
    if want is not None and got != want:
        problems.append(f"parse: first difference at {first_difference(want, got)}")
    if want is not None:
        try:
            built = build_event(from_plain(want), ctx)
            if built != data:
                problems.append(f"build: {_byte_diff(data, built)}; reparsed value differs at "
                                f"{_reparse_path(built, ctx, want)}")
        except BinlogError as e:
            problems.append(f"build failed: {e}")
    if "table_map" in vector:
        problems += _check_table_map(vector["table_map"], data, ctx)
    if "rows" in vector:
        problems += _check_rows(vector, data, ctx)
    return problems


def _check_rows(vector, data, ctx) -> list:
    """A rows vector: the TABLE_MAP in force (``table_map_hex``) and the rows event (``hex``);
    ``rows`` is the JSON-safe form of the typed rows. Parse: decoding gives ``rows``. Build:
    the typed values read back from ``rows`` encode to the event's row bytes."""
    from ..format.event_codec import build_event, parse_event
    from ..format.forms.json_safe import from_jsonable, jsonable
    from ..format.stream import EventRecord
    problems = []
    tm_raw = hex_bytes(vector["table_map_hex"])
    from ..changes.table_map import table_map_from_event
    from ..format.values.rows import RowsCodec
    tm = table_map_from_event(parse_event(tm_raw, ctx), ctx)
    if "schema" in vector:   # (what the binlog does not say: names, hi-res precisions)
        tm, problems = _with_schema(tm, vector["schema"], ctx)
        if problems:
            return problems
    rec = EventRecord(ctx.offset, data, ctx, parse_event(data, ctx))
    codec = RowsCodec(tm)  # rows keyed by column index
    rows = codec.decode(rec.value["body"], rec.kind)

    def image(img):  # column index -> JSON-safe value; "_..." keys (spare bits) kept as is
        return {k: jsonable(v) if isinstance(k, int) else v for k, v in img.items()}

    def keys(img):
        return {int(k) if str(k).isdigit() else k: v for k, v in img.items()}
    got = [[image(r[0]), image(r[1])] if isinstance(r, tuple) else image(r) for r in rows]
    want = [[keys(r[0]), keys(r[1])] if isinstance(r, list) else keys(r)
            for r in vector["rows"]]
    if got != want:
        problems.append(f"rows: first difference at {first_difference(want, got)}")

    def typed(img):
        return {k: from_jsonable(tm.columns[k], v) if isinstance(k, int) else v
                for k, v in img.items()}
    typed_rows = [(typed(w[0]), typed(w[1])) if isinstance(w, list) else typed(w)
                  for w in want]
    try:
        built = codec.encode(typed_rows, rec.value["body"], rec.kind)
        body = dict(rec.value["body"])
        if isinstance(body["rows"], dict):
            body["rows"] = {"data": built}
        else:
            body["rows"] = built
        again = build_event({**rec.value, "body": body}, ctx)
        if again != data:
            problems.append(f"rows build: {_byte_diff(data, again)}")
    except Exception as e:  # noqa: BLE001 - a value that cannot be built is a failure
        problems.append(f"rows build failed: {type(e).__name__}: {e}")
    return problems


def _with_schema(tm, schema: str, ctx):
    """(the table map as the schema (CREATE TABLE statements) completes it, problems): the
    rows of a vector whose table map needs the schema (MariaDB's hi-res temporal columns,
    MINIMAL metadata)."""
    from ..changes.row_change import with_schema
    from ..changes.schema.history import SchemaHistory
    history = SchemaHistory(ctx.flavor or "mysql", ctx.server_version)
    try:
        history.seed(schema, database=tm.database)
    except BinlogError as e:
        return tm, [f"schema: {e}"]
    except ValueError as e:   # (DDLError)
        return tm, [f"schema: {e}"]
    table = history.table(tm.database, tm.table)
    if table is None:
        return tm, [f"schema: no table {tm.database}.{tm.table}"]
    problems = table.check(tm)
    return (tm, [f"schema: {p}" for p in problems]) if problems else (with_schema(tm, table),
                                                                        [])


def _reparse_path(built, ctx, want):
    try:
        return first_difference(want, to_plain(parse_event(built, ctx)))
    except BinlogError as e:
        return f"(built bytes do not parse: {e})"


def _check_table_map(want, data, ctx) -> list:
    from ..changes.table_map import TableMap, table_map_from_event
    problems = []
    got = table_map_from_event(parse_event(data, ctx), ctx).to_dict()
    if got != want:
        problems.append(f"table_map: first difference at {first_difference(want, got)}")
    try:
        built = TableMap.from_dict(want).to_bytes()
        if built != data:
            problems.append(f"table_map build: {_byte_diff(data, built)}")
    except BinlogError as e:
        problems.append(f"table_map build failed: {e}")
    return problems


def vector_kind(path) -> str:
    """The kind of vectors a file holds, by its suffix (event vectors for any other)."""
    return VECTOR_KINDS.get(pathlib.PurePath(path).suffix, "event")


def vector_files(root, kinds=("event",)) -> list:
    """The vector files of ``root`` holding ``kinds`` of vectors: itself when it is a file
    (whatever its kind), else its files with the suffixes of those kinds (*.yaml and *.yml:
    event vectors; *.ddl: DDL vectors), recursively, in order."""
    root = pathlib.Path(root)
    if root.is_file():
        return [root]
    suffixes = tuple(s for s, k in VECTOR_KINDS.items() if k in kinds)
    return sorted(p for p in root.rglob("*") if p.suffix in suffixes and p.is_file())


def documents(path):
    """(index, line, document) of each YAML document of ``path`` (the line where it starts,
    from 1). A file that is not YAML raises :class:`VectorFileError` naming it and the line,
    after the documents before the error."""
    try:
        f = open(path, "rb")  # (bytes: yaml finds the encoding, and says where it is bad)
    except OSError as e:
        raise VectorFileError(path, f"cannot read: {e.strerror or e}") from None
    with f:
        loader = None
        try:
            loader = yaml.SafeLoader(f)
            i = 0
            while loader.check_node():
                node = loader.get_node()
                yield i, node.start_mark.line + 1, loader.construct_document(node)
                i += 1
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
            what = "; ".join(str(x) for x in (getattr(e, "context", None),
                                              getattr(e, "problem", None)) if x)
            if isinstance(e, yaml.reader.ReaderError):  # (bytes that are not text)
                raise VectorFileError(path, f"not YAML: not text ({e.reason}) at byte "
                                      f"{e.position}") from None
            if mark is None:
                raise VectorFileError(path, f"not YAML: {e}") from None
            raise VectorFileError(path, f"not YAML: {what or e}", mark.line + 1,
                                  mark.column + 1) from None
        finally:
            if loader is not None:
                loader.dispose()


VECTOR_SHAPE = "a mapping with hex (the event's bytes) and expect or error"
DDL_SHAPE = ("a mapping with statements (the DDL replayed) and expect (the tables they "
             "leave)")
_SHAPES = {"event": ("hex", VECTOR_SHAPE), "ddl": ("statements", DDL_SHAPE),
           "packet": ("hex", "a mapping with packet, hex and expect")}


def shape_problem(doc, kind: str = "event") -> str | None:
    """What is wrong with the shape of a vector document of ``kind`` (None: the shape is
    right)."""
    key, shape = _SHAPES[kind]
    what = {"ddl": "a DDL vector", "packet": "a packet vector"}.get(kind, "a vector")
    if not isinstance(doc, dict):
        shown = repr(doc) if len(repr(doc)) <= 40 else repr(doc)[:37] + "..."
        return f"a YAML {type(doc).__name__} ({shown}), expected {what}: {shape}"
    if key not in doc:
        return f"no {key}: {what} is {shape}"
    return None


def check_document(doc: dict, kind: str = "event") -> list:
    """The problems of one vector document of ``kind`` (empty when it passes)."""
    if kind == "ddl":
        from ..changes.schema.ddl_vectors import check_ddl_vector
        return check_ddl_vector(doc)
    if document_kind(doc, kind) == "packet":
        from ..wire.protocol.packet_vectors import check_packet_vector
        return check_packet_vector(doc)
    return check_vector(doc)


def iter_vectors(root):
    """(path, index, document) of every event vector under ``root`` (not the packet vectors
    among them); a file that is not YAML raises :class:`VectorFileError`."""
    for path in vector_files(root):
        for i, _, doc in documents(path):
            if doc and document_kind(doc, "event") == "event":
                yield path, i, doc


def validate(root) -> list:
    """A :class:`Result` per vector under ``root``, of every kind (event vectors in *.yaml and
    *.yml files, DDL vectors in *.ddl files), each checked as its kind says; a file that is
    not YAML, or a document that is not a vector, is a failed Result of its own (``name`` ""
    for the file) and the other files are still checked."""
    results = []
    for path in vector_files(root, tuple(KIND_LABELS)):
        file_kind = vector_kind(path)
        kind = file_kind
        try:
            for i, line, doc in documents(path):
                if doc is None:
                    continue
                kind = document_kind(doc, file_kind)
                wrong = shape_problem(doc, kind)
                if wrong is not None:
                    results.append(Result(str(path), "", False, [f"document {i + 1}: {wrong}"],
                                          line, kind))
                    continue
                name = str(doc.get("name") or f"{path.name}#{i}")
                try:
                    problems = check_document(doc, kind)
                except Exception as e:  # noqa: BLE001 - a broken vector is a failure
                    problems = [f"vector could not be checked: {type(e).__name__}: {e}"]
                results.append(Result(str(path), name, not problems, problems, line, kind))
        except VectorFileError as e:
            results.append(Result(str(path), "", False, [e.message], e.line, file_kind))
    return results


def summary(results) -> str:
    """``N passed, N failed``, and when there are vectors of another kind than events, how
    many of each kind (``(412 event vectors, 31 DDL vectors)``)."""
    failed = sum(not r.ok for r in results)
    text = f"{len(results) - failed} passed, {failed} failed"
    counts = {}
    for r in results:
        counts[r.kind] = counts.get(r.kind, 0) + 1
    if set(counts) - {"event"}:
        text += " (" + ", ".join(f"{counts[k]} {label}{'' if counts[k] == 1 else 's'}"
                                 for k, label in KIND_LABELS.items() if k in counts) + ")"
    return text


def dump_vector(vector: dict) -> str:
    return yaml.safe_dump(vector, sort_keys=False, allow_unicode=True, width=100)

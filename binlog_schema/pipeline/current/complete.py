"""The last complete transaction of a run's binlogs (:func:`last_complete`): where
``spark current``, ``history`` and ``changes`` stop applying (a transaction the last file
cuts is left for the next run), found from the decode job's ``events`` table; and the role
of a statement in its transaction as a Spark SQL column (:func:`statement_role_column`)."""

from __future__ import annotations


def base_name(uri: str) -> str:
    """A file's name as the state and the summary show it (its last path component)."""
    return uri.rstrip("/").rsplit("/", 1)[-1]


def statement_role_column(query):
    """The Spark SQL form of the one table of transaction statements
    (changes/statements.py's :data:`TRANSACTION_STATEMENTS`): a Column that is, for a
    statement Column ``query``, the role of the entry it starts with ("begins", "ends",
    "belongs"), null for an ordinary statement (as :func:`statement_role` says in Python)."""
    from pyspark.sql import functions as F
    from ...changes.statements import ROLE_OF_WORDS, ROLE_PATTERN
    words = F.upper(F.regexp_replace(F.regexp_extract(query, ROLE_PATTERN, 1),
                                     r"[ \t\n\r\f\x0B]+", " "))
    roles = F.create_map(*[F.lit(x) for w, role in ROLE_OF_WORDS.items() if role is not None
                           for x in (w, role)])
    return F.element_at(roles, words)


TAIL_BYTES = 8 << 20   # the end of a file where _end_places_spark looks first
TAIL_FILES = 64        # (more files: every event read at once)


def last_complete(tables) -> dict | None:
    """The last event that ends a transaction (XID, XA PREPARE, a statement that ends one:
    COMMIT, ROLLBACK, XA COMMIT...; an ordinary statement outside any transaction): its
    order key, file and end; None when there is none. The statements' roles are
    :func:`statement_role_column`'s; an ordinary statement inside a transaction ends it only
    in a GTID's group of one statement (a DDL), which the events table does not say: when one
    comes after a file's last certain end, the file is read from its transaction's start by
    the one rule (changes/transactions.py's :class:`Boundary`) to find the last end."""
    from pyspark.sql import functions as F
    from ...changes.transactions import file_sequence, order_key
    ev = tables.events
    rows = _end_places(tables)
    if rows is None:
        rows = _end_places_spark(tables)
    best = None
    for r in rows:
        m, a = r["m"], r["a"]
        if a is not None and (m is None or (a["at"], a["inner"]) > (m["at"], m["inner"])):
            m = _last_end_after(r["file"], a["txn"]) or m
        if m is None:
            continue
        key = order_key(file_sequence(r["file"]), m["at"], m["inner"], 0)
        if best is None or key > best["okey"]:
            best = {"okey": key, "file": base_name(r["file"]),
                    "uri": r["file"], "at": m["at"], "inner": m["inner"], "size": m["size"]}
    if best is None:
        return None
    if best["inner"]:   # (an end inside a TRANSACTION_PAYLOAD: the payload's end)
        size = ev.where((F.col("file") == best["uri"]) & (F.col("offset") == best["at"])
                        & F.col("in_payload_at").isNull()).select("size").first()
        best["position"] = best["at"] + (size["size"] if size else 0)
    else:
        best["position"] = best["at"] + best["size"]
    return {"okey": best["okey"], "file": best["file"], "position": best["position"]}


def _end_places(tables) -> list | None:
    """Per file of the decode job's ``events`` parts: ``{"file", "m", "a"}``, ``m`` the place
    (``at``, ``inner``, ``size``, ``txn``) of its last event that certainly ends a
    transaction, ``a`` of its last ordinary statement inside one (None: none), by the rules
    of :func:`last_complete`; read with pyarrow on the driver (a small read: no Spark job,
    whose start costs seconds on a small input). None when pyarrow cannot read the parts
    (:func:`_end_places_spark` then)."""
    from ...changes.statements import ENDS, statement_role
    from ...format.facts.codes import STATEMENT_KINDS, XA_PREPARE_LOG_EVENT, XID_EVENT, type_name
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq
        from binlog_schema.pipeline.tasks.parts import part_files
        statements = [type_name(k) for k in STATEMENT_KINDS]
        enders = [type_name(XID_EVENT), type_name(XA_PREPARE_LOG_EVENT)]
        cols = ["file", "offset", "in_payload_at", "size", "transaction_offset", "type",
                "query"]
        parts = []
        for filesystem, path in part_files(f"{tables.location}/events"):
            t = pq.read_table(path, columns=cols, filesystem=filesystem)
            parts.append(t.filter(pc.is_in(t.column("type"),
                                           value_set=pa.array(statements + enders))))
    except Exception:  # noqa: BLE001 - a location pyarrow cannot read: Spark reads it
        return None
    best: dict = {}
    for t in parts:
        for file, offset, payload, size, txn, typ, query in zip(
                *[t.column(c).to_pylist() for c in cols]):
            if typ in enders:
                kind = "m"
            elif query is None:
                continue
            else:
                role = statement_role(query)
                if role == ENDS or (role is None and txn is None):
                    kind = "m"
                elif role is None:
                    kind = "a"
                else:
                    continue
            place = {"at": offset if payload is None else payload,
                     "inner": 0 if payload is None else offset, "size": size, "txn": txn}
            got = best.setdefault(file, {"file": file, "m": None, "a": None})
            if got[kind] is None or _place_key(place) > _place_key(got[kind]):
                got[kind] = place
    return list(best.values())


def _place_key(place: dict) -> tuple:
    return (place["at"], place["inner"], place["size"] if place["size"] is not None else -1,
            place["txn"] if place["txn"] is not None else -1)


def _end_places_spark(tables) -> list:
    """:func:`_end_places` by a Spark job: the tail of each file first (its Parquet row groups
    elsewhere are skipped): where it holds a certain end, the last end is there; the files
    where it holds none, whole."""
    from pyspark.sql import functions as F
    from ...changes.statements import ENDS
    from ...format.facts.codes import STATEMENT_KINDS, XA_PREPARE_LOG_EVENT, XID_EVENT, type_name
    ev = tables.events
    role = statement_role_column(F.col("query"))
    statement = F.col("type").isin(*[type_name(k) for k in STATEMENT_KINDS]) & \
        F.col("query").isNotNull()
    certain = F.col("type").isin(type_name(XID_EVENT), type_name(XA_PREPARE_LOG_EVENT)) | \
        (statement & (role == ENDS)) | \
        (statement & role.isNull() & F.col("transaction_offset").isNull())
    maybe = statement & role.isNull() & F.col("transaction_offset").isNotNull()
    place = F.struct(
        F.coalesce("in_payload_at", "offset").alias("at"),
        F.when(F.col("in_payload_at").isNotNull(), F.col("offset")).otherwise(0).alias("inner"),
        "size", F.col("transaction_offset").alias("txn"))
    at = F.coalesce("in_payload_at", "offset")

    def ends(where):
        return ev.where(where & (certain | maybe)).groupBy("file").agg(
            F.max(F.when(certain, place)).alias("m"),
            F.max(F.when(maybe, place)).alias("a")).collect()
    # the tail of each file first (its Parquet row groups elsewhere are skipped): where it
    # holds a certain end, the last end is there; the files where it holds none, whole
    from binlog_schema.pipeline.tables.schema import FILES
    sizes = {f["file"]: f["size"] for f in (dict(zip(FILES.fieldNames(), r))
                                            for r in tables.file_rows or []) if f["size"]}
    rows = []
    if 0 < len(sizes) <= TAIL_FILES:
        tail = F.lit(False)
        for uri, size in sizes.items():
            cut = F.lit(max(0, size - TAIL_BYTES))
            tail = tail | ((F.col("file") == uri) & ((F.col("offset") >= cut)
                                                     | (F.col("in_payload_at") >= cut))
                           & (at >= cut))
        rows = [r for r in ends(tail) if r["m"] is not None]
    seen = {r["file"] for r in rows}
    if not sizes or len(sizes) > TAIL_FILES or set(sizes) - seen:
        rows += ends(~F.col("file").isin(list(seen)) if seen else F.lit(True))
    return rows


def _last_end_after(uri: str, start: int) -> dict | None:
    """The last event at or after ``start`` (where a transaction begins) that ends a
    transaction by the one rule (changes/transactions.py's :class:`Boundary`: it closes one, or
    is a statement of its own), the file read from there as a split is: ``{"at", "inner",
    "size"}`` as the events table places it; None when there is none."""
    from ...format.errors import BinlogError
    from ...changes.transactions import ALONE, CLOSES, Boundary
    from binlog_schema.pipeline.tasks.reading import split_records
    from binlog_schema.pipeline.tasks.split import Split
    from binlog_schema.pipeline.tasks.split_context import file_context
    from binlog_schema.pipeline.fsio import open_input
    last = None
    boundary = Boundary()
    with open_input(uri) as f:
        size = f.seek(0, 2)
        f.seek(0)
        split = Split(uri, size, 0, start, size)
        try:
            for rec in split_records(f, split, file_context(f)):
                if rec.gap is not None or rec.error is not None:
                    boundary = Boundary()   # (damage: what follows starts afresh)
                    continue
                for r in (rec, *(rec.inner or ())):
                    if r.error is None and boundary.feed(r) in (CLOSES, ALONE):
                        last = {"at": rec.offset, "inner": 0 if r is rec else r.offset,
                                "size": len(rec.raw) if r is rec else len(r.raw)}
        except BinlogError:
            pass
    return last

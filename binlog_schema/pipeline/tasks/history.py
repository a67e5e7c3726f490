"""The schema history of ``spark decode`` (on by default, seeded by ``--schema``): the tasks
decode splits of many files at once, each needing the schema in force where its split starts.

The driver reads the schema files (``mysqldump --no-data`` or ``SHOW CREATE TABLE`` output:
the schema at the start of the first file) and runs one Spark job that lists, per file, the
statements of its QUERY events that may change the schema (:func:`statements_of`: BEGIN,
COMMIT and statement-based changes are known from the statement's first bytes and passed
over). :class:`SchemaPlan` holds them in stream order -- the files in name order (or a binlog
index's), as one
server's binlog sequence -- and each task builds the history at its split's start
(:meth:`SchemaPlan.history_at`: the seed, then every statement before that place); its
:class:`~binlog_schema.changes.row_change.RowDecoder` replays the split's own statements on from
there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...format.errors import BinlogError
from ...format.facts.codes import EXECUTE_LOAD_QUERY_EVENT, QUERY_COMPRESSED_EVENT, QUERY_EVENT
from binlog_schema.pipeline.fsio import open_input

QUERY_CODES = [QUERY_EVENT, QUERY_COMPRESSED_EVENT, EXECUTE_LOAD_QUERY_EVENT]


@dataclass(frozen=True)
class Server:
    """The server that wrote a file: what ``SchemaHistory.apply_query`` reads of a
    record's context (its flavor and version)."""

    flavor: str
    server_version: str | None


def plain(value):
    """A parsed value as plain dicts and lists (what a task sends to the driver)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if not str(k).startswith("_")}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def statements_of(uri: str) -> tuple:
    """(uri, flavor, server version, [(offset, QUERY body)]) of one file: the statements that
    may change the schema (their default database, statement and status variables), read
    past damage as ``decode --skip-errors`` reads."""
    from ...changes.row_change import is_schema_statement, query_verb
    from ...format.stream import BinlogReader
    out = []
    flavor = version = None
    try:
        with open_input(uri) as f:
            reader = BinlogReader(f, decode="lazy", skip_errors=True, types=QUERY_CODES)
            for rec in reader:
                if flavor is None and reader.ctx is not None and reader.ctx.server_version:
                    flavor, version = reader.ctx.flavor, reader.ctx.server_version
                if rec.gap is not None or rec.error is not None:
                    continue
                if is_schema_statement(query_verb(rec)):
                    body = rec.value["body"]
                    out.append((rec.offset, plain({k: body.get(k) for k in (
                        "database", "query", "status_vars")})))
            if flavor is None and reader.ctx is not None and reader.ctx.server_version:
                # (a file without QUERY events: MariaDB's rows-only transactions)
                flavor, version = reader.ctx.flavor, reader.ctx.server_version
    except (OSError, BinlogError):
        pass   # (the decode job reports the file)
    return uri, flavor, version, out


@dataclass
class SchemaPlan:
    """The seed (schema text), the server, the files in stream order and their schema
    statements: what each task needs to build the history at its split's start."""

    seed: list                                       # the schema files' texts
    prelude: list = field(default_factory=list)      # QUERY bodies replayed after the seed
    flavor: str | None = None
    version: str | None = None
    order: dict = field(default_factory=dict)        # uri -> file index
    statements: list = field(default_factory=list)   # (file index, offset, body), in order
    servers: dict = field(default_factory=dict)      # file index -> its Server

    @classmethod
    def make(cls, seed: list, found) -> SchemaPlan:
        """From the seed texts and :func:`statements_of` of every file, in stream order (the
        order of :func:`~..driver.plan.binlog_inputs`: names, or a binlog index's)."""
        plan = cls(list(seed))
        for index, (uri, flavor, version, stmts) in enumerate(found):
            plan.order[uri] = index
            if flavor:
                plan.servers[index] = Server(flavor, version)
            if plan.flavor is None and flavor:
                plan.flavor, plan.version = flavor, version
            plan.statements += [(index, offset, body) for offset, body in stmts]
        return plan

    def check_seed(self):
        """The seeded history (raises DDLRefused for a schema file it cannot use; a previous
        run's statement it refuses is in its ``refused``, the table it names unknown, as
        when that run replayed it)."""
        from ...changes.schema.history import SchemaHistory
        from ...changes.schema.session import DDLRefused
        history = SchemaHistory(self.flavor or "mysql", self.version)
        for text in self.seed:
            history.seed(text)
        for j, body in enumerate(self.prelude):   # (a previous run's statements: applied)
            try:
                history.apply_query(body, None, (-1, j, j))
            except DDLRefused as e:
                history.refused.append(e)
        return history

    def history_at(self, uri: str, start: int):
        """(file index, the history in force at byte ``start`` of ``uri``). The statements
        are replayed as their own file's server wrote them (its flavor and version: a 5.1
        file's DATETIME is not a 5.7 file's), as ``decode --rows`` replays each from its
        record's context."""
        from ...changes.schema.session import DDLRefused
        index = self.order.get(uri, len(self.order))
        history = self.check_seed()
        for i, offset, body in self.statements:
            if (i, offset) >= (index, start):
                break
            server = self.servers.get(i)
            if not history.seeded:   # (replayed if a table map of the split needs it)
                history.defer(body, (i, offset, offset), server)
                continue
            try:
                history.apply_query(body, server, (i, offset, offset))
            except DDLRefused as e:
                history.refused.append(e)
        return index, history


def plan_schema(spark, files, schema_files, seed=(), prelude=()) -> SchemaPlan:
    """The :class:`SchemaPlan` of the listed ``files`` ((uri, size) pairs), seeded with the
    texts ``seed`` and of ``schema_files`` (local paths, read on the driver), then the QUERY
    bodies ``prelude``: one Spark task per file lists its schema statements. Raises OSError
    or DDLRefused for a schema file."""
    seed = list(seed)
    for path in schema_files:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            seed.append(f.read())
    uris = [u for u, _ in files]
    if uris:
        sc = spark.sparkContext
        sc.setJobDescription(f"schema statements of {len(uris)} files")
        found = sc.parallelize(uris, len(uris)).map(statements_of).collect()
    else:
        found = []
    plan = SchemaPlan.make(seed, found)
    plan.prelude = list(prelude)
    plan.check_seed()
    return plan

"""The ``spark current`` job: binlog files in, the current state of every source table out
(:func:`current`), one table per source table at ``OUT/<database>/<table>``.

1. The schema history: the statements of every file (the decode job's schema plan, seeded
   with ``--schema`` or a previous run's recorded schema), replayed into table lives
   (:mod:`binlog_schema.changes.schema.lives`): which table each name meant where, its versions,
   renames, truncations and drop; as the tasks' :class:`~.fold.FoldPlan`
   (:mod:`.plan`).
2. The row changes: the decode job (its Arrow engine), names at event time from that history.
   Only changes after the base's last applied one and up to the last complete transaction
   (:mod:`.complete`) are applied (a transaction the last file cuts is left for the next run).
3. Keyed in Arrow (:mod:`.keying`), with the base's rows as puts before everything,
   shuffled by key, folded in order by one SQL aggregate (:mod:`.versions`); then each
   live table is typed (:mod:`.types`) and written: Parquet, or Delta (one commit per
   table, :mod:`..tables.delta`).
4. ``OUT/_binlog_schema/state.json``: what was applied (the last order key, its file and
   position, the files), the schema statements replayed (so the next run's history starts
   where this one ends), and per table its rows, inserted/updated/deleted and, in Delta, its
   version. A run with ``--base`` continues from there; changes at or before the base's last
   applied one are not applied again (idempotent).
"""

from __future__ import annotations

import base64
import json
import pickle
from dataclasses import dataclass, field

from binlog_schema.pipeline.current.complete import base_name, last_complete
from binlog_schema.pipeline.current.fold import FoldPlan
from binlog_schema.pipeline.driver.plan import DEFAULT_SPLIT

STATE = "_binlog_schema"
LAKES = ("delta", "iceberg")   # formats whose tables a run with --base OUT commits to
STATE_FILE = "state.json"


class CurrentError(ValueError):
    """Inputs or a base that ``spark current`` cannot use (the message says why)."""


@dataclass
class CurrentResult:
    out: str
    fmt: str
    tables: dict = field(default_factory=dict)    # "db.table" -> counts, rows, path
    applied: dict = field(default_factory=dict)   # okey, file, position
    pending: int = 0                              # changes after the last complete transaction
    problems: list = field(default_factory=list)  # (table or "", message)
    files: list = field(default_factory=list)     # the decode job's files rows
    inputs: object = None                         # the inputs listed (plan.Inputs)
    unread: list = field(default_factory=list)    # stderr lines: files not read or damaged
    command: str = "current"                      # the command, in its stderr lines

    @property
    def status(self) -> int:
        from ...output.statuses import CLEAN, DAMAGED, worst
        from binlog_schema.pipeline.driver.report import exit_status
        rc = exit_status(self.files) if self.files else CLEAN
        notes = self.inputs is not None and self.inputs.notes
        return worst(rc, DAMAGED) if self.problems or notes else rc

    def problem_lines(self) -> list:
        """What the run could not read, decode or apply: one stderr line each."""
        from binlog_schema.pipeline.driver.report import note_lines
        return (list(self.unread) + note_lines(self.inputs)
                + [f"binlog-schema spark {self.command}: {t + ': ' if t else ''}{m}"
                   for t, m in self.problems])


# ---------------------------------------------------------------------------------------
# the state file


def _fs(spark, path):
    from binlog_schema.pipeline.tables.result import hadoop_fs
    return hadoop_fs(spark, path)


def read_state(spark, base: str) -> dict:
    fs, p = _fs(spark, f"{base}/{STATE}/{STATE_FILE}")
    if not fs.exists(p):
        raise CurrentError(f"--base {base}: no {STATE}/{STATE_FILE} (not the output of "
                           "spark current)")
    stream = fs.open(p)
    try:
        data = bytes(stream.readAllBytes())   # (Java's InputStream)
    finally:
        stream.close()
    return json.loads(data.decode())


def write_state(spark, out: str, state: dict, name: str = STATE_FILE):
    """``state`` as JSON at ``OUT/_binlog_schema/NAME`` (``state.json``), whole or not at
    all (a run killed while it writes it leaves the last one): written beside it, then
    renamed over it."""
    fs, p = _fs(spark, f"{out}/{STATE}/{name}")
    _, new = _fs(spark, f"{out}/{STATE}/{name}.new")
    stream = fs.create(new, True)
    try:
        stream.write(bytearray(json.dumps(state, indent=1, default=str).encode()))
    finally:
        stream.close()
    if not fs.rename(new, p):   # (a filesystem that does not rename over a file)
        fs.delete(p, False)
        if not fs.rename(new, p):
            raise OSError(f"{out}/{STATE}/{name}: not written (rename refused)")


def _pack(obj) -> str:
    return base64.b64encode(pickle.dumps(obj, protocol=4)).decode()


def _unpack(text: str):
    return pickle.loads(base64.b64decode(text)) if text else []


# ---------------------------------------------------------------------------------------
# the job


def current(inputs, spark=None, *, out: str, base: str | None = None, schema=None,
            fmt: str = "parquet", overwrite: bool = False, assume_empty: bool = False,
            split_size=DEFAULT_SPLIT, progress=None, kind: str = "current") -> CurrentResult:
    """The current state of every table of one server's binlog ``inputs`` (files, folders,
    globs; applied in name order) under ``out``. ``base``: a previous run's ``out`` to
    continue (its tables are the starting state; with ``fmt="delta"`` or ``"iceberg"`` it
    may be ``out`` itself: the tables get a new version, Iceberg's an upsert of the changed
    keys); ``schema``: schema files (``mysqldump
    --no-data``) for tables created before the first binlog (their rows then are not known:
    give ``base``, or ``assume_empty`` when they were empty). Raises :class:`CurrentError`,
    and :class:`~.plan.NoInputError` when the inputs hold no binlog (nothing is written).
    ``kind="history"``: every version of every row instead (``spark history``: see
    :mod:`.history`; no ``base``)."""
    from contextlib import nullcontext
    run = read_changes(inputs, spark, out=out, base=base, schema=schema, fmt=fmt,
                       overwrite=overwrite, split_size=split_size, progress=progress,
                       command=kind)
    stage = progress.stage if progress else (lambda label: nullcontext())
    apply_changes(run.spark, run.tables.row_changes, run.plan, run.applied_statements,
                  run.new_statements, run.result, base=run.base, state=run.state,
                  last=run.last, files=run.files, assume_empty=assume_empty, stage=stage,
                  events=run.tables.events)
    run.clean()
    return run.result


@dataclass
class ChangesRead:
    """What :func:`read_changes` gives the job that applies the changes: the session, the
    run's folders and base state, the schema plan and its statements (:func:`continue_history`),
    the inputs listed (``files``: their names), the decode job's tables (``row_changes`` named
    at event time), the order keys of the base's last applied change and of the last complete
    transaction (``end_okey``; ``last``: its file and position), and the result holding what
    could not be read."""

    spark: object
    out: str
    base: str | None
    state: dict | None
    plan: object
    listing: object
    tables: object
    result: CurrentResult
    applied_statements: list
    new_statements: list
    base_okey: str
    end_okey: str
    last: dict | None
    work: str

    @property
    def files(self) -> list:
        return [base_name(u) for u, _ in self.listing.files]

    def clean(self):
        """Remove the run's work folder (the decode job's tables)."""
        fs, p = _fs(self.spark, self.work)
        fs.delete(p, True)


def read_changes(inputs, spark=None, *, out: str, base: str | None = None, schema=None,
                 fmt: str = "parquet", overwrite: bool = False, split_size=DEFAULT_SPLIT,
                 progress=None, command: str = "current") -> ChangesRead:
    """The front of ``spark current`` and ``spark changes``: ``inputs`` listed, ``out``
    prepared, the schema history's statements planned, the row changes decoded (named at
    event time) into ``OUT/_binlog_schema/work``, and the last complete transaction found;
    the files not read are the result's problems (the statements the history refuses are
    :func:`replay_statements`'). Raises :class:`CurrentError` and
    :class:`~.plan.NoInputError` before anything is written."""
    from contextlib import nullcontext
    from binlog_schema.pipeline.jobs.decode import decode
    from binlog_schema.pipeline.tasks.history import plan_schema
    from binlog_schema.pipeline.driver.plan import binlog_inputs
    from binlog_schema.pipeline.driver.session import start_session
    from binlog_schema.pipeline.tables.result import qualify
    spark = spark or start_session()
    from binlog_schema.pipeline.current.types import has_time_type
    if has_time_type():   # (TIME columns, written and read back from a base)
        spark.conf.set("spark.sql.timeType.enabled", "true")
    from binlog_schema.pipeline.tables import FORMATS
    if fmt not in FORMATS:
        raise CurrentError(f"unknown format {fmt!r} ({', '.join(FORMATS)})")
    if isinstance(inputs, str):
        inputs = [inputs]
    if isinstance(schema, str):
        schema = [schema]
    out = qualify(spark, out).rstrip("/")
    base = qualify(spark, base).rstrip("/") if base else None
    if command == "history" and base:
        raise CurrentError("spark history writes every version from the binlogs given: no "
                           "--base")
    if base and schema:
        raise CurrentError("--schema with --base: the base's recorded schema is the start")
    if base == out and fmt not in LAKES:
        raise CurrentError("--base and --out are one folder: Parquet tables are written "
                           "anew (give another --out, or --format delta or iceberg)")
    state = read_state(spark, base) if base else None
    if state and state.get("kind", "current") != "current":
        raise CurrentError(f"--base {base} holds spark {state.get('kind')} tables")
    if state and state.get("format", "parquet") != fmt and base == out:
        raise CurrentError(f"--base {base} holds {state.get('format')} tables")
    listing = binlog_inputs(spark, list(inputs)).check()   # (before anything is written)
    files = listing.files
    _prepare(spark, out, base, overwrite)
    stage = progress.stage if progress else (lambda label: nullcontext())
    seed = list((state or {}).get("schema", {}).get("seed", []))
    with stage("schema statements"):
        from ...changes.schema import DDLError
        from binlog_schema.pipeline.jobs.decode import SchemaFileError
        try:
            plan = plan_schema(spark, files, list(schema or []), seed=seed)
        except OSError as e:
            raise SchemaFileError(f"{e.filename}: {e.strerror or e}") from None
        except DDLError as e:
            raise SchemaFileError(str(e)) from None
    okey_of, applied_statements, new_statements = continue_history(plan, state)
    work = f"{out}/{STATE}/work"
    tables = decode(list(inputs), spark, out=f"{work}/changes", engine="arrow",
                    split_size=split_size, mode="overwrite", progress=progress,
                    schema_plan=plan, listing=listing)
    from binlog_schema.pipeline.driver.report import problem_lines_of
    from binlog_schema.pipeline.tables.schema import FILES
    result = CurrentResult(out, fmt, files=[dict(zip(FILES.fieldNames(), r))
                                            for r in tables.file_rows or []], inputs=listing,
                           command=command)
    result.unread = problem_lines_of(spark, f"{work}/changes/errors", result.files)
    last = last_complete(tables)
    base_okey = (state or {}).get("applied", {}).get("okey", "")
    end_okey = last["okey"] if last else base_okey
    return ChangesRead(spark, out, base, state, plan, listing, tables, result,
                       applied_statements, new_statements, base_okey, end_okey, last, work)


def continue_history(plan, state: dict | None, until: str | None = None) -> tuple:
    """The schema history of a run that continues ``state`` (a previous run's; None: none)
    over the files of ``plan`` (a :class:`~..tasks.history.SchemaPlan`; its ``prelude`` is
    set here: the statements the base applied that are not in these files come first, those
    in them stay in place, as the tasks decode every change of the files, those the base
    applied too, with the history in force where it is): ``(okey_of, applied, new)``,
    ``okey_of`` the order key of a place (file index, offset) of the plan, ``applied`` the
    (order key, body) of every schema statement the base applied, ``new`` those of the plan
    after the base's last applied change (and before the order key ``until``, given)."""
    if plan.flavor is None and state:   # (files that do not say: the base's server)
        plan.flavor = state.get("schema", {}).get("flavor")
        plan.version = state.get("schema", {}).get("version")
    okey_of = _okeys(plan)
    base_okey = (state or {}).get("applied", {}).get("okey", "")
    applied = _unpack((state or {}).get("schema", {}).get("statements", ""))
    here = {okey_of(i, offset) for i, offset, _ in plan.statements}
    plan.prelude = [body for k, body in applied if k not in here]
    plan.check_seed()
    new = [(k, body) for k, body in ((okey_of(i, offset), body)
                                     for i, offset, body in plan.statements)
           if k > base_okey and (until is None or k < until)]
    return okey_of, applied, new


def apply_changes(spark, row_changes, plan, applied_statements, new_statements,
                  result: CurrentResult, *, base: str | None, state: dict | None,
                  last: dict | None, files: list, assume_empty: bool = False, stage=None,
                  extra: dict | None = None, events=None) -> dict:
    """Apply the decoded ``row_changes`` (a DataFrame of the ``row_changes`` table, names at
    event time by ``plan``'s history) after the base's last applied change and up to
    ``last`` (``{"okey", "file", "position"}``: the last complete transaction's end; None:
    none) to the tables of ``base`` (``state``: its state; None: start from nothing), with
    the statements of :func:`continue_history`; write the tables and the state (``extra``:
    more of it) under ``result.out`` in ``result.fmt``. ``files``: the names of the files
    read. Fills ``result`` (tables, applied, pending, problems); returns the state written:
    the commit point of the run (the tables a next run reads are the versions it names).
    ``result.command`` "history": every version of every row instead (:mod:`.history`;
    ``events``: the decode job's events table, for the times of truncations)."""
    from contextlib import nullcontext
    out, fmt = result.out, result.fmt
    stage = stage or (lambda label: nullcontext())
    base_okey = (state or {}).get("applied", {}).get("okey", "")
    lives, fold = replay_statements(spark, plan, applied_statements, new_statements, result,
                                    state, files)
    base_tables = (state or {}).get("tables", {})
    base_origins = {}
    for name, info in base_tables.items():
        db, _, tb = name.partition(".")
        o = lives.origin_at((db, tb), "")
        if o is not None:
            base_origins[o] = (name, info)
    for o, life in lives.lives.items():
        if life.start is None and o not in base_origins and not assume_empty:
            db, tb = life.names[0][1]
            result.problems.append((f"{db}.{tb}", "its history does not start in these "
                                    "binlogs (no CREATE TABLE here) and --base does not hold "
                                    "it: its rows before them are not known (give --base, or "
                                    "--assume-empty); not written"))
            fold.tables.pop(o, None)
    end_okey = last["okey"] if last else base_okey
    if result.command == "history":
        from binlog_schema.pipeline.current.history import history_and_write
        with stage("history"):
            written = history_and_write(spark, row_changes, events, fold, lives, base,
                                        base_origins, state, base_okey, end_okey, out, fmt,
                                        result)
    else:
        with stage("current state"):
            written = _fold_and_write(spark, row_changes, fold, lives, base, base_origins,
                                      state, base_okey, end_okey, out, fmt, result)
    statements = applied_statements + new_statements
    applied = last if last and last["okey"] > base_okey else (state or {}).get("applied", {})
    result.applied = applied
    new_state = {
        "kind": result.command, "format": fmt, "applied": applied,
        "files": sorted({*(state or {}).get("files", []), *files}),
        "schema": {"seed": plan.seed, "statements": _pack(statements),
                   "flavor": plan.flavor, "version": plan.version},
        "tables": written, "pending": result.pending,
        "problems": [list(p) for p in result.problems], **(extra or {})}
    write_state(spark, out, new_state)
    if fmt in LAKES and base == out:   # (tables dropped or renamed since: gone)
        from binlog_schema.pipeline.current.io import drop_gone
        drop_gone(spark, out, [n for n in (state or {}).get("tables", {}) if n not in written],
                  fmt)
    result.tables = written
    return new_state


def replay_statements(spark, plan, applied_statements, new_statements, result, state,
                      files) -> tuple:
    """The table lives of the history (:func:`continue_history`'s statements replayed) and
    the tasks' fold plan: ``(lives, fold)``; each statement the history refuses is a problem
    of ``result`` (``state``: the base's; ``files``: the names of the files read)."""
    from ...changes.transactions import file_sequence
    lives, fold = _lives(plan, applied_statements, new_statements, spark)
    names = {file_sequence(n): n for n in [*(state or {}).get("files", []), *files]}
    for e in lives.refused:
        result.problems.append(_refusal(e, e.position, names))
    for e in lives.history.refused:   # (statements of --base: (-1, j, j) is the j-th)
        result.problems.append(_refusal(e, applied_statements[e.position[1]][0], names,
                                        " (by the run of --base)"))
    return lives, fold


def _refusal(e, okey, names, by: str = "") -> tuple:
    """(tables, message) of a schema statement the history refused (a DDLRefused at the
    order key ``okey``; ``names``: file names by sequence number): the table it names is not
    known from there, its rows not applied, the table not written."""
    from ...changes.transactions import order_key_fields
    seq, offset = order_key_fields(okey)[:2]
    tables = ", ".join(".".join(t) for t in e.tables)
    return (tables, f"{names.get(seq, f'binlog {seq}')}: at {offset}: schema statement "
                    f"refused{by}: {e}; the table it names is not known from there (not "
                    "written)")


def _prepare(spark, out, base, overwrite):
    """``out`` must be new (or ``overwrite``; or ``base`` itself, in Delta)."""
    fs, p = _fs(spark, out)
    if base == out or not fs.exists(p):
        return
    if not overwrite:
        raise CurrentError(f"{out} exists (use --overwrite)")
    fs.delete(p, True)


def _okeys(plan):
    """(file index, offset) -> the order key of an event there (a statement's place)."""
    from ...changes.transactions import file_sequence, order_key
    seq = {i: file_sequence(uri) for uri, i in plan.order.items()}

    def okey(i, offset):
        return order_key(seq.get(i, 0), offset, 0, 0)
    return okey


def _lives(plan, applied, new, spark):
    """The table lives of the history (the seed and the base's ``applied`` statements, then
    the ``new`` ones: (okey, body) pairs) and the tasks' fold plan."""
    from dataclasses import replace
    from ...changes.schema.lives import Lives
    from binlog_schema.pipeline.tables.arrow import arrow_type
    from binlog_schema.pipeline.current.plan import fold_plan
    from binlog_schema.pipeline.tables.schema import VALUE
    from binlog_schema.pipeline.driver.session import session_time_zone
    base = replace(plan, prelude=[body for _, body in applied], statements=[])
    lives = Lives(base.check_seed(), start="")
    for okey, body in new:
        lives.replay(body, okey)
    return lives, fold_plan(lives, arrow_type(VALUE, session_time_zone(spark)))


def _fold_and_write(spark, rc, fold: FoldPlan, lives, base, base_origins, state,
                    base_okey, end_okey, out, fmt, result) -> dict:
    from pyspark.sql import functions as F
    from binlog_schema.pipeline.current.folding import (change_stats, fold_changes,
                                                        fold_parts, input_bytes,
                                                        keyed_events, pending_changes,
                                                        sequential_tables, table_name)
    from binlog_schema.pipeline.current.io import base_rows, write_tables
    from binlog_schema.pipeline.driver.session import session_time_zone
    tz = session_time_zone(spark)
    okey = F.col("order_key")
    changes = rc.where((okey > F.lit(base_okey)) & (okey <= F.lit(end_okey))).select(
        "database", "table", "operation", "before", "after", okey.alias("okey"))
    # (kept: the stats job makes it, the fold reads it)
    keyed = keyed_events(spark, changes, fold).persist()
    stats = change_stats(keyed)
    result.pending = pending_changes(rc, end_okey)
    for origin, n, p in stats.problems:
        result.problems.append((table_name(lives, origin), f"{n} row changes: {p}"))
    base_folded = None
    for o, (name, info) in base_origins.items():
        if o in fold.tables:
            rows = base_rows(spark, base, state, name, info, fold.tables[o], lives, tz)
            base_folded = rows if base_folded is None else base_folded.unionByName(rows)
    folded = fold_changes(spark, changes, fold, lives, base_folded, keyed=keyed,
                          sequential=sequential_tables(fold, stats),
                          parts=fold_parts(spark, input_bytes(result))).persist()
    for r in folded.where(F.col("problem").isNotNull()).groupBy("origin").agg(
            F.first("problem").alias("p")).collect():
        result.problems.append((table_name(lives, r["origin"]), r["p"]))
    counts = stats.counts
    live = {o: lives.lives[o] for o in fold.tables if lives.lives[o].end is None}
    # (a Delta table this run leaves as it was gets no new version)
    same = {o for o, life in live.items() if o in base_origins and not counts.get(o)
            and len(life.versions) == 1 and len(life.names) == 1 and not life.truncates} \
        if fmt in LAKES and base == out else set()
    written = write_tables(spark, folded.where(F.col("image").isNotNull()), live, out, fmt,
                           lives.history.flavor, counts, state, base, same)
    folded.unpersist()
    keyed.unpersist()
    return written

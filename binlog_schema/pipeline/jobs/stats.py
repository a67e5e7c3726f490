"""The stats job (``binlog-schema spark stats``): the figures of ``binlog-schema stats``
(:class:`~binlog_schema.changes.stats.Stats`) of an archive, counted by Spark tasks and merged
on the driver (:func:`stats`): the same document as ``stats --format json`` on the same
files, in the same order.

The inputs are listed and arranged as ``spark decode`` lists them
(:func:`..driver.plan.binlog_inputs`: files, folders, globs; a server's companion files listed,
not read; an index's order), and cut by its pre-scan (:func:`..driver.plan.plan_splits`): a
split starts where a transaction starts.
A task counts a split (:func:`count_split`) from the records the recovering reader gives for
that range of the whole file (:func:`~binlog_schema.pipeline.tasks.reading.split_records`): a
transaction is counted whole
(its bytes, changes, tables and duration) by the task of the split it begins in, which holds
it to its end (the event that begins the next split ends it, in the whole reading too: that
is checked). The driver merges the splits' counts in file and split order
(:meth:`Stats.merge`).

A split's count is used only when it cannot differ from the whole file's. A file is counted
again whole, by one task, as the single-process command counts it
(:func:`~binlog_schema.output.stats_read.file_stats`: first plainly, then with recovery), when
one of its splits met damage (a byte range skipped, an event or rows that do not decode: after
damage the pre-scan's cuts are no longer sure to be where the whole reading's transactions
begin), could not be read (no binlog, an I/O error), or ended inside a transaction that the
whole reading would end otherwise at the next split's first event (:func:`_next_ends_alike`).
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field

from binlog_schema.changes.stats import DEFAULT_MAX_EVENT_SIZE, DEFAULT_TOP, Stats
from binlog_schema.output.sizes import parse_size
from binlog_schema.pipeline.driver.plan import (DEFAULT_SPLIT, Inputs, binlog_inputs, pack,
                                                plan_splits, task_count)


def count_split(split, file_index: int, last: bool, top: int, max_event_size: int):
    """The :class:`Stats` of one split (``last``: the last of its file), or None when the
    file is to be counted whole (see the module's docstring)."""
    from binlog_schema.changes.row_change import RowDecoder
    from binlog_schema.changes.transactions import Transactions
    from binlog_schema.pipeline.fsio import display_name, open_input
    from binlog_schema.pipeline.tasks.reading import split_records
    from binlog_schema.pipeline.tasks.split_context import file_context
    name = display_name(split.uri)
    part = Stats(top, max_event_size)
    txs = Transactions(xids=False)
    try:
        with open_input(split.uri) as f:
            ctx = file_context(f) if split.start else None
            left = part.count(split_records(f, split, ctx), name, RowDecoder(name),
                              file_index=file_index, transactions=txs)
            if part.damaged:
                return None
            if left is not None and not last and \
                    not _next_ends_alike(f, split.end, txs.boundary.begun, left.rows):
                return None
    except Exception:  # noqa: BLE001 - no binlog, unreadable, a bug: the whole file says
        return None
    return part


def _next_ends_alike(f, at: int, begun: bool, rows: int) -> bool:
    """Whether the event at ``at`` (the next split's first: one the pre-scan saw begin a
    transaction) ends the transaction a split left open as the whole file's reading ends it
    (:class:`~binlog_schema.changes.transactions.Transactions`, the one rule): a GTID ends any
    (uncommitted, as the split's end does); a BEGIN ends one begun by a BEGIN (or by its
    rows) that holds rows, but it continues a GTID's group not yet begun, and an open
    transaction without rows is dropped when a BEGIN opens the next."""
    from binlog_schema.format.facts.codes import GTID_KINDS
    from binlog_schema.format.facts.framing import HEADER_SIZE, TYPE_AT
    from binlog_schema.pipeline.tasks.split_context import file_context
    ctx = file_context(f)
    f.seek(at)
    head = f.read(HEADER_SIZE)
    if len(head) < HEADER_SIZE:
        return False
    return ctx.kind(head[TYPE_AT]) in GTID_KINDS or (begun and rows > 0)


def count_whole(uri: str, file_index: int, top: int, max_event_size: int):
    """(the :class:`Stats` of a whole file or None, its status, its stderr lines), counted
    by this process as ``binlog-schema stats`` counts a file."""
    from binlog_schema.pipeline.fsio import display_name, local_path, open_input
    from binlog_schema.output.stats_read import file_stats
    local = local_path(uri)
    if local is not None:
        return file_stats(local, top=top, max_event_size=max_event_size,
                          file_index=file_index, workers=1)
    return file_stats(display_name(uri), top=top, max_event_size=max_event_size,
                      file_index=file_index, opener=lambda: open_input(uri))


@dataclass
class StatsRun:
    """What :func:`stats` found: ``stats`` (every file's counts, merged), ``status`` (the
    worst of the files', of statuses.py's table), ``lines`` (what to say on stderr: each
    problem, file by file), ``inputs`` (the listing), ``splits`` (how many were counted),
    ``whole`` (the files counted whole)."""

    stats: Stats
    status: int
    lines: list = field(default_factory=list)
    inputs: Inputs | None = None
    splits: int = 0
    whole: list = field(default_factory=list)


def stats(inputs, spark, *, top: int = DEFAULT_TOP,
          max_event_size: int = DEFAULT_MAX_EVENT_SIZE, split_size=DEFAULT_SPLIT,
          include_hidden: bool = False, progress=None, listing: Inputs | None = None):
    """The :class:`StatsRun` of binlog files (paths, folders, globs, any Hadoop filesystem;
    or ``listing``, listed already). Raises :class:`~..driver.plan.NoInputError` when there is no
    file to read."""
    split_bytes = parse_size(split_size)
    if isinstance(inputs, str):
        inputs = [inputs]
    listing = (listing or binlog_inputs(spark, list(inputs), include_hidden)).check()
    files = listing.files
    index = {uri: i for i, (uri, _) in enumerate(files)}
    with progress.stage("pre-scan") if progress else nullcontext():
        splits = plan_splits(spark, files, (), split_bytes)
    last = {}
    for s in splits:
        last[s.uri] = max(last.get(s.uri, 0), s.index)
    sc = spark.sparkContext
    groups = pack(splits, task_count(splits, sc.defaultParallelism, split_bytes))
    if progress:
        progress.say(f"{len(files)} files, {len(splits)} splits in {len(groups)} tasks, "
                     f"{sum(s.length for s in splits) / (1 << 20):.1f} MiB")
    sc.setJobDescription(f"stats of {len(splits)} splits")
    with progress.stage("count") if progress else nullcontext():
        parts = sc.parallelize(groups, max(1, len(groups))).flatMap(
            lambda group: [(index[s.uri], s.index,
                            count_split(s, index[s.uri], s.index == last[s.uri], top,
                                        max_event_size)) for s in group]).collect()
    whole = sorted({i for i, _, part in parts if part is None})
    counted = {}
    if whole:
        sc.setJobDescription(f"stats of {len(whole)} files counted whole")
        with progress.stage(f"{len(whole)} files counted whole") if progress else \
                nullcontext():
            todo = [(i, files[i][0]) for i in whole]
            counted = dict(sc.parallelize(todo, len(todo)).map(
                lambda item: (item[0], count_whole(item[1], item[0], top, max_event_size))
            ).collect())
    run = merge_counts(listing, parts, counted, top, max_event_size)
    run.splits = len(splits)
    return run


def merge_counts(listing: Inputs, parts, counted: dict, top: int = DEFAULT_TOP,
                 max_event_size: int = DEFAULT_MAX_EVENT_SIZE) -> StatsRun:
    """The :class:`StatsRun` of the files of ``listing``: ``parts``, ``(file index, split
    index, Stats)`` of the splits (in any order); ``counted``, file index -> what
    :func:`count_whole` gave for the files counted whole (their splits' parts left out).
    Merged in file and split order, as ``binlog-schema stats`` merges its files; the inputs
    that named nothing and the notes of the indexes said."""
    from binlog_schema.pipeline.fsio import display_name
    from binlog_schema.pipeline.driver.report import note_lines
    from binlog_schema.output.statuses import CLEAN, DAMAGED, STOPPED, worst
    files = listing.files
    by_file = {}
    for i, _, part in sorted(parts, key=lambda p: p[:2]):
        if i not in counted:
            by_file.setdefault(i, []).append(part)
    total = Stats(top, max_event_size)
    status = CLEAN
    lines = [f"{display_name(given)}: {why}" for given, why in listing.missing]
    if lines:
        status = STOPPED
    for i, (uri, size) in enumerate(files):
        if i in counted:
            one, st, said = counted[i]
            lines += said
            status = worst(status, st)
            if one is not None:
                total.merge(one)
            continue
        for part in by_file.get(i, ()):
            total.merge(part)
        total.set_file_size(display_name(uri), size)
    notes = note_lines(listing)
    if notes:
        lines += notes
        status = worst(status, DAMAGED)
    return StatsRun(total, status, lines, listing,
                    whole=[display_name(files[i][0]) for i in sorted(counted)])


__all__ = ["StatsRun", "count_split", "count_whole", "merge_counts", "stats"]

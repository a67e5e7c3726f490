"""One split of the decode job as a partition of the ``binlog`` source (:mod:`.batch`,
:mod:`.streaming`): what a Spark task of a Python source runs. A split
(:class:`~binlog_schema.pipeline.tasks.split.Split`) is decoded by the pipeline's tasks
(:func:`~binlog_schema.pipeline.tasks.decode.decode_group`) into
the Arrow record batches of :class:`..tasks.arrow_sink.ArrowSink`, of one table, which Spark
takes as they are (no Python object per value)."""

from __future__ import annotations

import gc

from pyspark.sql.datasource import InputPartition

from binlog_schema.pipeline.tasks.decode import decode_group


class SplitPartition(InputPartition):
    """One split of the pipeline's plan (a :class:`~binlog_schema.pipeline.tasks.split.Split`)
    as a Spark partition."""


def one_table_sink(table: str):
    """An :class:`..tasks.arrow_sink.ArrowSink` that builds the rows of ``table`` only: the others'
    methods do nothing (an ``events`` row still counts its rows event's changes: the rows
    are decoded, not built)."""
    from binlog_schema.pipeline.tables import arrow
    from binlog_schema.pipeline.tasks.arrow_sink import ArrowSink
    sink = ArrowSink(arrow.task_schemas("UTC"))   # (UTC: as Spark takes Arrow from Python)
    for name, method in (("events", "event"), ("errors", "error"), ("row_changes", "rows")):
        if name != table:
            setattr(sink, method, _drop)
    return sink


def _drop(*args, **kwargs):
    pass


def read_split(split, table: str, plan=None):
    """The record batches of ``table`` from one split, decoded as the decode job's tasks
    decode it (``plan``: its :class:`~binlog_schema.pipeline.tasks.history.SchemaPlan`)."""
    sink = one_table_sink(table)
    # (as in parts.write_group: the cycle collector would walk a batch's live objects)
    collecting = gc.isenabled()
    gc.disable()
    try:
        for tag, item in decode_group([split], True, sink, schema=plan):
            if tag == table:
                yield item
    finally:
        if collecting:
            gc.enable()

"""Where the rows go with the ``spark`` engine: :class:`TupleSink` makes one tagged tuple per
row in Spark's internal form, which the engine sends through the JVM (the ``arrow`` engine's
sink is :class:`~.arrow_sink.ArrowSink`)."""

from __future__ import annotations

import decimal

from ...changes.transactions import Held
from .spark_values import as_text, image
from .split import ERROR, EVENT, ROW, STAT, TABLE_MAP

class TupleSink:
    """Tagged tuples in Spark's internal form (see ``schema.UNIFIED``), one per output row:
    what the ``spark`` engine sends through the JVM. The rows of a transaction wait for its
    end (:meth:`end`: its XID and commit time), in memory up to a bound, then pickled to a
    temporary file (:class:`~binlog_schema.changes.transactions.Held`)."""

    def __init__(self):
        self.pending: list = []
        self.held = Held()
        self.open_tx = None   # the transaction of the last rows, until its end

    def event(self, row):
        if row[13] is not None:   # an XID: Spark's internal form of DECIMAL(20,0)
            row = (*row[:13], decimal.Decimal(row[13]), *row[14:])
        self.pending.append((EVENT, row[0], row, None, None, None, None))

    def error(self, row):
        self.pending.append((ERROR, row[0], None, None, None, row, None))

    def table_map(self, row):
        self.pending.append((TABLE_MAP, row[-4], None, row, None, None, None))

    def stat(self, row):
        self.pending.append((STAT, row[0], None, None, None, None, row))

    def rows(self, name, r, changes, json_cols, offset, inner_offset, tx=None, prefix=None,
             version=None):
        if tx is not self.open_tx:
            if self.held:   # (a transaction left without its end: written as it is)
                self._release(None)
            self.open_tx = tx
        add = self.held.add
        type_name = r.type_name
        for ch in changes:
            body = (name, ch.offset, inner_offset, ch.gtid,
                    None if ch.timestamp is None else ch.timestamp * 1_000_000,
                    as_text(ch.database), as_text(ch.table), ch.operation, ch.row_index,
                    image(ch.before, json_cols), image(ch.after, json_cols),
                    ch.signedness_known, type_name,
                    None if prefix is None else prefix + f"{ch.row_index:010d}", version)
            if tx is None:
                self.pending.append(self._row(body, None))
            else:
                add(body)

    @staticmethod
    def _row(body, tx):
        xid = ts = None
        if tx is not None:
            xid = tx.xid if tx.xid is None or tx.xid < 1 << 63 else tx.xid - (1 << 64)
            ts = None if tx.commit_timestamp is None else tx.commit_timestamp * 1_000_000
        return (ROW, body[0], None, None, body[:14] + (xid, ts) + body[14:], None, None)

    def _release(self, tx):
        add, row = self.pending.append, self._row
        for body in self.held.drain():
            add(row(body, tx))

    def end(self, tx):
        """``tx`` ended (committed, or its end not seen): its rows, with its XID and commit
        time."""
        if tx is not self.open_tx:
            return
        self.open_tx = None
        if self.held:
            self._release(tx)

    def take(self) -> list:
        out, self.pending = self.pending, []
        return out

    def close(self) -> list:
        self.open_tx = None
        if self.held:
            self._release(None)
        return self.take()

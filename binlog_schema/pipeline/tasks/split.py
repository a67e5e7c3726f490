"""A split: one task's share of a file, and the tags of the rows its decoding yields.

A split is a byte range ``[start, end)`` of one file that starts at a confirmed event that
begins a transaction (GTID, ANONYMOUS_GTID, MariaDB GTID, or a ``BEGIN`` query outside a GTID
group): the pre-scan (:mod:`.prescan`) cuts a large file into splits, and a task reads only
its splits (:mod:`.reading`) and decodes them (:mod:`.decode`).
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_SCAN = 64 << 20   # how far a resynchronisation looks (the reader's default)
LOG_POS_WRAP = 0xFFFFFFFF    # (log positions are 32-bit)
EVENT_WEIGHT = 200   # decoding an event costs about as much as 200 bytes of row data

# the tags of the unified output rows
EVENT, ROW, TABLE_MAP, ERROR, STAT = "event", "row", "table_map", "error", "stat"


@dataclass
class Split:
    """One task's share of a file."""

    uri: str
    size: int            # the file's size when it was listed
    index: int = 0       # position of the split in its file
    start: int = 0       # 0: from the magic on; else an event that starts a transaction
    end: int = 0
    ctx_end: int = 4     # end of the file's first event (the FORMAT_DESCRIPTION)
    gtid_at: int | None = None   # the last GTID event before ``start``
    problem: str | None = None   # an input the driver could not list (one error row)
    weight: int = 0      # estimated work: bytes + EVENT_WEIGHT per event (0: unknown)

    @property
    def length(self) -> int:
        return self.end - self.start

    @property
    def work(self) -> int:
        """The split's estimated cost (from the pre-scan, else from its size)."""
        return self.weight or max(2 * self.length, 1)

"""Damage done to real binlog files, for the tests of damaged input (the single-process
commands in test_damaged_files.py, the Spark pipeline in test_pipeline_damaged.py).

Each generator takes an original file's bytes (and its events, ``[(offset, raw)]`` as the
recovering reader frames them) and returns a :class:`Damaged`: the damaged bytes, where each
original event is now (``moved``), and whether the damage reached an original event's bytes
(``touched``): every event it did not touch must still be read, at its new offset."""

from __future__ import annotations

import random
from dataclasses import dataclass
from collections.abc import Callable

from binlog_schema.format.facts.codes import FORMAT_DESCRIPTION_EVENT, ROWS_KINDS
from binlog_schema.format.facts.framing import TYPE_AT
from binlog_schema.format.scanning import MAGIC
from binlog_schema.format.stream import BinlogReader

CHECKSUMS = {"crc32", "mariadb", "payload"}
FILES = {  # corpus file: what it brings
    "crc32": "mysql-binlog-connector-java/mysql-bin.checksum-crc32",     # MySQL 5.6, CRC32
    "none": "mysql-binlog-connector-java/mysql-bin.checksum-none",       # no checksums
    "mariadb": "mariadb-poc/domain_id_0/mariadb-repl-bin.000005",        # MariaDB, CRC32
    "payload": "rust_mysql_common/transaction_compression.000001",      # TRANSACTION_PAYLOAD
    "v51": "rust_mysql_common/ver_5_1_23.001",                           # 5.1, no checksums
}


# v4 files without checksums, with rows events: sizes only log positions can prove (issue
# 26); where a 421-byte zeroed block leaves header-like bytes after it (a fraction of the file)
UNCHECKED = {
    "sakila": ("mysql-binlog-connector-java/mysql-bin.sakila", 0.32),   # MySQL 5.5, 1.4 MB
    "canal": ("canal/binlog/mysql-bin.000001", 0.5575),                 # MySQL 5.1
}


def load_originals(corpus, keys=None, files=None) -> dict:
    """key -> (bytes, [(offset, raw)] of its events) for the corpus files of ``files``
    (:data:`FILES` by default; or :data:`UNCHECKED`)."""
    out = {}
    for key, rel in (files or FILES).items():
        rel = rel[0] if isinstance(rel, tuple) else rel
        if keys is not None and key not in keys:
            continue
        path = next(p for p in corpus if str(p).endswith(rel))
        data = path.read_bytes()
        events = [(r.offset, r.raw) for r in BinlogReader(data, skip_errors=True)
                  if r.gap is None]
        out[key] = (data, events)
    return out


def _same_place(offset: int) -> int:
    return offset


@dataclass
class Damaged:
    """A damaged file: its bytes; ``moved(offset)``, an original event's new offset;
    ``touched(offset, size)``, whether the damage reached that original event's bytes;
    ``status``: the exit status of ``decode --skip-errors`` (None: 0 or 3, as damage inside a
    body of a file without checksums may not show)."""

    name: str
    data: bytes
    touched: Callable[[int, int], bool]
    moved: Callable[[int], int] = _same_place
    status: int | None = 3
    at: int | None = None   # where the damage starts


def event_at(events, k):
    return events[min(k, len(events) - 1)]


def size_lie(data: bytes, events, k: int, lie: int) -> Damaged:
    """The ``event_size`` of the kth event (at least the third) says ``lie``."""
    off, _ = event_at(events, max(k, 2))
    bad = bytearray(data)
    bad[off + 9:off + 13] = lie.to_bytes(4, "little")
    return Damaged(f"size-lie-{lie}-at-{off}", bytes(bad), lambda o, n: o == off, at=off)


def size_lies(data: bytes, events) -> list:
    """A size too small, one beyond any limit, one past the end of the file."""
    return [size_lie(data, events, k, lie) for k, lie in (
        (len(events) // 2, 7), (len(events) // 2, 1 << 29), (len(events) // 3, len(data)))]


def rows_event(events, at: float):
    """The rows event at fraction ``at`` of a file's rows events: (offset, raw)."""
    rows = [(o, r) for o, r in events if r[TYPE_AT] in ROWS_KINDS]
    return rows[min(int(len(rows) * at), len(rows) - 1)]


def huge_size(data: bytes, events, at: float = 0.7, lie: int | None = None) -> Damaged:
    """The ``event_size`` of a rows event (at fraction ``at`` of them) overwritten with a
    huge value: ``lie``, or (None) one that ends the event 10 bytes before the end of the
    file."""
    off, _ = rows_event(events, at)
    lie = len(data) - 10 - off if lie is None else lie
    bad = bytearray(data)
    bad[off + 9:off + 13] = lie.to_bytes(4, "little")
    return Damaged(f"huge-size-{lie}-at-{off}", bytes(bad), lambda o, n: o == off, at=off)


def without_checksums(data: bytes, events, zero_at: float) -> list:
    """The damage of issue 26 done to a file without checksums: a rows event's size
    overwritten with a huge value (beyond any limit; or ending 10 bytes before the end of
    the file); a zeroed block of 421 bytes (from fraction ``zero_at`` of the file); and
    both (a huge size earlier) with the file cut 10% before its end."""
    huge = [huge_size(data, events, lie=0x7FFFFFFF), huge_size(data, events)]
    start = int(len(data) * zero_at)
    zeroed = zeroed_block(data, start, 421, checksums=False)
    lie = huge_size(zeroed.data, events, at=0.3, lie=0x7FFFFFFF)
    end = len(data) * 9 // 10
    both = Damaged(f"huge-zeroed-cut-{lie.at}-{start}-{end}", lie.data[:end],
                   lambda o, n: lie.touched(o, n) or zeroed.touched(o, n) or o + n > end,
                   at=lie.at)
    return huge + [zeroed, both]


def unchecked_copy(data: bytes, change=None) -> bytes:
    """A file with checksums written anew without them, by the package's writer: its
    FORMAT_DESCRIPTION with algorithm 0, every other event's header and body kept (sizes and
    log positions built anew, no CRC32; a log position of 0, as MariaDB writes inside a
    GTID group, stays 0). ``change(rec)``: what to write for an event instead (None: the
    event as it is): a value (its log position computed), or an event's bytes (its header's
    size and log position built anew, its body kept)."""
    import io
    from binlog_schema.format.facts.framing import LOG_POS_AT, LOG_POS_END
    from binlog_schema.format.stream import EventRecord
    from binlog_schema.format.writer import BinlogWriter
    out = io.BytesIO()
    w = BinlogWriter(out)
    zero = []   # (where the events whose log position is 0 are written)
    for rec in BinlogReader(data):
        new = change(rec) if change is not None else None
        if isinstance(new, bytes):
            at = w.write_kept(EventRecord(rec.offset, new, w.ctx))
        elif new is not None:
            at = w.write({**new, "header": {**new["header"], "log_pos": None}})
        elif rec.kind == FORMAT_DESCRIPTION_EVENT:
            at = w.write({**rec.value, "body": {**rec.value["body"], "checksum_alg": 0}})
        else:
            at = w.write_kept(rec)
        if not int.from_bytes(rec.raw[LOG_POS_AT:LOG_POS_END], "little"):
            zero.append(at)
    written = bytearray(out.getvalue())
    for at in zero:
        written[at + LOG_POS_AT:at + LOG_POS_END] = bytes(4)
    return bytes(written)


def zeroed_block(data: bytes, start: int | None = None, size: int | None = None,
                 checksums: bool = True) -> Damaged:
    """``size`` bytes (default: 300, or a fifth of the file) zeroed from ``start`` (default:
    the middle of the file)."""
    start = len(data) // 2 if start is None else start
    size = min(300, len(data) // 5) if size is None else size
    bad = data[:start] + bytes(size) + data[start + size:]
    return Damaged(f"zeroed-{start}-{size}", bad,
                   lambda o, n: o < start + size and start < o + n,
                   status=3 if checksums else None, at=start)


def inserted_garbage(data: bytes, at: int, n: int = 500, seed: int = 7) -> Damaged:
    """``n`` random bytes inserted at ``at`` (the events after it move by ``n``)."""
    rng = random.Random(seed)
    junk = bytes(rng.randrange(256) for _ in range(n))
    bad = data[:at] + junk + data[at:]
    return Damaged(f"garbage-{n}-at-{at}", bad, lambda o, s: o < at < o + s,
                   moved=lambda o: o + (n if o >= at else 0), at=at)


def garbage_insertions(data: bytes, events) -> list:
    """Garbage where an event starts, and inside that event."""
    at = events[len(events) // 2][0]
    return [inserted_garbage(data, at), inserted_garbage(data, at + 10)]


def crc_flip(data: bytes, off: int, delta: int = 20) -> Damaged:
    """One bit flipped in the event at ``off`` (in its body, ``delta`` bytes in)."""
    bad = bytearray(data)
    bad[off + delta] ^= 0x40
    return Damaged(f"flip-at-{off + delta}", bytes(bad), lambda o, n: o == off, at=off)


def cut(data: bytes, events) -> Damaged:
    """The file cut in the middle of its last event but one."""
    off, raw = events[-2] if len(events) > 2 else events[-1]
    bad = data[:off + len(raw) // 2]
    return Damaged(f"cut-at-{len(bad)}", bad, lambda o, n: o + n > len(bad), at=off)


def concatenated(a: bytes, b: bytes) -> Damaged:
    """Two files, one after the other: the second's magic number and events follow the
    first's events (``moved`` and ``touched`` speak of the first's events; the second's are
    at their offset plus ``len(a)``, kept in their own context)."""
    return Damaged(f"concatenated-{len(a)}-{len(b)}", a + b, lambda o, n: False, at=len(a))


def without_format_description(data: bytes, events) -> Damaged:
    """The FORMAT_DESCRIPTION removed: nothing can be decoded (one skipped range)."""
    fde_end = events[0][0] + len(events[0][1])
    return Damaged("no-format-description", MAGIC + data[fde_end:], lambda o, n: True, at=4)


def suite(originals: dict, keys=None) -> list:
    """(key, Damaged) for every kind of damage to each original: size lies, a zeroed
    block, garbage inserted, a CRC32 flip (files with checksums), a cut mid-event, the
    FORMAT_DESCRIPTION removed; and two files concatenated."""
    out = []
    for key, (data, events) in originals.items():
        if keys is not None and key not in keys:
            continue
        out += [(key, d) for d in size_lies(data, events)]
        out.append((key, zeroed_block(data, checksums=key in CHECKSUMS)))
        out += [(key, d) for d in garbage_insertions(data, events)]
        if key in CHECKSUMS:
            out.append((key, crc_flip(data, events[len(events) // 2][0])))
        out.append((key, cut(data, events)))
        out.append((key, without_format_description(data, events)))
    pairs = [(a, b) for a, b in (("crc32", "none"), ("none", "mariadb"), ("v51", "v51"))
             if a in originals and b in originals]
    for a, b in pairs:
        out.append((a, concatenated(originals[a][0], originals[b][0])))
    return out

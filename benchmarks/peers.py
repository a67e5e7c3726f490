"""Peer parsers, run offline, for benchmarking binlog_schema against other implementations.

python-mysql-replication (PyPI ``mysql-replication``, import ``pymysqlreplication``) normally
reads events from a live replication connection. Here its real event classes are driven with
raw event bytes instead:

* the event bytes are wrapped, behind the 0x00 OK byte the server sends, in pymysql's own
  ``pymysql.protocol.MysqlPacket``, the object ``BinLogStreamReader.fetchone`` hands to
  ``BinLogPacketWrapper``;
* ``ctl_connection`` is :class:`OfflineCtlConnection`: ``charset``, ``_get_dbms()``, and a
  ``cursor()`` that raises, so no query can reach a server;
* ``use_column_name_cache=False``, so PMR's ``fetch_column_names`` (the INFORMATION_SCHEMA
  lookup) returns ``[]`` at once; ``optional_meta_data=True`` (what PMR sets when the server has
  ``binlog_row_metadata=FULL``), so column names, charsets, enum/set values, etc. come from the
  event's optional metadata when it has them;
* ``post_header_lengths`` is what PMR would take from the FORMAT_DESCRIPTION event.

No PMR code is copied; everything is imported.

API
---
``pmr_table_map_parser(flavor="mysql", *, strict=True, verify_checksum=False)``
    returns ``parse(event_bytes, table_id_size=6, checksum=True)``, which runs PMR's
    ``TableMapEvent`` over one whole event and returns the event object, or raises.
``pmr_event_parser(flavor=None, *, decode_rows=True, strict=True)``
    returns :class:`PmrFileDecoder`, whose ``iter_events(data)`` decodes a whole binlog file.
``iter_binlog_events(data)``
    our own minimal walker (common headers + FDE), used to feed both.

Run ``python benchmarks/peers.py [--decode-files]`` (corpus dir: env ``BINLOG_CORPUS``,
default ``../shared/corpus`` relative to the repository root) for the TABLE_MAP benchmark;
``--decode-files`` adds one timed pass of whole-file decoding (rows included).
"""

from __future__ import annotations

import collections
import os
import statistics
import struct
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CORPUS = os.path.join(REPO_ROOT, os.pardir, "shared", "corpus")

TABLE_MAP_EVENT = 19
FORMAT_DESCRIPTION_EVENT = 15
ROTATE_EVENT = 4
HEADER_LEN = 19
CHECKSUM_LEN = 4
BINLOG_MAGIC = b"\xfebin"


class OfflineNetworkAccess(RuntimeError):
    """PMR tried to use the control connection (a query); offline this is an error."""


class PmrDesync(RuntimeError):
    """PMR finished an event without consuming exactly its body (it read too much or too little)."""


class OfflineCtlConnection:
    """Stands in for the pymysql control connection PMR keeps next to the stream."""

    def __init__(self, flavor: str = "mysql", charset: str = "utf8mb4"):
        if flavor not in ("mysql", "mariadb"):
            raise ValueError(f"flavor must be 'mysql' or 'mariadb', not {flavor!r}")
        self.dbms = flavor
        self.charset = charset

    def _get_dbms(self):
        return self.dbms

    def get_server_info(self):
        return "offline-MariaDB" if self.dbms == "mariadb" else "offline-mysql"

    def cursor(self, *args, **kwargs):
        raise OfflineNetworkAccess("PMR tried to query the server (offline stub)")

    def ping(self, *args, **kwargs):
        raise OfflineNetworkAccess("PMR tried to ping the server (offline stub)")

    query = execute = cursor


def _pmr():
    """Import PMR lazily so this module can be imported without it."""
    from pymysql.protocol import MysqlPacket
    from pymysqlreplication import event as pmr_event
    from pymysqlreplication import row_event as pmr_row_event
    from pymysqlreplication.packet import BinLogPacketWrapper

    return MysqlPacket, BinLogPacketWrapper, pmr_event, pmr_row_event


def _wrap(BinLogPacketWrapper, packet, table_map, ctl, mysql_version, use_checksum, allowed,
          verify_checksum, post_header_lengths):
    # Positional order of BinLogPacketWrapper.__init__ (1.0.17), as binlogstream passes them.
    return BinLogPacketWrapper(
        packet,
        table_map,
        ctl,
        mysql_version,
        use_checksum,
        allowed,
        None,  # only_tables
        None,  # ignored_tables
        None,  # only_schemas
        None,  # ignored_schemas
        False,  # freeze_schema
        False,  # ignore_decode_errors
        verify_checksum,
        True,  # optional_meta_data (as with binlog_row_metadata=FULL)
        False,  # enable_logging
        False,  # use_column_name_cache: no INFORMATION_SCHEMA lookups
        post_header_lengths,
    )


def _check_consumed(packet, checksum: bool, what: str):
    left = len(packet._data) - packet._position
    want = CHECKSUM_LEN if checksum else 0
    if left != want:
        raise PmrDesync(f"{what}: PMR left {left} bytes unread (expected {want})")


def pmr_table_map_parser(flavor: str = "mysql", *, strict: bool = True,
                         verify_checksum: bool = False):
    """Return ``parse(event_bytes, table_id_size=6, checksum=True) -> TableMapEvent``.

    ``event_bytes`` is one whole TABLE_MAP event: 19-byte common header, body, and the 4-byte
    CRC32 when ``checksum``. PMR's TableMapEvent does all its work (column metadata, null
    bitmap, optional-metadata TLVs, column info sync). ``table_id_size`` (6, or 4 for old
    5.1 servers whose FDE declares a 6-byte TABLE_MAP post-header) is given to PMR the way
    the stream gives it: as the FDE post-header length of event type 19.

    Raises whatever PMR raises (e.g. ``ValueError`` on optional-metadata type 13,
    ``MalformedBinLogEvent`` on 4-byte table ids, ``AssertionError`` from pymysql on reading
    past the end). With ``strict`` (default), also raises :class:`PmrDesync` when PMR did not
    consume exactly the body: PMR does not notice that itself, it then returns wrong data.
    """
    MysqlPacket, BinLogPacketWrapper, _, pmr_row_event = _pmr()
    ctl = OfflineCtlConnection(flavor)
    allowed = frozenset([pmr_row_event.TableMapEvent])
    phl = {6: (8,) * 19, 4: (8,) * 18 + (6,)}
    mysql_version = (8, 0, 0) if flavor == "mysql" else (10, 6, 0)

    def parse(event_bytes: bytes, table_id_size: int = 6, checksum: bool = True):
        if table_id_size not in phl:
            raise ValueError("table_id_size must be 6 or 4")
        if len(event_bytes) < HEADER_LEN or event_bytes[4] != TABLE_MAP_EVENT:
            raise ValueError("not a TABLE_MAP event")
        packet = MysqlPacket(b"\x00" + bytes(event_bytes), "utf8")
        wrapper = _wrap(BinLogPacketWrapper, packet, {}, ctl, mysql_version, checksum, allowed,
                        verify_checksum and checksum, phl[table_id_size])
        ev = wrapper.event
        if ev is None:
            raise RuntimeError("PMR skipped the event")
        if strict:
            _check_consumed(packet, checksum, "TABLE_MAP")
        return ev

    return parse


# --------------------------------------------------------------------------------------
# our own minimal walker


class BinlogFileInfo:
    __slots__ = ("server_version", "version_tuple", "checksum", "table_id_size",
                 "post_header_lengths", "flavor")

    def __init__(self, server_version, version_tuple, checksum, table_id_size,
                 post_header_lengths, flavor):
        self.server_version = server_version
        self.version_tuple = version_tuple
        self.checksum = checksum
        self.table_id_size = table_id_size
        self.post_header_lengths = post_header_lengths
        self.flavor = flavor


def _version_tuple(s: str):
    out = []
    for part in s.split("-")[0].split(".")[:3]:
        digits = ""
        for ch in part:
            if not ch.isdigit():
                break
            digits += ch
        out.append(int(digits or 0))
    while len(out) < 3:
        out.append(0)
    return tuple(out)


def parse_fde(event: bytes) -> BinlogFileInfo:
    body = event[HEADER_LEN:]
    server_version = body[2:52].split(b"\0", 1)[0].decode("ascii", "replace")
    vt = _version_tuple(server_version)
    checksum_aware = vt >= (5, 6, 1)
    if checksum_aware:
        alg = body[-5]
        phl = tuple(body[57:-5])
        checksum = alg == 1
    else:
        phl = tuple(body[57:])
        checksum = False
    table_id_size = 4 if len(phl) > 18 and phl[18] == 6 else 6
    flavor = "mariadb" if "mariadb" in server_version.lower() else "mysql"
    return BinlogFileInfo(server_version, vt, checksum, table_id_size, phl, flavor)


def iter_binlog_events(data: bytes):
    """Yield ``(offset, type_code, event_bytes, info)`` for a v4 binlog file.

    ``info`` is the :class:`BinlogFileInfo` from the file's FORMAT_DESCRIPTION event (None only
    for that event's predecessors, which a valid file does not have). Files that do not begin
    with an FDE (binlog v1/v3) yield nothing. TRANSACTION_PAYLOAD is yielded as one event; its
    contents are not walked. Stops at the first truncated event.
    """
    if data[:4] != BINLOG_MAGIC:
        return
    pos = 4
    info = None
    n = len(data)
    first = True
    while pos + HEADER_LEN <= n:
        type_code = data[pos + 4]
        size = struct.unpack_from("<I", data, pos + 9)[0]
        if size < HEADER_LEN or pos + size > n:
            return
        ev = data[pos:pos + size]
        if first:
            first = False
            if type_code != FORMAT_DESCRIPTION_EVENT:
                return  # binlog v1/v3
        if type_code == FORMAT_DESCRIPTION_EVENT:
            info = parse_fde(ev)
        yield pos, type_code, ev, info
        pos += size


def iter_binlog_files(root: str):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in sorted(filenames):
            path = os.path.join(dirpath, fn)
            try:
                with open(path, "rb") as f:
                    head = f.read(4)
                    if head != BINLOG_MAGIC:
                        continue
                    yield path, head + f.read()
            except OSError:
                continue


# --------------------------------------------------------------------------------------
# whole-file decoding with PMR


class PmrFileDecoder:
    """Feed a binlog file's events to PMR's BinLogPacketWrapper one by one, offline.

    Keeps the state ``BinLogStreamReader.fetchone`` keeps: ``table_map`` (table id -> Table,
    cleared on a timestamped ROTATE), ``mysql_version`` and ``post_header_lengths`` from the
    FDE. ``use_checksum`` comes from the FDE's checksum-alg byte (the stream asks the server).
    """

    def __init__(self, flavor=None, *, decode_rows=True, strict=True, verify_checksum=False):
        MysqlPacket, BinLogPacketWrapper, pmr_event, pmr_row_event = _pmr()
        self._MysqlPacket = MysqlPacket
        self._Wrapper = BinLogPacketWrapper
        self._RowsEvent = pmr_row_event.RowsEvent
        self._TableMapEvent = pmr_row_event.TableMapEvent
        self._FDE = pmr_event.FormatDescriptionEvent
        self.flavor = flavor
        self.decode_rows = decode_rows
        self.strict = strict
        self.verify_checksum = verify_checksum
        classes = set(BinLogPacketWrapper._BinLogPacketWrapper__event_map.values())
        classes.add(pmr_event.NotImplementedEvent)
        self.allowed = frozenset(classes)

    def iter_events(self, data: bytes):
        """Yield ``(offset, type_code, pmr_event_or_None, error_or_None)`` for each event.

        For rows events with ``decode_rows``, ``event.rows`` is evaluated (PMR decodes rows
        lazily). A rows event whose table map PMR does not have yields ``None`` (PMR skips it).
        """
        table_map = {}
        mysql_version = (0, 0, 0)
        post_header_lengths = None
        ctl = None
        for off, type_code, ev_bytes, info in iter_binlog_events(data):
            if ctl is None:
                ctl = OfflineCtlConnection(self.flavor or info.flavor)
            use_checksum = info.checksum
            packet = self._MysqlPacket(b"\x00" + ev_bytes, "utf8")
            try:
                w = self._Wrapper(packet, table_map, ctl, mysql_version, use_checksum,
                                  self.allowed, None, None, None, None, False, False,
                                  self.verify_checksum and use_checksum, True, False, False,
                                  post_header_lengths)
                ev = w.event
                if type_code == FORMAT_DESCRIPTION_EVENT and ev is not None:
                    mysql_version = ev.mysql_version
                    post_header_lengths = ev.post_header_len
                elif type_code == ROTATE_EVENT and w.timestamp != 0:
                    table_map = {}
                elif type_code == TABLE_MAP_EVENT and ev is not None:
                    table_map[ev.table_id] = ev.get_table()
                if ev is not None and isinstance(ev, self._RowsEvent) and self.decode_rows:
                    ev.rows  # noqa: B018 - decode the rows
                if self.strict and ev is not None and (
                        isinstance(ev, (self._RowsEvent, self._TableMapEvent))):
                    if not isinstance(ev, self._RowsEvent) or self.decode_rows:
                        _check_consumed(packet, use_checksum, type(ev).__name__)
            except Exception as e:  # noqa: BLE001 - a peer's failure is data here
                yield off, type_code, None, e
                continue
            yield off, type_code, ev, None


def pmr_event_parser(flavor=None, *, decode_rows=True, strict=True, verify_checksum=False):
    """Return a :class:`PmrFileDecoder` (``flavor`` None: from each file's FDE)."""
    return PmrFileDecoder(flavor, decode_rows=decode_rows, strict=strict,
                          verify_checksum=verify_checksum)


# --------------------------------------------------------------------------------------
# benchmark


def _reason(e: BaseException) -> str:
    msg = str(e).splitlines()[0] if str(e) else ""
    if isinstance(e, AssertionError) and msg.startswith("Result length"):
        msg = "read past end of packet"
    elif isinstance(e, PmrDesync):
        msg = "did not consume exactly the event body"
    elif "declares post-header length" in msg:
        msg = msg.split(" declares ")[0].replace("Event type 19", "TABLE_MAP") + \
            " post-header shorter than 8 (4-byte table id)"
    return f"{type(e).__name__}: {msg[:90]}"


def collect_table_maps(root: str):
    maps = []  # (path, offset, event_bytes, table_id_size, checksum, flavor)
    for path, data in iter_binlog_files(root):
        for off, type_code, ev, info in iter_binlog_events(data):
            if type_code == TABLE_MAP_EVENT and info is not None:
                maps.append((path, off, ev, info.table_id_size, info.checksum, info.flavor))
    return maps


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    root = os.environ.get("BINLOG_CORPUS", DEFAULT_CORPUS)
    root = os.path.normpath(root)
    repeats = 5
    maps = collect_table_maps(root)
    parsers = {"mysql": pmr_table_map_parser("mysql"), "mariadb": pmr_table_map_parser("mariadb")}
    items = [(parsers[fl], ev, tis, ck) for (_, _, ev, tis, ck, fl) in maps]

    ok = []
    reasons = collections.Counter()
    where = collections.defaultdict(collections.Counter)
    for (path, _off, ev, tis, ck, _fl), it in zip(maps, items):
        try:
            it[0](ev, tis, ck)
            ok.append(it)
        except Exception as e:  # noqa: BLE001
            r = _reason(e)
            reasons[r] += 1
            where[r][os.path.relpath(path, root)] += 1

    def run(batch):
        t0 = time.perf_counter()
        for parse, ev, tis, ck in batch:
            try:
                parse(ev, tis, ck)
            except Exception:  # noqa: BLE001
                pass
        return time.perf_counter() - t0

    run(items)  # warm-up
    t_all = statistics.median(run(items) for _ in range(repeats))
    t_ok = statistics.median(run(ok) for _ in range(repeats))

    print(f"corpus: {root}")
    print(f"TABLE_MAP events: {len(maps)} "
          f"(crc32: {sum(1 for m in maps if m[4])}, 4-byte table id: "
          f"{sum(1 for m in maps if m[3] == 4)}, "
          f"mariadb: {sum(1 for m in maps if m[5] == 'mariadb')})")
    print(f"PMR parsed: {len(ok)}  failed: {len(maps) - len(ok)}")
    for r, n in reasons.most_common():
        files = ", ".join(f"{p} x{c}" for p, c in where[r].most_common())
        print(f"  {n:5d}  {r}   [{files}]")
    print(f"PMR rate, all {len(items)} maps (failures included): "
          f"{len(items) / t_all:,.0f} maps/s  (median of {repeats}: {t_all * 1e3:.2f} ms)")
    if ok:
        print(f"PMR rate, {len(ok)} maps it parses: "
              f"{len(ok) / t_ok:,.0f} maps/s  (median of {repeats}: {t_ok * 1e3:.2f} ms)")
    if "--decode-files" in argv:
        decode_files(root)
    return 0


def decode_files(root: str):
    """Whole-file decoding with PMR (rows included): counts and time, one pass."""
    dec = pmr_event_parser()
    files = events = rows = 0
    errors = collections.Counter()
    t0 = time.perf_counter()
    for _path, data in iter_binlog_files(root):
        files += 1
        for _off, type_code, ev, err in dec.iter_events(data):
            events += 1
            if err is not None:
                errors[(type_code, _reason(err))] += 1
            elif ev is not None and isinstance(ev, dec._RowsEvent):
                rows += len(ev.rows)
    dt = time.perf_counter() - t0
    print(f"PMR whole-file decode: {files} files, {events} events, {rows} rows, "
          f"{sum(errors.values())} events failed, {dt * 1e3:.0f} ms")
    for (t, r), n in errors.most_common():
        print(f"  {n:5d}  type {t}: {r}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""The python-mysql-replication (PMR) side of the end-to-end benchmarks: decode a binlog FILE
with PMR, offline, as one command.

    python benchmarks/pmr_peer.py FILE [--rows | --table-maps] [--flavor auto|mysql|mariadb]

Each event of the file, read from disk as it goes (not the whole file at once), is fed
through pymysqlreplication's ``BinLogPacketWrapper``: the code path its
``BinLogStreamReader.fetchone`` runs for every event from a live server, with the state the
stream keeps (the table map, cleared on a timestamped ROTATE; the server version and
post-header lengths from FORMAT_DESCRIPTION; the checksum from the FDE's algorithm byte,
which the stream would ask the server). No query can reach a server (``benchmarks/peers.py``'s
offline control connection).

Modes:
  (default)      every event type PMR knows is decoded; rows events are left raw (PMR
                 decodes the row images lazily, on ``.rows``, which is not touched);
  --rows         as the default, and every rows event's ``.rows`` is decoded;
  --table-maps   only TABLE_MAP is decoded (plus FORMAT_DESCRIPTION and ROTATE, which the
                 stream always decodes for its own state), as ``only_events=[TableMapEvent]``.

Prints nothing on stdout; one summary line on stderr (events, decoded, table maps, rows,
events PMR failed on, the first failure). Exit status 0 when the file was read to its end.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peers import (
    BINLOG_MAGIC,
    FORMAT_DESCRIPTION_EVENT,
    HEADER_LEN,
    ROTATE_EVENT,
    TABLE_MAP_EVENT,
    OfflineCtlConnection,
    parse_fde,
)

from pymysql.protocol import MysqlPacket
from pymysqlreplication import event as pmr_event
from pymysqlreplication import row_event as pmr_row_event
from pymysqlreplication.packet import BinLogPacketWrapper


def read_events(path):
    """Yield each whole event (header, body, trailer) of a v4 binlog file, streaming."""
    with open(path, "rb", buffering=1 << 20) as f:
        if f.read(4) != BINLOG_MAGIC:
            raise SystemExit(f"{path}: not a binlog file")
        while True:
            head = f.read(HEADER_LEN)
            if len(head) < HEADER_LEN:
                return
            size = struct.unpack_from("<I", head, 9)[0]
            if size < HEADER_LEN:
                raise SystemExit(f"{path}: event size {size} < {HEADER_LEN}")
            body = f.read(size - HEADER_LEN)
            if len(body) < size - HEADER_LEN:
                return  # truncated last event
            yield head + body


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--rows", action="store_true", help="decode every rows event's rows")
    mode.add_argument("--table-maps", action="store_true", help="decode TABLE_MAP only")
    ap.add_argument("--flavor", choices=("auto", "mysql", "mariadb"), default="auto",
                    help="the server flavor PMR is told (auto: from the FDE's server version)")
    args = ap.parse_args(argv)

    if args.table_maps:
        allowed = frozenset([pmr_row_event.TableMapEvent, pmr_event.FormatDescriptionEvent,
                             pmr_event.RotateEvent])
    else:
        classes = set(BinLogPacketWrapper._BinLogPacketWrapper__event_map.values())
        classes.add(pmr_event.NotImplementedEvent)
        allowed = frozenset(classes)
    RowsEvent = pmr_row_event.RowsEvent

    t0 = time.perf_counter()
    table_map = {}
    mysql_version = (0, 0, 0)
    post_header_lengths = None
    use_checksum = False
    ctl = None
    flavor = None
    events = decoded = table_maps = rows = errors = 0
    first_error = ""
    for raw in read_events(args.file):
        events += 1
        type_code = raw[4]
        if type_code == FORMAT_DESCRIPTION_EVENT:
            info = parse_fde(raw)
            use_checksum = info.checksum
            if ctl is None:
                flavor = info.flavor if args.flavor == "auto" else args.flavor
                ctl = OfflineCtlConnection(flavor)
        elif ctl is None:
            raise SystemExit(f"{args.file}: no FORMAT_DESCRIPTION event first")
        packet = MysqlPacket(b"\x00" + raw, "utf8")
        try:
            w = BinLogPacketWrapper(packet, table_map, ctl, mysql_version, use_checksum,
                                    allowed, None, None, None, None, False, False, False,
                                    True, False, False, post_header_lengths)
            ev = w.event
            if ev is None:
                continue
            decoded += 1
            if type_code == FORMAT_DESCRIPTION_EVENT:
                mysql_version = ev.mysql_version
                post_header_lengths = ev.post_header_len
            elif type_code == ROTATE_EVENT and w.timestamp != 0:
                table_map = {}
            elif type_code == TABLE_MAP_EVENT:
                table_map[ev.table_id] = ev.get_table()
                table_maps += 1
            elif args.rows and isinstance(ev, RowsEvent):
                rows += len(ev.rows)
        except Exception as e:  # noqa: BLE001 - counted and reported, the run goes on
            errors += 1
            if not first_error:
                first_error = (f"{type(e).__name__}: "
                               f"{str(e).splitlines()[0][:100] if str(e) else ''}")
    seconds = time.perf_counter() - t0
    print(f"pmr: flavor={flavor} events={events} decoded={decoded} table_maps={table_maps} "
          f"rows={rows if args.rows else 'raw'} failed={errors}"
          + (f" (first: {first_error})" if first_error else "")
          + f" seconds={seconds:.2f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

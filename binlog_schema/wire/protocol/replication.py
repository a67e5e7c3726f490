"""The replication commands and the binlog network stream, declared once: each declaration
parses a packet's payload (the bytes after :mod:`.framing`'s header) and builds it back.

::

    ComRegisterSlave    0x15, server id 4, host, user, password (each a 1-byte length and
                        text), port 2, replication rank 4, master id 4
    ComBinlogDump       0x12, position 4, flags 2, server id 4, file name (to the end)
    ComBinlogDumpGtid   0x1e, flags 2, server id 4, file name (4-byte length), position 8,
                        [GTID set: 4-byte length, MySQL's encoded set (PREVIOUS_GTIDS's
                        body), when flags hold THROUGH_GTID]
    BinlogStreamPacket  0x00, [0xef and the ack-wanted byte, when semi-sync was announced:
                        context keyword ``semi_sync``], the event's bytes
    SemiSyncAck         0xef, position 8, file name (to the end): a semi-sync replica's ack

The end of a dump is an EOF packet and an error an ERR packet (:mod:`.connection`). MariaDB
asks for its GTID start position with ``SET @slave_connect_state='D-S-N,...'`` (a query, not a
packet) and then sends a COM_BINLOG_DUMP with an empty file name."""

from __future__ import annotations

import construct as c

from ...construct_ext import context_functions as exprs
from ...construct_ext.expressions import Call
from ...construct_ext.primitives import Bounded, If, Raw, Text
from ...format.events.gtid import PreviousGtidsBody
from .connection import COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID, COM_REGISTER_SLAVE

# the flags of the dump commands
BINLOG_DUMP_NON_BLOCK = 0x01
"""Send an EOF packet at the end of the last file instead of waiting for more."""
BINLOG_SEND_ANNOTATE_ROWS = 0x02
"""MariaDB: send ANNOTATE_ROWS events (the replica asks for them)."""
BINLOG_THROUGH_POSITION = 0x02
"""MySQL COM_BINLOG_DUMP_GTID: start at the file name and position."""
BINLOG_THROUGH_GTID = 0x04
"""MySQL COM_BINLOG_DUMP_GTID: a GTID set follows (the transactions not in it are sent)."""

OK_STATUS = 0x00          # the first byte of each packet of the binlog stream
SEMI_SYNC_MARKER = 0xEF   # the first byte of a semi-sync header and of a semi-sync ack

_ShortText = Bounded(Text, packed=False)  # a 1-byte length, then text

ComRegisterSlave = c.Struct(
    c.Const(COM_REGISTER_SLAVE, c.Int8ul),                 # 1  0x15
    "server_id" / c.Int32ul,                               # 4  the replica's server id
    "host" / _ShortText,                                   #    report_host ("" mostly)
    "user" / _ShortText,                                   #    report_user
    "password" / _ShortText,                               #    report_password
    "port" / c.Int16ul,                                    # 2  report_port
    "rank" / c.Int32ul,                                    # 4  replication rank (unused: 0)
    "master_id" / c.Int32ul,                               # 4  (unused: 0)
)
"""COM_REGISTER_SLAVE: a replica announces itself before it asks for a dump."""

ComBinlogDump = c.Struct(
    c.Const(COM_BINLOG_DUMP, c.Int8ul),                    # 1  0x12
    "position" / c.Int32ul,                                # 4  where to start in the file
    "flags" / c.Int16ul,                                   # 2  BINLOG_DUMP_NON_BLOCK...
    "server_id" / c.Int32ul,                               # 4  the replica's server id
    "file" / Text,                                         #    to the end ("": see above)
)
"""COM_BINLOG_DUMP: stream the binlog from a file and position."""

ComBinlogDumpGtid = c.Struct(
    c.Const(COM_BINLOG_DUMP_GTID, c.Int8ul),               # 1  0x1e
    "flags" / c.Int16ul,                                   # 2  THROUGH_POSITION, THROUGH_GTID
    "server_id" / c.Int32ul,                               # 4
    "file" / c.Prefixed(c.Int32ul, Text),                  # 4 + n
    "position" / c.Int64ul,                                # 8
    "gtid_set" / If(lambda ctx: ctx.flags & BINLOG_THROUGH_GTID,
                     c.Prefixed(c.Int32ul, PreviousGtidsBody),   # 4 + n  the executed set
                     optional=True),
)
"""COM_BINLOG_DUMP_GTID (MySQL 5.6+): stream the transactions that are not in a GTID set."""

BinlogStreamPacket = c.Struct(
    c.Const(OK_STATUS, c.Int8ul),                          # 1  0x00
    "semi_sync" / If(Call(exprs.param, "semi_sync", False), c.Struct(
        c.Const(SEMI_SYNC_MARKER, c.Int8ul),               # 1  0xef
        "ack_wanted" / c.Int8ul), optional=True),          # 1  1: send a SemiSyncAck
    "event" / Raw,                                         #    the event (header to CRC32)
)
"""One event of the binlog network stream."""

SemiSyncAck = c.Struct(
    c.Const(SEMI_SYNC_MARKER, c.Int8ul),                   # 1  0xef
    "position" / c.Int64ul,                                # 8  the end of the acked event
    "file" / Text,                                         #    to the end
)
"""A semi-sync replica's acknowledgement of an event that asked for one."""

__all__ = ["BinlogStreamPacket", "ComBinlogDump", "ComBinlogDumpGtid", "ComRegisterSlave",
           "SemiSyncAck"]

"""GTID and replication-control events: MySQL's GTID family and MariaDB's GTID events.

MySQL::

    GTID_LOG (33), ANONYMOUS_GTID_LOG (34)
        flags 1, sid 16, gno 8                                             (5.6)
        lt_type 1 (2), last_committed 8, sequence_number 8                  (5.7, if more)
        immediate_commit_timestamp 7 (bit 55: the original one follows),
          original_commit_timestamp 7                                       (8.0, if more)
        transaction_length packed                                           (if more)
        immediate_server_version 4 (bit 31: the original one follows),
          original_server_version 4                                         (if more)
        commit_group_ticket 8                                               (8.0.33+, if more)
    GTID_TAGGED_LOG (42, 8.4+): the same fields in MySQL's serialization format
        (libs/mysql/serialization): format version and message size as variable-length
        integers, then "field id, value" pairs, each field optional, integers varlen (signed
        ones zigzag), the SID as 16 varlen bytes, the tag as a varlen-length string.
    PREVIOUS_GTIDS_LOG (35): an 8-byte word with the format in its top byte (0 untagged:
        n_sids in the low 7 bytes; 1 tagged: format, n_sids in bytes 1-6, format), then per
        SID: uuid 16, [tag, tagged format only], n_intervals 8, (start 8, end 8) * n.
    TRANSACTION_CONTEXT (36), VIEW_CHANGE (37), XA_PREPARE_LOG (38), HEARTBEAT_LOG (27),
    HEARTBEAT_LOG_V2 (41, TLV fields like TRANSACTION_PAYLOAD's).

MariaDB::

    BINLOG_CHECKPOINT (161): name length 4, name
    GTID (162): seq_no 8, domain_id 4, flags2 1, [commit_id 8], [xid: format_id 4,
        gtrid_length 1, bqual_length 1, data], [flags_extra 1 (written when non-zero),
        [extra_engines 1], [start-alter seq_no 8], [thread_id 4]], zero padding to 19 bytes
    GTID_LIST (163): count 28 bits + flags 4 bits, (domain_id 4, server_id 4, seq_no 8) * count
        (an empty list is followed by 2 zero bytes)
    START_ENCRYPTION (164): scheme 1, key_version 4, nonce 12 (the rest of the file is
        encrypted and stays raw: the reader has no key)

Presence bits, lengths and counts are computed on build. Where a value's presence is tied to a
flag the user writes (MariaDB's flags2/flags_extra), a ``Check`` refuses a value whose flag and
field disagree instead of dropping the field silently.
"""

from __future__ import annotations

import construct as c
from construct import this

from ...construct_ext import context_functions as exprs
from ...construct_ext.primitives import (Bounded, BuildCheck, ByteString, Call, FieldIs,
                                        FixedText, FlaggedPair, FlagList, FlagSet, If, IfMore,
                                        LowBits, Message, NonZeroFlags, PackedCode, PackedInt,
                                        PackedNumber, PadTo, PeekHigh, Raw, Rebuild,
                                        RepeatUntilValue, SerField, SidCount, SizedText, Struct,
                                        Switch, Text, TextN, Uuid, VarFlags, VarSInt, VarText,
                                        VarUInt, VarUuid)
from ..facts import codes
from ..facts.names import (GTID_FLAGS, GTID_SET_FORMATS, HEARTBEAT_FIELDS, MARIA_GTID_FLAGS2,
                           MARIA_GTID_FLAGS_EXTRA, MARIA_GTID_LIST_FLAGS)

# ======================================================================================
# MySQL
# ======================================================================================

_LT2 = this.lt_type == 2
_GTID_TAIL = ("commit_timestamps", "transaction_length", "server_versions",
              "commit_group_ticket")


GtidBody = Struct(
    BuildCheck(exprs.tail_ok, ("last_committed", "sequence_number") + _GTID_TAIL, "lt_type", 2),
    "flags" / FlagList(1, GTID_FLAGS),                  # 1  MAY_HAVE_SBR...
    "sid" / Uuid,                                       # 16 source UUID (0s: anonymous)
    "gno" / c.Int64sl,                                  # 8  transaction number
    "lt_type" / IfMore(c.Int8ul),                       # 1  5.7+: 2 (LOGICAL_TIMESTAMP_TYPECODE)
    "last_committed" / If(_LT2, c.Int64sl),             # 8  logical clock: depends on ...
    "sequence_number" / If(_LT2, c.Int64sl),            # 8  ... and is this one
    "commit_timestamps" / If(_LT2, IfMore(FlaggedPair(7, 55))),    # 7+7 8.0: microseconds
    "transaction_length" / If(_LT2, IfMore(PackedNumber)),         # packed, bytes
    "server_versions" / If(_LT2, IfMore(FlaggedPair(4, 31))),      # 4+4 8.0.14+
    "commit_group_ticket" / If(_LT2, IfMore(c.Int64ul)),           # 8  8.0.33+
)
"""GTID_LOG_EVENT (33) and ANONYMOUS_GTID_LOG_EVENT (34): 5.6 ends after ``gno``, 5.7 after
``sequence_number``; each later block is present only when bytes remain. A ``lt_type`` other
than 2 (5.7.4 and earlier) leaves what follows unparsed (the envelope's ``trailing``)."""

# GTID_TAGGED_LOG_EVENT: MySQL's Gtid_event::define_fields(), field ids 0-11.
TAG_MAX_LENGTH = 32
SERIALIZATION_FORMAT_VERSION = 1

TaggedGtidBody = Message(SERIALIZATION_FORMAT_VERSION, Struct(
    "last_non_ignorable_field_id" / VarUInt,              # fields up to it must be understood
    "flags" / SerField(0, VarFlags(GTID_FLAGS)),
    "sid" / SerField(1, VarUuid),                         # 16 varlen bytes
    "gno" / SerField(2, VarSInt),
    "tag" / SerField(3, VarText(TAG_MAX_LENGTH)),         # up to 32 bytes
    "last_committed" / SerField(4, VarSInt),
    "sequence_number" / SerField(5, VarSInt),
    "immediate_commit_timestamp" / SerField(6, VarUInt),  # microseconds
    "original_commit_timestamp" / SerField(7, VarUInt),   # written when it differs
    "transaction_length" / SerField(8, VarUInt),
    "immediate_server_version" / SerField(9, VarUInt),
    "original_server_version" / SerField(10, VarUInt),    # written when it differs
    "commit_group_ticket" / SerField(11, VarUInt),        # written when set
    "unknown_fields" / IfMore(Raw),                       # fields of newer servers, kept raw
))
"""GTID_TAGGED_LOG_EVENT (42, MySQL 8.4+/9.x). Every field is optional (None when absent), as
in the format; the message size is computed on build."""


GtidInterval = Struct(
    "start" / c.Int64sl,                                   # 8  first gno
    "end" / c.Int64sl,                                     # 8  last gno + 1
)

GtidSetSid = Struct(
    "sid" / Uuid,                                          # 16
    "tag" / If(FieldIs(("_", "format"), "TAGGED"), VarText(TAG_MAX_LENGTH)),    # varlen
    "n_intervals" / Rebuild(c.Int64ul, c.len_(this.intervals)),              # 8
    "intervals" / c.Array(this.n_intervals, GtidInterval),
)

PreviousGtidsBody = Struct(
    "format" / PeekHigh(8, 56, GTID_SET_FORMATS),          # 0  top byte of the next word
    "n_sids" / Rebuild(SidCount(this.format, GTID_SET_FORMATS), c.len_(this.sids)),    # 8
    "sids" / c.Array(this.n_sids, GtidSetSid),
)
"""PREVIOUS_GTIDS_LOG_EVENT (35): the GTID set of the earlier files (Gtid_set::encode), in
the untagged or, from 8.4, the tagged format (which MySQL uses as soon as any SID it knows
has a tag, so a tagged set may hold only empty tags)."""

TransactionContextBody = Struct(
    "server_uuid_length" / Rebuild(c.Int8ul, Call(exprs.field_byte_len, "server_uuid")),    # 1
    "thread_id" / c.Int32ul,                                                   # 4
    "gtid_specified" / c.Int8ul,                                               # 1  0 or 1
    "snapshot_version_length" / Rebuild(c.Int32ul, c.len_(this.snapshot_version)),    # 4
    "write_set_count" / Rebuild(c.Int32ul, c.len_(this.write_set)),            # 4
    "read_set_count" / Rebuild(c.Int32ul, c.len_(this.read_set)),              # 4
    "server_uuid" / TextN(this.server_uuid_length),
    "snapshot_version" / ByteString(this.snapshot_version_length),  # encoded GTID set
    "write_set" / c.Array(this.write_set_count, SizedText(2)),      # 2-byte length, hash
    "read_set" / c.Array(this.read_set_count, SizedText(2)),        # 2-byte length, hash
)
"""TRANSACTION_CONTEXT_EVENT (36, group replication): 18-byte post-header, then the server
UUID, the encoded snapshot version and the write/read sets (2-byte length + hash each)."""

ViewChangeBody = Struct(
    "view_id" / FixedText(40),                                                 # 40 NUL padded
    "seq_number" / c.Int64sl,                                                  # 8
    "cert_info_count" / Rebuild(c.Int32ul, c.len_(this.certification_info)),    # 4
    "certification_info" / c.Array(this.cert_info_count, Struct(
        "key" / SizedText(2),                                                  # 2-byte length
        "value" / SizedText(4))),                                              # 4-byte length
)
"""VIEW_CHANGE_EVENT (37, group replication): 52-byte post-header (view id, NUL padded to 40
bytes; sequence number; count), then the certification map as (key, value) pairs in order."""

XaPrepareBody = Struct(
    "one_phase" / c.Int8ul,                                                # 1  XA COMMIT ONE PHASE
    "format_id" / c.Int32ul,                                               # 4  XID format
    "gtrid_length" / Rebuild(c.Int32ul, Call(exprs.field_byte_len, "gtrid")),    # 4
    "bqual_length" / Rebuild(c.Int32ul, Call(exprs.field_byte_len, "bqual")),    # 4
    "gtrid" / TextN(this.gtrid_length),                                    # global trx id
    "bqual" / TextN(this.bqual_length),                                    # branch qualifier
)
"""XA_PREPARE_LOG_EVENT (38, MySQL 5.7+ and MariaDB 10.5+): the XID of an XA PREPARE (or
XA COMMIT ... ONE PHASE)."""

HeartbeatBody = Struct("log_ident" / Text)                 # to the end
"""HEARTBEAT_LOG_EVENT (27): the source's current binlog file name (sent, never logged)."""


HeartbeatField = Struct(
    "type" / PackedCode(HEARTBEAT_FIELDS),                 # packed, named
    "value" / If(FieldIs(("type",), "END", negate=True), Bounded(Switch(this.type, {
        "LOG_FILENAME": Text,                              # packed length, then the value
        "LOG_POSITION": PackedInt,
    }, default=Raw))),
)

HeartbeatV2Body = Struct("fields" / RepeatUntilValue(HeartbeatField, "type", "END"))
"""HEARTBEAT_LOG_EVENT_V2 (41, 8.0.26+): TLV fields (packed type, packed length, value) up to
the END mark, like TRANSACTION_PAYLOAD's; unknown types keep their bytes."""

# ======================================================================================
# MariaDB
# ======================================================================================

BinlogCheckpointBody = Struct("binlog_file" / SizedText(4))   # 4-byte length, name
"""BINLOG_CHECKPOINT_EVENT (161): the oldest binlog file still needed for crash recovery."""


MARIA_GTID_HEADER_LEN = 19

MariaXid = Struct(
    "format_id" / c.Int32ul,                                               # 4
    "gtrid_length" / Rebuild(c.Int8ul, Call(exprs.field_byte_len, "gtrid")),    # 1
    "bqual_length" / Rebuild(c.Int8ul, Call(exprs.field_byte_len, "bqual")),    # 1
    "gtrid" / TextN(this.gtrid_length),
    "bqual" / TextN(this.bqual_length),
)

# (field, flags field, its names, mask): the field is present exactly when a bit of the mask is
# set (the If of each field; on build, BuildCheck refuses a value where they disagree)
_GROUP_COMMIT = ("commit_id", "flags2", MARIA_GTID_FLAGS2, 0x02)
_XA = ("xid", "flags2", MARIA_GTID_FLAGS2, 0xC0)
_MULTI_ENGINE = ("extra_engines", "flags_extra", MARIA_GTID_FLAGS_EXTRA, 0x01)
_END_ALTER = ("sa_seq_no", "flags_extra", MARIA_GTID_FLAGS_EXTRA, 0x0C)
_THREAD_ID = ("thread_id", "flags_extra", MARIA_GTID_FLAGS_EXTRA, 0x10)

MariaGtidBody = Struct(
    BuildCheck(exprs.presence_ok, (_GROUP_COMMIT, _XA, _MULTI_ENGINE, _END_ALTER, _THREAD_ID)),
    "seq_no" / c.Int64ul,                                     # 8
    "domain_id" / c.Int32ul,                                  # 4
    "flags2" / FlagList(1, MARIA_GTID_FLAGS2),                # 1  STANDALONE, GROUP_COMMIT_ID...
    "commit_id" / If(FlagSet(*_GROUP_COMMIT[1:]), c.Int64ul),    # 8  group commit id
    "xid" / If(FlagSet(*_XA[1:]), MariaXid),                  # XA PREPARE/COMPLETE
    "flags_extra" / NonZeroFlags(MARIA_GTID_FLAGS_EXTRA),     # 1  10.5+, when non-zero
    "extra_engines" / If(FlagSet(*_MULTI_ENGINE[1:]), c.Int8ul),    # 1
    "sa_seq_no" / If(FlagSet(*_END_ALTER[1:]), c.Int64ul),    # 8  10.8+: START ALTER's seq_no
    "thread_id" / If(FlagSet(*_THREAD_ID[1:]), c.Int32ul),    # 4  11.5+
    PadTo(MARIA_GTID_HEADER_LEN),                             # zeros up to 19 bytes
)
"""GTID_EVENT (162): MariaDB's GTID (domain_id-server_id-seq_no, the server id from the
header), what flags2 and flags_extra announce, zero padding to the 19-byte post-header."""


MariaGtidListBody = Struct(
    "flags" / PeekHigh(4, 28, MARIA_GTID_LIST_FLAGS, flags=True),   # 0  top 4 bits of:
    "count" / Rebuild(LowBits(4, 28, this.flags, MARIA_GTID_LIST_FLAGS, flags=True),
                      c.len_(this.gtids)),                       # 4  low 28 bits
    "gtids" / c.Array(this.count, Struct(
        "domain_id" / c.Int32ul,                                 # 4
        "server_id" / c.Int32ul,                                 # 4
        "seq_no" / c.Int64ul)),                                  # 8
    If(this.count == 0, c.Const(b"\x00\x00")),     # 2  Gtid_list_log_event::to_packet
)
"""GTID_LIST_EVENT (163): the binlog state at the start of the file (last GTID per domain and
server); count in the low 28 bits of the first word, flags in the top 4."""

StartEncryptionBody = Struct(
    "scheme" / c.Int8ul,                     # 1  1: AES
    "key_version" / c.Int32ul,               # 4
    "nonce" / ByteString(12),                # 12
)
"""START_ENCRYPTION_EVENT (164): the events after it are encrypted (scheme 1: AES with a
key from the key-management plugin; not decrypted here)."""

BODIES = {
    codes.HEARTBEAT_LOG_EVENT: HeartbeatBody,
    codes.GTID_LOG_EVENT: GtidBody,
    codes.ANONYMOUS_GTID_LOG_EVENT: GtidBody,
    codes.PREVIOUS_GTIDS_LOG_EVENT: PreviousGtidsBody,
    codes.TRANSACTION_CONTEXT_EVENT: TransactionContextBody,
    codes.VIEW_CHANGE_EVENT: ViewChangeBody,
    codes.XA_PREPARE_LOG_EVENT: XaPrepareBody,
    codes.HEARTBEAT_LOG_EVENT_V2: HeartbeatV2Body,
    codes.GTID_TAGGED_LOG_EVENT: TaggedGtidBody,
    codes.BINLOG_CHECKPOINT_EVENT: BinlogCheckpointBody,
    codes.MARIA_GTID_EVENT: MariaGtidBody,
    codes.GTID_LIST_EVENT: MariaGtidListBody,
    codes.START_ENCRYPTION_EVENT: StartEncryptionBody,
}

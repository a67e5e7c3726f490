"""The MySQL client/server protocol's packets, declared once (construct): each declaration
parses and builds. :mod:`.framing` (the 4-byte packet header, 16 MiB splitting),
:mod:`.connection` (handshake, auth, OK/ERR/EOF, COM_QUERY and text result sets, COM_PING,
COM_QUIT), :mod:`.replication` (COM_REGISTER_SLAVE, COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID and
MySQL's GTID set, the binlog network stream), :mod:`.auth` (password scrambles).
Golden vectors: ``specs/protocol/``."""

"""``binlog-schema serve``: serve a folder of binlog files to replicas and CDC clients over
the MySQL replication protocol, as a master would (the server:
binlog_schema.wire.replication.server).

    binlog-schema serve DIR --port 3307
    binlog-schema serve DIR --port 3307 --user repl --password-file pw.txt --server-id 7
    binlog-schema serve DIR --port 3307 --ssl-cert cert.pem --ssl-key key.pem --require-ssl
    binlog-schema fixtures --random -o DIR && binlog-schema serve DIR --port 3307
"""

from __future__ import annotations

from ..wire.replication.serve_command import cmd_serve
from ..output.statuses import epilog
from .declare import Cmd, Opt
from .options import (HEARTBEAT, HOST, METRICS, PASSWORD_FILE, PORT, SCHEMA, SEMI_SYNC,
                      SERVER_ID, TLS_SERVER, USER)
from .values import bad_value

_EPILOG = """\
A replica connects as to a master: CHANGE MASTER TO MASTER_HOST='127.0.0.1',
MASTER_PORT=3307, MASTER_USER=..., MASTER_PASSWORD=..., MASTER_LOG_FILE='<a file of DIR>',
MASTER_LOG_POS=4 (or MASTER_USE_GTID=slave_pos with MariaDB; MASTER_AUTO_POSITION=1 with
MySQL and --flavor mysql: its GTID set is honoured); START SLAVE.
The files of DIR (those that start with the binlog magic number; an index, .state or .info
file beside them is not read) are served in name order; the last one is followed as it
grows, and new files are picked up. Each file's ROTATE must agree with that order: it names
the next file, or a name not in DIR (renamed copies: the next file is served). A ROTATE that
names the file itself, an earlier or a later file, or a file missing between two of DIR's,
ends the dump with ERR 1236 naming the files (and a line here): never a repeat or a skip.
With --ssl-cert/--ssl-key a replica connects over TLS with MASTER_SSL=1 (MASTER_SSL_CA=...
to verify the certificate).
SELECT ... FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA=... AND TABLE_NAME=... (as text
or a prepared statement) is answered from the DDL in the files (and --schema): for a client
with a dump under way, as of the TABLE_MAP it asks about; otherwise as of the end of the
files. KILL ends another connection (or its dump: KILL QUERY).
"""
# what is particular to serve's exit statuses (statuses.epilog)
_STATUS_NOTE = ("0: stopped by SIGINT or SIGTERM; 1 also when the folder cannot be served, the "
                "port cannot be listened on (in use, not allowed), or the password file, a "
                "TLS certificate or key, or the RSA key cannot be read or used (one line: "
                "serve: FILE: reason).")



def _positive(text: str) -> int:
    value = int(text)
    if value < 1 or value >= 1 << 32:
        raise bad_value("must be between 1 and 4294967295")
    return value



COMMANDS = [
    Cmd("serve", "serve a folder of binlog files to replicas over the replication protocol",
        cmd_serve, [
        Opt("dir", metavar="DIR", help="the folder of binlog files to serve"),
        PORT.but(required=True,
            help="the TCP port to listen on (0: a free one, printed on stderr)"),
        HOST.but(
            help="the address to listen on (default 127.0.0.1: loopback only). An "
                 "address other than loopback needs --user or --no-auth (status 2 "
                 "without): a binlog holds every row of every table"),
        USER.but(help="the only user accepted (its password checked by --auth's "
                           "plugin); without it every user is accepted without a "
                           "password check"),
        PASSWORD_FILE.but(
            help="a file holding --user's password (one line; default: empty); a "
                 "warning when others than its owner may read it"),
        Opt("--no-auth", action="store_true",
            help="accept every user without a password check on an address other "
                 "than loopback (what serve does on loopback without --user)"),
        SERVER_ID.but(type=_positive, default=1,
            help="the server id this master announces (SHOW VARIABLES LIKE "
                 "'SERVER_ID', artificial events; default 1). The files' events keep "
                 "the ids they hold"),
        Opt("--flavor", choices=("mariadb", "mysql"), default="mariadb",
            help="the server this one says it is: its version string in the greeting "
                 "and VERSION() (default mariadb: 10.11.6-MariaDB-binlog-schema)"),
        HEARTBEAT.but(
            help="the heartbeat period when idle at the end of the last file "
                 "(default: the period the replica sets with "
                 "@master_heartbeat_period; 0: none)"),
        Opt("--auth", choices=("mysql_native_password", "caching_sha2_password"),
            default="mysql_native_password",
            help="the authentication plugin offered (default mysql_native_password). "
                 "caching_sha2_password as MySQL 8 runs it: a user's first login (per "
                 "serve process) is a full authentication, the password sent in clear "
                 "over TLS or RSA-encrypted with the server's public key over plain "
                 "TCP; later logins take the fast path (the scramble checked against "
                 "the cached hash)"),
        *TLS_SERVER,
        Opt("--rsa-key", metavar="FILE",
            help="the RSA private key (PEM, unencrypted) of caching_sha2_password's "
                 "full authentication over plain TCP (default: one generated at start)"),
        SEMI_SYNC.but(
            help="act as a master with rpl_semi_sync_master_enabled: to a semi-sync "
                 "replica (one that sets @rpl_semi_sync_slave), the last event of each "
                 "transaction asks for an ack, which it sends back. Without it a "
                 "semi-sync replica still gets the semi-sync header, never asking"),
        SCHEMA.but(
            help="the schema before the files (mysqldump --no-data or SHOW CREATE "
                 "TABLE output; repeatable): INFORMATION_SCHEMA.COLUMNS, which CDC "
                 "clients ask when table maps carry no column names, is answered from "
                 "it and the DDL in the files"),
        METRICS.but(
            help="serve Prometheus metrics at http://HOST:PORT/metrics: replicas "
                 "connected, each one's position, events and bytes sent; and /health"),
    ], description=__doc__.split("\n\n", 1)[0].replace("``", ""),
        epilog=_EPILOG + "\n" + epilog(_STATUS_NOTE, width=79), raw=True),
]

"""``binlog-schema serve``: serve a folder of binlog files to replicas and CDC clients over
the MySQL replication protocol, as a master would (the server: binlog_schema.replication.server).

    binlog-schema serve DIR --port 3307
    binlog-schema serve DIR --port 3307 --user repl --password-file pw.txt --server-id 7
    binlog-schema serve DIR --port 3307 --ssl-cert cert.pem --ssl-key key.pem --require-ssl
    binlog-schema fixtures --random -o DIR && binlog-schema serve DIR --port 3307
"""

from __future__ import annotations

import os
import stat
import sys

from ..statuses import CLEAN, STOPPED, USAGE, epilog

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


def cmd_serve(args) -> int:
    import logging
    import signal

    from ..errors import BinlogError
    from .server import BinlogServer, ServerConfig
    from .server_auth import ConfigError
    if bool(args.ssl_cert) != bool(args.ssl_key) or (args.require_ssl and not args.ssl_cert):
        print("serve: TLS needs both --ssl-cert and --ssl-key (--require-ssl too)",
              file=sys.stderr)
        return USAGE
    if args.no_auth and (args.user or args.password_file):
        print("serve: --no-auth says every user is accepted without a password: not with "
              "--user or --password-file", file=sys.stderr)
        return USAGE
    if not (args.user or args.no_auth) and not loopback(args.host):
        print(f"serve: --host {args.host} is not a loopback address, and a binlog holds every "
              "row of every table: give --user (and --password-file), or --no-auth to serve "
              "it to anyone who connects", file=sys.stderr)
        return USAGE
    password = b""
    if args.password_file:
        try:
            with open(args.password_file, "rb") as f:
                password = f.read().rstrip(b"\r\n")
                mode = os.fstat(f.fileno()).st_mode
        except OSError as e:
            print(f"serve: {args.password_file}: {e.strerror}", file=sys.stderr)
            return STOPPED
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            print(f"serve: warning: {args.password_file} is readable by others than its owner "
                  f"(mode {stat.S_IMODE(mode):04o}): chmod 600 it", file=sys.stderr)
    config = ServerConfig(folder=args.dir, user=args.user, password=password,
                          server_id=args.server_id, flavor=args.flavor,
                          heartbeat=args.heartbeat, auth=args.auth, ssl_cert=args.ssl_cert,
                          ssl_key=args.ssl_key, require_ssl=args.require_ssl,
                          rsa_key=args.rsa_key, semi_sync=args.semi_sync,
                          schema_files=tuple(args.schema or ()))
    logging.basicConfig(level=logging.WARNING, format="serve: %(message)s")
    try:
        server = BinlogServer(config, args.host, args.port)
    except (BinlogError, ConfigError) as e:
        print(f"serve: {e}", file=sys.stderr)
        return STOPPED
    except OSError as e:
        print(f"serve: cannot listen on {args.host}:{args.port}: {e.strerror}", file=sys.stderr)
        return STOPPED
    if not server.folder.names():
        server.tcp.server_close()
        print(f"serve: {args.dir}: no binlog file (none of its files starts with the binlog "
              "magic number)", file=sys.stderr)
        return STOPPED
    if args.schema:
        from ..schema.history import DDLRefused
        try:
            server.schema.check()
        except OSError as e:
            server.tcp.server_close()
            print(f"serve: {e.filename}: {e.strerror}", file=sys.stderr)
            return STOPPED
        except DDLRefused as e:
            server.tcp.server_close()
            print(f"serve: --schema: {e}", file=sys.stderr)
            return STOPPED

    metrics = None
    if args.metrics:
        from .metrics import MetricsServer, ServeMetrics, address
        try:
            metrics = MetricsServer(ServeMetrics(server), *address(args.metrics))
        except ValueError as e:
            server.tcp.server_close()
            print(f"serve: {e}", file=sys.stderr)
            return USAGE
        except (OSError, RuntimeError) as e:
            server.tcp.server_close()
            print(f"serve: --metrics {args.metrics}: "
                  f"{e.strerror if isinstance(e, OSError) else e}", file=sys.stderr)
            return STOPPED
        print(f"serve: metrics on http://{metrics.host}:{metrics.port}/metrics",
              file=sys.stderr, flush=True)

    def stop(*_):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    print(f"serve: {args.dir} on {server.host}:{server.port} (server id {args.server_id}, "
          f"{args.flavor}{', TLS' if args.ssl_cert else ''})", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.tcp.server_close()
        if metrics is not None:
            metrics.close()
    return CLEAN


def loopback(host: str) -> bool:
    """Whether every address ``host`` names is a loopback one (127.0.0.0/8, ::1): only
    this machine can connect. An empty host (every interface) or one that does not resolve
    is not."""
    import ipaddress
    import socket
    try:
        infos = socket.getaddrinfo(host, None) if host else []
    except (OSError, UnicodeError):
        return False
    try:
        return bool(infos) and all(
            ipaddress.ip_address(info[4][0].split("%", 1)[0]).is_loopback for info in infos)
    except ValueError:
        return False


def _positive(text: str) -> int:
    import argparse
    value = int(text)
    if value < 1 or value >= 1 << 32:
        raise argparse.ArgumentTypeError("must be between 1 and 4294967295")
    return value


def register(sub):
    """Add ``serve`` to the ``binlog-schema`` subcommands."""
    import argparse
    p = sub.add_parser("serve", help="serve a folder of binlog files to replicas over the "
                                     "replication protocol",
                       description=__doc__.split("\n\n", 1)[0].replace("``", ""),
                       epilog=_EPILOG + "\n" + epilog(_STATUS_NOTE, width=79),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", metavar="DIR", help="the folder of binlog files to serve")
    p.add_argument("--port", type=int, required=True,
                   help="the TCP port to listen on (0: a free one, printed on stderr)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: loopback only). An "
                        "address other than loopback needs --user or --no-auth (status 2 "
                        "without): a binlog holds every row of every table")
    p.add_argument("--user", help="the only user accepted (its password checked by --auth's "
                                  "plugin); without it every user is accepted without a "
                                  "password check")
    p.add_argument("--password-file", metavar="FILE",
                   help="a file holding --user's password (one line; default: empty); a "
                        "warning when others than its owner may read it")
    p.add_argument("--no-auth", action="store_true",
                   help="accept every user without a password check on an address other "
                        "than loopback (what serve does on loopback without --user)")
    p.add_argument("--server-id", type=_positive, default=1,
                   help="the server id this master announces (SHOW VARIABLES LIKE "
                        "'SERVER_ID', artificial events; default 1). The files' events keep "
                        "the ids they hold")
    p.add_argument("--flavor", choices=("mariadb", "mysql"), default="mariadb",
                   help="the server this one says it is: its version string in the greeting "
                        "and VERSION() (default mariadb: 10.11.6-MariaDB-binlog-schema)")
    p.add_argument("--heartbeat", type=float, metavar="SECONDS",
                   help="the heartbeat period when idle at the end of the last file "
                        "(default: the period the replica sets with "
                        "@master_heartbeat_period; 0: none)")
    p.add_argument("--auth", choices=("mysql_native_password", "caching_sha2_password"),
                   default="mysql_native_password",
                   help="the authentication plugin offered (default mysql_native_password). "
                        "caching_sha2_password as MySQL 8 runs it: a user's first login (per "
                        "serve process) is a full authentication, the password sent in clear "
                        "over TLS or RSA-encrypted with the server's public key over plain "
                        "TCP; later logins take the fast path (the scramble checked against "
                        "the cached hash)")
    p.add_argument("--ssl-cert", metavar="FILE",
                   help="the server's TLS certificate (PEM, a chain: the server's first); "
                        "with --ssl-key, TLS is offered to clients that ask for it")
    p.add_argument("--ssl-key", metavar="FILE",
                   help="the private key of --ssl-cert (PEM, unencrypted)")
    p.add_argument("--require-ssl", action="store_true",
                   help="refuse clients that do not start TLS (ERR 1045)")
    p.add_argument("--rsa-key", metavar="FILE",
                   help="the RSA private key (PEM, unencrypted) of caching_sha2_password's "
                        "full authentication over plain TCP (default: one generated at start)")
    p.add_argument("--semi-sync", action="store_true",
                   help="act as a master with rpl_semi_sync_master_enabled: to a semi-sync "
                        "replica (one that sets @rpl_semi_sync_slave), the last event of each "
                        "transaction asks for an ack, which it sends back. Without it a "
                        "semi-sync replica still gets the semi-sync header, never asking")
    p.add_argument("--schema", metavar="FILE", action="append",
                   help="the schema before the files (mysqldump --no-data or SHOW CREATE "
                        "TABLE output; repeatable): INFORMATION_SCHEMA.COLUMNS, which CDC "
                        "clients ask when table maps carry no column names, is answered from "
                        "it and the DDL in the files")
    p.add_argument("--metrics", metavar="HOST:PORT",
                   help="serve Prometheus metrics at http://HOST:PORT/metrics: replicas "
                        "connected, each one's position, events and bytes sent; and /health")
    p.set_defaults(func=cmd_serve)

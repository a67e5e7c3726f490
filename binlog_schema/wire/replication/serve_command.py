"""What ``binlog-schema serve`` does (declared in ``binlog_schema/cli/serve.py``): serve a
folder of binlog files to replicas and CDC clients over the MySQL replication protocol, as a
master would (the server: binlog_schema.wire.replication.server)."""

from __future__ import annotations

import os
import stat
import sys

from ...output.statuses import CLEAN, STOPPED, USAGE

def cmd_serve(args) -> int:
    import logging
    import signal

    from ...format.errors import BinlogError
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
        from ...changes.schema.session import DDLRefused
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

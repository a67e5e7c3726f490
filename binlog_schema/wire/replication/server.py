"""A replication master made of binlog files: :class:`BinlogServer` listens on a TCP port,
greets each client (HandshakeV10; TLS on request; mysql_native_password, or
caching_sha2_password with a cache, its fast path and full authentication: :mod:`.server_auth`),
answers the SQL replicas send at connect (:mod:`.server_sql`), registers replicas and streams
the binlog files of a folder (:mod:`.server_files`) as a real master does (:mod:`.server_dump`:
where a dump starts, what it sends, how it follows the files). Each client's conversation is a
:class:`~.server_connection.Connection`; here are the served folder's settings
(:class:`ServerConfig`), the listening socket, and what the connections share: their ids,
``KILL``, the dumps under way and their counts.

One thread per client: a client that misbehaves or goes away ends its own thread only."""

from __future__ import annotations

import dataclasses
import logging
import os
import socketserver
import threading

from ...format.errors import BinlogError
from ..protocol import auth
from . import server_auth
from .server_auth import PeerGone
from .server_connection import Connection
from .server_dump import ER_MASTER_FATAL_READING_BINLOG
from .server_files import BinlogFolder
from .server_schema import ServedSchema

log = logging.getLogger(__name__)

ER_MALFORMED_PACKET = 1835


@dataclasses.dataclass
class ServerConfig:
    folder: str
    user: str | None = None
    password: bytes = b""
    server_id: int = 1
    flavor: str = "mariadb"
    heartbeat: float | None = None   # seconds; None: the replica's own period
    auth: str = auth.NATIVE          # or auth.CACHING_SHA2
    semi_sync: bool = False          # rpl_semi_sync_master_enabled: acks asked for
    ssl_cert: str | None = None      # PEM files: TLS offered (the SSL capability) when given
    ssl_key: str | None = None
    require_ssl: bool = False        # refuse clients that do not start TLS
    rsa_key: str | None = None       # PEM RSA private key (caching_sha2_password full auth
    #                                  over plain TCP; default: one generated per process)
    schema_files: tuple = ()         # the schema before the files (mysqldump --no-data, SHOW
    #                                  CREATE TABLE output): INFORMATION_SCHEMA answers


class _Handler(socketserver.BaseRequestHandler):
    def handle(self):
        server: BinlogServer = self.server.owner
        client = None
        try:
            client = Connection(self.request, server, server.next_id())
            server.connected(client, True)
            client.run()
        except PeerGone:
            pass
        except BinlogError as e:   # a packet that does not parse: said, then closed
            if client is not None:
                try:
                    client.err(ER_MALFORMED_PACKET, f"Malformed packet: {e}", "08S01")
                except Exception:  # noqa: BLE001
                    pass
        except Exception as e:  # noqa: BLE001 - one client's failure ends its thread only
            log.warning("client %s: %s: %s", self.client_address, type(e).__name__, e)
            if client is not None:
                try:
                    client.seq = client.seq or 1
                    client.err(ER_MASTER_FATAL_READING_BINLOG, f"{type(e).__name__}: {e}")
                except Exception:  # noqa: BLE001
                    pass
        finally:
            if client is not None:
                server.connected(client, False)
                closing = [client.reader, client.writer]
                if client.sock is not self.request:   # (the TLS socket over it)
                    closing.append(client.sock)
                for f in closing:
                    try:
                        f.close()
                    except Exception:  # noqa: BLE001
                        pass


class _TCPServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


class BinlogServer:
    """Serve the binlog files of ``config.folder`` on ``(host, port)`` (port 0: a free one,
    see :attr:`port`). :meth:`serve_forever` blocks; :meth:`start` runs it in a thread;
    :meth:`close` stops listening."""

    def __init__(self, config: ServerConfig, host: str = "127.0.0.1", port: int = 0):
        if not os.path.isdir(config.folder):
            raise BinlogError(f"{config.folder}: not a folder")
        self.config = config
        self.folder = BinlogFolder(config.folder)
        self.auth = server_auth.ServerAuth(config)   # (ConfigError: a bad cert, key, RSA key)
        self.auth_counts = self.auth.counts   # (see ServerAuth)
        # semi-sync: the acks asked for and received, the last ack's (file, position)
        self.semi_sync_counts = {"asked": 0, "acked": 0, "last": None}
        self.tcp = _TCPServer((host, port), _Handler)
        self.tcp.owner = self
        self.host, self.port = self.tcp.server_address[:2]
        self._ids = 0
        self._lock = threading.Lock()
        self._dumps: set = set()    # the Streamers under way
        self._done = [0, 0]         # events and bytes sent by the dumps that ended
        self._clients: dict = {}    # connection id -> Connection
        self.schema = ServedSchema(self.folder, config.schema_files)

    def connected(self, client: Connection, here: bool) -> None:
        """A connection begins (``here``) or ends."""
        with self._lock:
            if here:
                self._clients[client.conn_id] = client
            else:
                self._clients.pop(client.conn_id, None)

    def clients(self) -> list:
        with self._lock:
            return list(self._clients.values())

    def kill(self, conn_id: int, query_only: bool) -> bool:
        """``KILL [QUERY] conn_id``: the connection's dump ends (QUERY: with ERR 1317, as a
        master's), or the connection itself. False: no such connection."""
        with self._lock:
            client = self._clients.get(conn_id)
        if client is None:
            return False
        if query_only:
            if client.streamer is not None:   # (a connection doing nothing: nothing to end)
                client.killed = "query"
        else:
            client.killed = "connection"
            client.shut()
        return True

    def next_id(self) -> int:
        with self._lock:
            self._ids += 1
            return self._ids

    def dumping(self, streamer, under_way: bool) -> None:
        """A dump begins (``under_way``) or ends (its counts kept)."""
        with self._lock:
            if under_way:
                self._dumps.add(streamer)
            else:
                self._dumps.discard(streamer)
                self._done[0] += streamer.events
                self._done[1] += streamer.bytes

    def dump_counts(self):
        """(the dumps under way, events sent, bytes sent: all dumps')."""
        with self._lock:
            dumps = sorted(self._dumps, key=lambda d: d.client.conn_id)
            return (dumps, self._done[0] + sum(d.events for d in dumps),
                    self._done[1] + sum(d.bytes for d in dumps))

    def serve_forever(self):
        self.tcp.serve_forever(poll_interval=0.2)

    def start(self) -> BinlogServer:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def close(self):
        self.tcp.shutdown()
        self.tcp.server_close()

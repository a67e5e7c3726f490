"""``redis://HOST:PORT/STREAM``: Redis Streams, over RESP through hiredis (the protocol
library of Redis that redis-py itself packs and parses with).

Each message is one entry, ``XADD STREAM * value <record> order_key <key> [key <record key>]
[gtid <GTID>]``. A publish writes its messages' commands in one buffer (packed by hiredis:
no MULTI, order is the connection's), and the replies are read at confirm: the broker has
acknowledged an entry when its reply (the entry's id) is read. redis-py costs five times as
much per entry (a Python object per command and per reply, and a tenth of a second to import),
which was most of a stream's cost beyond the records' own. ``redis://:PASSWORD@HOST:PORT/
STREAM`` (or ``USER:PASSWORD@``) authenticates (AUTH).
"""

from __future__ import annotations

import socket

from .base import Sink, SinkRefused, SinkUnavailable

# error replies that a retry may change (the server loading, busy, out of memory, failing
# over), as redis-py tells its connection errors from its response errors
TRANSIENT = (b"LOADING", b"BUSY", b"MASTERDOWN", b"TRYAGAIN", b"CLUSTERDOWN", b"OOM")


class RedisStreamSink(Sink):
    sock = None

    def connect(self) -> None:
        try:
            import hiredis
        except ImportError:
            raise SinkRefused("redis:// needs hiredis: pip install "
                              "'binlog-schema[brokers]'") from None
        self.pack, self.ReplyError = hiredis.pack_command, hiredis.ReplyError
        self.ProtocolError = hiredis.ProtocolError
        url = self.url
        try:
            self.sock = socket.create_connection((url.host, url.port or 6379), self.timeout)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError as e:
            raise SinkUnavailable(f"{url}: {e}") from None
        self.reader = hiredis.Reader()
        self.unanswered = 0
        if url.password is not None:
            self._command(("AUTH", url.password) if url.user is None else
                                 ("AUTH", url.user, url.password))
        self._command(("PING",))
        self.confirm()

    def _command(self, command: tuple) -> None:
        self._write(self.pack(command))
        self.unanswered += 1

    def publish(self, messages: list) -> None:
        pack, stream = self.pack, self.url.target
        commands = []
        for m in messages:
            if m.key is None:
                fields = ("XADD", stream, "*", "value", m.value, "order_key", m.order_key)
            else:
                fields = ("XADD", stream, "*", "value", m.value, "order_key", m.order_key,
                          "key", m.key)
            if m.gtid is not None:
                fields += ("gtid", m.gtid)
            commands.append(pack(fields))
        self._write(b"".join(commands))
        self.unanswered += len(messages)

    def _write(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError as e:
            raise SinkUnavailable(f"{self.url}: {e}") from None

    def confirm(self) -> None:
        reader, sock = self.reader, self.sock
        failed = None
        try:
            while self.unanswered:
                reply = reader.gets()
                if reply is False:
                    data = sock.recv(1 << 16)
                    if not data:
                        raise SinkUnavailable(f"{self.url}: the server closed the connection")
                    reader.feed(data)
                    continue
                self.unanswered -= 1
                if isinstance(reply, self.ReplyError) and failed is None:
                    failed = str(reply)
        except TimeoutError:
            raise SinkUnavailable(f"{self.url}: no answer within {self.timeout:g} s") from None
        except (OSError, self.ProtocolError) as e:
            raise SinkUnavailable(f"{self.url}: {e}") from None
        if failed is not None:   # (the first error; the entries before it are on the broker)
            error = SinkUnavailable if failed.encode().startswith(TRANSIENT) else SinkRefused
            raise error(f"{self.url}: {failed}")

    def close(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            sock.close()


SINK = RedisStreamSink

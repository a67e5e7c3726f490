"""``nats://HOST:PORT/SUBJECT``: NATS JetStream.

Each message is published to SUBJECT with headers ``order_key``, ``key`` (when the record has
one), ``gtid`` (when its transaction has one) and ``Nats-Expected-Stream`` (the stream found
at connection: a message no longer captured by it is refused, not stored elsewhere); a
message is acknowledged when its PubAck arrives. JetStream's own duplicate detection
(``Nats-Msg-Id``) is not asked for: it costs the server a quarter more per message, and the
duplicates a resend leaves are dropped by order key, as with every broker.

The messages go out on a connection of this module's own, in NATS's text protocol (CONNECT,
SUB, HPUB, and the server's MSG, HMSG, PING, -ERR), each with the reply subject where
JetStream sends its PubAck; a publish writes its messages in one buffer, and confirm reads
and counts the PubAcks (an error, or a 503 "no responders", fails the group). nats-py, the
maintained client, costs five times as much per message (a header dict encoded and checked,
a command object, a Msg and a callback per PubAck) and a tenth of a second to import; it is
used only to create the JetStream stream when none captures SUBJECT (named after the subject,
its other characters ``_``; said). ``nats://USER:PASSWORD@HOST:PORT/SUBJECT`` authenticates.
A server that requires TLS is refused.
"""

from __future__ import annotations

import json
import re
import secrets
import socket

from .base import Sink, SinkRefused, SinkUnavailable

CRLF = b"\r\n"


class JetStreamSink(Sink):
    sock = None

    def connect(self) -> None:
        url = self.url
        if re.search(r"[\s*>]", url.target) or "" in url.target.split("."):
            raise SinkRefused(f"{url}: not a subject to publish to (no spaces, wildcards or "
                              "empty tokens)")
        try:
            sock = socket.create_connection((url.host, url.port or 4222), self.timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except OSError as e:
            raise SinkUnavailable(f"{url}: {e}") from None
        self.sock, self.buf = sock, bytearray()
        self.unanswered, self.failed = 0, None
        self.api = None   # (the reply to the JetStream API request under way)
        self.acks = None
        info = self._line()
        if not info.startswith(b"INFO "):
            raise SinkRefused(f"{url}: not a NATS server (it said {bytes(info[:60])!r})")
        info = json.loads(info[5:])
        if info.get("tls_required"):
            raise SinkRefused(f"{url}: the server requires TLS, which this sink does not "
                              "speak")
        if not info.get("headers"):
            raise SinkRefused(f"{url}: the server does not take headers (NATS 2.2 or later "
                              "is needed)")
        self.max_payload = info.get("max_payload", 1 << 20)
        hello = {"verbose": False, "pedantic": False, "headers": True, "no_responders": True,
                 "protocol": 1, "lang": "python", "name": "binlog-schema stream"}
        if url.user is not None:
            hello.update(user=url.user, **{"pass": url.password or ""})
        inbox = f"_INBOX.{secrets.token_hex(11)}"
        self.ack_subject, self.api_subject = f"{inbox}.ack", f"{inbox}.api".encode()
        self._write(b"CONNECT " + json.dumps(hello).encode() + CRLF + b"PING" + CRLF)
        answer = self._line()   # (PONG; -ERR 'Authorization Violation' ...)
        if answer != b"PONG":
            raise SinkRefused(f"{url}: {bytes(answer).decode('utf-8', 'replace')}")
        self._write(f"SUB {inbox}.* 1\r\n".encode())
        found = self._request("$JS.API.STREAM.NAMES", {"subject": url.target})
        if found is None:
            raise SinkRefused(f"{url}: JetStream does not answer (is it on? nats-server -js)")
        if "error" in found:
            raise SinkRefused(f"{url}: JetStream: {found['error'].get('description')}")
        if found.get("streams"):
            self.stream = found["streams"][0]
        else:
            self.stream = re.sub(r"[^A-Za-z0-9_-]", "_", url.target)
            self._create_stream()
        self.head = f"NATS/1.0\r\nNats-Expected-Stream: {self.stream}\r\n"
        # a PubAck of this stream to the ack subject, whole: taken many at once (_take)
        self.acks = re.compile(rb"MSG %s 1 +\d+\r\n\{\"stream\": ?\"%s\", ?\"seq\": ?\d+"
                               rb"(?:, ?\"duplicate\": ?true)?\}\r\n" % (
                                   re.escape(self.ack_subject.encode()),
                                   re.escape(self.stream.encode())))
        self.hpub = f"HPUB {url.target} {self.ack_subject} ".encode()

    def _create_stream(self) -> None:
        """The JetStream stream capturing the subject, made through nats-py."""
        try:
            import asyncio

            import nats
        except ImportError:
            raise SinkRefused("nats:// needs nats-py to create a JetStream stream: pip install "
                              "'binlog-schema[brokers]'") from None
        url = self.url

        async def create():
            async def quiet(e=None):
                pass
            nc = await nats.connect(f"nats://{url.host}:{url.port or 4222}", user=url.user,
                                    password=url.password, connect_timeout=self.timeout,
                                    allow_reconnect=False, error_cb=quiet,
                                    disconnected_cb=quiet, closed_cb=quiet)
            try:
                await nc.jetstream(timeout=self.timeout).add_stream(
                    name=self.stream, subjects=[url.target])
            finally:
                await nc.close()
        try:
            asyncio.run(create())
        except Exception as e:  # noqa: BLE001 - (nats-py's errors)
            raise SinkRefused(f"{url}: cannot create a JetStream stream for the subject: "
                              f"{type(e).__name__} {e}") from None
        self.note(f"{url}: created the JetStream stream {self.stream} (subjects "
                  f"{url.target})")

    def _request(self, subject: str, data: dict):
        """The JetStream API's answer (a dict), or None: no responders."""
        body = json.dumps(data).encode()
        self._write(b"PUB %s %s %d\r\n" % (subject.encode(), self.api_subject, len(body))
                    + body + CRLF)
        self._take()
        while self.api is None:
            self._fill()
            self._take()
        answer, self.api = self.api, None
        return None if answer is False else json.loads(answer)

    def publish(self, messages: list) -> None:
        head, hpub, limit = self.head, self.hpub, self.max_payload
        out = []
        for m in messages:
            ok = m.order_key
            key = "" if m.key is None else f"key: {m.key}\r\n"
            gtid = "" if m.gtid is None else f"gtid: {m.gtid}\r\n"
            h = f"{head}order_key: {ok}\r\n{key}{gtid}\r\n".encode()
            size = len(h) + len(m.value)
            if size > limit:
                raise SinkRefused(f"{self.url}: a message of {size} bytes (the record at "
                                  f"order key {ok}) is over the server's max_payload "
                                  f"({limit})")
            out.append(b"%s%d %d\r\n%s%s\r\n" % (hpub, len(h), size, h, m.value))
        self._write(b"".join(out))
        self.unanswered += len(messages)

    def confirm(self) -> None:
        self._take()
        while self.unanswered:
            self._fill()
            self._take()
        failed, self.failed = self.failed, None
        if failed is not None:
            raise SinkUnavailable(f"{self.url}: JetStream refused {failed[0]} message(s): "
                                  f"{failed[1]}")

    # ---------------------------------------------------------------- the connection

    def _write(self, data: bytes) -> None:
        try:
            self.sock.sendall(data)
        except OSError as e:
            raise SinkUnavailable(f"{self.url}: {e}") from None

    def _fill(self) -> None:
        try:
            data = self.sock.recv(1 << 16)
        except TimeoutError:
            raise SinkUnavailable(f"{self.url}: no answer within {self.timeout:g} s") from None
        except OSError as e:
            raise SinkUnavailable(f"{self.url}: {e}") from None
        if not data:
            raise SinkUnavailable(f"{self.url}: the server closed the connection")
        self.buf += data

    def _line(self) -> bytearray:
        """The next protocol line (at connection: INFO, then PONG or -ERR)."""
        while (j := self.buf.find(CRLF)) < 0:
            self._fill()
        line = self.buf[:j]
        del self.buf[:j + 2]
        return line

    def _take(self) -> None:
        """What the server sent (read so far): each reply taken (:meth:`_reply`), its PINGs
        answered. The PubAcks that say the message was stored in the stream are counted
        first, all at once (a fifth of the cost of parsing each)."""
        if self.unanswered and self.acks is not None:
            rest, stored = self.acks.subn(b"", self.buf)
            if stored:
                self.buf = bytearray(rest)
                self.unanswered -= stored
        buf = self.buf
        i = 0
        while (j := buf.find(CRLF, i)) >= 0:
            op = buf[i:i + 4]
            if op == b"MSG " or op == b"HMSG":
                parts = buf[i:j].split()
                end = j + 2 + int(parts[-1])
                if end + 2 > len(buf):
                    break   # (the rest to come)
                self._reply(parts[1], buf[j + 2:end], int(parts[-2]) if op == b"HMSG" else 0)
                i = end + 2
                continue
            if op == b"PING":
                self._write(b"PONG" + CRLF)
            elif op == b"-ERR":
                text = bytes(buf[i + 5:j]).decode("utf-8", "replace")
                raise SinkUnavailable(f"{self.url}: {text}")
            i = j + 2   # (PONG, +OK, INFO)
        del buf[:i]

    def _reply(self, subject, data, headers: int) -> None:
        # (a PubAck: {"stream":..,"seq":..}; an error: {"error":{..}}; no responders: a 503
        # status in the headers and no data)
        ok = not headers and b'"error"' not in data
        if subject == self.api_subject:
            self.api = False if headers else bytes(data)
            return
        self.unanswered -= 1
        if not ok:
            failed = self.failed or (0, _why(data, headers))
            self.failed = (failed[0] + 1, failed[1])

    def close(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            sock.close()


def _why(data, headers: int) -> str:
    if headers:
        status = bytes(data[:headers]).split(CRLF, 1)[0].decode("utf-8", "replace")
        return (f"{status} (no responders: no JetStream stream captures the subject)"
                if " 503" in status else status)
    try:
        return json.loads(data)["error"]["description"]
    except (ValueError, KeyError, TypeError):
        return bytes(data[:200]).decode("utf-8", "replace")


SINK = JetStreamSink

"""``amqp://HOST:PORT/EXCHANGE``: RabbitMQ (AMQP 0-9-1) with publisher confirms, through
pika's asynchronous SelectConnection.

Each message is published to EXCHANGE (which must exist: it is checked at connection) as a
persistent message, ``mandatory`` (a message no queue takes comes back, and counts as not
delivered), with the routing key its record key (a key longer than AMQP's 255 bytes: its
SHA-1 in hex; a record of no table: the empty key), ``message_id`` its order key and the
headers ``order_key``, ``key`` and ``gtid`` (those the record has). The channel is in confirm
mode: the broker numbers the messages it takes and acknowledges them (``basic.ack``, many at
once with ``multiple``); a message is acknowledged when its number is, and confirm runs pika's
I/O loop until every number published is (a ``basic.nack`` or a returned message fails the
group). The publish frames of a call's messages are written by :mod:`.amqp_frames` (pika's
bytes, at a quarter of pika's cost) and handed to pika's transport at once, then one turn of
pika's loop sends them: the broker works on them while the stream makes the next transaction
(pika writes each frame on its own, three writes a message, and only while its loop runs).
The connection asks no heartbeats (the loop runs only while the stream delivers: a broker
would close an idle stream's connection). pika's asynchronous connection costs a quarter of
what aio-pika does per message (no future, lock and task per message); its
BlockingConnection waits for each message's confirm in turn. The virtual host is ``/``;
``amqp://USER:PASSWORD@HOST:PORT/EXCHANGE`` logs in (default guest, loopback only).
"""

from __future__ import annotations

import hashlib
import logging

from .amqp_frames import Publisher
from .base import Sink, SinkRefused, SinkUnavailable

ROUTING_KEY_MAX = 255   # AMQP 0-9-1: a short string


def routing_key(key: str | None) -> str:
    if key is None:
        return ""
    data = key.encode()
    return key if len(data) <= ROUTING_KEY_MAX else hashlib.sha1(data).hexdigest()


class RabbitMQSink(Sink):
    connection = None

    def connect(self) -> None:
        try:
            import pika
        except ImportError:
            raise SinkRefused("amqp:// needs pika: pip install "
                              "'binlog-schema[brokers]'") from None
        logger = logging.getLogger("pika")   # (its failures are raised, said once)
        if not logger.handlers:
            logger.addHandler(logging.NullHandler())
            logger.propagate = False
        self.pika = pika
        url = self.url
        self.failure = None      # (SinkUnavailable or SinkRefused, text): the loop stops
        self.channel, self.checked = None, False   # (checked: the exchange exists)
        self.publisher = None    # the publish frames' writer (amqp_frames), once open
        self.published = 0       # messages published on the channel (their numbers: 1...)
        self.low = 1             # the lowest number not acknowledged
        self.above: set = set()  # numbers above it acknowledged one by one
        self.failed = None       # (count, why) of the messages the broker did not take
        params = pika.ConnectionParameters(
            host=url.host, port=url.port or 5672, virtual_host="/",
            credentials=pika.PlainCredentials(url.user or "guest", url.password or "guest"),
            heartbeat=0, connection_attempts=1, socket_timeout=self.timeout,
            stack_timeout=self.timeout, blocked_connection_timeout=self.timeout)
        self.connection = pika.SelectConnection(
            params, on_open_callback=self._opened, on_open_error_callback=self._open_failed,
            on_close_callback=self._closed)
        self._run(lambda: self.channel is not None and self.checked, "connection")
        self.properties = pika.BasicProperties

    # ---------------------------------------------------------------- the I/O loop's callbacks

    def _fail(self, kind, text: str) -> None:
        if self.failure is None:
            self.failure = (kind, f"{self.url}: {text}")
        self.connection.ioloop.stop()

    def _opened(self, connection) -> None:
        connection.channel(on_open_callback=self._channel)

    def _open_failed(self, connection, error) -> None:
        x = self.pika.exceptions
        refused = isinstance(error, (x.ProbableAuthenticationError, x.AuthenticationError,
                                     x.ProbableAccessDeniedError))
        self._fail(SinkRefused if refused else SinkUnavailable, _cause(error))

    def _closed(self, connection, error) -> None:
        self._fail(SinkUnavailable, f"the connection closed: {type(error).__name__} {error}")

    def _channel(self, channel) -> None:
        channel.add_on_close_callback(self._channel_closed)
        channel.add_on_return_callback(self._returned)
        channel.confirm_delivery(self._acknowledged, callback=lambda frame: (
            channel.exchange_declare(self.url.target, passive=True, callback=self._checked)))
        self.channel = channel

    def _checked(self, frame) -> None:
        self.checked = True
        self.connection.ioloop.stop()

    def _channel_closed(self, channel, error) -> None:
        code = getattr(error, "reply_code", None)
        if not self.checked and code == 404:
            self._fail(SinkRefused, f"no exchange {self.url.target!r} on the broker "
                                    "(declare it, and bind a queue to it)")
        elif not self.checked and code == 403:
            self._fail(SinkRefused, f"the channel closed: {error}")
        else:
            self._fail(SinkUnavailable, f"the channel closed: {error}")

    def _returned(self, channel, method, properties, body) -> None:
        self._not_taken(f"returned: {method.reply_text}, no queue bound to the exchange "
                        "takes it")

    def _not_taken(self, why: str) -> None:
        failed = self.failed or (0, why)
        self.failed = (failed[0] + 1, failed[1])

    def _acknowledged(self, frame) -> None:
        method = frame.method
        if isinstance(method, self.pika.spec.Basic.Nack):
            self._not_taken("nacked")
        tag = method.delivery_tag
        if method.multiple:
            if tag >= self.low:
                self.low = tag + 1
                self.above = {t for t in self.above if t > tag}
        elif tag == self.low:
            self.low += 1
            while self.low in self.above:
                self.above.discard(self.low)
                self.low += 1
        else:
            self.above.add(tag)
        if self.low > self.published:
            self.connection.ioloop.stop()

    def _run(self, done, what: str) -> None:
        """pika's loop run until ``done()``, a failure, or :attr:`timeout`."""
        ioloop = self.connection.ioloop
        timer = ioloop.call_later(self.timeout, lambda: self._fail(
            SinkUnavailable, f"no {what} within {self.timeout:g} s"))
        try:
            while not done() and self.failure is None:
                ioloop.start()
        finally:
            ioloop.remove_timeout(timer)
        if self.failure is not None:
            kind, text = self.failure
            raise kind(text)

    # ---------------------------------------------------------------- the sink

    def publish(self, messages: list) -> None:
        connection, channel = self.connection, self.channel
        if not connection.is_open or not channel.is_open:
            raise SinkUnavailable(f"{self.url}: the channel is closed")
        if self.publisher is None:
            self.publisher = Publisher(channel.channel_number, self.url.target,
                                       "application/json", 2, connection.params.frame_max)
        frames = self.publisher.frames
        out = []
        for m in messages:
            headers = [("order_key", m.order_key)]
            if m.key is not None:
                headers.append(("key", m.key))
            if m.gtid is not None:
                headers.append(("gtid", m.gtid))
            out.append(frames(routing_key(m.key), m.value, m.order_key, headers))
        # the frames of every message at once (pika writes each frame it marshals on its
        # own: three writes a message, as many small reads for the broker), through pika's
        # one door to its transport (Connection._adapter_emit_data: pika is pinned)
        connection._adapter_emit_data(b"".join(out))
        self.published += len(messages)
        # pika writes only while its loop runs: one turn of it now, so that the broker works
        # on these while the stream makes the next transaction (confirm waits for them)
        ioloop = connection.ioloop
        ioloop.call_later(0, ioloop.stop)
        ioloop.start()
        if self.failure is not None:
            kind, text = self.failure
            raise kind(text)

    def confirm(self) -> None:
        self._run(lambda: self.low > self.published, "publisher confirm")
        failed, self.failed = self.failed, None
        if failed is not None:
            raise SinkUnavailable(f"{self.url}: the broker did not take {failed[0]} "
                                  f"message(s) ({failed[1]})")

    def close(self) -> None:
        connection = self.connection
        if connection is None:
            return
        if connection.is_open:
            self.failure = None
            connection.close()
            try:   # (until the broker says closed: _closed stops the loop)
                self._run(lambda: connection.is_closed, "close")
            except (SinkUnavailable, SinkRefused):
                pass
        elif not connection.is_closed and not connection.is_closing:
            try:   # (a connection still being made: its socket closed)
                connection.close()
            except self.pika.exceptions.AMQPError:
                pass
        self.connection = None
        connection.ioloop.close()


def _cause(error) -> str:
    """The innermost reason of one of pika's connection errors (a workflow's last failure,
    the socket's error it wraps)."""
    while True:
        inner = getattr(error, "exceptions", None)
        if inner:
            error = inner[-1]
        elif isinstance(getattr(error, "exception", None), BaseException):   # (a phase's)
            error = error.exception
        elif error.args and isinstance(error.args[0], BaseException):
            error = error.args[0]
        else:
            break
    text = str(error)
    return text if isinstance(error, OSError) and text else f"{type(error).__name__} {text}"


SINK = RabbitMQSink

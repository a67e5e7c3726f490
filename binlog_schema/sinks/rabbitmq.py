"""``amqp://HOST:PORT/EXCHANGE``: RabbitMQ (AMQP 0-9-1) with publisher confirms, through
aio-pika.

Each message is published to EXCHANGE (which must exist: it is checked at connection) as a
persistent message, ``mandatory`` (a message no queue takes comes back, and counts as not
delivered), with the routing key its record key (a key longer than AMQP's 255 bytes: its
SHA-1 in hex; a record of no table: the empty key), ``message_id`` its order key and the
headers ``order_key``, ``key`` and ``gtid`` (those the record has). A message is acknowledged
when its publisher confirm arrives: the messages of a ``send`` are in flight together, so a
transaction costs one round trip, not one per record (pika's BlockingConnection, the other
maintained client, waits for each message's confirm in turn). The virtual host is ``/``;
``amqp://USER:PASSWORD@HOST:PORT/EXCHANGE`` logs in (default guest, loopback only).
"""

from __future__ import annotations

import asyncio
import hashlib

from .base import AsyncSink, SinkRefused, SinkUnavailable

ROUTING_KEY_MAX = 255   # AMQP 0-9-1: a short string


def routing_key(key: str | None) -> str:
    if key is None:
        return ""
    data = key.encode()
    return key if len(data) <= ROUTING_KEY_MAX else hashlib.sha1(data).hexdigest()


class RabbitMQSink(AsyncSink):
    connection = None

    def connect(self) -> None:
        try:
            import aio_pika  # noqa: F401
        except ImportError:
            raise SinkRefused("amqp:// needs aio-pika: pip install "
                              "'binlog-schema[brokers]'") from None
        self.run(self._connect())

    async def _connect(self):
        import logging

        import aio_pika
        from aio_pika import exceptions as x
        for name in ("aiormq", "aio_pika"):   # (their failures are raised, said once)
            logging.getLogger(name).addHandler(logging.NullHandler())
            logging.getLogger(name).propagate = False
        url = self.url
        try:
            self.connection = await aio_pika.connect(
                host=url.host, port=url.port or 5672, login=url.user or "guest",
                password=url.password or "guest", timeout=self.timeout)
        except (x.ProbableAuthenticationError, x.AuthenticationError) as e:
            raise SinkRefused(f"{url}: {e}") from None
        except (x.AMQPError, OSError, asyncio.TimeoutError) as e:
            raise SinkUnavailable(f"{url}: {type(e).__name__} {e}") from None
        channel = await self.connection.channel(publisher_confirms=True,
                                                on_return_raises=True)
        try:
            self.exchange = await channel.get_exchange(url.target, ensure=True)
        except x.ChannelNotFoundEntity:
            raise SinkRefused(f"{url}: no exchange {url.target!r} on the broker (declare it, "
                              "and bind a queue to it)") from None
        self.Message = aio_pika.Message
        self.persistent = aio_pika.DeliveryMode.PERSISTENT

    def send(self, messages: list) -> None:
        self.run(self._send(messages))

    async def _send(self, messages):
        from aio_pika import exceptions as x
        publish, make, mode = self.exchange.publish, self.Message, self.persistent
        try:
            pending = []
            for m in messages:
                headers = {"order_key": m.order_key}
                if m.key is not None:
                    headers["key"] = m.key
                if m.gtid is not None:
                    headers["gtid"] = m.gtid
                pending.append(publish(make(m.value, headers=headers, message_id=m.order_key,
                                            content_type="application/json",
                                            delivery_mode=mode),
                                       routing_key(m.key), mandatory=True))
            await asyncio.gather(*pending)
        except x.DeliveryError as e:   # (a nack, or a message no queue took)
            raise SinkUnavailable(f"{self.url}: the broker did not take a message "
                                  f"({_reason(e)})") from None
        except (x.AMQPError, OSError, RuntimeError) as e:
            raise SinkUnavailable(f"{self.url}: {type(e).__name__} {e}") from None

    async def aclose(self):
        connection, self.connection = self.connection, None
        if connection is not None:
            await connection.close()


def _reason(e) -> str:
    frame = getattr(e, "frame", None)
    text = getattr(frame, "reply_text", None)
    return f"returned: {text}, no queue bound to the exchange takes it" if text else \
        "nacked"


SINK = RabbitMQSink

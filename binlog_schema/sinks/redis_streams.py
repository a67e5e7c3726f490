"""``redis://HOST:PORT/STREAM``: Redis Streams, through redis-py.

Each message is one entry, ``XADD STREAM * value <record> order_key <key> [key <record key>]
[gtid <GTID>]``, the entries of a ``send`` in one pipeline (no MULTI: order is the
connection's); the broker has acknowledged an entry when its reply (the entry's id) is read.
``redis://:PASSWORD@HOST:PORT/STREAM`` (or ``USER:PASSWORD@``) authenticates.
"""

from __future__ import annotations

from .base import Sink, SinkRefused, SinkUnavailable


class RedisStreamSink(Sink):
    client = None

    def connect(self) -> None:
        try:
            import redis
        except ImportError:
            raise SinkRefused("redis:// needs redis-py: pip install "
                              "'binlog-schema[brokers]'") from None
        self.errors = redis.exceptions
        url = self.url
        from redis.backoff import NoBackoff
        from redis.retry import Retry
        client = redis.Redis(host=url.host, port=url.port or 6379, username=url.user,
                             password=url.password, socket_timeout=self.timeout,
                             socket_connect_timeout=self.timeout,
                             retry=Retry(NoBackoff(), 0))   # (the retries are Delivery's)
        self._call(client.ping)
        self.client = client

    def _call(self, f, *args):
        e = self.errors
        try:
            return f(*args)
        except (e.AuthenticationError, e.ResponseError) as err:
            raise SinkRefused(f"{self.url}: {err}") from None
        except (e.ConnectionError, e.TimeoutError, OSError) as err:
            raise SinkUnavailable(f"{self.url}: {err}") from None

    def send(self, messages: list) -> None:
        pipe = self.client.pipeline(transaction=False)
        command = pipe.execute_command
        stream = self.url.target
        for m in messages:
            fields = ["XADD", stream, "*", "value", m.value, "order_key", m.order_key]
            if m.key is not None:
                fields += ("key", m.key)
            if m.gtid is not None:
                fields += ("gtid", m.gtid)
            command(*fields)
        replies = self._call(pipe.execute)
        if len(replies) != len(messages):   # (redis-py raises a failed command's error)
            raise SinkUnavailable(f"{self.url}: {len(replies)} replies for "
                                  f"{len(messages)} entries")

    def close(self) -> None:
        client, self.client = self.client, None
        if client is not None:
            client.close()


SINK = RedisStreamSink

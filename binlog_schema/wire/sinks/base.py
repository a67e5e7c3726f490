"""The interface of a sink, its URL and its errors; :func:`open_sink` picks the broker's
module by the URL's scheme.

A broker is one module with one :class:`Sink` subclass: ``connect()``, ``publish(messages)``
(written to the broker in order, its acknowledgements not awaited), ``confirm()`` (returns
once the broker has acknowledged every message published since the last ``confirm``: a Redis
reply, a JetStream PubAck, a RabbitMQ publisher confirm), ``close()``. A failure to reach the
broker, a connection lost, or a message the broker did not take is :class:`SinkUnavailable`
(the caller connects again and publishes the unconfirmed messages again: :mod:`.delivery`); a
refusal that a retry cannot change (a bad URL, a missing exchange, a wrong password) is
:class:`SinkRefused`.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import NamedTuple
from urllib.parse import unquote, urlsplit

# scheme -> the module (of this package) holding its sink; a broker more is one line more
SCHEMES = {"redis": "redis_streams", "nats": "nats_jetstream", "amqp": "rabbitmq"}


class SinkError(Exception):
    """A sink's failure, said in one line (the URL's target and the broker's words)."""


class SinkUnavailable(SinkError):
    """The broker cannot be reached now, or the connection was lost before every message was
    acknowledged: the messages may be sent again (at least once)."""


class SinkRefused(SinkError):
    """The broker refuses for a reason a retry does not change."""


class Message(NamedTuple):
    """One record: ``value`` (the record's bytes, as the format writes its line), ``key``
    (table and primary key, for partitioning: :func:`binlog_schema.output.change_records
    .record_key`; None for a record of no table), ``order_key`` (its place in the binlog:
    strictly rising along the stream, so a consumer drops a duplicate by it) and ``gtid`` (its
    transaction's, None without one)."""
    value: bytes
    key: str | None
    order_key: str
    gtid: str | None


@dataclasses.dataclass(frozen=True)
class SinkURL:
    """``scheme://[user[:password]@]host[:port]/target``: the target is the Redis stream, the
    NATS subject or the RabbitMQ exchange."""
    scheme: str
    host: str
    port: int | None
    target: str
    user: str | None = None
    password: str | None = None

    @classmethod
    def parse(cls, text: str) -> SinkURL:
        parts = urlsplit(text)
        scheme = parts.scheme.lower()
        if scheme not in SCHEMES:
            raise SinkRefused(f"{text}: not a sink URL (schemes: "
                              f"{', '.join(s + '://' for s in SCHEMES)})")
        try:
            port = parts.port
        except ValueError:
            raise SinkRefused(f"{text}: the port is not a number from 0 to 65535") from None
        target = unquote(parts.path[1:]) if parts.path.startswith("/") else ""
        if not target or "/" in target or parts.query or parts.fragment:
            raise SinkRefused(f"{text}: give the {_TARGETS[scheme]} after the host: "
                              f"{scheme}://HOST:PORT/{_TARGETS[scheme].upper()}")
        return cls(scheme, parts.hostname or "127.0.0.1", port, target,
                   unquote(parts.username) if parts.username else None,
                   unquote(parts.password) if parts.password else None)

    def __str__(self) -> str:   # (without the password)
        port = f":{self.port}" if self.port is not None else ""
        return f"{self.scheme}://{self.host}{port}/{self.target}"


_TARGETS = {"redis": "stream", "nats": "subject", "amqp": "exchange"}


class Sink:
    """A broker (see the module docstring). ``note(text)`` says a fact worth a stderr line
    (a stream or a JetStream stream created); ``timeout``: seconds a connection or an
    acknowledgement may take before the broker counts as unavailable."""

    def __init__(self, url: SinkURL, note=None, timeout: float = 30.0):
        self.url, self.timeout = url, timeout
        self.note = note or (lambda text: None)

    def connect(self) -> None:
        raise NotImplementedError

    def publish(self, messages: list) -> None:
        """Every message of ``messages`` (in order) written to the broker, after those
        published before; the acknowledgements are :meth:`confirm`'s."""
        raise NotImplementedError

    def confirm(self) -> None:
        """Returns once the broker has acknowledged every message published since the last
        confirm."""
        raise NotImplementedError

    def send(self, messages: list) -> None:
        """Every message of ``messages`` on the broker, acknowledged by it."""
        self.publish(messages)
        self.confirm()

    def close(self) -> None:
        raise NotImplementedError


def open_sink(text: str, note=None, timeout: float = 30.0) -> Sink:
    """The sink of a URL (not connected yet); :class:`SinkRefused` for a URL of no sink, or a
    broker whose client is not installed."""
    url = SinkURL.parse(text)
    module = importlib.import_module(f"{__package__}.{SCHEMES[url.scheme]}")
    return module.SINK(url, note, timeout)

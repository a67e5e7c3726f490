"""At least once: messages sent to a sink until it has acknowledged them all, retried while
the broker cannot be reached.

:meth:`Delivery.send` returns once the broker has acknowledged every message given (the
caller then moves its checkpoint). When the broker is unreachable, or the connection is lost
before every acknowledgement came, the connection is dropped and made again after a backoff
(``backoff`` seconds, doubled each time up to ``max_backoff``), one ``say`` line per retry,
and the same messages are sent again (the broker may then hold some twice: a consumer drops
them by order key). After ``retry_for`` seconds of failures in a row the last error is raised
(:class:`~.base.SinkUnavailable`); a refusal a retry cannot change
(:class:`~.base.SinkRefused`) is raised at once.
"""

from __future__ import annotations

import time

from .base import SinkUnavailable


class Delivery:
    def __init__(self, sink, say, retry_for: float = 60.0, backoff: float = 0.5,
                 max_backoff: float = 10.0, clock=time.monotonic, sleep=time.sleep):
        self.sink, self.say, self.retry_for = sink, say, retry_for
        self.backoff, self.max_backoff = backoff, max_backoff
        self.clock, self.sleep = clock, sleep
        self.connected = False
        self.retries = 0        # (every retry of this run)
        self.messages = 0       # messages acknowledged

    def connect(self) -> None:
        self._retrying(lambda: None)

    def send(self, messages: list) -> None:
        self._retrying(lambda: self.sink.send(messages))
        self.messages += len(messages)

    def _retrying(self, action) -> None:
        first = None
        delay = self.backoff
        while True:
            try:
                if not self.connected:
                    self.sink.connect()
                    self.connected = True
                action()
                return
            except SinkUnavailable as e:
                self.connected = False
                self.sink.close()
                now = self.clock()
                if first is None:
                    first = now
                if now - first + delay > self.retry_for:
                    raise SinkUnavailable(f"{e}; unreachable for {now - first:.1f} s, giving "
                                          f"up (--retry-for {self.retry_for:g})") from None
                self.retries += 1
                self.say(f"{e}; retry {self.retries} in {delay:g} s")
                self.sleep(delay)
                delay = min(self.max_backoff, delay * 2)

    def close(self) -> None:
        self.connected = False
        self.sink.close()

"""At least once: messages published to a sink in groups, each group confirmed (acknowledged
by the broker) before what it holds counts as delivered, retried while the broker cannot be
reached.

The caller :meth:`Delivery.publish`\\ es a transaction's messages (in chunks), then says the
transaction :meth:`~Delivery.ended` with an item of its own (what to do once it is delivered:
``stream`` moves its checkpoint there). The messages go out at once. A group closes when it
holds ``group`` records or ``group`` transactions, ``GROUP_BYTES`` bytes, or is
``GROUP_SECONDS`` old; its acknowledgements are awaited just before the next group's first
messages are published, or when the caller flushes (:meth:`~Delivery.flush`; ``stream``: when
the server has nothing more to send right away, and at the end). Then ``on_delivered(items)``
is told the group's transactions, in order: every record of them is on the broker. So the
broker works on a group while the stream decodes the next transaction, no message of the next
group is published before the group is acknowledged, and the checkpoint is saved once per
group; after a kill, the records sent again are those of the last group not saved (at most
``group`` records and transactions, and the rest of a transaction that was open, as before).
``group=1``: each transaction is confirmed on its own (a group of one). ``at_end=True``: a
group is confirmed at its end, before the caller goes on (``stream --semi-sync``: the server's
ack, sent when the stream asks for the next transaction, must follow the broker's).

When the broker is unreachable, or the connection is lost before every acknowledgement came,
the connection is dropped and made again after a backoff (``backoff`` seconds, doubled each
time up to ``max_backoff``), one ``say`` line per retry, and every message of the group not
confirmed is published again (the broker may then hold some twice: a consumer drops them by
order key). After ``retry_for`` seconds of failures in a row the last error is raised
(:class:`~.base.SinkUnavailable`); a refusal a retry cannot change
(:class:`~.base.SinkRefused`) is raised at once.
"""

from __future__ import annotations

import time

from .base import SinkUnavailable

GROUP = 1                  # records (or transactions) a group holds at most, by default: each
                           # transaction alone (after a kill only the last unacknowledged one
                           # comes again); --group N trades that bound for fewer round trips
GROUP_BYTES = 8 << 20      # bytes of messages a group holds at most (memory for a resend)
GROUP_SECONDS = 1.0        # the age at which a group is confirmed at its next transaction end


class Delivery:
    def __init__(self, sink, say, retry_for: float = 60.0, backoff: float = 0.5,
                 max_backoff: float = 10.0, group: int = GROUP, on_delivered=None,
                 clock=time.monotonic, sleep=time.sleep, at_end: bool = False):
        self.sink, self.say, self.retry_for = sink, say, retry_for
        self.backoff, self.max_backoff = backoff, max_backoff
        self.group = max(1, group)
        self.at_end = at_end
        self.on_delivered = on_delivered or (lambda items: None)
        self.clock, self.sleep = clock, sleep
        self.connected = False
        self.retries = 0        # (every retry of this run)
        self.messages = 0       # messages acknowledged
        self.pending: list = []  # messages published, not confirmed (sent again on a retry)
        self.pending_bytes = 0
        self.records = 0        # messages of the group (published since the last flush)
        self.items: list = []   # transactions ended whose messages are not all confirmed
        self.opened = None      # when the group's first message or transaction came
        self.closed = False     # the group is whole: confirmed before anything more goes out
        self.due = False        # a group's worth of a transaction: confirmed before more

    def connect(self) -> None:
        self._retrying()

    def publish(self, messages: list) -> None:
        """Messages of the transaction under way, published (confirmed with the group): once
        the group before is acknowledged."""
        if not messages:
            return
        if self.closed:
            self.flush()
        elif self.due:   # (within a transaction: memory stays bounded)
            self._confirm()
        self.due = False
        if self.opened is None:
            self.opened = self.clock()
        self.pending += messages
        self.pending_bytes += sum(len(m.value) for m in messages)
        self.records += len(messages)
        self._retrying(messages)
        # a group's worth: confirmed before more is published (a transaction larger than a
        # group is confirmed in parts, handed over at its end)
        self.due = len(self.pending) >= self.group or self.pending_bytes >= GROUP_BYTES

    def ended(self, item) -> None:
        """The transaction whose messages were published last is whole: ``item`` is handed to
        ``on_delivered`` once they are all confirmed."""
        if self.opened is None:
            self.opened = self.clock()
        self.items.append(item)
        if self.records >= self.group or len(self.items) >= self.group or \
                self.pending_bytes >= GROUP_BYTES or self.clock() - self.opened >= GROUP_SECONDS:
            self.closed = True   # (its acknowledgements awaited before the next publish)
            if self.at_end:
                self.flush()

    def flush(self) -> None:
        """The group confirmed, and its transactions handed to ``on_delivered``."""
        self._confirm()
        items, self.items = self.items, []
        self.opened, self.records, self.closed, self.due = None, 0, False, False
        if items:
            self.on_delivered(items)

    def _confirm(self) -> None:
        if self.pending:
            self._retrying(confirm=True)
            self.messages += len(self.pending)
            self.pending, self.pending_bytes = [], 0

    def _retrying(self, messages=(), confirm: bool = False) -> None:
        """``messages`` published and (``confirm``) the group confirmed, on a connected sink;
        on a new connection, every message not confirmed is published first (``messages``
        among them: they are in :attr:`pending`)."""
        first = None
        delay = self.backoff
        while True:
            try:
                if self.connected:
                    if messages:
                        self.sink.publish(messages)
                else:
                    self.sink.connect()
                    self.connected = True
                    if self.pending:
                        self.sink.publish(self.pending)
                if confirm:
                    self.sink.confirm()
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

"""``nats://HOST:PORT/SUBJECT``: NATS JetStream, through nats-py.

Each message is published to SUBJECT with headers ``order_key``, ``key`` (when the record has
one), ``gtid`` (when its transaction has one) and ``Nats-Msg-Id`` (the order key: JetStream
drops a message whose id it has seen within the stream's duplicate window, two minutes by
default, so most of a resend's duplicates never reach the stream); a message is acknowledged
when its PubAck arrives. The messages of a ``send`` are in flight together: each is published
with a reply subject of its own under an inbox this sink subscribes to, and the PubAcks are
counted there (what nats-py's ``publish_async`` does, without a future, a semaphore and a
parsed PubAck per message, which cost twice the publish itself). The JetStream stream that captures SUBJECT is looked up at connection; when there
is none, one is created (named after the subject, its other characters ``_``), and said.
``nats://USER:PASSWORD@HOST:PORT/SUBJECT`` authenticates.
"""

from __future__ import annotations

import asyncio
import re

from .base import AsyncSink, SinkRefused, SinkUnavailable


class JetStreamSink(AsyncSink):
    nc = None

    def connect(self) -> None:
        try:
            import nats  # noqa: F401
        except ImportError:
            raise SinkRefused("nats:// needs nats-py: pip install "
                              "'binlog-schema[brokers]'") from None
        self.run(self._connect())

    async def _connect(self):
        import nats
        from nats.errors import NoServersError
        from nats.js.errors import NotFoundError
        url = self.url

        errors = []

        async def kept(e=None):   # (failures are raised to the caller, said once there)
            if e is not None:
                errors.append(e)

        async def quiet():
            pass
        try:   # (one attempt and one more: nats-py's 0 would be "for ever")
            self.nc = await nats.connect(
                f"nats://{url.host}:{url.port or 4222}", user=url.user, password=url.password,
                connect_timeout=self.timeout, allow_reconnect=False, max_reconnect_attempts=1,
                reconnect_time_wait=0.1, error_cb=kept, disconnected_cb=quiet,
                closed_cb=quiet)
        except (NoServersError, OSError, asyncio.TimeoutError) as e:
            e = errors[-1] if errors else e
            raise SinkUnavailable(f"{url}: {e or type(e).__name__}") from None
        except Exception as e:  # noqa: BLE001 - (nats-py's authorization errors)
            raise SinkRefused(f"{url}: {e}") from None
        self.js = self.nc.jetstream(timeout=self.timeout)
        self.inbox = self.nc.new_inbox()
        self.batch = 0
        self.waiting = None   # (batch number, replies still awaited (set), errors, event)
        await self.nc.subscribe(self.inbox + ".*.*", cb=self._reply)
        try:
            self.stream = await self.js.find_stream_name_by_subject(url.target)
        except NotFoundError:
            self.stream = re.sub(r"[^A-Za-z0-9_-]", "_", url.target)
            try:
                await self.js.add_stream(name=self.stream, subjects=[url.target])
            except Exception as e:  # noqa: BLE001
                raise SinkRefused(f"{url}: cannot create a JetStream stream for the "
                                  f"subject: {e}") from None
            self.note(f"{url}: created the JetStream stream {self.stream} (subjects "
                      f"{url.target})")
        except Exception as e:  # noqa: BLE001 - (JetStream off: no responders)
            raise SinkRefused(f"{url}: JetStream does not answer (is it on? nats-server "
                              f"-js): {type(e).__name__} {e}") from None

    def send(self, messages: list) -> None:
        self.run(self._send(messages))

    async def _reply(self, msg):
        """A PubAck (or a JetStream error) for the message of its reply subject."""
        waiting = self.waiting
        batch, _, index = msg.subject.rpartition(".")
        if waiting is None or batch.rpartition(".")[2] != str(waiting[0]):
            return   # (a late reply to a send that failed)
        pending, errors, done = waiting[1], waiting[2], waiting[3]
        data = msg.data
        if not data or b'"error"' in data:   # (no responders: an empty reply with 503)
            errors.append(data.decode("utf-8", "replace") or str(msg.headers))
        pending.discard(int(index))
        if not pending:
            done.set()

    async def _send(self, messages):
        from nats.errors import Error as NatsError
        publish, subject, stream = self.nc.publish, self.url.target, self.stream
        self.batch += 1
        prefix = f"{self.inbox}.{self.batch}."
        errors: list = []
        done = asyncio.Event()
        self.waiting = (self.batch, set(range(len(messages))), errors, done)
        try:
            for i, m in enumerate(messages):
                headers = {"order_key": m.order_key, "Nats-Msg-Id": m.order_key,
                           "Nats-Expected-Stream": stream}
                if m.key is not None:
                    headers["key"] = m.key
                if m.gtid is not None:
                    headers["gtid"] = m.gtid
                await publish(subject, m.value, reply=prefix + str(i), headers=headers)
            await done.wait()
        except (NatsError, OSError) as e:
            raise SinkUnavailable(f"{self.url}: {type(e).__name__} {e}") from None
        finally:
            self.waiting = None
        if errors:
            raise SinkUnavailable(f"{self.url}: JetStream refused {len(errors)} of "
                                  f"{len(messages)} messages: {errors[0]}")

    async def aclose(self):
        nc, self.nc = self.nc, None
        if nc is not None:
            await nc.close()


SINK = JetStreamSink

"""Issue 29: the RabbitMQ sink writes its publish frames itself
(``binlog_schema/wire/sinks/amqp_frames.py``); they are byte for byte what pika's own
marshalling (``pika.frame``, ``pika.spec``: what ``Channel.basic_publish`` sends) makes of
the same message, for bodies in one frame and in several, with and without the optional
headers, with text that is not ASCII; and pika's frame decoder reads them back."""

from __future__ import annotations

import math

import pytest

pika = pytest.importorskip("pika")
from pika import frame, spec  # noqa: E402

from binlog_schema.wire.sinks.amqp_frames import Publisher, short_string  # noqa: E402


def _pika_frames(channel, exchange, key, body, message_id, headers, frame_max):
    props = spec.BasicProperties(content_type="application/json", delivery_mode=2,
                                 message_id=message_id, headers=dict(headers))
    out = [frame.Method(channel, spec.Basic.Publish(exchange=exchange, routing_key=key,
                                                     mandatory=True)).marshal(),
           frame.Header(channel, len(body), props).marshal()]
    step = frame_max - 8
    for i in range(int(math.ceil(len(body) / step))):
        out.append(frame.Body(channel, body[i * step:(i + 1) * step]).marshal())
    return b"".join(out)


CASES = [
    (1, "bench", "bs.t/[1]", b'{"a":1}', "0000000001:000000012345:00000",
     [("order_key", "0000000001:000000012345:00000"), ("key", "bs.t/[1]"),
      ("gtid", "0-1-7")], 131072),
    (7, "ex", "", b"x" * 5000, "1:2:3", [("order_key", "1:2:3")], 4096),   # several frames
    (2, "ünïcode", 'db.täble/["é"]', '{"s":"é"}'.encode(), "k",
     [("order_key", "k"), ("key", 'db.täble/["é"]')], 131072),
    (1, "e", "k", b"y" * 4088, "m", [("order_key", "m")], 4096),   # exactly one frame full
]


@pytest.mark.parametrize("case", CASES)
def test_publish_frames_are_pikas_bytes(case):
    channel, exchange, key, body, message_id, headers, frame_max = case
    ours = Publisher(channel, exchange, "application/json", 2, frame_max).frames(
        key, body, message_id, headers)
    assert ours == _pika_frames(channel, exchange, key, body, message_id, headers, frame_max)
    # and pika's decoder reads them: the method, the properties, the body
    pos, got = 0, []
    while pos < len(ours):
        used, f = frame.decode_frame(ours[pos:])
        got.append(f)
        pos += used
    assert got[0].method.exchange == exchange and got[0].method.routing_key == key
    assert got[0].method.mandatory is True
    props = got[1].properties
    assert props.message_id == message_id and props.delivery_mode == 2
    assert props.headers == dict(headers) and got[1].body_size == len(body)
    assert b"".join(f.fragment for f in got[2:]) == body


def test_a_short_string_past_255_bytes_is_refused():
    assert short_string("é" * 127) == bytes((254,)) + ("é" * 127).encode()
    with pytest.raises(ValueError, match="a short string holds 255"):
        short_string("é" * 128)

"""The frames of one AMQP 0-9-1 ``basic.publish`` (a method frame, a content header frame,
the body in frames of at most ``frame_max``), written at the cost of a few joins: what pika's
``Channel.basic_publish`` marshals through its objects at about four times the cost, byte for
byte the same (``tests/unit/test_amqp_frames.py`` compares them with pika's own
``pika.frame`` marshalling). Only the publish direction, with the properties the RabbitMQ
sink sets; pika keeps the connection, the channel and everything the broker sends.

Layout (AMQP 0-9-1, section 4.2: a frame is type octet, channel short, payload size long,
payload, 0xCE; shorts, longs and long-longs big-endian; a short string is a length octet and
at most 255 bytes; a long string a length long and the bytes; a field table a length long
and its fields, each a short-string name, a type octet and the value):

* method frame (type 1): class 60 (basic), method 40 (publish), reserved short 0, exchange
  short string, routing key short string, one octet of bits (mandatory: 1, immediate: 2)
* content header frame (type 2): class 60, weight 0, body size long-long, property flags
  short, then the properties the flags name, in flag order: content-type (0x8000) short
  string, headers (0x2000) field table of long strings (type ``S``), delivery-mode (0x1000)
  octet, message-id (0x0080) short string
* body frames (type 3): the body cut at ``frame_max - 8`` bytes
"""

from __future__ import annotations

_PUBLISH = b"\x00\x3c\x00\x28\x00\x00"   # basic (60), publish (40), reserved short 0
_HEADER = b"\x00\x3c\x00\x00"            # basic (60), weight 0
_FLAGS = b"\xb0\x80"   # content-type 0x8000 | headers 0x2000 | delivery-mode 0x1000 |
                       # message-id 0x0080
_END = b"\xce"


def short_string(text: str) -> bytes:
    data = text.encode()
    if len(data) > 255:
        raise ValueError(f"{text[:40]!r}...: {len(data)} bytes, a short string holds 255")
    return bytes((len(data),)) + data


class Publisher:
    """``frames(routing_key, body, message_id, headers) -> bytes`` for one channel, exchange,
    content type and delivery mode (2: persistent), mandatory; ``headers`` a list of (name,
    str value) pairs, in order."""

    def __init__(self, channel: int, exchange: str, content_type: str, delivery_mode: int,
                 frame_max: int):
        self.prefix = {kind: bytes((kind,)) + channel.to_bytes(2, "big") for kind in (1, 2, 3)}
        self.exchange = short_string(exchange)
        self.content_type = short_string(content_type)
        self.delivery_mode = bytes((delivery_mode,))
        self.body_max = frame_max - 8
        self.names: dict = {}   # header name -> its short string and type

    def frames(self, routing_key: str, body: bytes, message_id: str, headers) -> bytes:
        prefix = self.prefix
        method = _PUBLISH + self.exchange + short_string(routing_key) + b"\x01"
        names = self.names
        fields = []
        for name, value in headers:
            head = names.get(name)
            if head is None:
                head = names[name] = short_string(name) + b"S"
            data = value.encode()
            fields.append(head + len(data).to_bytes(4, "big") + data)
        table = b"".join(fields)
        header = b"".join((_HEADER, len(body).to_bytes(8, "big"), _FLAGS, self.content_type,
                           len(table).to_bytes(4, "big"), table, self.delivery_mode,
                           short_string(message_id)))
        out = [prefix[1], len(method).to_bytes(4, "big"), method, _END,
               prefix[2], len(header).to_bytes(4, "big"), header, _END]
        step = self.body_max
        for start in range(0, len(body), step):
            chunk = body[start:start + step]
            out += (prefix[3], len(chunk).to_bytes(4, "big"), chunk, _END)
        return b"".join(out)

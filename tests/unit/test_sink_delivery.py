"""Issue 29: a sink's deliveries in groups (``binlog_schema/wire/sinks/delivery.py``), on a broker
kept in memory that takes what is published, acknowledges it at ``confirm`` and can lose its
connection: the transactions of a group are handed over (so the checkpoint moves) once every
message of the group is acknowledged, a group closes at ``group`` records or transactions,
a transaction larger than a group is confirmed in parts (memory stays bounded) but handed
over at its end only, and a connection lost before the acknowledgements is made again and
the whole group published again, each message once more, in order."""

from __future__ import annotations

from binlog_schema.wire.sinks.base import Message, SinkUnavailable
from binlog_schema.wire.sinks.delivery import Delivery


class Broker:
    """What a broker holds (``held``: messages, resends included), its connections, and
    ``lose``: confirms that fail (the connection lost before the acknowledgements)."""

    def __init__(self, lose=0):
        self.held, self.lose = [], lose
        self.connections = self.confirms = 0
        self.unconfirmed = 0

    def connect(self):
        self.connections += 1
        self.unconfirmed = 0

    def publish(self, messages):
        self.held += messages
        self.unconfirmed += len(messages)

    def confirm(self):
        if self.lose:
            self.lose -= 1
            raise SinkUnavailable("memory://: the connection was lost")
        self.confirms += 1
        self.unconfirmed = 0

    def close(self):
        pass


def _messages(tx, n):
    return [Message(b"{}", None, f"{tx:04d}.{i:04d}", f"0-1-{tx}") for i in range(n)]


def _delivery(broker, group, said=None):
    delivered = []
    d = Delivery(broker, (said if said is not None else []).append, group=group,
                 on_delivered=delivered.append, clock=lambda: 0.0, sleep=lambda s: None)
    d.connect()
    return d, delivered


def test_a_group_is_handed_over_once_all_its_records_are_acknowledged():
    broker = Broker()
    d, delivered = _delivery(broker, group=10)
    seen = []
    for tx in range(5):   # (4 records each: a group closes at the transaction reaching 10,
        d.publish(_messages(tx, 4))   # and is confirmed before the next one's publish)
        d.ended(tx)
        seen.append((len(delivered), broker.unconfirmed))
    assert seen == [(0, 4), (0, 8), (0, 12), (1, 4), (1, 8)]
    assert delivered == [[0, 1, 2]] and broker.confirms == 1 and len(broker.held) == 20
    d.flush()   # (the end: the rest)
    assert delivered == [[0, 1, 2], [3, 4]] and broker.confirms == 2
    assert d.messages == 20


def test_a_transaction_larger_than_a_group_is_confirmed_in_parts_handed_over_whole():
    broker = Broker()
    d, delivered = _delivery(broker, group=10)
    for _part in range(3):
        d.publish(_messages(7, 6))
        assert len(d.pending) <= 12   # (confirmed before more once the group fills)
    assert delivered == [] and broker.confirms == 1
    d.ended(7)
    d.flush()
    assert delivered == [[7]] and broker.confirms == 2 and d.pending == []


def test_a_lost_connection_publishes_the_whole_group_again_then_hands_it_over():
    broker = Broker(lose=1)
    said = []
    d, delivered = _delivery(broker, group=10, said=said)
    sent = []
    for tx in range(3):
        sent += _messages(tx, 4)
        d.publish(sent[-4:])
        d.ended(tx)
    assert broker.connections == 1 and delivered == []   # (the group closed, not confirmed)
    d.publish(_messages(3, 2))   # (the next group: first the group before is confirmed)
    # the third transaction filled the group: its confirm failed, the connection was made
    # again and the three transactions' messages published again, then confirmed
    assert broker.connections == 2 and d.retries == 1 and len(said) == 1
    assert "memory://: the connection was lost; retry 1" in said[0]
    assert broker.held == sent + sent + _messages(3, 2) and delivered == [[0, 1, 2]]
    d.ended(3)   # (the next group went out on the new connection, once)
    d.flush()
    assert broker.held[24:] == _messages(3, 2) and delivered == [[0, 1, 2], [3]]


def test_the_broker_works_on_a_group_while_the_next_transaction_is_made():
    """A closed group is not waited for at its end (the stream goes on decoding while the
    broker works), and no message of the next group goes out before it is acknowledged: after
    a kill, only the last group not acknowledged comes again."""
    broker = Broker()
    d, delivered = _delivery(broker, group=1)
    d.publish(_messages(0, 3))
    d.ended(0)
    assert broker.confirms == 0 and broker.unconfirmed == 3 and delivered == []
    order = []
    broker_publish, broker_confirm = broker.publish, broker.confirm
    broker.publish = lambda m: (order.append(("publish", len(m))), broker_publish(m))
    broker.confirm = lambda: (order.append(("confirm", broker.unconfirmed)), broker_confirm())
    d.publish(_messages(1, 2))
    assert order == [("confirm", 3), ("publish", 2)] and delivered == [[0]]
    d.ended(1)
    d.flush()
    assert delivered == [[0], [1]] and broker.unconfirmed == 0


def test_at_end_a_group_is_confirmed_before_the_caller_goes_on():
    """``stream --semi-sync``: the server's ack follows the broker's, so each transaction is
    confirmed and handed over at its end, not when the next one is published."""
    broker = Broker()
    delivered = []
    d = Delivery(broker, [].append, group=1, on_delivered=delivered.append,
                 clock=lambda: 0.0, sleep=lambda s: None, at_end=True)
    d.connect()
    d.publish(_messages(0, 3))
    d.ended(0)
    assert broker.confirms == 1 and broker.unconfirmed == 0 and delivered == [[0]]

"""Sinks: change records delivered to a message broker (``binlog-schema stream --to URL``).

* :mod:`.base` - the one interface a broker's module implements (:class:`~.base.Sink`:
  connect, publish a list of :class:`~.base.Message`, confirm: return once the broker has
  acknowledged every one published, close), the URL (:class:`~.base.SinkURL`), the errors,
  and :func:`open_sink` (one broker per URL scheme, :data:`SCHEMES`)
* :mod:`.messages` - the records of a transaction as messages: what the writers of
  :mod:`binlog_schema.output` write, with each record's key (table and primary key) and order
  key
* :mod:`.delivery` - at least once: the transactions' messages published as they come and
  confirmed in groups (the checkpoint moves once per group), retried with backoff while the
  broker cannot be reached, up to a bound
* :mod:`.redis_streams` (``redis://``, hiredis), :mod:`.nats_jetstream` (``nats://``, NATS's
  text protocol; nats-py to create a stream), :mod:`.rabbitmq` (``amqp://``, pika): one
  module per broker

Imports the serialization layer (the records' writers) and below; nothing imports it but the
``stream`` command.
"""

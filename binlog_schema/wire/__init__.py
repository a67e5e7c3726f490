"""The network: the client/server protocol's packets, declared (:mod:`.protocol`), both
sides of replication (:mod:`.replication`: ``stream`` and ``serve``) and the brokers that
``stream --to`` delivers change records to (:mod:`.sinks`).

An application layer: imports the layers below it (docs/architecture.md).
"""

"""The replication protocol, both sides: :mod:`.client` streams a live server's binlog as a
fake replica (``binlog-schema stream``, :class:`ReplicationStream`); :mod:`.server` serves
binlog files to real replicas and CDC clients (``binlog-schema serve``)."""

"""``binlog-schema spark ...`` (being written)."""


def register(sub):
    """Add this package's subcommands to the ``binlog-schema`` parser."""

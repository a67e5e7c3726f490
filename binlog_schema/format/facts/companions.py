"""The files a server keeps beside its binlogs in their folder (its "companions"), known by
name: MySQL's and MariaDB's binlog and relay-log index files, the index being rewritten
while binlogs are purged, the purge list, MariaDB's saved GTID state and (11.4+) the GTID
index of each binlog file, and a replica's info files. They are no binlogs and no damage:
a reader of a server's binlog folder names them and passes them by. The index lists the
binlog files in the server's order (:func:`index_entries`).

Imports nothing of the package.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re

# (kind, what it is, name patterns): the first that matches a file's name
KINDS = (
    ("index", "binlog index (the server's list of its binlog files, in order)",
     ("*.index",)),
    ("index", "binlog index being rewritten while binlogs are purged (MySQL 8)",
     ("*.index_crash_safe",)),
    ("purge list", "the binlog files being purged", ("*.~rec~",)),
    ("gtid state", "GTID state saved at shutdown (MariaDB)", ("*.state",)),
    ("gtid index", "GTID index of a binlog file (MariaDB 11.4+)", ("*.idx",)),
    ("replica info", "replica connection and position (master.info, relay-log.info)",
     ("master.info", "master-*.info", "multi-master.info", "relay-log.info",
      "relay-log-*.info")),
)

INDEX = "index"


def companion(name: str) -> tuple | None:
    """(kind, what it is) of a file named ``name`` (a path or a URI: its last part) that a
    server keeps beside its binlogs; None for any other name."""
    base = posixpath.basename(name.rstrip("/"))
    for kind, what, patterns in KINDS:
        if any(fnmatch.fnmatchcase(base, p) for p in patterns):
            return kind, what
    return None


def is_order_index(name: str) -> bool:
    """Whether the file named ``name`` is a binlog index that gives the order of the files
    (not one being rewritten)."""
    return posixpath.basename(name).endswith(".index")


def index_entries(text: str) -> list:
    """The binlog file names an index file lists, in its order: one per line, as the server
    wrote them (``./binlog.000001``, or an absolute path when ``log-bin`` was one)."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def resolve_entry(entry: str, folder: str, present) -> str | None:
    """The file of ``present`` (names of the files in the index's folder, as ``folder +
    "/" + name``) an index entry names: the entry relative to the index's folder, else the
    file of the entry's name in that folder (an absolute path of the server's machine, or
    one relative to its data directory); None when neither is there."""
    folder = folder.rstrip("/")
    entry = entry.replace("\\", "/")
    # (a URI's scheme and authority stay as they are: only its path is normalised)
    m = re.match(r"[A-Za-z][\w+.-]*://[^/]*|[A-Za-z][\w+.-]*:(?=/)", folder)
    root, path = (m.group(0), folder[m.end():]) if m else ("", folder)
    candidates = []
    if not entry.startswith("/"):
        candidates.append(root + posixpath.normpath(posixpath.join(path or "/", entry)))
    candidates.append(folder + "/" + posixpath.basename(entry))
    for c in candidates:
        if c in present:
            return c
    return None

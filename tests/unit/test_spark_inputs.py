"""The inputs of the Spark pipeline sorted as a server's binlog folder holds them (issue 26):
the files a server keeps beside its binlogs are companions, not binlogs; a binlog index
gives the order of the files it names; what it names that is not there is a note; no binlog
at all is an error that says what was given. (No Spark needed: :func:`plan.arrange` is plain
Python over a listing.)"""

import pytest

from binlog_schema.format.facts.companions import companion, index_entries, resolve_entry
from binlog_schema.pipeline.driver.plan import NoInputError, arrange

# the names a MySQL 8 / MariaDB 10.11+ binlog folder (or data directory) holds besides its
# binlogs, and the kind each is
SERVER_FILES = {
    "binlog.index": "index", "mysql-bin.index": "index", "relay-bin.index": "index",
    "myhost-relay-bin.index": "index", "binlog.index_crash_safe": "index",
    "binlog.~rec~": "purge list", "mysql-bin.state": "gtid state",
    "mysql-bin.000001.idx": "gtid index", "relay-log.info": "replica info",
    "master.info": "replica info", "multi-master.info": "replica info",
    "master-conn1.info": "replica info", "relay-log-conn1.info": "replica info",
}


def test_companions_are_known_by_name():
    for name, kind in SERVER_FILES.items():
        assert companion(f"file:/var/lib/mysql/{name}")[0] == kind, name
    for name in ("binlog.000001", "mysql-bin.1000000", "relay-bin.000003", "vector.binlog",
                 "notes.txt", "binlog.000001.gz", "index", "state"):
        assert companion(f"/d/{name}") is None, name


def test_index_entries_resolve_in_the_folder():
    present = {"file:/a/b/binlog.000001", "file:/a/b/binlog.000002",
               "hdfs://nn:8020/x/binlog.000003", "/d/m.000004"}
    assert index_entries("./binlog.000001\r\n\n/var/lib/mysql/binlog.000002\n") == [
        "./binlog.000001", "/var/lib/mysql/binlog.000002"]
    assert resolve_entry("./binlog.000001", "file:/a/b", present) == "file:/a/b/binlog.000001"
    # an absolute path of the server's machine, one relative to its data directory
    assert resolve_entry("/var/lib/mysql/binlog.000002", "file:/a/b/", present) == \
        "file:/a/b/binlog.000002"
    assert resolve_entry("./logs/m.000004", "/d", present) == "/d/m.000004"
    assert resolve_entry("./binlog.000003", "hdfs://nn:8020/x", present) == \
        "hdfs://nn:8020/x/binlog.000003"
    assert resolve_entry("./binlog.000009", "file:/a/b", present) is None


def _listing(folder, names):
    return [(f"{folder}/{n}", 100 + i) for i, n in enumerate(names)]


def test_the_index_gives_the_order():
    """Names that sort against the server's order (999999 before 1000000): the index's
    order; files it does not name keep their places in name order; companions apart."""
    names = ["mysql-bin.1000000", "mysql-bin.1000001", "mysql-bin.999999", "other.000001",
             "mysql-bin.index", "mysql-bin.state", "relay-log.info", "mysql-bin.999999.idx"]
    texts = {"file:/s/mysql-bin.index":
             "/var/lib/mysql/mysql-bin.999999\n./mysql-bin.1000000\n./mysql-bin.1000001\n"}
    got = arrange(["/s"], _listing("file:/s", names), [], texts.__getitem__)
    assert [u for u, _ in got.files] == [
        "file:/s/mysql-bin.999999", "file:/s/mysql-bin.1000000", "file:/s/mysql-bin.1000001",
        "file:/s/other.000001"]
    assert dict(got.files)["file:/s/mysql-bin.999999"] == 102   # (sizes kept with names)
    assert [c[:2] for c in got.companions] == [
        ("file:/s/mysql-bin.999999.idx", "gtid index"), ("file:/s/mysql-bin.index", "index"),
        ("file:/s/mysql-bin.state", "gtid state"), ("file:/s/relay-log.info", "replica info")]
    assert "the order of 3 files" in got.companions[1][2]
    assert not got.notes and got.check() is got


def test_without_an_index_names_give_the_order():
    got = arrange(["/s"], _listing("/s", ["b.000002", "a.000009", "b.000001"]), [],
                  lambda uri: pytest.fail("no index to read"))
    assert [u for u, _ in got.files] == ["/s/a.000009", "/s/b.000001", "/s/b.000002"]


def test_what_an_index_says_that_cannot_be_followed_is_a_note():
    names = ["bin.000001", "bin.000003", "bin.index", "relay.index"]
    texts = {"/s/bin.index": "./bin.000001\n./bin.000002\n./bin.000003\n"}

    def read(uri):
        if uri not in texts:
            raise PermissionError(13, "Permission denied", uri)
        return texts[uri]
    got = arrange(["/s"], _listing("/s", names), [], read)
    assert [u for u, _ in got.files] == ["/s/bin.000001", "/s/bin.000003"]
    assert got.notes == [
        ("/s/bin.index", "names ./bin.000002, which is not among the inputs: not read"),
        ("/s/relay.index", "binlog index not read (permission denied): the files keep their "
                           "name order")]


def test_no_binlog_says_what_was_given():
    with pytest.raises(NoInputError, match=r"no input file found: '/e': no binlog file "
                                           r"there; '/g/\*.bin': no such file or directory"):
        arrange(["/e", "/g/*.bin"], [], [("/g/*.bin", "no such file or directory")],
                dict().__getitem__).check()
    with pytest.raises(NoInputError, match=r"only 2 companion files of a server's binlogs: "
                                           r"b.index, b.state; no binlog"):
        arrange(["/s"], _listing("/s", ["b.state", "b.index"]), [],
                lambda uri: "").check()


def test_what_was_not_read_is_a_line_per_file_and_per_error_row():
    """spark decode's stderr: a file not read, in its reason's words; an errors row of a
    damaged file with its offset, what and reason (the first ``limit``, then how many
    more); a file whose bytes do not add up without any errors row, its counts."""
    from binlog_schema.pipeline.driver.report import problem_lines
    rows = [{"file": "/d/b.000002", "stage": "event", "offset": 900, "in_payload_at": None,
             "size": 40, "message": "checksum mismatch"},
            {"file": "/d/b.000002", "stage": "skipped", "offset": 120, "in_payload_at": None,
             "size": 300, "message": "no event here"},
            {"file": "/d/x.gz", "stage": "file", "offset": 0, "in_payload_at": None,
             "size": None, "message": "not a binlog: it starts with 1f 8b 08 08"}]
    files = [{"file": "/d/c.000003", "reconciled": False, "events_read": 3,
              "events_decoded": 2, "events_quarantined": 0, "bytes": 10, "bytes_decoded": 4,
              "bytes_skipped": 0},
             {"file": "/d/x.gz", "reconciled": False}]
    assert problem_lines(rows, files, total=5, limit=1) == [
        "/d/x.gz: not a binlog: it starts with 1f 8b 08 08",
        "/d/b.000002: at 120: bytes skipped, 300 bytes: no event here",
        "... and 4 more error rows: see the errors table",
        "/d/c.000003: not every byte or event accounted for (events read 3, decoded 2, "
        "quarantined 0; bytes 10, decoded 4, skipped 0)"]

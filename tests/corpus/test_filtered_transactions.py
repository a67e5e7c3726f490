"""Filters drop whole transactions: with --table / --database / --operation, ``decode`` in
every format (and ``flashback``) prints exactly the unfiltered output with the transactions
that hold no selected change removed (and, of those kept, the table maps and rows events of
other tables and operations), over real files with several tables. The expected output is
computed here from the unfiltered one, by grouping its events into transactions as the
servers write them (not by the package's rule)."""

from __future__ import annotations

import fnmatch
import json

import pytest

from binlog_schema import cli

from ..conftest import corpus_file

# (file, filter options): files of several tables (MySQL 5.1 BEGIN ... XID without GTIDs,
# 5.7 ANONYMOUS_GTID + BEGIN, 8.0 with DDL groups)
CASES = [
    ("canal/binlog/mysql-bin.000001", ["--table", "erosa.testpk", "--operation", "delete"]),
    ("canal/binlog/mysql-bin.000001", ["--table", "erosa.testAranda_linux"]),
    ("mysql-binlog-connector-java/mysql-bin.checksum-crc32", ["--table", "auth.*"]),
    ("mysql-binlog-connector-java/mysql-bin.checksum-crc32",
     ["--database", "simu_file_dev", "--operation", "update,delete"]),
    ("mysql-binlog-connector-java/mysql-bin.checksum-none", ["--table", "*.message"]),
    ("mysql-cdc-rs/8.0/folder/binlog.000693", ["--table", "hdb_meta.roles"]),
    ("canal/binlog/tsdb/mysql-bin.000003", ["--database", "tsdb"]),
]
GTIDS = {"GTID_LOG_EVENT", "ANONYMOUS_GTID_LOG_EVENT", "GTID_TAGGED_LOG_EVENT", "GTID_EVENT"}
OPERATIONS = {"WRITE": "insert", "UPDATE": "update", "DELETE": "delete"}


def run(capsys, *args):
    status = cli.main([*map(str, args)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out


class Filter:
    """The options of a case, read the simple way (tables as db.table globs)."""

    def __init__(self, options):
        opts = dict(zip(options[::2], options[1::2]))
        self.table = opts.get("--table")
        self.database = opts.get("--database")
        self.ops = set(opts["--operation"].split(",")) if "--operation" in opts else None

    def table_ok(self, db, table) -> bool:
        return (self.database is None or db == self.database) and \
            (self.table is None or fnmatch.fnmatchcase(f"{db}.{table}", self.table))

    def db_ok(self, db) -> bool:
        if not db:
            return True
        return (self.database is None or db == self.database) and \
            (self.table is None or fnmatch.fnmatchcase(db, self.table.split(".")[0]))


def transactions(events) -> list:
    """The unfiltered events' transaction (a number, None outside any), as the servers write
    them: a GTID event or a BEGIN opens one; XID, COMMIT or ROLLBACK closes it, as does a
    statement right after a GTID (a DDL group); a statement outside any is its own."""
    out, n, open_, after_gtid = [], 0, False, False
    for e in events:
        t, q = e["type"], (e.get("body") or {}).get("query")
        if t in GTIDS:
            n, open_, after_gtid = n + 1, True, True
        elif t == "QUERY_EVENT" and q == "BEGIN":
            if not (open_ and after_gtid):
                n, open_ = n + 1, True
            after_gtid = False
            out.append(n)
            continue
        elif t == "QUERY_EVENT" and not open_:
            n += 1
            out.append(n)
            continue
        out.append(n if open_ else None)
        if t in ("XID_EVENT", "XA_PREPARE_LOG_EVENT") or (t == "QUERY_EVENT" and (
                q in ("COMMIT", "ROLLBACK") or after_gtid)):
            open_ = False
        if t not in GTIDS:
            after_gtid = False
    return out


def expected_events(events, f: Filter) -> list:
    """Which unfiltered events the filtered output keeps."""
    txs = transactions(events)
    maps, keep, selected = {}, [], set()
    for e, tx in zip(events, txs):
        t, body = e["type"], e.get("body") or {}
        k = None   # None: the transaction's own event; True/False: a change selected or not
        if t == "TABLE_MAP_EVENT":
            maps[(tx, body["table_id"])] = f.table_ok(body["database"], body["table"])
            k = None if maps[(tx, body["table_id"])] else False
        elif "ROWS_EVENT" in t and not t.startswith("ANNOTATE"):
            op = OPERATIONS[t.split("_")[0]]
            k = maps[(tx, body["table_id"])] and (f.ops is None or op in f.ops)
        elif t == "QUERY_EVENT" and body.get("query") not in ("BEGIN", "COMMIT", "ROLLBACK"):
            k = f.db_ok(body.get("database"))
        if k:
            selected.add(tx)
        keep.append(k)
    return [tx is None and k is not False or (tx in selected and k is not False)
            for tx, k in zip(txs, keep)]


def text_blocks(text) -> dict:
    """decode --format text's lines by event: offset -> its block."""
    blocks, at = {}, None
    for line in text.splitlines(keepends=True):
        if line.startswith("# at "):
            at = int(line.split()[2])
        blocks[at] = blocks.get(at, "") + line
    return blocks


@pytest.mark.parametrize("name,options", CASES)
def test_filtered_output_is_the_unfiltered_without_unselected_transactions(
        tmp_path, capsys, name, options):
    path = corpus_file(name)
    f = Filter(options)
    lines = run(capsys, "decode", path).splitlines()
    events = [json.loads(x) for x in lines]
    keep = expected_events(events, f)
    assert 0 < sum(keep) < len(events)
    dropped = {e["type"] for e, k in zip(events, keep) if not k}
    assert dropped & (GTIDS | {"XID_EVENT", "QUERY_EVENT"})   # (whole transactions go)

    # jsonl: the kept lines, byte for byte
    got = run(capsys, "decode", path, *options).splitlines()
    assert got == [x for x, k in zip(lines, keep) if k]

    # text: the kept events' blocks
    blocks = text_blocks(run(capsys, "decode", "--format", "text", path))
    want = "".join(blocks[e["offset"]] for e, k in zip(events, keep) if k)
    assert run(capsys, "decode", "--format", "text", path, *options) == \
        blocks.get(None, "") + want

    # change records: the selected rows' records (commit flags and counts are per output)
    for fmt, drop in (("maxwell", ("commit",)), ("debezium", ("transaction",))):
        def records(out, drop=drop):
            return [{k: v for k, v in json.loads(x).items() if k not in drop}
                    for x in out.splitlines()]
        every = records(run(capsys, "decode", "--format", fmt, path))
        chosen = records(run(capsys, "decode", "--format", fmt, path, *options))

        def picked(r):
            db = r.get("database", r.get("source", {}).get("db"))
            table = r.get("table", r.get("source", {}).get("table"))
            op = r.get("type") or {"c": "insert", "u": "update", "d": "delete"}[r["op"]]
            return f.table_ok(db, table) and (f.ops is None or op in f.ops)
        assert chosen == [r for r in every if picked(r)]

    # flashback: the inverted transactions are those of the selected changes
    whole, part = tmp_path / "all.bin", tmp_path / "part.bin"
    cli.main(["flashback", "-o", str(whole), str(path)])
    cli.main(["flashback", "-o", str(part), str(path), *options])
    capsys.readouterr()
    if whole.exists() and part.exists():
        inverted = [json.loads(x) for x in run(capsys, "decode", part).splitlines()]
        for e in inverted:
            if e["type"] == "TABLE_MAP_EVENT":
                assert f.table_ok(e["body"]["database"], e["body"]["table"])

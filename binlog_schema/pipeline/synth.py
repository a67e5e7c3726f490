"""Synthetic binlog files for the pipeline: a small recipe of our own, deterministic per
(seed, file index), written with :class:`~binlog_schema.stream.BinlogWriter`.

(``binlog_schema.synthetic``, the general generator driven by YAML specs, was still being
written when the pipeline needed files; this recipe only has to give the pipeline realistic
transaction structure and typed rows, not cover every server feature.)

Per file: the FORMAT_DESCRIPTION of a MySQL 8.0 or MariaDB 10.11 server (CRC32), then
transactions on two tables of database ``shop``::

    MySQL:   GTID, QUERY BEGIN, (TABLE_MAP, WRITE/UPDATE/DELETE_ROWS v2)..., XID
    MariaDB: GTID, (ANNOTATE_ROWS, TABLE_MAP, WRITE/UPDATE/DELETE_ROWS v1)..., XID

and, half-way, a DDL transaction (GTID, QUERY ``ALTER TABLE orders ADD COLUMN note``) after
which ``orders`` has a new table id and a new shape. ``table_maps="once"`` writes each
TABLE_MAP only before the first rows event of its table (not per transaction, unlike a
server): splits of such a file are not self-contained, which the pipeline must detect.

Events whose declarations are owned elsewhere (GTID, QUERY, XID, ANNOTATE_ROWS) are made from
their byte layout, parsed by the package and written back through ``build_event`` (sizes,
log positions and CRC32s computed there), so the recipe does not depend on how those bodies
are keyed.
"""

from __future__ import annotations

import decimal
import os
import random

from ..context import Context
from ..envelope import HEADER_SIZE, parse_event
from ..model.table_map import Column, TableMap
from ..stream import BinlogWriter
from ..values import temporal
from ..values.rows import RowsCodec

SERVERS = {
    "mysql": ("8.0.40", [0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0,
                         8, 8, 8, 2, 0, 0, 0, 10, 10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0]),
    "mariadb": ("10.11.6-MariaDB-log",
                [56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 228, 0, 4, 26, 8, 0, 0, 0, 8,
                 8, 8, 2, 0, 0, 0, 10, 10, 10, 0, 0, 0, 0, 0, 0, 10, 10, 10]
                + [0] * 119 + [4, 19, 4, 0, 13, 8, 8, 8, 10, 10, 10]),
}
ROWS_CODES = {"mysql": {"insert": 30, "update": 31, "delete": 32},
              "mariadb": {"insert": 23, "update": 24, "delete": 25}}
BASE_TS = 1_700_000_000


def _columns(with_note: bool) -> list:
    cols = [
        Column(0, "LONGLONG", "id", nullable=False, unsigned=True),
        Column(1, "LONG", "qty", nullable=False, unsigned=False),
        Column(2, "NEWDECIMAL", "price", nullable=False, unsigned=False, precision=12,
               scale=2),
        Column(3, "VARCHAR", "name", nullable=True, collation_id=255, max_length=256),
        Column(4, "DATETIME2", "created", nullable=False, fsp=6),
        Column(5, "TIMESTAMP2", "paid", nullable=True, fsp=3),
        Column(6, "DATE", "day", nullable=True),
        Column(7, "DOUBLE", "score", nullable=True, unsigned=False, pack_length=8),
        Column(8, "BLOB", "data", nullable=True, collation_id=63, pack_length=2),
    ]
    if with_note:
        cols.append(Column(9, "VARCHAR", "note", nullable=True, collation_id=255,
                           max_length=128))
    return cols


def _notes_columns() -> list:
    return [Column(0, "LONG", "id", nullable=False, unsigned=False),
            Column(1, "TIME2", "span", nullable=True, fsp=0),
            Column(2, "VARCHAR", "body", nullable=True, collation_id=255, max_length=1024)]


class Recipe:
    """One synthetic file."""

    def __init__(self, seed: int, index: int, flavor: str = "mysql",
                 transactions: int = 200, table_maps: str = "per_transaction",
                 server_id: int = 1):
        if flavor == "mixed":
            flavor = ("mysql", "mariadb")[index % 2]
        if flavor not in SERVERS:
            raise ValueError(f"flavor {flavor!r}: mysql, mariadb or mixed")
        if table_maps not in ("per_transaction", "once"):
            raise ValueError("table_maps: per_transaction or once")
        self.rng = random.Random(f"binlog-schema synth {seed} {index}")
        self.flavor = flavor
        self.transactions = transactions
        self.table_maps = table_maps
        self.server_id = server_id + index
        self.index = index
        version, phl = SERVERS[flavor]
        self.version = version
        self.phl = phl
        self.parse_ctx = Context(checksum=False, post_header_lengths=phl,
                                 server_version=version, flavor=flavor)
        self.sid = bytes(self.rng.getrandbits(8) for _ in range(16))
        self.gno = 0
        self.ts = BASE_TS + index * 86400
        self.live = {"orders": {}, "notes": {}}
        self.next_id = {"orders": 1, "notes": 1}
        self.tables = {}
        self._set_table("orders", 100, _columns(False))
        self._set_table("notes", 102, _notes_columns())
        self.mapped = set()

    # -------------------------------------------------------------------- events

    def _header(self, code):
        return {"timestamp": self.ts, "type_code": code, "server_id": self.server_id,
                "log_pos": None, "flags": []}

    def _from_layout(self, code: int, body: bytes):
        """An event value from its body bytes, through the package's own parser."""
        size = HEADER_SIZE + len(body)
        head = (self.ts.to_bytes(4, "little") + bytes([code])
                + self.server_id.to_bytes(4, "little") + size.to_bytes(4, "little")
                + (0).to_bytes(4, "little") + (0).to_bytes(2, "little"))
        value = parse_event(head + body, self.parse_ctx)
        value["header"]["log_pos"] = None
        return value

    def _gtid(self, ddl: bool):
        self.gno += 1
        if self.flavor == "mysql":
            body = (b"\x00" + self.sid + self.gno.to_bytes(8, "little") + b"\x02"
                    + (self.gno - 1).to_bytes(8, "little") + self.gno.to_bytes(8, "little"))
            return self._from_layout(33, body)
        flags = 0x01 if ddl else 0x08  # FL_STANDALONE / FL_TRANSACTIONAL
        body = (self.gno.to_bytes(8, "little") + (0).to_bytes(4, "little") + bytes([flags])
                + bytes(6))
        return self._from_layout(162, body)

    def _query(self, text: str, db: str = ""):
        dbb, q = db.encode(), text.encode()
        body = ((7).to_bytes(4, "little") + (0).to_bytes(4, "little") + bytes([len(dbb)])
                + (0).to_bytes(2, "little") + (0).to_bytes(2, "little") + dbb + b"\0" + q)
        return self._from_layout(2, body)

    def _xid(self):
        return self._from_layout(16, (10_000 + self.gno).to_bytes(8, "little"))

    def _annotate(self, text: str):
        return self._from_layout(160, text.encode())

    def _set_table(self, name, table_id, columns):
        tm = TableMap(table_id=table_id, database="shop", table=name, columns=columns,
                      row_metadata="full", flavor=self.flavor, server_version=self.version,
                      primary_key=[{"column": 0, "prefix": 0}])
        self.tables[name] = (tm, RowsCodec(tm, [c.name for c in columns]))

    # -------------------------------------------------------------------- values

    def _orders_row(self, rid, with_note):
        r = self.rng
        big = r.random() < 0.05
        row = {
            "id": (1 << 64) - rid if big else rid,
            "qty": r.randint(-1000, 100000),
            "price": decimal.Decimal(r.randint(-10**9, 10**10)).scaleb(-2),
            "name": None if r.random() < 0.1 else r.choice(
                ["widget", "gadget ✓", "Ω-ring", "naïve café", "日本語", ""]) + f" {rid}",
            "created": temporal.DateTime(2020 + r.randint(0, 5), r.randint(1, 12),
                                         r.randint(1, 28), r.randint(0, 23),
                                         r.randint(0, 59), r.randint(0, 59),
                                         r.randint(0, 999999)),
            "paid": (None if r.random() < 0.2 else temporal.Timestamp(0, 0)
                     if r.random() < 0.05 else
                     temporal.Timestamp(BASE_TS + r.randint(0, 10**8),
                                        r.randint(0, 999) * 1000)),
            "day": (None if r.random() < 0.1 else temporal.Date(0, 0, 0)
                    if r.random() < 0.05 else
                    temporal.Date(1990 + r.randint(0, 40), r.randint(1, 12),
                                  r.randint(1, 28))),
            "score": None if r.random() < 0.1 else r.uniform(-1e6, 1e6),
            "data": None if r.random() < 0.3 else bytes(r.getrandbits(8) for _ in range(
                r.randint(0, 40))),
        }
        if with_note:
            row["note"] = None if r.random() < 0.5 else f"note {rid}"
        return row

    def _notes_row(self, rid):
        r = self.rng
        secs = r.randint(0, 838 * 3600)
        return {"id": rid,
                "span": None if r.random() < 0.2 else temporal.Time(
                    r.random() < 0.3, secs // 3600, secs // 60 % 60, secs % 60, 0),
                "body": "x" * r.randint(0, 300) if r.random() < 0.9 else None}

    def _row(self, table, rid):
        if table == "orders":
            return self._orders_row(rid, len(self.tables["orders"][0].columns) > 9)
        return self._notes_row(rid)

    # -------------------------------------------------------------------- writing

    def _statement(self, w: BinlogWriter, table: str, last: bool):
        r = self.rng
        live = self.live[table]
        op = r.choices(["insert", "update", "delete"], [6, 3, 1])[0] if live else "insert"
        n = r.randint(1, 5)
        rows = []
        if op == "insert":
            for _ in range(n):
                rid = self.next_id[table]
                self.next_id[table] += 1
                row = self._row(table, rid)
                live[rid] = row
                rows.append(row)
        else:
            for rid in r.sample(sorted(live), min(n, len(live))):
                before = live[rid]
                if op == "update":
                    after = dict(self._row(table, rid), id=before["id"])
                    live[rid] = after
                    rows.append((before, after))
                else:
                    del live[rid]
                    rows.append(before)
        tm, codec = self.tables[table]
        if self.flavor == "mariadb":
            w.write({"header": self._header(160),
                     "body": self._annotate(f"/* synthetic */ {op} {table}")["body"]})
        if self.table_maps == "per_transaction" or tm.table_id not in self.mapped:
            w.write({"header": self._header(19), "body": tm.body()})
            self.mapped.add(tm.table_id)
        code = ROWS_CODES[self.flavor][op]
        ncol = len(tm.columns)
        body = {"table_id": tm.table_id, "flags": ["STMT_END"] if last else []}
        if self.flavor == "mysql":
            body["extra_data"] = []
        body.update(column_count=ncol, columns_present=[True] * ncol)
        if op == "update":
            body["columns_after"] = [True] * ncol
        body["rows"] = codec.encode(rows, body, code)
        w.write({"header": self._header(code), "body": body})

    def write(self, target) -> dict:
        """Write the file; returns what it holds (transactions, statements)."""
        version, phl = self.version, self.phl
        stats = {"transactions": 0, "statements": 0, "ddl": 0}
        with BinlogWriter(target) as w:
            w.write({"header": self._header(15),
                     "body": {"binlog_version": 4, "server_version": version,
                              "create_timestamp": self.ts, "header_length": 19,
                              "post_header_lengths": phl, "checksum_alg": 1}})
            for t in range(self.transactions):
                self.ts += self.rng.randint(0, 3)
                if t == self.transactions // 2:
                    v = self._gtid(ddl=True)
                    w.write({"header": self._header(v["header"]["type_code"]),
                             "body": v["body"]})
                    q = self._query("ALTER TABLE orders ADD COLUMN note VARCHAR(32)", "shop")
                    w.write({"header": self._header(2), "body": q["body"]})
                    tm = self.tables["orders"][0]
                    self._set_table("orders", tm.table_id + 10, _columns(True))
                    for row in self.live["orders"].values():
                        row["note"] = None
                    stats["ddl"] += 1
                    continue
                v = self._gtid(ddl=False)
                w.write({"header": self._header(v["header"]["type_code"]), "body": v["body"]})
                if self.flavor == "mysql":
                    w.write({"header": self._header(2), "body": self._query("BEGIN")["body"]})
                k = self.rng.randint(1, 3)
                for i in range(k):
                    self._statement(w, self.rng.choice(["orders", "orders", "notes"]),
                                    i == k - 1)
                w.write({"header": self._header(16), "body": self._xid()["body"]})
                stats["transactions"] += 1
                stats["statements"] += k
        return stats


def write_fixture(path, seed: int = 0, index: int = 0, **options) -> dict:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    stats = Recipe(seed, index, **options).write(path)
    stats["file"] = str(path)
    stats["bytes"] = os.path.getsize(path)
    return stats


def fixture_name(index: int, flavor: str) -> str:
    stem = {"mysql": "mysql-bin", "mariadb": "mariadb-bin"}.get(flavor, "synth-bin")
    return f"{stem}.{index + 1:06d}"

#!/usr/bin/env python3
"""Write the demo binlog of scripts/run.sh, made from the declarations (the fixture
generator, binlog_schema/synthetic: no server needed): a shop on MariaDB 10.11 with FULL row
metadata, three tables of several column types (integers, DECIMAL, VARCHAR in utf8mb4, ENUM,
SET, DATETIME, DATE, TEXT), and a few hundred transactions of inserts, updates and deletes, a
second apart, one of them a bulk load. Deterministic: the same file every time."""

import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from binlog_schema.synthetic.spec import load_spec  # noqa: E402
from binlog_schema.synthetic.writer import generate  # noqa: E402

STATES = ["new", "paid", "shipped", "returned"]
NAMES = ["Ada", "Grace", "Linus", "Zoë", "Søren", "Amélie", "Ngozi", "Hiroshi", "Ana", "Bjørn"]


def spec(transactions: int = 240) -> dict:
    rnd = random.Random(28)
    customers, orders, stock = {}, {}, {}
    txs = []
    next_order = 1000
    for sku in range(1, 21):
        stock[sku] = 50
    txs.append({"changes": [{"insert": "inventory", "rows": [
        {"sku": s, "name": f"item {s}", "qty": q, "price": f"{5 + s * 1.25:.2f}"}
        for s, q in stock.items()]}]})
    for i in range(transactions):
        changes = []
        roll = rnd.random()
        if not customers or roll < 0.15:
            cid = len(customers) + 1
            customers[cid] = True
            changes.append({"insert": "customers", "rows": [{
                "id": cid, "name": f"{NAMES[cid % len(NAMES)]} {cid}",
                "email": f"c{cid}@example.com", "since": f"2024-0{1 + cid % 9}-1{cid % 9}"}]})
        if roll < 0.65:
            oid, next_order = next_order, next_order + 1
            cid = rnd.choice(sorted(customers))
            sku = rnd.randint(1, 20)
            qty = rnd.randint(1, 3)
            orders[oid] = "new"
            stock[sku] -= qty
            changes.append({"insert": "orders", "rows": [{
                "id": oid, "customer": cid, "state": "new",
                "amount": f"{qty * (5 + sku * 1.25):.2f}",
                "placed": f"2024-05-01 12:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}",
                "tags": ["gift"] if oid % 5 == 0 else [], "note": None}]})
            changes.append({"update": "inventory", "rows": [
                {"where": {"sku": sku}, "set": {"qty": stock[sku]}}]})
        elif roll < 0.9 and orders:
            oid = rnd.choice(sorted(orders))
            state = STATES[min(STATES.index(orders[oid]) + 1, len(STATES) - 1)]
            orders[oid] = state
            changes.append({"update": "orders", "rows": [
                {"where": {"id": oid}, "set": {"state": state, "note": f"now {state} ✓"}}]})
        elif orders:
            oid = rnd.choice(sorted(orders))
            del orders[oid]
            changes.append({"delete": "orders", "rows": [{"id": oid}]})
        if i == transactions // 2:   # a bulk load: one large transaction
            rows = []
            for _k in range(300):
                oid, next_order = next_order, next_order + 1
                orders[oid] = "new"
                rows.append({"id": oid, "customer": 1, "state": "new", "amount": "1.00",
                             "placed": "2024-05-01 13:00:00.000", "tags": ["bulk"],
                             "note": "imported"})
            changes.append({"insert": "orders", "rows": rows})
        if changes:
            txs.append({"changes": changes})
    return {
        "server": "mariadb-10.11",
        "settings": {"binlog_row_metadata": "FULL", "timestamp": 1714564800},
        "database": "shop",
        "tables": [
            {"name": "customers", "columns": [
                {"name": "id", "type": "INT UNSIGNED", "nullable": False},
                {"name": "name", "type": "VARCHAR(40)", "charset": "utf8mb4"},
                {"name": "email", "type": "VARCHAR(60)", "charset": "utf8mb4"},
                {"name": "since", "type": "DATE"}], "primary_key": ["id"]},
            {"name": "orders", "columns": [
                {"name": "id", "type": "BIGINT UNSIGNED", "nullable": False},
                {"name": "customer", "type": "INT UNSIGNED", "nullable": False},
                {"name": "state", "type": "ENUM('new','paid','shipped','returned')",
                 "nullable": False},
                {"name": "amount", "type": "DECIMAL(10,2)", "nullable": False},
                {"name": "placed", "type": "DATETIME(3)"},
                {"name": "tags", "type": "SET('gift','express','bulk')"},
                {"name": "note", "type": "TEXT", "charset": "utf8mb4"}],
             "primary_key": ["id"]},
            {"name": "inventory", "columns": [
                {"name": "sku", "type": "SMALLINT UNSIGNED", "nullable": False},
                {"name": "name", "type": "VARCHAR(40)", "charset": "utf8mb4"},
                {"name": "qty", "type": "INT", "nullable": False},
                {"name": "price", "type": "DECIMAL(8,2)"}], "primary_key": ["sku"]},
        ],
        "transactions": txs,
    }


def main(out):
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fixture = load_spec(spec())
    data = generate(fixture)
    tmp = out.with_name(out.name + ".partial")
    tmp.write_bytes(data)
    tmp.replace(out)   # (whole or absent)
    print(f"{out}: {len(data)} bytes, {len(fixture.transactions)} transactions of a shop "
          "(customers, orders, inventory) from the declarations", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ROOT / ".work" / "demo.binlog")

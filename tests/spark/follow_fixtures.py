"""Synthetic binlogs for the follow tests (tests/spark/test_follow.py): one MariaDB server's
files, built from the synthetic generator's declarations, whose schema changes where a
stream's micro-batches may fall: CREATE TABLE (a keyed table, a keyless one: a multiset
with duplicate rows), ALTER TABLE ADD COLUMN with a DEFAULT between row changes, DROP TABLE,
RENAME TABLE, and inserts, updates and deletes of 1 to 3 rows in between."""

from __future__ import annotations

import random

SERVER = "mariadb-10.11"
BASE_TS = 1_700_000_000
ITEMS = [{"name": "id", "type": "INT", "nullable": False},
         {"name": "name", "type": "VARCHAR(20)", "charset": "utf8mb4"},
         {"name": "qty", "type": "INT"}]
LOG = [{"name": "msg", "type": "VARCHAR(20)", "charset": "utf8mb4"},
       {"name": "n", "type": "INT"}]
EXTRA = [{"name": "k", "type": "BIGINT", "nullable": False},
         {"name": "v", "type": "DOUBLE"}]
CREATE = {"items": "CREATE TABLE items (id INT NOT NULL, name VARCHAR(20), qty INT, "
                   "PRIMARY KEY (id)) DEFAULT CHARSET=utf8mb4",
          "log": "CREATE TABLE log (msg VARCHAR(20), n INT) DEFAULT CHARSET=utf8mb4",
          "extra": "CREATE TABLE extra (k BIGINT NOT NULL, v DOUBLE, PRIMARY KEY (k))"}
NOTE = {"name": "note", "type": "VARCHAR(10)", "charset": "utf8mb4"}
ADD_NOTE = "ALTER TABLE items ADD COLUMN note VARCHAR(10) DEFAULT 'x'"


def file_spec(index: int, transactions: int = 24, seed: int = 0) -> dict:
    """The spec of file ``index`` (1, 2, 3) of the sequence: file 1 creates items and log;
    file 2 creates gone, adds items.note half-way and creates extra, drops gone near its
    end; file 3 renames extra to extra2 half-way (changes to extra2 after it). Rows are
    inserted, updated and deleted within each file (keys of file ``i`` from ``1000 * i``);
    log, without a primary key, holds duplicate rows."""
    r = random.Random(f"follow {seed} {index}")
    tables = {1: [], 2: ["items", "log"], 3: ["items", "log", "extra"]}[index]
    columns = {"items": list(ITEMS) + ([NOTE] if index == 3 else []), "log": LOG,
               "extra": EXTRA, "gone": EXTRA}
    live = {"items": {}, "log": [], "extra": {}, "gone": {}}
    names = {"extra": "extra"}
    txs = []
    next_id = [1000 * index]

    def row(table):
        if table == "items":
            next_id[0] += 1
            out = {"id": next_id[0], "name": r.choice(["a", "bb", "ccc", None, "é"]),
                   "qty": r.randint(-5, 500)}
            if NOTE in columns["items"]:
                out["note"] = r.choice([None, "n", "note"])
            return out
        if table == "log":
            return {"msg": r.choice(["x", "y"]), "n": r.randint(0, 2)}
        next_id[0] += 1
        return {"k": next_id[0], "v": r.random()}

    def change(table):
        name = names.get(table, table)
        held = live[table]
        op = r.choices(["insert", "update", "delete"], [5, 3, 2])[0] if held else "insert"
        if op == "insert":
            rows = [row(table) for _ in range(r.randint(1, 3))]
            for x in rows:
                if table == "log":
                    held.append(x)
                else:
                    held[x["id" if table == "items" else "k"]] = x
            return {"insert": name, "rows": rows}
        if table == "log":
            x = r.choice(held)
            if op == "delete":
                held.remove(x)
                return {"delete": name, "rows": [dict(x)]}
            i = held.index(x)
            held[i] = dict(x, n=x["n"] + 10)
            return {"update": name, "rows": [{"before": dict(x), "after": held[i]}]}
        key = "id" if table == "items" else "k"
        chosen = r.sample(sorted(held), min(len(held), r.randint(1, 2)))
        if op == "delete":
            return {"delete": name, "rows": [{key: held.pop(k)[key]} for k in chosen]}
        sets = []
        for k in chosen:
            new = row(table)
            del new[key]
            held[k] = dict(held[k], **new)
            sets.append({"where": {key: k}, "set": new})
        return {"update": name, "rows": sets}

    def ddl(text):
        txs.append({"ddl": text})

    if index == 1:
        ddl(CREATE["items"])
        ddl(CREATE["log"])
        tables = ["items", "log"]
    if index == 2:
        ddl(CREATE["extra"].replace("extra", "gone"))
        tables = ["items", "log", "gone"]
    for t in range(transactions):
        if index == 2 and t == transactions // 2:
            ddl(ADD_NOTE)
            columns["items"].append(NOTE)
            ddl(CREATE["extra"])
            tables = ["items", "log", "gone", "extra"]
        if index == 2 and t == transactions - 3:
            ddl("DROP TABLE gone")
            tables = ["items", "log", "extra"]
        if index == 3 and t == transactions // 2:
            ddl("RENAME TABLE extra TO extra2")
            names["extra"] = "extra2"
            live["extra"] = {}   # (the generator knows extra2 as a table of its own)
        txs.append({"changes": [change(r.choice(tables)) for _ in range(r.randint(1, 2))]})
    declared = [{"name": n, "columns": ITEMS + ([NOTE] if index == 3 else []) if n == "items"
                 else LOG if n == "log" else EXTRA,
                 **({"primary_key": ["id" if n == "items" else "k"]} if n != "log" else {})}
                for n in {1: [], 2: ["items", "log"],
                          3: ["items", "log", "extra", "extra2"]}[index]]
    return {"name": f"follow-{index}", "server": SERVER, "database": "shop",
            "settings": {"binlog_row_metadata": "FULL", "server_id": 1,
                         "timestamp": BASE_TS + index * 3600},
            "tables": declared, "transactions": txs}


def write_files(folder, count: int = 3, transactions: int = 24, seed: int = 0) -> list:
    """The files ``mariadb-bin.000001`` ... of :func:`file_spec` in ``folder``; their paths."""
    import os
    from binlog_schema.synthetic import generate
    os.makedirs(folder, exist_ok=True)
    out = []
    for i in range(1, count + 1):
        path = os.path.join(str(folder), f"mariadb-bin.{i:06d}")
        with open(path, "wb") as f:
            f.write(generate(file_spec(i, transactions, seed)))
        out.append(path)
    return out

#!/usr/bin/env python3
"""``--where`` (a row's history) against the full decode, end to end (issue 28's figure: at
least 3x faster on a file where the table is 1% of the rows events):

    .venv/bin/python benchmarks/bench_where.py [--transactions N] [--repeats N]
        [--workers N] [--json OUT]

A file where table ``fx.rare`` holds 1% of the rows events is written here by the fixture
generator (MariaDB 10.11, FULL metadata; ``--transactions``, default 40000: about 8 MiB).
The commands take turns (one run of each per round, ``--repeats`` rounds), each a whole
process (interpreter start included), stdout to /dev/null; wall and CPU seconds (user +
system, children included), medians:

* ``decode --format maxwell FILE`` and ``decode --rows FILE``: the full decode;
* ``decode --format maxwell --where id=N FILE`` (a row's history, N a row in the middle of
  the file: the other table has no column ``id``, its rows events are passed over without
  decoding their rows) and with ``--table fx.rare`` too;
* ``sql FILE`` against ``sql --where id=N FILE``; ``stats`` against ``stats --where id=N``.

Then the changes ``--where`` finds are checked against the full maxwell output filtered here.
``--workers`` sets BINLOG_SCHEMA_WORKERS for every command (default: as the machine decides).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_stats import add_turn_arguments, med, timed, turn_env  # noqa: E402

def rare_file(folder, transactions=40000) -> str:
    """A binlog where table ``rare`` holds 1% of the rows events (the fixture generator)."""
    from binlog_schema.synthetic.spec import load_spec
    from binlog_schema.synthetic.writer import generate
    txs = []
    busy = rare = 0
    for i in range(transactions):
        if i % 100 == 50:
            rare += 1
            txs.append({"changes": [{"insert": "rare", "rows": [
                {"id": rare, "note": f"rare {rare}", "amount": f"{rare}.50"}]}]})
        else:
            busy += 1
            txs.append({"changes": [{"insert": "busy", "rows": [
                {"row_id": busy * 4 + k, "name": f"row {busy} {k}", "qty": k,
                 "at": "2024-05-01 10:00:00.250"} for k in range(4)]}]})
    spec = {"server": "mariadb-10.11", "settings": {"binlog_row_metadata": "FULL"},
            "database": "fx", "tables": [
                {"name": "busy", "columns": [
                    {"name": "row_id", "type": "BIGINT", "nullable": False},
                    {"name": "name", "type": "VARCHAR(40)", "charset": "utf8mb4"},
                    {"name": "qty", "type": "INT"},
                    {"name": "at", "type": "DATETIME(3)"}], "primary_key": ["row_id"]},
                {"name": "rare", "columns": [
                    {"name": "id", "type": "BIGINT", "nullable": False},
                    {"name": "note", "type": "VARCHAR(40)", "charset": "utf8mb4"},
                    {"name": "amount", "type": "DECIMAL(10,2)"}], "primary_key": ["id"]}],
            "transactions": txs}
    path = os.path.join(folder, "rare.000001")
    with open(path, "wb") as f:
        f.write(generate(load_spec(spec)))
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--transactions", type=int, default=40000)
    add_turn_arguments(ap, repeats=5)
    args = ap.parse_args()
    env = turn_env(args)
    B = [sys.executable, "-m", "binlog_schema"]
    figures = {}
    with tempfile.TemporaryDirectory() as tmp:
        rare = rare_file(tmp, args.transactions)
        key = max(args.transactions // 200, 1)   # (a row in the middle of the file)
        WHERE = ["--where", f"id={key}"]
        size = os.path.getsize(rare) / (1 << 20)
        print(f"--where against the full decode on {size:.1f} MiB, table fx.rare 1% of the "
              f"rows events; medians of {args.repeats} turns")
        figures["file_mib"] = size
        cases = [("full maxwell", B + ["decode", "--format", "maxwell", rare]),
                 ("full --rows", B + ["decode", "--rows", rare]),
                 ("--where", B + ["decode", "--format", "maxwell", *WHERE, rare]),
                 ("--where --table", B + ["decode", "--format", "maxwell", "--table",
                                          "fx.rare", *WHERE, rare]),
                 ("sql", B + ["sql", rare]),
                 ("sql --where", B + ["sql", *WHERE, rare]),
                 ("stats", B + ["stats", "--format", "json", rare]),
                 ("stats --where", B + ["stats", "--format", "json", *WHERE, rare])]
        runs = timed(cases, args.repeats, env)
        for name in runs:
            print(f"   {name:16} wall {med(runs[name], 'wall'):6.2f} s  cpu "
                  f"{med(runs[name], 'cpu'):6.2f} s")
        for full, where in (("full maxwell", "--where"), ("full --rows", "--where"),
                            ("full maxwell", "--where --table"), ("sql", "sql --where"),
                            ("stats", "stats --where")):
            r = med(runs[full], "wall") / med(runs[where], "wall")
            c = med(runs[full], "cpu") / med(runs[where], "cpu")
            goal = " (goal >= 3x)" if full.startswith("full") else ""
            print(f"   {full} / {where}: wall {r:.2f}x, cpu {c:.2f}x{goal}")
            figures[f"{full} / {where}"] = {"wall": r, "cpu": c}
        found = [json.loads(x) for x in subprocess.run(
            cases[2][1], capture_output=True, env=env, cwd=str(ROOT)).stdout.splitlines()]
        full = [json.loads(x) for x in subprocess.run(
            cases[0][1], capture_output=True, env=env, cwd=str(ROOT)).stdout.splitlines()]
        want = [c for c in full if "id" in c["data"] and (
            c["data"]["id"] == key or (c.get("old") or {}).get("id") == key)]
        same = found == want and len(want) > 0
        print(f"   --where found exactly the filtered full decode's changes: {same} "
              f"({len(found)})")
        figures["where_equal_filtered_full_decode"] = same
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1)


if __name__ == "__main__":
    main()

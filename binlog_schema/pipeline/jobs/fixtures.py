"""The fixtures job (``spark fixtures``): synthetic binlog files written by Spark tasks, a
few files per task, each from a random spec of :mod:`binlog_schema.synthetic`,
deterministic per (seed, file index)."""

from __future__ import annotations

import os
import time

TABLE_MAPS = ("per_transaction", "once")


def servers_for(flavor: str) -> list:
    """The server profiles of ``binlog_schema.synthetic`` a flavor choice cycles through."""
    from binlog_schema.synthetic import SERVERS
    keys = list(SERVERS)
    if flavor in SERVERS:
        return [flavor]
    if flavor in ("mysql", "mariadb"):
        return [k for k in keys if k.startswith(flavor)]
    if flavor == "mixed":
        return keys
    raise ValueError(f"flavor {flavor!r}: mysql, mariadb, mixed or one of {', '.join(keys)}")


def write_one(out_dir, seed, flavor, transactions, table_maps, index) -> dict:
    """One synthetic file, deterministic per (seed, flavor, index): a random spec of three
    tables of random column types, for the ``index``-th of the flavor's server profiles in
    turn, compressed where the server can when ``index`` is odd; ``table_maps="once"``: each
    TABLE_MAP only before its table's first rows event (the spec setting ``table_maps``)."""
    from binlog_schema.synthetic import SpecError, generate, random_spec
    os.makedirs(out_dir, exist_ok=True)
    t0 = time.perf_counter()
    servers = servers_for(flavor)
    server = servers[index % len(servers)]
    spec = random_spec(seed * 1_000_003 + index, tables=3, transactions=transactions,
                       flavor=server)
    if table_maps != "per_transaction":
        spec.setdefault("settings", {})["table_maps"] = table_maps
    path = os.path.join(out_dir, f"{server}-bin.{index + 1:06d}")
    # every other file compressed where the server can (MySQL 8.0.20+ zstd transaction
    # payloads, MariaDB log_bin_compress)
    compressed = index % 2 == 1
    if compressed:
        spec.setdefault("settings", {})["compression"] = True
        try:
            generate(spec, path)
        except SpecError:
            spec["settings"]["compression"] = compressed = False
    if not compressed:
        generate(spec, path)
    return {"file": path, "bytes": os.path.getsize(path), "transactions":
            len(spec["transactions"]), "flavor": server, "compressed": compressed,
            "seconds": time.perf_counter() - t0}


def generate(spark, out_dir: str, files: int, *, seed: int = 0, flavor: str = "mixed",
             transactions: int = 200, table_maps: str = "per_transaction") -> list:
    """Write ``files`` synthetic binlogs into ``out_dir`` (a local or shared path the
    workers can write), a few files per Spark task (see :func:`write_one`); returns what
    each holds (file, bytes, transactions, flavor, compressed, seconds)."""
    servers_for(flavor)
    if table_maps not in TABLE_MAPS:
        raise ValueError(f"table_maps {table_maps!r}: {' or '.join(TABLE_MAPS)}")
    out_dir = os.path.abspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    sc = spark.sparkContext
    sc.setJobDescription(f"fixtures: {files} files")
    args = (out_dir, seed, flavor, transactions, table_maps)
    parts = max(1, min(files, 4 * sc.defaultParallelism))
    return sc.parallelize(range(files), parts).map(lambda i: write_one(*args, i)).collect()

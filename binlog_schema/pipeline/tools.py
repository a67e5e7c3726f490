"""``spark fixtures`` (synthetic binlog files written in parallel) and ``spark validate``
(golden vectors checked, or a corpus round-tripped, in parallel, into a report table)."""

from __future__ import annotations

import os
import sys
import time

from binlog_schema.pipeline.fsio import display_name, open_input


# ---------------------------------------------------------------------------------------
# fixtures


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


def _write_one(out_dir, seed, flavor, transactions, table_maps, index, generator="recipe"):
    """One synthetic file, deterministic per (generator, seed, flavor, index)."""
    os.makedirs(out_dir, exist_ok=True)
    t0 = time.perf_counter()
    if generator == "fixtures":
        from binlog_schema.synthetic import generate, random_spec
        servers = servers_for(flavor)
        server = servers[index % len(servers)]
        from binlog_schema.synthetic import SpecError
        spec = random_spec(seed * 1_000_003 + index, tables=3, transactions=transactions,
                           flavor=server)
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
        stats = {"transactions": len(spec["transactions"]), "flavor": server,
                 "compressed": compressed}
    else:
        from binlog_schema.pipeline.synth import Recipe, fixture_name
        recipe = Recipe(seed, index, flavor=flavor, transactions=transactions,
                        table_maps=table_maps)
        path = os.path.join(out_dir, fixture_name(index, recipe.flavor))
        stats = recipe.write(path)
        stats["flavor"] = recipe.flavor
    stats.update(file=path, bytes=os.path.getsize(path), seconds=time.perf_counter() - t0)
    return stats


def generate(spark, out_dir: str, files: int, *, seed: int = 0, flavor: str = "mixed",
             transactions: int = 200, table_maps: str = "per_transaction",
             generator: str = "recipe") -> list:
    """Write ``files`` synthetic binlogs into ``out_dir`` (a local or shared path the
    workers can write), a few files per Spark task; deterministic per (seed, index).

    ``generator="fixtures"``: random specs of :mod:`binlog_schema.synthetic` (three tables
    of random column types, cycling through the flavor's server profiles; odd-numbered files
    compressed where the server can);
    ``"recipe"``: :mod:`binlog_schema.pipeline.synth` (two known tables, a mid-file ALTER,
    optionally table maps written once)."""
    if generator not in ("fixtures", "recipe"):
        raise ValueError("generator: fixtures or recipe")
    if generator == "fixtures":
        servers_for(flavor)
    out_dir = os.path.abspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    sc = spark.sparkContext
    sc.setJobDescription(f"fixtures: {files} files")
    args = (out_dir, seed, flavor, transactions, table_maps)
    parts = max(1, min(files, 4 * sc.defaultParallelism))
    return sc.parallelize(range(files), parts).map(
        lambda i: _write_one(*args, i, generator)).collect()


def run_fixtures(args) -> int:
    from binlog_schema.pipeline.cli import parse_conf
    from binlog_schema.pipeline.job import start_session
    spark = start_session(args.master, parse_conf(args.conf))
    t0 = time.time()
    try:
        made = generate(spark, args.out, args.files, seed=args.seed, flavor=args.flavor,
                        transactions=args.transactions, table_maps=args.table_maps,
                        generator=args.generator)
    except ValueError as e:
        print(f"binlog-schema spark fixtures: {e}", file=sys.stderr)
        return 2
    total = sum(m["bytes"] for m in made)
    by_flavor = {}
    for m in made:
        by_flavor[m["flavor"]] = by_flavor.get(m["flavor"], 0) + 1
    print(f"{len(made)} files ({', '.join(f'{n} {f}' for f, n in sorted(by_flavor.items()))})"
          f", {total / (1 << 20):.1f} MiB, {sum(m['transactions'] for m in made)} "
          f"transactions, {sum(1 for m in made if m.get('compressed'))} files compressed, "
          f"in {time.time() - t0:.1f}s under {os.path.abspath(args.out)} (seed {args.seed})")
    return 0


# ---------------------------------------------------------------------------------------
# validate


def _check_specs(path: str, text: str):
    import yaml
    from binlog_schema.vectors import check_vector
    t0 = time.perf_counter()
    try:
        docs = [d for d in yaml.safe_load_all(text) if d]
    except yaml.YAMLError as e:
        yield ("spec", path, os.path.basename(path), False, None, None, None, None, None, None,
               None, None, [f"YAML: {e}"], time.perf_counter() - t0)
        return
    for i, doc in enumerate(docs):
        t1 = time.perf_counter()
        name = doc.get("name") if isinstance(doc, dict) else None
        try:
            problems = check_vector(doc)
        except Exception as e:  # noqa: BLE001 - a broken vector is a failure, not a crash
            problems = [f"vector could not be checked: {type(e).__name__}: {e}"]
        yield ("spec", path, name or f"{os.path.basename(path)}#{i}", not problems, None, None,
               None, None, None, None, None, None, [str(p) for p in problems],
               time.perf_counter() - t1)


def _roundtrip(uri: str):
    from binlog_schema.roundtrip import roundtrip_file
    name = display_name(uri)
    t0 = time.perf_counter()
    try:
        with open_input(uri) as f:
            r = roundtrip_file(f)
    except OSError as e:
        yield ("roundtrip", name, os.path.basename(name), False, 0, 0, 0, 1, 0, 0, 0, False,
               [f"io: {e}"], time.perf_counter() - t0)
        return
    problems = ([f"differ at {d['offset']} ({d['type']}, byte {d['byte']}): {d['path']}"
                 for d in r["differ"][:5]]
                + [f"failed at {x['offset']}: {x['error']}" for x in r["failed"][:5]]
                + [f"rows not decodable at {x['offset']}: {x['error']}"
                   for x in r["rows_failed"][:5]])
    yield ("roundtrip", name, os.path.basename(name), not r["differ"] and not r["failed"],
           r["events"], r["identical"], len(r["differ"]), len(r["failed"]), r["rows"],
           r["rows_identical"], len(r["rows_failed"]), r["tail"] is not None, problems,
           time.perf_counter() - t0)


def _check(item):
    kind, where, payload = item
    if kind == "spec":
        yield from _check_specs(where, payload)
    else:
        yield from _roundtrip(where)


def report_schema():
    from pyspark.sql import types as T
    L = T.LongType
    return T.StructType([
        T.StructField("check", T.StringType()), T.StructField("file", T.StringType()),
        T.StructField("name", T.StringType()), T.StructField("ok", T.BooleanType()),
        T.StructField("events", L()), T.StructField("identical", L()),
        T.StructField("differ", L()), T.StructField("failed", L()),
        T.StructField("rows", L()), T.StructField("rows_identical", L()),
        T.StructField("rows_failed", L()), T.StructField("truncated_tail", T.BooleanType()),
        T.StructField("problems", T.ArrayType(T.StringType())),
        T.StructField("seconds", T.DoubleType())])


def validate(spark, specs=(), roundtrip=()):
    """A DataFrame with one row per golden vector (``specs``: directories of YAML files,
    read on the driver) and per round-tripped file (``roundtrip``: files, directories,
    globs on any Hadoop filesystem), checked in parallel."""
    from binlog_schema.pipeline.job import list_inputs
    items = []
    for d in specs:
        for root, dirs, names in os.walk(d):
            dirs.sort()
            for n in sorted(names):
                if n.endswith((".yaml", ".yml")):
                    p = os.path.join(root, n)
                    with open(p, encoding="utf-8") as fh:
                        items.append(("spec", p, fh.read()))
    if roundtrip:
        files, missing = list_inputs(spark, list(roundtrip))
        items += [("roundtrip", uri, None) for uri, _ in files]
        items += [("missing", uri, why) for uri, why in missing]
    sc = spark.sparkContext
    sc.setJobDescription(f"validate: {len(items)} items")
    rows = []
    for kind, where, why in [i for i in items if i[0] == "missing"]:
        rows.append(("roundtrip", where, os.path.basename(where), False, 0, 0, 0, 1, 0, 0, 0,
                     False, [why], 0.0))
    work = [i for i in items if i[0] != "missing"]
    rdd = sc.parallelize(work, max(1, min(len(work), 4 * sc.defaultParallelism))).flatMap(
        _check)
    df = spark.createDataFrame(rdd.union(sc.parallelize(rows, 1)) if rows else rdd,
                               report_schema())
    return df


def run_validate(args) -> int:
    from binlog_schema.pipeline.cli import parse_conf
    from binlog_schema.pipeline.job import start_session
    if not args.specs and not args.roundtrip:
        print("binlog-schema spark validate: give --specs DIR and/or --roundtrip INPUT...",
              file=sys.stderr)
        return 2
    spark = start_session(args.master, parse_conf(args.conf))
    t0 = time.time()
    df = validate(spark, args.specs or (), args.roundtrip or ()).cache()
    if args.out:
        df.write.mode("overwrite" if args.overwrite else "errorifexists").parquet(args.out)
    rows = df.collect()
    bad = [r for r in rows if not r["ok"]]
    for r in bad[:20]:
        print(f"FAIL {r['check']} {r['file']} [{r['name']}]")
        for p in (r["problems"] or [])[:3]:
            print(f"    {p}")
    for check in ("spec", "roundtrip"):
        sel = [r for r in rows if r["check"] == check]
        if not sel:
            continue
        good = sum(1 for r in sel if r["ok"])
        line = f"{check}: {good} passed, {len(sel) - good} failed"
        if check == "roundtrip":
            line += (f" ({sum(r['events'] or 0 for r in sel)} events, "
                     f"{sum(r['identical'] or 0 for r in sel)} identical, "
                     f"{sum(r['rows'] or 0 for r in sel)} rows, "
                     f"{sum(r['rows_identical'] or 0 for r in sel)} rows identical, "
                     f"{sum(1 for r in sel if r['truncated_tail'])} truncated tails)")
        print(line)
    print(f"checked {len(rows)} items in {time.time() - t0:.1f}s"
          + (f"; report table: {args.out}" if args.out else ""))
    return 1 if bad or not rows else 0

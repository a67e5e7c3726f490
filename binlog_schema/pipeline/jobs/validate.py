"""The validate job (``spark validate``): golden vectors checked and binlog files
round-tripped (:func:`binlog_schema.output.roundtrip.roundtrip_file`) by Spark tasks, into one
report table (:func:`validate`, :func:`report_schema`)."""

from __future__ import annotations

import os
import time

from binlog_schema.pipeline.fsio import display_name, open_input


def _check_specs(path: str, text: str):
    import yaml
    from binlog_schema.synthetic.vector_checks import check_document, vector_kind
    kind = vector_kind(path)   # (an event or a DDL vector file)
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
            problems = check_document(doc, kind)
        except Exception as e:  # noqa: BLE001 - a broken vector is a failure, not a crash
            problems = [f"vector could not be checked: {type(e).__name__}: {e}"]
        yield ("spec", path, name or f"{os.path.basename(path)}#{i}", not problems, None, None,
               None, None, None, None, None, None, [str(p) for p in problems],
               time.perf_counter() - t1)


def _roundtrip(uri: str):
    from binlog_schema.format.errors import BinlogError
    from binlog_schema.output.roundtrip import roundtrip_file
    from binlog_schema.output.write import os_problem
    name = display_name(uri)
    t0 = time.perf_counter()
    try:
        with open_input(uri) as f:
            r = roundtrip_file(f)
    except (OSError, BinlogError) as e:   # (unreadable, or not a binlog: the CLI's words)
        yield _unread(name, os_problem(e) if isinstance(e, OSError) else str(e),
                      time.perf_counter() - t0)
        return
    except Exception as e:  # noqa: BLE001 - a bug must not fail the job: a failed check
        yield _unread(name, f"internal error: {type(e).__name__}: {e}",
                      time.perf_counter() - t0)
        return
    tail = r["tail"]
    problems = ([f"differ at {d['offset']} ({d['type']}, byte {d['byte']}): {d['path']}"
                 for d in r["differ"][:5]]
                + [f"failed at {x['offset']}: {x['error']}" for x in r["failed"][:5]]
                + [f"rows not decodable at {x['offset']}: {x['error']}"
                   for x in r["rows_failed"][:5]]
                + ([f"truncated last event at {tail['offset']} ({tail['have']} bytes"
                    + (f" of {tail['need']}" if tail.get("need") is not None else "") + ")"]
                   if tail else []))
    yield ("roundtrip", name, os.path.basename(name),
           not r["differ"] and not r["failed"] and not r["rows_failed"] and tail is None,
           r["events"], r["identical"], len(r["differ"]), len(r["failed"]), r["rows"],
           r["rows_identical"], len(r["rows_failed"]), tail is not None, problems,
           time.perf_counter() - t0)


def _unread(name, why, seconds):
    """The report row of a file not read (missing, unreadable, not a binlog)."""
    return ("roundtrip", name, os.path.basename(name), False, 0, 0, 0, 1, 0, 0, 0, False,
            [why], seconds)


def status_of(row) -> int:
    """The exit status a report row calls for (:mod:`binlog_schema.output.statuses`): 0 passed; 3
    a file whose only fault is rows not decodable (reported); 1 anything else that failed (a
    vector, a file not read, an event that differs or fails, a last event cut short)."""
    from binlog_schema.output.statuses import CLEAN, DAMAGED, STOPPED
    if row["ok"]:
        return CLEAN
    only_rows = row["check"] == "roundtrip" and row["rows_failed"] and not row["differ"] \
        and not row["failed"] and not row["truncated_tail"]
    return DAMAGED if only_rows else STOPPED


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


def validate(spark, specs=(), roundtrip=(), listing=None):
    """A DataFrame with one row per golden vector (``specs``: directories of vector files,
    event and DDL vectors, read on the driver) and per round-tripped file (``roundtrip``:
    files, directories, globs on any Hadoop filesystem: the binlogs of
    :func:`~..driver.plan.binlog_inputs`, or ``listing`` made already; the companion files of a
    server's binlogs are not round-tripped), checked in parallel. A file passes when every
    event and row image rebuilds its bytes: rows not decodable, a last event cut short, a
    file that is not a binlog fail. Raises :class:`~..driver.plan.NoInputError` when ``roundtrip``
    names no file. Raises OSError for a ``specs`` folder that cannot be read."""
    from binlog_schema.pipeline.driver.plan import binlog_inputs   # (the driver's; tasks need none)
    from binlog_schema.synthetic.vector_checks import VECTOR_KINDS
    items = []
    for d in specs:
        if not os.path.isdir(d):
            raise FileNotFoundError(2, "no such folder", d)
        for root, dirs, names in os.walk(d):
            dirs.sort()
            for n in sorted(names):
                if n.endswith(tuple(VECTOR_KINDS)):
                    p = os.path.join(root, n)
                    with open(p, encoding="utf-8", errors="replace") as fh:
                        items.append(("spec", p, fh.read()))
    if roundtrip:
        listing = (listing or binlog_inputs(spark, list(roundtrip))).check()
        files, missing = listing.files, listing.missing
        items += [("roundtrip", uri, None) for uri, _ in files]
        items += [("missing", uri, why) for uri, why in missing]
    sc = spark.sparkContext
    sc.setJobDescription(f"validate: {len(items)} items")
    rows = []
    for _kind, where, why in [i for i in items if i[0] == "missing"]:
        rows.append(_unread(where, why, 0.0))
    work = [i for i in items if i[0] != "missing"]
    rdd = sc.parallelize(work, max(1, min(len(work), 4 * sc.defaultParallelism))).flatMap(
        _check)
    df = spark.createDataFrame(rdd.union(sc.parallelize(rows, 1)) if rows else rdd,
                               report_schema())
    return df

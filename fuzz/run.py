"""Run one fuzz target under atheris (libFuzzer).

    python fuzz/run.py TARGET [--seeds DIR] [libFuzzer options and corpus dirs...]

TARGET is one of harness.TARGETS (one_event, stream, table_map, rows, build, damage, split).
``--seeds DIR`` writes the target's seeds (corpus and specs/) into DIR first, when DIR is
empty. The package
is instrumented for coverage; libFuzzer's own options (``-runs=``, ``-rss_limit_mb=``,
``-max_len=``, ``-artifact_prefix=``, ``-timeout=``) pass through. A finding is an uncaught
exception: atheris prints it and writes the input as ``crash-...`` under the artifact prefix.
"""

import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import atheris  # noqa: E402

with atheris.instrument_imports(include=["binlog_schema", "fuzz"]):
    import binlog_schema.format.event_codec
    import binlog_schema.changes.row_change
    import binlog_schema.changes.table_map
    import binlog_schema.format.stream
    import binlog_schema.format.values.json_diff
    import binlog_schema.format.values.json_document
    import binlog_schema.format.values.rows  # noqa: F401
    from fuzz import gen, harness  # noqa: F401


def main():
    args = sys.argv[1:]
    if not args or args[0] not in harness.TARGETS:
        sys.exit(f"usage: run.py {{{','.join(harness.TARGETS)}}} [--seeds DIR] [libFuzzer args]")
    name = args.pop(0)
    if "--seeds" in args:
        i = args.index("--seeds")
        seeds = pathlib.Path(args[i + 1])
        del args[i:i + 2]
        if not seeds.is_dir() or not any(seeds.iterdir()):
            n = harness.write_seeds(name, seeds, small=os.environ.get("FUZZ_SMALL") == "1")
            print(f"#seeds {n} written to {seeds}", flush=True)
    target, max_len = harness.TARGETS[name]
    if not any(a.startswith("-max_len=") for a in args):
        args.append(f"-max_len={max_len}")
    harness.warm_up(name)  # compiled code, table maps: not charged to the first input
    run = harness.guarded(target)
    atheris.Setup([sys.argv[0]] + args, run)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

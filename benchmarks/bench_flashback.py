#!/usr/bin/env python3
"""SQL and flashback, end to end: ``binlog-schema sql``, ``sql --flashback`` and ``flashback``
as a user runs them, against ``mariadb-binlog`` doing the nearest work, in the same run,
taking turns.

    .venv/bin/python benchmarks/bench_flashback.py [FILE ...] [--python PY] [--ours-cwd DIR]
        [--repeats N] [--cases sql,sql-flashback,flashback] [--json OUT]

Every command is a whole process, from its start (interpreter start-up and imports included)
to its exit, its standard output sent to /dev/null (``flashback`` writes its binlog to a
temporary file, removed at the end). Cases, for each FILE:

  sql             binlog-schema sql FILE
                    vs mariadb-binlog -v FILE            (row changes as pseudo-SQL comments)
  sql-flashback   binlog-schema sql --flashback FILE
                    vs mariadb-binlog --flashback -v FILE
  flashback       binlog-schema flashback FILE -o OUT
                    vs mariadb-binlog --flashback -v FILE

The peers are not the same work to the byte: ``mariadb-binlog -v`` prints each rows event as
base64 BINLOG statements plus ``###`` pseudo-SQL, ``--flashback`` inverts the events in memory
first (all of them: its peak RSS grows with the file). They are what a user of the vendor's
tool runs for the same purpose.

Each turn runs every distinct command once (A B C ...), so that the load of this shared
machine falls on all of them alike. Printed per command: the median wall seconds with the
min-max spread, CPU seconds (user + system), peak RSS (``/usr/bin/time``, see
``command_runs.py``); per peer: the ratio peer/ours, the median of the per-turn ratios, with
its spread (above 1: ours is faster). Before the timed turns every file is read once into the
page cache; no untimed warm-up run (the default file is large).

Default file: the large MariaDB binlog .work/large/mariadb-large.* made by
scripts/make_large_binlog.sh (129 MiB, 313,706 events: single-row and bulk row changes, a few
statement-based transactions).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from command_runs import (  # noqa: E402
    summarize,
    add_common_arguments,
    resolve_common,
    MIB,
    Spread,
    load_line,
    run_command,
    command_table,
    save_figures,
)

# case key -> (title, our arguments before FILE, our arguments after FILE, [peer keys])
CASES = {
    "sql": ("sql", ["sql"], [], ["mariadb-binlog-v"]),
    "sql-flashback": ("sql --flashback", ["sql", "--flashback"], [],
                      ["mariadb-binlog-flashback-v"]),
    "flashback": ("flashback -o OUT", ["flashback"], ["-o", "{out}"],
                  ["mariadb-binlog-flashback-v"]),
}
PEER_LABELS = {
    "mariadb-binlog-v": "mariadb-binlog -v",
    "mariadb-binlog-flashback-v": "mariadb-binlog --flashback -v",
}


def default_files():
    large_dir = os.path.join(ROOT, ".work", "large")
    large = sorted(f for f in (os.listdir(large_dir) if os.path.isdir(large_dir) else ())
                   if f.startswith("mariadb-large."))
    if large:
        return [os.path.join(large_dir, large[0])], []
    return [], ["(no large MariaDB binlog in .work/large/: run scripts/make_large_binlog.sh, "
                "or name files)"]


def build_commands(files, cases, python, ours_cwd, mariadb_binlog, out_dir):
    """The distinct commands (id -> spec) in turn order, and the cases referring to them."""
    commands, add = command_table()
    case_rows = []

    for n, f in enumerate(files):
        peer_argv = {}
        if mariadb_binlog:
            peer_argv["mariadb-binlog-v"] = [mariadb_binlog, "-v", f]
            peer_argv["mariadb-binlog-flashback-v"] = [mariadb_binlog, "--flashback", "-v", f]
        for key in cases:
            title, before, after, peers = CASES[key]
            out = os.path.join(out_dir, f"flashback-{n}.bin")
            argv = [python, "-m", "binlog_schema", *before, f,
                    *(a.format(out=out) for a in after)]
            ours = add(f"{f}|ours|{key}", f"ours: {title}", argv, ours_cwd)
            peer_ids = [add(f"{f}|{pk}", PEER_LABELS[pk], peer_argv[pk], None)
                        for pk in peers if pk in peer_argv]
            case_rows.append({"file": f, "case": key, "title": title, "ours": ours,
                              "peers": peer_ids})
    return commands, case_rows


def print_table(summary, files, commands):
    def sp(d):
        return Spread(**d).fmt()

    head = (f"{'':40} {'wall s: median [min-max]':>26} {'cpu s':>7} {'RSS MiB':>8}"
            f" {'peer/ours wall [min-max]':>26} {'cpu':>6}")
    for f in files:
        rows = [r for r in summary if r["file"] == f]
        print(f"\n{f}  ({os.path.getsize(f) / MIB:.1f} MiB)")
        print(head)
        for r in rows:
            print(r["title"])
            for _cid, c in r["commands"].items():
                bad = [rc for rc in c["exit_codes"] if rc != 0]
                label = c["label"] + (f"  (exit {bad})" if bad else "")
                line = (f"  {label:38.38} {sp(c['wall']):>26} {c['cpu']['median']:7.2f}"
                        f" {c['rss_mib']['median']:8.0f}")
                if "ratio_wall" in c:
                    line += f" {sp(c['ratio_wall']):>26} {c['ratio_cpu']['median']:6.2f}"
                print(line)
    notes = {cid: c["runs"][0].stderr_tail.splitlines()[-1][:200]
             for cid, c in commands.items()
             if c["runs"] and c["runs"][0].rc and c["runs"][0].stderr_tail}
    if notes:
        print("\nwhat the failing commands reported (stderr, first timed run):")
        for cid, note in notes.items():
            print(f"  {os.path.basename(cid.split('|')[0])} {commands[cid]['label']}: {note}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    add_common_arguments(ap, CASES, root=ROOT, repeats=3,
                         python_help="interpreter for ours (default: this repository's .venv)")
    args = ap.parse_args(argv)
    cases, python, ours_cwd, files = resolve_common(ap, args, CASES, ROOT, default_files)
    if not files:
        return 1
    mb_version = (subprocess.run([args.mariadb_binlog, "--version"], capture_output=True,
                                 text=True).stdout.strip() if args.mariadb_binlog else "absent")
    print(f"peer: {mb_version}")

    out_dir = tempfile.mkdtemp(prefix="bench-flashback-")
    try:
        commands, case_rows = build_commands(files, cases, python, ours_cwd,
                                             args.mariadb_binlog, out_dir)
        print(f"{len(commands)} commands, {args.repeats} turns; {os.cpu_count()} CPUs; "
              f"{load_line()}")
        started = time.time()
        for f in files:                        # into the page cache, untimed
            with open(f, "rb") as fh:
                while fh.read(1 << 24):
                    pass
        for turn in range(args.repeats):
            t = time.perf_counter()
            for cid, c in commands.items():
                r = run_command(c["argv"], cwd=c["cwd"])
                if r.rc != 0 and not c["runs"]:
                    print(f"  ! {c['label']} on {os.path.basename(cid.split('|')[0])} exited "
                          f"{r.rc}: {r.stderr_tail[-300:]}", file=sys.stderr)
                c["runs"].append(r)
            print(f"  turn {turn + 1}/{args.repeats}: {time.perf_counter() - t:.0f}s; "
                  f"{load_line()}", file=sys.stderr, flush=True)
        out_sizes = {name: os.path.getsize(os.path.join(out_dir, name))
                     for name in sorted(os.listdir(out_dir))}
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)

    summary = summarize(commands, case_rows)
    print(f"\nmedians of {args.repeats} turns (min-max); ratio peer/ours per turn, median "
          "(above 1: ours faster); RSS: peak resident set, median")
    print_table(summary, files, commands)
    for name, size in out_sizes.items():
        print(f"flashback output {name}: {size / MIB:.1f} MiB")
    print(f"\n{load_line()} at the end; {time.time() - started:.0f}s in all")

    if args.json:
        save_figures(args.json, commands, summary, files, args.repeats,
                     python, ours_cwd, mariadb_binlog=mb_version)
    return 0


if __name__ == "__main__":
    sys.exit(main())

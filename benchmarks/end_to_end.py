#!/usr/bin/env python3
"""End to end: our commands, as a user runs them, against the peers doing the same work, in
the same run, taking turns.

    .venv/bin/python benchmarks/end_to_end.py [FILE ...] [--python PY] [--ours-cwd DIR]
        [--repeats N] [--cases decode,rows,table-maps,text,text-rows] [--json OUT]

Every command is a whole process: from its start (interpreter start-up and imports included)
to its exit, its standard output sent to /dev/null. Cases, for each FILE:

  decode      binlog-schema decode FILE (JSON Lines)
                vs PMR decoding every event, rows left raw
  rows        binlog-schema decode --rows FILE
                vs PMR decoding every event and its rows
                vs mariadb-binlog --verbose --base64-output=decode-rows FILE
  table-maps  binlog-schema table-maps FILE
                vs PMR decoding TABLE_MAP only
  text        binlog-schema decode --format text FILE
                vs mariadb-binlog FILE
  text-rows   binlog-schema decode --format text --rows FILE
                vs mariadb-binlog --verbose --base64-output=decode-rows FILE
  maxwell, debezium
              binlog-schema decode --format maxwell|debezium FILE
                vs mariadb-binlog --verbose --base64-output=decode-rows FILE
  sql         binlog-schema sql FILE
                vs mariadb-binlog --verbose --base64-output=decode-rows FILE
  sql-flashback, flashback
              binlog-schema sql --flashback FILE, binlog-schema flashback -o OUT FILE
                vs mariadb-binlog --flashback FILE

The last five (the paths issue 31 measures) are not run unless --cases names them: on the
large file each takes minutes a turn. decode is compared with mariadb-binlog's default
output too.

PMR is python-mysql-replication driven offline (``benchmarks/pmr_peer.py``), run by the same
interpreter as ours. Ours is ``PY -m binlog_schema ...`` run in ``--ours-cwd`` (default: the
source tree PY's venv belongs to, else this repository), so that a second worktree with its own
venv measures that tree's code.

Each turn runs every distinct command once (A B C A B C ...), so that the load of this shared
machine falls on all of them alike. Printed per command: the median wall seconds with the
min-max spread, CPU seconds (user + system), peak RSS; per peer: the ratio peer/ours, as the
median of the per-turn ratios, with its spread (above 1: ours is faster). Before the timed
turns, one untimed warm-up run of every command on files up to 16 MiB (larger files are read
once into the page cache).

Default files: the two largest corpus files ($BINLOG_CORPUS, default ../shared/corpus next to
the repository), mysql-cdc-rs/8.0/folder/binlog.000693 and
mysql-binlog-connector-java/mysql-bin.sakila, and the large MariaDB binlog
.work/large/mariadb-large.* made by scripts/make_large_binlog.sh (skipped, with a note, when
absent).
"""

from __future__ import annotations

import argparse
import atexit
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

CORPUS_FILES = ("mysql-cdc-rs/8.0/folder/binlog.000693",
                "mysql-binlog-connector-java/mysql-bin.sakila")
WARM_LIMIT = 16 * MIB
OUT_DIR = tempfile.mkdtemp(prefix="end-to-end-")   # (the files commands write: removed at exit)
atexit.register(shutil.rmtree, OUT_DIR, True)

# case key -> (title, our arguments, [peer keys]); FILE is appended to every command, and
# {out} is a path in a temporary folder of the run (one per file and command)
CASES = {
    "decode": ("decode", ["decode"], ["pmr", "mariadb-binlog"]),
    "rows": ("decode --rows", ["decode", "--rows"], ["pmr-rows", "mariadb-binlog-v"]),
    "table-maps": ("table-maps", ["table-maps"], ["pmr-table-maps"]),
    "text": ("decode --format text", ["decode", "--format", "text"], ["mariadb-binlog"]),
    "text-rows": ("decode --format text --rows", ["decode", "--format", "text", "--rows"],
                  ["mariadb-binlog-v"]),
    "maxwell": ("decode --format maxwell", ["decode", "--format", "maxwell"],
                ["mariadb-binlog-v"]),
    "debezium": ("decode --format debezium", ["decode", "--format", "debezium"],
                 ["mariadb-binlog-v"]),
    "sql": ("sql", ["sql"], ["mariadb-binlog-v"]),
    "sql-flashback": ("sql --flashback", ["sql", "--flashback"], ["mariadb-binlog-flashback"]),
    "flashback": ("flashback -o OUT", ["flashback", "-o", "{out}"],
                  ["mariadb-binlog-flashback"]),
}
# the cases users run on big files (issue 31's table), beside the C tool; not in the default
# set (minutes per turn on the large file): --cases names them
SLOW_CASES = ("maxwell", "debezium", "sql", "sql-flashback", "flashback")
PEER_LABELS = {
    "pmr": "PMR, rows raw",
    "pmr-rows": "PMR, rows decoded",
    "pmr-table-maps": "PMR, TABLE_MAP only",
    "mariadb-binlog": "mariadb-binlog",
    "mariadb-binlog-v": "mariadb-binlog -v --base64-output=decode-rows",
    "mariadb-binlog-flashback": "mariadb-binlog --flashback",
}


def default_files():
    corpus = os.path.normpath(os.environ.get("BINLOG_CORPUS",
                                             os.path.join(ROOT, os.pardir, "shared", "corpus")))
    files, notes = [], []
    for rel in CORPUS_FILES:
        p = os.path.join(corpus, rel)
        (files if os.path.isfile(p) else notes).append(p)
    notes = [f"(corpus file absent, skipped: {p})" for p in notes]
    large_dir = os.path.join(ROOT, ".work", "large")
    large = sorted(f for f in (os.listdir(large_dir) if os.path.isdir(large_dir) else ())
                   if f.startswith("mariadb-large."))
    if large:
        files.append(os.path.join(large_dir, large[0]))
    else:
        notes.append("(no large MariaDB binlog in .work/large/: run scripts/make_large_binlog.sh "
                     "for that file's cases)")
    return files, notes


def build_commands(files, cases, python, ours_cwd, mariadb_binlog):
    """The distinct commands (id -> spec) in turn order, and the cases referring to them."""
    peer_script = os.path.join(HERE, "pmr_peer.py")
    commands, add = command_table()
    case_rows = []

    for f in files:
        peer_argv = {
            "pmr": [python, peer_script, f],
            "pmr-rows": [python, peer_script, f, "--rows"],
            "pmr-table-maps": [python, peer_script, f, "--table-maps"],
        }
        if mariadb_binlog:
            peer_argv["mariadb-binlog"] = [mariadb_binlog, f]
            peer_argv["mariadb-binlog-v"] = [mariadb_binlog, "--verbose",
                                             "--base64-output=decode-rows", f]
            peer_argv["mariadb-binlog-flashback"] = [mariadb_binlog, "--flashback", f]
        for key in cases:
            title, args, peers = CASES[key]
            out = os.path.join(OUT_DIR, f"{len(case_rows)}-{key}.out")
            args = [a.replace("{out}", out) for a in args]
            ours = add(f"{f}|ours|{key}", f"ours: {title}",
                       [python, "-m", "binlog_schema", *args, f], ours_cwd)
            peer_ids = []
            for pk in peers:
                if pk in peer_argv:
                    peer_ids.append(add(f"{f}|{pk}", PEER_LABELS[pk], peer_argv[pk], None))
            case_rows.append({"file": f, "case": key, "title": title, "ours": ours,
                              "peers": peer_ids})
    return commands, case_rows


def warm_up(commands, files):
    for f in files:
        if os.path.getsize(f) > WARM_LIMIT:
            with open(f, "rb") as fh:
                while fh.read(1 << 24):
                    pass
    for cid, c in commands.items():
        f = cid.split("|", 1)[0]
        if os.path.getsize(f) <= WARM_LIMIT:
            run_command(c["argv"], cwd=c["cwd"])


def print_table(summary, files, commands):
    def sp(d):
        return Spread(**d).fmt()

    head = (f"{'':48} {'wall s: median [min-max]':>26} {'cpu s':>7} {'RSS MiB':>8}"
            f" {'peer/ours wall [min-max]':>26} {'cpu':>6}")
    for f in files:
        rows = [r for r in summary if r["file"] == f]
        if not rows:
            continue
        print(f"\n{f}  ({os.path.getsize(f) / MIB:.1f} MiB)")
        print(head)
        for r in rows:
            print(f"{r['title']}")
            for _cid, c in r["commands"].items():
                bad = [rc for rc in c["exit_codes"] if rc != 0]
                label = c["label"] + (f"  (exit {bad})" if bad else "")
                line = (f"  {label:46.46} {sp(c['wall']):>26} {c['cpu']['median']:7.2f}"
                        f" {c['rss_mib']['median']:8.0f}")
                if "ratio_wall" in c:
                    line += f" {sp(c['ratio_wall']):>26} {c['ratio_cpu']['median']:6.2f}"
                print(line)
    notes = {}
    for cid, c in commands.items():
        first = c["runs"][0] if c["runs"] else None
        if first and first.stderr_tail and (cid.split("|")[1].startswith("pmr") or first.rc):
            notes[cid] = first.stderr_tail.splitlines()[-1][:200]
    if notes:
        print("\nwhat the commands reported (stderr, first timed run):")
        for cid, note in notes.items():
            f = cid.split("|")[0]
            print(f"  {os.path.basename(f)} {commands[cid]['label']}: {note}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    add_common_arguments(ap, CASES, root=ROOT, repeats=5,
                         python_help="interpreter for ours and PMR (default: this "
                                     "repository's .venv)",
                         default_cases=[c for c in CASES if c not in SLOW_CASES])
    ap.add_argument("--no-warm-up", action="store_true", help="skip the untimed warm-up")
    args = ap.parse_args(argv)
    cases, python, ours_cwd, files = resolve_common(ap, args, CASES, ROOT, default_files)
    if not files:
        return 1
    pmr_version = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('mysql-replication'))"],
        capture_output=True, text=True).stdout.strip() or "not installed"
    mb_version = (subprocess.run([args.mariadb_binlog, "--version"], capture_output=True,
                                 text=True).stdout.strip() if args.mariadb_binlog else "absent")
    print(f"peers: python-mysql-replication {pmr_version} (same interpreter); {mb_version}")

    commands, case_rows = build_commands(files, cases, python, ours_cwd, args.mariadb_binlog)
    print(f"{len(commands)} commands, {args.repeats} turns; {os.cpu_count()} CPUs; "
          f"{load_line()}")
    started = time.time()
    if not args.no_warm_up:
        warm_up(commands, files)
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

    summary = summarize(commands, case_rows)
    print(f"\nmedians of {args.repeats} turns (min-max); ratio peer/ours per turn, median "
          "(above 1: ours faster); RSS: peak resident set, median")
    print_table(summary, files, commands)
    print(f"\n{load_line()} at the end; {time.time() - started:.0f}s in all")

    if args.json:
        save_figures(args.json, commands, summary, files, args.repeats,
                     python, ours_cwd, pmr_version=pmr_version,
                     mariadb_binlog=mb_version)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Every command's output over every corpus file, written to a folder, to compare two versions
of the package byte for byte (``diff -r BEFORE AFTER``).

    .venv/bin/python scripts/corpus_outputs.py OUT [--corpus DIR] [--jobs N] [--only NAME,...]

Per corpus file and command: ``OUT/<command>/<file path with / as __>`` holds stdout, ``.err``
stderr (with the corpus folder's path replaced by ``CORPUS``) and ``.status`` the exit status.
The commands are those a user runs on a file: decode in each format (with and without rows),
table-maps, roundtrip, sql, sql --flashback, flashback (its output file's bytes).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import pathlib
import subprocess
import sys
import tempfile

COMMANDS = {
    "decode": ["decode"],
    "decode-text": ["decode", "--format", "text"],
    "decode-rows": ["decode", "--rows"],
    "decode-text-rows": ["decode", "--format", "text", "--rows"],
    "maxwell": ["decode", "--format", "maxwell"],
    "debezium": ["decode", "--format", "debezium"],
    "decode-skip": ["decode", "--skip-errors"],
    "table-maps": ["table-maps"],
    "roundtrip": ["roundtrip"],
    "sql": ["sql"],
    "sql-flashback": ["sql", "--flashback"],
    "flashback": ["flashback", "-o", "{out}"],
}


def corpus_files(root: pathlib.Path) -> list:
    return sorted(p for p in root.rglob("*")
                  if p.is_file() and p.suffix not in (".md", ".txt"))


def run_one(name: str, args: list, path: pathlib.Path, root: pathlib.Path,
            out: pathlib.Path) -> None:
    stem = str(path.relative_to(root)).replace("/", "__")
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "out.bin")
        argv = [a.replace("{out}", target) for a in args]
        r = subprocess.run([sys.executable, "-m", "binlog_schema", *argv, str(path)],
                           capture_output=True)
        stdout = r.stdout
        if "{out}" in " ".join(args):
            stdout = pathlib.Path(target).read_bytes() if os.path.exists(target) else b""
    err = r.stderr.replace(str(root).encode(), b"CORPUS").replace(target.encode(), b"OUT")
    stdout = stdout.replace(str(root).encode(), b"CORPUS")
    (folder / stem).write_bytes(stdout)
    (folder / (stem + ".err")).write_bytes(err)
    (folder / (stem + ".status")).write_text(f"{r.returncode}\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--corpus", default=os.environ.get("BINLOG_CORPUS", "../shared/corpus"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="comma-separated command names (default: all)")
    a = ap.parse_args()
    root = pathlib.Path(a.corpus).resolve()
    out = pathlib.Path(a.out)
    names = a.only.split(",") if a.only else list(COMMANDS)
    jobs = [(n, COMMANDS[n], p) for n in names for p in corpus_files(root)]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for f in [pool.submit(run_one, n, args, p, root, out) for n, args, p in jobs]:
            f.result()
    print(f"{len(jobs)} outputs in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

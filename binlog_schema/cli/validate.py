"""``binlog-schema validate``: the golden vectors checked both ways
(:func:`binlog_schema.synthetic.vector_checks.validate`)."""

from __future__ import annotations

import sys

from ..output.statuses import CLEAN, STOPPED, epilog
from .declare import Cmd, Opt


def cmd_validate(args) -> int:
    import os
    from ..synthetic.vector_checks import summary, validate
    root = args.dir or "specs"
    if not os.path.exists(root):
        if args.dir is None:
            print("no such folder: specs (validate reads the YAML vectors under DIR, default "
                  "./specs)", file=sys.stderr)
        elif root.endswith((".yaml", ".yml", ".ddl")):
            print(f"no such file: {root}", file=sys.stderr)
        else:
            print(f"no such file or folder: {root}", file=sys.stderr)
        return STOPPED
    results = validate(root)
    failed = [r for r in results if not r.ok]
    for r in failed:
        where = r.file if r.line is None else f"{r.file}, line {r.line}"
        if not r.name:  # (the file itself: not YAML, or not vectors)
            print(f"FAIL {where}: {'; '.join(r.problems)}")
            continue
        print(f"FAIL {where} [{r.name}]")
        for p in r.problems:
            print(f"    {p}")
    if not results:
        print(f"no vectors in {root} (validate reads the *.yaml, *.yml and *.ddl files under "
              "it)", file=sys.stderr)
        return STOPPED
    print(summary(results))
    return STOPPED if failed else CLEAN


COMMANDS = [
    Cmd("validate", "check the golden vectors both ways", cmd_validate, [
        Opt("dir", nargs="?", default=None, metavar="DIR",
            help="a vector file, or a folder whose *.yaml and *.yml files (event vectors) "
                 "and *.ddl files (DDL vectors) are read recursively (default: ./specs, the "
                 "folder of the repository's vectors)"),
    ], epilog="Each event vector is checked both ways: its hex parses to its expect (or its "
              "error), and expect builds to its hex. Each DDL vector's statements are "
              "replayed into the schema history, which must leave its expected tables (a "
              "failure names the table, field or column that differs). The last line counts "
              "the vectors passed and failed (and each kind when there are DDL vectors). A "
              "file that is not YAML, or a document that is "
              "not a vector, is one FAIL line naming the file and line; the other files are "
              "still checked. " + epilog("1 also when a vector fails (a FAIL line), a file is "
                                          "not vectors, or none is found.")),
]

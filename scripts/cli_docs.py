"""docs/cli.md: every command's usage and options, generated from the commands' declarations
(``binlog_schema/cli/``: each command's ``Cmd`` and ``Opt``s; the usage line from the parser
made of them), so that the reference cannot drift from the commands.
``python scripts/cli_docs.py > docs/cli.md`` writes it; ``tests/unit/test_cli_docs.py``
checks the committed page equals this output."""

from __future__ import annotations

import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from binlog_schema.cli.declare import HELP, walk
from binlog_schema.cli.parser import parsers
from binlog_schema.cli.registry import root

WIDTH = "100"   # (argparse wraps the usage line to COLUMNS: fixed, so the page is the same
                # on every terminal)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def page() -> str:
    os.environ["COLUMNS"] = WIDTH
    top = root()
    usage = parsers()
    out = ["# Command-line reference", "",
           "Generated from the commands' declarations by `scripts/cli_docs.py` (do not edit: "
           "run `python scripts/cli_docs.py > docs/cli.md`). `binlog-schema COMMAND --help` "
           "prints the same. Exit statuses: [exit-statuses.md](exit-statuses.md).", ""]
    for path, cmd in walk(top):
        name = " ".join(("binlog-schema",) + path)
        out += [f"## {name}", ""]
        out += ["```text", usage[path].format_usage().rstrip(), "```", ""]
        if cmd.description:
            out += [_cell(cmd.description), ""]
        out += ["| argument | what |", "| --- | --- |"]
        out += [f"| {_cell(o.shown())} | {_cell(o.kw.get('help') or '')} |"
                for o in [HELP, *cmd.opts]]
        out.append("")
        if cmd.subs:
            out += ["| command | what |", "| --- | --- |"]
            out += [f"| [{c.name}](#{'-'.join(name.split() + [c.name])}) | {_cell(c.help)} |"
                    for c in cmd.subs]
            out.append("")
        if cmd.epilog:
            out += [_cell(cmd.epilog), ""]
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(page())

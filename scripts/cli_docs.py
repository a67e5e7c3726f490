"""docs/cli.md: every command's usage and options, generated from the CLI's own argparse
declarations (``binlog_schema.cli.build_parser``), so that the reference cannot drift from the
commands. ``python scripts/cli_docs.py > docs/cli.md`` writes it;
``tests/unit/test_cli_docs.py`` checks the committed page equals this output."""

from __future__ import annotations

import argparse
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from binlog_schema import cli

WIDTH = "100"   # (argparse wraps the usage line to COLUMNS: fixed, so the page is the same
                # on every terminal)


def commands(parser, path=()):
    """(command words, parser) of every command, depth first, in declaration order."""
    yield path, parser
    for action in parser._actions:   # (argparse has no public walk of its subcommands)
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, path + (name,))


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _help(action, prog: str) -> str:
    text = action.help or ""
    if "%" in text:
        params = {**vars(action), "prog": prog}
        if action.choices is not None:
            params["choices"] = ", ".join(map(str, action.choices))
        text = text % params
    return text


def _names(action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    if action.nargs == 0:
        return ", ".join(f"`{o}`" for o in action.option_strings)
    metavar = action.metavar or (
        "{" + ",".join(map(str, action.choices)) + "}" if action.choices else action.dest.upper())
    if isinstance(metavar, tuple):
        metavar = " ".join(metavar)
    return ", ".join(f"`{o} {metavar}`" for o in action.option_strings)


def page() -> str:
    os.environ["COLUMNS"] = WIDTH
    root = cli.build_parser()
    out = ["# Command-line reference", "",
           "Generated from the commands' declarations by `scripts/cli_docs.py` (do not edit: "
           "run `python scripts/cli_docs.py > docs/cli.md`). `binlog-schema COMMAND --help` "
           "prints the same. Exit statuses: [exit-statuses.md](exit-statuses.md).", ""]
    for path, parser in commands(root):
        name = " ".join(("binlog-schema",) + path)
        out += [f"## {name}" if path else "## binlog-schema", ""]
        out += ["```text", parser.format_usage().rstrip(), "```", ""]
        if parser.description:
            out += [_cell(parser.description), ""]
        rows = [a for a in parser._actions
                if a.help is not argparse.SUPPRESS
                and not isinstance(a, argparse._SubParsersAction)]
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if rows:
            out += ["| argument | what |", "| --- | --- |"]
            out += [f"| {_cell(_names(a))} | {_cell(_help(a, parser.prog))} |" for a in rows]
            out.append("")
        for a in subs:
            out += ["| command | what |", "| --- | --- |"]
            helps = {c.dest: c.help for c in a._choices_actions}
            for sub in a.choices:
                out.append(f"| [{sub}](#{'-'.join(name.split() + [sub])}) | "
                           f"{_cell(helps.get(sub) or '')} |")
            out.append("")
        if parser.epilog:
            out += [_cell(parser.epilog), ""]
    return "\n".join(out).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.stdout.write(page())

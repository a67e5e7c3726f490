"""The argparse parser of ``binlog-schema``, made from the declarations (:mod:`.declare`):
for a command line the fast scan (:mod:`.fast`) leaves to it (help, abbreviations, errors),
and for the usage errors the commands report."""

from __future__ import annotations

import argparse

from .declare import Cmd
from .registry import root


def version() -> str:
    """The installed package's version (its metadata; imported only when asked for)."""
    from importlib.metadata import PackageNotFoundError, version as of
    try:
        return of("binlog-schema")
    except PackageNotFoundError:
        return "unknown (not installed: run from a source tree)"


class _Version(argparse.Action):  # (the version looked up only when --version is given)
    def __call__(self, parser, namespace, values, option_string=None):
        print(f"binlog-schema {version()}")
        parser.exit()


def _keywords(opt) -> dict:
    if opt.kw.get("action") == "version":
        return {**opt.kw, "action": _Version, "nargs": 0, "default": argparse.SUPPRESS}
    return opt.kw


def _fill(p: argparse.ArgumentParser, cmd: Cmd, path: tuple, parsers: dict) -> None:
    parsers[path] = p
    for opt in cmd.opts:
        p.add_argument(*opt.names, **_keywords(opt))
    if cmd.func is not None:
        p.set_defaults(func=cmd.func)
    if cmd.subs:
        sub = p.add_subparsers(dest=cmd.sub_dest, required=True, metavar=cmd.sub_metavar)
        for c in cmd.subs:
            kw = {"formatter_class": argparse.RawDescriptionHelpFormatter} if c.raw else {}
            _fill(sub.add_parser(c.name, help=c.help, description=c.description,
                                 epilog=c.epilog, **kw), c, path + (c.name,), parsers)


def parsers(only: str | None = None, top: Cmd | None = None) -> dict:
    """{command words: its parser} of every command (``()``: ``binlog-schema`` itself), or
    of only the command ``only``; ``top``: another root (``python -m
    binlog_schema.cli.spark``)."""
    top = root(only) if top is None else top
    out: dict = {}
    _fill(argparse.ArgumentParser(prog=top.name, description=top.description,
                                  epilog=top.epilog), top, (), out)
    return out


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser: every command, or only ``only`` (the one the user asked for)."""
    return parsers(only)[()]


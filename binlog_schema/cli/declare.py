"""How a command is declared: :class:`Opt` (one argument) and :class:`Cmd` (a command, its
arguments, help, epilog and run function, or its sub-commands). The argparse parser
(:mod:`.parser`), the fast scan of common command lines (:mod:`.fast`) and the CLI reference
(``scripts/cli_docs.py``) are all made from these declarations, and from nothing else.

No argparse import here: a declaration costs nothing to load."""

from __future__ import annotations


class Opt:
    """One argument of a command: its names and argparse's keywords (``type=`` checks the
    value as it is parsed: a usage error, never a traceback later)."""

    __slots__ = ("names", "kw")

    def __init__(self, *names, **kw):
        self.names, self.kw = names, kw

    def but(self, **kw) -> Opt:
        """This option with some keywords changed (a shared option's help, default or
        metavar for one command)."""
        return Opt(*self.names, **{**self.kw, **kw})

    @property
    def dest(self) -> str:
        return self.kw.get("dest") or self.names[-1].lstrip("-").replace("-", "_")

    @property
    def flag(self) -> bool:
        """Takes no value (``store_true``; ``--version``, ``--help``)."""
        return self.kw.get("action") in ("store_true", "version", "help")

    @property
    def positional(self) -> bool:
        return not self.names[0].startswith("-")

    @property
    def required(self) -> bool:
        return bool(self.kw.get("required"))

    def shown(self) -> str:
        """How the argument is shown in the reference: ``FILE``, ``--top N``, ``--rows``."""
        if self.positional:
            return f"`{self.kw.get('metavar') or self.dest}`"
        if self.flag:
            return ", ".join(f"`{n}`" for n in self.names)
        choices = self.kw.get("choices")
        metavar = self.kw.get("metavar") or (
            "{" + ",".join(map(str, choices)) + "}" if choices else self.dest.upper())
        return ", ".join(f"`{n} {metavar}`" for n in self.names)


class Cmd:
    """A command: ``name``, the one-line ``help`` (also its description unless
    ``description`` is given), its ``opts`` in order, the ``func`` that runs it (given the
    parsed arguments, it returns an exit status of :mod:`binlog_schema.output.statuses`), an
    ``epilog``; ``raw``: the description and epilog are printed as written (line breaks
    kept). A command with ``subs`` has sub-commands instead (chosen into ``args.<sub_dest>``,
shown as ``sub_metavar``)."""

    __slots__ = ("name", "help", "func", "opts", "epilog", "description", "raw", "subs",
                 "sub_dest", "sub_metavar")

    def __init__(self, name, help, func=None, opts=(), epilog=None, *, description=None,
                 raw=False, subs=(), sub_dest=None, sub_metavar=None):
        self.name, self.help, self.func, self.opts = name, help, func, list(opts)
        self.epilog, self.raw = epilog, raw
        self.description = help if description is None else description
        self.subs, self.sub_dest, self.sub_metavar = list(subs), sub_dest, sub_metavar


HELP = Opt("-h", "--help", action="help", help="show this help message and exit")
"""The help option argparse gives every command (shown in the reference; not declared
again per command)."""


def walk(cmd: Cmd, path=()):
    """(command words, declaration) of ``cmd`` and its sub-commands, depth first, in
    declaration order."""
    yield path, cmd
    for sub in cmd.subs:
        yield from walk(sub, path + (sub.name,))

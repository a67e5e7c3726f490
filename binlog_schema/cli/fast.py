"""The fast scan of plain command lines, made from the same declarations as the argparse
parser: ``decode FILE``-like lines start without importing argparse (about 10 ms of
start-up, paid once per file a user runs a command on). Anything unusual (help,
abbreviations, ``--``, a missing value or a required option, a value that does not check)
is left to argparse, which parses it, and reports errors, from the same declarations."""

from __future__ import annotations

from .declare import Cmd
from .registry import MODULES, declared


class Args:
    """Parsed arguments, as argparse's namespace holds them."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def fast_args(argv):
    """The parsed arguments of a plain command line of a command without sub-commands, or
    None when the line needs argparse."""
    if not argv or argv[0] not in MODULES:
        return None
    cmd = declared(argv[0])
    return None if cmd.subs else scan(cmd, argv[1:])


def scan(cmd: Cmd, argv):
    """``argv`` (after the command's name) parsed by ``cmd``'s declarations, or None."""
    options = {n: o for o in cmd.opts if not o.positional for n in o.names}
    values = {o.dest: False if o.flag else o.kw.get("default") for o in cmd.opts}
    given = set()
    loose = []
    it = iter(argv)
    for arg in it:
        if arg.startswith("-") and arg != "-":
            name, eq, text = arg.partition("=")
            opt = options.get(name)
            if opt is None:
                return None
            given.add(opt.dest)
            if opt.flag:
                if eq:
                    return None
                values[opt.dest] = True
                continue
            if not eq:
                text = next(it, None)
                if text is None or (text.startswith("-") and text != "-"):
                    return None
            convert = opt.kw.get("type")
            try:
                value = convert(text) if convert else text
            except Exception:  # noqa: BLE001 - argparse parses it again and says what is wrong
                return None
            if "choices" in opt.kw and value not in opt.kw["choices"]:
                return None
            if opt.kw.get("action") == "append":  # (a repeatable option: a list)
                value = (values[opt.dest] or []) + [value]
            values[opt.dest] = value
        else:
            loose.append(arg)
    if any(o.required and o.dest not in given for o in cmd.opts if not o.positional):
        return None
    for opt in (o for o in cmd.opts if o.positional):
        nargs = opt.kw.get("nargs")
        if nargs in ("+", "*"):
            if not loose and nargs == "+":
                return None
            values[opt.dest], loose = loose, []
        elif nargs == "?":
            if loose:
                values[opt.dest] = loose.pop(0)
        else:
            if not loose:
                return None
            values[opt.dest] = loose.pop(0)
    if loose:
        return None
    return Args(command=cmd.name, func=cmd.func, **values)

"""``binlog-schema``'s entry point: a plain command line is read by the fast scan, anything
else by the argparse parser of the command asked for (both from its declaration); the
command's run function gives the exit status."""

from __future__ import annotations

import sys

from ..output.statuses import CLEAN
from .fast import fast_args
from .registry import MODULES


def main(argv=None) -> int:
    import gc
    gc.freeze()  # what start-up made (modules, classes) is never garbage: not scanned again
    argv = sys.argv[1:] if argv is None else list(argv)
    args = fast_args(argv)
    if args is None:
        from .parser import build_parser
        only = argv[0] if argv and argv[0] in MODULES else None
        args = build_parser(only).parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:   # (the reader of the output left: what it read was whole)
        return CLEAN
    except KeyboardInterrupt:  # (Ctrl-C: the usual status, no traceback)
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""Write specs/binlog.ksy: the binlog file format as Kaitai Struct, exported from the
declarations (binlog_schema.output.kaitai). Running it again gives the same file.

    .venv/bin/python scripts/make_ksy.py [--check] [OUT]

--check: write nothing; exit 1 when OUT differs from what the declarations give.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from binlog_schema.output.kaitai import export  # noqa: E402

DEFAULT = ROOT / "specs" / "binlog.ksy"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", type=pathlib.Path, default=DEFAULT)
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    args = ap.parse_args(argv)
    text = export()
    if args.check:
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == text
        if not same:
            print(f"{args.out} is not what the declarations give: run scripts/make_ksy.py",
                  file=sys.stderr)
        return 0 if same else 1
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

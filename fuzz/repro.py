"""Run a fuzz target on saved inputs, in-process, without atheris.

    python fuzz/repro.py TARGET FILE...

Prints "ok" or the finding for each input (exit status 1 when any input finds something).
"""

import pathlib
import sys
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from fuzz import harness


def main():
    name, files = sys.argv[1], sys.argv[2:]
    target = harness.guarded(harness.TARGETS[name][0])
    harness.warm_up(name)  # compiled code, table maps: outside the per-input time limit
    bad = 0
    for f in files:
        try:
            target(pathlib.Path(f).read_bytes())
            print(f"{f}: ok")
        except Exception:  # noqa: BLE001
            bad += 1
            print(f"{f}: FINDING")
            traceback.print_exc()
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

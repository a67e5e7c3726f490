"""The Python daemon of the pipeline's executors (``spark.python.daemon.module``): pyspark's
own daemon, with pyspark imported from its installed package.

Spark puts ``$SPARK_HOME/python/lib/pyspark.zip`` first on the path of the Python it starts in
an executor. Modules imported from a zip are compiled from source every time (no bytecode is
kept for them): half a second before an executor's first Python task. When that zip is the
one of the pyspark package this Python has installed (the same files: a pip install), the
daemon takes pyspark from the package instead, with its cached bytecode; otherwise (Spark
installed apart, perhaps another version) the path is left as Spark set it.
"""

from __future__ import annotations

import os
import sys


def _same_install(path: list) -> list:
    """``path`` without the pyspark zip when it belongs to the pyspark package installed on
    the rest of the path."""
    zips = [p for p in path if os.path.basename(p) == "pyspark.zip"]
    if not zips:
        return path
    rest = [p for p in path if p not in zips]
    from importlib.machinery import PathFinder
    spec = PathFinder.find_spec("pyspark", rest)
    if spec is None or not spec.origin:
        return path
    own = os.path.realpath(os.path.join(os.path.dirname(spec.origin), "python", "lib",
                                        "pyspark.zip"))
    if any(os.path.realpath(z) != own for z in zips):
        return path
    return rest


def main() -> None:
    sys.path[:] = _same_install(sys.path)
    from pyspark.daemon import manager
    manager()


if __name__ == "__main__":
    main()

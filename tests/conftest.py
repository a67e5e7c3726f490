import os
import pathlib
import warnings

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = pathlib.Path(os.environ.get("BINLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(msg, module=False):
    """A tier that cannot run here: a failure in CI, else a loud skip (a warning too);
    ``module``: called at a test module's import (the whole module)."""
    if IN_CI:
        pytest.fail(msg, pytrace=False)
    warnings.warn(msg)
    pytest.skip(msg, allow_module_level=module)


def corpus_files():
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix not in (".md", ".txt"))


def corpus_file(name):
    """One corpus file by its path under the corpus (skipped, or failed in CI, when absent)."""
    p = CORPUS / name
    if not p.is_file():
        msg = f"{name} not in the corpus at {CORPUS} (set BINLOG_CORPUS)"
        if IN_CI:
            pytest.fail(msg)
        pytest.skip(msg)
    return p


@pytest.fixture(scope="session")
def corpus():
    files = corpus_files()
    if not files:
        msg = f"no binlog corpus at {CORPUS} (set BINLOG_CORPUS): corpus tier not run"
        if IN_CI:
            pytest.fail(msg)
        warnings.warn(msg)
        pytest.skip(msg)
    return files


# The tiers are directories: unit/ (no data but the package), vectors/ (specs/), corpus/ (the
# shared corpus), server/ (a private MariaDB), spark/ (PySpark). A test of corpus/, server/ or
# spark/ carries that tier's marker (`-m "not spark"` leaves the Spark tier out); a unit test
# that also reads the corpus says so with its own marker.
_TIER_MARKERS = ("corpus", "server", "spark")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        tier = pathlib.Path(str(item.fspath)).parent.name
        if tier in _TIER_MARKERS and item.get_closest_marker(tier) is None:
            item.add_marker(getattr(pytest.mark, tier))

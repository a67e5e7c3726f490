import os
import pathlib
import warnings

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = pathlib.Path(os.environ.get("BINLOG_CORPUS", ROOT.parent / "shared" / "corpus"))
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def corpus_files():
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix not in (".md", ".txt"))


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

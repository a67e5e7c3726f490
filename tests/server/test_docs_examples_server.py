"""Server tier of the docs examples (issue 27): every example tagged ``server`` in README.md
and docs/*.md runs (after its page's untagged examples) against a private MariaDB, which the
``mariadb`` and ``mariadb-binlog`` clients of the example reach through ``~/.my.cnf`` (HOME is
the example's folder), and prints what the page says; the rules are in
``tests/docs_examples.py``."""

from __future__ import annotations

import os

import pytest

from . import flashback_workload as fw
from .. import docs_examples as dx
from ..conftest import unavailable

pytestmark = pytest.mark.server


@pytest.fixture(scope="module")
def server():
    missing = [t for t in ("mariadbd", "mariadb", "mariadb-binlog") if not fw.tool(t)]
    if missing:
        unavailable(f"{', '.join(missing)} not installed: the server examples of the docs not run")
    try:
        srv = fw.Server(f"docs-{os.getpid()}")
    except RuntimeError as e:
        unavailable(f"the private MariaDB did not start: the server examples not run: {e}")
    try:
        yield srv
    finally:
        srv.destroy()


@pytest.mark.parametrize("page", dx.pages_with("server"), ids=lambda p: p.name)
def test_server_examples_print_what_the_page_says(page, tmp_path, server):
    (tmp_path / ".my.cnf").write_text(f"[client]\nsocket={server.socket}\nuser=root\n")
    bad = dx.run_page(page, "server", tmp_path)
    assert not bad, "\n\n".join(bad)

"""Spark tier of the docs examples (issue 27): every example tagged ``spark`` in README.md and
docs/*.md runs (after its page's untagged examples) and prints what the page says; the rules
are in ``tests/docs_examples.py``. Needs PySpark and Java 17+ (``scripts/setup.sh``)."""

from __future__ import annotations

import pytest

from .. import docs_examples as dx
from ..conftest import unavailable
from .pipeline_support import spark_missing

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("page", dx.pages_with("spark"), ids=lambda p: p.name)
def test_spark_examples_print_what_the_page_says(page, tmp_path):
    why = spark_missing()
    if why:
        unavailable(f"{why}: the Spark examples of the docs not run")
    bad = dx.run_page(page, "spark", tmp_path)
    assert not bad, "\n\n".join(bad)

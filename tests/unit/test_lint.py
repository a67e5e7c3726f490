"""The linter, as a house rule: ``ruff check`` over the tree finds nothing, with the rules of
``pyproject.toml``'s ``[tool.ruff]`` and the ruff pinned in its dev extra (scripts/setup.sh
installs it). A finding fails the test with ruff's ``file:line:col code message`` lines."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys

from ..conftest import ROOT, unavailable


def _ruff(*args, cwd=ROOT) -> subprocess.CompletedProcess:
    if importlib.util.find_spec("ruff") is None:
        unavailable("ruff is not installed in this environment (bash scripts/setup.sh installs "
                    "it): the lint was not run")
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=cwd, capture_output=True,
                          text=True)


def test_ruff_is_the_pinned_version():
    pin = re.search(r'"ruff==([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pin is not None, "pyproject.toml pins no ruff"
    r = _ruff("--version")
    assert r.stdout.split() == ["ruff", pin.group(1)], (r.stdout, r.stderr)


def test_the_tree_has_no_lint_finding():
    r = _ruff("check", "--no-cache", "--output-format", "concise", ".")
    assert r.returncode == 0, f"ruff check found (fix them, or see [tool.ruff] in " \
                              f"pyproject.toml):\n{r.stdout}{r.stderr}"


def test_the_rules_find_the_defects_they_are_chosen_for(tmp_path):
    """The configuration at work on a file holding one of each defect the rule set is chosen
    for: if a family is dropped from ``select``, this says which defect goes unseen."""
    planted = {
        "F821": "def f():\n    return undefined_name\n",
        "F841": "def g():\n    unused = 1\n",
        "F401": "import os\n",
        "E722": "def h():\n    try:\n        pass\n    except:\n        pass\n",
        "BLE001": "def i():\n    try:\n        pass\n    except Exception:\n        pass\n",
        "B006": "def j(x=[]):\n    return x\n",
        "B023": "def k():\n    fs = []\n    for n in range(3):\n"
                "        fs.append(lambda: n)\n    return fs\n",
        "E501": f"X = {'1' * 120}\n",
        "RUF100": "Y = 1  # noqa: E501\n",
    }
    for code, text in planted.items():
        (tmp_path / f"planted_{code.lower()}.py").write_text(text)
    r = _ruff("check", "--no-cache", "--config", str(ROOT / "pyproject.toml"),
              "--output-format", "concise", str(tmp_path), cwd=tmp_path)
    found = {(m.group(1), m.group(2).upper()) for m in
             re.finditer(r"planted_(\w+?)\.py:\d+:\d+: ([A-Z]+[0-9]+)", r.stdout)}
    missed = [c for c in planted if (c.lower(), c) not in found]
    assert r.returncode == 1 and not missed, (missed, r.stdout, r.stderr)

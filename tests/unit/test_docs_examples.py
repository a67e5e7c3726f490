"""Every example of README.md and docs/*.md runs and prints what the page says (issue 27).

The rules (which blocks run, how expected output is written, the elisions ``...`` and the
``(stderr)`` mark) are in ``tests/docs_examples.py``. This module runs the unit tier: every
untagged ``sh``/``bash``/``python`` example, page by page; checks the synopses against the
CLI's parser; and checks the rules themselves (a changed expected line fails)."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from binlog_schema.cli.parser import build_parser
from binlog_schema.cli.registry import MODULES

from .. import docs_examples as dx

UNIT_PAGES = [p for p in dx.PAGES if any(b.runs and b.tier is None for b in dx.blocks(p))]


def test_every_fence_is_known():
    bs = dx.all_blocks()
    assert dx.problems_of_fences(bs) == []
    assert sum(b.runs for b in bs) >= 20      # (the pages hold examples: the extractor sees them)


@pytest.mark.parametrize("page", UNIT_PAGES, ids=lambda p: p.name)
def test_examples_print_what_the_page_says(page, tmp_path):
    bad = dx.run_page(page, None, tmp_path)
    assert not bad, "\n\n".join(bad)


def _parses(argv):
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            build_parser(argv[0] if argv and argv[0] in MODULES else None).parse_args(argv)
    except SystemExit as e:
        return e.code == 0, err.getvalue()
    return True, ""


def test_synopses_parse():
    seen, bad = 0, []
    for b in dx.all_blocks():
        if "synopsis" not in b.tags:
            continue
        for argv in dx.synopsis_commands(b):
            seen += 1
            ok, why = _parses(argv)
            if not ok:
                bad.append(f"{b.where}: binlog-schema {' '.join(argv)}: {why.strip()}")
    assert seen >= 20
    assert not bad, "\n".join(bad)


def test_synopsis_scripts_exist():
    named = [(b.where, word) for b in dx.all_blocks() if "synopsis" in b.tags
             for line in b.text.split("\n") for word in line.split()[:1]
             if word.startswith("scripts/")]
    assert named                                   # (the set-up commands are named)
    assert [(w, word) for w, word in named if not (dx.ROOT / word).is_file()] == []


def test_a_synopsis_with_a_wrong_option_fails():
    ok, why = _parses(["decode", "--no-such-option", "FILE"])
    assert not ok and "--no-such-option" in why


def _block(text, lang="sh"):
    return dx.Block(dx.ROOT / "README.md", 1, lang, (), text)


def test_a_changed_expected_line_fails(tmp_path):
    env = dx.environment(tmp_path)
    good = _block("echo one; echo two >&2\n# one\n# two   (stderr)\n")
    assert dx.check(good, tmp_path, env) == []
    for wrong in ("echo one; echo two >&2\n# One\n# two   (stderr)\n",
                  "echo one; echo two >&2\n# one\n# tw0   (stderr)\n",
                  "echo one; echo two >&2\n# one\n",
                  "echo one; echo two >&2; false\n# one\n# two   (stderr)\n"):
        assert dx.check(_block(wrong), tmp_path, env) != [], wrong
    py = _block("print(1 + 1)\n# 2\n", "python")
    assert dx.check(py, tmp_path, env) == []
    assert dx.check(_block("print(1 + 2)\n# 2\n", "python"), tmp_path, env) != []


def test_elisions():
    assert dx.matches(["a...z"], "abcz\n")
    assert not dx.matches(["a...z"], "abc\nz\n")
    assert dx.matches(["first", "...", "last"], "first\n1\n2\nlast\n")
    assert dx.matches(["first", "...", "last"], "first\nlast\n")
    assert not dx.matches(["first", "...", "last"], "first\n1\n")
    assert dx.matches([], "")
    assert not dx.matches([], "x\n")


def test_fences_are_checked():
    bs = [dx.Block(dx.ROOT / "README.md", 1, "", (), ""),
          dx.Block(dx.ROOT / "README.md", 2, "sh", ("sprak",), ""),
          dx.Block(dx.ROOT / "README.md", 3, "text", ("spark",), "")]
    assert len(dx.problems_of_fences(bs)) == 3




def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_links_between_pages_resolve():
    """Every relative link of README.md and docs/ names a file that exists and, with
    ``#anchor``, a heading of that page (content moved between pages keeps its links)."""
    texts = {p: p.read_text() for p in dx.PAGES}
    anchors = {p: {_slug(h) for h in re.findall(r"^#+ (.*)$", t, re.M)} for p, t in texts.items()}
    bad = []
    for page, text in texts.items():
        for link in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", link):
                continue
            name, _, anchor = link.partition("#")
            target = (page.parent / name).resolve() if name else page
            if not target.exists():
                bad.append(f"{page.name}: {link}: no such file")
            elif anchor and target in anchors and anchor not in anchors[target]:
                bad.append(f"{page.name}: {link}: no such heading")
    assert bad == []

"""The examples of README.md and docs/*.md: found, run, and their printed output compared
(issue 27). The tier tests (``tests/unit/test_docs_examples.py``, ``tests/server/...``,
``tests/spark/...``) run them; this module holds the rules.

**Which blocks.** A fenced block's info string is ``LANG [TAG...]``.

- ``sh``, ``bash`` and ``python`` blocks are examples: they run. A ``sh``/``bash`` block runs
  through ``bash -e -o pipefail`` in a temporary working directory that holds ``specs`` (the
  checkout's, linked), with this checkout's ``binlog-schema`` first on PATH; a ``python``
  block runs in a fresh ``python -`` process there. The examples of one page share that
  directory and run in their order (a block may use the files an earlier one made).
- A tag names the tier that has what the block needs: ``server`` (a private MariaDB: the
  ``mariadb`` and ``mariadb-binlog`` clients reach it through ``~/.my.cnf``, HOME being the
  working directory) or ``spark`` (PySpark and Java). An untagged example runs in the unit
  tier; a tier's test runs its page's untagged examples before its own, in page order.
- ``synopsis``: the shape of commands, with placeholders (FILE, DIR, HOST): not run, but
  every ``binlog-schema ...`` command in it (pipes split, trailing comments dropped) must
  parse with the CLI's own parser, so a renamed option or command fails here too.
- Any other language (``text`` for output samples, formats and trees; ``yaml``...) is not an
  example and is skipped. A block with no language, or a tag not listed here, is an error.

**Expected output.** In an example, a line that starts with ``# `` (or is ``#`` alone: an
empty line) is a line of the output the block prints, in order; a comment after code on the
same line is only a comment. A line ending in ``(stderr)`` (after spaces) is a line of
standard error, the others of standard output; each stream is compared whole with its lines,
so a block that shows none of a stream must print nothing to it. Two elisions, nothing else:
``...`` inside a line stands for any text of that line (possibly none); a line that is ``...``
alone stands for any number of whole lines. The block must end with status 0 (show a
failure's status with ``|| echo "status $?"``). The port ``3307`` in a block is replaced by a
free port, so that two runs on one machine do not meet.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import pathlib
import re
import shlex
import signal
import socket
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
RUN_LANGS = {"sh", "bash", "python"}
TIERS = {"server", "spark"}
TAGS = TIERS | {"synopsis"}
FENCE = re.compile(r"^```(.*)$")
STDERR = re.compile(r"\s+\(stderr\)$")
TIMEOUT = 600      # a guard against a hung example, not a timing


@dataclasses.dataclass
class Block:
    page: pathlib.Path
    line: int           # of the opening fence, 1-based
    lang: str
    tags: tuple
    text: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def runs(self) -> bool:
        return self.lang in RUN_LANGS and "synopsis" not in self.tags

    @property
    def tier(self):
        tiers = TIERS.intersection(self.tags)
        return next(iter(tiers)) if tiers else None


def blocks(page: pathlib.Path) -> list:
    """Every fenced block of a page."""
    out, lines = [], page.read_text().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        words = m.group(1).split()
        start, i = i, i + 1
        body = []
        while i < len(lines) and lines[i].rstrip() != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise AssertionError(f"{page.name}:{start + 1}: a fence never closed")
        i += 1
        out.append(Block(page, start + 1, words[0] if words else "", tuple(words[1:]),
                         "\n".join(body) + "\n"))
    return out


def all_blocks() -> list:
    return [b for page in PAGES for b in blocks(page)]


def problems_of_fences(bs) -> list:
    """Blocks the extractor would not know what to do with: no language, an unknown tag."""
    bad = []
    for b in bs:
        if not b.lang:
            bad.append(f"{b.where}: a block with no language (an output sample is ```text)")
        for t in b.tags:
            if t not in TAGS:
                bad.append(f"{b.where}: unknown tag {t!r} (known: {sorted(TAGS)})")
        if b.tags and b.lang not in RUN_LANGS:
            bad.append(f"{b.where}: tags on a {b.lang!r} block, which never runs")
    return bad


def expected(text: str):
    """(stdout lines, stderr lines) the block says it prints."""
    out, err = [], []
    for line in text.split("\n"):
        if line == "#" or line.startswith("# "):
            shown = line[2:]
            m = STDERR.search(shown)
            (err if m else out).append(shown[:m.start()] if m else shown)
    return out, err


def _pattern(lines) -> str:
    parts = []
    for line in lines:
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r"[^\n]*".join(re.escape(p) for p in line.split("...")) + r"\n")
    return "".join(parts)


def matches(lines, actual: str) -> bool:
    """Whether ``actual`` (a stream's whole text) is ``lines``, with the two elisions."""
    if actual and not actual.endswith("\n"):
        actual += "\n"
    return re.fullmatch(_pattern(lines), actual) is not None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def workdir(path: pathlib.Path) -> pathlib.Path:
    """A page's working directory: ``specs`` as in the checkout."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "specs").symlink_to(ROOT / "specs")
    return path


def environment(cwd: pathlib.Path, extra=None) -> dict:
    env = dict(os.environ)
    bin_dir = str(pathlib.Path(sys.executable).parent)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env.setdefault("BINLOG_SCHEMA_CACHE", str(pathlib.Path.home() / ".cache" / "binlog-schema"))
    env["HOME"] = str(cwd)
    env["TZ"] = "UTC"
    env["COLUMNS"] = "100"
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(extra or {})
    return env


def run(block: Block, cwd: pathlib.Path, env: dict, text: str):
    """Run one example (``text``: the block's, its port replaced): (status, stdout, stderr).
    Its process group is ended after it (a server it started in the background included)."""
    if block.lang == "python":
        argv, stdin = [sys.executable, "-"], text
    else:
        argv, stdin = ["bash", "-e", "-o", "pipefail", "-c", text], None
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(stdin, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        out, err = "", f"timed out after {TIMEOUT} s"
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    return p.returncode, out, err


def check(block: Block, cwd: pathlib.Path, env: dict) -> list:
    """What is wrong with one example's run (empty: it printed what the page says)."""
    text = re.sub(r"\b3307\b", str(free_port()), block.text)
    status, out, err = run(block, cwd, env, text)
    want_out, want_err = expected(text)
    bad = []
    if status != 0:
        bad.append(f"{block.where}: ended with status {status}\n{err}")
    for name, want, got in (("stdout", want_out, out), ("stderr", want_err, err)):
        if not matches(want, got):
            diff = "\n".join(difflib.unified_diff(want, got.splitlines(), "the page says",
                                                  f"the example printed ({name})",
                                                  lineterm=""))
            bad.append(f"{block.where}: {name} differs from the page:\n{diff}")
    return bad


def run_page(page: pathlib.Path, tier, cwd: pathlib.Path, env_extra=None) -> list:
    """Run a page's examples of ``tier`` (None: the unit tier), with the untagged ones before
    them; what is wrong, for every example."""
    cwd = workdir(cwd)
    env = environment(cwd, env_extra)
    bad = []
    for b in blocks(page):
        if b.runs and b.tier in (None, tier):
            bad += check(b, cwd, env)
    return bad


def pages_with(tier) -> list:
    return [p for p in PAGES if any(b.runs and b.tier == tier for b in blocks(p))]


def synopsis_commands(block: Block) -> list:
    """The ``binlog-schema`` command lines of a synopsis block, as argument lists."""
    out = []
    for line in block.text.replace("\\\n", " ").split("\n"):
        try:
            words = shlex.split(line, comments=True)
        except ValueError as e:
            raise AssertionError(f"{block.where}: {line!r}: {e}") from None
        while "binlog-schema" in words:
            words = words[words.index("binlog-schema") + 1:]
            cut = words.index("|") if "|" in words else len(words)
            out.append(words[:cut])
            words = words[cut:]
    return out

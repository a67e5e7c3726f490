"""The one exit-status table: every command (``decode`` in every format, ``table-maps``,
``roundtrip``, ``sql``, ``flashback``, ``stream``, ``serve``, ``fixtures``, ``validate``,
``build-table-map`` and every ``spark`` command) ends with one of these, and the Python API
raises (or hands an error record the caller cannot miss) where a command would end with 1 or
3. The help of every command and the documentation's table are made from :data:`TABLE`.

Imports nothing of the package: every layer may read it.
"""

from __future__ import annotations

CLEAN = 0     # everything read, decoded and written
STOPPED = 1   # an input unusable, or a result withheld (nothing partial was written)
USAGE = 2     # the command line is wrong
DAMAGED = 3   # something skipped, refused or left undecoded, each reported on stderr

TABLE = (
    (CLEAN, "clean: every input read, every event and row change decoded and written"),
    (STOPPED, "an input could not be used (missing, a directory, empty, not a binlog, cut "
              "short without --skip-errors, a position past its end, no input at all), or a "
              "result was withheld (a script or file that would be partial is not written): "
              "said on stderr with file, offset and reason"),
    (USAGE, "the command line is wrong: said with the usage"),
    (DAMAGED, "something was skipped, refused or left undecoded, and each was reported on "
              "stderr (file, offset, reason): damage gone round with --skip-errors, a row "
              "change that cannot be decoded (always), a table map that disagrees with the "
              "schema history, a schema change the history refuses"),
)

MEANING = dict(TABLE)


def worst(a: int, b: int) -> int:
    """The status of two parts of one run: 1 (an input unusable, a result withheld) over 3
    (something skipped or undecoded, reported) over 0; 2 never comes here (usage errors end
    the run before any work)."""
    return STOPPED if STOPPED in (a, b) else max(a, b)


def epilog(note: str = "", width: int | None = None) -> str:
    """The statuses as one paragraph, for a command's ``--help``; ``note``: what is particular
    to the command (a short sentence, after the table's); ``width``: wrapped to it (for a
    help formatter that keeps the text's lines)."""
    text = "exit status: " + "; ".join(f"{code} {text}" for code, text in TABLE) + "."
    if note:
        text += " " + note
    if width:
        import textwrap
        text = textwrap.fill(text, width)
    return text


def markdown() -> str:
    """The statuses as a Markdown table (the documentation's, checked by a test)."""
    rows = ["| status | meaning |", "| --- | --- |"]
    rows += [f"| {code} | {text} |" for code, text in TABLE]
    return "\n".join(rows)

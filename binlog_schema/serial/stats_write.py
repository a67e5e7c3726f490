"""``binlog-schema stats``: the figures of the files (:mod:`.stats_read`) written as a
terminal table (:mod:`.stats_text`), JSON, and an HTML page of charts (:mod:`.stats_html`)."""

from __future__ import annotations

import json
import os
import sys

from ..statuses import STOPPED, worst
from .stats_text import stats_lines


def write_json(d: dict, out) -> None:
    out.write(json.dumps(d, ensure_ascii=False, indent=1) + "\n")


def write_stats(paths, *, fmt: str = "table", html=None, top: int = 10,
                max_event_size: int = 16 << 20, matcher=None, schema=None, progress=None,
                out=None, err=None) -> int:
    """Count ``paths`` and write the figures to ``out`` (stdout) as ``fmt`` (``table`` or
    ``json``), and, with ``html``, the report page to that path (written whole: made beside
    it, then moved in place). The status: :func:`.stats_read.read_stats`'s; 1 when the page
    cannot be written."""
    from .stats_read import read_stats
    out = out or sys.stdout
    err = err or sys.stderr
    stats, status = read_stats(paths, top=top, max_event_size=max_event_size,
                               matcher=matcher, schema=schema, progress=progress, err=err)
    if progress is not None:
        progress.close()
    d = stats.to_dict()
    if fmt == "json":
        write_json(d, out)
    else:
        out.write("\n".join(stats_lines(d, top)) + "\n")
    out.flush()
    if html is not None:
        from .stats_html import ChartLibraryMissing, html_page
        try:
            page = html_page(d)
        except ChartLibraryMissing as e:
            err.write(f"--html {html}: {e}\n")
            return worst(status, STOPPED)
        try:
            write_whole(html, page)
        except OSError as e:
            from .write import os_problem
            err.write(f"--html {html}: {os_problem(e)}\n")
            return worst(status, STOPPED)
        err.write(f"wrote the report {html} ({os.path.getsize(html)} bytes)\n")
    return status


def write_whole(path, text: str) -> None:
    """``text`` written to ``path`` whole or not at all (a temporary file beside it, renamed
    over it once complete)."""
    import tempfile
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".binlog-schema-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)   # (as a file opened for writing would be)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


__all__ = ["write_stats", "write_whole", "write_json"]

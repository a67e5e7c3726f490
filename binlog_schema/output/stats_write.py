"""``binlog-schema stats``: the figures of the files (:mod:`.stats_read`) written as a
terminal table (:mod:`.stats_text`), JSON, and an HTML page of charts (:mod:`.stats_html`)."""

from __future__ import annotations

import json
import os
import sys

from .statuses import CLEAN, STOPPED, worst
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
    library = None
    if html is not None:   # (before any counting: a page that cannot be made is said at once)
        library = chart_library(html, err)
        if library is None:
            return STOPPED
    stats, status = read_stats(paths, top=top, max_event_size=max_event_size,
                               matcher=matcher, schema=schema, progress=progress, err=err)
    if progress is not None:
        progress.close()
    return worst(status, write_figures(stats.to_dict(), fmt=fmt, top=top, html=html,
                                       library=library, out=out, err=err))


def write_figures(d: dict, *, fmt: str = "table", top: int = 10, html=None, library=None,
                  out=None, err=None) -> int:
    """The figures ``d`` (:meth:`~..model.stats.Stats.to_dict`) written to ``out`` as
    ``fmt``, and, with ``html``, the page (``library``: :func:`chart_library`'s code) by
    :func:`write_report`: its status."""
    out = out or sys.stdout
    err = err or sys.stderr
    if fmt == "json":
        write_json(d, out)
    else:
        out.write("\n".join(stats_lines(d, top)) + "\n")
    out.flush()
    if html is None:
        return CLEAN
    return write_report(html, d, library, err)


def chart_library(html, err):
    """The charting library's code for the page ``--html html`` asks for; None, said on
    ``err``, when it is not installed (the command then stops before reading: status 1, no
    figures, no page)."""
    from .stats_html import ChartLibraryMissing, chartjs
    try:
        return chartjs()
    except ChartLibraryMissing as e:
        err.write(f"--html {html}: {e}; nothing was counted\n")
        err.flush()
        return None


def write_report(html, d: dict, library: str, err) -> int:
    """The report page of the figures ``d`` written to ``html`` whole (status 0), or not at
    all (said on ``err``: status 1)."""
    from .stats_html import html_page
    try:
        write_whole(html, html_page(d, library))
    except OSError as e:
        from .write import os_problem
        err.write(f"--html {html}: {os_problem(e)}\n")
        return STOPPED
    err.write(f"wrote the report {html} ({os.path.getsize(html)} bytes)\n")
    return CLEAN


def write_whole(path, data) -> None:
    """``data`` (text, written as UTF-8, or bytes) written to ``path`` whole or not at all (a
    temporary file beside it, renamed over it once complete)."""
    import tempfile
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".binlog-schema-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode("utf-8") if isinstance(data, str) else data)
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


__all__ = ["chart_library", "write_figures", "write_json", "write_report", "write_stats",
           "write_whole"]

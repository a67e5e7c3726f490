"""The report page of ``stats --html`` in headless Chromium (Debian's package, driven
through the DevTools protocol: tests/chromium.py): no console error, nothing asked of the
network, every chart drawn (its screenshot region is not blank), and every number it shows,
in its tables and in its charts' data, equal to ``stats --format json``'s."""

import json
import subprocess
import sys

import pytest

from tests.conftest import unavailable
from tests.chromium import Browser, chromium_binary, png_pixels


def _lookup(d, key):
    for part in key.split("."):
        if part == "length":
            return len(d)
        d = d[int(part)] if isinstance(d, list) else d[part]
    return d


@pytest.fixture(scope="module")
def browser():
    from binlog_schema.output.stats_html import chartjs_path
    if chromium_binary() is None:
        unavailable("no chromium (Debian's package: scripts/install_chromium.sh installs it): "
                    "the report page is not checked")
    if not chartjs_path().is_file():
        unavailable(f"no Chart.js at {chartjs_path()} (scripts/setup.sh installs it): the "
                    "report page is not checked")
    try:
        import websocket  # noqa: F401
    except ImportError:
        unavailable("no websocket-client (the dev extra): the report page is not checked")
    b = Browser()
    yield b
    b.close()


def test_the_report_draws_every_chart_and_shows_the_json_numbers(corpus, tmp_path, browser):
    files = sorted(corpus, key=lambda p: -p.stat().st_size)[:12]
    page = tmp_path / "report.html"
    r = subprocess.run([sys.executable, "-m", "binlog_schema", "stats", "--format", "json",
                        "--html", str(page), *map(str, files)], capture_output=True, text=True)
    assert r.returncode in (0, 3), r.stderr
    d = json.loads(r.stdout)
    assert d["changes"]["total"] > 100 and len(d["tables"]) > 5
    browser.call("Network.enable")
    browser.open(page.as_uri())
    assert browser.evaluate("document.body.dataset.drawn") == "yes"
    assert browser.errors() == []
    assert all(u.startswith(("file:", "data:")) for u in browser.requests()), \
        browser.requests()
    # the numbers of its tables and cards
    keyed = browser.evaluate("[...document.querySelectorAll('[data-key]')].map("
                             "e => [e.dataset.key, JSON.parse(e.dataset.value)])")
    assert len(keyed) > 50
    for key, value in keyed:
        assert _lookup(d, key) == value, key
    # the numbers of its charts
    data = browser.evaluate("Object.fromEntries([...document.querySelectorAll('canvas')].map("
                            "c => [c.id, Chart.getChart(c).data.datasets.map(s => s.data)]))")
    top = d["tables"][:15]
    assert data["chart-tables"] == [[t[k] for t in top] for k in ("inserts", "updates",
                                                                   "deletes")]
    t = d["transactions"]
    assert data["chart-sizes"] == [[b["transactions"] for b in t["size_histogram"]]]
    assert data["chart-durations"] == [[b["transactions"] for b in t["duration_histogram"]]]
    assert data["chart-largest"] == [[x["bytes"] for x in t["largest"]]]
    assert data["chart-longest"] == [[x["duration"] for x in t["longest"]]]
    assert sum(sum(s) for s in data["chart-writes"]) == d["changes"]["total"]
    # every chart drawn: its region of a screenshot is not blank
    rects = browser.evaluate("[...document.querySelectorAll('canvas')].map(c => {"
                             "const r = c.getBoundingClientRect(); return [c.id, "
                             "r.left + scrollX, r.top + scrollY, r.width, r.height]})")
    assert len(rects) == 6
    for cid, x, y, w, h in rects:
        assert w > 100 and h > 100, cid
        width, height, rows = png_pixels(browser.screenshot(x, y, w, h))
        pixels = [p for row in rows for p in row]
        colors = set(pixels)
        ink = sum(1 for p in pixels if p != (255, 255, 255)) / len(pixels)
        assert len(colors) > 8 and ink > 0.02, (cid, len(colors), ink)

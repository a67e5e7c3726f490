"""``stats --html`` when its charting library is not installed: said at once, naming what is
missing and how to get it; status 1; no figures, no page, nothing left beside it (an older
page at that path untouched)."""

import os
import subprocess
import sys

from binlog_schema.output.statuses import CLEAN, STOPPED

from tests.conftest import ROOT


def test_html_without_chartjs_says_what_is_missing_and_writes_nothing(tmp_path):
    demo = tmp_path / "demo.000001"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "make_demo_binlog.py"), str(demo)],
                   check=True, capture_output=True)
    page = tmp_path / "out" / "report.html"
    page.parent.mkdir()
    missing = tmp_path / "nowhere" / "chart.umd.min.js"
    env = dict(os.environ, BINLOG_SCHEMA_CHARTJS=str(missing))
    r = subprocess.run([sys.executable, "-m", "binlog_schema", "stats", "--html", str(page),
                        str(demo)], capture_output=True, text=True, env=env)
    assert r.returncode == STOPPED, r.stderr
    assert r.stdout == ""
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"--html {page}: ")
    assert "Chart.js" in lines[0] and str(missing) in lines[0] and "scripts/setup.sh" in lines[0]
    assert os.listdir(page.parent) == []
    # an older page at that path is left as it was
    page.write_text("older")
    r = subprocess.run([sys.executable, "-m", "binlog_schema", "stats", "--format", "json",
                        "--html", str(page), str(demo)], capture_output=True, text=True,
                       env=env)
    assert r.returncode == STOPPED and r.stdout == ""
    assert page.read_text() == "older" and os.listdir(page.parent) == ["report.html"]
    # (without --html: the figures)
    r = subprocess.run([sys.executable, "-m", "binlog_schema", "stats", "--format", "json",
                        str(demo)], capture_output=True, text=True)
    assert r.returncode == CLEAN and r.stdout.startswith("{")

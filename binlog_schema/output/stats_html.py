"""The report page of ``binlog-schema stats --html``: one self-contained HTML file, the
figures' JSON (:meth:`~..model.stats.Stats.to_dict`) inside it and charts drawn from it by
Chart.js, whose JavaScript is inlined (nothing is loaded from the network).

Chart.js (MIT; npm ``chart.js``, pinned by ``scripts/setup.sh``, which installs it under
``.work/node``; ``$BINLOG_SCHEMA_CHARTJS`` names another copy of its ``chart.umd.min.js``):
about 200 KB, canvas charts of every kind the report needs (lines over time, bars, stacked
bars) with no other library, drawn in a few milliseconds for thousands of points; chosen over
uPlot (smaller, but time series only: bars and categories by hand), ECharts (about 1 MB) and
Vega-Lite (a runtime and a compiler: about 800 KB, and slower to draw).

Every number the page shows is in an element with a ``data-key`` attribute naming where it
is in the JSON (``changes.total``, ``tables.0.changes``...), which the test of the page
checks against ``--format json``."""

from __future__ import annotations

import html
import json
import os
import pathlib

CHARTJS_VERSION = "4.5.1"


class ChartLibraryMissing(Exception):
    """Chart.js is not where the page generator looks for it (said how to get it)."""


def chartjs_path() -> pathlib.Path:
    """Where Chart.js's ``chart.umd.min.js`` is: ``$BINLOG_SCHEMA_CHARTJS``, else the copy
    ``scripts/setup.sh`` installs in the source tree."""
    env = os.environ.get("BINLOG_SCHEMA_CHARTJS")
    if env:
        return pathlib.Path(env)
    root = pathlib.Path(__file__).resolve().parent.parent.parent
    return root / ".work" / "node" / "node_modules" / "chart.js" / "dist" / "chart.umd.min.js"


def chartjs() -> str:
    """Chart.js's code, to inline (its source-map comment dropped: nothing to fetch)."""
    path = chartjs_path()
    try:
        code = path.read_text(encoding="utf-8")
    except OSError:
        raise ChartLibraryMissing(
            f"the charting library Chart.js is not at {path}: run scripts/setup.sh (it "
            f"installs chart.js@{CHARTJS_VERSION} from npm), or set BINLOG_SCHEMA_CHARTJS to "
            "a chart.umd.min.js") from None
    lines = [line for line in code.splitlines() if not line.startswith("//# sourceMappingURL")]
    return "\n".join(lines).replace("</script", "<\\/script")


def _script_json(d) -> str:
    return json.dumps(d, ensure_ascii=False).replace("</", "<\\/")


def html_page(d: dict, library: str | None = None) -> str:
    """The page of the figures ``d`` (``library``: :func:`chartjs`'s code, read here when not
    given)."""
    title = "binlog-schema stats"
    files = d["files"]
    if len(files) == 1:
        title += ": " + os.path.basename(files[0]["file"])
    elif files:
        title += f": {len(files)} files"
    return (_PAGE.replace("@TITLE@", html.escape(title))
            .replace("@CHARTJS@", chartjs() if library is None else library)
            .replace("@DATA@", _script_json(d))
            .replace("@APP@", _APP))


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@TITLE@</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 1180px;
       color: #1d2330; padding: 0 1em; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 1.8em; }
.cards { display: flex; flex-wrap: wrap; gap: .8em; }
.card { border: 1px solid #d7dce5; border-radius: 6px; padding: .5em .9em; min-width: 9em; }
.card b { display: block; font-size: 1.3em; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 1.2em; }
.chart { border: 1px solid #d7dce5; border-radius: 6px; padding: .6em; background: #fff; }
.chart h3 { margin: 0 0 .4em 0; font-size: 1em; }
.chart .box { position: relative; height: 300px; }
table { border-collapse: collapse; margin-top: .4em; }
td, th { padding: .15em .7em; border-bottom: 1px solid #eceff4; text-align: right; }
td:first-child, th:first-child { text-align: left; }
.problems { color: #9b1c1c; }
</style>
</head>
<body>
<h1>@TITLE@</h1>
<div class="cards" id="cards"></div>
<div class="grid">
  <div class="chart"><h3>Row changes per minute, by table</h3>
    <div class="box"><canvas id="chart-writes"></canvas></div></div>
  <div class="chart"><h3>Top tables by row changes</h3>
    <div class="box"><canvas id="chart-tables"></canvas></div></div>
  <div class="chart"><h3>Transaction sizes (bytes)</h3>
    <div class="box"><canvas id="chart-sizes"></canvas></div></div>
  <div class="chart"><h3>Transaction durations (seconds, first event to commit)</h3>
    <div class="box"><canvas id="chart-durations"></canvas></div></div>
  <div class="chart"><h3>Largest transactions</h3>
    <div class="box"><canvas id="chart-largest"></canvas></div></div>
  <div class="chart"><h3>Longest transactions</h3>
    <div class="box"><canvas id="chart-longest"></canvas></div></div>
</div>
<h2>Tables</h2><table id="tables"></table>
<h2>Largest transactions</h2><table id="largest"></table>
<h2>Longest transactions</h2><table id="longest"></table>
<h2>Events by type</h2><table id="types"></table>
<h2>GTIDs</h2><table id="gtids"></table>
<h2>Files</h2><table id="files"></table>
<h2>Events over the size limit</h2><table id="large"></table>
<div id="problems" class="problems"></div>
<script id="stats-data" type="application/json">@DATA@</script>
<script>@CHARTJS@</script>
<script>@APP@</script>
</body>
</html>
"""

_APP = r"""
"use strict";
const D = JSON.parse(document.getElementById("stats-data").textContent);
const fmt = n => n === null || n === undefined ? "-" : Number(n).toLocaleString("en-US");
const when = t => t === null || t === undefined ? "-" :
  new Date(t * 1000).toISOString().replace("T", " ").slice(0, 19);
const size = n => {
  if (n === null || n === undefined) return "-";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"]; let u = 0; let v = n;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return u ? v.toFixed(1) + " " + units[u] : v + " B";
};
function cell(tag, text, key, value) {
  const c = document.createElement(tag); c.textContent = text;
  if (key !== undefined) { c.dataset.key = key; c.dataset.value = JSON.stringify(value); }
  return c;
}
function table(id, head, rows) {
  const t = document.getElementById(id); const h = t.insertRow();
  head.forEach(x => h.appendChild(cell("th", x)));
  rows.forEach(r => { const tr = t.insertRow(); r.forEach(c => tr.appendChild(
    c.length === 3 ? cell("td", c[0], c[1], c[2]) : cell("td", c[0]))); });
}
const num = (key, v) => [fmt(v), key, v];
// the summary cards
const cards = document.getElementById("cards");
[["files", "files.length", D.files.length], ["events", "events.count", D.events.count],
 ["row changes", "changes.total", D.changes.total],
 ["inserts", "changes.inserts", D.changes.inserts],
 ["updates", "changes.updates", D.changes.updates],
 ["deletes", "changes.deletes", D.changes.deletes],
 ["transactions", "transactions.count", D.transactions.count],
 ["bytes", "events.bytes", D.events.bytes]].forEach(([name, key, v]) => {
  const c = document.createElement("div"); c.className = "card";
  c.appendChild(cell("b", fmt(v), key, v)); c.appendChild(document.createTextNode(name));
  cards.appendChild(c);
});
const span = document.createElement("div"); span.className = "card";
span.textContent = "from " + when(D.span.first_timestamp) + " to " +
  when(D.span.last_timestamp) + " UTC"; cards.appendChild(span);
// the tables
table("tables", ["table", "changes", "inserts", "updates", "deletes", "rows events", "bytes"],
  D.tables.map((t, i) => [[t.database + "." + t.table], num(`tables.${i}.changes`, t.changes),
    num(`tables.${i}.inserts`, t.inserts), num(`tables.${i}.updates`, t.updates),
    num(`tables.${i}.deletes`, t.deletes), num(`tables.${i}.rows_events`, t.rows_events),
    [size(t.bytes), `tables.${i}.bytes`, t.bytes]]));
const txRows = (list, name) => list.map((x, i) => [[x.id],
  [size(x.bytes), `transactions.${name}.${i}.bytes`, x.bytes],
  num(`transactions.${name}.${i}.changes`, x.changes), [x.tables.join(", ")],
  [x.duration === null ? "-" : x.duration + " s", `transactions.${name}.${i}.duration`,
   x.duration], [when(x.timestamp)]]);
const txHead = ["transaction", "bytes", "changes", "tables", "duration", "began (UTC)"];
table("largest", txHead, txRows(D.transactions.largest, "largest"));
table("longest", txHead, txRows(D.transactions.longest, "longest"));
table("types", ["type", "events", "bytes"], D.event_types.map((t, i) => [[t.type],
  num(`event_types.${i}.events`, t.events), [size(t.bytes), `event_types.${i}.bytes`, t.bytes]]));
table("gtids", ["source", "transactions", "ranges"], D.gtids.map((g, i) => [[g.source],
  num(`gtids.${i}.transactions`, g.transactions), [g.text]]));
table("files", ["file", "size", "events", "first event (UTC)", "last event (UTC)"],
  D.files.map((f, i) => [[f.file], [size(f.size), `files.${i}.size`, f.size],
    num(`files.${i}.events`, f.events), [when(f.first_timestamp)], [when(f.last_timestamp)]]));
table("large", ["file", "offset", "type", "size"], D.large_events.events.map((e, i) => [
  [e.file], num(`large_events.events.${i}.offset`, e.offset), [e.type],
  [size(e.size), `large_events.events.${i}.size`, e.size]]));
if (D.skipped.length || D.undecodable.length) {
  const p = document.getElementById("problems");
  p.innerHTML = "<h2>Not read</h2>";
  D.skipped.forEach(s => { const d = document.createElement("div");
    d.textContent = `${s.file}: bytes ${s.start} to ${s.end} skipped: ${s.reason}`; p.appendChild(d); });
  D.undecodable.forEach(u => { const d = document.createElement("div");
    d.textContent = `${u.file}: ${u.type} at ${u.offset}: ${u.reason}`; p.appendChild(d); });
}
// the charts
Chart.defaults.animation = false;
Chart.defaults.maintainAspectRatio = false;
const COLORS = ["#3b6fd8", "#e0793b", "#3aa76d", "#c8433c", "#8a5cc9", "#b58a2e", "#2fa2b5",
                "#d16aa5", "#7c8797"];
function chart(id, config) { return new Chart(document.getElementById(id), config); }
// row changes per minute, by table: the busiest tables, the others together
(function () {
  const minutes = D.per_minute;
  const totals = {};
  minutes.forEach(m => Object.entries(m.tables).forEach(([t, n]) => totals[t] = (totals[t] || 0) + n));
  const top = Object.keys(totals).sort((a, b) => totals[b] - totals[a] || (a < b ? -1 : 1)).slice(0, 8);
  const others = Object.keys(totals).length > top.length;
  // every minute of the span (a minute without changes is 0), at most 2000 points: wider steps
  let first = minutes.length ? minutes[0].minute : 0;
  let last = minutes.length ? minutes[minutes.length - 1].minute : 0;
  let step = 60; while ((last - first) / step > 2000) step *= 2;
  const n = Math.floor((last - first) / step) + 1;
  const at = minutes.length ? i => first + i * step : i => 0;
  const series = top.map(() => new Array(minutes.length ? n : 0).fill(0));
  const rest = new Array(minutes.length ? n : 0).fill(0);
  minutes.forEach(m => { const i = Math.floor((m.minute - first) / step);
    Object.entries(m.tables).forEach(([t, c]) => { const k = top.indexOf(t);
      if (k >= 0) series[k][i] += c; else rest[i] += c; }); });
  const labels = Array.from({length: series.length ? series[0].length : 0},
    (_, i) => when(at(i)).slice(0, 16));
  const sets = top.map((t, k) => ({label: t, data: series[k], borderColor: COLORS[k],
    backgroundColor: COLORS[k], pointRadius: labels.length > 60 ? 0 : 2, borderWidth: 1.5}));
  if (others) sets.push({label: "other tables", data: rest, borderColor: COLORS[8],
    backgroundColor: COLORS[8], pointRadius: labels.length > 60 ? 0 : 2, borderWidth: 1.5});
  chart("chart-writes", {type: labels.length > 1 ? "line" : "bar",
    data: {labels, datasets: sets},
    options: {scales: {y: {beginAtZero: true, title: {display: true,
      text: step === 60 ? "changes per minute" : `changes per ${step / 60} minutes`}}},
      plugins: {legend: {position: "bottom"}}}});
})();
(function () {
  const t = D.tables.slice(0, 15);
  chart("chart-tables", {type: "bar", data: {labels: t.map(x => x.database + "." + x.table),
    datasets: [["inserts", COLORS[2]], ["updates", COLORS[0]], ["deletes", COLORS[3]]].map(
      ([k, c]) => ({label: k, data: t.map(x => x[k]), backgroundColor: c}))},
    options: {indexAxis: "y", scales: {x: {stacked: true}, y: {stacked: true}},
      plugins: {legend: {position: "bottom"}}}});
})();
function histogram(id, buckets, unit) {
  const label = b => b.min === b.max ? `${unit(b.min)}` : `${unit(b.min)}-${unit(b.max)}`;
  chart(id, {type: "bar", data: {labels: buckets.map(label), datasets: [{
    label: "transactions", data: buckets.map(b => b.transactions), backgroundColor: COLORS[0]}]},
    options: {scales: {y: {beginAtZero: true}}, plugins: {legend: {display: false}}}});
}
histogram("chart-sizes", D.transactions.size_histogram, size);
histogram("chart-durations", D.transactions.duration_histogram, s => s + " s");
function topChart(id, list, key, label, color) {
  chart(id, {type: "bar", data: {labels: list.map(x => x.id), datasets: [{label,
    data: list.map(x => x[key]), backgroundColor: color}]},
    options: {indexAxis: "y", plugins: {legend: {display: false}}}});
}
topChart("chart-largest", D.transactions.largest, "bytes", "bytes", COLORS[1]);
topChart("chart-longest", D.transactions.longest, "duration", "seconds", COLORS[4]);
document.body.dataset.drawn = "yes";
"""  # noqa: E501 - the page's script, as the page holds it

__all__ = ["CHARTJS_VERSION", "ChartLibraryMissing", "chartjs_path", "html_page"]

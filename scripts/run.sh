#!/usr/bin/env bash
# The main job on an embedded default: set up, validate the golden vectors both ways, build a
# demo binlog from the declarations (a shop: inserts, updates and deletes of several column
# types), decode it, print its rows, its SQL and its figures (stats), write the HTML report and
# say where; then the Spark pipeline on local[*] (synthetic binlogs written in parallel and
# decoded, with the demo binlog, into typed tables). `run.sh FILE...` does the same on your
# own binlogs. Each step says what it does before it starts.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\n== %s\n' "$*"; }
say "setting up .venv (scripts/setup.sh: the package, Java for Spark, Chart.js for reports)"
bash scripts/setup.sh
B=.venv/bin/binlog-schema
say "validating the golden vectors of specs/ both ways"
$B validate specs | tail -n 1
mkdir -p .work
if [[ $# -eq 0 ]]; then
    say "building a demo binlog from the declarations: .work/demo.binlog"
    .venv/bin/python scripts/make_demo_binlog.py .work/demo.binlog
    set -- .work/demo.binlog
    demo=1
fi
say "decoding $* to JSON Lines: .work/decoded.jsonl"
status=0
$B decode "$@" > .work/decoded.jsonl || status=$?
$B roundtrip "$@" | tail -n 1 || status=$?
echo "decoded $(wc -l < .work/decoded.jsonl) events; the first lines:"
head -n 3 .work/decoded.jsonl | cut -c1-200
say "the row changes (decode --format maxwell), the first ones"
$B decode --format maxwell "$@" 2>/dev/null | head -n 5 | cut -c1-200 || true
say "the same changes as SQL (binlog-schema sql), the first lines"
$B sql "$@" 2>/dev/null | head -n 12 | cut -c1-160 || true
say "what the files hold (binlog-schema stats), and the HTML report"
$B stats --html .work/report.html "$@" || status=$?
echo
echo "report: $(pwd)/.work/report.html (open it in a browser: one self-contained file)"
if [[ ${demo:-0} == 1 ]]; then
    say "one row's history: binlog-schema decode --format maxwell --where id=1002 --table shop.orders"
    $B decode --format maxwell --where id=1002 --table shop.orders "$@" | cut -c1-200
fi

if [[ ! -s .venv/java-home ]]; then
    echo "run.sh: no Java 17+, so the Spark pipeline is not run (scripts/setup.sh says why)" >&2
    exit $status
fi
export JAVA_HOME=$(cat .venv/java-home)
mkdir -p .work/spark
say "the Spark pipeline (local[*]): starting Spark takes a while"
if [[ ${demo:-0} == 1 ]]; then
    echo "writing 9 synthetic binlogs in parallel (binlog-schema spark fixtures)"
    rm -rf .work/spark/binlogs
    $B spark fixtures --out .work/spark/binlogs --files 9 \
        --transactions 100 --seed 1 2>/dev/null
    set -- .work/spark/binlogs "$@"
fi
echo "decoding $* into typed tables: .work/spark/tables (binlog-schema spark decode)"
$B spark decode "$@" --out .work/spark/tables --overwrite --quiet \
    2>.work/spark/decode.log || { tail -n 20 .work/spark/decode.log; exit 1; }
exit $status

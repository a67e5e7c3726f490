#!/usr/bin/env bash
# The main job on an embedded default: set up, validate the golden vectors both ways, build a
# demo binlog from the declarations and decode it to JSON Lines (or decode the files given);
# then the Spark pipeline on local[*]: synthetic binlogs written in parallel (with no files
# given) and decoded, with the demo binlog, into typed tables, and its summary table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/binlog-schema validate specs | tail -n 1
if [[ $# -eq 0 ]]; then
    .venv/bin/python scripts/make_demo_binlog.py .work/demo.binlog
    set -- .work/demo.binlog
    demo=1
fi
.venv/bin/binlog-schema decode "$@" > .work/decoded.jsonl
.venv/bin/binlog-schema roundtrip "$@" | tail -n 1
echo "decoded $(wc -l < .work/decoded.jsonl) events to .work/decoded.jsonl; first lines:"
head -n 3 .work/decoded.jsonl | cut -c1-300

if [[ ! -s .venv/java-home ]]; then
    echo "run.sh: no Java 17+, so the Spark pipeline is not run (scripts/setup.sh says why)" >&2
    exit 0
fi
export JAVA_HOME=$(cat .venv/java-home)
mkdir -p .work/spark
echo
echo "Spark pipeline (local[*]):"
if [[ ${demo:-0} == 1 ]]; then
    rm -rf .work/spark/binlogs
    .venv/bin/binlog-schema spark fixtures --out .work/spark/binlogs --files 9 \
        --transactions 100 --seed 1 2>/dev/null
    set -- .work/spark/binlogs "$@"
fi
.venv/bin/binlog-schema spark decode "$@" --out .work/spark/tables --overwrite --quiet \
    2>.work/spark/decode.log || { tail -n 20 .work/spark/decode.log; exit 1; }

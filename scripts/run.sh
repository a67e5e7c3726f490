#!/usr/bin/env bash
# The main job on an embedded default: set up, validate the golden vectors both ways, build a
# demo binlog from the declarations and decode it to JSON Lines (or decode the files given).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/binlog-schema validate specs | tail -n 1
if [[ $# -eq 0 ]]; then
    .venv/bin/python scripts/make_demo_binlog.py .work/demo.binlog
    set -- .work/demo.binlog
fi
.venv/bin/binlog-schema decode "$@" > .work/decoded.jsonl
.venv/bin/binlog-schema roundtrip "$@" | tail -n 1
echo "decoded $(wc -l < .work/decoded.jsonl) events to .work/decoded.jsonl; first lines:"
head -n 3 .work/decoded.jsonl | cut -c1-300

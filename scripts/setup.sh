#!/usr/bin/env bash
# Set up (idempotent): a virtual environment in .venv with the package and what the tests
# need. Sourced by run.sh and test.sh; safe to run alone.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install -q -e ".[dev]" >.venv/install.log 2>&1 || { tail -n 30 .venv/install.log; exit 1; }
.venv/bin/python -c "import binlog_schema, construct, yaml, zstandard, pytest, hypothesis"

#!/usr/bin/env bash
# Set up (idempotent): a virtual environment in .venv with the package and what the tests
# need (the dev and spark extras), and a Java 17+ for PySpark (scripts/find_java.sh: found,
# or installed from Debian or PyPI), whose JAVA_HOME is kept in .venv/java-home for run.sh,
# test.sh and the pipeline's commands. Safe to run alone.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install -q -e ".[dev,spark]" >.venv/install.log 2>&1 || { tail -n 30 .venv/install.log; exit 1; }
.venv/bin/python -c "import binlog_schema, construct, yaml, zstandard, pytest, hypothesis, pyspark, pyarrow"
if java_home=$(bash scripts/find_java.sh); then
    echo "$java_home" > .venv/java-home
else
    rm -f .venv/java-home
    echo "setup.sh: no Java 17+ found or installable: the Spark pipeline cannot run" >&2
fi

#!/usr/bin/env bash
# Set up (idempotent): a virtual environment in .venv with the package and what the tests
# need (the dev and spark extras), a Java 17+ for PySpark (scripts/find_java.sh: found,
# or installed from Debian or PyPI), whose JAVA_HOME is kept in .venv/java-home for run.sh,
# test.sh and the pipeline's commands, and the Kaitai Struct compiler in .work/node (npm's
# kaitai-struct-compiler, a JavaScript build: node is all it needs) for tests/corpus/test_ksy.py.
# Safe to run alone.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
    "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
# editable_mode=compat: the package's folder goes on sys.path through a plain .pth line; the
# default editable mode installs an import hook whose own imports cost every Python process
# of this environment about 10 ms at start-up (a command over many small files pays it each
# time, and end-to-end timings would measure it)
.venv/bin/python -m pip install -q -e ".[dev,spark]" --config-settings editable_mode=compat \
    >.venv/install.log 2>&1 || { tail -n 30 .venv/install.log; exit 1; }
.venv/bin/python -c "import binlog_schema, construct, yaml, zstandard, pytest, hypothesis, pyspark, pyarrow, deltalake, pyiceberg, sqlalchemy, duckdb, pandas, kaitaistruct, ruamel.yaml, pymysql, cryptography, redis, hiredis, nats, pika, prometheus_client, ruff"
# bytecode of the package's modules, and the compiled declarations in their cache: read by every
# later process (even with PYTHONDONTWRITEBYTECODE set, Python reads the .pyc files it finds)
.venv/bin/python -m compileall -q binlog_schema >/dev/null
.venv/bin/python -c "from binlog_schema.format import compiled; compiled.warm()"
if java_home=$(bash scripts/find_java.sh); then
    echo "$java_home" > .venv/java-home
else
    rm -f .venv/java-home
    echo "setup.sh: no Java 17+ found or installable: the Spark pipeline cannot run" >&2
fi
# The Kaitai Struct compiler, pinned (tests/corpus/test_ksy.py compiles specs/binlog.ksy with it and
# reads this pin), and the mysql2 client (tests/server/test_serve_cdc_server.py: a real client's
# server-side prepared statements against serve), pinned too: nothing to do when those versions are
# there; without npm (none on PATH, and Debian's cannot be installed) the tests skip, saying so
KSC_VERSION=0.11.0
MYSQL2_VERSION=3.24.5
ksc=.work/node/node_modules/kaitai-struct-compiler/package.json
# Chart.js, pinned: `stats --html` inlines its chart.umd.min.js in the report page
# (binlog_schema/output/stats_html.py reads this pin); installed with the compiler
CHARTJS_VERSION=$(sed -n 's/^CHARTJS_VERSION = "\(.*\)"$/\1/p' binlog_schema/output/stats_html.py)
chartjs=.work/node/node_modules/chart.js/package.json
mysql2=.work/node/node_modules/mysql2/package.json
if ! grep -qs "\"version\": \"$KSC_VERSION\"" "$ksc" ||
        ! grep -qs "\"version\": \"$CHARTJS_VERSION\"" "$chartjs" ||
        ! grep -qs "\"version\": \"$MYSQL2_VERSION\"" "$mysql2"; then
    if ! command -v npm >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 &&
            [[ $(id -u) == 0 ]]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null 2>&1 || {
            apt-get update -qq >/dev/null 2>&1 &&
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null 2>&1; } ||
            true
    fi
    if command -v npm >/dev/null 2>&1; then
        npm install --prefix .work/node --no-audit --no-fund --silent \
            "kaitai-struct-compiler@$KSC_VERSION" "chart.js@$CHARTJS_VERSION" \
            "mysql2@$MYSQL2_VERSION" >.venv/npm.log 2>&1 ||
            echo "setup.sh: npm could not install kaitai-struct-compiler@$KSC_VERSION," \
                "chart.js@$CHARTJS_VERSION and mysql2@$MYSQL2_VERSION (.venv/npm.log):" \
                "tests/corpus/test_ksy.py, the report page's test and the serve CDC tier's" \
                "mysql2 test will skip, stats --html says what is missing" >&2
    else
        echo "setup.sh: no npm (nor Debian's): the Kaitai Struct compiler and Chart.js are" \
            "not installed; tests/corpus/test_ksy.py will skip, stats --html cannot" >&2
    fi
fi

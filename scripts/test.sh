#!/usr/bin/env bash
# Everything the tests need, then the tests: the package in .venv (with PySpark and a Java
# 17+ for the Spark tier), Debian's MariaDB server (for the server tier), Debian's Chromium
# (the report page of stats --html, opened headless) and its Redis, NATS
# and RabbitMQ servers (for the sink tier: scripts/brokers.sh starts them), and pytest over
# tests/ (the corpus tier reads BINLOG_CORPUS, default ../shared/corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/install_server.sh || echo "test.sh: could not install mariadb-server; the server tier will say why it did not run" >&2
bash scripts/install_chromium.sh || echo "test.sh: could not install chromium; the report page's test will say why it did not run" >&2
bash scripts/install_brokers.sh || echo "test.sh: could not install the brokers; the sink tier will say why it did not run" >&2
export BINLOG_CORPUS=${BINLOG_CORPUS:-$(cd .. && pwd)/shared/corpus}
if [[ -s .venv/java-home ]]; then export JAVA_HOME=$(cat .venv/java-home); fi
exec .venv/bin/python -m pytest -q -rs -p no:cacheprovider "$@"

#!/usr/bin/env bash
# Regenerate the MariaDB-derived golden vectors (specs/table_map/mariadb/): start a private
# MariaDB server, run the workloads, and turn its binlogs' TABLE_MAPs into vectors.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/make_mariadb_binlogs.sh
.venv/bin/python scripts/make_vectors.py mariadb .work/binlogs/mariadb-*

#!/usr/bin/env bash
# Produce MariaDB binlogs with statement events for the QUERY-family declarations.
#
# Starts a fresh private server "evq" (scripts/mariadb.sh) with statement logging, runs
# scripts/workloads/events_query.sql (QUERY with status variables, USER_VAR, RAND, INTVAR,
# LOAD DATA, QUERY_COMPRESSED, ANNOTATE_ROWS, XID, two-phase ALTER), then
#   - a LOAD DATA that fails on a duplicate key (DELETE_FILE),
#   - a MyISAM statement that overflows max_binlog_stmt_cache_size (INCIDENT),
#   - FLUSH BINARY LOGS (ROTATE) and the shutdown (STOP),
# and copies every binlog file of the run to
#   .work/binlogs-events/mariadb-<version>-events.NNNNNN
# The server is stopped by its pid at the end (also on failure). Runs unattended, < 1 min.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
cd "$REPO_ROOT"

NAME=${EVQ_NAME:-evq}
M=scripts/mariadb.sh
WORKLOAD=scripts/workloads/events_query.sql
CHECKSUM=${BINLOG_CHECKSUM:-CRC32}   # CRC32 or NONE
OUT=${EVQ_OUT:-.work/binlogs-events}
DIR=.work/mariadb/$NAME

q() {  # q SQL -> tab-separated rows, no headers
    printf '%s\n' "$1" | "$M" sql "$NAME" -N -B
}

pid=
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    fi
}
trap cleanup EXIT

# fresh server every time; LOAD DATA INFILE reads only below its own directory
"$M" destroy "$NAME" >/dev/null 2>&1 || true
mkdir -p "$DIR"
env_lines="$("$M" start "$NAME" --binlog-format=STATEMENT --binlog-checksum="$CHECKSUM" \
    --binlog-annotate-row-events=ON --secure-file-priv="$REPO_ROOT/$DIR")"
pid="$(printf '%s\n' "$env_lines" | sed -n 's/^pid=//p')"
binlog_dir="$(printf '%s\n' "$env_lines" | sed -n 's/^binlog_dir=//p')"
datadir="$(printf '%s\n' "$env_lines" | sed -n 's/^datadir=//p')"
[ -n "$pid" ] && [ -d "$binlog_dir" ] || { echo "no pid/binlog_dir from mariadb.sh" >&2; exit 1; }

version_full="$(q 'SELECT VERSION()')"
version="${version_full%%-*}"
echo "MariaDB $version_full" >&2

# the data files, in the database directory (relative names in LOAD DATA)
q 'CREATE DATABASE bs_evq CHARACTER SET utf8mb4'
python3 - "$datadir/bs_evq" <<'PY'
import sys, pathlib
d = pathlib.Path(sys.argv[1])
(d / "load_small.csv").write_text("".join(f"{i},small {i}\n" for i in range(1, 6)))
lines, size, i = ["header line, skipped\n"], 21, 0
while size < 2 * 131072 + 200:  # two 128 KiB blocks, then a last APPEND_BLOCK of ~250 bytes
    i += 1
    lines.append(f'>{i};"big {i} \\"q\\"";v{i:06d}-{"abcdefghij" * 4}\n')
    size += len(lines[-1])
(d / "load_big.csv").write_text("".join(lines))
(d / "load_dup.csv").write_text("".join(f"{i},dup {i}\n" for i in range(1, 3001)))
PY

"$M" sql "$NAME" --default-character-set=utf8mb4 <"$WORKLOAD" >/dev/null

# DELETE_FILE: a load into a MyISAM table fails on its first row (a duplicate key) after its
# first block was logged; no row changed, so the server logs DELETE_FILE (an InnoDB load's
# blocks would be rolled back with its transaction instead)
q "USE bs_evq; SET SESSION binlog_format = 'STATEMENT';
   CREATE TABLE t_dup (a INT PRIMARY KEY, b VARCHAR(20)) ENGINE=MyISAM;
   INSERT INTO t_dup VALUES (1, 'first')" >/dev/null
q "USE bs_evq; SET SESSION binlog_format = 'STATEMENT';
   LOAD DATA INFILE 'load_dup.csv' INTO TABLE t_dup FIELDS TERMINATED BY ','" \
    >/dev/null 2>&1 && { echo "the duplicate-key LOAD DATA did not fail" >&2; exit 1; }

# INCIDENT (LOST_EVENTS): rows of a non-transactional table overflow the statement cache
q 'SET GLOBAL max_binlog_stmt_cache_size = 4096, GLOBAL binlog_stmt_cache_size = 4096'
q "USE bs_evq; SET SESSION binlog_format = 'ROW';
   INSERT INTO t_myisam SELECT seq, CONCAT(MD5(seq), MD5(seq + 1), MD5(seq + 2))
   FROM seq_1_to_500" >/dev/null 2>&1 && { echo "the cache overflow did not fail" >&2; exit 1; }

q 'FLUSH BINARY LOGS'
q 'INSERT INTO bs_evq.t (v) VALUES ("after rotate")'

# stop the server (by pid) so that the last file ends with STOP
kill -TERM "$pid"
for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
kill -0 "$pid" 2>/dev/null && { echo "server $pid did not stop" >&2; exit 1; }
pid=

mkdir -p "$OUT"
rm -f "$OUT/mariadb-$version-events."*
n=0
while read -r f; do
    n=$((n + 1))
    cp "$binlog_dir/$(basename "$f")" "$OUT/mariadb-$version-events.$(printf '%06d' "$n")"
done <"$binlog_dir/mariadb-bin.index"
echo "produced (file, bytes):"
for f in "$OUT/mariadb-$version-events."*; do
    printf '%s\t%s\n' "$f" "$(wc -c <"$f")"
done

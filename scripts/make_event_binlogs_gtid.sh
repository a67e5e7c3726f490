#!/usr/bin/env bash
# Produce MariaDB binlogs with the GTID-family events that binlog_schema/format/events/gtid.py
# declares, into .work/binlogs-events-gtid/:
#
#   mariadb-<version>-gtid.NNNNNN       scripts/workloads/events_gtid.sql (XA, multi-engine,
#                                       two-phase ALTER, several domains and server ids) and a
#                                       group-commit phase (parallel clients with
#                                       binlog_commit_wait_count), CRC32; every file starts
#                                       with GTID_LIST and BINLOG_CHECKPOINT
#   mariadb-<version>-encrypted.NNNNNN  --encrypt-binlog=ON (file_key_management, fixed test
#                                       key): START_ENCRYPTION, then encrypted events
#
# Two fresh private servers (scripts/mariadb.sh) "evgtid" and "evgtid-enc"; both are stopped
# at the end (by the pid in their pid file), also on failure. Unattended, well under 2 min.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
cd "$REPO_ROOT"

M=scripts/mariadb.sh
WORKLOAD=scripts/workloads/events_gtid.sql
OUT=.work/binlogs-events-gtid
KEYFILE=.work/mariadb/evgtid-enc.keys
running=()

cleanup() {
    local n
    for n in "${running[@]}"; do
        "$M" stop "$n" >/dev/null 2>&1 || true
    done
}
trap cleanup EXIT

q() {  # q NAME SQL -> tab-separated rows, no headers
    printf '%s\n' "$2" | "$M" sql "$1" -N -B
}

start() {  # start NAME [options]: a fresh server; sets $dir to its binlog directory
    local name="$1" env_lines
    shift
    "$M" destroy "$name" >/dev/null 2>&1 || true
    running+=("$name")           # (not in a subshell: the EXIT trap must see it)
    env_lines="$("$M" start "$name" "$@")"
    dir="$(printf '%s\n' "$env_lines" | sed -n 's/^binlog_dir=//p')"
    [ -d "$dir" ] || { echo "no binlog_dir from mariadb.sh start $name" >&2; exit 1; }
}

stop() {
    "$M" stop "$1"
    local keep=() n
    for n in "${running[@]}"; do [ "$n" = "$1" ] || keep+=("$n"); done
    running=("${keep[@]+"${keep[@]}"}")
}

# copy NAME BINLOG_DIR LABEL VERSION: every closed binlog file of the server, in order
copy_binlogs() {
    local name="$1" dir="$2" label="$3" version="$4" f n=0 current
    current="$(q "$name" 'SHOW MASTER STATUS' | cut -f1)"
    while read -r f; do
        f="$(basename "$f")"
        [[ "$f" < "$current" ]] || continue
        n=$((n + 1))
        cp "$dir/$f" "$OUT/mariadb-$version-$label.$(printf '%06d' "$n")"
    done <"$dir/mariadb-bin.index"
    [ "$n" -gt 0 ] || { echo "$label: no binlog file" >&2; exit 1; }
}

mkdir -p "$OUT"
rm -f "$OUT"/mariadb-*

# ---------------------------------------------------------------- GTID flags and fields
start evgtid --binlog-checksum=CRC32
version_full="$(q evgtid 'SELECT VERSION()')"
version="${version_full%%-*}"
echo "MariaDB $version_full" >&2

# --force: the one ALTER meant to fail (duplicate key) must not stop the rest
errors="$("$M" sql evgtid --force <"$WORKLOAD" 2>&1 >/dev/null || true)"
unexpected="$(printf '%s\n' "$errors" | grep '^ERROR' | grep -v 'Duplicate entry' || true)"
if [ -n "$unexpected" ]; then
    echo "unexpected errors from $WORKLOAD:" >&2
    printf '%s\n' "$unexpected" >&2
    exit 1
fi
q evgtid 'FLUSH BINARY LOGS'

# group commit: parallel autocommit clients, the server waits for 4 commits per group
q evgtid 'SET GLOBAL binlog_commit_wait_count = 4; SET GLOBAL binlog_commit_wait_usec = 500000'
pids=()
for c in 1 2 3 4; do
    {
        for i in 1 2 3 4 5; do
            echo "INSERT INTO gt.t_inno (id, v) VALUES ($((1000 + c * 100 + i)), 'group $c');"
        done
    } | "$M" sql evgtid &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
q evgtid 'SET GLOBAL binlog_commit_wait_count = 0'
q evgtid 'FLUSH BINARY LOGS'
copy_binlogs evgtid "$dir" gtid "$version"
stop evgtid

# ---------------------------------------------------------------- encrypted binlog
mkdir -p "$(dirname "$KEYFILE")"
# a fixed test key (key id 1, AES-256): the files are test fixtures, not secrets
printf '1;%s\n' "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" >"$KEYFILE"
start evgtid-enc --binlog-checksum=CRC32 --plugin-load-add=file_key_management \
    --file-key-management-filename="$REPO_ROOT/$KEYFILE" --encrypt-binlog=ON
q evgtid-enc "CREATE DATABASE ge; CREATE TABLE ge.t (id INT PRIMARY KEY, v VARCHAR(20));
INSERT INTO ge.t VALUES (1, 'encrypted'); FLUSH BINARY LOGS"
copy_binlogs evgtid-enc "$dir" encrypted "$version"
stop evgtid-enc

echo "produced (file, bytes):"
for f in "$OUT"/mariadb-*; do
    printf '%s\t%s\n' "$f" "$(wc -c <"$f")"
done

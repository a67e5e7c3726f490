#!/usr/bin/env bash
# Produce MariaDB binlogs of the current-state workload, and the tables' contents as typed JSON.
#
#   scripts/make_current_binlogs.sh [OUT_DIR]         (default .work/binlogs-current)
#
# Starts a fresh private server (scripts/mariadb.sh; name $CURRENT_SERVER_NAME, default
# "current", so that concurrent runs can use their own) and runs
# scripts/workloads/current.sql in two passes:
#
#   full      binlog_row_image=FULL,    binlog_row_metadata=FULL
#   minimal   binlog_row_image=MINIMAL, binlog_row_metadata=MINIMAL
#
# Each part of the workload (split at its "-- @@ part X" lines; a, then b) goes into binlog
# files of its own (the workload's FLUSH BINARY LOGS spread a part over several), copied under
# the names the server gave them (their numbers go on rising from part a to part b, and from
# one pass to the next, as a server's do):
#
#   OUT_DIR/current-<pass>/mariadb-bin.NNNNNN
#                                          the binlog files of the pass, parts a and b, nothing
#                                          else (the folder is the input "all of the pass")
#   OUT_DIR/current-<pass>.json            {"pass", "binlog_row_image", "binlog_row_metadata",
#                                          "databases", "folder": "current-<pass>",
#                                          "parts": {"a": [files], "b": [files]}} (paths
#                                          relative to OUT_DIR)
#   OUT_DIR/current-<pass>-after-a.json    every table of the workload's databases after part
#   OUT_DIR/current-<pass>-after-b.json    a, and at the end (scripts/current_snapshot.py),
#                                          with "at": the time then (part b starts over a
#                                          second later)
#
# binlog_checksum is CRC32, binlog_format ROW; the workload's session runs with time_zone
# '+00:00'. At the end (also on failure) the server is stopped by its pid and its directory
# removed. Unattended; about 15 seconds.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
cd "$REPO_ROOT"

NAME="${CURRENT_SERVER_NAME:-current}"
WORKLOAD=scripts/workloads/current.sql
OUT="${1:-.work/binlogs-current}"
DB=bs_current
DATABASES=bs_current,bs_current_x
SQL_MODE=STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION
PY=.venv/bin/python
[ -x "$PY" ] || PY=python3

. scripts/server_session.sh
server_start "$NAME" --binlog-checksum=CRC32 --binlog-row-metadata=FULL

echo "MariaDB $(q 'SELECT VERSION()')" >&2
mkdir -p "$OUT"
rm -rf "$OUT"/current-*

# run_part PASS IMAGE PART: the part, in a session of binlog_row_image IMAGE, into fresh
# binlog file(s) copied to OUT/current-PASS; prints their paths (relative to OUT) as a JSON list
run_part() {
    local pass="$1" image="$2" part="$3" label="current-$1-$3" first last f n=0 files=""
    mkdir -p "$OUT/current-$pass"
    # (the server's first file, or the one the previous part's FLUSH opened: no gap between
    # the parts' files, as a user continuing from the last run would read them)
    first="$(q 'SHOW MASTER STATUS' | cut -f1)"
    {
        echo "SET SESSION binlog_row_image = $image;"
        echo "SET SESSION time_zone = '+00:00';"
        echo "SET SESSION sql_mode = '$SQL_MODE';"
        [ "$part" = a ] || echo "USE $DB;"
        workload_part "$WORKLOAD" "$part"
    } | "$M" sql "$NAME" --default-character-set=utf8mb4 >/dev/null \
        || { echo "part $label: the workload failed" >&2; exit 1; }
    q 'FLUSH BINARY LOGS'
    last="$(q 'SHOW MASTER STATUS' | cut -f1)"
    while read -r f; do
        n=$((n + 1))
        cp "$binlog_dir/$f" "$OUT/current-$pass/$f"
        files="$files${files:+, }\"current-$pass/$f\""
    done < <(binlogs_from "$first" "$last")
    [ "$n" -gt 1 ] || { echo "part $label produced $n binlog file(s), not several" >&2; exit 1; }
    printf '[%s]' "$files"
}

# snapshot PASS LABEL: the tables' contents, typed, and the time then (epoch seconds: every
# commit before it is at or before that second)
snapshot() {
    "$PY" scripts/current_snapshot.py --socket "$socket" --databases "$DATABASES" \
        --out "$OUT/current-$1-$2.json" --set "pass=$1" --set "state=$2" \
        --set "at=$(date +%s)"
}

for pass in full minimal; do
    image="${pass^^}"
    q "SET GLOBAL binlog_row_metadata = $image"
    q "SET GLOBAL binlog_row_image = $image"
    a="$(run_part "$pass" "$image" a)" || exit 1
    snapshot "$pass" after-a
    sleep 1.1   # (part b commits in later seconds: spark history as of "at" is this state)
    b="$(run_part "$pass" "$image" b)" || exit 1
    snapshot "$pass" after-b
    printf '{"pass": "%s", "binlog_row_image": "%s", "binlog_row_metadata": "%s", "databases": ["%s"], "folder": "current-%s", "parts": {"a": %s, "b": %s}}\n' \
        "$pass" "$image" "$image" "${DATABASES//,/\", \"}" "$pass" "$a" "$b" >"$OUT/current-$pass.json"
    printf 'current-%s\ta=%s b=%s\n' "$pass" "$a" "$b" >&2
done

"$M" destroy "$NAME"
SERVER_NAME=  # (done with it above: nothing left for the exit trap)

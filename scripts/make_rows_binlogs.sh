#!/usr/bin/env bash
# Produce MariaDB binlogs of row events of every column type, with the tables' final contents.
#
#   scripts/make_rows_binlogs.sh [OUT_DIR]         (default .work/binlogs-rows)
#
# Starts a fresh private server (scripts/mariadb.sh; name $ROWS_SERVER_NAME, default "rows",
# so that concurrent runs can use their own) and runs scripts/workloads/rows.sql once per pass,
# each pass into its own binlog file(s):
#
#   OUT_DIR/rows-<image>-<metadata>.NNNNNN   the binlog of the pass
#   OUT_DIR/rows-<image>-<metadata>.json     SELECT of every table of bs_rows at the end of the
#                                            pass (scripts/rows_snapshot.py)
#
# for binlog_row_image (SESSION) in full, minimal, noblob and binlog_row_metadata (GLOBAL) in
# full, minimal.  binlog_checksum is CRC32.  At the end (also on failure) the server is stopped
# by its pid and its directory removed.  Unattended; about 15 seconds.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
cd "$REPO_ROOT"

NAME="${ROWS_SERVER_NAME:-rows}"
WORKLOAD=scripts/workloads/rows.sql
OUT="${1:-.work/binlogs-rows}"
DB=bs_rows
PY=.venv/bin/python
[ -x "$PY" ] || PY=python3

. scripts/server_session.sh
server_start "$NAME" --binlog-checksum=CRC32 --binlog-row-metadata=FULL

echo "MariaDB $(q 'SELECT VERSION()')" >&2
mkdir -p "$OUT"
rm -f "$OUT"/rows-*

# run_pass IMAGE METADATA: the workload into fresh binlog file(s), copied to OUT, and the
# final contents of the tables next to them
run_pass() {
    local image="$1" metadata="$2" label="rows-$1-$2" first last f n=0 files=""
    q "SET GLOBAL binlog_row_metadata = ${metadata^^}"
    q 'FLUSH BINARY LOGS'
    first="$(q 'SHOW MASTER STATUS' | cut -f1)"
    { echo "SET SESSION binlog_row_image = ${image^^};"; cat "$WORKLOAD"; } \
        | "$M" sql "$NAME" --default-character-set=utf8mb4 >/dev/null
    q 'FLUSH BINARY LOGS'
    last="$(q 'SHOW MASTER STATUS' | cut -f1)"
    while read -r f; do
        n=$((n + 1))
        cp "$binlog_dir/$f" "$OUT/$label.$(printf '%06d' "$n")"
        files="$files${files:+,}$label.$(printf '%06d' "$n")"
    done < <(binlogs_from "$first" "$last")
    [ "$n" -gt 0 ] || { echo "pass $label produced no binlog file" >&2; exit 1; }
    "$PY" scripts/rows_snapshot.py --socket "$socket" --database "$DB" \
        --out "$OUT/$label.json" --set "pass=$label" --set "binlog_row_image=${image^^}" \
        --set "binlog_row_metadata=${metadata^^}" --set "binlogs=$files"
    printf '%s\t%s\n' "$label" "$files" >&2
}

for metadata in full minimal; do
    for image in full minimal noblob; do
        run_pass "$image" "$metadata"
    done
done

"$M" destroy "$NAME"
SERVER_NAME=  # (done with it above: nothing left for the exit trap)

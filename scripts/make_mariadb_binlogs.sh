#!/usr/bin/env bash
# Produce MariaDB binlog fixtures with TABLE_MAP events of every column type.
#
# Starts a fresh private server "tm" (scripts/mariadb.sh), runs
# scripts/workloads/table_maps.sql, gen_wide_tables.py and
# table_maps_old_temporal.sql three times and copies
# the resulting binlog file(s) to
#   .work/binlogs/mariadb-<version>-full.NNNNNN        binlog_row_metadata=FULL,    CRC32
#   .work/binlogs/mariadb-<version>-minimal.NNNNNN     binlog_row_metadata=MINIMAL, CRC32
#   .work/binlogs/mariadb-<version>-nochecksum.NNNNNN  binlog_row_metadata=FULL,    checksum NONE
# Each file starts with its own Format_description event and holds the whole
# workload (DDL as Query events, one TABLE_MAP + WRITE_ROWS per table).
# The server is stopped at the end (also on failure).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
cd "$REPO_ROOT"

NAME=tm
WORKLOAD=scripts/workloads/table_maps.sql
GEN=scripts/workloads/gen_wide_tables.py
# last: its row events stop `mariadb-binlog --verbose` (see the file header)
WORKLOAD_TAIL=scripts/workloads/table_maps_old_temporal.sql
OUT=.work/binlogs

. scripts/server_session.sh
SERVER_ON_EXIT=stop  # (its files kept)
server_start "$NAME" --binlog-row-metadata=FULL --binlog-checksum=CRC32

version_full="$(q 'SELECT VERSION()')"
version="${version_full%%-*}"
echo "MariaDB $version_full" >&2

mkdir -p "$OUT"
rm -f "$OUT/mariadb-$version-full."* "$OUT/mariadb-$version-minimal."* \
      "$OUT/mariadb-$version-nochecksum."*

# run_variant LABEL: workload into fresh binlog file(s), copied to OUT
run_variant() {
    local label="$1" first last f n=0
    q 'FLUSH BINARY LOGS'
    first="$(q 'SHOW MASTER STATUS' | cut -f1)"
    { cat "$WORKLOAD"; python3 "$GEN"; cat "$WORKLOAD_TAIL"; } \
        | "$M" sql "$NAME" --default-character-set=utf8mb4 >/dev/null
    q 'FLUSH BINARY LOGS'
    last="$(q 'SHOW MASTER STATUS' | cut -f1)"
    # copy every file from $first up to (not including) the new current one
    while read -r f; do
        n=$((n + 1))
        cp "$binlog_dir/$f" "$OUT/mariadb-$version-$label.$(printf '%06d' "$n")"
    done < <(binlogs_from "$first" "$last")
    [ "$n" -gt 0 ] || { echo "variant $label produced no binlog file" >&2; exit 1; }
}

q 'SET GLOBAL binlog_row_metadata=FULL'
run_variant full

q 'SET GLOBAL binlog_row_metadata=MINIMAL'
run_variant minimal

q 'SET GLOBAL binlog_row_metadata=FULL'
q 'SET GLOBAL binlog_checksum=NONE'
run_variant nochecksum

"$M" stop "$NAME"
SERVER_NAME=  # (done with it above: nothing left for the exit trap)

echo "produced (file, bytes, TABLE_MAP events):"
for f in "$OUT/mariadb-$version-"{full,minimal,nochecksum}.*; do
    if command -v mariadb-binlog >/dev/null 2>&1; then
        n="$(mariadb-binlog "$f" | grep -c 'Table_map:' || true)"
    else
        n="?"
    fi
    printf '%s\t%s\t%s\n' "$f" "$(wc -c <"$f")" "$n"
done

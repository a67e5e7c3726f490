#!/usr/bin/env bash
# Produce MariaDB binlogs of the schema-history workload, with FULL and MINIMAL metadata.
#
#   scripts/make_schema_binlogs.sh [OUT_DIR]         (default .work/binlogs-schema)
#
# Starts a fresh private server (scripts/mariadb.sh; name $SCHEMA_SERVER_NAME, default
# "schema", so that concurrent runs can use their own) and runs scripts/workloads/schema.sql
# once per binlog_row_metadata (GLOBAL) in full, minimal. Each part of the workload (split at
# its "-- @@ part X" lines) goes into binlog files of its own:
#
#   OUT_DIR/schema-<metadata>-<part>.NNNNNN   the binlog files of a part (a, b, c)
#   OUT_DIR/schema-<metadata>.json            {"pass", "binlog_row_metadata", "parts":
#                                             {"a": "file,file", ...}}
#   OUT_DIR/dump-after-a.sql, dump-after-b.sql
#                                             mariadb-dump --no-data of the database after
#                                             part a and after part b (MINIMAL pass)
#
# binlog_checksum is CRC32, binlog_format ROW. At the end (also on failure) the server is
# stopped by its pid and its directory removed. Unattended; about 10 seconds.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
cd "$REPO_ROOT"

NAME="${SCHEMA_SERVER_NAME:-schema}"
WORKLOAD=scripts/workloads/schema.sql
OUT="${1:-.work/binlogs-schema}"
DB=bs_schema

. scripts/server_session.sh
server_start "$NAME" --binlog-checksum=CRC32 --binlog-row-metadata=FULL
DUMP="$(command -v mariadb-dump || command -v mysqldump)"

echo "MariaDB $(q 'SELECT VERSION()')" >&2
mkdir -p "$OUT"
rm -f "$OUT"/schema-* "$OUT"/dump-*

# run_part METADATA PART: the part into fresh binlog file(s), copied to OUT; prints the
# comma-separated names
run_part() {
    local metadata="$1" part="$2" label="schema-$1-$2" first last f n=0 files=""
    q 'FLUSH BINARY LOGS'
    first="$(q 'SHOW MASTER STATUS' | cut -f1)"
    { [ "$part" = a ] || echo "USE $DB;"; workload_part "$WORKLOAD" "$part"; } \
        | "$M" sql "$NAME" --default-character-set=utf8mb4 >/dev/null \
        || { echo "part $label: the workload failed" >&2; exit 1; }
    q 'FLUSH BINARY LOGS'
    last="$(q 'SHOW MASTER STATUS' | cut -f1)"
    while read -r f; do
        n=$((n + 1))
        cp "$binlog_dir/$f" "$OUT/$label.$(printf '%06d' "$n")"
        files="$files${files:+,}$label.$(printf '%06d' "$n")"
    done < <(binlogs_from "$first" "$last")
    [ "$n" -gt 0 ] || { echo "part $label produced no binlog file" >&2; exit 1; }
    printf '%s' "$files"
}

for metadata in full minimal; do
    q "SET GLOBAL binlog_row_metadata = ${metadata^^}"
    a="$(run_part "$metadata" a)" || exit 1
    if [ "$metadata" = minimal ]; then
        "$DUMP" --no-defaults --socket="$socket" -uroot --no-data --databases "$DB" \
            >"$OUT/dump-after-a.sql"
    fi
    b="$(run_part "$metadata" b)" || exit 1
    if [ "$metadata" = minimal ]; then
        "$DUMP" --no-defaults --socket="$socket" -uroot --no-data --databases "$DB" \
            >"$OUT/dump-after-b.sql"
    fi
    c="$(run_part "$metadata" c)" || exit 1
    printf '{"pass": "schema-%s", "binlog_row_metadata": "%s", "parts": {"a": "%s", "b": "%s", "c": "%s"}}\n' \
        "$metadata" "${metadata^^}" "$a" "$b" "$c" >"$OUT/schema-$metadata.json"
    printf 'schema-%s\ta=%s b=%s c=%s\n' "$metadata" "$a" "$b" "$c" >&2
done

"$M" destroy "$NAME"
SERVER_NAME=  # (done with it above: nothing left for the exit trap)

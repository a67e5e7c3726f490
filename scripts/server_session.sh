# Sourced (not run) by the scripts that run a workload on one private MariaDB server
# (scripts/mariadb.sh: its own datadir and port on loopback, stopped by its pid):
#
#   server_start NAME [mariadbd option ...]   a fresh server; sets binlog_dir, socket, pid and
#                                             datadir; on exit it is destroyed (stopped only,
#                                             its files kept, with SERVER_ON_EXIT=stop)
#   q SQL                                     the server's answer: tab-separated, no headers
#   binlogs_from FIRST LAST                   the names of the server's binlog files from
#                                             FIRST up to (not including) LAST, in order
#   workload_part FILE PART                   the lines of part PART of a workload file (from
#                                             its "-- @@ part PART:" line to the next one)
#
# The caller has cd'ed to the repository root and set -euo pipefail.

M=scripts/mariadb.sh
SERVER_NAME=

server_cleanup() {
    if [ -n "$SERVER_NAME" ]; then
        "$M" "${SERVER_ON_EXIT:-destroy}" "$SERVER_NAME" || true
    fi
}

server_start() {
    local env_lines
    SERVER_NAME="$1"
    shift
    "$M" destroy "$SERVER_NAME" >/dev/null 2>&1 || true  # fresh: reproducible files
    trap server_cleanup EXIT
    env_lines="$("$M" start "$SERVER_NAME" "$@")"
    binlog_dir="$(printf '%s\n' "$env_lines" | sed -n 's/^binlog_dir=//p')"
    socket="$(printf '%s\n' "$env_lines" | sed -n 's/^socket=//p')"
    pid="$(printf '%s\n' "$env_lines" | sed -n 's/^pid=//p')"
    datadir="$(printf '%s\n' "$env_lines" | sed -n 's/^datadir=//p')"
    [ -d "$binlog_dir" ] || { echo "no binlog_dir from mariadb.sh start" >&2; exit 1; }
}

q() {  # q SQL -> tab-separated rows, no headers
    printf '%s\n' "$1" | "$M" sql "$SERVER_NAME" -N -B
}

binlogs_from() {  # binlogs_from FIRST LAST -> file names, one per line
    local f
    while read -r f; do
        f="$(basename "$f")"
        [[ "$f" < "$1" ]] && continue
        [[ "$f" < "$2" ]] || continue
        printf '%s\n' "$f"
    done <"$binlog_dir/mariadb-bin.index"
}

workload_part() {  # workload_part FILE PART -> its lines
    awk -v want="$2" '/^-- @@ part /{p = ($4 == want ":")} p' "$1"
}

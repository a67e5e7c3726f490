#!/usr/bin/env bash
# Run a private, throw-away MariaDB server for tests.
#
#   scripts/mariadb.sh start   NAME [extra mariadbd options...]
#   scripts/mariadb.sh stop    NAME
#   scripts/mariadb.sh sql     NAME [mariadb client args...]   (SQL on stdin)
#   scripts/mariadb.sh env     NAME                           (print key=value lines)
#   scripts/mariadb.sh destroy NAME
#
# Each server lives in <repo>/.work/mariadb/NAME/ (datadir, socket, pid file,
# binlogs, error log).  `start` prints socket=, port=, pid=, binlog_dir=,
# error_log=, datadir= lines (also written to <dir>/env) so callers can
# `eval "$(scripts/mariadb.sh start NAME)"`.
#
# Environment: MARIADB_PORT (default: a free port), MARIADB_START_TIMEOUT
# (seconds, default 60), MARIADB_STOP_TIMEOUT (seconds, default 30).
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
BASE_DIR="$REPO_ROOT/.work/mariadb"

die() { echo "mariadb.sh: $*" >&2; exit 1; }

usage() {
    sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

find_bin() {
    # find_bin name... : first of the names found in PATH or /usr/sbin
    local n
    for n in "$@"; do
        if command -v "$n" >/dev/null 2>&1; then command -v "$n"; return 0; fi
        if [ -x "/usr/sbin/$n" ]; then echo "/usr/sbin/$n"; return 0; fi
    done
    die "none of [$*] found; install mariadb-server / mariadb-client"
}

setup_name() {
    NAME="${1:-}"
    [ -n "$NAME" ] || usage
    case "$NAME" in
        */*|.|..) die "bad server name: $NAME" ;;
    esac
    DIR="$BASE_DIR/$NAME"
    DATADIR="$DIR/data"
    SOCK="$DIR/sock"
    PIDFILE="$DIR/pid"
    BINLOG_DIR="$DIR/binlog"
    ERRLOG="$DIR/error.log"
    ENVFILE="$DIR/env"
}

# pid of the running server of NAME, or nothing
running_pid() {
    local pid
    [ -f "$PIDFILE" ] || return 1
    pid="$(tr -dc '0-9' <"$PIDFILE")"
    [ -n "$pid" ] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    # make sure the pid really is a mariadbd/mysqld that uses our datadir
    if [ -r "/proc/$pid/cmdline" ]; then
        tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qxF -- "--datadir=$DATADIR" || return 1
    fi
    echo "$pid"
}

free_port() {
    python3 - <<'EOF'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
EOF
}

print_env() {
    cat "$ENVFILE"
}

ping_server() {
    "$ADMIN" --no-defaults --socket="$SOCK" -uroot --connect-timeout=2 ping >/dev/null 2>&1
}

cmd_start() {
    setup_name "${1:-}"; shift
    local pid port
    if pid="$(running_pid)"; then
        if [ -f "$ENVFILE" ]; then
            echo "mariadb.sh: server '$NAME' already running (pid $pid)" >&2
            print_env
            return 0
        fi
        die "server '$NAME' running (pid $pid) but $ENVFILE is missing"
    fi

    MARIADBD="$(find_bin mariadbd mysqld)"
    INSTALL_DB="$(find_bin mariadb-install-db mysql_install_db)"
    ADMIN="$(find_bin mariadb-admin mysqladmin)"

    # a private tmpdir: servers started at once (parallel test runs) never share temporary
    # tables' names in /tmp (mariadb-install-db failed on a clash, seen here)
    mkdir -p "$DIR" "$BINLOG_DIR" "$DIR/tmp"
    rm -f "$SOCK" "$PIDFILE"

    if [ ! -d "$DATADIR/mysql" ]; then
        rm -rf "$DATADIR"
        mkdir -p "$DATADIR"
        if ! "$INSTALL_DB" --no-defaults --datadir="$DATADIR" --user=root \
                --auth-root-authentication-method=normal \
                --skip-test-db --skip-name-resolve --tmpdir="$DIR/tmp" \
                >"$DIR/install-db.log" 2>&1; then
            tail -n 30 "$DIR/install-db.log" >&2
            die "mariadb-install-db failed (log: $DIR/install-db.log)"
        fi
    fi

    port="${MARIADB_PORT:-$(free_port)}"
    : >"$ERRLOG"

    # setsid: own session, so that the caller's Ctrl-C / job control does not
    # hit the server; output goes to the error log.
    setsid "$MARIADBD" --no-defaults \
        --datadir="$DATADIR" \
        --socket="$SOCK" \
        --tmpdir="$DIR/tmp" \
        --port="$port" \
        --bind-address=127.0.0.1 \
        --pid-file="$PIDFILE" \
        --log-bin="$BINLOG_DIR/mariadb-bin" \
        --server-id=1 \
        --binlog-format=ROW \
        --binlog-row-metadata=FULL \
        --log-error="$ERRLOG" \
        --user=root \
        --skip-name-resolve \
        --innodb-buffer-pool-size=64M \
        --innodb-log-file-size=48M \
        --max-allowed-packet=64M \
        "$@" \
        </dev/null >>"$ERRLOG" 2>&1 &
    local child=$!

    local timeout="${MARIADB_START_TIMEOUT:-60}" waited=0
    until ping_server; do
        if ! kill -0 "$child" 2>/dev/null; then
            echo "---- tail of $ERRLOG ----" >&2
            tail -n 30 "$ERRLOG" >&2
            die "mariadbd exited during startup"
        fi
        if [ "$waited" -ge $((timeout * 4)) ]; then
            echo "---- tail of $ERRLOG ----" >&2
            tail -n 30 "$ERRLOG" >&2
            kill -TERM "$child" 2>/dev/null || true
            die "mariadbd did not answer within ${timeout}s"
        fi
        sleep 0.25
        waited=$((waited + 1))
    done
    # the pid file is written before the server accepts connections
    pid="$(running_pid)" || pid="$child"

    cat >"$ENVFILE" <<EOF
socket=$SOCK
port=$port
pid=$pid
binlog_dir=$BINLOG_DIR
error_log=$ERRLOG
datadir=$DATADIR
EOF
    print_env
}

cmd_stop() {
    setup_name "${1:-}"
    local pid timeout="${MARIADB_STOP_TIMEOUT:-30}" waited=0
    if ! pid="$(running_pid)"; then
        echo "mariadb.sh: server '$NAME' is not running" >&2
        return 0
    fi
    kill -TERM "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$waited" -ge $((timeout * 4)) ]; then
            echo "mariadb.sh: server '$NAME' (pid $pid) ignored TERM; killing" >&2
            kill -KILL "$pid" 2>/dev/null || true
            sleep 0.5
            break
        fi
        sleep 0.25
        waited=$((waited + 1))
    done
    rm -f "$SOCK"
    echo "mariadb.sh: server '$NAME' (pid $pid) stopped" >&2
}

cmd_sql() {
    setup_name "${1:-}"; shift
    running_pid >/dev/null || die "server '$NAME' is not running (scripts/mariadb.sh start $NAME)"
    local client
    client="$(find_bin mariadb mysql)"
    exec "$client" --no-defaults --socket="$SOCK" -uroot "$@"
}

cmd_env() {
    setup_name "${1:-}"
    running_pid >/dev/null || die "server '$NAME' is not running"
    print_env
}

cmd_destroy() {
    setup_name "${1:-}"
    cmd_stop "$NAME"
    if running_pid >/dev/null; then
        die "server '$NAME' still running; not removing $DIR"
    fi
    rm -rf "$DIR"
    echo "mariadb.sh: removed $DIR" >&2
}

sub="${1:-}"
[ $# -gt 0 ] && shift
case "$sub" in
    start)   cmd_start "$@" ;;
    stop)    cmd_stop "$@" ;;
    sql)     cmd_sql "$@" ;;
    env)     cmd_env "$@" ;;
    destroy) cmd_destroy "$@" ;;
    *)       usage ;;
esac

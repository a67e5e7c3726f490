#!/usr/bin/env bash
# Run private, throw-away message brokers for tests (Debian's packages: install them with
# scripts/install_brokers.sh), on loopback, on free ports.
#
#   scripts/brokers.sh start   KIND NAME      KIND: redis, nats (JetStream on) or rabbitmq
#   scripts/brokers.sh stop    KIND NAME
#   scripts/brokers.sh env     KIND NAME      (print key=value lines)
#   scripts/brokers.sh destroy KIND NAME
#
# Each broker lives in <repo>/.work/brokers/KIND-NAME/ (data, log, pid file). `start` prints
# url=, port=, pid=, dir=, log= lines (also written to <dir>/env); the url has no path (the
# sink's stream, subject or exchange goes after it). `stop` ends the broker by its pid
# (TERM, then KILL after BROKER_STOP_TIMEOUT seconds, default 30); the data stays until
# `destroy`. BROKER_START_TIMEOUT: seconds a start may take (default 90).
#
# RabbitMQ runs as a node of its own: its own node name (bs-NAME@localhost), its own Erlang
# cookie (HOME in its directory), its own epmd (on a free port, started first, stopped last,
# by pid), its own distribution port, mnesia and log directories, config and plugins files
# (none enabled): nothing of a system instance is read or disturbed. It starts in about 5 to
# 10 seconds on 2 cores.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
BASE_DIR="$REPO_ROOT/.work/brokers"
RABBITMQ_BIN=/usr/lib/rabbitmq/bin   # (Debian's /usr/sbin wrapper switches to its user)

die() { echo "brokers.sh: $*" >&2; exit 1; }

usage() {
    sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

setup_name() {
    KIND="${1:-}"
    NAME="${2:-}"
    case "$KIND" in redis|nats|rabbitmq) ;; *) usage ;; esac
    [ -n "$NAME" ] || usage
    case "$NAME" in */*|.|..) die "bad broker name: $NAME" ;; esac
    DIR="$BASE_DIR/$KIND-$NAME"
    PIDFILE="$DIR/pid"
    LOG="$DIR/log"
    ENVFILE="$DIR/env"
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

# pid_of FILE: the pid in FILE when that process runs, else nothing (status 1)
pid_of() {
    local pid
    [ -f "$1" ] || return 1
    pid="$(tr -dc '0-9' <"$1")"
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
    echo "$pid"
}

# running_pid: the broker's pid, checked to be a process of this directory's broker
running_pid() {
    local pid
    pid="$(pid_of "$PIDFILE")" || return 1
    # (its command line, its environment or its working directory names DIR: redis-server
    # rewrites its command line, and works in DIR/data)
    if [ -r "/proc/$pid/cmdline" ] && [ -r "/proc/$pid/environ" ]; then
        tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qF -- "$DIR" ||
            tr '\0' '\n' <"/proc/$pid/environ" | grep -qF -- "$DIR" ||
            case "$(readlink "/proc/$pid/cwd")" in "$DIR"/*) ;; *) return 1 ;; esac
    fi
    echo "$pid"
}

# wait_for CHECK: until CHECK succeeds (the broker's process alive), else die with the log
wait_for() {
    local timeout="${BROKER_START_TIMEOUT:-90}" waited=0
    until "$@"; do
        if ! kill -0 "$child" 2>/dev/null; then
            echo "---- tail of $LOG ----" >&2; tail -n 30 "$LOG" >&2
            die "$KIND '$NAME' exited during startup"
        fi
        if [ "$waited" -ge $((timeout * 4)) ]; then
            echo "---- tail of $LOG ----" >&2; tail -n 30 "$LOG" >&2
            kill -TERM "$child" 2>/dev/null || true
            die "$KIND '$NAME' did not answer within ${timeout}s"
        fi
        sleep 0.25
        waited=$((waited + 1))
    done
}

redis_ready() { [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]; }
nats_ready() { grep -q "Server is ready" "$LOG" 2>/dev/null; }
rabbitmq_ready() { grep -q "Server startup complete" "$DIR/log-base/"*.log 2>/dev/null; }

start_redis() {
    setsid redis-server --bind 127.0.0.1 --port "$port" --dir "$DIR/data" --save "" \
        --appendonly no --daemonize no --logfile "$LOG" </dev/null >>"$LOG" 2>&1 &
    child=$!
    echo "$child" >"$PIDFILE"
    wait_for redis_ready
    url="redis://127.0.0.1:$port"
}

start_nats() {
    setsid nats-server -a 127.0.0.1 -p "$port" -js -sd "$DIR/data" -l "$LOG" \
        </dev/null >>"$LOG" 2>&1 &
    child=$!
    echo "$child" >"$PIDFILE"
    wait_for nats_ready
    url="nats://127.0.0.1:$port"
}

start_rabbitmq() {
    local epmd_port dist_port
    epmd_port="$(free_port)"
    dist_port="$(free_port)"
    mkdir -p "$DIR/home" "$DIR/mnesia" "$DIR/log-base"
    # a private cookie (the Erlang distribution's password), readable by its owner only
    [ -f "$DIR/home/.erlang.cookie" ] ||
        (umask 077 && python3 -c "import secrets; print(secrets.token_hex(16).upper(), end='')" \
            >"$DIR/home/.erlang.cookie")
    printf '[].\n' >"$DIR/enabled_plugins"
    printf 'listeners.tcp.1 = 127.0.0.1:%s\nloopback_users.guest = true\n' "$port" \
        >"$DIR/rabbitmq.conf"
    : >"$DIR/rabbitmq-env.conf"
    export HOME="$DIR/home" ERL_EPMD_PORT="$epmd_port" ERL_EPMD_ADDRESS=127.0.0.1
    export RABBITMQ_NODENAME="bs-$NAME@localhost" RABBITMQ_USE_LONGNAME=false \
        RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT="$port" \
        RABBITMQ_DIST_PORT="$dist_port" \
        RABBITMQ_MNESIA_BASE="$DIR/mnesia" RABBITMQ_LOG_BASE="$DIR/log-base" \
        RABBITMQ_PID_FILE="$DIR/rabbitmq.pid" RABBITMQ_CONF_ENV_FILE="$DIR/rabbitmq-env.conf" \
        RABBITMQ_CONFIG_FILE="$DIR/rabbitmq.conf" \
        RABBITMQ_ENABLED_PLUGINS_FILE="$DIR/enabled_plugins" \
        RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" \
        RABBITMQ_ALLOW_INPUT=   # (the wrapper then forwards TERM as a clean stop)
    # its own epmd, in the foreground of a session of its own: stopped by its pid
    setsid epmd -port "$epmd_port" -address 127.0.0.1 </dev/null >"$DIR/epmd.log" 2>&1 &
    echo $! >"$DIR/epmd.pid"
    setsid "$RABBITMQ_BIN/rabbitmq-server" </dev/null >>"$LOG" 2>&1 &
    child=$!
    echo "$child" >"$PIDFILE"
    wait_for rabbitmq_ready
    url="amqp://127.0.0.1:$port"
    printf 'epmd_port=%s\ndist_port=%s\nnode=%s\n' "$epmd_port" "$dist_port" \
        "$RABBITMQ_NODENAME" >"$DIR/env.extra"
}

cmd_start() {
    setup_name "$@"
    local pid began=$SECONDS
    if pid="$(running_pid)" && [ -f "$ENVFILE" ]; then
        echo "brokers.sh: $KIND '$NAME' already running (pid $pid)" >&2
        cat "$ENVFILE"
        return 0
    fi
    case "$KIND" in
        redis) command -v redis-server >/dev/null || die "no redis-server (scripts/install_brokers.sh)" ;;
        nats) command -v nats-server >/dev/null || die "no nats-server (scripts/install_brokers.sh)" ;;
        rabbitmq) [ -x "$RABBITMQ_BIN/rabbitmq-server" ] && command -v epmd >/dev/null ||
            die "no rabbitmq-server (scripts/install_brokers.sh)" ;;
    esac
    mkdir -p "$DIR/data"
    rm -f "$PIDFILE" "$ENVFILE"
    : >"$LOG"
    port="$(free_port)"
    "start_$KIND"
    cat >"$ENVFILE" <<EOF
url=$url
port=$port
pid=$child
dir=$DIR
log=$LOG
seconds=$((SECONDS - began))
EOF
    cat "$ENVFILE"
}

# stop_pid PID WHAT: TERM, then KILL after the timeout
stop_pid() {
    local pid="$1" timeout="${BROKER_STOP_TIMEOUT:-30}" waited=0
    kill -TERM "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$waited" -ge $((timeout * 4)) ]; then
            echo "brokers.sh: $2 (pid $pid) ignored TERM; killing" >&2
            kill -KILL "$pid" 2>/dev/null || true
            sleep 0.5
            break
        fi
        sleep 0.25
        waited=$((waited + 1))
    done
}

cmd_stop() {
    setup_name "$@"
    local pid vm
    if pid="$(running_pid)"; then
        # (RabbitMQ: the wrapper's TERM stops the VM cleanly; the VM's own pid, should the
        # wrapper be gone)
        vm="$( [ "$KIND" = rabbitmq ] && pid_of "$DIR/rabbitmq.pid" || true)"
        stop_pid "$pid" "$KIND '$NAME'"
        [ -z "$vm" ] || stop_pid "$vm" "$KIND '$NAME' (Erlang VM)"
        echo "brokers.sh: $KIND '$NAME' (pid $pid) stopped" >&2
    else
        echo "brokers.sh: $KIND '$NAME' is not running" >&2
    fi
    if [ "$KIND" = rabbitmq ] && pid="$(pid_of "$DIR/epmd.pid")"; then
        stop_pid "$pid" "epmd of $KIND '$NAME'"
    fi
    rm -f "$PIDFILE"
}

cmd_env() {
    setup_name "$@"
    running_pid >/dev/null || die "$KIND '$NAME' is not running"
    cat "$ENVFILE"
}

cmd_destroy() {
    setup_name "$@"
    cmd_stop "$KIND" "$NAME"
    rm -rf "$DIR"
    echo "brokers.sh: removed $DIR" >&2
}

sub="${1:-}"
[ $# -gt 0 ] && shift
case "$sub" in
    start)   cmd_start "$@" ;;
    stop)    cmd_stop "$@" ;;
    env)     cmd_env "$@" ;;
    destroy) cmd_destroy "$@" ;;
    *)       usage ;;
esac

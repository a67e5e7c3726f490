#!/usr/bin/env bash
# Install Debian's message brokers for the sink tier (tests/server/test_sinks_server.py) when
# they are missing: redis-server, nats-server and rabbitmq-server (needs root or sudo).
# Their system services are not started (a policy-rc.d refuses every start during the
# install): the tests start private instances of their own (scripts/brokers.sh).
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v nats-server >/dev/null 2>&1 || missing+=(nats-server)
[[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ]] || missing+=(rabbitmq-server)
[[ ${#missing[@]} -eq 0 ]] && exit 0
SUDO=""
[[ $(id -u) == 0 ]] || SUDO="sudo -n"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_brokers.sh: no apt-get; install ${missing[*]} yourself" >&2
    exit 1
fi
# no service started by the packages' scripts (invoke-rc.d asks policy-rc.d: 101, refused),
# unless the machine has a policy of its own, left as it is
policy=/usr/sbin/policy-rc.d
ours=""
if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
    ours=1
fi
cleanup() { [[ -z $ours ]] || $SUDO rm -f "$policy"; }
trap cleanup EXIT
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null

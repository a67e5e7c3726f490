#!/usr/bin/env bash
# Install Debian's MariaDB server and client when they are missing (needs root or sudo).
set -euo pipefail
if command -v mariadbd >/dev/null 2>&1 || [[ -x /usr/sbin/mariadbd ]]; then
    exit 0
fi
SUDO=""
[[ $(id -u) == 0 ]] || SUDO="sudo -n"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_server.sh: no apt-get; install mariadb-server and mariadb-client yourself" >&2
    exit 1
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mariadb-server mariadb-client \
    >/dev/null

#!/usr/bin/env bash
# Install Debian's Chromium when it is missing (needs root or sudo): the test of the report
# page of `stats --html` opens it headless (tests/corpus/test_stats_report.py).
set -euo pipefail
if command -v chromium >/dev/null 2>&1 || [[ -x /usr/bin/chromium ]]; then
    exit 0
fi
SUDO=""
[[ $(id -u) == 0 ]] || SUDO="sudo -n"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_chromium.sh: no apt-get; install Chromium yourself" >&2
    exit 1
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null

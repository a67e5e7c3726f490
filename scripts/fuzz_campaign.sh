#!/usr/bin/env bash
# The fuzzing campaign: every atheris target of fuzz/ for EXECS executions (libFuzzer -runs=).
#
#   scripts/fuzz_campaign.sh [EXECS] [TARGET...]
#
# EXECS defaults to 1000000 per target; TARGETs default to all of fuzz/harness.py's TARGETS
# (one_event, stream, table_map, rows, build, damage, split). JOBS=n runs n targets at a time
# (default 1: the machine is shared).
# RSS_LIMIT_MB (default 1024) is libFuzzer's -rss_limit_mb and the harness's own ceiling;
# FUZZ_TIME_LIMIT (default 1) the CPU seconds one input may take (the hang check: CPU time, so
# a loaded machine makes no false hangs); WALL_TIMEOUT (default 600) libFuzzer's own wall-clock
# -timeout, a backstop long enough that the jobs can be paused (kill -STOP / -CONT) while a
# benchmark needs the machine. Everything is written under
# .work/fuzz/: seeds/<target> (from the corpus, BINLOG_CORPUS, and specs/), <target>/corpus
# (what libFuzzer kept), <target>/crashes (crash-* inputs: replay with
# `python fuzz/repro.py TARGET FILE`; an earlier run's are moved to crashes.previous),
# <target>/log, <target>/known.log (findings already reported in files other work owns,
# suppressed), and summary.txt (the last run of every target). Exit status 1 when a target
# found something.
set -euo pipefail
cd "$(dirname "$0")/.."
EXECS=${1:-1000000}
shift || true
TARGETS=("$@")
JOBS=${JOBS:-1}
RSS_LIMIT_MB=${RSS_LIMIT_MB:-1024}
PY=${PYTHON:-.venv/bin/python}
# (the targets: fuzz/harness.py's TARGETS, in its order)
[ ${#TARGETS[@]} -eq 0 ] && read -r -a TARGETS <<< "$("$PY" -c \
    'from fuzz.harness import TARGETS; print(*TARGETS)')"
OUT=.work/fuzz
mkdir -p "$OUT"
if ! "$PY" -c "import atheris" 2>/dev/null; then
    echo "atheris is not installed: $PY -m pip install atheris" >&2
    exit 2
fi
export FUZZ_RSS_LIMIT_MB=$RSS_LIMIT_MB

run_target() {
    local t=$1 dir="$OUT/$1"
    mkdir -p "$dir/corpus" "$dir/crashes" "$OUT/seeds/$t"
    if [ -n "$(ls -A "$dir/crashes")" ]; then  # an earlier run's findings: kept aside
        mkdir -p "$dir/crashes.previous" && mv "$dir"/crashes/* "$dir/crashes.previous/"
    fi
    rm -f "$dir/known.log"
    local start=$SECONDS
    FUZZ_KNOWN_LOG="$PWD/$dir/known.log" "$PY" fuzz/run.py "$t" --seeds "$OUT/seeds/$t" \
        -runs="$EXECS" -rss_limit_mb="$RSS_LIMIT_MB" -timeout="${WALL_TIMEOUT:-600}" \
        -report_slow_units="${WALL_TIMEOUT:-600}" -print_final_stats=1 \
        -artifact_prefix="$dir/crashes/" "$dir/corpus" "$OUT/seeds/$t" \
        > "$dir/log" 2>&1 && rc=0 || rc=$?
    echo "$rc $((SECONDS - start))" > "$dir/status"
}

running=0
for t in "${TARGETS[@]}"; do
    echo "fuzzing $t: $EXECS executions ($OUT/$t/log)"
    run_target "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$JOBS" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait || true

exec scripts/fuzz_summary.sh "${TARGETS[@]}"

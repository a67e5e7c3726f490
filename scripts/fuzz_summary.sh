#!/usr/bin/env bash
# The campaign's summary from the logs under .work/fuzz/ (scripts/fuzz_campaign.sh ends with
# it): one line per TARGET given (execs, exec/s, coverage, features, peak RSS, seconds,
# result) into .work/fuzz/<target>/summary, then every target's last line into
# .work/fuzz/summary.txt. Exit status 1 when a given target has a finding.
#
#   scripts/fuzz_summary.sh TARGET...
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=.work/fuzz
TARGETS=("$@")
status=0
for t in "${TARGETS[@]}"; do
    dir="$OUT/$t"
    read -r rc secs < "$dir/status"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$dir/log" | tail -1)
    last=$(grep -E '^#[0-9]+.*cov: ' "$dir/log" | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
    # findings: crash-, timeout-, oom- files (slow-unit- files are wall-clock slow units, such
    # as a paused job's; the harness's CPU-time limit is the hang check)
    crashes=$(find "$dir/crashes" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
    known=$( [ -f "$dir/known.log" ] && cut -f1 "$dir/known.log" | sort -u | wc -l || echo 0)
    if [ "$rc" = 0 ] && [ "$crashes" = 0 ]; then result="ok (known findings suppressed: $known)"
    else result="FINDING rc=$rc crashes=$crashes"; status=1; fi
    printf '%-10s %10s %9s %7s %7s %7sM %8s %s\n' "$t" "${execs:-?}" "${rate:-?}" \
        "${cov:-?}" "${ft:-?}" "${rss:-?}" "$secs" "$result" > "$dir/summary"
done
# the summary of every target's last run (a target re-run alone replaces its own line)
{
    printf '%-10s %10s %9s %7s %7s %8s %8s %s\n' target execs exec/s cov ft peak_rss seconds result
    for t in $("${PYTHON:-.venv/bin/python}" -c 'from fuzz.harness import TARGETS
print(*TARGETS)'); do
        if [ -f "$OUT/$t/summary" ]; then cat "$OUT/$t/summary"; fi
    done
} | tee "$OUT/summary.txt"
exit $status

#!/usr/bin/env bash
# Runs the test suite under AddressSanitizer and ThreadSanitizer and writes the outcome and the
# times to Reports/sanitizers.md.
#   scripts/sanitizers.sh [address|thread ...] [-- swift-test-arguments]   (default: address thread, --no-parallel)
# e.g. scripts/sanitizers.sh thread -- --filter 'BatchJobTests|IsolationTests'
# Each sanitizer builds into its own folder (.build/sanitize-NAME), so the normal build is kept.
# The cadenza executable the CLI tests start is the instrumented one (CADENZA_EXECUTABLE).
set -uo pipefail
cd "$(dirname "$0")/.."
SANITIZERS=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do SANITIZERS+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#SANITIZERS[@]} -eq 0 ] && SANITIZERS=(address thread)
# Serially by default, as the plain suite runs (timing-bound cancellation tests starve in parallel).
[ $# -eq 0 ] && set -- --no-parallel
mkdir -p .build
REPORT=Reports/sanitizers.md
{
    echo "# Test suite under sanitizers"
    echo
    echo "\`scripts/sanitizers.sh ${SANITIZERS[*]} ${*:+-- $*}\` on $(date -u +%Y-%m-%d), $(nproc) cores shared with other work, Swift $(swift --version 2>&1 | grep -o 'version [0-9.]*' | head -1)."
    echo
    echo "| sanitizer | build s | test s | result |"
    echo "|---|---:|---:|---|"
} > "$REPORT.tmp"
status=0
for s in "${SANITIZERS[@]}"; do
    dir=.build/sanitize-$s
    log=$dir.log
    t0=$(date +%s)
    swift build --build-tests --sanitize="$s" --build-path "$dir" > "$log" 2>&1
    built=$?
    t1=$(date +%s)
    result="build failed"
    if [ $built -eq 0 ]; then
        exe=$(find "$dir" -path '*/debug/cadenza' -type f | head -1)
        # Leak checking off: FFmpeg's and Foundation's process-lifetime allocations are not leaks.
        CADENZA_SANITIZER=$s ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 TSAN_OPTIONS=halt_on_error=0:report_signal_unsafe=0 \
            CADENZA_EXECUTABLE="$PWD/$exe" swift test --skip-build --sanitize="$s" --build-path "$dir" "$@" >> "$log" 2>&1
        rc=$?
        summary=$(grep -E "Test run with [0-9]+ tests" "$log" | tail -1 | sed 's/^[^T]*//')
        reports=$(grep -c "ERROR: AddressSanitizer\|WARNING: ThreadSanitizer" "$log")
        result="${summary:-exit $rc}; $reports sanitizer reports"
        [ $rc -ne 0 ] && status=1
    else
        status=1
    fi
    t2=$(date +%s)
    echo "| $s | $((t1 - t0)) | $((t2 - t1)) | $result |" >> "$REPORT.tmp"
    echo "$s: $result (log: $log)" >&2
done
mv "$REPORT.tmp" "$REPORT"
cat "$REPORT"
exit $status

#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/FuzzTargets.swift) with ASan and runs each for a set time.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 60 s; all targets)
# Targets run FUZZ_JOBS at a time (default: the number of cores), each on one core for its time;
# the table lists them in the order given.
# Targets: wav ogg frames args report plot pcm config index export. Exit status 1 when a target
# finds a new crasher (CI runs every target for a bounded time: .ci/run). Crashers land in
# Fuzz/crashers/<target>/; once fixed, commit the input to Fuzz/seeds/<target>/, which every run
# replays first. Results go to stdout.
#
# Why not `swift build -sanitize=fuzzer`: SwiftPM applies the flag to every product, and the
# `cadenza` executable's own main then collides with libFuzzer's. swiftc builds one fuzzing
# binary from the library sources plus the harness instead (one module, so internal parsers
# are reachable), with the same module maps and Debian libraries as the package. It is built
# without optimisation (-Onone, two frontend jobs): about 50 s on two cores against about 250 s for
# a single-threaded -O whole-module build, and `assert`s are checked as well; inputs run 1.5-6
# times slower, which a smoke run in CI can afford.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=${*:-wav ogg frames args report plot pcm config index export}
OUT=.build/fuzz
mkdir -p "$OUT/src"
# The CLI's argument parser is fuzzed too: compiled into the same module (its import dropped).
for f in Arguments StandardStreams; do
    grep -v '^import MusicUnderstanding' "Sources/cadenza/$f.swift" > "$OUT/src/$f.swift"
done
LIBS=$(pkg-config --libs libavformat libavdevice libavcodec libavutil libswresample fftw3f sndfile sqlite3)
if [ ! -x "$OUT/cadenza-fuzz" ] || [ -n "$(find Sources Fuzz -newer "$OUT/cadenza-fuzz" -name '*.swift' | head -1)" ]; then
    echo "building $OUT/cadenza-fuzz ..." >&2
    start=$(date +%s)
    # The C++ tag-writing shim, compiled as SwiftPM would, with a module map of its header.
    mkdir -p "$OUT/CTagWriter"
    printf 'module CTagWriter {\n    header "%s"\n    export *\n}\n' "$PWD/Sources/CTagWriter/include/CTagWriter.h" > "$OUT/CTagWriter/module.modulemap"
    clang++ -c -O1 -fsanitize=address $(pkg-config --cflags taglib 2>/dev/null) -ISources/CTagWriter/include \
        Sources/CTagWriter/TagWriter.cpp -o "$OUT/TagWriter.o"
    swiftc -sanitize=fuzzer,address -parse-as-library -Onone -j 2 -module-name CadenzaFuzz -package-name cadenza \
        -Xcc -fmodule-map-file=Sources/CFFmpeg/module.modulemap \
        -Xcc -fmodule-map-file=Sources/CFFTW/module.modulemap \
        -Xcc -fmodule-map-file=Sources/CSndfile/module.modulemap \
        -Xcc -fmodule-map-file=Sources/CSQLite/module.modulemap \
        -Xcc -fmodule-map-file="$OUT/CTagWriter/module.modulemap" "$OUT/TagWriter.o" -ltag -lstdc++ \
        $(pkg-config --cflags-only-I libavformat | sed 's/-I/-Xcc -I/g') \
        $(find Sources/MusicUnderstanding -name '*.swift') "$OUT/src/Arguments.swift" "$OUT/src/StandardStreams.swift" \
        Fuzz/FuzzTargets.swift $LIBS -lfftw3f_threads -o "$OUT/cadenza-fuzz" > "$OUT/build.log" 2>&1 \
        || { grep -v 'Cannot export local symbol' "$OUT/build.log" >&2; exit 1; }
    grep -E 'error|warning: ' "$OUT/build.log" | grep -v 'Cannot export local symbol' >&2 || true
    echo "built in $(( $(date +%s) - start )) s" >&2
fi
# One target's run: its corpus and seeds, libFuzzer for SECONDS_PER_TARGET, then its table row in
# $OUT/$t.row and, when it failed, its message in $OUT/$t.failed.
fuzz_target() {
    local t=$1 seeds=() s before log scratch runs rate corpus crashes
    rm -f "$OUT/$t.row" "$OUT/$t.failed"
    mkdir -p "Fuzz/corpus/$t" "Fuzz/crashers/$t"
    case $t in
        wav) seeds=(Fixtures/*.wav Fixtures/hostile/*.wav) ;;
        ogg) seeds=(Fixtures/*.ogg Fixtures/*.opus Fixtures/hostile/*.og*) ;;
        report|plot|index|export) seeds=(Reports/sample-report.json) ;;
    esac
    # The committed seeds (Fuzz/seeds/<target>: small inputs that reached new code, kept by
    # libFuzzer's -merge=1) start every run; the working corpus Fuzz/corpus/ is not committed.
    if [ -d "Fuzz/seeds/$t" ]; then seeds+=(Fuzz/seeds/"$t"/*); fi
    for s in "${seeds[@]}"; do [ -f "$s" ] && cp -n "$s" "Fuzz/corpus/$t/" 2>/dev/null || true; done
    before=$(ls "Fuzz/crashers/$t" | wc -l)
    log="$OUT/$t.log"
    # The pcm, index and export targets write scratch files (FuzzTargets.swift) under TMPDIR: a
    # folder of this run's own, removed afterwards, so that runs leave nothing in /tmp.
    scratch="$OUT/tmp-$t"
    rm -rf "$scratch" && mkdir -p "$scratch"
    TMPDIR="$PWD/$scratch" CADENZA_FUZZ_TARGET=$t ASAN_OPTIONS=detect_leaks=0 "$OUT/cadenza-fuzz" "Fuzz/corpus/$t" \
        -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="Fuzz/crashers/$t/" -print_final_stats=1 > "$log" 2>&1 || true
    rm -rf "$scratch"
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
    corpus=$(ls "Fuzz/corpus/$t" | wc -l)
    crashes=$(( $(ls "Fuzz/crashers/$t" | wc -l) - before ))
    echo "| $t | $SECONDS_PER_TARGET | $runs | $rate | $corpus | $crashes |" > "$OUT/$t.row"
    if [ "$crashes" -gt 0 ] || ! grep -q 'stat::number_of_executed_units' "$log"; then
        echo "fuzz: target $t failed (new crasher in Fuzz/crashers/$t/, or the run did not finish): $log" > "$OUT/$t.failed"
    fi
}
JOBS=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1
running=0
for t in $TARGETS; do
    if [ "$running" -ge "$JOBS" ]; then wait -n || true; running=$((running - 1)); fi
    fuzz_target "$t" &
    running=$((running + 1))
done
wait
echo "| target | seconds | runs | exec/s | corpus | crashes |"
echo "|---|---:|---:|---:|---:|---:|"
for t in $TARGETS; do
    cat "$OUT/$t.row" 2>/dev/null || { echo "| $t | $SECONDS_PER_TARGET | 0 | 0 | 0 | ? |"; echo "fuzz: target $t left no result" > "$OUT/$t.failed"; }
done
for t in $TARGETS; do
    if [ -f "$OUT/$t.failed" ]; then
        failed=1
        cat "$OUT/$t.failed" >&2
        tail -30 "$OUT/$t.log" >&2
    fi
done
exit "${failed:-0}"

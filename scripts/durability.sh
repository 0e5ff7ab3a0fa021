#!/usr/bin/env bash
# Durability and long-run checks of issue 13 on a release build; results to Reports/durability.md.
#   scripts/durability.sh [disk|kill|meter ...]      (default: all three)
# disk:  --output on a full disk (a 48 KB tmpfs; needs root to mount) and on /dev/full: a clear
#        error, exit 3, every report left complete, no temporary files; a read-only folder is refused.
# kill:  kill -9 a batch at random moments, then finish it (with --resume when analyze has it):
#        the reports equal an uninterrupted run's, byte for byte, and none is ever half-written.
# meter: 24 hours of 16 kHz audio piped through `cadenza meter` as fast as it goes: resident memory
#        sampled every 5 s stays flat, and line k carries time k/10 exactly (864,000 lines).
set -uo pipefail
cd "$(dirname "$0")/.."
CHECKS=${*:-disk kill meter}
swift build -c release > /dev/null 2>&1 || { echo "release build failed" >&2; exit 1; }
C=$PWD/.build/release/cadenza
WORK=$(mktemp -d /tmp/cadenza-durability-XXXXXX)
trap 'umount "$WORK/tmpfs" 2>/dev/null; rm -rf "$WORK"' EXIT
REPORT=Reports/durability.md
OUT=$WORK/report.md
echo "# Durability and long runs" > "$OUT"
echo >> "$OUT"
echo "\`scripts/durability.sh $CHECKS\` on $(date -u +%Y-%m-%d), release build, $(nproc) cores shared with other work." >> "$OUT"
fail=0
check() { if eval "$2"; then echo "- [x] $1" >> "$OUT"; else echo "- [ ] **FAILED**: $1" >> "$OUT"; fail=1; fi; }

# A folder of inputs: 40 copies of a few fixtures under different names.
mkdir -p "$WORK/in"
i=0
for n in $(seq 1 10); do
    for f in tone_2s_stereo.flac tone_2s_stereo.opus tone_alac.m4a tone_2s_stereo.mp3; do
        i=$((i + 1)); cp "Fixtures/$f" "$WORK/in/$(printf %02d $i)-$f"
    done
done

complete_reports() {  # every .json below $1 is one complete JSON line; no temporary file left
    local bad=0
    while IFS= read -r -d '' f; do
        python3 -c 'import json,sys; d=open(sys.argv[1],"rb").read(); assert d.endswith(b"\n") and d.count(b"\n")==1; json.loads(d)' "$f" 2>/dev/null || { echo "incomplete: $f" >&2; bad=1; }
    done < <(find "$1" -name '*.json' -print0)
    return $bad
}
no_temporaries() { [ -z "$(find "$1" -name '.*.tmp-*' 2>/dev/null | head -1)" ]; }

if [[ " $CHECKS " == *" disk "* ]]; then
    echo -e "\n## Full disk, unwritable output\n" >> "$OUT"
    mkdir -p "$WORK/tmpfs"
    if mount -t tmpfs -o size=48k tmpfs "$WORK/tmpfs" 2>/dev/null; then
        "$C" analyze --for loudness,rhythm,key --jobs 2 --output "$WORK/tmpfs/out" "$WORK/in" > /dev/null 2> "$WORK/disk.err"
        st=$?
        n=$(find "$WORK/tmpfs/out" -name '*.json' | wc -l)
        check "48 KB tmpfs: exit 3 (was $st), message names the disk: $(grep -m1 'stopped after' "$WORK/disk.err" | cut -c1-160)" '[ $st -eq 3 ] && grep -q "No space left on device" "$WORK/disk.err"'
        check "48 KB tmpfs: the $n reports written before the disk filled are complete, no temporary files" 'complete_reports "$WORK/tmpfs/out" && no_temporaries "$WORK/tmpfs/out"'
        check "48 KB tmpfs: it stopped early ($n of 40 reports)" '[ $n -lt 40 ]'
        umount "$WORK/tmpfs"
        mount -t tmpfs -o ro,size=64k tmpfs "$WORK/tmpfs"
        "$C" analyze --for loudness --output "$WORK/tmpfs/out" "$WORK/in" > /dev/null 2> "$WORK/ro.err"; st=$?
        check "read-only output folder: refused before any analysis, exit $st: $(head -1 "$WORK/ro.err" | cut -c1-120)" '[ $st -eq 2 ] && grep -q "Read-only file system" "$WORK/ro.err"'
        umount "$WORK/tmpfs"
    else
        echo "- (tmpfs checks skipped: mounting needs root)" >> "$OUT"
    fi
    "$C" analyze --for loudness --jobs 2 "$WORK/in" > /dev/full 2> "$WORK/full.err"; st=$?
    check "NDJSON to /dev/full: exit 3 (was $st) after the first failed write: $(grep -m1 'stopped after' "$WORK/full.err" | cut -c1-120)" '[ $st -eq 3 ] && grep -q "stopped after 1 of" "$WORK/full.err"'
fi

if [[ " $CHECKS " == *" kill "* ]]; then
    echo -e "\n## kill -9 and resume\n" >> "$OUT"
    "$C" analyze --for loudness,rhythm,key --jobs 2 --output "$WORK/reference" "$WORK/in" > /dev/null 2>&1
    resume=()
    "$C" analyze --help | grep -q -- '--resume' && resume=(--resume)
    [ ${#resume[@]} -eq 0 ] && echo "- analyze has no --resume yet: each rerun analyses everything again" >> "$OUT"
    kills=0; partial=0
    for attempt in 1 2 3 4 5; do
        "$C" analyze --for loudness,rhythm,key --jobs 2 "${resume[@]}" --output "$WORK/killed" "$WORK/in" > /dev/null 2>&1 &
        pid=$!
        sleep "0.$((RANDOM % 9 + 1))"
        kill -9 $pid 2>/dev/null && kills=$((kills + 1))
        wait $pid 2>/dev/null
        sleep 0.3  # orphaned workers notice their parent is gone within 0.25 s
        complete_reports "$WORK/killed" || partial=$((partial + 1))
    done
    stale=$(find "$WORK/killed" -name '.*.tmp-*' | wc -l)
    echo "- temporary files left by the kills: $stale (removing stale ones on the next run is the catalog work, bug 12)" >> "$OUT"
    find "$WORK/killed" -name '.*.tmp-*' -delete
    "$C" analyze --for loudness,rhythm,key --jobs 2 "${resume[@]}" --output "$WORK/killed" "$WORK/in" > /dev/null 2>&1
    check "$kills kill -9 at random moments: never a half-written report ($partial runs left one)" '[ $partial -eq 0 ]'
    check "after the final run the reports equal the uninterrupted run's byte for byte (diff -r)" 'diff -r "$WORK/reference" "$WORK/killed" > /dev/null'
    left=$(pgrep -f "cadenza worker" | wc -l)
    check "no worker process outlives a killed batch ($left left)" '[ $left -eq 0 ]'
fi

if [[ " $CHECKS " == *" meter "* ]]; then
    echo -e "\n## meter on 24 hours of audio\n" >> "$OUT"
    rss="$WORK/rss.txt"; : > "$rss"
    start=$(date +%s)
    ffmpeg -nostdin -hide_banner -loglevel error -f lavfi -i "sine=frequency=997:sample_rate=16000:duration=86400" \
        -af volume=0.3 -f f32le -ac 1 - 2>/dev/null \
        | "$C" meter --format f32le --rate 16000 --channels 1 2> "$WORK/meter.err" \
        | awk -v bad="$WORK/meter.bad" '{ t = $0; sub(/^\{"time":/, "", t); sub(/,.*/, "", t); want = sprintf("%.1f", NR / 10); if (t != want && !printed) { print NR ": " t " != " want > bad; printed = 1 } } END { print NR }' > "$WORK/meter.count" &
    pipeline=$!
    sleep 2
    mpid=$(pgrep -n -f "cadenza meter --format f32le --rate 16000")
    while kill -0 "$mpid" 2>/dev/null; do
        awk '/VmRSS/ { print $2 }' "/proc/$mpid/status" 2>/dev/null >> "$rss"
        sleep 5
    done
    wait $pipeline
    secs=$(( $(date +%s) - start ))
    lines=$(cat "$WORK/meter.count")
    first=$(sed -n 3p "$rss"); peak=$(sort -n "$rss" | tail -1); last=$(grep . "$rss" | tail -1)
    echo "- 24 h of audio in $secs s ($(( 86400 / (secs > 0 ? secs : 1) ))x real time); $lines lines; resident memory (KB) at 10 s $first, peak $peak, last $last over $(wc -l < "$rss") samples" >> "$OUT"
    check "864,000 lines, line k at time k/10 exactly $(cat "$WORK/meter.bad" 2>/dev/null)" '[ "$lines" -eq 864000 ] && [ ! -s "$WORK/meter.bad" ]'
    check "constant memory: peak within 10 % + 2 MB of the value at 10 s" '[ "$peak" -le $(( first * 11 / 10 + 2048 )) ]'
    check "summary on stderr: $(grep 'Integrated' "$WORK/meter.err" | tr -s ' ')" 'grep -q "Integrated loudness" "$WORK/meter.err"'
fi
cp "$OUT" "$REPORT"
cat "$REPORT"
exit $fail

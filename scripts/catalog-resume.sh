#!/usr/bin/env bash
# Resume at catalog scale, measured on a release build:
#  1. a catalog of N short files (default 10,000 one-second WAVs in 100 folders) is analysed once
#     with --output, then analysed again: the time of the rerun with nothing to do;
#  2. kill -9 at random moments: a smaller catalog (default 120 files) is analysed with --output,
#     killed K times (default 8) at random delays and resumed each time until it completes; the
#     report folder is then compared byte for byte with one uninterrupted run (diff -r), and no
#     temporary file may be left.
# Usage: scripts/catalog-resume.sh [N] [KILLS] > Reports/catalog-resume.md
# Environment: ANALYSES (default all six), WORK (scratch folder, default a new one under /tmp).
set -euo pipefail
N=${1:-10000}
KILLS=${2:-8}
ANALYSES=${ANALYSES:-key,rhythm,structure,pace,instrumentActivity,loudness}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${WORK:-$(mktemp -d /tmp/cadenza-resume.XXXXXX)}
trap 'rm -rf "$WORK"' EXIT
swift build -c release --package-path "$ROOT" >&2
C="$ROOT/.build/release/cadenza"

make_catalog() {  # make_catalog DIR COUNT: COUNT one-second WAVs of different tones in 100 folders
  local dir=$1 count=$2
  mkdir -p "$dir/seed"
  for f in 0 1 2 3 4 5 6 7 8 9; do
    ffmpeg -nostdin -loglevel error -y -f lavfi -i "sine=f=$((220 + 55 * f)):d=1,aformat=channel_layouts=stereo" \
      -ar 44100 -c:a pcm_s16le "$dir/seed/$f.wav"
  done
  python3 - "$dir" "$count" <<'PY'
import os, shutil, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    folder = f"{d}/cat/{i % 100}"
    os.makedirs(folder, exist_ok=True)
    shutil.copyfile(f"{d}/seed/{i % 10}.wav", f"{folder}/track {i}.wav")
PY
  rm -rf "$dir/seed"
}

seconds() { python3 -c 'import sys,time; print(f"{time.time():.3f}")'; }

echo "# Resume and kill -9 at catalog scale"
echo
echo "Made by \`scripts/catalog-resume.sh $N $KILLS\` on $(date -u '+%Y-%m-%d %H:%M UTC'), release build, $(nproc) cores"
echo "(load average before: $(cut -d' ' -f1-3 /proc/loadavg)), analyses: $ANALYSES."
echo

# 1. Nothing to do.
make_catalog "$WORK/big" "$N"
t0=$(seconds)
"$C" analyze --for "$ANALYSES" --no-progress -o "$WORK/big/out" "$WORK/big/cat" 2> "$WORK/first.err" || true
t1=$(seconds)
"$C" analyze --for "$ANALYSES" --no-progress -o "$WORK/big/out" "$WORK/big/cat" 2> "$WORK/second.err" || true
t2=$(seconds)
"$C" analyze --for "$ANALYSES" --no-progress -o "$WORK/big/out" "$WORK/big/cat" 2> "$WORK/third.err" || true
t3=$(seconds)
echo "## Rerun with nothing to do ($N files)"
echo
echo "| run | wall s | summary |"
echo "|---|---:|---|"
echo "| first (analyses everything) | $(python3 -c "print(f'{$t1-$t0:.1f}')") | $(tail -1 "$WORK/first.err") |"
echo "| second (all current) | $(python3 -c "print(f'{$t2-$t1:.2f}')") | $(tail -1 "$WORK/second.err") |"
echo "| third (all current) | $(python3 -c "print(f'{$t3-$t2:.2f}')") | $(tail -1 "$WORK/third.err") |"
echo
rm -rf "$WORK/big"

# 2. kill -9 at random moments, then resume.
M=$(( N < 120 ? N : 120 ))
make_catalog "$WORK/small" "$M"
cd "$WORK/small"
"$C" analyze --for "$ANALYSES" --jobs 2 --no-progress -o whole cat 2>/dev/null || true
first=$(seconds)
"$C" analyze --for "$ANALYSES" --jobs 2 --no-progress -o probe cat 2>/dev/null || true
full=$(python3 -c "print($(seconds) - $first)")
rm -rf probe
echo "## kill -9 at random moments ($M files, $KILLS kills, --jobs 2)"
echo
echo "| kill | after s | reports before the kill | temporary files left by it |"
echo "|---:|---:|---:|---:|"
for ((k = 1; k <= KILLS; k++)); do
  delay=$(python3 -c "import random; print(f'{random.uniform(0.25, 0.25 + $full / $KILLS):.2f}')")
  "$C" analyze --for "$ANALYSES" --jobs 2 --no-progress -o resumed cat 2>/dev/null &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  reports=$(find resumed -name '*.json' ! -name '.*' 2>/dev/null | wc -l)
  temps=$(find resumed -name '.*.tmp-*' 2>/dev/null | wc -l)
  echo "| $k | $delay | $reports | $temps |"
done
"$C" analyze --for "$ANALYSES" --jobs 2 --no-progress -o resumed cat 2> final.err || true
echo
echo "Final rerun: $(tail -1 final.err)"
echo
if diff -r whole resumed > diff.txt; then
  echo "**Same reports, byte for byte**: \`diff -r\` of the resumed folder against an uninterrupted run is empty"
else
  echo "**DIFFERENT**: $(wc -l < diff.txt) lines of diff -r"
fi
left=$(find resumed -name '.*.tmp-*' | wc -l)
echo "($(find whole -name '*.json' | wc -l) reports each; temporary files left after the rerun: $left)."

#!/usr/bin/env bash
# Throughput of the whole analysis on real music, beside Essentia's MusicExtractor and ffmpeg
# decoding alone, on the same files in the same run; one core each (--jobs 1, -threads 1).
#
# The files: the eval harness's realmusic set (default /work/shared/eval/corpus/realmusic, or the
# folder given), transcoded once to stereo 44.1 kHz MP3 (LAME 192 kbit/s) as the targets are stated
# for MP3. x real time per core = seconds of audio / CPU seconds (user + system) of the process.
# Peak memory = maximum resident set size of the process (GNU time), the whole set in one process.
# Also: --jobs 2 against --jobs 1 on the same files (wall time), for the scaling target.
#
# Usage: scripts/catalog-bench.sh [FOLDER] > Reports/catalog-bench.md
# Environment: ESSENTIA_PYTHON (default /work/shared/eval/.venv/bin/python), SKIP_ESSENTIA=1.
set -euo pipefail
SRC=${1:-/work/shared/eval/corpus/realmusic}
PY=${ESSENTIA_PYTHON:-/work/shared/eval/.venv/bin/python}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/cadenza-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
swift build -c release --package-path "$ROOT" >&2
C="$ROOT/.build/release/cadenza"
TIME=/usr/bin/time

mkdir -p "$WORK/mp3"
for f in "$SRC"/*; do
  case "$f" in *.json) continue ;; esac
  [ -f "$f" ] || continue
  name=$(basename "${f%.*}")
  ffmpeg -nostdin -loglevel error -y -i "$f" -vn -ac 2 -ar 44100 -c:a libmp3lame -b:a 192k "$WORK/mp3/$name.mp3"
done
FILES=("$WORK"/mp3/*.mp3)
AUDIO=$(for f in "${FILES[@]}"; do ffprobe -v error -show_entries format=duration -of csv=p=0 "$f"; done | python3 -c 'import sys; print(sum(float(x) for x in sys.stdin))')

# measure NAME COMMAND...: one row (CPU s, wall s, x real time per core, peak MB)
measure() {
  local name=$1; shift
  "$TIME" -f "%U %S %e %M" -o "$WORK/time" "$@" > /dev/null 2> "$WORK/err" || true
  read -r user sys wall kb < <(tail -1 "$WORK/time")
  python3 -c "
cpu = $user + $sys
print(f'| $name | {cpu:.1f} | {$wall:.1f} | {$AUDIO / cpu:.0f} | {$kb / 1024:.0f} |')"
}

echo "# Catalog benchmark: all six analyses, each alone, Essentia MusicExtractor, ffmpeg decode"
echo
echo "Made by \`scripts/catalog-bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), release build, $(nproc) cores;"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: CPU times are"
echo "steadier than wall times). ${#FILES[@]} files of the harness realmusic set as stereo 44.1 kHz MP3,"
echo "$(python3 -c "print(f'{$AUDIO / 60:.1f}')") minutes of audio; one process over all files, one core."
echo
echo "| run | CPU s | wall s | x real time per core | peak MB |"
echo "|---|---:|---:|---:|---:|"
measure "ffmpeg decode only (\`-threads 1 -f null\`)" bash -c 'for f in "$@"; do ffmpeg -nostdin -loglevel error -threads 1 -i "$f" -f f32le -y /dev/null; done' _ "${FILES[@]}"
measure "cadenza --for loudness (decode + loudness)" "$C" analyze --for loudness --jobs 1 --no-progress "${FILES[@]}"
measure "**cadenza, all six analyses**" "$C" analyze --jobs 1 --no-progress "${FILES[@]}"
for a in rhythm key structure pace instrumentActivity; do
  measure "cadenza --for $a" "$C" analyze --for "$a" --jobs 1 --no-progress "${FILES[@]}"
done
if [ -z "${SKIP_ESSENTIA:-}" ] && "$PY" -c 'import essentia.standard' 2>/dev/null; then
  cat > "$WORK/essentia.py" <<'PY'
import sys, essentia
essentia.log.infoActive = False
essentia.log.warningActive = False
import essentia.standard as es
for path in sys.argv[1:]:
    es.MusicExtractor()(path)
PY
  measure "Essentia MusicExtractor (peer, Python, one process)" "$PY" "$WORK/essentia.py" "${FILES[@]}"
  "$TIME" -f "%U %S" -o "$WORK/t0" "$PY" -c 'import essentia.standard' 2>/dev/null
  echo
  echo "(Essentia's import alone costs $(awk '{printf "%.1f", $1 + $2}' "$WORK/t0") CPU s of that row.)"
fi
echo
echo "## --jobs 2 against --jobs 1 (all six analyses, same files, wall time)"
echo
echo "| jobs | wall s | CPU s | speed-up | peak MB |"
echo "|---:|---:|---:|---:|---:|"
for j in 1 2; do
  "$TIME" -f "%U %S %e %M" -o "$WORK/time" "$C" analyze --jobs "$j" --no-progress "${FILES[@]}" > /dev/null 2>&1 || true
  read -r user sys wall kb < <(tail -1 "$WORK/time")
  [ "$j" = 1 ] && base=$wall
  python3 -c "print(f'| $j | {$wall:.1f} | {$user + $sys:.1f} | {$base / $wall:.2f} | {$kb / 1024:.0f} |')"
done
echo
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)."

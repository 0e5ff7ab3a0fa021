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
# Environment: ESSENTIA_PYTHON (default /work/shared/eval/.venv/bin/python), SKIP_ESSENTIA=1,
# LONG_FILE=path (a long file, e.g. 3 hours, added to a --jobs 2 run for the memory bound).
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

# measure NAME COMMAND...: one row. CPU = the whole process tree (cadenza analyses in worker
# processes), from a cgroup-v1 cpuacct group when one can be made, else GNU time of the parent;
# peak MB = the largest resident set of any one process of the tree (a worker: memory per job) and
# the peak of the tree's summed resident sets (shared library pages counted once per process) and
# summed proportional set sizes (PSS: shared pages split between their processes), sampled every 50 ms.
cat > "$WORK/measure.py" <<'PY'
import os, sys, time, subprocess, glob
name, audio, cmd = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
group = f"/sys/fs/cgroup/cpuacct/cadenza-bench-{os.getpid()}"
try:
    os.mkdir(group)
except OSError:
    group = None
def preexec():
    if group:
        with open(group + "/tasks", "w") as f: f.write(str(os.getpid()))
t0 = time.time(); ru0 = os.times()
err = open(os.environ.get("MEASURE_ERR", "/dev/null"), "w")
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, preexec_fn=preexec)
hwm, peak_sum, peak_pss = {}, 0, 0
def pss(pid):
    # Proportional set size: shared pages (the libraries every process maps) split between
    # the processes that share them, so the sum over the tree is the memory the tree takes.
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"): return int(line.split()[1])
    except OSError: pass
    return 0
def rss(pid, key):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith(key): return int(line.split()[1])
    except OSError: pass
    return 0
while p.poll() is None:
    pids = [int(x) for x in open(group + "/cgroup.procs").read().split()] if group else [p.pid]
    total, total_pss = 0, 0
    for pid in pids:
        hwm[pid] = max(hwm.get(pid, 0), rss(pid, "VmHWM:"))
        total += rss(pid, "VmRSS:")
        total_pss += pss(pid)
    peak_sum = max(peak_sum, total)
    peak_pss = max(peak_pss, total_pss)
    time.sleep(0.05)
wall = time.time() - t0
if group:
    for _ in range(200):  # worker processes end a moment after the parent: their time counts too
        if not open(group + "/cgroup.procs").read().split(): break
        time.sleep(0.05)
    cpu = int(open(group + "/cpuacct.usage").read()) / 1e9
    try:
        os.rmdir(group)
    except OSError:
        pass
else:
    ru = os.times(); cpu = (ru.children_user - ru0.children_user) + (ru.children_system - ru0.children_system)
print(f"| {name} | {cpu:.1f} | {wall:.1f} | {audio / cpu:.0f} | {max(hwm.values()) / 1024:.0f} | {peak_sum / 1024:.0f} | {peak_pss / 1024:.0f} |")
PY
measure() { local name=$1; shift; MEASURE_ERR="$WORK/measure.err" python3 "$WORK/measure.py" "$name" "$AUDIO" "$@"; }

echo "# Catalog benchmark: all six analyses, each alone, Essentia MusicExtractor, ffmpeg decode"
echo
echo "Made by \`scripts/catalog-bench.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), release build, $(nproc) cores;"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared: CPU times are"
echo "steadier than wall times). ${#FILES[@]} files of the harness realmusic set as stereo 44.1 kHz MP3,"
echo "$(python3 -c "print(f'{$AUDIO / 60:.1f}')") minutes of audio; one process over all files, one core."
echo
echo "| run | CPU s | wall s | x real time per core | peak MB (largest process) | peak MB (all processes, RSS) | peak MB (all processes, PSS) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
measure "ffmpeg decode only (\`-threads 1 -f null\`)" bash -c 'for f in "$@"; do ffmpeg -nostdin -loglevel error -threads 1 -i "$f" -f f32le -y /dev/null; done' _ "${FILES[@]}"
measure "cadenza --for loudness (decode + loudness)" "$C" analyze --for loudness --jobs 1 --no-progress "${FILES[@]}"
measure "**cadenza, all six analyses**" "$C" analyze --jobs 1 --no-progress "${FILES[@]}"
for a in rhythm key structure pace instrumentActivity; do
  measure "cadenza --for $a" "$C" analyze --for "$a" --jobs 1 --no-progress "${FILES[@]}"
done
if [ -z "${SKIP_ESSENTIA:-}" ] && "$PY" -c 'import essentia.standard' 2>/dev/null; then
  cat > "$WORK/peer_extractor.py" <<'PY'
import sys, essentia
essentia.log.infoActive = False
import essentia.standard as es
for path in sys.argv[1:]:
    es.MusicExtractor()(path)
PY
  measure "Essentia MusicExtractor (peer, Python, one process)" "$PY" "$WORK/peer_extractor.py" "${FILES[@]}"
  tail -3 "$WORK/measure.err" >&2
  "$TIME" -f "%U %S" -o "$WORK/t0" "$PY" -c 'import essentia.standard' 2>/dev/null
  echo
  echo "(Essentia's import alone costs $(awk '{printf "%.1f", $1 + $2}' "$WORK/t0") CPU s of that row.)"
fi
echo
echo "## --jobs 2 against --jobs 1 (all six analyses, same files, wall time)"
echo
echo "| run | CPU s | wall s | x real time per core | peak MB (largest process) | peak MB (all processes, RSS) | peak MB (all processes, PSS) |"
echo "|---|---:|---:|---:|---:|---:|---:|"
measure "--jobs 1" "$C" analyze --jobs 1 --no-progress "${FILES[@]}"
measure "--jobs 2" "$C" analyze --jobs 2 --no-progress "${FILES[@]}"
if [ -n "${LONG_FILE:-}" ]; then
  AUDIO=$(python3 -c "print($AUDIO + $(ffprobe -v error -show_entries format=duration -of csv=p=0 "$LONG_FILE"))")
  measure "--jobs 2, the set plus a $(basename "$LONG_FILE")" "$C" analyze --jobs 2 --no-progress "$LONG_FILE" "${FILES[@]}"
fi
echo
echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)."

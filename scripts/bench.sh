#!/usr/bin/env bash
# Speed benchmark: `cadenza bench` on FILE (decode, loudness, rhythm, key, beside ffmpeg's ebur128
# filter), then the eval harness's Python peers on the same file (Essentia RhythmExtractor2013 and
# KeyExtractor; librosa's beat_track segfaults in numba on this machine when run standalone, so its
# per-file CPU time is taken from the harness's anchors/librosa/timing.json instead), each timed as CPU seconds including loading the audio.
# Usage: scripts/bench.sh FILE [> Reports/bench.md]
set -euo pipefail
cd "$(dirname "$0")/.."
FILE="${1:?usage: scripts/bench.sh FILE}"
EVAL="${CADENZA_EVAL:-$PWD/../shared/eval}"
swift build -c release >/dev/null
echo "# Benchmark ($(date -u +%Y-%m-%d), $(nproc) cores, one core per stage)"
echo
.build/release/cadenza bench --repeat 7 "$FILE"
PY="$EVAL/.venv/bin/python"
if [ -x "$PY" ]; then
  echo
  echo "Peers on the same file (CPU s, audio loading included; one run each after a warm-up):"
  echo
  echo "| peer | CPU s | x real time |"
  echo "|---|---:|---:|"
  OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$PY" - "$FILE" <<'PY' 2>/dev/null
import sys, time, warnings
warnings.filterwarnings("ignore")
path = sys.argv[1]
import essentia.standard as es
def timed(name, fn, duration):
    fn()  # warm-up (JIT, caches)
    t = time.process_time(); fn(); cpu = time.process_time() - t
    print(f"| {name} | {cpu:.3f} | {duration / cpu:.0f} |")
audio = es.MonoLoader(filename=path, sampleRate=44100)()
duration = len(audio) / 44100.0
timed("essentia RhythmExtractor2013 (multifeature)", lambda: es.RhythmExtractor2013(method="multifeature")(es.MonoLoader(filename=path, sampleRate=44100)()), duration)
timed("essentia RhythmExtractor2013 (degara)", lambda: es.RhythmExtractor2013(method="degara")(es.MonoLoader(filename=path, sampleRate=44100)()), duration)
timed("essentia KeyExtractor (edma)", lambda: es.KeyExtractor(profileType="edma")(es.MonoLoader(filename=path, sampleRate=44100)()), duration)
PY
fi

#!/usr/bin/env bash
# Tests `cadenza plot` as a person sees it: installs Debian's chromium (and python3-pil), draws
# Reports/sample-report.json (a 45 s song) and a 1-hour mix made from it, renders both pages in
# headless Chromium to PNG and checks the pictures (scripts/plot_check.py: not blank, instrument
# lanes coloured exactly where the report's ranges are, one colour per section label, key bands,
# bar lines at the bars, the loudness curve's edge). Usage: scripts/plot-check.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-/tmp/cadenza-plot-check}"
mkdir -p "$OUT"

missing=""
for p in chromium python3-pil; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  SUDO=""; [ "$(id -u)" = "0" ] || SUDO="sudo"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing
fi

swift build --product cadenza >/dev/null
CADENZA=.build/debug/cadenza
/usr/bin/python3 scripts/plot_check.py long Reports/sample-report.json "$OUT/mix.json" 1
"$CADENZA" plot Reports/sample-report.json -o "$OUT/song.html"
"$CADENZA" plot "$OUT/mix.json" -o "$OUT/mix.html"
"$CADENZA" plot Reports/sample-report.json -o "$OUT/song.svg"

shoot() {  # page png height
  timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
    --window-size=1200,"$3" --screenshot="$2" "file://$(realpath "$1")" >/dev/null 2>&1
  test -s "$2"
}
shoot "$OUT/song.html" "$OUT/song.png" 640
shoot "$OUT/mix.html" "$OUT/mix.png" 640
shoot "$OUT/song.svg" "$OUT/song-svg.png" 600
/usr/bin/python3 scripts/plot_check.py check \
  "$OUT/song.html" "$OUT/song.png" Reports/sample-report.json \
  "$OUT/mix.html" "$OUT/mix.png" "$OUT/mix.json" \
  "$OUT/song.svg" "$OUT/song-svg.png" Reports/sample-report.json

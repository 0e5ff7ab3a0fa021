#!/usr/bin/env bash
# Out-of-sample check on game music that no tuning has seen: 171 tracks of six Debian packages
# (widelands, megaglest, supertuxkart, supertux, freedroidrpg, hedgewars; orchestral, medieval,
# chiptune, electronic and pop-styled soundtracks, almost all without singing).
#
# usage: scripts/fresh-game-music.sh CADENZA_BINARY WORKDIR [--peers]
#
# 1. Downloads the packages' .deb files with `apt-get download` (about 1.8 GB, no install) and
#    extracts their music into WORKDIR/tracks, named PACKAGE__file (vocal-share.py groups by it).
# 2. Prints how many tracks get no beats, and the share of each package's
#    time read as vocal with the defaults and with `instrumentActivity.vocalPhraseMotion` 2.5 and
#    `vocalResidualLevel` -20 (scripts/vocal-share.py; any vocal is false on instrumental music).
# 3. With --peers: cuts 60 s clips from 20 s in (tracks shorter than 50 s are left out) and runs
#    scripts/peer-consensus.py on them (Essentia's RhythmExtractor2013 and madmom's RNN + DBN; about
#    40 minutes on one core), which lists the clips where the two peers agree on a tempo that ours
#    is not.
#
# No human truth exists for these tracks; the figures are in docs/evaluation.md ("Fresh game music").
# needs: apt-get (Debian bookworm sources), dpkg-deb, ffmpeg, ffprobe, python3; --peers needs the eval
# harness venv (CADENZA_EVAL, default ../shared/eval).
set -euo pipefail

if [[ $# -lt 2 ]]; then
    sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
BIN=$(realpath "$1")
WORK=$(realpath -m "$2")
PEERS=${3:-}
HERE=$(cd "$(dirname "$0")" && pwd)
EVAL=${CADENZA_EVAL:-$HERE/../../shared/eval}
PACKAGES=(widelands-data megaglest-data supertuxkart-data supertux-data freedroidrpg-data hedgewars-data)

mkdir -p "$WORK/debs" "$WORK/tracks" "$WORK/unpacked"
(cd "$WORK/debs" && for p in "${PACKAGES[@]}"; do ls "${p}"_*.deb > /dev/null 2>&1 || apt-get download "$p"; done)
for deb in "$WORK"/debs/*.deb; do
    package=$(basename "$deb" | sed 's/-data_.*//')
    target="$WORK/unpacked/$package"
    mkdir -p "$target"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$target" --wildcards '*[Mm]usic*' 2> /dev/null || true
    find "$target" -type f \( -iname '*.ogg' -o -iname '*.mp3' -o -iname '*.opus' -o -iname '*.flac' \) | grep -i music |
        while read -r f; do
            name=$(echo "${f#"$target"/}" | sed 's|^usr/share/games/||; s|^usr/share/||; s|/|_|g; s| |_|g')
            cp -n "$f" "$WORK/tracks/${package}__${name}"
        done
done
echo "$(ls "$WORK/tracks" | wc -l) tracks in $WORK/tracks"

# One run with the defaults serves the beats and the default vocal share.
"$BIN" analyze --no-progress --for rhythm,instrumentActivity "$WORK/tracks" > "$WORK/defaults.ndjson" 2> /dev/null || true
python3 - "$WORK/defaults.ndjson" << 'EOF'
import json, sys
reports = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
without = [(r["source"]["path"].rsplit("/", 1)[-1], r["source"].get("duration") or 0)
           for r in reports if "rhythm" in r and not r["rhythm"].get("beats")]
print("%d of %d tracks without beats" % (len(without), len(reports)))
for name, duration in without:
    print("  %s (%.1f s)" % (name, duration))
EOF

echo "vocal share, defaults:"
python3 "$HERE/vocal-share.py" --reports "$WORK/defaults.ndjson" | grep "tracks, median"
echo '{"instrumentActivity": {"vocalPhraseMotion": 2.5, "vocalResidualLevel": -20}}' > "$WORK/phrase.json"
"$BIN" analyze --no-progress --for instrumentActivity --configuration "$WORK/phrase.json" "$WORK/tracks" \
    > "$WORK/phrase.ndjson" 2> /dev/null || true
echo "vocal share, vocalPhraseMotion 2.5 and vocalResidualLevel -20:"
python3 "$HERE/vocal-share.py" --reports "$WORK/phrase.ndjson" | grep "tracks, median"

if [[ "$PEERS" == "--peers" ]]; then
    mkdir -p "$WORK/clips"
    for f in "$WORK"/tracks/*; do
        clip="$WORK/clips/$(basename "${f%.*}").flac"
        [[ -e "$clip" ]] && continue
        duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$f")
        python3 -c "import sys; sys.exit(0 if float('$duration') >= 50 else 1)" || continue
        ffmpeg -v error -y -ss 20 -t 60 -i "$f" -ac 2 "$clip"
    done
    CADENZA_EVAL="$EVAL" "$EVAL/.venv/bin/python" "$HERE/peer-consensus.py" "$BIN" "$WORK" "$WORK"/clips/*.flac
fi

#!/usr/bin/env bash
# Regenerates Tests/MusicUnderstandingTests/Resources/fixtures-expected.json: what `cadenza analyze` must report for every committed
# fixture, measured by tools independent of Cadenza (Tests/MusicUnderstandingTests/CLITests.swift
# checks the command-line tool against it).
#
#   scripts/make-fixture-expectations.sh [FIXTURES_DIR]     (default: Fixtures next to this script)
#
# Needs bash, ffmpeg and ffprobe (scripts/setup.sh installs them). For each decodable fixture:
#   sampleRate, channels, codec  ffprobe, first audio stream
#   duration                     ffmpeg decodes the first audio stream (at that rate) and the samples
#                                are counted; tolerance 1 ms for PCM and lossless codecs, 30 ms (about
#                                one codec frame) for lossy ones, whose priming/padding handling may
#                                differ between FFmpeg versions
#   integrated, truePeak         ffmpeg's EBU R128 filter: `ffmpeg -i F -af ebur128=peak=true -f null -`.
#                                The Summary prints one decimal; the integrated value is taken with three
#                                decimals from the filter's frame metadata (lavfi.r128.I of the last frame,
#                                checked to round to the Summary value). Integrated is null for files
#                                shorter than 0.4 s (no complete gating block: undefined; ffmpeg prints its
#                                -70 floor). Tolerances: integrated 0.1 LU, true peak 0.3 dB.
#                                If ffmpeg re-initialises its filter graph mid-file (a chained Ogg whose
#                                rate and layout change), it prints one Summary per part; the file is then
#                                decoded to the first part's rate and layout (as Cadenza's decoder does) and
#                                piped as raw float into the same filter ("peerMethod": "pipe").
#   warning                      true for the damaged fixtures (table DAMAGED below, from Fixtures/README.md)
# Undecodable fixtures (table ERRORS below) get their expected error code; the script checks that
# ffmpeg decodes no audio from them either. SKIPPED files are not inputs in a folder walk (named on
# the command line they give the error code listed).
set -euo pipefail

DIR="${1:-$(cd "$(dirname "$0")/../Fixtures" && pwd)}"
OUT="$(cd "$(dirname "$0")/.." && pwd)/Tests/MusicUnderstandingTests/Resources/fixtures-expected.json"

declare -A ERRORS=(
  [notes.mp3]=decodeFailed
  [random_bytes.flac]=decodeFailed
  [huge_samplerate.wav]=decodeFailed
  [video_only.mp4]=noAudioStream
  [zero_frames.wav]=zeroLength
  [unknown_codec.wav]=unsupportedCodec
)
declare -A SKIPPED=([cover.png]=noAudioStream)
declare -A DAMAGED=([truncated.mp3]=1 [header_overclaims.wav]=1)
NOT_FIXTURES=" README.md "

command -v ffmpeg >/dev/null && command -v ffprobe >/dev/null || { echo "needs ffmpeg and ffprobe" >&2; exit 1; }
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# Number of samples per channel ffmpeg decodes from the first audio stream of $1 at rate $2.
count_samples() {
  local bytes
  bytes=$(ffmpeg -nostdin -v error -i "$1" -map 0:a:0 -ac 1 -ar "$2" -f f32le - 2>/dev/null | wc -c)
  echo $((bytes / 4))
}

# Runs ffmpeg's ebur128 filter on $1 (rate $2, channels $3); leaves the log in $TMP/log and the
# frame metadata in $TMP/meta; prints the method used.
run_ebur128() {
  local filter="ebur128=peak=true:metadata=1,ametadata=mode=print:file=$TMP/meta"
  ffmpeg -nostdin -nostats -hide_banner -i "$1" -map 0:a:0 -af "$filter" -f null - >"$TMP/log" 2>&1
  if [ "$(grep -c 'Summary:' "$TMP/log")" -gt 1 ]; then
    ffmpeg -nostdin -v error -i "$1" -map 0:a:0 -ar "$2" -ac "$3" -f f32le - \
      | ffmpeg -nostdin -nostats -hide_banner -f f32le -ar "$2" -ac "$3" -i - -af "$filter" -f null - >"$TMP/log" 2>&1
    echo pipe
  else
    echo direct
  fi
}

good=""
bad=""
skipped=""
for path in "$DIR"/*; do
  name="$(basename "$path")"
  [[ "$NOT_FIXTURES" == *" $name "* ]] && continue
  if [ -n "${SKIPPED[$name]:-}" ]; then
    skipped+="${skipped:+,}"$'\n'"    \"$name\": {\"code\": \"${SKIPPED[$name]}\"}"
    continue
  fi
  if [ -n "${ERRORS[$name]:-}" ]; then
    if [ "$(count_samples "$path" 44100)" -ne 0 ]; then
      echo "$name: listed as undecodable but ffmpeg decodes audio from it; update the table" >&2; exit 1
    fi
    bad+="${bad:+,}"$'\n'"    \"$name\": {\"code\": \"${ERRORS[$name]}\"}"
    continue
  fi

  probe=$(ffprobe -v error -select_streams a:0 -show_entries stream=codec_name,sample_rate,channels -of default=nw=1 "$path")
  codec=$(sed -n 's/^codec_name=//p' <<<"$probe")
  rate=$(sed -n 's/^sample_rate=//p' <<<"$probe")
  channels=$(sed -n 's/^channels=//p' <<<"$probe")
  if [ -z "$codec" ] || [ -z "$rate" ] || [ "$rate" = 0 ]; then
    echo "$name: no decodable audio stream; add it to ERRORS or SKIPPED" >&2; exit 1
  fi
  samples=$(count_samples "$path" "$rate")
  [ "$samples" -gt 0 ] || { echo "$name: decodes to no samples; add it to ERRORS" >&2; exit 1; }
  duration=$(awk -v n="$samples" -v r="$rate" 'BEGIN { printf "%.6f", n / r }')
  case "$codec" in pcm_*|flac|alac|wavpack|tta|ape) dtol=0.001 ;; *) dtol=0.03 ;; esac

  method=$(run_ebur128 "$path" "$rate" "$channels")
  summary_i=$(sed -n '/Integrated loudness:/,/Threshold/s/^ *I: *\(-\{0,1\}[0-9.]*\) LUFS.*/\1/p' "$TMP/log" | tail -1)
  peak=$(sed -n '/True peak:/,$s/^ *Peak: *\(-\{0,1\}[0-9.inf]*\) dBFS.*/\1/p' "$TMP/log" | tail -1)
  meta_i=$(sed -n 's/^lavfi\.r128\.I=//p' "$TMP/meta" | tail -1)
  [ -n "$summary_i" ] && [ -n "$peak" ] && [ -n "$meta_i" ] || { echo "$name: cannot parse ffmpeg's ebur128 output" >&2; exit 1; }
  if awk -v d="$duration" 'BEGIN { exit !(d < 0.4) }'; then
    integrated=null
  else
    awk -v a="$meta_i" -v b="$summary_i" 'BEGIN { d = a - b; exit !(d <= 0.051 && d >= -0.051) }' \
      || { echo "$name: metadata I $meta_i does not match Summary I $summary_i" >&2; exit 1; }
    integrated="$meta_i"
  fi
  warning=false
  [ -n "${DAMAGED[$name]:-}" ] && warning=true

  good+="${good:+,}"$'\n'"    \"$name\": {\"sampleRate\": $rate, \"channels\": $channels, \"codec\": \"$codec\", \"duration\": $duration, \"durationTolerance\": $dtol, \"integrated\": $integrated, \"integratedTolerance\": 0.1, \"truePeak\": $peak, \"truePeakTolerance\": 0.3, \"warning\": $warning, \"peerMethod\": \"$method\"}"
done

version=$(ffmpeg -version | head -1 | sed 's/ Copyright.*//')
{
  echo "{"
  echo "  \"generatedBy\": \"scripts/make-fixture-expectations.sh\","
  echo "  \"peer\": \"$version; ebur128=peak=true\","
  echo "  \"good\": {$good"
  echo "  },"
  echo "  \"bad\": {$bad"
  echo "  },"
  echo "  \"skipped\": {$skipped"
  echo "  }"
  echo "}"
} >"$OUT"
echo "wrote $OUT" >&2

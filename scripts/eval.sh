#!/usr/bin/env bash
# Runs the shared evaluation harness (../shared/eval, see its README) on a release build and
# writes the score table to Reports/eval.md. Usage: scripts/eval.sh [categories] [analyses]
#   scripts/eval.sh                                  # every category, every analysis
#   scripts/eval.sh tonal,songs key,rhythm
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
EVAL="${CADENZA_EVAL:-$ROOT/../shared/eval}"
CATS="${1:-loudness,tonal,songs,formats,bad,realmusic}"
FOR="${2:-}"
[ -x "$EVAL/.venv/bin/python" ] || { echo "eval harness not set up: run $EVAL/setup.sh and make_corpus.py" >&2; exit 1; }
swift build -c release >/dev/null
BIN="$ROOT/.build/release/cadenza"
OUT="$(mktemp -d)"
ARGS=()
[ -n "$FOR" ] && ARGS+=(--for "$FOR")
cd "$EVAL/corpus"
start=$(date +%s.%N)
"$BIN" analyze --no-progress "${ARGS[@]}" ${CATS//,/ } > "$OUT/reports.ndjson" || true
end=$(date +%s.%N)
cd "$EVAL"
.venv/bin/python reports_from_ndjson.py "$OUT/reports.ndjson" "$OUT/reports" >/dev/null
{
  echo "# Evaluation ($(date -u +%Y-%m-%d), categories: $CATS${FOR:+, analyses: $FOR})"
  echo
  echo "Wall time of \`cadenza analyze\` over these categories on 2 cores: $(printf '%.1f' "$(echo "$end - $start" | bc)") s"
  echo
  .venv/bin/python score.py "$OUT/reports" --tool cadenza --all --categories "$CATS"
} > "$ROOT/Reports/eval.md"
# Both halves (score.py's stable split by file name) of the categories with annotations, beside
# every peer whose anchors are present (madmom and librosa only when anchors.py has run them).
HALVES=""
for c in tonal songs formats; do case ",$CATS," in *",$c,"*) HALVES="${HALVES:+$HALVES,}$c";; esac; done
if [ -n "$HALVES" ]; then
  {
    echo "# Evaluation by half ($(date -u +%Y-%m-%d), categories: $HALVES${FOR:+, analyses: $FOR})"
    for h in A B; do
      echo; echo "## Half $h"; echo
      .venv/bin/python score.py "$OUT/reports" --tool cadenza --all --categories "$HALVES" --half "$h"
    done
  } > "$ROOT/Reports/eval-halves.md"
fi
cat "$ROOT/Reports/eval.md"
echo "reports kept in $OUT" >&2

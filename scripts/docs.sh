#!/usr/bin/env bash
# Builds the API reference of MusicUnderstanding with DocC (from the compiler's symbol graph) into
# .build/docs (static HTML: `python3 -m http.server -d .build/docs`), and fails when a public
# declaration has no doc comment. Usage: scripts/docs.sh [--check-only]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -d /opt/swift/usr/bin ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
# On a clean clone the test modules are not built yet, and dump-symbol-graph then fails for them
# after writing the library's graph: only the library's graph is needed, fresh, so it is checked.
rm -rf ".build/$(uname -m)-unknown-linux-gnu/symbolgraph"
swift package dump-symbol-graph --minimum-access-level public >/dev/null 2>&1 || true
GRAPHS=".build/$(uname -m)-unknown-linux-gnu/symbolgraph"
[ -f "$GRAPHS/MusicUnderstanding.symbols.json" ] || GRAPHS="$(dirname "$(find .build -name MusicUnderstanding.symbols.json -path '*symbolgraph*' | head -1)")"
[ -f "$GRAPHS/MusicUnderstanding.symbols.json" ] || { echo "docs: the symbol graph of MusicUnderstanding was not written" >&2; exit 1; }
python3 scripts/doc-coverage.py "$GRAPHS/MusicUnderstanding.symbols.json"
[ "${1:-}" = "--check-only" ] && exit 0
ONLY="$(mktemp -d)"
cp "$GRAPHS"/MusicUnderstanding*.symbols.json "$ONLY"/
rm -rf .build/docs
docc convert docs/MusicUnderstanding.docc --additional-symbol-graph-dir "$ONLY" \
  --fallback-display-name MusicUnderstanding --fallback-bundle-identifier org.cadenza.MusicUnderstanding \
  --output-path .build/docs >/dev/null
rm -rf "$ONLY"
echo "docs: API reference in .build/docs ($(find .build/docs -name '*.json' -path '*data/documentation*' | wc -l) pages)"

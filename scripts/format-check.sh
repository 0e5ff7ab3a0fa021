#!/usr/bin/env bash
# Checks that the Swift sources are formatted as `.swift-format` says (swift-format ships with the
# toolchain). Fix with: swift format format --in-place --recursive Sources Tests Fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -d /opt/swift/usr/bin ]; then export PATH="/opt/swift/usr/bin:$PATH"; fi
if ! out="$(swift format lint --strict --recursive Sources Tests Fuzz 2>&1)"; then
  echo "$out" | head -50
  echo "format-check: $(echo "$out" | grep -c 'warning\|error') findings; run: swift format format --in-place --recursive Sources Tests Fuzz" >&2
  exit 1
fi
echo "format-check: clean"

#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Cadenza builds and runs with. Idempotent: packages that are
# already installed are not touched. Run as root or with sudo available.
set -euo pipefail

PACKAGES="loudgain librsvg2-bin pkg-config libavformat-dev libavdevice-dev libavcodec-dev libavutil-dev libswresample-dev libfftw3-dev libsndfile1-dev libtag1-dev libsqlite3-dev ffmpeg"

missing=""
for p in $PACKAGES; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "setup: all packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" != "0" ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "setup: need root (or sudo) to install:$missing" >&2; exit 1
  fi
fi
echo "setup: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing
echo "setup: done"

#!/usr/bin/env python3
"""Share of time each track is reported as vocal (instrumentActivity.ranges.vocal), per track and
as the median per package (the part of the file name before "__", e.g. wesnoth, warzone2100).

Usage: scripts/vocal-share.py BIN DIR [DIR...]   runs `BIN analyze --for instrumentActivity` on the
                                                 audio files of each DIR (not recursive)
       scripts/vocal-share.py --reports FILE.ndjson   reads existing NDJSON reports instead

Used for the vocal false-positive figures in README (instrumental game music: any vocal is false).
"""
import json
import os
import statistics
import subprocess
import sys

AUDIO = (".wav", ".ogg", ".opus", ".flac", ".mp3", ".m4a")


def shares(lines):
    out = {}
    for line in lines:
        line = line.strip()
        if not line:
            continue
        report = json.loads(line)
        source = report.get("source") or {}
        path = source.get("path", "?")
        duration = source.get("duration") or 0
        ranges = ((report.get("instrumentActivity") or {}).get("ranges") or {}).get("vocal")
        if ranges is None or duration <= 0:
            print(f"{path}: no instrumentActivity ({report.get('error', {}).get('code', 'no report')})", file=sys.stderr)
            continue
        out[path] = sum(r["duration"] for r in ranges) / duration
    return out


def main(argv):
    if len(argv) >= 2 and argv[0] == "--reports":
        with open(argv[1]) as f:
            result = shares(f)
    elif len(argv) >= 2:
        binary, dirs = argv[0], argv[1:]
        files = []
        for d in dirs:
            files += sorted(os.path.join(d, n) for n in os.listdir(d) if n.lower().endswith(AUDIO))
        run = subprocess.run([binary, "analyze", "--no-progress", "--jobs", "2", "--for", "instrumentActivity", *files],
                             capture_output=True, text=True, check=False)
        result = shares(run.stdout.splitlines())
    else:
        print(__doc__, file=sys.stderr)
        return 2
    packages = {}
    for path in sorted(result):
        name = os.path.basename(path)
        packages.setdefault(name.split("__")[0], []).append(result[path])
        print(f"{100 * result[path]:5.1f} %  {name}")
    print()
    for package, values in sorted(packages.items()):
        above = sum(v > 0.2 for v in values)
        print(f"{package}: {len(values)} tracks, median {100 * statistics.median(values):.1f} %, "
              f"mean {100 * statistics.mean(values):.1f} %, {above} above 20 %")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

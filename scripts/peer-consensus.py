#!/usr/bin/env python3
"""Tempo of cadenza against two independent peers on recordings without tempo truth.

For each audio file, runs `cadenza analyze --for rhythm`, Essentia's RhythmExtractor2013
(multifeature) and madmom's RNN and DBN downbeat tracker (Böck, Krebs & Widmer 2016; beats per bar
3 or 4), and prints how often our tempo matches each peer's (4 %), on how many files the two
peers agree with each other, how many of those we share, and the files where the peers agree on a
tempo that ours is not: two methods against one, the likeliest errors of ours. madmom's tempo is
60 over its median beat interval. The peers' results are cached in WORKDIR/peers (madmom takes a
few seconds per short clip, about 25 s per two minutes of audio).

This is no accuracy: the peers share conventions (both tend to the faster of two levels that
pulse alike), and where they agree they can both be wrong. It finds cases to look at, on music
that has no truth, such as the dev set's MIR-1K clips (docs/evaluation.md).

usage: scripts/peer-consensus.py CADENZA_BINARY WORKDIR FILE... [--configuration FILE]
   e.g. scripts/peer-consensus.py .build/release/cadenza /tmp/mir ../shared/eval/real/data/audio/mir1k_*
needs: the eval harness venv (essentia, madmom; madmom loaded as the harness's anchors.py does:
CADENZA_EVAL, default ../shared/eval).
"""
import argparse, json, os, subprocess, sys, tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peerrun import essentia_rhythm, madmom_downbeats, median_tempo, same_tempo  # noqa: E402


def peers(files, cache):
    """Essentia's and madmom's tempo of each file, cached in `cache` as JSON."""
    cache.mkdir(parents=True, exist_ok=True)
    for f in files:
        if (cache / (f.name + ".json")).exists():
            continue
        # Decoded by FFmpeg first (as the harness does): the peers' own loaders miss some codecs.
        # A file that cannot be decoded, or is too short for the peers (their loaders fail on a
        # few samples), gets no peer tempo and the run goes on.
        with tempfile.NamedTemporaryFile(suffix=".wav") as wav:
            try:
                subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(f), "-ac", "1", "-ar", "44100", wav.name], check=True)
                if os.path.getsize(wav.name) < 44100 * 2:  # under about half a second of audio
                    raise RuntimeError("shorter than half a second")
                bpm, _ = essentia_rhythm(wav.name)
                mb, _ = madmom_downbeats(wav.name)
                result = {"essentia": bpm, "madmom": median_tempo(mb)}
            except (subprocess.CalledProcessError, RuntimeError) as error:
                print(f"{f}: no peer tempo ({error})", file=sys.stderr)
                result = {"essentia": None, "madmom": None}
        json.dump(result, open(cache / (f.name + ".json"), "w"))
    return {f.name: json.load(open(cache / (f.name + ".json"))) for f in files}


def ours(cadenza, files, configuration):
    """Our tempo of each file (None without beats or on an error record), from one batch run whose
    NDJSON records name their input."""
    cmd = [cadenza, "analyze", "--for", "rhythm", "--no-progress", *map(str, files)]
    if configuration:
        cmd += ["--configuration", configuration]
    out = {f.name: None for f in files}
    by_path = {str(f): f.name for f in files}
    for line in subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        name = by_path.get(os.path.realpath((record.get("source") or {}).get("path", "")))
        if name:
            out[name] = (record.get("rhythm") or {}).get("beatsPerMinute")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cadenza"); ap.add_argument("workdir"); ap.add_argument("files", nargs="+")
    ap.add_argument("--configuration")
    a = ap.parse_args()
    files = sorted(Path(f).resolve() for f in a.files)
    p = peers(files, Path(a.workdir) / "peers")
    o = ours(os.path.abspath(a.cadenza), files, os.path.abspath(a.configuration) if a.configuration else None)
    n = len(files)
    agreed = [f.name for f in files if same_tempo(p[f.name]["essentia"], p[f.name]["madmom"])]
    shared = [k for k in agreed if same_tempo(o[k], p[k]["madmom"])]
    print(f"{n} files: tempo agreement with madmom {np.mean([same_tempo(o[f.name], p[f.name]['madmom']) for f in files]):.3f}, "
          f"with Essentia {np.mean([same_tempo(o[f.name], p[f.name]['essentia']) for f in files]):.3f}; "
          f"Essentia with madmom {len(agreed) / n:.3f}")
    print(f"the peers agree on {len(agreed)}; cadenza shares {len(shared)} of those; against cadenza:")
    for k in agreed:
        if k not in shared:
            t = f"{o[k]:.1f}" if o[k] else "no beats"
            print(f"  {k}: madmom {p[k]['madmom']:.1f}, Essentia {p[k]['essentia']:.1f}, cadenza {t}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Tempo and beat agreement of cadenza with Essentia and madmom on game music the eval harness does not hold.

The harness's realmusic category takes 12 tracks from Debian game packages; the wesnoth and
warzone2100 packages ship about 60 more. This script cuts each of those others to 120 s from 20 s
in, runs `cadenza analyze --for rhythm` and Essentia's RhythmExtractor2013 (multifeature; cached
next to the clips), and prints the agreement: tempo Acc1 (4 %) and Acc2 (octaves, 3:2) against
Essentia's tempo, and the beat F-measure (70 ms) of our beats against Essentia's. No human truth
exists for these tracks: this is a check that a change meant for music in general does not move
real recordings away from a peer, not an accuracy.

With --madmom it also runs madmom's RNN downbeat tracker with its DBN (Böck, Krebs & Widmer 2016;
beats per bar 3 or 4; cached too, about 25 s per clip) and prints the agreement of our tempo, beats
and bars with madmom's beside Essentia's, and the clips where Essentia and madmom agree on a tempo
(4 %) that ours is not: two independent peers against us, the likeliest errors of ours.

usage: scripts/extra-realmusic.py CADENZA_BINARY WORKDIR [--configuration FILE] [--madmom]
needs: the eval harness venv (essentia; madmom for --madmom, loaded as the harness's anchors.py
does: CADENZA_EVAL, default ../shared/eval), ffmpeg, the wesnoth-music and warzone2100-music packages.
"""
import argparse, glob, json, os, subprocess, sys
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from beatscore import f_measure  # noqa: E402
from peerrun import essentia_rhythm, madmom_downbeats, median_tempo, same_tempo  # noqa: E402

HARNESS_TRACKS = {"knolls", "northern_mountains", "nunc_dimittis", "revelation",
                  "track15", "track24", "track26", "track6"}
SOURCES = ["/usr/share/games/wesnoth", "/usr/share/games/warzone2100"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cadenza"); ap.add_argument("workdir")
    ap.add_argument("--configuration")
    ap.add_argument("--madmom", action="store_true", help="also compare with madmom's beats and downbeats")
    a = ap.parse_args()
    work = Path(a.workdir); audio = work / "audio"; ess = work / "essentia"
    audio.mkdir(parents=True, exist_ok=True); ess.mkdir(exist_ok=True)
    for root in SOURCES:
        pkg = Path(root).name
        for f in sorted(glob.glob(root + "/**/*", recursive=True)):
            if not f.endswith((".ogg", ".opus")) or os.path.getsize(f) < 500_000:
                continue
            stem = Path(f).stem
            out = audio / f"{pkg}__{stem}.wav"
            if stem in HARNESS_TRACKS or out.exists():
                continue
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", "20", "-i", f, "-t", "120", "-ac", "2", str(out)], check=True)
    clips = sorted(audio.glob("*.wav"))
    if not clips:
        sys.exit("no tracks: apt-get install wesnoth-music warzone2100-music")
    for c in clips:
        e = ess / (c.name + ".json")
        if not e.exists():
            bpm, beats = essentia_rhythm(c)
            json.dump({"bpm": bpm, "beats": beats}, open(e, "w"))
    reports = work / "reports"
    subprocess.run(["rm", "-rf", str(reports)])
    cmd = [os.path.abspath(a.cadenza), "analyze", "audio", "--for", "rhythm", "--no-progress", "--output", "reports"]
    if a.configuration:
        cmd += ["--configuration", os.path.abspath(a.configuration)]
    subprocess.run(cmd, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    madmom = work / "madmom"
    if a.madmom:
        run_madmom(clips, madmom)
    acc1 = acc2 = 0; fs = []
    rows = []
    for c in clips:
        e = json.load(open(ess / (c.name + ".json")))
        rp = reports / "audio" / (c.name + ".json")
        rh = (json.load(open(rp)).get("rhythm") or {}) if rp.exists() else {}
        bpm = rh.get("beatsPerMinute")
        if bpm:
            acc1 += abs(bpm / e["bpm"] - 1) <= 0.04
            acc2 += any(abs(bpm / (e["bpm"] * k) - 1) <= 0.04 for k in (0.5, 1, 2, 1 / 3, 3, 2 / 3, 1.5))
        fs.append(f_measure(e["beats"], rh.get("beats", [])))
        if a.madmom:
            m = json.load(open(madmom / (c.name + ".json")))
            mb = m["beats"]
            mbpm = median_tempo(mb)
            rows.append((c.name, bpm, e["bpm"], mbpm, f_measure(mb, rh.get("beats", [])), f_measure(mb, e["beats"]),
                         f_measure(m["downbeats"], rh.get("bars", []))))
    n = len(clips)
    print(f"{n} clips: tempo agreement Acc1 {acc1 / n:.3f}, Acc2 {acc2 / n:.3f}; beat agreement F {np.mean(fs):.3f}")
    if a.madmom:
        print(f"against madmom: tempo Acc1 cadenza {np.mean([same_tempo(r[1], r[3]) for r in rows]):.3f}, "
              f"Essentia {np.mean([same_tempo(r[2], r[3]) for r in rows]):.3f}; beat F cadenza {np.mean([r[4] for r in rows]):.3f}, "
              f"Essentia {np.mean([r[5] for r in rows]):.3f}; downbeat F cadenza {np.mean([r[6] for r in rows]):.3f}")
        both = [r for r in rows if same_tempo(r[2], r[3]) and not same_tempo(r[1], r[3])]
        print(f"Essentia and madmom agree against cadenza on {len(both)} of {n}:")
        for r in both:
            ours = f"{r[1]:.1f}" if r[1] else "no beats"
            print(f"  {r[0]}: madmom {r[3]:.1f}, Essentia {r[2]:.1f}, cadenza {ours}")


def run_madmom(clips, folder):
    """madmom's beats and downbeats of each clip, cached in `folder` as JSON."""
    folder.mkdir(exist_ok=True)
    for c in clips:
        if not (folder / (c.name + ".json")).exists():
            beats, downbeats = madmom_downbeats(c)
            json.dump({"beats": beats, "downbeats": downbeats}, open(folder / (c.name + ".json"), "w"))


if __name__ == "__main__":
    main()

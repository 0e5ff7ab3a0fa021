#!/usr/bin/env python3
"""Rhythm on medleys of the real dev set: two songs joined in one file, each part scored on its truth.

A DJ mix, a medley, or a long recording whose tempo changes between movements holds passages at
different tempi. The beat tracker's tempo prior is centred on one global tempo, and step 4a of the
rhythm chain (docs/analyses/rhythm.md, "Passages of another tempo") moves it for a passage of its
own tempo. This script builds such inputs from the dev set's own recordings and annotations: for
each half of the dev set, ten pairs of Beatles songs from that half whose annotated tempi differ by
a factor of 1.12 to 1.9 (chosen by a fixed hash of their names), 60 s of each (from 20 s in) joined
at a cut, and scores `cadenza analyze --for rhythm` on each part against that song's own beats and
downbeats (mir_eval at 70 ms; F-measure, AMLt and downbeat F, the first 3 s of each part left out).

With --tempo-change, each song of a half instead keeps its own music and changes tempo: 50 s from
20 s in at its own tempo, then the next stretch played 1.2 times faster or slower (FFmpeg's `atempo`,
pitch kept; the factor chosen by a fixed hash of the name) for 50 s, as a live band that speeds up or
a coda in another tempo does, with no new song at the change. The second part's truth is the song's
own, moved to the new tempo.

usage: scripts/real-medleys.py CADENZA_BINARY WORKDIR [--configuration FILE] [--details] [--tempo-change]
needs: the dev set built (../shared/eval/real, `build.py`), its venv (mir_eval, numpy) and ffmpeg.
Set CADENZA_EVAL to the harness folder (default ../shared/eval). The audio stays under WORKDIR
(never commit it: it is not redistributable).
"""
import argparse, hashlib, itertools, json, os, subprocess
from pathlib import Path

import mir_eval
import numpy as np

EVAL = Path(os.environ.get("CADENZA_EVAL", Path(__file__).resolve().parent.parent.parent / "shared" / "eval"))
DATA = EVAL / "real" / "data"
START, LENGTH = 20.0, 60.0
CHANGE = 50.0  # seconds per part with --tempo-change


def half(identifier):
    """The dev set's fixed split (score.py): sha1 of the id even for A, odd for B."""
    return "A" if int(hashlib.sha1(identifier.encode()).hexdigest(), 16) % 2 == 0 else "B"


def songs():
    out = {}
    for f in sorted(DATA.glob("beatles2_*.truth.json")):
        t = json.load(open(f))
        if t.get("beats") and t["duration"] >= START + LENGTH + 5:
            out[t["id"]] = t
    return out


def pairs(all_songs, h, count=10):
    ids = sorted(i for i in all_songs if half(i) == h)
    out = []
    for a, b in itertools.combinations(ids, 2):
        r = all_songs[a]["bpm"] / all_songs[b]["bpm"]
        r = max(r, 1 / r)
        if 1.12 <= r <= 1.9:
            out.append((a, b, r))
    out.sort(key=lambda p: hashlib.sha1((p[0] + p[1]).encode()).hexdigest())
    return out[:count]


def build(a, b, work):
    name = f"{a[len('beatles2_'):]}__{b[len('beatles2_'):]}"
    dst = work / "audio" / (name + ".flac")
    if not dst.exists():
        dst.parent.mkdir(parents=True, exist_ok=True)
        ia, ib = next(DATA.glob("audio/" + a + ".*")), next(DATA.glob("audio/" + b + ".*"))
        chain = ("[0:a]aresample=44100,aformat=channel_layouts=stereo[x];"
                 "[1:a]aresample=44100,aformat=channel_layouts=stereo[y];[x][y]concat=n=2:v=0:a=1")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", str(START), "-t", str(LENGTH), "-i", str(ia),
                        "-ss", str(START), "-t", str(LENGTH), "-i", str(ib), "-filter_complex", chain, str(dst)], check=True)
    return name, dst


def build_change(a, truth, work):
    """One song at its own tempo for CHANGE s, then CHANGE s of what follows at a factor 1.2 or 1/1.2."""
    factor = 1.2 if int(hashlib.sha1((a + "@tempo").encode()).hexdigest(), 16) % 2 == 0 else 1 / 1.2
    name = f"{a[len('beatles2_'):]}__x{factor:.2f}"
    dst = work / "audio" / (name + ".flac")
    if truth["duration"] < START + CHANGE + CHANGE * factor + 1:
        return None
    if not dst.exists():
        dst.parent.mkdir(parents=True, exist_ok=True)
        ia = next(DATA.glob("audio/" + a + ".*"))
        chain = (f"[0:a]aresample=44100,aformat=channel_layouts=stereo[x];"
                 f"[1:a]aresample=44100,aformat=channel_layouts=stereo,atempo={factor:.6f}[y];[x][y]concat=n=2:v=0:a=1")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", str(START), "-t", str(CHANGE), "-i", str(ia),
                        "-ss", str(START + CHANGE), "-t", str(CHANGE * factor), "-i", str(ia),
                        "-filter_complex", chain, str(dst)], check=True)
    return name, dst, factor


def changed_part(truth, key, factor):
    """The truth of the second part of `build_change`: the song's times after START + CHANGE, played `factor` times faster."""
    x = np.array(truth.get(key) or [], dtype=float)
    lo = START + CHANGE
    x = x[(x >= lo) & (x < lo + CHANGE * factor)]
    return (x - lo) / factor + CHANGE


def part(truth, key, shift):
    x = np.array(truth.get(key) or [], dtype=float)
    return x[(x >= START) & (x < START + LENGTH)] - START + shift


def score(ref, est, lo, hi):
    ref, est = ref[(ref >= lo + 3) & (ref < hi)], est[(est >= lo + 3) & (est < hi)]
    if len(ref) < 2:
        return None
    amlt = mir_eval.beat.continuity(ref, est)[3] if len(est) >= 2 else 0.0
    return mir_eval.beat.f_measure(ref, est), amlt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("work", type=Path)
    ap.add_argument("--configuration")
    ap.add_argument("--details", action="store_true")
    ap.add_argument("--tempo-change", action="store_true", help="one song changing tempo instead of two songs")
    args = ap.parse_args()
    all_songs = songs()
    for h in "AB":
        if args.tempo_change:
            cases = []
            for a in sorted(i for i in all_songs if half(i) == h):
                built = build_change(a, all_songs[a], args.work)
                if built is None:
                    continue
                name, path, factor = built
                truth = all_songs[a]
                parts = [(part(truth, "beats", 0.0), part(truth, "downbeats", 0.0), 0.0, CHANGE),
                         (changed_part(truth, "beats", factor), changed_part(truth, "downbeats", factor), CHANGE, 2 * CHANGE)]
                cases.append((name, path, factor, parts))
            report(args, h, cases, "songs changing tempo", 45)
        else:
            cases = []
            for a, b, r in pairs(all_songs, h):
                name, path = build(a, b, args.work)
                parts = [(part(t, "beats", shift), part(t, "downbeats", shift), shift, shift + LENGTH)
                         for t, shift in ((all_songs[a], 0.0), (all_songs[b], LENGTH))]
                cases.append((name, path, r, parts))
            report(args, h, cases, "medleys", 55)


def rhythm_of(args, path):
    """The beats, downbeats and tempo of `cadenza analyze --for rhythm` on one file."""
    command = [args.binary, "analyze", "--no-progress", "--for", "rhythm"]
    if args.configuration:
        command += ["--configuration", args.configuration]
    out = subprocess.run(command + [str(path)], capture_output=True, text=True).stdout
    rhythm = (json.loads(out.splitlines()[0]) if out.strip() else {}).get("rhythm") or {}
    return (np.array(rhythm.get("beats") or [], dtype=float), np.array(rhythm.get("bars") or [], dtype=float),
            rhythm.get("beatsPerMinute"))


def report(args, h, cases, label, width):
    """Scores each case (name, path, ratio, two parts of (beats, downbeats, start, end)) and prints half `h`."""
    rows = []
    for name, path, ratio, parts in cases:
        beats, bars, bpm = rhythm_of(args, path)
        row = [name, ratio, bpm]
        for ref_beats, ref_bars, lo, hi in parts:
            f, amlt = score(ref_beats, beats, lo, hi)
            d = score(ref_bars, bars, lo, hi)
            row += [f, amlt, d[0] if d else float("nan")]
        rows.append(row)
    if args.details:
        for row in rows:
            print(f"{h} {row[0]:{width}s} {row[1]:.2f} {row[2] or 0:7.1f}  first: F {row[3]:.3f} AMLt {row[4]:.3f} "
                  f"downbeat F {row[5]:.3f}  second: F {row[6]:.3f} AMLt {row[7]:.3f} downbeat F {row[8]:.3f}")
    m = np.nanmean(np.array([row[3:] for row in rows], dtype=float), axis=0)
    print(f"half {h}, {len(rows)} {label} (both parts): beat F {(m[0] + m[3]) / 2:.3f}, AMLt {(m[1] + m[4]) / 2:.3f}, "
          f"downbeat F {(m[2] + m[5]) / 2:.3f} (first part {m[0]:.3f} / {m[1]:.3f} / {m[2]:.3f}, second {m[3]:.3f} / {m[4]:.3f} / {m[5]:.3f})")


if __name__ == "__main__":
    main()

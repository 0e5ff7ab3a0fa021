#!/usr/bin/env python3
"""Rhythm on 30-second excerpts of the real dev set's Beatles songs, beside madmom.

The hidden acceptance set holds short recordings (about 30 s); the dev set's songs are whole. This
script cuts two 30 s excerpts from each Beatles song of the dev set (40-70 s and 100-130 s, where
the song is long enough), with the human beats and downbeats cut alike, runs
`cadenza analyze --for rhythm` on each (and madmom's RNN + DBN downbeat tracker, once, cached),
and prints beat F, CMLt, AMLt, downbeat F (70 ms, mir_eval, first 5 s trimmed) and tempo Acc1 (4 %)
for the dev set's halves A and B (the split of score.py: sha1 of the song id). The excerpts are
written under WORKDIR and never committed (the audio is not redistributable).

usage: scripts/real-excerpts.py CADENZA_BINARY WORKDIR [--configuration FILE] [--details]
needs: the dev set built (../shared/eval/real, `build.py`), its venv (mir_eval; madmom through the
harness's anchors.py), ffmpeg. Set CADENZA_EVAL to the harness folder (default ../shared/eval).
"""
import argparse, glob, hashlib, json, os, subprocess, sys
from pathlib import Path

import numpy as np

STARTS = (40.0, 100.0)
LENGTH = 30.0


def half(song_id):
    return "A" if int(hashlib.sha1(song_id.encode()).hexdigest(), 16) % 2 == 0 else "B"


def cut(real, work):
    """Writes the excerpts and their truth; returns {name: truth}."""
    truths = {}
    for path in sorted(glob.glob(str(real / "data" / "beatles2_*.truth.json"))):
        t = json.load(open(path))
        for start in STARTS:
            if t["duration"] < start + LENGTH + 2:
                continue
            name = "%s_%d" % (t["id"], start)
            wav = work / "audio" / (name + ".wav")
            if not wav.exists():
                subprocess.run(["ffmpeg", "-v", "error", "-y", "-ss", str(start), "-t", str(LENGTH), "-i",
                                str(real / "data" / t["audio"]), "-ac", "2", "-ar", "44100", str(wav)], check=True)
            inside = lambda xs: [round(x - start, 4) for x in xs if start <= x < start + LENGTH]
            truths[name] = {"beats": inside(t["beats"]), "downbeats": inside(t["downbeats"]), "bpm": t["bpm"],
                            "half": half(t["id"])}
    return truths


def run_cadenza(binary, wav, configuration):
    cmd = [binary, "analyze", "--for", "rhythm", "--no-progress", str(wav)]
    if configuration:
        cmd[2:2] = ["--configuration", configuration]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()
    return json.loads(out[0]).get("rhythm", {}) if out else {}


def run_madmom(harness, wav, cache):
    if cache.exists():
        return json.load(open(cache)).get("rhythm", {})
    sys.path.insert(0, str(harness))
    import anchors  # the harness's peer implementations
    report = anchors.run_madmom(str(wav), wav.name)
    json.dump(report, open(cache, "w"))
    return report["rhythm"]


def score(rhythm, truth):
    import mir_eval
    ref = mir_eval.beat.trim_beats(np.array(truth["beats"]))
    est = mir_eval.beat.trim_beats(np.array(rhythm.get("beats") or [], float))
    f = mir_eval.beat.f_measure(ref, est)
    _, cmlt, _, amlt = mir_eval.beat.continuity(ref, est)
    dref = mir_eval.beat.trim_beats(np.array(truth["downbeats"]))
    dest = mir_eval.beat.trim_beats(np.array(rhythm.get("bars") or [], float))
    down = mir_eval.beat.f_measure(dref, dest) if len(dest) else 0.0
    bpm = rhythm.get("beatsPerMinute") or 0
    acc1 = 1.0 if bpm and abs(bpm - truth["bpm"]) <= 0.04 * truth["bpm"] else 0.0
    return f, cmlt, amlt, down, acc1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cadenza"); ap.add_argument("workdir")
    ap.add_argument("--configuration"); ap.add_argument("--details", action="store_true")
    a = ap.parse_args()
    harness = Path(os.environ.get("CADENZA_EVAL", "../shared/eval")).resolve()
    real = harness / "real"
    work = Path(a.workdir)
    (work / "audio").mkdir(parents=True, exist_ok=True)
    (work / "madmom").mkdir(exist_ok=True)
    truths = cut(real, work)
    rows = {"cadenza": {"A": [], "B": []}, "madmom": {"A": [], "B": []}}
    for name, truth in sorted(truths.items()):
        wav = work / "audio" / (name + ".wav")
        for tool, rhythm in (("cadenza", run_cadenza(a.cadenza, wav, a.configuration)),
                             ("madmom", run_madmom(harness, wav, work / "madmom" / (name + ".json")))):
            s = score(rhythm, truth)
            rows[tool][truth["half"]].append(s)
            if a.details:
                print("%-48s %-8s F %.3f CMLt %.3f AMLt %.3f downbeat %.3f Acc1 %.0f  (%.1f BPM for %.1f)"
                      % (name, tool, *s, rhythm.get("beatsPerMinute") or 0, truth["bpm"]))
    print("| tool | half | n | beat F | CMLt | AMLt | downbeat F | tempo Acc1 |")
    print("|---|---|---|---|---|---|---|---|")
    for tool in rows:
        for h in "AB":
            m = np.mean(rows[tool][h], axis=0)
            print("| %s | %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f |" % (tool, h, len(rows[tool][h]), *m))


if __name__ == "__main__":
    main()

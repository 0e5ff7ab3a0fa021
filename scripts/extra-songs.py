#!/usr/bin/env python3
"""Pace on songs the eval harness does not hold, made by the harness's own generator.

The harness's songs category holds 30 songs (generator indices 0-29). The acceptance set is larger
and unseen, so a choice made on those 30 can fit them rather than music. This script renders
further songs with the same generator (`make_corpus.song_job`, indices FIRST ..< LAST, seeds as the
harness derives them), runs `cadenza analyze --for rhythm,pace` on them and prints the harness's
pace metrics: the mean per-song Spearman rank correlation of the reported pace against the songs'
note-onset rate per section, and the median |log2 ratio| (the scorer's `pace_per_section` and
`spearman`). Rendering takes about 9 s per song on 2 cores; songs already in WORKDIR are kept.

usage: scripts/extra-songs.py CADENZA_BINARY WORKDIR FIRST LAST [--configuration FILE]
   e.g. scripts/extra-songs.py .build/release/cadenza /tmp/extra 30 50
needs: the eval harness (CADENZA_EVAL, default ../shared/eval) with its venv, fluidsynth, espeak-ng.
"""
import argparse, json, math, os, subprocess, sys
from multiprocessing import Pool
from pathlib import Path

EVAL = Path(os.environ.get("CADENZA_EVAL", Path(__file__).resolve().parent.parent.parent / "shared" / "eval"))
sys.path.insert(0, str(EVAL))


def render(args):
    index, work = args
    import common
    import make_corpus as mc
    common.CORPUS = mc.CORPUS = Path(work)  # the generator writes under CORPUS/songs
    return mc.song_job((index, mc.SEED + 5700 + index, False))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cadenza"); ap.add_argument("workdir")
    ap.add_argument("first", type=int); ap.add_argument("last", type=int)
    ap.add_argument("--configuration")
    a = ap.parse_args()
    work = Path(a.workdir).resolve(); songs = work / "songs"
    songs.mkdir(parents=True, exist_ok=True)
    have = {p.name[:3] for p in songs.glob("s*.wav.truth.json")}
    todo = [i for i in range(a.first, a.last) if "s%02d" % i not in have]
    if todo:
        with Pool(2) as pool:
            pool.map(render, [(i, str(work)) for i in todo])
    cmd = [os.path.abspath(a.cadenza), "analyze", "--no-progress", "--for", "rhythm,pace", str(songs)]
    if a.configuration:
        cmd += ["--configuration", os.path.abspath(a.configuration)]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    reports = {}
    for line in out.splitlines():
        r = json.loads(line)
        if "source" in r:
            reports[Path(r["source"]["path"]).name] = r
    from score import pace_per_section, spearman
    corr, logs = [], []
    for tf in sorted(songs.glob("*.wav.truth.json")):
        index = int(tf.name[1:3]) if tf.name[1:3].isdigit() else -1
        if not a.first <= index < a.last:
            continue
        truth = json.loads(tf.read_text())
        report = reports.get(tf.name[: -len(".truth.json")])
        ref = [float(s["eventsPerMinute"]) for s in truth["pace"]]
        est = pace_per_section(report, truth["pace"]) if report else None
        if len(ref) >= 3 and len(set(ref)) >= 2:
            corr.append(spearman([e if e is not None else 0.0 for e in est], ref) if est else 0.0)
        for e, t in zip(est or [], ref):
            if t > 0 and e is not None:
                logs.append(abs(math.log2(max(e, 1.0) / max(t, 1.0))))
    logs.sort()
    print("songs %d  pace rank corr %.3f  median abs log2 ratio %.3f"
          % (len(corr), sum(corr) / max(1, len(corr)), logs[len(logs) // 2] if logs else float("nan")))


if __name__ == "__main__":
    main()

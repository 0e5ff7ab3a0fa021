#!/usr/bin/env python3
"""Beats on expressive piano: generated piano pieces played with rubato, scored against their score's beats.

The hidden acceptance set holds classical recordings, and the dev set has no solo piano (its rubato
is tutorial_expressive's guitar). The beat tracker's tempo prior is stronger in impulsive textures
(0.8.14, `rhythm.beats.impulsivePeriodPriorWeight`), and struck piano notes measure impulsive, so
this script checks what that prior does to a pianist's rubato. It renders its own pieces instead of
tuning on recordings: four piano textures (block-chord chorale, melody over an Alberti bass, a
mazurka's bass-chord-chord, a nocturne's arpeggios in triplets), each at two tempi and under four
tempo curves:

- steady: the notated tempo (timing noise only);
- arch: each four-bar phrase speeds up by up to 10 % in its middle and slows by up to 35 % into its
  end, the phrase-final lengthening measured in pianists' performances (Todd 1992; Repp 1992);
- steps: the tempo switches between 1, 1.25 and 0.85 of the notated one every four bars (più mosso,
  meno mosso), with no transition;
- drift: a slow accelerando from 0.8 to 1.2 of the notated tempo over the clip.

The mazurka's bars also stretch their second beat by 20 % and shorten the first and third (the
pattern Cook 2007 measured in Chopin mazurka recordings). Timing is humanised (8 ms standard
deviation, the melody 20 ms ahead of the chord), velocities vary by −15 % to +10 %. Rendered with
FluidSynth (FluidR3 GM, Acoustic Grand Piano), 40 s per clip, under WORKDIR (not committed).

It runs `cadenza analyze --for rhythm` (once per `--configuration` given, and once with the
defaults) and prints beat F (70 ms), CMLt and AMLt (mir_eval, first 5 s trimmed) per curve and
texture; `--madmom` adds madmom's RNN + DBN beats beside it. Generated performances show what the
method does with each kind of rubato, not what it does on recordings: a check, not a tuning set.

usage: scripts/rubato-piano.py CADENZA_BINARY WORKDIR [--configuration FILE ...] [--madmom] [--details]
needs: the eval harness venv (pretty_midi, mir_eval), fluidsynth and FluidR3_GM.sf2.
"""
import argparse, json, subprocess, sys
from pathlib import Path

import numpy as np

SF2 = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
LENGTH = 40.0
START = 0.5
PROGRESSION = [(0, "maj"), (9, "min"), (5, "maj"), (7, "maj"), (0, "maj"), (5, "maj"), (7, "maj"), (0, "maj")]
MELODY = [0, 2, 4, 5, 7, 5, 4, 2, 4, 7, 9, 7, 5, 4, 2, 0]  # scale steps above the tonic, one per beat


def tempo_factor(curve, p, meter, total):
    """The tempo multiplier at score position p (in beats)."""
    phrase = 4 * meter
    x = (p % phrase) / phrase
    if curve == "steady":
        return 1.0
    if curve == "arch":
        return 1.0 + 0.10 * np.sin(np.pi * x) - 0.35 * max(0.0, (x - 0.7) / 0.3) ** 2
    if curve == "steps":
        return (1.0, 1.25, 0.85)[int(p // phrase) % 3]
    if curve == "drift":
        return 0.8 + 0.4 * min(1.0, p / total)
    raise ValueError(curve)


def time_map(curve, bpm, meter, beats):
    """Score position (beats) to seconds: the integral of the beat's duration over the curve."""
    step = 1 / 48
    grid = np.arange(0, beats + 1 + step, step)
    dur = np.array([60.0 / bpm / tempo_factor(curve, q, meter, beats) for q in grid])
    if meter == 3:  # the mazurka's long second beat: beat lengths 0.9, 1.2, 0.9 of the tempo's
        pos = grid % 3
        dur *= np.where(pos < 1, 0.9, np.where(pos < 2, 1.2, 0.9))
    t = START + np.concatenate([[0], np.cumsum(dur[:-1] * step)])
    return lambda p: float(np.interp(p, grid, t))


def notes(texture, meter, bars, key):
    """(position in beats, pitch, velocity, length in beats, is melody) of the piece."""
    out = []
    for bar in range(bars):
        root, quality = PROGRESSION[bar % len(PROGRESSION)]
        root = (root + key) % 12
        third = 3 if quality == "min" else 4
        b0 = bar * meter
        for beat in range(meter):
            step = MELODY[(bar * meter + beat) % len(MELODY)]
            degree = [0, 2, 4, 5, 7, 9, 11, 12, 14, 16][step % 10]
            mel = 72 + key + degree
            if texture == "chorale":
                for iv, base in ((0, 48), (7, 55), (third + 12, 60)):
                    out.append((b0 + beat, base + (root + iv) % 12, 62, 0.95, False))
                out.append((b0 + beat, mel, 78, 0.95, True))
            elif texture == "alberti":
                for k, iv in enumerate((0, 7) if beat % 2 == 0 else (third, 7)):
                    out.append((b0 + beat + k * 0.5, 48 + (root + iv) % 12, 55, 0.45, False))
                if beat % 2 == 0:
                    out.append((b0 + beat, mel, 80, 1.9, True))
            elif texture == "mazurka":
                if beat == 0:
                    out.append((b0, 36 + root, 75, 0.9, False))
                else:
                    for iv in (0, third, 7):
                        out.append((b0 + beat, 55 + (root + iv) % 12, 58, 0.6, False))
                if beat != 2:
                    out.append((b0 + beat, mel, 80, 0.7 if beat == 0 else 1.5, True))
                    if beat == 0:
                        out.append((b0 + 0.75, mel + 2, 70, 0.25, True))
            elif texture == "nocturne":
                arp = (0, 7, third + 12)
                for k in range(3):
                    out.append((b0 + beat + k / 3, 36 + (root + arp[k]) % 12 + (12 if k else 0), 50, 0.6, False))
                if beat % 2 == 0:
                    out.append((b0 + beat, mel, 76, 1.9, True))
    return out


TEXTURES = {"chorale": (4, (66, 84)), "alberti": (4, (80, 100)), "mazurka": (3, (120, 144)),
            "nocturne": (4, (60, 72))}
CURVES = ("steady", "arch", "steps", "drift")


def render(texture, curve, bpm, seed, work):
    import pretty_midi
    rng = np.random.default_rng(seed)
    meter = TEXTURES[texture][0]
    key = int(rng.integers(0, 12)) - 5
    # Enough bars for LENGTH at the slowest tempo factor (0.65 in a phrase's end, 0.85 in steps).
    bars = int(np.ceil(LENGTH / (meter * 60.0 / bpm) * 1.8)) + 1
    total = bars * meter
    t = time_map(curve, bpm, meter, total)
    pm = pretty_midi.PrettyMIDI(resolution=960)
    piano = pretty_midi.Instrument(0)
    for pos, pitch, v, length, melody in notes(texture, meter, bars, key):
        s = t(pos) + rng.normal(0, 0.008) - (0.02 if melody else 0.0)
        e = t(pos + length)
        if s >= LENGTH + 1:
            continue
        piano.notes.append(pretty_midi.Note(int(np.clip(v * rng.uniform(0.85, 1.1), 1, 127)), pitch, max(0.0, s), e))
    pm.instruments.append(piano)
    name = "%s_%s_%d" % (texture, curve, bpm)
    mid, tmp, wav = work / (name + ".mid"), work / (name + ".full.wav"), work / (name + ".wav")
    pm.write(str(mid))
    subprocess.run(["fluidsynth", "-ni", "-q", "-g", "0.7", "-r", "44100", "-o", "synth.cpu-cores=1",
                    "-F", str(tmp), SF2, str(mid)], check=True)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(tmp), "-t", str(LENGTH), str(wav)], check=True)
    tmp.unlink()
    beats = [t(i) for i in range(total) if t(i) < LENGTH - 0.5]
    return name, wav, beats


def cadenza_beats(binary, wavs, configuration):
    cmd = [binary, "analyze", "--for", "rhythm", "--no-progress"]
    if configuration:
        cmd += ["--configuration", configuration]
    out = subprocess.run(cmd + [str(w) for w in wavs], capture_output=True, text=True)
    beats = {}
    for line in out.stdout.splitlines():
        r = json.loads(line)
        beats[Path((r.get("source") or {}).get("path", "")).stem] = (r.get("rhythm") or {}).get("beats") or []
    return beats


def score(truth, est):
    import mir_eval
    ref = mir_eval.beat.trim_beats(np.array(truth))
    est = mir_eval.beat.trim_beats(np.array(est)) if len(est) else np.array([])
    if len(est) < 2:
        return (0.0, 0.0, 0.0)
    cont = mir_eval.beat.continuity(ref, est)
    return (mir_eval.beat.f_measure(ref, est), cont[1], cont[3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cadenza"); ap.add_argument("workdir")
    ap.add_argument("--configuration", action="append", default=[])
    ap.add_argument("--madmom", action="store_true"); ap.add_argument("--details", action="store_true")
    a = ap.parse_args()
    work = Path(a.workdir); (work / "audio").mkdir(parents=True, exist_ok=True)
    clips = {}
    for i, (texture, (meter, tempi)) in enumerate(TEXTURES.items()):
        for curve in CURVES:
            for j, bpm in enumerate(tempi):
                name, wav, beats = render(texture, curve, bpm, 100 + 10 * i + j, work / "audio")
                clips[name] = (texture, curve, wav, beats)
    runs = {"defaults": cadenza_beats(a.cadenza, [c[2] for c in clips.values()], None)}
    for f in a.configuration:
        runs[Path(f).stem] = cadenza_beats(a.cadenza, [c[2] for c in clips.values()], f)
    if a.madmom:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import peerrun
        runs["madmom"] = {n: peerrun.madmom_downbeats(c[2])[0] for n, c in clips.items()}
    scores = {r: {n: score(c[3], runs[r].get(n, [])) for n, c in clips.items()} for r in runs}
    if a.details:
        for n in clips:
            print("%-24s " % n + "  ".join("%s F %.3f CMLt %.3f AMLt %.3f" % (r, *scores[r][n]) for r in runs))
    head = " | ".join("%s F / CMLt / AMLt" % r for r in runs)
    print("| group | n | " + head + " |")
    print("|---|---|" + "---|" * len(runs))
    groups = [("curve " + c, lambda x, c=c: x[1] == c) for c in CURVES]
    groups += [("texture " + t, lambda x, t=t: x[0] == t) for t in TEXTURES] + [("all", lambda x: True)]
    for label, keep in groups:
        names = [n for n, c in clips.items() if keep(c)]
        cells = []
        for r in runs:
            m = np.mean([scores[r][n] for n in names], axis=0)
            cells.append("%.3f / %.3f / %.3f" % tuple(m))
        print("| %s | %d | %s |" % (label, len(names), " | ".join(cells)))


if __name__ == "__main__":
    main()

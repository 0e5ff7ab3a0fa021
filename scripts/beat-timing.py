#!/usr/bin/env python3
"""Beat timing residuals of `cadenza analyze --for rhythm` on synthesised onsets.

Synthesises click, drum, plucked and bowed tracks with known onset times, writes them at several
sample rates and through lossy codecs (ffmpeg), analyses them with the cadenza binary and prints
the signed error of every reported beat against the nearest true onset (median, mean, worst),
the number of onsets without a beat within 70 ms and whether the onset at t = 0 got its beat.

Usage: scripts/beat-timing.py [path/to/cadenza] [--configuration FILE] (default .build/release/cadenza)
Tooling only (numpy + ffmpeg); the product never runs Python.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

RATE = 48000
BPM = 120.0


def onsets(start, count=24, bpm=BPM):
    return [start + i * 60.0 / bpm for i in range(count)]


def render(kind, times, rate, seed=1):
    rng = np.random.default_rng(seed)
    n = int((times[-1] + 1.5) * rate)
    y = np.zeros(n)
    t = np.arange(int(0.6 * rate)) / rate
    for k, t0 in enumerate(times):
        s = int(round(t0 * rate))
        if kind == "click":  # 2 kHz burst, 5 ms decay (a metronome click)
            x = 0.5 * np.exp(-t / 0.005) * np.sin(2 * np.pi * 2000 * t)
        elif kind == "impulse":  # 1 ms noise burst
            x = np.zeros_like(t)
            m = int(0.001 * rate)
            x[:m] = 0.8 * rng.uniform(-1, 1, m)
        elif kind == "drums":  # kick on 1 and 3, snare on 2 and 4, hi-hat eighths
            x = 0.15 * np.exp(-t / 0.025) * np.diff(rng.uniform(-1, 1, len(t) + 1))
            if k % 2 == 0:
                phase = 2 * np.pi * (50 * t + 100 * 0.03 * (1 - np.exp(-t / 0.03)))
                x = x + 0.8 * np.exp(-t / 0.1) * np.sin(phase)
            else:
                x = x + 0.4 * np.exp(-t / 0.08) * (0.7 * rng.uniform(-1, 1, len(t)) + 0.5 * np.sin(2 * np.pi * 190 * t))
            # off-beat hat half a beat later
            h = int(round((t0 + 30.0 / BPM) * rate))
            hat = 0.1 * np.exp(-t / 0.025) * np.diff(rng.uniform(-1, 1, len(t) + 1))
            e = min(n, h + len(t))
            if h < n:
                y[h:e] += hat[: e - h]
        elif kind == "plucked":  # harmonic tone, 2 ms attack, 0.3 s decay, pitch per note
            f = 220 * 2 ** ([0, 4, 7, 12, 7, 4][k % 6] / 12)
            env = np.minimum(1, t / 0.002) * np.exp(-t / 0.3)
            x = 0.3 * env * sum(np.sin(2 * np.pi * f * h * t) / h for h in range(1, 6))
        elif kind == "bowed":  # 40 ms attack, legato arpeggio (thirds, fourths): each note fades
            # out during the next one's attack (a crossfade, no gap)
            f = 196 * 2 ** ([0, 4, 7, 12, 7, 4][k % 6] / 12)
            length = 60.0 / BPM
            env = np.minimum(1, t / 0.04) * np.clip((length + 0.04 - t) / 0.04, 0, 1)
            x = 0.2 * env * sum(np.sin(2 * np.pi * f * h * t) / h ** 1.5 for h in range(1, 8))
        else:
            raise ValueError(kind)
        e = min(n, s + len(t))
        y[s:e] += x[: e - s]
    return y.astype(np.float32)


def write(y, rate, path, codec):
    raw = path + ".f32"
    y.tofile(raw)
    args = ["ffmpeg", "-v", "error", "-y", "-f", "f32le", "-ar", str(rate), "-ac", "1", "-i", raw]
    if codec == "wav":
        args += [path]
    elif codec == "mp3":
        args += ["-b:a", "192k", path]
    elif codec == "opus":
        args += ["-b:a", "128k", path]
    elif codec == "aac":
        args += ["-c:a", "aac", "-b:a", "160k", path]
    subprocess.run(args, check=True)
    os.remove(raw)


def main():
    argv = sys.argv[1:]
    extra = []
    if "--configuration" in argv:
        i = argv.index("--configuration")
        extra = argv[i:i + 2]
        del argv[i:i + 2]
    binary = argv[0] if argv else ".build/release/cadenza"
    cases = []
    with tempfile.TemporaryDirectory() as d:
        for kind in ["click", "impulse", "drums", "plucked", "bowed"]:
            for start in [0.0, 0.5]:
                times = onsets(start)
                for rate, codec in [(22050, "wav"), (44100, "wav"), (48000, "wav"), (96000, "wav"),
                                    (44100, "mp3"), (48000, "opus"), (44100, "aac")]:
                    ext = {"wav": "wav", "mp3": "mp3", "opus": "opus", "aac": "m4a"}[codec]
                    path = os.path.join(d, f"{kind}_{start}_{rate}_{codec}.{ext}")
                    write(render(kind, times, rate), rate, path, codec)
                    cases.append((kind, start, rate, codec, path, times))
        out = subprocess.run([binary, "analyze", "--no-progress", "--jobs", "1", "--for", "rhythm"] + extra
                             + [c[4] for c in cases], capture_output=True, text=True).stdout
        reports = {}
        for line in out.splitlines():
            r = json.loads(line)
            reports[r["source"]["path"]] = r
    print(f"{'signal':8} {'start':>5} {'rate':>6} {'codec':5} {'beats':>5} {'median ms':>9} {'mean ms':>8} "
          f"{'worst ms':>8} {'missed':>6} {'t0 beat':>7} {'BPM':>7}")
    summary = {}
    for kind, start, rate, codec, path, times in cases:
        r = reports.get(path, {})
        beats = np.array(r.get("rhythm", {}).get("beats", []))
        truth = np.array(times)
        errs = []
        for b in beats:
            e = b - truth[np.argmin(abs(truth - b))]
            if abs(e) <= 0.07:
                errs.append(e * 1000)
        missed = sum(1 for t in truth if len(beats) == 0 or np.min(abs(beats - t)) > 0.07)
        first = len(beats) > 0 and abs(beats[0] - truth[0]) <= 0.07
        med = float(np.median(errs)) if errs else float("nan")
        mean = float(np.mean(errs)) if errs else float("nan")
        worst = float(max(errs, key=abs)) if errs else float("nan")
        bpm = r.get("rhythm", {}).get("beatsPerMinute")
        summary.setdefault(kind, []).append(med)
        print(f"{kind:8} {start:5.1f} {rate:6d} {codec:5} {len(beats):5d} {med:9.1f} {mean:8.1f} {worst:8.1f} "
              f"{missed:6d} {str(first):>7} {bpm if bpm is None else round(bpm, 2)!s:>7}")
    print()
    for kind, meds in summary.items():
        m = np.array(meds)
        print(f"{kind:8} median of medians {np.nanmedian(m):6.1f} ms, range {np.nanmin(m):6.1f} .. {np.nanmax(m):6.1f} ms")


if __name__ == "__main__":
    main()

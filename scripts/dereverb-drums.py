#!/usr/bin/env python3
"""Prototype: does removing late reverberation before the harmonic/percussive separation keep the drum
test of instrument activity (and rhythm's drummed share) the same in a room as in the studio?

For each song, the dry dev-set recording and its copies in the rooms of scripts/real-copies.py (hall,
church) are read (the first 60 s, mono, 22.05 kHz), and the drum test is measured as is and after a
late-reverberation subtraction: the power spectrum less its own value `--delay` s earlier decayed by
60 dB per `--decay` s (the late-reverberation estimate of Lebart, Boucher & Denbigh 2001, "A new
method based on spectral subtraction for speech dereverberation", Acta Acustica 87), each bin
attenuated to at most `--floor` of its magnitude. The drum test is instrument activity's: the share of
the audible time (0.5 s means within 45 dB of the 95th percentile) whose percussive energy comes within
13 dB of the harmonic, with librosa's median-filtering separation (kernel 17, margin 2) standing in
for the product's. Also printed: the texture measure of rhythm (the median new-sound share at the onset
peaks). Results: docs/analyses/instrument-activity.md, "Drums in a reverberant room".

usage: scripts/dereverb-drums.py COPIES_DIR [--songs ID,...] [--decay S] [--floor G]
  COPIES_DIR: the work folder of scripts/real-copies.py with the hall and church copies built
  (CADENZA_EVAL=... python scripts/real-copies.py BIN COPIES_DIR --copies hall,church)
Needs librosa (the harness venv). The audio stays where it is; nothing is written.
"""
import argparse
import os
import sys
import warnings
from pathlib import Path

import numpy as np

SR, NFFT, HOP = 22050, 2048, 256


def subtract_late(S, decay, delay, floor):
    """Magnitudes `S` (bins × frames) less the late reverberation predicted from `delay` s before."""
    P = S ** 2
    d = max(1, int(round(delay * SR / HOP)))
    late = np.zeros_like(P)
    late[:, d:] = np.exp(-13.8 * delay / decay) * P[:, :-d]
    gain = np.maximum(1 - late / (P + 1e-12), floor ** 2)
    return S * np.sqrt(gain)


def texture(S):
    """Median, over the salient onset peaks, of the largest new-sound share within 50 ms."""
    flux = np.maximum(0, np.diff(S, axis=1)).sum(0)
    share = flux / (S[:, 1:].sum(0) + 1e-9)
    fps = SR / HOP
    m, h = int(round(0.05 * fps)), int(round(0.5 * fps))
    local = np.convolve(flux, np.ones(2 * h + 1) / (2 * h + 1), "same")
    peaks = [i for i in range(m, len(flux) - m) if flux[i] == flux[i - m:i + m + 1].max() and flux[i] >= local[i]]
    if not peaks:
        return 0.0
    reference = np.percentile(flux[peaks], 95)
    peaks = [i for i in peaks if flux[i] >= 0.1 * reference]
    return float(np.median([share[max(0, i - m):i + m + 1].max() for i in peaks]))


def drummed(S):
    """Share of the audible time whose percussive energy is within 13 dB of the harmonic (0.5 s means)."""
    import librosa
    H, P = librosa.decompose.hpss(S, kernel_size=17, margin=2.0)
    R = np.maximum(0, S - H - P)
    h, p, r = (H ** 2).sum(0), (P ** 2).sum(0), (R ** 2).sum(0)
    k = int(round(0.25 * SR / HOP))
    w = np.ones(2 * k + 1) / (2 * k + 1)
    hs, ps = np.convolve(h, w, "same"), np.convolve(p, w, "same")
    level = 10 * np.log10(np.convolve(h + p + r, w, "same") + 1e-12)
    audible = level >= np.percentile(level, 95) - 45
    ratio = 10 * np.log10(ps + 1e-12) - 10 * np.log10(hs + 1e-12)
    return float((ratio[audible] >= -13).mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("copies", type=Path)
    ap.add_argument("--songs", default="beatles2_twist_and_shout,beatles2_misery,beatles2_act_naturally,"
                    "beatles2_for_no_one,beatles2_yesterday")
    ap.add_argument("--decay", type=float, default=1.0, help="reverberation time of the subtraction, s")
    ap.add_argument("--delay", type=float, default=0.05, help="start of the late reverberation, s")
    ap.add_argument("--floor", type=float, default=0.5, help="least gain of a bin (0.5: at most 6 dB)")
    args = ap.parse_args()
    import librosa
    warnings.filterwarnings("ignore")
    real = Path(os.environ.get("CADENZA_EVAL", "../shared/eval")) / "real" / "data" / "audio"
    print("| song | room | drum test | after subtraction | texture | after subtraction |")
    print("|---|---|---|---|---|---|")
    for song in args.songs.split(","):
        for room in ("dry", "hall", "church"):
            folder = real if room == "dry" else args.copies / room / "data" / "audio"
            found = sorted(folder.glob(song + ".*"))
            if not found:
                print("%s: no %s copy under %s" % (song, room, folder), file=sys.stderr)
                continue
            y, _ = librosa.load(str(found[0]), sr=SR, mono=True, duration=60)
            S = np.abs(librosa.stft(y, n_fft=NFFT, hop_length=HOP))
            T = subtract_late(S, args.decay, args.delay, args.floor)
            print("| %s | %s | %.2f | %.2f | %.3f | %.3f |" % (song, room, drummed(S), drummed(T), texture(S), texture(T)),
                  flush=True)


if __name__ == "__main__":
    main()

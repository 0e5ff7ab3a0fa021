#!/usr/bin/env python3
"""The real dev set scored on altered copies of its own audio: does a decision survive a re-encoding?

The hidden acceptance set holds other recordings, from other sources and in other encodings. A
decision that flips when the same recording is re-encoded, shifted by a few milliseconds or given a
longer lead-in is a coin toss, and will not carry over. This script builds copies of the dev set's
audio with FFmpeg, shifts the annotations where the copy moves the music in time, runs the product's
`run_product.sh` on each copy and prints `score.py` for both halves beside the original.

Copies (each a folder WORKDIR/NAME laid out like the dev set, with its own `work/` reports):
  lofi     -6 dB, 22.05 kHz, mono, MP3 at 96 kbit/s
  shift    delayed by 3 ms (a fraction of an analysis hop), FLAC
  pad      0.5 s of silence in front, FLAC; beats, downbeats, sections and vocal intervals + 0.5 s
  48k      resampled to 48 kHz, FLAC
  sharp30  pitch and tempo 30 cents (1.7 %) up by resampling; annotation times scaled alike
  flat40   pitch and tempo 40 cents (2.3 %) down; annotation times scaled alike (many Beatles masters
           are already 18-33 cents flat, so these read a semitone down: docs/evaluation.md)
  hall     a concert hall's reverberation added (synthetic impulse response: 20 ms pre-delay,
           noise decaying in each octave band, reverberation time 2.0 s at 125 Hz to 1.0 s at 8 kHz,
           direct sound 4.4 dB above the reverberant energy), then 9 dB down so nothing clips
  church   a second, larger room for checking what was tuned on the hall (another impulse response:
           30 ms pre-delay, reverberation time 3.5 s at 125 Hz to 1.6 s at 8 kHz, as in large stone
           churches, the direct sound as loud as the reverberant energy: a distant microphone), 9 dB down
  slow6    time-stretched to 0.94 of the tempo, pitch kept (FFmpeg atempo); annotation times scaled
  fast6    time-stretched to 1.06 of the tempo, pitch kept; annotation times scaled
  hiss     pink noise mixed in at -54 dB RMS re full scale (tape hiss), 1 dB down, 24-bit FLAC
  quiet12  12 dB down, 24-bit FLAC
  quiet24  24 dB down, 24-bit FLAC (a quietly mastered recording: classical releases and broadcast
           masters sit 10-20 dB under a pop master's loudness)
  loud9    9 dB up and hard-clipped at full scale, 16-bit FLAC (a master pushed into the limiter far
           past the loudness war's: 3-10 % of the samples clip)
  clip30   a 30 s excerpt from 30 s in (from the start when the recording is shorter than 60 s; whole
           when shorter than 30 s), FLAC; annotations moved and cut to it (the ballroom and genre
           collections hold 30 s excerpts cut from the middle of a recording). scripts/real-excerpts.py
           cuts two per song and scores madmom's beats beside ours; this copy runs every analysis,
           and with --peers the peers on the same excerpts

usage: scripts/real-copies.py CADENZA_BINARY WORKDIR [--copies lofi,shift,pad] [--for ANALYSES]
       [--reference NAME] [--peers essentia]
needs: the dev set built (../shared/eval/real, `build.py`), its venv, ffmpeg and ffprobe. Set
CADENZA_EVAL to the harness folder (default ../shared/eval). The audio stays under WORKDIR (never
commit it: it is not redistributable). `--reference` names a report folder of the original set
(`work/NAME` of the dev set) to print beside each copy; without it the original is run too.
`--peers` runs peer tools (`peers.py --tools`) on each copy as well and prints each beside its
committed reports on the original.
"""
import argparse, glob, json, os, shutil, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path



def filtered(audio_filter=None, options=()):
    """A copy made by one FFmpeg audio filter chain (or none) and output options."""
    def command(src, dst, folder):
        return (["ffmpeg", "-v", "error", "-y", "-i", str(src)] + (["-af", audio_filter] if audio_filter else [])
                + list(options) + [str(dst)])
    return command


def resampled(ratio):
    """A copy whose pitch and tempo move by `ratio` together (the sample rate relabelled, then
    resampled back)."""
    def command(src, dst, folder):
        rate = sample_rate(src)
        return filtered("asetrate=%d*%.6f,aresample=%d" % (rate, ratio, rate))(src, dst, folder)
    return command


def in_room(ir_name):
    """The copy convolved with the impulse response `ir_name` of its copy folder (written once per
    folder by the copy's `prepare`), 9 dB down so that nothing clips."""
    def command(src, dst, folder):
        return ["ffmpeg", "-v", "error", "-y", "-i", str(src), "-i", str(folder / ir_name), "-filter_complex",
                "[0:a][1:a]afir=gtype=-1,volume=-9dB[o]", "-map", "[o]", str(dst)]
    return command


class Copy:
    """One kind of copy: `command(src, dst, folder)` gives the FFmpeg command that writes it; `ext` its
    file extension; the annotations move by `delay` seconds and their times scale by 1 / `speed`
    (music played `speed` times as fast); `prepare(folder)`, if any, runs once before the audio is
    converted."""
    def __init__(self, command, ext="flac", delay=0.0, speed=1.0, prepare=None, excerpt=None):
        self.command, self.ext, self.delay, self.speed, self.prepare = command, ext, delay, speed, prepare
        self.excerpt = excerpt

    def window(self, duration):
        """The excerpt (start, length) cut from a recording of `duration` seconds, or None for the
        whole recording."""
        if not self.excerpt:
            return None
        start, length = self.excerpt
        if duration <= length:
            return None
        return (start if duration >= start + length else 0.0), length


def excerpted(src, dst, folder, window):
    """The excerpt `window` (start, length) of the recording (`Copy.window`), or all of it for None."""
    cut = ["-ss", "%.3f" % window[0], "-t", "%.3f" % window[1]] if window else []
    return ["ffmpeg", "-v", "error", "-y"] + cut + ["-i", str(src), str(dst)]


def with_hiss(src, dst, folder):
    """The copy with steady pink noise mixed in at -54 dB RMS re full scale (tape hiss, a vinyl transfer's
    surface noise), 1 dB down so that nothing clips; the noise is seeded, so every run makes the
    same copy."""
    return ["ffmpeg", "-v", "error", "-y", "-i", str(src), "-filter_complex",
            "anoisesrc=color=pink:amplitude=0.01:seed=7:sample_rate=%d[n];"
            "[0:a][n]amix=inputs=2:duration=first:normalize=0,volume=-1dB[o]" % sample_rate(src),
            "-map", "[o]", "-sample_fmt", "s32", str(dst)]


HALL_IR = "hall_ir.wav"
CHURCH_IR = "church_ir.wav"
COPIES = {
    "lofi": Copy(filtered("volume=-6dB", ["-ar", "22050", "-ac", "1", "-b:a", "96k"]), ext="mp3"),
    "shift": Copy(filtered("adelay=3:all=1")),
    "pad": Copy(filtered("adelay=500:all=1"), delay=0.5),
    "48k": Copy(filtered(None, ["-ar", "48000"])),
    "sharp30": Copy(resampled(2 ** (30 / 1200)), speed=2 ** (30 / 1200)),
    "flat40": Copy(resampled(2 ** (-40 / 1200)), speed=2 ** (-40 / 1200)),
    "hall": Copy(in_room(HALL_IR), prepare=lambda folder: write_hall_impulse_response(folder)),
    "church": Copy(in_room(CHURCH_IR), prepare=lambda folder: write_church_impulse_response(folder)),
    "slow6": Copy(filtered("atempo=0.94"), speed=0.94),
    "fast6": Copy(filtered("atempo=1.06"), speed=1.06),
    "hiss": Copy(with_hiss),
    "quiet12": Copy(filtered("volume=-12dB", ["-sample_fmt", "s32"])),
    "quiet24": Copy(filtered("volume=-24dB", ["-sample_fmt", "s32"])),
    "loud9": Copy(filtered("volume=9dB", ["-sample_fmt", "s16"])),
    "clip30": Copy(excerpted, excerpt=(30.0, 30.0)),
}


def sample_rate(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                          "stream=sample_rate", "-of", "csv=p=0", str(path)], capture_output=True, text=True)
    return int(out.stdout.strip() or 44100)


def cut_truth(t, window):
    """The truth of an excerpt (start, length) of the recording: times moved by -start, and what lies
    outside [0, length] cut off (sections and vocal intervals clipped to it); a tempo read from the
    beats (60 / median beat interval) is read again from the excerpt's beats."""
    if window is None:
        return t
    start, length = window
    t = dict(t)
    for k in ("beats", "downbeats"):
        if isinstance(t.get(k), list):
            t[k] = [x - start for x in t[k] if 0 <= x - start <= length]
    if isinstance(t.get("sections"), list) and t["sections"]:
        cut = [dict(s, start=max(0.0, s["start"] - start), end=min(length, s["end"] - start)) for s in t["sections"]]
        t["sections"] = [s for s in cut if s["end"] > s["start"]]
    if isinstance(t.get("vocal"), list):
        cut = [[max(0.0, a - start), min(length, b - start)] for a, b in t["vocal"]]
        t["vocal"] = [[a, b] for a, b in cut if b > a]
    t["duration"] = length
    if str(t.get("bpmSource", "")).startswith("beats") and len(t.get("beats") or []) > 2:
        gaps = sorted(b - a for a, b in zip(t["beats"], t["beats"][1:]))
        t["bpm"] = 60 / gaps[len(gaps) // 2]
    return t


def moved_truth(t, d, speed=1.0):
    """The truth of a copy whose music plays `speed` times as fast and starts `d` seconds later:
    every time `x` becomes `x / speed + d` (the first section reaching back to 0), the tempo
    `bpm * speed`."""
    if d == 0 and speed == 1.0:
        return t
    t = dict(t)

    def m(x):
        return x / speed + d
    for k in ("beats", "downbeats"):
        if isinstance(t.get(k), list):
            t[k] = [m(x) for x in t[k]]
    if isinstance(t.get("sections"), list) and t["sections"]:
        t["sections"] = [dict(s, start=m(s["start"]), end=m(s["end"])) for s in t["sections"]]
        t["sections"][0]["start"] = 0.0
    if isinstance(t.get("vocal"), list):
        t["vocal"] = [[m(a), m(b)] for a, b in t["vocal"]]
    if isinstance(t.get("duration"), (int, float)):
        t["duration"] = m(t["duration"])
    if isinstance(t.get("bpm"), (int, float)):
        t["bpm"] = t["bpm"] * speed
    return t


def write_hall_impulse_response(folder):
    """Writes the hall's impulse response into a copy folder once (`in_hall` reads it)."""
    if not (folder / HALL_IR).exists():
        hall_impulse_response(folder / HALL_IR)


def write_church_impulse_response(folder):
    """Writes the church's impulse response into a copy folder once (the `church` copy reads it)."""
    if not (folder / CHURCH_IR).exists():
        hall_impulse_response(folder / CHURCH_IR, seconds=5.0, seed=11, predelay=0.03,
                              rt60=[3.6, 3.5, 3.3, 3.0, 2.8, 2.5, 2.1, 1.6, 1.1], direct=1.0)


def hall_impulse_response(path, rate=44100, seconds=3.0, seed=7, predelay=0.02,
                          rt60=(2.1, 2.0, 1.9, 1.8, 1.7, 1.5, 1.3, 1.0, 0.7), direct=1 / 0.6):
    """Writes a stereo impulse response of a room: a direct sound, `predelay` seconds of silence, then
    independent Gaussian noise per channel, split into octave bands (63 Hz to 16 kHz), each decaying
    by 60 dB in that band's reverberation time `rt60`, the tail of unit energy and the direct sound of
    amplitude `direct`. The defaults are the concert hall: 2.0 s at 125 Hz falling to 1.0 s at 8 kHz,
    as in large halls (L. Beranek, "Concert Halls and Opera Houses", 2004, ch. 4), the direct sound
    4.4 dB above the tail."""
    import numpy as np
    import soundfile as sf
    n = int(rate * seconds)
    t = np.arange(n) / rate
    noise = np.random.default_rng(seed).standard_normal((n, 2))
    spectrum = np.fft.rfft(noise, axis=0)
    freqs = np.fft.rfftfreq(n, 1 / rate)
    centres = [63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000]
    edges = [0] + [np.sqrt(a * b) for a, b in zip(centres, centres[1:])] + [rate / 2 + 1]
    tail = np.zeros((n, 2))
    for lo, hi, rt in zip(edges, edges[1:], rt60):
        band = np.where(((freqs >= lo) & (freqs < hi))[:, None], spectrum, 0)
        tail += np.fft.irfft(band, n=n, axis=0) * np.exp(-6.9 * t / rt)[:, None]
    ir = np.concatenate([np.zeros((int(predelay * rate), 2)), tail])
    ir /= np.sqrt((ir ** 2).sum(0))
    ir[0, :] = direct
    sf.write(str(path), ir.astype(np.float32), rate, subtype="FLOAT")


def build(real, folder, name):
    """Writes folder/data (audio and truth) for copy `name`; skips audio already written."""
    copy = COPIES[name]
    data = folder / "data"
    (data / "audio").mkdir(parents=True, exist_ok=True)
    for f in ("run_product.sh", "score.py", "reports_from_ndjson.py"):
        shutil.copy(real / f, folder / f)
    if not (folder / "peers").exists():
        (folder / "peers").symlink_to(real / "peers")
    for p in ("manifest.json", "ann", "src"):
        if (real / "data" / p).exists() and not (data / p).exists():
            (data / p).symlink_to(real / "data" / p)
    windows = {}
    for path in glob.glob(str(real / "data" / "*.truth.json")):
        t = json.load(open(path))
        windows[Path(path).name[:-len(".truth.json")]] = window = copy.window(float(t.get("duration") or 0))
        json.dump(cut_truth(moved_truth(t, copy.delay, copy.speed), window), open(data / Path(path).name, "w"))
    if copy.prepare:
        copy.prepare(folder)

    def convert(src):
        dst = data / "audio" / (src.stem + "." + copy.ext)
        if not dst.exists():
            if copy.excerpt:
                subprocess.run(copy.command(src, dst, folder, windows.get(src.stem)), check=True)
            else:
                subprocess.run(copy.command(src, dst, folder), check=True)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        list(pool.map(convert, sorted((real / "data" / "audio").iterdir())))


def run_peers(real, folder, tools, python):
    """Runs `peers.py --tools TOOLS` on the copy in `folder`: peers.py reads the audio under the file
    names of the dev set's manifest, so a folder `peer-run` holds links under those names to the
    copy's audio (whatever its format), to its truth and to the manifest, and a copy of peers.py and
    the harness modules it imports. Reports go to `peer-run/work/TOOL`; existing ones are kept."""
    run_dir = folder / "peer-run"
    audio = run_dir / "data" / "audio"
    audio.mkdir(parents=True, exist_ok=True)
    def link(path, target):
        if not path.exists():
            path.symlink_to(target)
    copies = {p.stem: p for p in (folder / "data" / "audio").iterdir()}
    for original in (real / "data" / "audio").iterdir():
        if original.stem in copies:
            link(audio / original.name, copies[original.stem])
    for truth in (folder / "data").glob("*.truth.json"):
        link(run_dir / "data" / truth.name, truth)
    link(run_dir / "data" / "manifest.json", real / "data" / "manifest.json")
    shutil.copy(real / "peers.py", run_dir / "peers.py")
    # peers.py imports the harness modules from its parent folder.
    for module in ("anchors.py", "common.py"):
        link(folder / module, real.parent / module)
    subprocess.run([python, "peers.py", "--tools", ",".join(tools), "--no-score"], cwd=run_dir, check=True,
                   stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("workdir")
    ap.add_argument("--copies", default="lofi,shift,pad", help="comma-separated: " + ",".join(COPIES))
    ap.add_argument("--for", dest="analyses", default="", help="analyses passed to run_product.sh")
    ap.add_argument("--reference", help="report folder name of the original set (else it is run too)")
    ap.add_argument("--peers", default="", help="peer tools run on each copy too (peers.py --tools, e.g. essentia)")
    args = ap.parse_args()
    harness = Path(os.environ.get("CADENZA_EVAL", Path(__file__).resolve().parent.parent.parent / "shared" / "eval"))
    real = harness / "real"
    if not (real / "data" / "manifest.json").exists():
        sys.exit("no dev set at %s: run its build.py first (CADENZA_EVAL points to the harness)" % real)
    binary = str(Path(args.binary).resolve())
    work = Path(args.workdir).resolve()
    names = [c for c in args.copies.split(",") if c]
    unknown = [c for c in names if c not in COPIES]
    if unknown:
        sys.exit("unknown copies: %s (known: %s)" % (", ".join(unknown), ", ".join(COPIES)))
    python = str(harness / ".venv" / "bin" / "python")
    env = dict(os.environ, NAME="copy", PY=python)
    run = [str(x) for x in ["./run_product.sh", binary] + ([args.analyses] if args.analyses else [])]
    reference = args.reference
    if reference is None:
        reference = "copies-original"
        subprocess.run(run, cwd=real, env=dict(env, NAME=reference), check=True, stdout=subprocess.DEVNULL)
    for name in names:
        folder = work / name
        build(real, folder, name)
        subprocess.run(run, cwd=folder, env=env, check=True, stdout=subprocess.DEVNULL)
        peers = [t for t in args.peers.split(",") if t]
        if peers:
            run_peers(real, folder, peers, python)
        for h in ("A", "B"):
            # Each against its own truth: the copy's annotations may be moved in time.
            def rows(cwd, reports):
                out = subprocess.run([python, "score.py", reports, "--half", h], cwd=cwd,
                                     capture_output=True, text=True, check=True).stdout
                cells = [[c.strip() for c in l.strip().strip("|").split("|")] for l in out.splitlines() if l.startswith("| ")]
                return {c[0]: c for c in cells if len(c) >= 3}
            original, copy = rows(real, str(real / "work" / reference)), rows(folder, "work/copy")
            # Each peer: its committed reports on the original, its fresh ones on the copy.
            peer_rows = [(t, rows(real, str(real / "peers" / t)), rows(folder, str(folder / "peer-run" / "work" / t)))
                         for t in peers]
            heads = "".join(" | %s original | %s %s" % (t, t, name) for t in peers)
            print("## %s, half %s\n\n| metric | n | original | %s%s |\n|---|---|---|---|%s" % (name, h, name, heads, "---|---|" * len(peers)))
            for metric, c in original.items():
                if metric != "metric" and metric in copy:
                    cells = "".join(" | %s | %s" % (po.get(metric, ["", "", "—"])[2], pc.get(metric, ["", "", "—"])[2])
                                    for _, po, pc in peer_rows)
                    print("| %s | %s | %s | %s%s |" % (metric, c[1], c[2], copy[metric][2], cells))
            print()


if __name__ == "__main__":
    main()

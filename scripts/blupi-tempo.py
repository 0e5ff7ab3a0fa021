#!/usr/bin/env python3
"""Tempo and beats of cadenza on the ten planetblupi MIDI renderings, against the shipped MIDI.

Debian's planetblupi-music-ogg and planetblupi-music-midi packages ship each game track twice: an
Ogg rendering and the MIDI it was rendered from (one tempo, 4/4, the MIDI about as long as the
recording). The MIDI tempo is the notated tempo; the beat grid of the MIDI (one beat per quarter
note from 0 s) is a rough beat truth (the renderings drop the MIDIs' 50 ms lead-in; a few tracks
change their bar phase, so beat F below 1 is not always an error). The eval harness holds two of the
ten tracks. Each track is cut to its first 300 s, as the harness does.

usage: scripts/blupi-tempo.py CADENZA_BINARY [--configuration FILE] [--essentia]
needs: mido (the eval harness venv has it: /work/eval/.venv/bin/python), ffmpeg, the two packages.
"""
import argparse, json, os, subprocess, sys, tempfile
from pathlib import Path

import mido
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from beatscore import f_measure  # noqa: E402

MUSIC = Path("/usr/share/planetblupi/music")


def midi_tempo(path):
    m = mido.MidiFile(str(path))
    for msg in mido.merge_tracks(m.tracks):
        if msg.type == "set_tempo":
            return mido.tempo2bpm(msg.tempo)
    return 120.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cadenza")
    ap.add_argument("--configuration")
    ap.add_argument("--essentia", action="store_true", help="also run Essentia's RhythmExtractor2013")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="blupi-"))
    audio = work / "audio"; audio.mkdir()
    tracks = sorted(p.stem for p in MUSIC.glob("*.ogg") if (MUSIC / (p.stem + ".mid")).exists())
    if not tracks:
        sys.exit("no planetblupi tracks: apt-get install planetblupi-music-ogg planetblupi-music-midi")
    for t in tracks:
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", str(MUSIC / f"{t}.ogg"), "-t", "300",
                        "-c:a", "copy", str(audio / f"{t}.ogg")], check=True)
    cmd = [os.path.abspath(a.cadenza), "analyze", "audio", "--for", "rhythm", "--no-progress", "--output", "reports"]
    if a.configuration:
        cmd += ["--configuration", os.path.abspath(a.configuration)]
    subprocess.run(cmd, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    acc1 = acc2 = 0; fs = []; efs = []; eacc1 = 0
    print("| track | MIDI BPM | cadenza BPM | beat F | essentia BPM | essentia beat F |")
    print("|---|---|---|---|---|---|")
    for t in tracks:
        truth = midi_tempo(MUSIC / f"{t}.mid")
        grid = list(np.arange(0, 300, 60 / truth))
        rp = work / "reports" / "audio" / f"{t}.ogg.json"
        r = json.load(open(rp)) if rp.exists() else {}
        rh = r.get("rhythm") or {}
        bpm = rh.get("beatsPerMinute")
        ok1 = bpm is not None and abs(bpm / truth - 1) <= 0.04
        ok2 = bpm is not None and any(abs(bpm / (truth * k) - 1) <= 0.04 for k in (0.5, 1, 2, 1 / 3, 3))
        acc1 += ok1; acc2 += ok2
        f = f_measure(grid, rh.get("beats", [])); fs.append(f)
        ebpm = ef = ""
        if a.essentia:
            import essentia.standard as es
            mono = es.MonoLoader(filename=str(audio / f"{t}.ogg"), sampleRate=44100)()
            eb, ebeats, _, _, _ = es.RhythmExtractor2013(method="multifeature")(mono)
            eacc1 += abs(eb / truth - 1) <= 0.04
            e = f_measure(grid, list(ebeats)); efs.append(e)
            ebpm, ef = "%.1f" % eb, "%.3f" % e
        print("| %s | %.1f | %s | %.3f | %s | %s |" % (t, truth, "%.1f" % bpm if bpm else "none", f, ebpm, ef))
    n = len(tracks)
    print(f"\ncadenza: tempo Acc1 {acc1}/{n}, Acc2 {acc2}/{n}, mean beat F {np.mean(fs):.3f}")
    if a.essentia:
        print(f"essentia: tempo Acc1 {eacc1}/{n}, mean beat F {np.mean(efs):.3f}")
    print(f"reports kept in {work}")


if __name__ == "__main__":
    main()

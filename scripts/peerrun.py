"""The peers' rhythm for the evaluation scripts in this folder (scripts/*.py): Essentia's
RhythmExtractor2013 (multifeature) and madmom's RNN and DBN downbeat tracker (Böck, Krebs & Widmer
2016; beats per bar 3 or 4), loaded from the eval harness's venv."""
import os, sys
from pathlib import Path


def same_tempo(a, b):
    """Whether two tempi (BPM; None when a tool has none) agree within 4 %, Acc1's tolerance."""
    return bool(a and b and abs(a / b - 1) <= 0.04)


def median_tempo(beats):
    """A beat list's tempo, 60 over its median interval (None with fewer than three beats)."""
    import numpy as np
    return 60 / float(np.median(np.diff(beats))) if len(beats) > 2 else None


def essentia_rhythm(path):
    """Essentia's tempo (BPM) and beat times of an audio file its loader reads (WAV, MP3, OGG)."""
    import essentia.standard as es
    bpm, beats, _, _, _ = es.RhythmExtractor2013(method="multifeature")(es.MonoLoader(filename=str(path), sampleRate=44100)())
    return float(bpm), [float(b) for b in beats]


def madmom_downbeats(path):
    """madmom's beat and downbeat times of an audio file. The prebuilt madmom wheel lacks its
    package metadata, so it is loaded as the harness's anchors.py does (CADENZA_EVAL, default
    ../shared/eval)."""
    harness = os.environ.get("CADENZA_EVAL", str(Path(__file__).resolve().parents[2] / "shared" / "eval"))
    if harness not in sys.path:
        sys.path.insert(0, harness)
    import anchors
    anchors._madmom()
    from madmom.features.downbeats import DBNDownBeatTrackingProcessor, RNNDownBeatProcessor
    r = DBNDownBeatTrackingProcessor(beats_per_bar=[3, 4], fps=100)(RNNDownBeatProcessor()(str(path)))
    return [float(x[0]) for x in r], [float(x[0]) for x in r if int(x[1]) == 1]

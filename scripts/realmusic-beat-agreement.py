#!/usr/bin/env python3
"""Beat agreement of cadenza with Essentia on the harness realmusic tracks (no human beat truth exists).

F-measure (70 ms, first 5 s skipped) of our beats against the essentia anchor beats.
usage: scripts/realmusic-beat-agreement.py REPORTS_DIR  (reports of `cadenza analyze` on $CADENZA_EVAL/corpus/realmusic)
"""
import json, sys, glob, os, numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from beatscore import f_measure as fm  # noqa: E402
d=sys.argv[1]; out=[]
for f in sorted(glob.glob(os.environ.get('CADENZA_EVAL','/work/eval')+'/anchors/essentia/realmusic/*.json')):
    n=os.path.basename(f); e=json.load(open(f))['rhythm']['beats']
    rp=glob.glob(f'{d}/**/{n}', recursive=True)
    if not rp: continue
    r=json.load(open(rp[0])).get('rhythm') or {}
    x=fm(e, r.get('beats',[])); out.append(x); print(n, "%.3f"%x, r.get('beatsPerMinute'))
print("mean agreement %.3f"%np.mean(out))

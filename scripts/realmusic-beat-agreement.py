#!/usr/bin/env python3
"""Beat agreement of cadenza with Essentia on the harness realmusic tracks (no human beat truth exists).

F-measure (70 ms, first 5 s skipped) of our beats against the essentia anchor beats.
usage: scripts/realmusic-beat-agreement.py REPORTS_DIR  (reports of `cadenza analyze` on $CADENZA_EVAL/corpus/realmusic)
"""
import json, sys, glob, os, numpy as np

def fm(ref, est, w=0.07):
    ref=np.asarray([r for r in ref if r>=5]); est=np.asarray([e for e in est if e>=5])
    if len(ref)==0 or len(est)==0: return 0.0
    used=set(); h=0
    for r in ref:
        j=int(np.argmin(np.abs(est-r)))
        if abs(est[j]-r)<=w and j not in used: used.add(j); h+=1
    p=h/len(est); q=h/len(ref); return 2*p*q/(p+q) if p+q else 0
d=sys.argv[1]; out=[]
for f in sorted(glob.glob(os.environ.get('CADENZA_EVAL','/work/eval')+'/anchors/essentia/realmusic/*.json')):
    n=os.path.basename(f); e=json.load(open(f))['rhythm']['beats']
    rp=glob.glob(f'{d}/**/{n}', recursive=True)
    if not rp: continue
    r=json.load(open(rp[0])).get('rhythm') or {}
    x=fm(e, r.get('beats',[])); out.append(x); print(n, "%.3f"%x, r.get('beatsPerMinute'))
print("mean agreement %.3f"%np.mean(out))

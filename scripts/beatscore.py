"""Beat F-measure shared by the evaluation scripts in this folder (scripts/*.py)."""
import numpy as np


def f_measure(ref, est, window=0.07):
    """Beat F-measure as mir_eval computes it: the first 5 s skipped, each reference beat matched
    to at most one estimated beat within `window` seconds."""
    ref = np.asarray([r for r in ref if r >= 5]); est = np.asarray([e for e in est if e >= 5])
    if len(ref) == 0 or len(est) == 0:
        return 0.0
    used, hits = set(), 0
    for r in ref:
        j = int(np.argmin(np.abs(est - r)))
        if abs(est[j] - r) <= window and j not in used:
            used.add(j); hits += 1
    p, q = hits / len(est), hits / len(ref)
    return 2 * p * q / (p + q) if p + q else 0.0

#!/usr/bin/env python3
"""Checks a `cadenza plot` page as a person sees it: the PNG that headless Chromium rendered.

  plot_check.py long REPORT.json OUT.json HOURS   # a long mix: REPORT repeated back to back
  plot_check.py check PAGE.html PAGE.png REPORT.json

`check` reads the lane geometry from the page's SVG (data-left, data-plot-width, data-duration,
and data-top/data-height of each <g id="lane-...">) and the report, then samples pixels:
not blank; every instrument lane coloured inside the report's ranges and empty outside; section
bands of one colour per repetition label (the same label, the same colour); key bands drawn;
bar lines where the report's bars are (when every bar is drawn); the loudness area's top edge at
the short-term maximum of each pixel column. Prints each check and 'N passed, N failed'.
Tooling only (Python is never the product)."""
import json, re, sys

from PIL import Image


def shift_report(report, offset, index):
    """A deep copy of the report's time-bearing fields moved by offset seconds."""
    def tr(r):
        return {"start": round(r["start"] + offset, 4), "duration": r["duration"]}
    out = {}
    rh = report["rhythm"]
    out["beats"] = [round(b + offset, 4) for b in rh["beats"]]
    out["bars"] = [round(b + offset, 4) for b in rh["bars"]]
    st = report["structure"]
    out["sections"] = [tr(r) for r in st["sections"]]
    out["segments"] = [tr(r) for r in st["segments"]]
    out["phrases"] = [tr(r) for r in st["phrases"]]
    out["labels"] = st.get("sectionLabels", [])
    out["functions"] = st.get("sectionFunctions", [])
    out["key"] = [{"range": tr(r["range"]), "value": r["value"]} for r in report["key"]["ranges"]]
    out["pace"] = [{"range": tr(r["range"]), "value": r["value"]} for r in report["pace"]["ranges"]]
    lo = report["loudness"]
    out["momentary"] = [{"time": round(p["time"] + offset, 4), "value": p["value"]} for p in lo["momentary"]]
    out["shortTerm"] = [{"time": round(p["time"] + offset, 4), "value": p["value"]} for p in lo["shortTerm"]]
    ia = report["instrumentActivity"]
    out["ranges"] = {k: [tr(r) for r in v] for k, v in ia["ranges"].items()}
    out["activity"] = {k: [{"time": round(p["time"] + offset, 4), "value": p["value"]} for p in v] for k, v in ia["activity"].items()}
    return out


def make_long(src, dst, hours):
    report = json.load(open(src))
    d = report["source"]["duration"]
    n = max(1, int(round(hours * 3600 / d)))
    parts = [shift_report(report, i * d, i) for i in range(n)]
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    long = json.loads(json.dumps(report))
    long["source"] = dict(report["source"], path="long-mix (%d x %s)" % (n, report["source"]["path"]), duration=round(n * d, 6))
    long["rhythm"]["beats"] = [b for p in parts for b in p["beats"]]
    long["rhythm"]["bars"] = [b for p in parts for b in p["bars"]]
    for k in ("sections", "segments", "phrases"):
        long["structure"][k] = [r for p in parts for r in p[k]]
    # Each repetition gets its own letters: track i's A is letters[(i*4) % 26] ...
    labels = []
    for i, p in enumerate(parts):
        labels += [letters[(i * 4 + letters.index(l[0])) % 26] for l in p["labels"]]
    long["structure"]["sectionLabels"] = labels
    long["structure"]["sectionFunctions"] = [f for p in parts for f in p["functions"]]
    long["key"]["ranges"] = [r for p in parts for r in p["key"]]
    long["pace"]["ranges"] = [r for p in parts for r in p["pace"]]
    long["loudness"]["momentary"] = [x for p in parts for x in p["momentary"]]
    long["loudness"]["shortTerm"] = [x for p in parts for x in p["shortTerm"]]
    long["loudness"]["integrated"] = dict(report["loudness"]["integrated"], time=round(n * d, 4))
    long["instrumentActivity"]["ranges"] = {k: [r for p in parts for r in p["ranges"][k]] for k in parts[0]["ranges"]}
    long["instrumentActivity"]["activity"] = {k: [x for p in parts for x in p["activity"][k]] for k in parts[0]["activity"]}
    json.dump(long, open(dst, "w"), separators=(",", ":"), sort_keys=True)
    print("long report: %d copies, %.0f s, %d beats, %d bars" % (n, n * d, len(long["rhythm"]["beats"]), len(long["rhythm"]["bars"])))


def rgb(hexcolour):
    h = hexcolour.lstrip("#")
    return tuple(int(h[i:i + 2], 16) for i in (0, 2, 4))


def dist(a, b):
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def expect(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if ok:
            self.passed += 1
        else:
            self.failed += 1


def check(page, png, report_path, checks):
    html = open(page, encoding="utf-8").read()
    report = json.load(open(report_path))
    img = Image.open(png).convert("RGB")
    W, H = img.size
    px = img.load()
    svg = re.search(r"<svg ([^>]*)>", html).group(1)
    attr = lambda s, k: float(re.search(r'%s="([^"]+)"' % k, s).group(1))
    left, width, duration = attr(svg, "data-left"), attr(svg, "data-plot-width"), attr(svg, "data-duration")
    lanes = {}
    for m in re.finditer(r'<g data-height="([^"]+)" data-top="([^"]+)" id="lane-([a-z]+)">', html):
        lanes[m.group(3)] = (float(m.group(2)), float(m.group(1)))
    name = page.split("/")[-1]
    checks.expect(len(lanes) == 10, "%s: ten lanes in the SVG (%d)" % (name, len(lanes)))
    x = lambda t: left + min(max(t / duration, 0), 1) * width
    background = rgb("#f1f2f4")

    # Not blank: the plot area holds many colours and is mostly not white.
    top0, bottom = lanes["loudness"][0], lanes["pace"][0] + lanes["pace"][1]
    sample = [px[int(xx), int(yy)] for xx in range(int(left), int(left + width), 7) for yy in range(int(top0), int(bottom), 7)]
    nonwhite = sum(1 for p in sample if dist(p, (255, 255, 255)) > 8) / len(sample)
    colours = len(set(sample))
    checks.expect(nonwhite > 0.6 and colours > 30, "%s: not blank (%.0f%% non-white, %d colours)" % (name, 100 * nonwhite, colours))

    columns = int(round(width))
    col_time = lambda c: (c + 0.5) / columns * duration
    margin = 2.5 * duration / width  # seconds of 2.5 px: antialiased edges are not judged

    # Instrument lanes: pale or full colour inside a range, lane background outside.
    ia = report["instrumentActivity"]
    for inst in ("vocal", "drum", "bass", "other"):
        top, h = lanes[inst]
        y = int(top + 1)
        ranges = [(r["start"], r["start"] + r["duration"]) for r in ia["ranges"][inst]]
        act = ia["activity"].get(inst, [])
        loud = [0.0] * columns
        for p in act:
            c = min(columns - 1, max(0, int(p["time"] / duration * columns)))
            loud[c] = max(loud[c], p["value"])
        wrong_in = wrong_out = n_in = n_out = 0
        for c in range(columns):
            t = col_time(c)
            inside = any(a + margin <= t <= b - margin for a, b in ranges)
            near = any(a - margin <= t <= b + margin for a, b in ranges)
            colour = px[int(left + c + 0.5), y]
            if inside:
                n_in += 1
                wrong_in += dist(colour, background) < 20
            elif not near and max(loud[max(0, c - 3):c + 4]) < 0.9:
                n_out += 1
                wrong_out += dist(colour, background) > 12
        ok = n_in + n_out > 0 and wrong_in <= 0.02 * max(n_in, 1) and wrong_out <= 0.02 * max(n_out, 1)
        checks.expect(ok, "%s: %s lane coloured in %d/%d columns inside its ranges, background in %d/%d outside"
                      % (name, inst, n_in - wrong_in, n_in, n_out - wrong_out, n_out))

    # Sections: one colour per band, the same colour for the same label, different for different ones.
    top, h = lanes["sections"]
    st = report["structure"]
    labels = st.get("sectionLabels") or ["?"] * len(st["sections"])
    by_label, bad = {}, 0
    judged = 0
    for r, label in zip(st["sections"], labels):
        a, b = x(r["start"]), x(r["start"] + r["duration"])
        if b - a < 3:
            continue
        judged += 1
        colour = px[int((a + b) / 2), int(top + 3)]
        if dist(colour, background) < 10 or dist(colour, (255, 255, 255)) < 10:
            bad += 1
        if label in by_label and dist(by_label[label], colour) > 12:
            bad += 1
        by_label.setdefault(label, colour)
    distinct = len({by_label[k] for k in by_label})
    checks.expect(judged > 0 and bad == 0 and distinct == min(len(by_label), 8),
                  "%s: %d section bands, one colour per label (%d labels, %d colours), %d wrong" % (name, judged, len(by_label), distinct, bad))

    # Key: every range wider than 6 px is drawn.
    top, h = lanes["key"]
    kr = [r["range"] for r in report["key"]["ranges"]]
    missing = sum(1 for r in kr if x(r["start"] + r["duration"]) - x(r["start"]) > 6
                  and dist(px[int(x(r["start"]) + 3), int(top + h - 3)], background) < 10)
    checks.expect(len(kr) > 0 and missing == 0, "%s: %d key bands drawn, %d missing" % (name, len(kr), missing))

    # Bars: when every bar is drawn, a dark line at each bar (the top of the lane has no beats).
    top, h = lanes["beats"]
    bars = report["rhythm"]["bars"]
    stride = re.search(r'class="bars" d="[^"]*" data-count="(\d+)"', html)
    drawn = int(stride.group(1)) if stride else 0
    if drawn == len(bars):
        y = int(top + 3)
        misses = sum(1 for b in bars if min(sum(px[int(round(x(b))) + d, y]) for d in (-1, 0, 1)) > 3 * 120)
        checks.expect(misses == 0, "%s: a bar line at each of %d bars (%d missing)" % (name, len(bars), misses))
    else:
        checks.expect(0 < drawn <= width / 4, "%s: %d bars thinned to %d lines (at least 4 px apart)" % (name, len(bars), drawn))

    # Loudness: the area's top edge at the short-term maximum of each pixel column (-60...0 LUFS).
    top, h = lanes["loudness"]
    blue = rgb("#4f7cba")
    colmax = [None] * columns
    for p in report["loudness"]["shortTerm"]:
        v = -60.0 if p["value"] is None else max(-60.0, min(0.0, p["value"]))
        c = min(columns - 1, max(0, int(p["time"] / duration * columns)))
        colmax[c] = v if colmax[c] is None else max(colmax[c], v)
    for c in range(1, columns):  # a column without a value holds the one before, as the plot draws it
        if colmax[c] is None:
            colmax[c] = colmax[c - 1]
    off = judged = 0
    for c in range(2, columns - 2):
        if None in colmax[c - 2:c + 3] or max(colmax[c - 2:c + 3]) - min(colmax[c - 2:c + 3]) > 1 or colmax[c] < -57:
            continue
        judged += 1
        expect_y = top + h * (1 - (colmax[c] + 60) / 60)
        xx = int(left + c + 0.5)
        first = next((yy for yy in range(int(top), int(top + h)) if dist(px[xx, yy], blue) < 40), None)
        off += first is None or abs(first - expect_y) > 2.5
    checks.expect(judged > 0 and off <= 0.03 * judged, "%s: loudness edge within 2.5 px in %d/%d columns" % (name, judged - off, judged))


def main():
    if sys.argv[1] == "long":
        make_long(sys.argv[2], sys.argv[3], float(sys.argv[4]))
        return 0
    checks = Checks()
    args = sys.argv[2:]
    for i in range(0, len(args), 3):
        check(args[i], args[i + 1], args[i + 2], checks)
    print("%d passed, %d failed" % (checks.passed, checks.failed))
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())

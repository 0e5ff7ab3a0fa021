import Foundation

/// Turns a per-frame presence score into time ranges that do not flicker: a Schmitt trigger
/// (a range opens when the score reaches `on` and closes when it falls below `off`), then gaps
/// shorter than `bridge` seconds are closed and ranges shorter than `minimumDuration` dropped.
struct RangeTracker {
    /// Score at which a range opens.
    var on: Float
    /// Score below which an open range closes (`off <= on`).
    var off: Float
    /// Gaps shorter than this are bridged, seconds.
    var bridge: Double
    /// Ranges shorter than this (after bridging) are dropped, seconds.
    var minimumDuration: Double

    /// The presence mask of `score` (frames at `rate` per second, frame `i` spanning
    /// `i / rate ..< (i + 1) / rate`). Non-finite scores count as absent.
    func mask(_ score: [Float], rate: Double) -> [Bool] {
        let n = score.count
        var present = [Bool](repeating: false, count: n)
        var open = false
        for i in 0..<n {
            let s = score[i].isFinite ? score[i] : -.infinity
            if open { open = s >= off } else { open = s >= on }
            present[i] = open
        }
        // Bridge short gaps between present frames.
        let maxGap = Int((bridge * rate).rounded(.down))
        var i = 0
        var lastEnd = -1  // index after the last present run
        while i < n {
            if present[i] {
                var j = i
                while j < n && present[j] { j += 1 }
                if lastEnd >= 0 && i - lastEnd < maxGap {
                    for k in lastEnd..<i { present[k] = true }
                }
                lastEnd = j
                i = j
            } else {
                i += 1
            }
        }
        // Drop short runs.
        let minRun = Int((minimumDuration * rate).rounded(.up))
        i = 0
        while i < n {
            if present[i] {
                var j = i
                while j < n && present[j] { j += 1 }
                if j - i < minRun { for k in i..<j { present[k] = false } }
                i = j
            } else {
                i += 1
            }
        }
        return present
    }

    /// Ranges of consecutive present frames, ends clamped to `duration`.
    static func ranges(of mask: [Bool], rate: Double, duration: Double) -> [TimeRange] {
        var out: [TimeRange] = []
        var i = 0
        let n = mask.count
        while i < n {
            if mask[i] {
                var j = i
                while j < n && mask[j] { j += 1 }
                let start = Double(i) / rate
                let end = min(duration, Double(j) / rate)
                if end > start { out.append(TimeRange(start: start, end: end)) }
                i = j
            } else {
                i += 1
            }
        }
        return out
    }
}

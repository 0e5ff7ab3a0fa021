import Foundation

/// Peak picking shared by the analyses: one function per rule, each named after what it keeps.
///
/// Every analysis that reads peaks off a curve (pace events, beat placement, downbeat cues,
/// tempo candidates, section boundaries) calls one of these; the analysis keeps only its
/// settings (radius, threshold, distance). The rules are the standard ones of onset and
/// novelty detection (Bello et al., "A tutorial on onset detection in music signals",
/// IEEE TSAP 13(5), 2005, sec. III-C: local maxima above a fixed or adaptive threshold).
enum PeakPicking {
    /// Indices of the positive local maxima of `x` over ±`radius` values, in order; of equal
    /// values in a window the first is the maximum.
    static func localMaxima(_ x: [Float], radius: Int) -> [Int] {
        let n = x.count
        let r = max(1, radius)
        var peaks: [Int] = []
        for i in 0..<n where x[i] > 0 {
            var isMax = true
            for k in max(0, i - r)...min(n - 1, i + r) where k != i {
                if x[k] > x[i] || (x[k] == x[i] && k < i) {
                    isMax = false
                    break
                }
            }
            if isMax { peaks.append(i) }
        }
        return peaks
    }

    /// Whether `x[i]` is a three-point local maximum: at least its neighbours (`strict`: above
    /// them); an end index compares with its one neighbour.
    @inline(__always) static func isLocalMaximum<T: Comparable>(_ x: [T], at i: Int, strict: Bool = false) -> Bool {
        guard i >= 0, i < x.count else { return false }
        if i > 0, strict ? x[i - 1] >= x[i] : x[i - 1] > x[i] { return false }
        if i + 1 < x.count, strict ? x[i + 1] >= x[i] : x[i + 1] > x[i] { return false }
        return true
    }

    /// The largest value of `x` within ±`radius` of index `i`, and at least 0 (0 for a window
    /// outside `x`).
    static func windowMaximum(_ x: [Float], around i: Int, radius: Int) -> Float {
        let lo = max(0, i - radius), hi = min(x.count - 1, i + radius)
        guard lo <= hi else { return 0 }
        var m: Float = 0
        for k in lo...hi where x[k] > m { m = x[k] }
        return m
    }

    /// The index of the largest value of `x` within ±`radius` of `i`: `i` itself unless a value
    /// is larger, else the first of the largest; `i` unchanged when it lies outside `x`.
    static func largest(_ x: [Float], near i: Int, radius: Int) -> Int {
        let lo = max(0, i - radius), hi = min(x.count - 1, i + radius)
        guard lo <= hi, i >= 0, i < x.count else { return i }
        var best = i
        for k in lo...hi where x[k] > x[best] { best = k }
        return best
    }

    /// The local maximum of `x` reached by hill climbing (up, then down) from index `start`
    /// (rounded); `start` unchanged at either end of `x`.
    static func climb(_ x: [Double], from start: Double) -> Int {
        var i = Int(start.rounded())
        guard i > 0, i + 1 < x.count else { return i }
        while i + 1 < x.count, x[i + 1] > x[i] { i += 1 }
        while i > 1, x[i - 1] > x[i] { i -= 1 }
        return i
    }

    /// The vertex offset of the parabola through `(-1, y0)`, `(0, y1)`, `(1, y2)`, nil unless it
    /// opens downward (Smith & Serra, "PARSHL", ICMC 1987: quadratic peak interpolation). At a
    /// three-point maximum the offset lies in -0.5...0.5.
    @inline(__always) static func parabolicOffset<T: BinaryFloatingPoint>(_ y0: T, _ y1: T, _ y2: T) -> T? {
        let den = y0 - 2 * y1 + y2
        guard den < 0 else { return nil }
        return 0.5 * (y0 - y2) / den
    }

    /// Strict local maxima of `x` above an adaptive threshold: the moving median over
    /// `medianWindow` values (centred, reflected at the ends) plus `offset` times the mean of `x`
    /// (Serrà, Müller, Grosche & Arcos, "Unsupervised music structure annotation by time series
    /// structure features and segment similarity", IEEE TMM 16(5), 2014, sec. III-C).
    static func aboveMovingMedian(_ x: [Float], medianWindow: Int, offset: Float) -> [Int] {
        let n = x.count
        guard n >= 3 else { return [] }
        let mean = x.reduce(0, +) / Float(n)
        let width = max(1, medianWindow)
        let half = width / 2
        var found: [Int] = []
        var window: [Float] = []
        window.reserveCapacity(width)
        for i in 1..<(n - 1) where isLocalMaximum(x, at: i, strict: true) {
            window.removeAll(keepingCapacity: true)
            for j in (i - half)..<(i - half + width) { window.append(x[Smoothing.reflect(j, n)]) }
            window.sort()
            if x[i] > window[window.count / 2] + offset * mean { found.append(i) }
        }
        return found
    }

    /// Greedy non-maximum suppression: `required` indices and 0 first, then the local maxima of
    /// `x` (at least their neighbours; the last index compares with its one neighbour) at or
    /// above `threshold` and standing `prominence` above the mean over ±`window` values (no
    /// prominence test for a window of 0), strongest first, each kept when at least
    /// `minimumDistance` from every kept one and from both ends, until `maximumCount` are kept;
    /// sorted, within `0..<x.count`.
    static func strongestSeparated(
        _ x: [Double], threshold: Double, minimumDistance: Int, required: [Int] = [],
        prominence: Double = 0, window: Int = 0, maximumCount: Int = .max
    ) -> [Int] {
        let n = x.count
        var accepted = Set(required)
        accepted.insert(0)
        var candidates: [Int] = []
        // Running sums for the local mean over t - window ... t + window.
        var prefix = [Double](repeating: 0, count: n + 1)
        for t in 0..<n { prefix[t + 1] = prefix[t] + (x[t].isFinite ? x[t] : 0) }
        func localMean(_ t: Int) -> Double {
            let lo = max(0, t - window), hi = min(n, t + window + 1)
            return (prefix[hi] - prefix[lo]) / Double(max(1, hi - lo))
        }
        if n >= 3 {
            for t in 1..<n
            where x[t].isFinite && x[t] >= threshold
                && (window == 0 || x[t] - localMean(t) >= prominence)
                && isLocalMaximum(x, at: t)
            {
                candidates.append(t)
            }
        }
        candidates.sort { x[$0] > x[$1] }
        for t in candidates where t >= minimumDistance && n - t >= minimumDistance && accepted.count < maximumCount {
            if accepted.allSatisfy({ abs($0 - t) >= minimumDistance }) { accepted.insert(t) }
        }
        return accepted.filter { $0 >= 0 && $0 < n }.sorted()
    }
}

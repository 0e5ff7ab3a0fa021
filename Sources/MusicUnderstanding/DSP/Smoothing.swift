import Foundation

/// Shared signal helpers (moving windows, quantiles, medians, correlation) of the analyses;
/// peaks are picked by ``PeakPicking``.
enum Smoothing {
    /// Pearson correlation of the first `min(a.count, b.count)` values of `a` and `b`, in
    /// `-1 ... 1`; 0 when either is constant or empty.
    static func pearson<A: Collection<Double>, B: Collection<Double>>(_ a: A, _ b: B) -> Double {
        let n = min(a.count, b.count)
        guard n > 0 else { return 0 }
        let ma = a.prefix(n).reduce(0, +) / Double(n), mb = b.prefix(n).reduce(0, +) / Double(n)
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a.prefix(n), b.prefix(n)) {
            ab += (x - ma) * (y - mb)
            aa += (x - ma) * (x - ma)
            bb += (y - mb) * (y - mb)
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    /// Centred moving average over `2 * half + 1` values (fewer at the edges).
    static func movingAverage(_ x: [Float], half: Int) -> [Float] {
        let n = x.count
        guard n > 0, half > 0 else { return x }
        var prefix = [Double](repeating: 0, count: n + 1)
        for i in 0..<n { prefix[i + 1] = prefix[i] + Double(x[i].isFinite ? x[i] : 0) }
        var out = [Float](repeating: 0, count: n)
        for i in 0..<n {
            let lo = max(0, i - half), hi = min(n, i + half + 1)
            out[i] = Float((prefix[hi] - prefix[lo]) / Double(hi - lo))
        }
        return out
    }

    /// Centred moving maximum over `2 * half + 1` values.
    static func movingMaximum(_ x: [Float], half: Int) -> [Float] {
        let n = x.count
        guard n > 0, half > 0 else { return x }
        var out = [Float](repeating: 0, count: n)
        for i in 0..<n {
            var m = -Float.infinity
            for k in max(0, i - half)..<min(n, i + half + 1) { m = max(m, x[k]) }
            out[i] = m
        }
        return out
    }

    /// Centred moving median over `2 * half + 1` values (fewer at the edges); for an even
    /// count the upper middle value.
    static func movingMedian(_ x: [Float], half: Int) -> [Float] {
        let n = x.count
        guard n > 0, half > 0 else { return x }
        var out = [Float](repeating: 0, count: n)
        var window: [Float] = []
        window.reserveCapacity(2 * half + 1)
        for i in 0..<n {
            window.removeAll(keepingCapacity: true)
            for k in max(0, i - half)..<min(n, i + half + 1) { window.append(x[k].isFinite ? x[k] : 0) }
            window.sort()
            out[i] = window[window.count / 2]
        }
        return out
    }

    /// Index `i` reflected into `0..<n` (`d c b a | a b c d | d c b a`), for windows that reach
    /// past either end.
    static func reflect(_ i: Int, _ n: Int) -> Int {
        guard n > 1 else { return 0 }
        var j = i
        let period = 2 * n
        j %= period
        if j < 0 { j += period }
        return j < n ? j : period - 1 - j
    }

    /// The `q`-quantile (0...1) of the finite values of `x`; `nil` when there is none.
    static func quantile<C: Collection<Float>>(_ x: C, _ q: Double) -> Float? {
        let v = x.filter { $0.isFinite }.sorted()
        guard !v.isEmpty else { return nil }
        let i = Int((Double(v.count - 1) * min(1, max(0, q))).rounded())
        return v[i]
    }

    /// The median of `x` (the upper one, `sorted[count / 2]`, for an even count); nil when empty.
    static func median<C: Collection>(_ x: C) -> C.Element? where C.Element: Comparable {
        guard !x.isEmpty else { return nil }
        return x.sorted()[x.count / 2]
    }

    /// The median of `x`, the mean of the two middle values for an even count; nil when empty.
    static func midpointMedian<C: Collection<Double>>(_ x: C) -> Double? {
        guard !x.isEmpty else { return nil }
        let s = x.sorted(), n = s.count
        return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2])
    }

    /// `10 log10(max(x, floor))`.
    @inline(__always) static func dB(_ x: Float, floor: Float = 1e-12) -> Float {
        10 * log10(max(x.isFinite ? x : 0, floor))
    }
}

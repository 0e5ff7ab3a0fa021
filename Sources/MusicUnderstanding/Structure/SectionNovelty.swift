import Foundation

/// Steps 2-3 of the structure analysis: the bar distance, the checkerboard and phrase-repetition
/// novelties, the hypermeter prior and the splitting of long segments into phrases (see
/// ``StructureAnalyzer``).
extension StructureAnalyzer {
    /// Euclidean distance between the vectors of bars `i` and `j`.
    @inline(__always)
    static func distance(_ f: BarFeatures, _ i: Int, _ j: Int) -> Float {
        let d = f.dimension
        var s: Float = 0
        f.values.withUnsafeBufferPointer { v in
            for k in 0..<d { let x = v[i * d + k] - v[j * d + k]; s += x * x }
        }
        return s.squareRoot()
    }

    /// Median distance of bar pairs less than `band` bars apart (the scale of the novelty and
    /// label thresholds); `O(bars × band)`.
    static func medianBandDistance(_ f: BarFeatures, band: Int) -> Double {
        let n = f.count
        var all: [Float] = []
        all.reserveCapacity(n * band)
        for i in 0..<n { for j in (i + 1)..<min(n, i + 1 + band) { all.append(distance(f, i, j)) } }
        return Double(Smoothing.median(all) ?? 0)
    }

    /// Checkerboard novelty (Foote 2000, sec. 3) at every bar line `t` (1 ..< count; index 0 is
    /// 0): the Gaussian-tapered mean distance across the line (bars before vs after) minus the
    /// mean within each side, over the `2L × 2L` bars around it. Near the edges only the pairs
    /// that exist are used, each group normalised by its own weights.
    static func novelty(_ f: BarFeatures, halfWidth L: Int) -> [Double] {
        let n = f.count
        var out = [Double](repeating: 0, count: n)
        guard n >= 2 else { return out }
        let sigma = Double(L) / 2 + 0.5
        let taper = (0..<L).map { exp(-pow(Double($0) + 0.5, 2) / (2 * sigma * sigma)) }
        for t in 1..<n {
            var cross = 0.0, crossW = 0.0, within = 0.0, withinW = 0.0
            let lo = max(0, t - L), hi = min(n, t + L)
            for i in lo..<hi {
                let wi = taper[i < t ? t - 1 - i : i - t]
                for j in (i + 1)..<hi {
                    let w = wi * taper[j < t ? t - 1 - j : j - t]
                    let d = Double(distance(f, i, j))
                    if (i < t) != (j < t) { cross += w * d; crossW += w } else { within += w * d; withinW += w }
                }
            }
            let c = crossW > 0 ? cross / crossW : 0
            let w = withinW > 0 ? within / withinW : 0
            out[t] = c - w
        }
        return out
    }

    /// Phrase-repetition novelty, the lag-`p` row of the time-lag structure features of
    /// J. Serrà, M. Müller, P. Grosche & J. Ll. Arcos ("Unsupervised music structure annotation
    /// by time series structure features and segment similarity", IEEE Trans. Multimedia 16(5),
    /// 2014, sec. II-C/D) at the phrase lag `p` (4 bars): the mean distance between the `p` bars
    /// after bar line `t` and the `p` bars before it, compared in order (bar `t + k` with bar
    /// `t + k - p`). Inside a part whose progression repeats every `p` bars (or 1, 2, ...) it
    /// is small; it peaks where a new part begins, even when the new part reuses the same
    /// chords in another order (where a homogeneity kernel sees no change). Returned in units
    /// of the median bar distance; `O(bars × p)` time, no matrix.
    static func lagNovelty(_ f: BarFeatures, lag p: Int, scale: Double) -> [Double] {
        let n = f.count
        var out = [Double](repeating: 0, count: n)
        guard n >= 2, p >= 1, scale > 0 else { return out }
        for t in 1..<n {
            var s = 0.0, m = 0
            for k in 0..<p where t + k < n && t + k - p >= 0 {
                s += Double(distance(f, t + k, t + k - p)); m += 1
            }
            out[t] = m > 0 ? s / Double(m) / scale : 0
        }
        return out
    }

    /// Hypermeter prior: parts of popular music mostly span whole 4-bar hypermeasures
    /// (F. Lerdahl & R. Jackendoff, "A Generative Theory of Tonal Music", 1983, ch. 2 on
    /// metrical structure above the bar; used for segmentation e.g. by Maezawa, "Music boundary
    /// detection based on a hybrid deep model of novelty, homogeneity, repetition and duration",
    /// ICASSP 2019). The phase of the `period`-bar grid is the residue whose bar lines carry
    /// the most novelty-peak height (above the median); when it carries at least `evidence` times the mean of the
    /// other phases, novelty off that grid is multiplied by `offGridWeight`. Without clear
    /// evidence (no hypermeter, irregular phrases) the novelty is returned unchanged.
    static func hypermetricWeighting(_ novelty: [Double], period: Int, evidence: Double, offGridWeight: Double) -> [Double] {
        let n = novelty.count
        guard period > 1, n > 2 * period else { return novelty }
        // Peak heights above the median, summed per phase.
        let median = Smoothing.median(novelty.filter(\.isFinite)) ?? 0
        var means = [Double](repeating: 0, count: period)
        for t in 1..<(n - 1)
        where novelty[t].isFinite && novelty[t] > median
            && PeakPicking.isLocalMaximum(novelty, at: t)
        {
            means[t % period] += novelty[t] - median
        }
        guard let best = means.indices.max(by: { means[$0] < means[$1] }) else { return novelty }
        let others = means.indices.filter { $0 != best }.map { means[$0] }
        let rest = others.reduce(0, +) / Double(max(1, others.count))
        guard means[best] > evidence * rest else { return novelty }
        return novelty.indices.map { $0 % period == best ? novelty[$0] : novelty[$0] * offGridWeight }
    }

    /// Adds boundaries so no range is longer than `maximum` bars: a longer range is cut every
    /// `group` bars from its start; a remainder of one bar joins the range before it.
    static func split(_ starts: [Int], count n: Int, maximum: Int, group: Int) -> [Int] {
        var out: [Int] = []
        let bounds = starts + [n]
        for s in 0..<starts.count {
            let a = bounds[s], b = bounds[s + 1]
            out.append(a)
            guard b - a > maximum else { continue }
            var t = a + group
            while t < b {
                if b - t > 1 || group == 1 { out.append(t) }
                t += group
            }
        }
        return out
    }
}

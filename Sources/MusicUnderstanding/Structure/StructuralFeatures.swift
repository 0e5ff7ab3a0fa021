import Foundation

/// Section boundaries from structural features: J. Serrà, M. Müller, P. Grosche and J. Ll. Arcos,
/// "Unsupervised music structure annotation by time series structure features and segment
/// similarity", IEEE Transactions on Multimedia 16(5), 2014, sec. II (with the settings of its
/// reference implementation in MSAF, O. Nieto and J. P. Bello, ISMIR 2015 late-breaking demo).
///
/// A chain of small steps over beat-synchronous feature vectors:
/// 1. ``embedded(_:dimension:count:)``: time-delay embedding (each frame with the next `m − 1`), sec. II-A.
/// 2. ``recurrence(_:count:dimension:share:)``: mutual k-nearest-neighbour recurrence plot, sec. II-B.
/// 3. ``lagSmoothed(_:count:)``: the circular time-lag matrix, smoothed by a 2-D Gaussian (along
///    time and along lag), whose rows are the structure features, sec. II-C.
/// 4. ``novelty(_:count:)``: the distance between consecutive structure features, scaled to 0...1, sec. II-D.
/// 5. ``peaks(_:)``: local maxima above a moving median plus an offset.
/// Memory is `O(n²)` in the number of frames, which ``Settings/maximumFrames`` bounds (longer
/// inputs are averaged over groups of frames first).
struct StructuralFeatures: Sendable {
    /// The few settings of the method.
    struct Settings: Sendable, Hashable {
        /// Frames stacked by the time-delay embedding (`m`).
        var embedding = 3
        /// Nearest neighbours kept per frame, as a share of the frames (`κ`).
        var neighbourShare = 0.04
        /// Standard deviation in frames of the Gaussian along time (MSAF's `M_gaussian` 27 / 2).
        var timeSigma = 13.5
        /// Standard deviation in lags of the Gaussian along the lag axis.
        var lagSigma = 0.5
        /// Window in frames of the moving median that peaks must exceed (MSAF's `Mp_adaptive`).
        var medianWindow = 28
        /// Offset over the moving median, as a share of the mean novelty (MSAF's `offset_thres`).
        var offset = 0.05
        /// Frames (each scaled to a maximum magnitude of 1) whose every dimension deviates less
        /// than this over the input are a steady sound: its nearest neighbours, and so its
        /// novelty, would be noise, so it has no boundaries.
        var minimumDeviation: Float = 0.02
        /// Most frames the n × n matrices are built for; longer inputs average groups of frames.
        var maximumFrames = 1024
    }

    var settings = Settings()

    /// Boundaries between `frames` (row-major, `dimension` values each): the indices `i` such
    /// that a new part starts at frame `i` (never 0), each with its novelty (0...1).
    func boundaries(_ frames: [Float], dimension d: Int) -> [(frame: Int, strength: Float)] {
        guard d > 0 else { return [] }
        let total = frames.count / d
        let group = max(1, (total + settings.maximumFrames - 1) / max(1, settings.maximumFrames))
        let (grouped, count) = Self.averaged(frames, dimension: d, count: total, group: group)
        let m = max(1, settings.embedding)
        guard count >= m + 4, Self.varies(grouped, dimension: d, count: count, by: settings.minimumDeviation) else { return [] }
        let (embedded, n) = Self.embedded(grouped, dimension: d, count: count, frames: m)
        let recurrence = Self.recurrence(embedded, count: n, dimension: d * m, share: settings.neighbourShare)
        let features = lagSmoothed(recurrence, count: n)
        let curve = Self.novelty(features, count: n)
        // Novelty at i compares the embedded frames i (frames i ..< i + m) and i + 1, which
        // differ by frame i + m entering: the new part starts there.
        return peaks(curve).map { (frame: min(total - 1, ($0 + m) * group), strength: curve[$0]) }.filter { $0.frame > 0 }
    }

    /// Whether some dimension of the frames has a standard deviation of at least `minimum`.
    static func varies(_ x: [Float], dimension d: Int, count n: Int, by minimum: Float) -> Bool {
        guard n > 1 else { return false }
        for k in 0..<d {
            var mean: Float = 0
            for i in 0..<n { mean += x[i * d + k] }
            mean /= Float(n)
            var variance: Float = 0
            for i in 0..<n { variance += (x[i * d + k] - mean) * (x[i * d + k] - mean) }
            if (variance / Float(n)).squareRoot() >= minimum { return true }
        }
        return false
    }

    /// Means over groups of `group` consecutive frames (the last group may be shorter).
    static func averaged(_ frames: [Float], dimension d: Int, count: Int, group: Int) -> ([Float], Int) {
        guard group > 1 else { return (frames, count) }
        let groups = (count + group - 1) / group
        var out = [Float](repeating: 0, count: groups * d)
        for g in 0..<groups {
            let range = (g * group)..<min(count, (g + 1) * group)
            for i in range { for k in 0..<d { out[g * d + k] += frames[i * d + k] } }
            for k in 0..<d { out[g * d + k] /= Float(range.count) }
        }
        return (out, groups)
    }

    /// Each frame followed by the next `frames − 1` ones, concatenated (`count − frames + 1` rows).
    static func embedded(_ x: [Float], dimension d: Int, count: Int, frames m: Int) -> ([Float], Int) {
        let n = count - m + 1
        var out = [Float](repeating: 0, count: n * d * m)
        for i in 0..<n {
            for j in 0..<m { for k in 0..<d { out[(i * m + j) * d + k] = x[(i + j) * d + k] } }
        }
        return (out, n)
    }

    /// The mutual k-nearest-neighbour recurrence plot (`n × n`, 1 where frames i and j are each
    /// among the other's `share · n` nearest by Euclidean distance; the diagonal 0).
    static func recurrence(_ x: [Float], count n: Int, dimension d: Int, share: Double) -> [Float] {
        let k = min(n - 1, max(1, Int(share * Double(n))))
        var distance = [Float](repeating: 0, count: n * n)
        for i in 0..<n {
            for j in (i + 1)..<max(i + 1, n) {
                var s: Float = 0
                for c in 0..<d {
                    let diff = x[i * d + c] - x[j * d + c]
                    s += diff * diff
                }
                distance[i * n + j] = s
                distance[j * n + i] = s
            }
        }
        // Each row's k nearest, as a stable sort of the other frames by distance would take them:
        // every frame closer than the k-th smallest distance, then the frames at that distance
        // in index order.
        var neighbour = [Bool](repeating: false, count: n * n)
        var sorted = [Float](repeating: 0, count: max(0, n - 1))
        for i in 0..<n where k >= 1 {
            var o = 0
            for j in 0..<n where j != i {
                sorted[o] = distance[i * n + j]
                o += 1
            }
            sorted.sort()
            let kth = sorted[k - 1]
            var ties = k
            for j in 0..<n where j != i && distance[i * n + j] < kth { ties -= 1 }
            for j in 0..<n where j != i {
                let v = distance[i * n + j]
                if v < kth {
                    neighbour[i * n + j] = true
                } else if v == kth && ties > 0 {
                    neighbour[i * n + j] = true
                    ties -= 1
                }
            }
        }
        var r = [Float](repeating: 0, count: n * n)
        for i in 0..<n { for j in 0..<n where neighbour[i * n + j] && neighbour[j * n + i] { r[i * n + j] = 1 } }
        return r
    }

    /// The circular time-lag matrix `L(i, l) = R(i, i + l mod n)`, smoothed by Gaussians along
    /// time (``Settings/timeSigma``) and along lag (``Settings/lagSigma``); row `i` is the
    /// structure feature of frame `i`.
    func lagSmoothed(_ r: [Float], count n: Int) -> [Float] {
        let time = Self.kernel(sigma: settings.timeSigma)
        let across = Self.kernel(sigma: settings.lagSigma)
        // Along time (rows), then along lag (columns); edges reflected as in scipy's filters.
        // The recurrence plot is sparse (at most `share · n` neighbours per row), and a zero adds
        // nothing to a sum, so the lag matrix is kept as each row's nonzero lags and values, in
        // lag order, and each row of the time pass adds only those, still in kernel order.
        var starts = [Int](repeating: 0, count: n + 1)
        var nonzero = [Int](), values = [Float]()
        for i in 0..<n {
            for l in 0..<n {
                let v = r[i * n + (l < n - i ? i + l : i + l - n)]
                if v != 0 { nonzero.append(l); values.append(v) }
            }
            starts[i + 1] = nonzero.count
        }
        var smoothed = [Float](repeating: 0, count: n * n)
        let rt = time.count / 2
        for i in 0..<n {
            for (t, w) in time.enumerated() where w > 0 {
                let src = Smoothing.reflect(i + t - rt, n)
                for k in starts[src]..<starts[src + 1] { smoothed[i * n + nonzero[k]] += w * values[k] }
            }
        }
        var out = [Float](repeating: 0, count: n * n)
        let rl = across.count / 2
        // Lags whose whole kernel lies inside the row need no reflection; each sum still adds
        // the taps in kernel order.
        let inner = min(rl, n)..<max(min(rl, n), n - rl)
        smoothed.withUnsafeBufferPointer { sm in
            out.withUnsafeMutableBufferPointer { o in
                for i in 0..<n {
                    let row = i * n
                    for l in 0..<n where !inner.contains(l) {
                        var s: Float = 0
                        for (t, w) in across.enumerated() { s += w * sm[row + Smoothing.reflect(l + t - rl, n)] }
                        o[row + l] = s
                    }
                    for (t, w) in across.enumerated() {
                        for l in inner { o[row + l] += w * sm[row + l + t - rl] }
                    }
                }
            }
        }
        return out
    }

    /// A normalised Gaussian kernel reaching 4 standard deviations (scipy's `truncate=4`).
    static func kernel(sigma: Double) -> [Float] {
        guard sigma.isFinite, sigma > 0 else { return [1] }
        let radius = Int((4 * sigma).rounded())
        let weights = (-radius...radius).map { exp(-0.5 * Double($0 * $0) / (sigma * sigma)) }
        let total = weights.reduce(0, +)
        return weights.map { Float($0 / total) }
    }

    /// Euclidean distance between consecutive structure features, scaled to 0...1 (the last
    /// frame 0).
    static func novelty(_ features: [Float], count n: Int) -> [Float] {
        var curve = [Float](repeating: 0, count: n)
        for i in 0..<max(0, n - 1) {
            var s: Float = 0
            for l in 0..<n {
                let d = features[(i + 1) * n + l] - features[i * n + l]
                s += d * d
            }
            curve[i] = s.squareRoot()
        }
        let low = curve.min() ?? 0
        let high = (curve.max() ?? 0) - low
        return curve.map { high > 0 ? ($0 - low) / high : 0 }
    }

    /// Local maxima of `curve` above its moving median (``Settings/medianWindow``) plus
    /// ``Settings/offset`` times its mean.
    func peaks(_ curve: [Float]) -> [Int] {
        PeakPicking.aboveMovingMedian(curve, medianWindow: settings.medianWindow, offset: Float(settings.offset))
    }
}

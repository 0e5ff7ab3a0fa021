import Foundation

/// Step 1 of the structure analysis: the bar grid and the bar-synchronous features (see
/// ``StructureAnalyzer``), and the beat and time grids of the structural features.
extension StructureAnalyzer {
    /// Bar-synchronous features: `count` bars, each with a vector of `dimension` values used in
    /// the bar distance, plus the raw energy per bar (for functions).
    public struct BarFeatures: Sendable {
        /// The vectors, `dimension` per bar, bar-major.
        public var values: [Float]
        /// Values per bar.
        public var dimension: Int
        /// Mean log energy per bar (any monotonic loudness measure).
        public var energy: [Float]

        /// Creates bar features; non-finite values are replaced by 0.
        public init(values: [Float], dimension: Int, energy: [Float]) {
            self.values = values.map { $0.isFinite ? $0 : 0 }
            self.dimension = max(0, dimension)
            self.energy = energy.map { $0.isFinite ? $0 : 0 }
        }

        /// Number of bars.
        public var count: Int { dimension > 0 ? values.count / dimension : 0 }
    }

    /// Section starts (bar indices, 0 first) at the bar lines nearest to `times`; when two
    /// land on one bar line, or more than `maximumCount` sections result, the stronger ones stay.
    static func snapped(_ times: [(time: Double, strength: Float)], edges: [Double], maximumCount: Int) -> [Int] {
        let n = edges.count - 1
        var best: [Int: Float] = [:]
        for (time, strength) in times where time.isFinite {
            // The nearest interior bar line (edges[1] ... edges[n - 1]).
            var lo = 1, hi = n - 1
            guard lo <= hi else { break }
            while lo < hi {
                let mid = (lo + hi) / 2
                if edges[mid] < time { lo = mid + 1 } else { hi = mid }
            }
            var index = lo
            if index > 1, abs(edges[index - 1] - time) < abs(edges[index] - time) { index -= 1 }
            best[index] = max(best[index] ?? 0, strength)
        }
        let kept = best.sorted { $0.value > $1.value }.prefix(max(0, maximumCount - 1)).map(\.key)
        return [0] + kept.sorted()
    }

    /// The unit edges: 0, the downbeats inside the input, the duration. A lead-in before the
    /// first downbeat or a tail after the last one shorter than half the median bar joins its
    /// neighbouring bar, so every unit is at least half a bar long.
    static func barEdges(bars: [Double], duration: Double) -> [Double] {
        guard duration.isFinite, duration > 0 else { return [] }
        var lines: [Double] = []
        for t in bars.sorted() where t.isFinite && t > 0 && t < duration && (lines.last.map { t > $0 } ?? true) {
            lines.append(t)
        }
        guard lines.count >= 2 else { return [0, duration] }
        let bar = Smoothing.median(zip(lines.dropFirst(), lines).map { $0 - $1 }) ?? 0
        if let first = lines.first, first < 0.5 * bar { lines.removeFirst() }
        if let last = lines.last, duration - last < 0.5 * bar { lines.removeLast() }
        return [0] + lines + [duration]
    }

    /// Bar-synchronous features from the shared features: L2-normalised chroma (the
    /// shared HPCP blocks), MFCC 1-12 and energy/onset density standardised over the input with a
    /// floor on the deviation (so a steady signal does not have its noise blown up).
    static func barFeatures(_ f: SharedFeatures, edges: [Double], timbreWeight: Float, dynamicsWeight: Float) -> BarFeatures {
        let n = edges.count - 1
        var columns: [[Float]] = []  // each: n × dim, bar-major
        var dims: [Int] = []
        var energy = [Float](repeating: 0, count: n)
        func aligned(_ s: SegmentFeature, _ d: Int) -> [Float]? {
            // One vector per bar only when aggregation kept every edge.
            s.count == n && s.dimension == d ? s.values.map { $0.isFinite ? $0 : 0 } : nil
        }
        if let onset = f.onset, onset.frameRate > 0 {
            let rate = onset.frameRate
            if let chroma = f.chroma?.blockFeature, var v = aligned(chroma.aggregated(between: edges), 12) {
                for b in 0..<n {
                    var norm: Float = 0
                    for k in 0..<12 { norm += v[b * 12 + k] * v[b * 12 + k] }
                    norm = norm.squareRoot()
                    for k in 0..<12 { v[b * 12 + k] = norm > 1e-9 ? v[b * 12 + k] / norm : 0 }
                }
                columns.append(v); dims.append(12)
            }
            let e = FrameFeature(values: onset.energy, dimension: 1, frameRate: rate, startTime: -0.5 / rate)
            if let v = aligned(e.aggregated(between: edges), 1) {
                energy = v
                columns.append(standardised(v, dimension: 1, floor: 0.05, weight: dynamicsWeight)); dims.append(1)
            }
            let s = FrameFeature(values: onset.strength, dimension: 1, frameRate: rate, startTime: -0.5 / rate)
            if let v = aligned(s.aggregated(between: edges), 1) {
                let scale = max(1e-6, v.max() ?? 0)
                columns.append(standardised(v.map { $0 / scale }, dimension: 1, floor: 0.05, weight: dynamicsWeight)); dims.append(1)
            }
        }
        if let mel = f.mel, mel.coefficientCount > 1 {
            let d = mel.coefficientCount
            if let v = aligned(mel.mfccFeature.aggregated(between: edges), d) {
                var t = [Float](repeating: 0, count: n * (d - 1))
                for b in 0..<n { for k in 1..<d { t[b * (d - 1) + k - 1] = v[b * d + k] } }
                columns.append(standardised(t, dimension: d - 1, floor: 0.1, weight: timbreWeight / Float(d - 1).squareRoot()))
                dims.append(d - 1)
            }
        }
        let dimension = dims.reduce(0, +)
        var values = [Float](repeating: 0, count: n * dimension)
        var offset = 0
        for (column, d) in zip(columns, dims) {
            for b in 0..<n { for k in 0..<d { values[b * dimension + offset + k] = column[b * d + k] } }
            offset += d
        }
        return BarFeatures(values: values, dimension: dimension, energy: energy)
    }

    /// Standardises each dimension over the bars (deviation floored at `floor`) and scales by
    /// `weight`.
    static func standardised(_ v: [Float], dimension d: Int, floor: Float, weight: Float) -> [Float] {
        guard d > 0 else { return v }
        let n = v.count / d
        guard n > 0 else { return v }
        var out = v
        for k in 0..<d {
            var mean: Float = 0
            for b in 0..<n { mean += v[b * d + k] }
            mean /= Float(n)
            var variance: Float = 0
            for b in 0..<n { variance += (v[b * d + k] - mean) * (v[b * d + k] - mean) }
            let deviation = max(floor, (variance / Float(n)).squareRoot())
            for b in 0..<n { out[b * d + k] = weight * (v[b * d + k] - mean) / deviation }
        }
        return out
    }

    /// `edges` with each of `times` added that lies more than `tolerance` seconds from every
    /// edge (and inside the first and last edge), sorted.
    static func merged(_ edges: [Double], with times: [Double], tolerance: Double) -> [Double] {
        guard let first = edges.first, let last = edges.last else { return edges }
        var out = edges
        for t in times where t.isFinite && t > first + tolerance && t < last - tolerance {
            if !out.contains(where: { abs($0 - t) <= tolerance }) { out.append(t) }
        }
        return out.sorted()
    }

    /// `times` with the midpoint of each two added while their median interval is longer than
    /// `longest` seconds (at most three times).
    static func subdivided(_ times: [Double], longest: Double) -> [Double] {
        var times = times
        for _ in 0..<3 {
            guard times.count >= 2, let interval = Smoothing.median(zip(times.dropFirst(), times).map { $0 - $1 }),
                interval > longest
            else { break }
            times = Grid.withMidpoints(times) { ($0 + $1) / 2 }
        }
        return times
    }

    /// `0, step, 2·step, …, duration` (the last unit at least half a step long).
    static func grid(step: Double, duration: Double) -> [Double] {
        var edges = [0.0]
        var t = step
        while t < duration - 0.5 * step {
            edges.append(t)
            t += step
        }
        edges.append(duration)
        return edges
    }

    /// Beat-synchronous frames for the structural features: semitone chroma, each frame
    /// scaled to a maximum of 1, beside MFCC 1-12 scaled by their largest magnitude in the
    /// input; then each frame scaled to a maximum magnitude of 1 (MSAF's `bound_norm_feats`).
    static func boundaryFrames(_ f: SharedFeatures, edges: [Double]) -> (values: [Float], dimension: Int)? {
        let n = edges.count - 1
        var parts: [(values: [Float], dimension: Int)] = []
        if let chroma = f.chroma?.blockFeature {
            let a = chroma.aggregated(between: edges)
            if a.count == n, a.dimension == 12 { parts.append((a.values.map { $0.isFinite ? $0 : 0 }, 12)) }
        }
        if let mel = f.mel, mel.coefficientCount > 1 {
            let d = mel.coefficientCount
            let a = mel.mfccFeature.aggregated(between: edges)
            if a.count == n, a.dimension == d {
                var t = [Float](repeating: 0, count: n * (d - 1))
                for b in 0..<n { for k in 1..<d { t[b * (d - 1) + k - 1] = a.values[b * d + k].isFinite ? a.values[b * d + k] : 0 } }
                let top = t.map(abs).max() ?? 0
                parts.append((top > 0 ? t.map { $0 / top } : t, d - 1))
            }
        }
        let dimension = parts.reduce(0) { $0 + $1.dimension }
        guard dimension > 0 else { return nil }
        var values = [Float](repeating: 0, count: n * dimension)
        var offset = 0
        for part in parts {
            for b in 0..<n { for k in 0..<part.dimension { values[b * dimension + offset + k] = part.values[b * part.dimension + k] } }
            offset += part.dimension
        }
        for b in 0..<n {
            var top: Float = 0
            for k in 0..<dimension { top = max(top, abs(values[b * dimension + k])) }
            if top > 1e-9 { for k in 0..<dimension { values[b * dimension + k] /= top } }
        }
        return (values, dimension)
    }
}

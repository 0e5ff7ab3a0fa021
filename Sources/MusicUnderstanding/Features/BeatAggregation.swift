import Foundation

/// A feature sampled at a constant rate: `dimension` values per frame, stored flat and
/// frame-major (frame `i` is `values[i * dimension ..< (i + 1) * dimension]`).
///
/// Frame `i` summarises the time span `startTime + i / frameRate ..< startTime + (i + 1) / frameRate`
/// seconds; its centre `startTime + (i + 0.5) / frameRate` decides which segment it belongs to
/// when aggregated. For a curve at the STFT frame rate, whose frame `i` is centred at
/// `i / frameRate`, `startTime` is `-0.5 / frameRate`.
public struct FrameFeature: Sendable {
    /// The values, `dimension` per frame, frame-major. A trailing partial frame is ignored.
    public var values: [Float]
    /// Values per frame (12 for chroma, 13 for MFCCs, ...).
    public var dimension: Int
    /// Frames per second.
    public var frameRate: Double
    /// Time in seconds at which the span of frame 0 begins.
    public var startTime: Double

    /// Creates a frame feature; `startTime` defaults to 0 (frame `i` spans `i / frameRate`
    /// to `(i + 1) / frameRate`).
    public init(values: [Float], dimension: Int, frameRate: Double, startTime: Double = 0) {
        self.values = values
        self.dimension = dimension
        self.frameRate = frameRate
        self.startTime = startTime
    }

    /// Number of complete frames (0 when `dimension` is not positive).
    public var count: Int { dimension > 0 ? values.count / dimension : 0 }

    /// End in seconds of the span of the last frame.
    public var endTime: Double { startTime + Double(count) / frameRate }
}

/// How the frames inside one segment are combined, per dimension.
public enum SegmentReduction: Sendable, Hashable, Codable {
    /// Arithmetic mean (the default; beat-synchronous chroma and MFCCs).
    case mean
    /// Maximum.
    case maximum
    /// Median; for an even number of frames the mean of the two middle values.
    case median
}

/// A frame feature aggregated over segments: one vector of `dimension` values per segment,
/// flat and segment-major. Segment `i` spans `boundaries[i] ..< boundaries[i + 1]` seconds.
public struct SegmentFeature: Sendable {
    /// The sanitised boundaries the segments lie between (strictly increasing, finite, within
    /// the feature's time span); `count + 1` values, or none when there is no segment.
    public var boundaries: [Double]
    /// The aggregated values, `dimension` per segment, segment-major.
    public var values: [Float]
    /// Values per segment.
    public var dimension: Int

    /// Creates a segment feature from its parts.
    public init(boundaries: [Double], values: [Float], dimension: Int) {
        self.boundaries = boundaries
        self.values = values
        self.dimension = dimension
    }

    /// Number of segments.
    public var count: Int { dimension > 0 ? values.count / dimension : 0 }

    /// The values of segment `i` (`0 ..< count`).
    public func vector(_ i: Int) -> ArraySlice<Float> { values[(i * dimension)..<((i + 1) * dimension)] }
}

extension FrameFeature {
    /// Aggregates the frames between consecutive boundary times (beats, bars, sections):
    /// segment `i` combines, per dimension, the frames whose centre lies in
    /// `boundaries[i] ..< boundaries[i + 1]` with `reduction` (the mean by default), as for the
    /// beat-synchronous features of structure analysis (Bartsch & Wakefield 2005; Paulus,
    /// Müller & Klapuri, "Audio-based music structure analysis", ISMIR 2010, sec. 3).
    ///
    /// Segments that contain no frame centre (shorter than a frame) take the frame nearest to
    /// the segment's midpoint.
    ///
    /// The boundaries are sanitised first, so any input is safe: non-finite values (NaN, ±∞)
    /// are dropped, the rest sorted, clamped to the feature's span `startTime ... endTime`
    /// (negative or beyond-the-end times land on the edges) and duplicates removed. The result
    /// carries the boundaries actually used: for sorted, distinct boundaries inside the span
    /// (the usual beat list) they are the input and segment `i` belongs to input interval `i`.
    /// The time after the last boundary is not a segment: append the end time (the duration)
    /// to include it.
    ///
    /// Returns an empty result (no boundaries, no values) when the feature has no frames, its
    /// dimension or frame rate is not positive, or fewer than two distinct boundaries remain.
    /// Cost: one pass over the frames inside the segments, plus a sort per segment and
    /// dimension for the median.
    public func aggregated(between boundaries: [Double], using reduction: SegmentReduction = .mean) -> SegmentFeature {
        let d = dimension, n = count
        guard d > 0, n > 0, frameRate.isFinite, frameRate > 0, startTime.isFinite else {
            return SegmentFeature(boundaries: [], values: [], dimension: max(0, d))
        }
        let lowest = startTime, highest = endTime
        var edges = boundaries.filter { $0.isFinite }.map { min(highest, max(lowest, $0)) }
        edges.sort()
        var distinct: [Double] = []
        distinct.reserveCapacity(edges.count)
        for t in edges where distinct.last.map({ t > $0 }) ?? true { distinct.append(t) }
        guard distinct.count >= 2 else { return SegmentFeature(boundaries: [], values: [], dimension: d) }

        let segments = distinct.count - 1
        var out = [Float](repeating: 0, count: segments * d)
        var scratch: [Float] = []
        // First frame whose centre is at or after time t: ceil((t - start) * rate - 0.5),
        // clamped to 0...n (t is within the span, so the product is bounded).
        func firstFrame(atOrAfter t: Double) -> Int {
            let x = ((t - startTime) * frameRate - 0.5).rounded(.up)
            return Int(min(Double(n), max(0, x)))
        }
        values.withUnsafeBufferPointer { v in
            out.withUnsafeMutableBufferPointer { o in
                for s in 0..<segments {
                    var lo = firstFrame(atOrAfter: distinct[s])
                    var hi = firstFrame(atOrAfter: distinct[s + 1])
                    if hi <= lo {
                        let mid = 0.5 * (distinct[s] + distinct[s + 1])
                        let x = ((mid - startTime) * frameRate).rounded(.down)
                        lo = Int(min(Double(n - 1), max(0, x)))
                        hi = lo + 1
                    }
                    let base = s * d
                    switch reduction {
                    case .mean:
                        for f in lo..<hi {
                            for c in 0..<d { o[base + c] += v[f * d + c] }
                        }
                        let frames = Float(hi - lo)
                        for c in 0..<d { o[base + c] /= frames }
                    case .maximum:
                        for c in 0..<d { o[base + c] = v[lo * d + c] }
                        for f in (lo + 1)..<max(lo + 1, hi) {
                            for c in 0..<d { o[base + c] = max(o[base + c], v[f * d + c]) }
                        }
                    case .median:
                        let m = hi - lo
                        for c in 0..<d {
                            scratch.removeAll(keepingCapacity: true)
                            for f in lo..<hi { scratch.append(v[f * d + c]) }
                            scratch.sort()
                            o[base + c] = m % 2 == 1 ? scratch[m / 2] : 0.5 * (scratch[m / 2 - 1] + scratch[m / 2])
                        }
                    }
                }
            }
        }
        return SegmentFeature(boundaries: distinct, values: out, dimension: d)
    }
}

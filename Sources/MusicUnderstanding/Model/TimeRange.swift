import Foundation

/// A span of time in seconds: `{"start": s, "duration": d}` in reports.
public struct TimeRange: Sendable, Hashable, Codable {
    /// Start of the range, seconds from the start of the audio.
    public var start: Double
    /// Length of the range in seconds.
    public var duration: Double
    /// End of the range (`start + duration`).
    public var end: Double { start + duration }

    /// Creates a range from its start and duration.
    public init(start: Double, duration: Double) {
        self.start = start
        self.duration = duration
    }

    /// Creates a range from its start and end.
    public init(start: Double, end: Double) {
        self.start = start
        self.duration = max(0, end - start)
    }

    /// Written as the rounded start and the difference of the rounded end and start, so that
    /// ranges that meet still meet in the report (`start + duration` of one is the next `start`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let roundedDuration = ReportRounding.time(ReportRounding.time(end) - ReportRounding.time(start))
        try c.encode(roundedDuration, forKey: .duration)
        try c.encode(ReportRounding.time(start), forKey: .start)
    }
}

/// Rounding applied when encoding reports, so output is compact and deterministic.
enum ReportRounding {
    /// Times to 0.1 ms.
    /// (`+ 0` turns a rounded minus zero into zero, so that `-0` is never written.)
    static func time(_ t: Double) -> Double { (t * 10_000).rounded() / 10_000 + 0 }
    /// Levels (LUFS, dB, LU) to 0.001.
    static func level(_ v: Double) -> Double { (v * 1000).rounded() / 1000 + 0 }
}

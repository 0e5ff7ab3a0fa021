import Foundation

/// How fast the music feels over time, in perceived events per minute.
public struct PaceResult: Sendable, Codable {
    /// Pace over time.
    public var ranges: [MusicUnderstandingSession.RangedValue<Double>]

    /// Creates a pace result.
    public init(ranges: [MusicUnderstandingSession.RangedValue<Double>]) {
        self.ranges = ranges
    }
}

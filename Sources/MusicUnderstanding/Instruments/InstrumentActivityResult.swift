import Foundation

/// Which instruments play when.
public struct InstrumentActivityResult: Sendable, Codable {
    /// The instrument families reported.
    public enum Instrument: String, Sendable, Codable, CaseIterable, CodingKeyRepresentable {
        /// Singing voice, drums and percussion, bass, and other pitched material.
        case vocal, drum, bass, other
    }

    /// Where each instrument is present.
    public var ranges: [Instrument: [TimeRange]]
    /// Intensity 0...1 of each instrument over time.
    public var activity: [Instrument: [MusicUnderstandingSession.TimedValue<Float>]]

    /// Creates an instrument activity result.
    public init(ranges: [Instrument: [TimeRange]], activity: [Instrument: [MusicUnderstandingSession.TimedValue<Float>]]) {
        self.ranges = ranges
        self.activity = activity
    }

    enum CodingKeys: String, CodingKey { case ranges, activity }

    /// An instrument's name as a key of the `ranges` and `activity` maps.
    struct InstrumentKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ instrument: Instrument) { stringValue = instrument.rawValue }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The activity value the contract allows (`0...1`, never `null`): values above 1 are 1,
    /// values below 0 (and minus infinity) are 0, and NaN, an undefined intensity, is 0.
    static func contractActivity(_ value: Float) -> Float {
        value.isNaN ? 0 : min(max(value, 0), 1)
    }

    /// Reads the maps back; an instrument missing from a map is absent, unknown instruments
    /// (extra fields) are ignored.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let rangesByName = try c.nestedContainer(keyedBy: InstrumentKey.self, forKey: .ranges)
        let activityByName = try c.nestedContainer(keyedBy: InstrumentKey.self, forKey: .activity)
        ranges = [:]
        activity = [:]
        for instrument in Instrument.allCases {
            let key = InstrumentKey(instrument)
            ranges[instrument] = try rangesByName.decodeIfPresent([TimeRange].self, forKey: key)
            activity[instrument] = try activityByName.decodeIfPresent([MusicUnderstandingSession.TimedValue<Float>].self, forKey: key)
        }
    }

    /// Writes both maps with all four instruments, as the contract requires (an instrument
    /// absent from a map is written as `[]`), and each activity value as
    /// ``contractActivity(_:)`` makes it, rounded like every level to 0.001.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(InstrumentMap(values: activity.mapValues { ActivityItems.activity($0) }), forKey: .activity)
        try c.encode(InstrumentMap(values: ranges.mapValues { ActivityItems.ranges($0) }), forKey: .ranges)
    }

    /// One of the two maps, keyed by instrument name, every instrument present.
    private struct InstrumentMap: Encodable {
        var values: [Instrument: ActivityItems]
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: InstrumentKey.self)
            for instrument in Instrument.allCases.sorted(by: { $0.rawValue < $1.rawValue }) {
                try c.encode(values[instrument] ?? .ranges([]), forKey: InstrumentKey(instrument))
            }
        }
    }

    /// One instrument's entry: its ranges, or its activity curve clamped element by element.
    private enum ActivityItems: Encodable {
        case ranges([TimeRange])
        case activity([MusicUnderstandingSession.TimedValue<Float>])
        func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            switch self {
            case .ranges(let ranges):
                for range in ranges { try c.encode(range) }
            case .activity(let curve):
                for point in curve {
                    try c.encode(MusicUnderstandingSession.TimedValue(time: point.time, value: InstrumentActivityResult.contractActivity(point.value)))
                }
            }
        }
    }
}
